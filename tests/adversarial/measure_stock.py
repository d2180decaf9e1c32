"""Grade each hostile case with stock `nbgrader autograde` and print what happened, as a Markdown table.

    python -m tests.adversarial.measure_stock [--keep DIR] [CASE ...]

Each case gets its own copy of a released course in which an honest classmate (ada) is already
graded, a fake home (HOME points there) and a folder outside the course; nothing under the real
course or the real home is reachable by path. The cases are hostile and stock nbgrader does not
confine them, so each `nbgrader autograde` runs in its own pid namespace (a kill-everything case
only reaches that run), in a pids cgroup when the machine offers one (a fork storm stops at 400
processes instead of exhausting the machine) and with a 6 GB address-space limit. Those bounds
protect the machine; inside them nbgrader behaves as shipped.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.grades import gradebook
from autograder import stock
from tests.adversarial import harness
from tests.adversarial.cases import CASES, LESSON, POINTS, Base, write_case

import nbformat

PIDS_ROOT = Path("/sys/fs/cgroup/pids")


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))


def _pids_cgroup(name: str) -> Path | None:
    if os.geteuid() != 0 or not (PIDS_ROOT / "cgroup.procs").exists():
        return None
    group = PIDS_ROOT / name
    group.mkdir(exist_ok=True)
    (group / "pids.max").write_text("400")
    return group


def _autograde(course: Path, student: str, home: str, group: Path | None) -> tuple[int, str, float]:
    env = stock.nbgrader_env()
    env["HOME"] = home
    cmd = [sys.executable, "-m", "nbgrader", "autograde", LESSON, "--force", "--student", student]
    # A shell is the namespace's init, so nbgrader keeps an ordinary pid (signals to an init are dropped).
    cmd = ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "sh", "-c", '"$@"; exit $?', "sh", *cmd]
    if group is not None:
        cmd = ["sh", "-c", f'echo $$ > {group}/cgroup.procs && exec "$@"', "sh", *cmd]
    started = time.perf_counter()
    try:
        proc = subprocess.run(
            cmd,
            cwd=course,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            timeout=600,
            preexec_fn=_limit_memory,
        )
        code, log = proc.returncode, proc.stdout
    except subprocess.TimeoutExpired as exc:
        code, log = (
            -999,
            (exc.stdout or b"").decode("utf-8", "replace") if isinstance(exc.stdout, bytes) else (exc.stdout or ""),
        )
    return code, log, time.perf_counter() - started


def _leftover(group: Path | None) -> int:
    if group is None:
        return 0
    procs = [int(p) for p in (group / "cgroup.procs").read_text().split()]
    for pid in procs:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
    for _ in range(500):
        if not (group / "cgroup.procs").read_text().split():
            break
        time.sleep(0.01)
    return len(procs)


def _scores(course: Path, student: str) -> dict[str, float] | str:
    try:
        return gradebook.score_table(course).get((LESSON, student), {})
    except Exception as exc:  # the gradebook may have been destroyed by the case
        return f"gradebook unreadable: {type(exc).__name__}"


def _differs(name: str, before: dict[str, str], after: dict[str, str]) -> bool:
    """Whether a folder changed; in the home, only what an attack aims at (Jupyter writes its caches there)."""
    if name == "home":
        targeted = lambda fp: {k: v for k, v in fp.items() if k.startswith((".bashrc", ".ssh"))}  # noqa: E731
        return targeted(before) != targeted(after)
    return before != after


def measure(template: Path, case, workdir: Path) -> dict:
    root = workdir / case.name
    course = root / "course"
    shutil.copytree(template, course, symlinks=True)
    home, outside = root / "home", root / "outside"
    shutil.copytree(template.parent / "home", home)
    shutil.copytree(template.parent / "outside", outside)
    listener = harness.Listener()
    ctx = harness.Context(course=str(course), home=str(home), outside=str(outside), port=listener.port)
    source = nbformat.read(course / "source" / LESSON / f"{LESSON}.ipynb", as_version=4)
    release = nbformat.read(course / "release" / LESSON / f"{LESSON}.ipynb", as_version=4)
    write_case(course / "submitted" / case.name / LESSON, case.build(ctx, Base(source, release)))
    Path("/tmp/adversarial-dropped.txt").unlink(missing_ok=True)
    before = (
        harness.fingerprint(course, skip=harness.GRADER_OUTPUTS),
        harness.fingerprint(home),
        harness.fingerprint(outside),
    )
    ada_before = _scores(course, "ada")
    group = _pids_cgroup(f"adversarial-stock-{os.getpid()}-{case.name}")
    try:
        code, log, seconds = _autograde(course, case.name, str(home), group)
        left = _leftover(group)
    finally:
        listener.close()
        if group is not None:
            group.rmdir()
    after = (
        harness.fingerprint(course, skip=harness.GRADER_OUTPUTS),
        harness.fingerprint(home),
        harness.fingerprint(outside),
    )
    changed = [name for name, b, a in zip(("course", "home", "outside"), before, after) if _differs(name, b, a)]
    if Path("/tmp/adversarial-dropped.txt").exists():
        changed.append("/tmp")
        Path("/tmp/adversarial-dropped.txt").unlink()
    scores = _scores(course, case.name)
    ada_after = _scores(course, "ada")
    return {
        "case": case.name,
        "exit": code,
        "seconds": round(seconds, 1),
        "graded": (course / "autograded" / case.name / LESSON).is_dir(),
        "scores": scores,
        "expected_here": case.expected,
        "changed": changed,
        "network": [r.decode("utf-8", "replace")[:40] for r in listener.received],
        "classmate_before": ada_before,
        "classmate_after": ada_after,
        "leftover_processes": left,
        "log_tail": "\n".join(log.splitlines()[-6:]),
    }


def total(scores) -> str:
    if isinstance(scores, str):
        return scores
    if not scores:
        return "not graded"
    return f"{sum(scores.values()):g}/{sum(POINTS.values()):g}"


def describe(row: dict, case) -> str:
    """One table row: case, attack, stock outcome, this grader's outcome."""
    stock_bits = [total(row["scores"]) if row["graded"] or row["scores"] else "submission not graded"]
    if row["exit"] not in (0,):
        stock_bits.append("autograde crashed" if row["exit"] != -999 else "autograde hung (killed at 600 s)")
    if row["changed"]:
        stock_bits.append("changed " + ", ".join(row["changed"]))
    if row["network"]:
        stock_bits.append("reached the network")
    if row["classmate_after"] != row["classmate_before"]:
        lost = isinstance(row["classmate_after"], str) or not row["classmate_after"]
        stock_bits.append(
            "classmate's grades lost" if lost else f"classmate's grades changed ({total(row['classmate_after'])})"
        )
    if row["leftover_processes"]:
        stock_bits.append(f"{row['leftover_processes']} processes left")
    most = f"{sum(POINTS.values()):g}"
    here = f"refused, 0/{most}" if case.expected is None else f"{sum(case.expected.values()):g}/{most}"
    return f"| `{case.name}` | {case.attack} | {'; '.join(stock_bits)} | {here} |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*")
    parser.add_argument("--keep", help="work in this folder and keep it")
    parser.add_argument("--json", help="also write the raw measurements here")
    args = parser.parse_args(argv)
    chosen = [c for c in CASES if not args.cases or c.name in args.cases]
    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="adversarial-stock-"))
    workdir.mkdir(parents=True, exist_ok=True)
    template_root = workdir / "template"
    if not (template_root / "course" / "gradebook.db").exists():
        shutil.rmtree(template_root, ignore_errors=True)
        course, ctx = harness.prepare(template_root)
        source = nbformat.read(course / "source" / LESSON / f"{LESSON}.ipynb", as_version=4)
        release = nbformat.read(course / "release" / LESSON / f"{LESSON}.ipynb", as_version=4)
        write_case(course / "submitted" / "ada" / LESSON, {f"{LESSON}.ipynb": Base(source, release).honest})
        stock.autograde(course, LESSON, student="ada")
    rows = []
    for case in chosen:
        row = measure(template_root / "course", case, workdir)
        rows.append(row)
        print(describe(row, case), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, default=str))
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
