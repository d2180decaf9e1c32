"""Grade the forgery cases with stock `nbgrader autograde` and print how the forged item fared, as Markdown.

    python -m tests.adversarial.measure_forgery_stock [--keep DIR] [--cases NAME ...]

Stock nbgrader runs the test cells in the student's own kernel, so a probe there measures in a process
the forgery controls. The forgeries do no harm outside the kernel, so one course holds them all, and
each lesson is graded with one `nbgrader autograde LESSON` run, as instructors run it. The last column
is what `autograder grade` gives (tests/adversarial/test_forgery.py asserts it on every run).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat

from autograder import commands, stock
from autograder.authoring import corpus
from autograder.grades import gradebook
from tests.adversarial.cases import write_case
from tests.adversarial.forgery import all_forgeries
from tests.adversarial.harness import LIMITS
from tests.conftest import copy_course

FORGERIES = all_forgeries()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", help="work in this folder and keep it")
    parser.add_argument("--cases", nargs="+", metavar="NAME", help="grade only these cases (default: all)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.cases or ()) - {f.name for f in FORGERIES})
    if unknown:
        parser.error(f"no such case: {', '.join(unknown)}")
    cases = [f for f in FORGERIES if not args.cases or f.name in args.cases]
    lessons = sorted({f.lesson for f in cases})
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="forgery-stock-"))
    course = copy_course(work / "course")
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as handle:
        handle.write(LIMITS.replace("c.Execute.timeout = 10", "c.Execute.timeout = 60"))
    commands.release(course, assignments=lessons, progress=False)
    points = {}
    for lesson in lessons:
        source = nbformat.read(course / "source" / lesson / f"{lesson}.ipynb", as_version=4)
        release = nbformat.read(course / "release" / lesson / f"{lesson}.ipynb", as_version=4)
        points[lesson] = corpus.points_of(source)
        for case in (f for f in cases if f.lesson == lesson):
            files: dict[str, object] = {f"{lesson}.ipynb": case.notebook(source, release)}
            files.update({name: text.encode() for name, text in case.files.items()})
            write_case(course / "submitted" / case.name / lesson, files)
        stock.autograde(course, lesson)
    table = gradebook.score_table(course)
    print("| case | lesson: item | technique, placement | stock nbgrader 0.9.6 | this grader |")
    print("|---|---|---|---|---|")
    for case in cases:
        scores = table.get((case.lesson, case.name))
        full = points[case.lesson][f"test_{case.item}"]
        if scores is None:
            theirs = "not graded"
        else:
            got = scores.get(f"test_{case.item}", 0.0)
            theirs = f"{got:g}/{full:g}" + (" (credit gained by the forgery)" if got else "")
        ours = f"0/{full:g}, " + ("flagged for review" if case.detected else "defeated")
        print(
            f"| `{case.name}` | {case.lesson}: `{case.item}` | {case.technique}, {case.placement} | {theirs} | {ours} |"
        )
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
