"""The unit of work: grade one notebook of one student.

A job is a JSON-able dict that carries its content (`autograder/jobs.py`: the submission, the
instructor's template, the other files; limits and hashes); its result is JSON-able too (the
autograded notebook, repairs, failures, timings), so the same function runs on any machine. Student
cells run in a child forked by the zygote; test cells run here, in the judge, interleaved in notebook
order. A child that dies or runs out of time costs its cell: a fresh child replays the earlier
successful cells without it, and grading goes on.
"""

from __future__ import annotations

import json
import os
import socket
import time
from typing import Any

import nbformat

from autograder import guard, items, jobs, judge, limits as limits_mod, repair, scoring, slicing, wire, zygote

OUTPUT_TYPES = {"stream", "display_data", "execute_result", "error"}


class Session:
    """One notebook's child, the replay that rebuilds it after a crash or a timeout, and its probe children.

    Every child gets a fresh key as its first message, before any student code runs: its guard seals
    tamper reports and probe evidence with it. A probe runs in a child of its own, forked for the item
    under test and holding only the code that item needs (`slicing.needed_code`), never in the child
    that ran the whole notebook.
    """

    def __init__(
        self,
        control: socket.socket,
        files: list[tuple[str, bytes]],
        limits: Any,
        deadline: float,
        *,
        allow_weak: bool = False,
        memory: Any = None,
        budget: wire.Budget | None = None,
    ):
        self.control = control
        self.files = files
        self.allow_weak = allow_weak
        self.memory = (
            memory  # the notebook's memory cgroup (`cgroup.Group`), which every child joins; None where there is none
        )
        self.ooms = memory.oom_kills() if memory is not None else 0
        self.budget = budget if budget is not None else wire.Budget()
        self.limits = limits
        self.notebook_deadline = deadline
        self.history: list[str] = []
        self.channel: wire.Channel | None = None
        self.pid: int | None = None
        self.conn: judge.Connection | None = None
        self.forks = 0
        self.fork_s = 0.0
        self.test_deadline = deadline
        self.busy = 0.0  # seconds the children reported running student cells (replays included)
        self.events: list[str] = []  # tamper reports that came while nothing was being attributed
        self.probe_child: Session | None = None  # the child that runs probes, holding only what the probed items need
        self.probe_ran: list = []  # the statements it ran (`slicing.Statement`)
        self.probe_history: list[str] = []  # the notebook's cells when it was made or last extended

    def _fork(self) -> None:
        started = time.perf_counter()
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        fds = [theirs.fileno()]
        try:
            if self.memory is not None:
                fds.append(self.memory.procs_fd())
            zygote.send_message(
                self.control,
                {"op": "fork", "limits": limits_mod.as_dict(self.limits), "allow_weak": self.allow_weak},
                fds,
            )
            reply, _ = zygote.recv_message(self.control)
        finally:
            theirs.close()
            for fd in fds[1:]:
                os.close(fd)
        if not reply or type(reply.get("pid")) is not int:
            mine.close()
            raise RuntimeError(f"the sandbox could not start a process: {reply}")
        self.pid = reply["pid"]
        self.forks += 1
        self.channel = wire.Channel(mine, budget=self.budget)
        try:
            hello, _ = self.channel.recv(deadline=time.monotonic() + self.limits.start_timeout)
        except (wire.Timeout, wire.ChannelClosed, wire.WireError):
            hello = {"fatal": "the sandboxed process did not start"}
        if hello.get("ready") is not True:
            self.kill()
            raise RuntimeError(str(hello.get("fatal", "the sandboxed process did not start"))[:500])
        key = os.urandom(32)
        self.conn = judge.Connection(self.channel, on_death=self.kill, deadline=lambda: self.test_deadline, key=key)
        self.channel.send({"op": "arm", "key": key.hex()})
        reply, _, _ = self.conn.recv(time.monotonic() + self.limits.start_timeout)
        if "value" not in reply:
            self.kill()
            raise RuntimeError("the sandbox's guard could not be armed")
        if self.files:
            self.channel.send(
                {"op": "files", "names": [name for name, _ in self.files]}, [data for _, data in self.files]
            )
            reply, _, _ = self.conn.recv(time.monotonic() + self.limits.start_timeout)
            if "value" not in reply:
                error = reply.get("error") if isinstance(reply.get("error"), dict) else {}
                raise RuntimeError(
                    f"the notebook's files could not be put in its folder: {str(error.get('msg', 'no reason given'))[:300]}"
                )
        self.fork_s += time.perf_counter() - started

    def kill(self) -> None:
        self._fold_busy()
        if self.conn is not None:
            self.events += self.conn.take_events()
        if self.pid is not None:
            zygote.send_message(self.control, {"op": "kill", "pid": self.pid})
            zygote.recv_message(self.control)
            self.pid = None
        if self.channel is not None:
            self.channel.close()
            self.channel = None

    def close(self) -> None:
        """Ask the child to exit and read what it sends until it has: any probe report left over is tampering."""
        if self.channel is not None and self.pid is not None and self.conn is not None and self.conn.dead is None:
            try:
                self.channel.send({"op": "exit"})
                deadline = time.monotonic() + self.limits.exit_timeout
                while True:
                    _, _, sealed = self.conn.recv(deadline)
                    if sealed:
                        self.conn.events.append("the notebook's process sent a probe report nobody asked for")
            except (wire.ChannelClosed, wire.Timeout, wire.WireError):
                pass
        self.kill()

    def memory_hit(self) -> bool:
        """Whether the kernel killed a process of this notebook for its memory limit since the last call."""
        if self.memory is None:
            return False
        count = self.memory.oom_kills()
        hit, self.ooms = count > self.ooms, count
        return hit

    def take_events(self) -> list[str]:
        events = self.events + (self.conn.take_events() if self.conn is not None else [])
        self.events = []
        return events

    def alive(self) -> bool:
        return self.channel is not None and self.conn is not None and self.conn.dead is None

    def _deadline(self) -> float:
        return min(time.monotonic() + self.limits.cell_timeout, self.notebook_deadline)

    def run_cell(self, source: str) -> tuple[str, dict]:
        """("ok" | "error" | "timeout" | "died", reply) for one cell in the current child."""
        try:
            self.channel.send({"op": "cell", "source": source})
            while True:
                reply, _, sealed = self.conn.recv(self._deadline())
                if not sealed:
                    break
                self.conn.events.append("the notebook's process sent a probe report where none was asked for")
        except wire.Timeout:
            self.kill()
            return "timeout", {}
        except wire.WireError as exc:
            self.conn.events.append(
                f"the notebook's process wrote something that is not a grader message on its channel ({exc})"
            )
            self.kill()
            return "died", {}
        except wire.ChannelClosed:
            self.kill()
            return "died", {}
        if reply.get("status") not in ("ok", "error"):
            self.kill()
            return "died", {}
        if type(reply.get("seconds")) is float and 0 <= reply["seconds"] < 1e6:
            self.busy += reply["seconds"]
        return reply["status"], reply

    def ensure(self, failures: list[dict]) -> None:
        """A live child with every earlier successful cell run again (a cell that now fails is dropped)."""
        while not self.alive():
            if self.channel is not None:
                self.kill()
            if time.monotonic() >= self.notebook_deadline:
                raise TimeoutError("notebook time limit")
            self._fork()
            for source in list(self.history):
                status, _ = self.run_cell(source)
                if status in ("timeout", "died"):
                    self.history.remove(source)
                    failures.append({"cell": None, "kind": f"replay {status}", "detail": source[:80]})
                    break

    def run_student(self, source: str, failures: list[dict]) -> tuple[str, dict]:
        self.ensure(failures)
        status, reply = self.run_cell(source)
        if status == "ok":
            self.history.append(source)
        return status, reply

    def begin_test(self) -> judge.Connection:
        self.test_deadline = self._deadline()
        return self.conn

    def run_probe(self, probe: str, item: str, args: tuple, kwargs: dict) -> list[dict]:
        """A probe's evidence, taken in a child of its own that holds only what the items probed need.

        One probe child serves the notebook's probed items in turn: each new item's statements are run
        in it when they can run after what it already ran with the same effect (`slicing.can_run_after`),
        else a fresh child is forked for them. If the item then needs a name the slice missed
        (NameError), the probe runs once more in a child holding every cell the notebook ran.
        """
        try:
            child = self._prober(item)
            evidence = self._probe_in(child, probe, item, args, kwargs)
        except NameError:
            child = self._fresh_prober(self.history)
            try:
                evidence = self._probe_in(child, probe, item, args, kwargs)
            finally:
                child.close()
                self.events += child.take_events()
        return evidence

    def _probe_in(self, child: "Session", probe: str, item: str, args: tuple, kwargs: dict) -> list[dict]:
        child.test_deadline = self.test_deadline
        spoiled = True  # a child that saw tampering, or died, serves no other item
        try:
            evidence = child.conn.probe(probe, item, args, kwargs)
            spoiled = False
        except Exception:
            spoiled = False  # the student's own exception: the child is as good as before
            raise
        finally:
            events = child.take_events()
            if child.conn is not None:
                self.busy += child.conn.busy
                child.conn.busy = 0.0
            if (spoiled or events) and child is self.probe_child:
                self._drop_prober()
        if events:
            raise guard.TamperDetected("; ".join(dict.fromkeys(events)))
        return evidence

    def _prober(self, item: str) -> "Session":
        statements = slicing.needed_statements(self.history, {item})
        child = self.probe_child
        if child is not None and child.alive() and self.history[: len(self.probe_history)] == self.probe_history:
            new = [s for s in statements if s not in self.probe_ran]
            if slicing.can_run_after(new, self.probe_ran):
                for code in slicing.as_cells(new):
                    status, _ = child.run_cell(code)
                    if status in ("timeout", "died"):
                        break
                else:
                    self.probe_ran = sorted(set(self.probe_ran) | set(new), key=lambda s: s.position)
                    self.probe_history = list(self.history)
                    events = child.take_events()
                    if events:
                        self._drop_prober()
                        raise guard.TamperDetected("; ".join(dict.fromkeys(events)))
                    return child
        self._drop_prober()
        child = self._fresh_prober(slicing.as_cells(statements))
        events = child.take_events()
        if events:
            child.close()
            raise guard.TamperDetected("; ".join(dict.fromkeys(events)))
        self.probe_child, self.probe_ran, self.probe_history = child, list(statements), list(self.history)
        return child

    def _fresh_prober(self, history: list[str]) -> "Session":
        child = Session(
            self.control,
            self.files,
            self.limits,
            self.notebook_deadline,
            allow_weak=self.allow_weak,
            memory=self.memory,
            budget=self.budget,
        )
        child.history = list(history)
        child.test_deadline = self.test_deadline
        child.ensure([])
        self.forks += child.forks
        self.fork_s += child.fork_s
        child.forks, child.fork_s = 0, 0.0
        self.busy += child.busy
        child.busy = 0.0
        return child

    def _drop_prober(self) -> None:
        if self.probe_child is not None:
            self.probe_child.close()
            self.events += self.probe_child.take_events()
            self.probe_child = None
            self.probe_ran, self.probe_history = [], []

    def settle_probes(self) -> list[str]:
        """After a test cell: reports the probe child sent beyond what its probes asked for (tampering)."""
        child = self.probe_child
        if child is None or not child.alive():
            return []
        try:
            child.test_deadline = time.monotonic() + self.limits.probe_sync_timeout
            child.conn.request("lookup", name="__grader_sync__")
        except judge.SandboxDied:
            pass
        events = child.take_events()
        if events:
            self._drop_prober()
        return events

    def _fold_busy(self) -> None:
        if self.conn is not None:
            self.busy += self.conn.busy
            self.conn.busy = 0.0


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


