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


def notebook_names(course_dir: Path, assignment: str) -> list[str]:
    """The notebooks nbgrader knows for `assignment` (after `autograder release`)."""
    with Gradebook(db_url(course_dir)) as gb:
        try:
            return sorted(nb.name for nb in gb.find_assignment(assignment).notebooks)
        except MissingEntry:
            raise LookupError(f"assignment {assignment} is not in the gradebook: run `autograder release {assignment}` first") from None


def template(course_dir: Path, assignment: str, notebook: str) -> dict:
    """The instructor's version of a notebook as grading needs it: nbgrader cells in order, each with
    the metadata, source and checksum nbgrader recorded when the assignment was generated."""
    import nbformat

    source_nb = nbformat.read(course_dir / "source" / assignment / f"{notebook}.ipynb", as_version=4)
    cells = []
    with Gradebook(db_url(course_dir)) as gb:
        for cell in source_nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader")
            if not meta or not meta.get("grade_id"):
                continue
            gid = meta["grade_id"]
            nbmeta = dict(meta)
            try:
                stored = gb.find_source_cell(gid, notebook, assignment)
                nbmeta["checksum"] = stored.checksum
                stored_source, locked = stored.source, bool(stored.locked)
            except MissingEntry:
                stored_source, locked = cell.source, bool(meta.get("locked"))
            nbmeta["cell_type"] = cell.cell_type
            if meta.get("grade"):
                try:
                    nbmeta["points"] = gb.find_grade_cell(gid, notebook, assignment).max_score
                except MissingEntry:
                    pass
                points = nbmeta.get("points")
                if isinstance(points, float) and points.is_integer():
                    nbmeta["points"] = int(points)
            is_test = cell.cell_type == "code" and meta.get("grade") and not meta.get("solution")
            cells.append({
                "id": cell.get("id"),
                "grade_id": gid,
                "cell_type": cell.cell_type,
                "locked": locked,
                "nbgrader": nbmeta,
                # tests keep their hidden part (the judge needs it); answer cells keep the released stub
                "source": cell.source if is_test or locked else stored_source,
                "stub": stored_source if meta.get("solution") else "",
            })
    return {
        "assignment": assignment,
        "notebook": notebook,
        "kernelspec": dict(source_nb.metadata.get("kernelspec", {})),
        "language_info": dict(source_nb.metadata.get("language_info", {"name": "python"})),
        "cells": cells,
    }


TAMPER_COMMENT = "Tampering detected by the grader"


def save_autograde(course_dir: Path, assignment: str, student: str, notebooks: dict, *, timestamp=None,
                   tampering: dict[str, dict[str, str]] | None = None) -> None:
    """Record a graded submission as nbgrader's autograde does (student, submission, then
    SaveAutoGrades per notebook); `notebooks` maps notebook name to the autograded notebook, or None
    for a notebook that was not handed in (zero on every item).

    `tampering` maps a notebook to {item: what was detected}: such an item's test cell scores zero (its
    output says why) and is marked as needing manual grading, so formgrader lists it for review, and
    its answer cell gets a comment saying what was detected (shown in formgrader and the feedback).
    """
    import warnings

    from nbgrader import utils
    from sqlalchemy.exc import SAWarning

    with warnings.catch_warnings(), Gradebook(db_url(course_dir)) as gb:
        warnings.simplefilter("ignore", SAWarning)
        gb.update_or_create_student(student)
        gb.find_assignment(assignment)
        if timestamp:
            gb.update_or_create_submission(assignment, student, timestamp=timestamp)
        else:
            gb.update_or_create_submission(assignment, student)
        for name, nb in notebooks.items():
            if nb is None:
                for grade in gb.find_submission_notebook(name, assignment, student).grades:
                    grade.auto_score = 0
                    grade.needs_manual_grade = False
                gb.db.commit()
                continue
            flagged = (tampering or {}).get(name, {})
            for cell in nb.cells:
                grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
                item = grade_id.removeprefix("test_") if utils.is_grade(cell) and not utils.is_solution(cell) else grade_id
                if utils.is_grade(cell):
                    grade = gb.find_grade(grade_id, name, assignment, student)
                    grade.auto_score, _ = utils.determine_grade(cell)
                    grade.needs_manual_grade = grade.manual_score is not None or grade.auto_score is None
                    if item in flagged:
                        grade.auto_score = 0.0
                        grade.needs_manual_grade = True
                if utils.is_solution(cell) or utils.is_task(cell):
                    comment = gb.find_comment(grade_id, name, assignment, student)
                    if item in flagged:
                        comment.auto_comment = f"{TAMPER_COMMENT}: {flagged[item]} This item scores nothing until an instructor has reviewed it."
                    elif cell.metadata.nbgrader.get("checksum", None) == utils.compute_checksum(cell) and not utils.is_task(cell):
                        comment.auto_comment = "No response."
                    else:
                        comment.auto_comment = None
            gb.db.commit()


@dataclass(frozen=True)
class Flag:
    assignment: str
    student: str
    item: str
    detail: str


def tamper_flags(course_dir: Path, *, assignments: list[str] | None = None) -> list[Flag]:
    """Every item the grader flagged for tampering (its answer cell's comment), in the gradebook."""
    flags: list[Flag] = []
    with Gradebook(db_url(course_dir)) as gb:
        for assignment in gb.assignments:
            if assignments and assignment.name not in assignments:
                continue
            for submission in assignment.submissions:
                for notebook in submission.notebooks:
                    for comment in notebook.comments:
                        text = comment.auto_comment or ""
                        if text.startswith(TAMPER_COMMENT):
                            flags.append(Flag(assignment.name, submission.student.id, comment.cell.name,
                                              text.removeprefix(TAMPER_COMMENT + ": ")))
    return sorted(flags, key=lambda f: (f.assignment, f.student, f.item))
