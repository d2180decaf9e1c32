"""The nbgrader gradebook (the single source of truth after grading): where it is, reading scores, recording grades.

The gradebook is the database `c.CourseDirectory.db_url` names in nbgrader_config.py, as for stock
nbgrader: SQLite by default, or PostgreSQL (`postgresql://user@host/db`, through psycopg) when
several graders, or a cluster's coordinator beside formgrader, share it.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from nbgrader.api import Gradebook, InvalidEntry, MissingEntry

from autograder import config

# Two first runs on an empty PostgreSQL database would both create nbgrader's tables; the one that
# comes second waits on this advisory lock instead (any fixed 64-bit number, the same everywhere).
SCHEMA_LOCK = 0x6E626772_61646572
WRITE_ATTEMPTS = 6


def db_url(course_dir: Path) -> str:
    """The configured gradebook URL; nbgrader's default (gradebook.db in the course) when none is set."""
    url = config.section(course_dir, "CourseDirectory").get("db_url")
    if url:
        return str(url)
    return f"sqlite:///{(Path(course_dir) / 'gradebook.db').resolve()}"


def describe(url: str) -> str:
    """The URL fit for printing: a password in it is masked."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


_ready: set[str] = set()


def ensure_schema(course_dir: Path) -> str:
    """Create nbgrader's tables once, before anything grades; returns the URL.

    nbgrader creates them the first time a gradebook is opened, which races when two graders open
    an empty PostgreSQL database at once: there the creation runs under an advisory lock.
    """
    url = db_url(course_dir)
    if url in _ready:
        return url
    from sqlalchemy import create_engine, text

    # nbgrader runs `alembic` by name when it creates the tables
    bindir = str(Path(sys.executable).parent)
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
    engine = create_engine(url)
    try:
        if engine.dialect.name == "postgresql":
            with engine.connect() as conn:
                conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": SCHEMA_LOCK})
                try:
                    Gradebook(url).close()
                finally:
                    conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": SCHEMA_LOCK})
        else:
            Gradebook(url).close()
    finally:
        engine.dispose()
    _ready.add(url)
    return url


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


class Writer:
    """The gradebook a grading run records into: opened once, at the first write, for the whole run
    (nbgrader checks every table each time a gradebook is opened), closed at the end."""

    def __init__(self, course_dir: Path) -> None:
        self.course_dir = course_dir
        self.gb: Gradebook | None = None

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.gb is not None:
            self.gb.close()
            self.gb = None

    def save_autograde(self, assignment: str, student: str, notebooks: dict, *, timestamp=None,
                       tampering: dict[str, dict[str, str]] | None = None) -> None:
        """Record a graded submission as nbgrader's autograde does (student, submission, then
        SaveAutoGrades per notebook); `notebooks` maps notebook name to the autograded notebook, or
        None for a notebook that was not handed in (zero on every item).

        `tampering` maps a notebook to {item: what was detected}: such an item's test cell scores zero
        (its output says why) and is marked as needing manual grading, so formgrader lists it for
        review, and its answer cell gets a comment saying what was detected (formgrader, feedback).

        Another grader writing at the same time (another assignment, the same new student) can make
        a step fail on a unique key or a lock; every step finds what already exists, so it is tried again.
        """
        from sqlalchemy.exc import DBAPIError

        for attempt in range(WRITE_ATTEMPTS):
            if self.gb is None:
                self.gb = Gradebook(db_url(self.course_dir))
            try:
                _save_autograde(self.gb, assignment, student, notebooks, timestamp=timestamp, tampering=tampering)
                return
            except (InvalidEntry, DBAPIError):
                self.gb.db.rollback()
                if attempt == WRITE_ATTEMPTS - 1:
                    raise
                time.sleep(0.05 * 2**attempt)


def save_autograde(course_dir: Path, assignment: str, student: str, notebooks: dict, *, timestamp=None,
                   tampering: dict[str, dict[str, str]] | None = None) -> None:
    """`Writer.save_autograde` with a gradebook opened for this one submission."""
    with Writer(course_dir) as writer:
        writer.save_autograde(assignment, student, notebooks, timestamp=timestamp, tampering=tampering)


def _save_autograde(gb: Gradebook, assignment: str, student: str, notebooks: dict, *, timestamp=None,
                    tampering: dict[str, dict[str, str]] | None = None) -> None:
    import warnings

    from nbgrader import utils
    from sqlalchemy.exc import SAWarning

    with warnings.catch_warnings():
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
            grades, comments = _grades_and_comments(gb, gb.find_submission_notebook(name, assignment, student))
            for cell in nb.cells:
                grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
                item = grade_id.removeprefix("test_") if utils.is_grade(cell) and not utils.is_solution(cell) else grade_id
                if utils.is_grade(cell):
                    grade = grades[grade_id]
                    grade.auto_score, _ = utils.determine_grade(cell)
                    grade.needs_manual_grade = grade.manual_score is not None or grade.auto_score is None
                    if item in flagged:
                        grade.auto_score = 0.0
                        grade.needs_manual_grade = True
                if utils.is_solution(cell) or utils.is_task(cell):
                    comment = comments[grade_id]
                    if item in flagged:
                        comment.auto_comment = f"{TAMPER_COMMENT}: {flagged[item]} This item scores nothing until an instructor has reviewed it."
                    elif cell.metadata.nbgrader.get("checksum", None) == utils.compute_checksum(cell) and not utils.is_task(cell):
                        comment.auto_comment = "No response."
                    else:
                        comment.auto_comment = None
            gb.db.commit()


def _grades_and_comments(gb: Gradebook, submitted) -> tuple[dict, dict]:
    """A submitted notebook's grades and comments by cell name, in two queries (nbgrader's
    `find_grade` and `find_comment` take one each); where two cells share a name, the same one wins
    as there (a grade cell over a task cell, a solution cell over a task cell)."""
    from nbgrader.api import BaseCell, Comment, Grade

    def by_name(model, preferred: str) -> dict:
        rows = gb.db.query(model, BaseCell.name, BaseCell.type).join(BaseCell, BaseCell.id == model.cell_id)\
            .filter(model.notebook_id == submitted.id).all()
        return {name: row for row, name, _ in sorted(rows, key=lambda r: r[2] == preferred)}

    return by_name(Grade, "GradeCell"), by_name(Comment, "SolutionCell")


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
