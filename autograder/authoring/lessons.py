"""Turn a lesson written as a Python file (`lessons/<id>.py`) into its nbgrader source notebook.

The marker grammar is described in docs/authoring.md. Generation is deterministic (stable cell ids,
no outputs), so `source/` can be checked for drift like a golden file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import nbformat

from autograder.rules import items as item_rules

MARKER = re.compile(r"^# %%(?P<rest>.*)$")
ANSWER = re.compile(r"^answer\s+(?P<item>[A-Za-z_][A-Za-z0-9_]*)(\s+quiz=(?P<quiz>\w+))?$")
QUIZ_KINDS = ("rule", "recall")
"""A quiz's kind, on its answer marker: `rule` applies a rule to code the lesson has not shown, `recall` does not."""
TEST = re.compile(r"^test\s+(?P<item>[A-Za-z_][A-Za-z0-9_]*)\s+points=(?P<points>\d+(\.\d+)?)$")

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


class LessonSyntaxError(ValueError):
    """A lesson file breaks the marker grammar; the message names the line."""


@dataclass
class Cell:
    kind: str  # markdown | code | answer | test
    lines: list[str] = field(default_factory=list)
    item: str | None = None
    points: float = 0.0
    line_no: int = 0
    quiz: str | None = None


def parse_lesson(text: str, *, name: str = "<lesson>") -> list[Cell]:
    cells: list[Cell] = []
    current: Cell | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        match = MARKER.match(line)
        if match:
            rest = match.group("rest").strip()
            if rest == "":
                current = Cell("code", line_no=number)
            elif rest == "[markdown]":
                current = Cell("markdown", line_no=number)
            elif m := ANSWER.match(rest):
                if m.group("quiz") is not None and m.group("quiz") not in QUIZ_KINDS:
                    raise LessonSyntaxError(
                        f"{name}:{number}: quiz= takes one of {', '.join(QUIZ_KINDS)}, not {m.group('quiz')!r}"
                    )
                current = Cell("answer", item=m.group("item"), line_no=number, quiz=m.group("quiz"))
            elif m := TEST.match(rest):
                current = Cell("test", item=m.group("item"), points=float(m.group("points")), line_no=number)
            else:
                raise LessonSyntaxError(f"{name}:{number}: unknown cell marker {line!r}")
            cells.append(current)
            continue
        if current is None:
            if line.strip():
                raise LessonSyntaxError(f"{name}:{number}: text before the first '# %%' marker")
            continue
        if current.kind == "markdown":
            if line.strip() == "#":
                line = ""
            elif line.startswith("# "):
                line = line[2:]
            elif line.strip():
                raise LessonSyntaxError(f"{name}:{number}: markdown lines must start with '# '")
        current.lines.append(line)
    for cell in cells:
        while cell.lines and not cell.lines[-1].strip():
            cell.lines.pop()
        while cell.lines and not cell.lines[0].strip():
            cell.lines.pop(0)
    _validate(cells, name)
    return cells


VISIBLE_CHECK = re.compile(r"^(?!\s*(from|import)\b).*\bcheck_\w+\(", re.MULTILINE)


def has_visible_check(test_source: str) -> bool:
    """A test cell calls at least one check before its hidden region (imports don't count)."""
    return bool(VISIBLE_CHECK.search(test_source.split(item_rules.BEGIN_HIDDEN)[0]))


