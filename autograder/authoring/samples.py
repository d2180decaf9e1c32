"""Sample submissions: the demo's small class, and the building blocks the tests and benchmark use.

Submissions are made from the course's own notebooks: the source notebook answered as the
instructor would (full marks), the release untouched (zero), and mixtures of the two.
"""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat

from autograder.rules import items as item_rules
from autograder.authoring.lessons import lesson_ids

CRASH_CELL = "import os\nos._exit(1)  # the kernel dies here\n"


def _grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def answered(
    source: nbformat.NotebookNode, release: nbformat.NotebookNode, *, keep: set[str] | None
) -> nbformat.NotebookNode:
    """The release notebook with the answer cells in `keep` (all when None) filled from the source."""
    solutions = {
        _grade_id(c): c.source for c in source.cells if c.get("metadata", {}).get("nbgrader", {}).get("solution")
    }
    nb = copy.deepcopy(release)
    for cell in nb.cells:
        gid = _grade_id(cell)
        if gid in solutions and (keep is None or gid in keep):
            cell.source = _strip_regions(solutions[gid])
    return nb


def _strip_regions(text: str) -> str:
    """Solution text as a student would type it: the markers removed, the code kept."""
    return "\n".join(
        line
        for line in text.splitlines()
        if item_rules.BEGIN_SOLUTION not in line and item_rules.END_SOLUTION not in line
    )


def with_answer(nb: nbformat.NotebookNode, item: str, code: str) -> nbformat.NotebookNode:
    """A copy of `nb` whose answer cell for `item` holds `code`."""
    out = copy.deepcopy(nb)
    for cell in out.cells:
        if _grade_id(cell) == item:
            cell.source = code
            return out
    raise KeyError(f"no answer cell {item!r}")


def with_crash_before(nb: nbformat.NotebookNode, item: str) -> nbformat.NotebookNode:
    """A copy of `nb` with a cell that kills the kernel inserted just before the answer cell of `item`."""
    out = copy.deepcopy(nb)
    for index, cell in enumerate(out.cells):
        if _grade_id(cell) == item:
            out.cells.insert(index, nbformat.v4.new_code_cell(CRASH_CELL, id="student-crash"))
            return out
    raise KeyError(f"no answer cell {item!r}")


def answer_items(nb: nbformat.NotebookNode) -> list[str]:
    return [_grade_id(c) for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("solution")]


DEMO_STUDENTS = {
    "ada": "every answer correct",
    "blake": "the release handed in untouched",
    "chen": "every other answer correct, the rest left blank",
    "dana": "all correct, but a cell kills the kernel half-way",
    "eve": "a notebook file that is not valid JSON",
}


def write_demo_class(course_dir: Path, *, assignments: list[str] | None = None) -> dict[str, str]:
    """Write `submitted/<student>/<assignment>/<assignment>.ipynb` for the demo class."""
    for assignment in assignments or lesson_ids(course_dir):
        source = nbformat.read(course_dir / "source" / assignment / f"{assignment}.ipynb", as_version=4)
        release = nbformat.read(course_dir / "release" / assignment / f"{assignment}.ipynb", as_version=4)
        items = answer_items(release)
        notebooks = {
            "ada": answered(source, release, keep=None),
            "blake": release,
            "chen": answered(source, release, keep=set(items[::2])),
            "dana": with_crash_before(answered(source, release, keep=None), items[len(items) // 2]),
        }
        for student, nb in notebooks.items():
            target = course_dir / "submitted" / student / assignment / f"{assignment}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, target)
        broken = course_dir / "submitted" / "eve" / assignment / f"{assignment}.ipynb"
        broken.parent.mkdir(parents=True, exist_ok=True)
        text = nbformat.writes(answered(source, release, keep=None))
        broken.write_text(text[: len(text) // 2], encoding="utf-8")
    return dict(DEMO_STUDENTS)
