"""The unit of work: grade one notebook of one student.

A job is a JSON-able dict that carries its content (`judge.jobs`: the submission, the instructor's
template, the other files; limits and hashes); its result is JSON-able too (the autograded notebook,
repairs, failures, timings), so the same function runs on any machine. Student cells run in a child
forked by the zygote (`session.Session`); test cells run here, in the judge, interleaved in notebook
order (`verdict.run_test`). A child that dies or runs out of time costs its cell: a fresh child
replays the earlier successful cells without it, and grading goes on.
"""

from __future__ import annotations

import json
import re
import socket
import time
from typing import Any

import nbformat

from autograder.config.limits import from_dict
from autograder.judge import jobs
from autograder.judge.session import Session
from autograder.judge.verdict import Verdict, free_names, notebook_scope, probing_test, run_test
from autograder.wire.seal import TamperDetected
from autograder.rules import items, repair, scoring


OUTPUT_TYPES = {"stream", "display_data", "execute_result", "error"}


def _clean_outputs(outputs: Any) -> list[dict]:
    """The child's outputs, checked to be nbformat outputs and nothing else."""
    clean = []
    for out in outputs if isinstance(outputs, list) else []:
        if not isinstance(out, dict) or out.get("output_type") not in OUTPUT_TYPES:
            continue
        kind = out["output_type"]
        if kind == "stream" and out.get("name") in ("stdout", "stderr") and isinstance(out.get("text"), str):
            clean.append(nbformat.v4.new_output("stream", name=out["name"], text=out["text"]))
        elif kind in ("display_data", "execute_result") and isinstance(out.get("data"), dict):
            data = {
                k: v
                for k, v in out["data"].items()
                if isinstance(k, str) and "/" in k and isinstance(v, (str, dict, list))
            }
            meta = out.get("metadata") if isinstance(out.get("metadata"), dict) else {}
            if kind == "execute_result":
                count = out.get("execution_count") if type(out.get("execution_count")) is int else None
                clean.append(nbformat.v4.new_output(kind, data=data, metadata=meta, execution_count=count))
            else:
                clean.append(nbformat.v4.new_output(kind, data=data, metadata=meta))
        elif kind == "error" and isinstance(out.get("ename"), str) and isinstance(out.get("evalue"), str):
            tb = (
                [str(x) for x in out.get("traceback", []) if isinstance(x, str)]
                if isinstance(out.get("traceback"), list)
                else []
            )
            clean.append(nbformat.v4.new_output("error", ename=out["ename"], evalue=out["evalue"], traceback=tb))
    return clean


def _test_outputs(outputs: Any, *, stderr_fails: bool) -> list[dict]:
    """A test cell's outputs; with `stderr_fails` off, what it wrote to stderr is shown as stdout.

    nbgrader scores a test cell 0 when its outputs hold a stderr stream, and so does the engine unless
    the course sets `c.Autograder.stderr_fails_test = False`: then a test's score is its verdict, and a
    warning from the student's code (PyTorch's UserWarnings) costs a passing test nothing; a failing one
    still holds its error. `course.checks.show_stderr_on_stdout` applies that rule in a notebook kernel,
    for stock nbgrader and for the student.
    """
    clean = _clean_outputs(outputs)
    if not stderr_fails:
        for out in clean:
            if out["output_type"] == "stream":
                out["name"] = "stdout"
    return clean


def _error_output(ename: str, evalue: str) -> dict:
    return nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


def _locked(cell: Any) -> bool:
    """A read-only cell of the instructor's: repair put its source back, so what it runs is the lesson's."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return bool(meta.get("locked")) and not meta.get("solution") and not meta.get("grade")


def _item_of(cell: Any) -> str | None:
    """The graded item a cell belongs to: its answer cell's grade id, or its test cell's without `test_`."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    grade_id = meta.get("grade_id")
    if not isinstance(grade_id, str):
        return None
    if meta.get("grade") and not meta.get("solution"):
        return items.item_of(grade_id)
    return grade_id if meta.get("solution") else None


def _output_size(outputs: list) -> int:
    return sum(len(json.dumps(o)) for o in outputs)


def _over_note(what: str) -> dict:
    """On stdout: nbgrader scores a test cell with anything on stderr as failed."""
    return nbformat.v4.new_output("stream", name="stdout", text=f"[outputs not kept: {what}]\n")