def _validate(cells: list[Cell], name: str) -> None:
    answers = [c.item for c in cells if c.kind == "answer"]
    tests = [c.item for c in cells if c.kind == "test"]
    for kind, items in (("answer", answers), ("test", tests)):
        dupes = {i for i in items if items.count(i) > 1}
        if dupes:
            raise LessonSyntaxError(f"{name}: more than one {kind} cell for {sorted(dupes)}")
    if set(answers) != set(tests):
        raise LessonSyntaxError(
            f"{name}: every item needs one answer and one test cell; "
            f"answers without tests: {sorted(set(answers) - set(tests))}, tests without answers: {sorted(set(tests) - set(answers))}"
        )
    for cell in cells:
        source = "\n".join(cell.lines)
        if cell.kind == "answer" and item_rules.BEGIN_SOLUTION not in source:
            raise LessonSyntaxError(f"{name}:{cell.line_no}: answer cell {cell.item} has no solution region")
        if cell.kind == "test" and item_rules.BEGIN_HIDDEN not in source:
            raise LessonSyntaxError(f"{name}:{cell.line_no}: test cell of {cell.item} has no hidden tests")
        if cell.kind == "test":
            if not has_visible_check(source):
                raise LessonSyntaxError(f"{name}:{cell.line_no}: test cell of {cell.item} has no visible check")


def build_notebook(cells: list[Cell]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": dict(KERNELSPEC),
        "language_info": {"name": "python"},
    }
    plain = 0
    for cell in cells:
        source = "\n".join(cell.lines)
        if cell.kind == "markdown":
            plain += 1
            nb_cell = nbformat.v4.new_markdown_cell(source, id=f"cell-{plain:03d}")
        elif cell.kind == "code":
            plain += 1
            nb_cell = nbformat.v4.new_code_cell(source, id=f"cell-{plain:03d}")
        elif cell.kind == "answer":
            nb_cell = nbformat.v4.new_code_cell(source, id=cell.item)
            nb_cell.metadata["nbgrader"] = {
                "grade": False,
                "grade_id": cell.item,
                "locked": False,
                "schema_version": 3,
                "solution": True,
                "task": False,
            }
        else:
            grade_id = item_rules.test_cell(cell.item)
            nb_cell = nbformat.v4.new_code_cell(source, id=grade_id)
            points = int(cell.points) if float(cell.points).is_integer() else cell.points
            nb_cell.metadata["nbgrader"] = {
                "grade": True,
                "grade_id": grade_id,
                "locked": True,
                "points": points,
                "schema_version": 3,
                "solution": False,
                "task": False,
            }
        nb.cells.append(nb_cell)
    return nb


TITLE = re.compile(r"^# (?:Lesson \d+: )?(?P<title>.+)$")


def number_title(cells: list[Cell], number: int) -> None:
    """Give the lesson's title (the first line of its first cell, a level-1 heading) its place in the course.

    Students see "Lesson 6" on the lesson the course teaches sixth, whatever its id; a number written
    in the lesson file is replaced, so a lesson added later, or moved in `lessons/ORDER`, is numbered too.
    """
    if cells and cells[0].kind == "markdown" and cells[0].lines:
        match = TITLE.match(cells[0].lines[0])
        if match:
            cells[0].lines[0] = f"# Lesson {number}: {match['title']}"


REFERENCE = re.compile(r"\{(?P<id>\d\d_[a-z0-9_]+)\}")
"""A reference to another lesson in a lesson's text, by id: `lesson {05_shapes}` is built as `lesson 5`."""
NUMBERED = re.compile(r"\b[Ll]essons? \d")


def number_references(cells: list[Cell], order: list[str], *, name: str = "<lesson>") -> None:
    """Write each `{<lesson id>}` in the text as that lesson's place in the course.

    A number written by hand would go stale when `lessons/ORDER` moves a lesson, so the text names
    lessons by id and a hand-written "lesson 5" is refused.
    """
    for cell in cells:
        if cell.kind != "markdown":
            continue
        for index, line in enumerate(cell.lines):
            if cell is cells[0] and index == 0:
                continue
            where = f"{name}:{cell.line_no}: the markdown cell's line {line.strip()!r}"
            if NUMBERED.search(REFERENCE.sub("", line)):
                raise LessonSyntaxError(
                    f"{where} numbers a lesson: name it by its id in braces, as in lesson {{05_shapes}}"
                )
            unknown = [m["id"] for m in REFERENCE.finditer(line) if m["id"] not in order]
            if unknown:
                raise LessonSyntaxError(
                    f"{where} names {', '.join(unknown)}, not a lesson of the course ({', '.join(order)})"
                )
            cell.lines[index] = REFERENCE.sub(lambda m: str(order.index(m["id"]) + 1), line)


