"""The wrong/right solution corpus: a class of synthetic students built from it, and their expected scores.

`tests/corpus/<lesson>.py` defines `ITEMS = {item: {"wrong": [code, ...], "right": [code, ...]}}`,
each code string being a whole answer cell. Student `wrong-k` hands in the instructor's answers
except the k-th wrong variant of every item that has one; `right-k` likewise with right variants.
A wrong variant must lose exactly its item's points, a right one must keep them, and every other
item keeps full marks.

`python -m autograder.authoring.corpus LESSON` checks a lesson's corpus quickly in one kernel per student
(the test cells as in source/, hidden tests included); the test suite checks it through the grader.
"""

from __future__ import annotations

import argparse
import runpy
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder.rules import items as items_mod
from autograder.authoring import samples

CELL_TIMEOUT_S = 120  # per cell, when a corpus student is run in a kernel to learn what it earns


@dataclass
class CorpusStudent:
    name: str
    notebook: nbformat.NotebookNode
    expected: dict[str, float]  # test grade id -> points
    variants: dict[str, str]  # item -> "wrong 0" / "right 1"


def load(course_dir: Path, lesson: str) -> dict[str, dict[str, list[str]]]:
    path = course_dir / "tests" / "corpus" / f"{lesson}.py"
    if not path.is_file():
        raise FileNotFoundError(f"no corpus for {lesson}: {path}")
    return runpy.run_path(str(path))["ITEMS"]


def points_of(source: nbformat.NotebookNode) -> dict[str, float]:
    return {
        c.metadata["nbgrader"]["grade_id"]: float(c.metadata["nbgrader"]["points"])
        for c in source.cells
        if c.get("metadata", {}).get("nbgrader", {}).get("grade")
    }


def students(course_dir: Path, lesson: str, *, base: nbformat.NotebookNode | None = None) -> list[CorpusStudent]:
    """The synthetic class. `base` is the notebook answers are put into (default: the release)."""
    items = load(course_dir, lesson)
    source = nbformat.read(course_dir / "source" / lesson / f"{lesson}.ipynb", as_version=4)
    if base is None:
        base = nbformat.read(course_dir / "release" / lesson / f"{lesson}.ipynb", as_version=4)
    full = samples.answered(source, base, keep=None)
    points = points_of(source)
    unknown = set(items) - set(samples.answer_items(source))
    if unknown:
        raise KeyError(f"corpus of {lesson} names items the lesson lacks: {sorted(unknown)}")
    out = []
    for kind in ("wrong", "right"):
        depth = max((len(v.get(kind, [])) for v in items.values()), default=0)
        for k in range(depth):
            nb = full
            expected = dict(points)
            variants = {}
            for item, table in items.items():
                codes = table.get(kind, [])
                if k < len(codes):
                    nb = samples.with_answer(nb, item, codes[k])
                    variants[item] = f"{kind} {k}"
                    if kind == "wrong":
                        expected[items_mod.test_cell(item)] = 0.0
            out.append(CorpusStudent(f"{kind}-{k}", nb, expected, variants))
    return out


def run_locally(course_dir: Path, lesson: str) -> list[tuple[str, str, str, float, bool]]:
    """Execute each corpus student with the source test cells; rows (student, item, variant, expected, passed)."""
    from nbclient import NotebookClient

    source = nbformat.read(course_dir / "source" / lesson / f"{lesson}.ipynb", as_version=4)
    rows = []
    for student in students(course_dir, lesson, base=source):
        nb = student.notebook
        client = NotebookClient(
            nb,
            timeout=CELL_TIMEOUT_S,
            allow_errors=True,
            kernel_name="python3",
            resources={"metadata": {"path": str(course_dir)}},
        )
        client.execute(stderr=subprocess.DEVNULL)  # the kernel's start-up chatter; cell errors are in the outputs
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if not meta.get("grade"):
                continue
            gid = meta["grade_id"]
            errored = any(o.get("output_type") == "error" for o in cell.get("outputs", []))
            item = items_mod.item_of(gid)
            rows.append((student.name, gid, student.variants.get(item, "solution"), student.expected[gid], not errored))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder.authoring.corpus", description="Check a lesson's wrong/right corpus in a kernel."
    )
    parser.add_argument("lesson", help="lesson id, such as 01_tensors")
    parser.add_argument("--course-dir", default=".", help="course directory (default: current)")
    args = parser.parse_args(argv)
    bad = 0
    for name, gid, variant, expected, passed in run_locally(Path(args.course_dir).resolve(), args.lesson):
        ok = passed == (expected > 0)
        bad += not ok
        if variant != "solution" or not ok:
            print(
                f"{'ok ' if ok else 'BAD'} {name:<9} {gid:<34} {variant:<8} expected {'pass' if expected > 0 else 'fail'}, got {'pass' if passed else 'fail'}"
            )
    print(f"{bad} unexpected result(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
