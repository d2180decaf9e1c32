"""The student's side: how quickly each lesson answers in a fresh kernel on this machine.

    python benchmarks/student_side.py [LESSON ...] [--first-output-limit 3] [--total-limit 20]

For each lesson, the release notebook with the instructor's answers filled in (what a student who has
done the work runs) is executed in a fresh kernel. It prints the time from asking for a kernel to the
first cell's output, which must be at most 3 s, and the time to run every cell, at most 20 s, so the
lessons stay quick on a laptop as they grow. Exit status 1 when a lesson is over either limit or a cell
fails.

Before timing, one untimed kernel runs the first lesson's first cell, so the figures are for a machine
that has run PyTorch since it booted; the very first import after a boot reads torch from disk and is
slower.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.authoring import samples  # noqa: E402
from autograder.authoring.lessons import lesson_ids  # noqa: E402


def measure(lesson: str, *, cells: int | None = None) -> dict:
    """Run the answered lesson (its first `cells` code cells when given) in a fresh kernel, timing it."""
    source = nbformat.read(ROOT / "source" / lesson / f"{lesson}.ipynb", as_version=4)
    release = nbformat.read(ROOT / "release" / lesson / f"{lesson}.ipynb", as_version=4)
    nb = samples.answered(source, release, keep=None)
    client = NotebookClient(
        nb,
        timeout=300,
        allow_errors=True,
        kernel_name="python3",
        resources={"metadata": {"path": str(ROOT / "release" / lesson)}},
    )
    asked = time.perf_counter()
    with client.setup_kernel(stderr=subprocess.DEVNULL):  # the kernel's own start-up chatter
        ready = time.perf_counter()
        code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
        first_output = None
        for index in code[:cells]:
            client.execute_cell(nb.cells[index], index)
            if index == code[0]:
                first_output = time.perf_counter() - asked
        done = time.perf_counter()
    errors = [
        c.metadata.get("nbgrader", {}).get("grade_id") or c.get("id", "?")
        for c in nb.cells
        if any(o.get("output_type") == "error" for o in c.get("outputs", []))
    ]
    return {"kernel": ready - asked, "first_output": first_output, "cells": done - ready, "errors": errors}


def import_torch_s() -> float:
    """Seconds a fresh interpreter takes to start and `import torch`: what dominates a lesson's first cell."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import torch"], check=True)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lessons", nargs="*", help="lesson ids (default: all)")
    parser.add_argument("--first-output-limit", type=float, default=3.0)
    parser.add_argument("--total-limit", type=float, default=20.0)
    args = parser.parse_args(argv)
    over = 0
    lessons = args.lessons or lesson_ids(ROOT)
    measure(lessons[0], cells=1)
    print(f"{'lesson':<14} {'kernel start':>12} {'first output':>13} {'all cells':>10}")
    for lesson in lessons:
        found = measure(lesson)
        slow = found["first_output"] > args.first_output_limit or found["cells"] > args.total_limit
        over += slow or bool(found["errors"])
        note = ("  OVER THE LIMIT" if slow else "") + (
            f"  errors in {', '.join(found['errors'])}" if found["errors"] else ""
        )
        print(
            f"{lesson:<14} {found['kernel']:11.2f}s {found['first_output']:12.2f}s {found['cells']:9.2f}s{note}",
            flush=True,
        )
    print(f"limits: first output <= {args.first_output_limit:g} s, every cell <= {args.total_limit:g} s")
    print(
        f"for comparison, `python -c 'import torch'` on this machine: {import_torch_s():.2f} s "
        "(most of any first cell that imports torch)"
    )
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