def lesson_title(course_dir: Path, lesson: str) -> str:
    """The title a lesson file gives itself, without any "Lesson N: " written in front of it."""
    path = course_dir / "lessons" / f"{lesson}.py"
    cells = parse_lesson(path.read_text(encoding="utf-8"), name=str(path))
    match = TITLE.match(cells[0].lines[0]) if cells and cells[0].kind == "markdown" and cells[0].lines else None
    if match:
        return match["title"]
    raise LessonSyntaxError(f"{path}: the first cell must be a markdown cell whose first line is '# <title>'")


def point_to_next(cells: list[Cell], course_dir: Path, order: list[str], lesson: str) -> None:
    """End the lesson with the one the course teaches next, and its folder.

    Ids keep the number a lesson was first given, so folders do not sort in the order the course
    teaches them; the last cell says which folder to open next instead of leaving the student to guess.
    """
    place = order.index(lesson)
    if place + 1 == len(order):
        text = f"That is the end of lesson {place + 1}, the last lesson of the course."
    else:
        after = order[place + 1]
        text = (
            f"That is the end of lesson {place + 1}. Next: lesson {place + 2}, "
            f"*{lesson_title(course_dir, after)}*, in the folder `{after}`."
        )
        if not after.startswith(f"{place + 2:02d}_"):
            text += " Folders keep the number their lesson was first given, so they do not sort in the order taught."
    cells.append(Cell("markdown", lines=[text], line_no=cells[-1].line_no if cells else 0))


def render(lesson_file: Path) -> str:
    """The source notebook's JSON text for a lesson file, its title and its references numbered in course
    order, ending with a pointer to the next lesson."""
    cells = parse_lesson(lesson_file.read_text(encoding="utf-8"), name=str(lesson_file))
    course_dir = lesson_file.parent.parent
    order = course_order(course_dir)
    number_references(cells, order, name=str(lesson_file))
    if lesson_file.stem in order:
        number_title(cells, order.index(lesson_file.stem) + 1)
        point_to_next(cells, course_dir, order, lesson_file.stem)
    return nbformat.writes(build_notebook(cells)) + "\n"


def lesson_ids(course_dir: Path) -> list[str]:
    return sorted(p.stem for p in (course_dir / "lessons").glob("[0-9][0-9]_*.py"))


ORDER_FILE = Path("lessons") / "ORDER"


def course_order(course_dir: Path, ids: Iterable[str] | None = None) -> list[str]:
    """Lesson ids in the order the course teaches them (default: every lesson file).

    The order is `lessons/ORDER`, one id per line (blank lines and `#` comments ignored), so that a
    lesson added later can be taught earlier while its id stays stable. Ids the file does not name
    follow, sorted; a course without the file is taught in the order of its ids.
    """
    chosen = list(lesson_ids(course_dir) if ids is None else ids)
    path = course_dir / ORDER_FILE
    listed: list[str] = []
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            name = line.split("#", 1)[0].strip()
            if name and name not in listed:
                listed.append(name)
    rank = {name: i for i, name in enumerate(listed)}
    return sorted(dict.fromkeys(chosen), key=lambda name: (rank.get(name, len(rank)), name))


def build(course_dir: Path, *, assignments: list[str] | None = None) -> list[Path]:
    """Write `source/<id>/<id>.ipynb` for each lesson; returns the notebooks written."""
    known = lesson_ids(course_dir)
    chosen = assignments or known
    unknown = [a for a in chosen if a not in known]
    if unknown:
        raise LookupError(f"no lesson file for {', '.join(unknown)} (known: {', '.join(known) or 'none'})")
    written = []
    for lesson in chosen:
        target = course_dir / "source" / lesson / f"{lesson}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render(course_dir / "lessons" / f"{lesson}.py"), encoding="utf-8")
        written.append(target)
    return written