def _test_outputs(outputs: Any) -> list[dict]:
    """A test cell's outputs, with what it wrote to stderr shown as stdout.

    A test's score is its verdict: nbgrader scores a test cell 0 when its outputs hold a stderr
    stream, so a warning from the student's code (PyTorch's UserWarnings) must not cost a passing
    test; a failing one still holds its error. `course.checks.show_stderr_on_stdout` applies the
    same rule in a notebook kernel, for stock nbgrader and for the student.
    """
    clean = _clean_outputs(outputs)
    for out in clean:
        if out["output_type"] == "stream":
            out["name"] = "stdout"
    return clean


def _error_output(ename: str, evalue: str) -> dict:
    return nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


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
    limits = limits_mod.from_dict(job["limits"])
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
        with judge.notebook_scope():
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
        """A test cell, run by the judge against the child's values."""
        session, item = self.session, _item_of(cell)
        t0 = time.perf_counter()
        try:
            session.ensure(self.failures)
            self.tampered(None, session.take_events())
            verdict = judge.run_test(
                self.fixed.tests[index],
                session.begin_test(),
                output_chars=self.limits.output_kb * 1024,
                run_probe=session.run_probe,
            )
        except TimeoutError:
            verdict = judge.Verdict(False, [], "TimeoutError", "the notebook ran past its time limit")
            verdict.outputs = [_error_output(verdict.ename, verdict.evalue)]
        finally:
            self.tampered(item, session.settle_probes())
        self.tampered(item, verdict.tampering)
        self.judge_s += time.perf_counter() - t0
        self.test_seconds[item or str(index)] = round(time.perf_counter() - t0, 4)
        cell.outputs = self.kept(_test_outputs(verdict.outputs))
        if session.memory_hit():
            cell.outputs.append(self.over_memory)
        cell.execution_count = self.count
        if verdict.died:
            kind = "test call " + ("timeout" if verdict.ename == "TimeoutError" else "crash")
            self.failures.append({"cell": index, "kind": kind, "detail": verdict.evalue})

    def student_cell(self, index: int, cell: Any, role: str) -> None:
        """A student's cell (or, with tests in the sandbox, a test cell), run in the child."""
        session = self.session
        source = self.fixed.tests[index] if role == "test" else cell.source
        t0 = time.perf_counter()
        try:
            status, reply = session.run_student(source, self.failures)
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
                    for o in _test_outputs(cell.outputs)
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