def _fit_notebook(nb: Any, limit_bytes: int, text: str | None = None) -> bool:
    """Replace the largest outputs by a note until the notebook (written: `text`) is within `limit_bytes`; whether any were."""
    size = len(text if text is not None else nbformat.writes(nb))
    if size <= limit_bytes:
        return False
    cells = sorted(
        (c for c in nb.cells if c.get("cell_type") == "code" and c.get("outputs")),
        key=lambda c: -_output_size(c.outputs),
    )
    for cell in cells:
        before = _output_size(cell.outputs)
        cell.outputs = [
            _over_note(f"the autograded notebook was over its size limit ({limit_bytes // (1024 * 1024)} MB)")
        ]
        size -= before - _output_size(cell.outputs)
        if size <= limit_bytes:
            break
    return True


def _add_notes(nb: Any, notes: list[str]) -> None:
    """The grader's notes about this notebook's limits, as a markdown cell at the top (the student's feedback shows it)."""
    text = "**Notes from the grader**\n\n" + "\n".join(f"- {note}" for note in notes)
    nb.cells.insert(0, nbformat.v4.new_markdown_cell(text, metadata={"autograder": {"notes": True}}))


def grade_job(job: dict, control: socket.socket, *, memory: Any = None) -> dict:
    """Grade one notebook; never raises for anything the submission does.

    `memory` is the judge's memory cgroup for the notebook's processes (`cgroup.Group`), or None.
    """
    started = time.perf_counter()
    result = {
        "job": job["key"],
        "student": job["student"],
        "assignment": job["assignment"],
        "notebook": job["notebook"],
        "status": "ok",
        "reason": "",
        "notebook_json": None,
        "repairs": [],
        "failures": [],
        "warnings": [],
        "timings": {},
    }
    template = jobs.template(job)
    limits = from_dict(job["limits"])
    try:
        data = jobs.submission(job)
        fixed = repair.repair(data, template)
    except repair.SubmissionError as exc:
        result.update(status="error", reason=str(exc))
        return result
    result["repairs"] = fixed.notes
    in_sandbox = bool(job.get("tests_in_sandbox"))
    if in_sandbox:
        result["warnings"].append(
            "test cells ran inside the student's process (--in-sandbox-tests): the grades can be forged"
        )
    if memory is not None:
        try:
            memory.set_limit(limits.memory_mb)
        except OSError:
            pass  # the group keeps the limit the pool gave it
    deadline = time.monotonic() + limits.notebook_timeout
    session = Session(
        control, jobs.files(job), limits, deadline, allow_weak=bool(job.get("allow_weak_sandbox")), memory=memory
    )
    run = _NotebookRun(fixed, session, limits, deadline, notes=[str(n) for n in job.get("notes", [])])
    try:
        with notebook_scope():
            for index, (cell, role) in enumerate(zip(fixed.notebook.cells, fixed.roles)):
                if role != "markdown":
                    run.cell(index, cell, role, in_sandbox=in_sandbox)
    except RuntimeError as exc:
        result.update(status="error", reason=str(exc))
        return result
    finally:
        session._drop_prober()
        session.close()
    result["failures"] = run.failures
    result["tampering"] = [{"item": item, "details": details} for item, details in run.tampering.items()]
    result["notebook_json"], result["limits"] = run.autograded()
    if not result["limits"]:
        del result["limits"]
    # what the gradebook records for this notebook, worked out here, beside the grader's other workers,
    # so the coordinator that records every notebook of a class does not
    result["summary"] = scoring.summarise(fixed.notebook, scoring.flagged_items(result["tampering"]))
    result["timings"] = {
        "student_s": run.student_s,
        "judge_s": run.judge_s,
        "total_s": time.perf_counter() - started,
        "student_code_s": session.busy,
        "forks": session.forks,
        "fork_s": session.fork_s,
        "tests": run.test_seconds,
    }
    return result


