"""Reading scores out of the nbgrader gradebook (the single source of truth after grading)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry


def db_url(course_dir: Path) -> str:
    return f"sqlite:///{(course_dir / 'gradebook.db').resolve()}"


@dataclass(frozen=True)
class ItemScore:
    assignment: str
    student: str
    item: str  # the test cell's grade id
    score: float
    max_score: float


def item_scores(course_dir: Path, *, assignments: list[str] | None = None) -> list[ItemScore]:
    """Every (assignment, student, test cell) score in the gradebook, manual overrides included."""
    rows: list[ItemScore] = []
    with Gradebook(db_url(course_dir)) as gb:
        for assignment in gb.assignments:
            if assignments and assignment.name not in assignments:
                continue
            for submission in assignment.submissions:
                for notebook in submission.notebooks:
                    for grade in notebook.grades:
                        if grade.cell.cell_type != "code" or not grade.cell.name.startswith("test_"):
                            continue
                        rows.append(
                            ItemScore(
                                assignment.name,
                                submission.student.id,
                                grade.cell.name,
                                float(grade.score),
                                float(grade.max_score),
                            )
                        )
    return sorted(rows, key=lambda r: (r.assignment, r.student, r.item))


def score_table(course_dir: Path, *, assignments: list[str] | None = None) -> dict[tuple[str, str], dict[str, float]]:
    """{(assignment, student): {item: score}}."""
    table: dict[tuple[str, str], dict[str, float]] = {}
    for row in item_scores(course_dir, assignments=assignments):
        table.setdefault((row.assignment, row.student), {})[row.item] = row.score
    return table


def has_submission(course_dir: Path, assignment: str, student: str) -> bool:
    with Gradebook(db_url(course_dir)) as gb:
        try:
            gb.find_submission(assignment, student)
        except MissingEntry:
            return False
    return True