class _NotebookRun:
    """One notebook's cells run in order: each cell's outputs, the failures, what tampering was seen for
    which item, and the output the notebook may still record."""

    def __init__(self, fixed: Any, session: Session, limits: Any, deadline: float, *, notes: list[str]) -> None:
        self.fixed, self.nb, self.session, self.limits, self.deadline = fixed, fixed.notebook, session, limits, deadline
        self.notes = notes
        self.output_left = limits.notebook_output_mb * 1024 * 1024
        self.failures: list[dict] = []
        self.tampering: dict[str | None, list[str]] = {}
        self.test_seconds: dict[str, float] = {}
        self.student_s = self.judge_s = 0.0
        self.count = 0
        self.over_memory = _error_output(
            "MemoryError",
            f"a process of this cell went over the notebook's memory limit ({limits.memory_mb} MB for all "
            "its processes and files together, c.Autograder.memory_limit_mb) and the grader stopped it",
        )

    def kept(self, outputs: list) -> list:
        """`outputs`, or a note once the notebook's total recorded output is spent."""
        size = _output_size(outputs)
        if size <= self.output_left:
            self.output_left -= size
            return outputs
        limit = self.limits.notebook_output_mb
        if self.output_left >= 0:
            self.notes.append(
                f"outputs past the notebook's limit of {limit} MB in all (c.Autograder.max_notebook_output_mb) were not kept"
            )
            self.output_left = -1
        errors = [o for o in outputs if o.get("output_type") == "error"]
        return [_over_note(f"the notebook is over its limit of {limit} MB of output in all")] + errors[:1]

    def tampered(self, item: str | None, events: list[str]) -> None:
        if events:
            found = self.tampering.setdefault(item, [])
            found += [e for e in events if e not in found]

    def cell(self, index: int, cell: Any, role: str, *, in_sandbox: bool) -> None:
        if time.monotonic() >= self.deadline:
            cell.outputs = [
                _error_output(
                    "TimeoutError",
                    f"not run: the notebook ran past its time limit ({self.limits.notebook_timeout:g} s)",
                )
            ]
            self.failures.append({"cell": index, "kind": "notebook timeout"})
            return
        self.count += 1
        if role == "test" and not in_sandbox:
            self.test_cell(index, cell)
        else:
            self.student_cell(index, cell, role)

    def test_cell(self, index: int, cell: Any) -> None:
        """A test cell, run by the judge against the child's values.

        A test that probes runs every call in the probe child (`probing_test`), so the values it checks
        and the properties its probes measure come from the same process."""
        session, item = self.session, _item_of(cell)
        source = self.fixed.tests[index]
        t0 = time.perf_counter()
        try:
            session.ensure(self.failures)
            self.tampered(None, session.take_events())
            conn = session.begin_test()
            if probing_test(source):
                verdict = self.probing_test_cell(source, item)
            else:
                verdict = run_test(source, conn, output_chars=self.limits.output_kb * 1024, run_probe=session.run_probe)
        except TimeoutError:
            verdict = Verdict(False, [], "TimeoutError", "the notebook ran past its time limit")
            verdict.outputs = [_error_output(verdict.ename, verdict.evalue)]
        finally:
            self.tampered(item, session.settle_probes())
        self.tampered(item, verdict.tampering)
        self.judge_s += time.perf_counter() - t0
        self.test_seconds[item or str(index)] = round(time.perf_counter() - t0, 4)
        cell.outputs = self.kept(_test_outputs(verdict.outputs, stderr_fails=self.limits.stderr_fails_test))
        if session.memory_hit():
            cell.outputs.append(self.over_memory)
        cell.execution_count = self.count
        if verdict.died:
            kind = "test call " + ("timeout" if verdict.ename == "TimeoutError" else "crash")
            self.failures.append({"cell": index, "kind": kind, "detail": verdict.evalue})

    def probing_test_cell(self, source: str, item: str | None) -> Verdict:
        """Run a test that probes in the probe child, holding what the test's names need; if a name the
        slice missed is then wanted, run it again in a child holding every cell the notebook ran."""
        session = self.session
        names = set(free_names(source)) | ({item} if item else set())
        for whole in (False, True):
            try:
                child = session.test_child(names, whole=whole)
            except TamperDetected as exc:
                return Verdict(False, [], "TamperingDetected", str(exc), tampering=[str(exc)])
            verdict = Verdict(False, [], "RuntimeError", "the test did not run")
            try:
                verdict = run_test(
                    source,
                    child.conn,
                    output_chars=self.limits.output_kb * 1024,
                    run_probe=lambda probe, name, args, kwargs, child=child: session.probe_in(
                        child, probe, name, args, kwargs
                    ),
                )
            finally:
                verdict.tampering += session.close_test_child(child, spoiled=verdict.died or bool(verdict.tampering))
            if verdict.tampering and verdict.ename != "TamperingDetected":
                verdict = Verdict(
                    False,
                    [_error_output("TamperingDetected", "; ".join(dict.fromkeys(verdict.tampering))[:2000])],
                    "TamperingDetected",
                    "; ".join(dict.fromkeys(verdict.tampering))[:2000],
                    tampering=verdict.tampering,
                )
            if verdict.passed or verdict.ename != "NameError":
                break
        return verdict

    def student_cell(self, index: int, cell: Any, role: str) -> None:
        """A student's cell (or, with tests in the sandbox, a test cell), run in the child."""
        session = self.session
        source = self.fixed.tests[index] if role == "test" else cell.source
        t0 = time.perf_counter()
        try:
            status, reply = session.run_student(source, self.failures, trusted=role == "test" or _locked(cell))
        except TimeoutError:
            status, reply = "timeout", {}
        self.tampered(_item_of(cell), session.take_events())
        self.student_s += time.perf_counter() - t0
        cell.execution_count = self.count
        if status in ("ok", "error"):
            cell.outputs = _clean_outputs(reply.get("outputs"))
            if role == "test":  # a traceback would show the hidden tests' source
                cell.outputs = [
                    _error_output(o.ename, o.evalue) if o.output_type == "error" else o
                    for o in _test_outputs(cell.outputs, stderr_fails=self.limits.stderr_fails_test)
                ]
            if status == "error" and not any(o["output_type"] == "error" for o in cell.outputs):
                cell.outputs.append(_error_output(str(reply.get("ename", "Error")), str(reply.get("evalue", ""))))
            cell.outputs = self.kept(cell.outputs)
        elif status == "timeout":
            cell.outputs = [
                _error_output(
                    "TimeoutError",
                    f"this cell ran past the grader's time limit ({self.limits.cell_timeout:g} s per cell) and was stopped; the rest of the notebook was graded without it",
                )
            ]
            self.failures.append({"cell": index, "kind": "timeout"})
        else:
            cell.outputs = [
                _error_output(
                    "DeadKernelError",
                    "this cell ended its process (it crashed or exited); the rest of the notebook was graded without it",
                )
            ]
            self.failures.append({"cell": index, "kind": "crash"})
        if session.memory_hit():
            cell.outputs = [o for o in cell.outputs if o.get("ename") != "DeadKernelError"] + [self.over_memory]
            self.failures.append({"cell": index, "kind": "memory limit"})

    def autograded(self) -> tuple[str, list[str]]:
        """The autograded notebook's text, with a flagged item's grade cells replaced by the reason and the
        grader's notes on top; and those notes (the limits the notebook went over)."""
        nb, limits = self.nb, self.limits
        for cell in nb.cells:
            item = _item_of(cell)
            if cell.get("metadata", {}).get("nbgrader", {}).get("grade") and item in self.tampering:
                cell.outputs = [scoring.tampered_output("; ".join(self.tampering[item]))]
        text = nbformat.writes(nb)
        if _fit_notebook(nb, limits.autograded_mb * 1024 * 1024, text):
            self.notes.append(
                f"the autograded notebook was over its limit of {limits.autograded_mb} MB (c.Autograder.max_autograded_mb): "
                "its largest outputs were replaced by a note"
            )
        if self.notes:
            _add_notes(nb, self.notes)
            text = nbformat.writes(nb)
        return text, self.notes


_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8_text(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD. Python prints one when asked (`print("\\ud800")`),
    an error's message or an attribute's name can hold one, and nbformat keeps it in an output; such text
    cannot be written as UTF-8, so every write after the judge (records, autograded/, the gradebook,
    feedback, the cluster's answer) would fail on it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def utf8_values(value: Any) -> Any:
    """A result (dicts, lists, strings, numbers) with `utf8_text` applied to every string in it."""
    if isinstance(value, str):
        return utf8_text(value)
    if isinstance(value, dict):
        return {utf8_values(k): utf8_values(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [utf8_values(v) for v in value]
    return value
