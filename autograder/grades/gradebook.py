"""The nbgrader gradebook (the single source of truth after grading): where it is, reading scores, recording grades.

The gradebook is the database `c.CourseDirectory.db_url` names in nbgrader_config.py, as for stock
nbgrader: SQLite by default, or PostgreSQL (`postgresql://user@host/db`, through psycopg) when
several graders, or a cluster's coordinator beside formgrader, share it.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry

from autograder.config import nbconfig
from autograder.rules import items, scoring

# Two first runs on an empty PostgreSQL database would both create nbgrader's tables; the one that
# comes second waits on this advisory lock instead (any fixed 64-bit number, the same everywhere).
SCHEMA_LOCK = 0x6E626772_61646572
WRITE_ATTEMPTS = 6


def db_url(course_dir: Path) -> str:
    """The configured gradebook URL; nbgrader's default (gradebook.db in the course) when none is set."""
    url = nbconfig.section(course_dir, "CourseDirectory").get("db_url")
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
    """Every (assignment, student, test cell) score in the gradebook, manual overrides included.

    One query for the whole class, with nbgrader's own expression of a grade's score."""
    from nbgrader.api import Assignment, Grade, GradeCell, SubmittedAssignment, SubmittedNotebook
    from sqlalchemy import create_engine, select
    from sqlalchemy.orm import Session

    query = (
        select(Assignment.name, SubmittedAssignment.student_id, GradeCell.name, Grade.score, GradeCell.max_score)
        .select_from(Grade)
        .join(GradeCell, GradeCell.id == Grade.cell_id)
        .join(SubmittedNotebook, SubmittedNotebook.id == Grade.notebook_id)
        .join(SubmittedAssignment, SubmittedAssignment.id == SubmittedNotebook.assignment_id)
        .join(Assignment, Assignment.id == SubmittedAssignment.assignment_id)
        .where(GradeCell.cell_type == "code", GradeCell.name.startswith(items.TEST_PREFIX))
    )
    if assignments:
        query = query.where(Assignment.name.in_(list(assignments)))
    engine = create_engine(ensure_schema(course_dir))  # a fresh course has no tables yet: nbgrader creates them
    try:
        with Session(engine) as session:
            rows = [
                ItemScore(a, s, item, float(value), float(top)) for a, s, item, value, top in session.execute(query)
            ]
    finally:
        engine.dispose()
    return sorted(rows, key=lambda r: (r.assignment, r.student, r.item))


def score_table(course_dir: Path, *, assignments: list[str] | None = None) -> dict[tuple[str, str], dict[str, float]]:
    """{(assignment, student): {item: score}}."""
    table: dict[tuple[str, str], dict[str, float]] = {}
    for row in item_scores(course_dir, assignments=assignments):
        table.setdefault((row.assignment, row.student), {})[row.item] = row.score
    return table


def notebook_names(course_dir: Path, assignment: str) -> list[str]:
    """The notebooks nbgrader knows for `assignment` (after `autograder release`)."""
    with Gradebook(db_url(course_dir)) as gb:
        try:
            return sorted(nb.name for nb in gb.find_assignment(assignment).notebooks)
        except MissingEntry:
            raise LookupError(
                f"assignment {assignment} is not in the gradebook: run `autograder release {assignment}` first"
            ) from None


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
            cells.append(
                {
                    "id": cell.get("id"),
                    "grade_id": gid,
                    "cell_type": cell.cell_type,
                    "locked": locked,
                    "nbgrader": nbmeta,
                    # what nbgrader stored when it generated the assignment, as its autograde puts back: tests
                    # with their hidden part and `### AUTOTEST` lines expanded, answer cells as the released stub
                    "source": stored_source,
                    "stub": stored_source if meta.get("solution") else "",
                }
            )
    return {
        "assignment": assignment,
        "notebook": notebook,
        "kernelspec": dict(source_nb.metadata.get("kernelspec", {})),
        "language_info": dict(source_nb.metadata.get("language_info", {"name": "python"})),
        "cells": cells,
    }


@dataclass(frozen=True)
class Graded:
    """One graded submission as the gradebook records it.

    `notebooks` maps a notebook's name to `scoring.summarise`'s values for it, or to None for a notebook
    that was not handed in (zero on every item); `timestamp` is the submission's, or None."""

    assignment: str
    student: str
    notebooks: dict
    timestamp: object = None


def write_errors() -> tuple[type[BaseException], ...]:
    """What a failed gradebook write raises: SQLAlchemy's errors, and the driver's own from a COPY (past SQLAlchemy)."""
    from sqlalchemy.exc import DBAPIError

    try:
        from psycopg import Error as DriverError
    except ImportError:
        return (DBAPIError,)
    return (DBAPIError, DriverError)


class Writer:
    """The gradebook a grading run records into, in batches: one transaction writes many graded
    submissions with bulk statements on nbgrader's own tables (the rows nbgrader's `add_submission`
    and autograde would write, so formgrader and `nbgrader export` read them unchanged).

    Every statement finds what already exists first, so writing a submission again (a run resumed
    after a crash, a re-run) updates the same rows: a batch is written whole or not at all, and
    never twice. Another grader writing at the same time (another assignment, the same new
    student) can make a batch fail on a unique key or a lock; it is rolled back and tried again.
    """

    def __init__(self, course_dir: Path) -> None:
        self.course_dir = course_dir
        self.engine = None
        self._structure: dict[str, dict] = {}
        self._late_plugin = None

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.engine is not None:
            self.engine.dispose()
            self.engine = None

    def save_autograde(
        self,
        assignment: str,
        student: str,
        notebooks: dict,
        *,
        timestamp=None,
        tampering: dict[str, dict[str, str]] | None = None,
        notes: dict[str, dict[str, str]] | None = None,
    ) -> None:
        """Record one graded submission; `notebooks` maps a notebook's name to its autograded
        notebook, or None when it was not handed in; `tampering` maps a notebook to {item: what
        was detected}, `notes` to {item: a line for its answer cell's comment}."""
        summaries = {
            name: None if nb is None else scoring.summarise(nb, (tampering or {}).get(name), (notes or {}).get(name))
            for name, nb in notebooks.items()
        }
        self.write([Graded(assignment, student, summaries, timestamp)])

    def write(self, batch: list[Graded]) -> None:
        """Record `batch` in one transaction, tried again when another writer got in the way."""
        from sqlalchemy import create_engine

        if not batch:
            return
        if self.engine is None:
            self.engine = create_engine(db_url(self.course_dir))
            self._late_plugin = late_submission_plugin(self.course_dir)
        for attempt in range(WRITE_ATTEMPTS):
            try:
                with self.engine.begin() as conn:
                    _write_batch(conn, batch, self._structure)
                    _assign_late_penalties(conn, batch, self._late_plugin)
                return
            except write_errors():
                if attempt == WRITE_ATTEMPTS - 1:
                    raise
                time.sleep(0.05 * 2**attempt)


def late_submission_plugin(course_dir: Path):
    """The late-submission plugin nbgrader's autograde would use for this course (`c.AssignLatePenalties.plugin_class`,
    `c.LateSubmissionPlugin.penalty_method`), configured from its nbgrader_config.py."""
    from nbgrader.preprocessors import AssignLatePenalties

    assigner = AssignLatePenalties(config=nbconfig.load(course_dir))
    assigner.init_plugin()
    return assigner.plugin_inst


def _assign_late_penalties(conn, batch: list[Graded], plugin) -> None:
    """What nbgrader's `AssignLatePenalties` sets after autograding: each notebook of a submission handed in after
    its due date (the student's extension included) gets the plugin's penalty for its score, kept between 0 and
    that score; every other notebook none."""
    from nbgrader import api
    from sqlalchemy import select, tuple_

    keys = sorted({(g.assignment, g.student) for g in batch})
    rows = conn.execute(
        select(
            api.SubmittedNotebook.id.label("id"),
            api.SubmittedNotebook.score.label("score"),
            api.SubmittedNotebook.late_submission_penalty.label("penalty"),
            api.SubmittedAssignment.student_id.label("student"),
            api.SubmittedAssignment.timestamp.label("timestamp"),
            api.SubmittedAssignment.extension.label("extension"),
            api.Assignment.duedate.label("duedate"),
        )
        .join(api.SubmittedAssignment, api.SubmittedAssignment.id == api.SubmittedNotebook.assignment_id)
        .join(api.Assignment, api.Assignment.id == api.SubmittedAssignment.assignment_id)
        .where(tuple_(api.Assignment.name, api.SubmittedAssignment.student_id).in_(keys))
    ).all()
    changed = []
    for row in rows:
        due = row.duedate if row.extension is None or row.duedate is None else row.duedate + row.extension
        late = 0.0 if row.timestamp is None or due is None else max(0.0, (row.timestamp - due).total_seconds())
        penalty = None
        if late > 0:
            penalty = plugin.late_submission_penalty(row.student, row.score, late)
            if penalty is not None:
                penalty = min(max(penalty, 0), row.score)
        if penalty != row.penalty:
            changed.append({"id": row.id, "late_submission_penalty": penalty})
    _update(conn, api.SubmittedNotebook.__table__, changed)


def save_autograde(
    course_dir: Path,
    assignment: str,
    student: str,
    notebooks: dict,
    *,
    timestamp=None,
    tampering: dict[str, dict[str, str]] | None = None,
    notes: dict[str, dict[str, str]] | None = None,
) -> None:
    """`Writer.save_autograde` with a gradebook opened for this one submission."""
    with Writer(course_dir) as writer:
        writer.save_autograde(assignment, student, notebooks, timestamp=timestamp, tampering=tampering, notes=notes)


def _tables():
    from nbgrader import api

    return (
        api.Student.__table__,
        api.Assignment.__table__,
        api.Notebook.__table__,
        api.BaseCell.__table__,
        api.SubmittedAssignment.__table__,
        api.SubmittedNotebook.__table__,
        api.Grade.__table__,
        api.Comment.__table__,
    )


def _structure(conn, assignment: str) -> dict:
    """An assignment's notebooks and the cells that carry a grade or a comment, as nbgrader's
    `add_submission` mirrors them: {"id", "notebooks": {name: id}, "grade_cells"/"comment_cells":
    {notebook id: [cell id]}, "grade_by_name"/"comment_by_name": {notebook id: {name: cell id}}}.
    Where two cells share a name, the one nbgrader's `find_grade` and `find_comment` find wins
    (a grade cell over a task cell, a solution cell over a task cell)."""
    from sqlalchemy import false, select

    _, assignments, notebooks, cells, *_ = _tables()
    found = conn.execute(select(assignments.c.id).where(assignments.c.name == assignment)).scalar()
    if found is None:
        raise LookupError(
            f"assignment {assignment} is not in the gradebook: run `autograder release {assignment}` first"
        )
    names = dict(conn.execute(select(notebooks.c.name, notebooks.c.id).where(notebooks.c.assignment_id == found)).all())
    rows = conn.execute(
        select(cells.c.id, cells.c.name, cells.c.notebook_id, cells.c.type)
        .where(cells.c.notebook_id.in_(list(names.values())) if names else false())
        .order_by(cells.c.id)
    ).all()
    out = {
        "id": found,
        "notebooks": names,
        "grade_cells": {},
        "comment_cells": {},
        "grade_by_name": {},
        "comment_by_name": {},
    }
    for kind, types, preferred in (
        ("grade", ("GradeCell", "TaskCell"), "GradeCell"),
        ("comment", ("SolutionCell", "TaskCell"), "SolutionCell"),
    ):
        for nb_id in names.values():
            mine = [r for r in rows if r.notebook_id == nb_id and r.type in types]
            out[f"{kind}_cells"][nb_id] = [r.id for r in mine]
            out[f"{kind}_by_name"][nb_id] = {r.name: r.id for r in sorted(mine, key=lambda r: r.type == preferred)}
    return out


def _insert_ignoring_existing(conn, table, rows: list[dict]) -> None:
    if not rows:
        return
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    elif conn.dialect.name == "sqlite":
        from sqlalchemy.dialects.sqlite import insert
    else:
        raise NotImplementedError(f"the gradebook on {conn.dialect.name} is not supported (SQLite or PostgreSQL)")
    for part in _chunks(rows):
        conn.execute(insert(table).values(part).on_conflict_do_nothing())


def _insert(conn, table, rows: list[dict]) -> None:
    """New rows of one table (the keys of the first row name the columns): on PostgreSQL in one COPY,
    the bulk load that takes the fewest round trips and the least parsing there."""
    if not rows:
        return
    if conn.dialect.name != "postgresql":
        conn.execute(table.insert(), rows)
        return
    from psycopg import sql

    with conn.connection.driver_connection.cursor() as cursor:
        _insert_copy(cursor, sql.Identifier(table.name), list(rows[0]), rows)


def _update(conn, table, rows: list[dict]) -> None:
    """Set columns of existing rows by id (each row: "id" and the columns to set): on PostgreSQL the
    values go by COPY into a temporary table, and one UPDATE joins it."""
    if not rows:
        return
    columns = [c for c in rows[0] if c != "id"]
    if conn.dialect.name != "postgresql":
        from sqlalchemy import bindparam, update

        conn.execute(
            update(table).where(table.c.id == bindparam("_id")).values({c: bindparam(f"_{c}") for c in columns}),
            [{f"_{k}": v for k, v in row.items()} for row in rows],
        )
        return
    from psycopg import sql

    scratch = sql.Identifier(f"_autograder_{table.name}")
    with conn.connection.driver_connection.cursor() as cursor:
        cursor.execute(
            sql.SQL("CREATE TEMPORARY TABLE {} ON COMMIT DROP AS SELECT {} FROM {} WITH NO DATA").format(
                scratch, sql.SQL(", ").join(map(sql.Identifier, ["id", *columns])), sql.Identifier(table.name)
            )
        )
        _insert_copy(cursor, scratch, ["id", *columns], rows)
        cursor.execute(
            sql.SQL("UPDATE {table} SET {sets} FROM {scratch} WHERE {table}.id = {scratch}.id").format(
                table=sql.Identifier(table.name),
                scratch=scratch,
                sets=sql.SQL(", ").join(
                    sql.SQL("{} = {}.{}").format(sql.Identifier(c), scratch, sql.Identifier(c)) for c in columns
                ),
            )
        )


def _insert_copy(cursor, target, columns: list[str], rows: list[dict]) -> None:
    from psycopg import sql

    with cursor.copy(
        sql.SQL("COPY {} ({}) FROM STDIN").format(target, sql.SQL(", ").join(map(sql.Identifier, columns)))
    ) as copy:
        for row in rows:
            copy.write_row([row[c] for c in columns])


def _chunks(values: list, size: int = 500):
    for start in range(0, len(values), size):
        yield values[start : start + size]


def _one_of(conn, column, values: list):
    """`column IN values`. On PostgreSQL, `= ANY` of one array parameter: the same short statement for any
    number of values, which the driver converts once (an IN of a few hundred placeholders is parsed
    again for every batch, the largest part of the recording thread's own work)."""
    if conn.dialect.name != "postgresql":
        return column.in_(values)
    from sqlalchemy import any_, bindparam
    from sqlalchemy.dialects.postgresql import ARRAY

    return column == any_(bindparam(None, values, type_=ARRAY(column.type)))


def _existing_rows(conn, shape: dict, students: list[str]) -> tuple[dict, dict, dict, dict]:
    """The rows a batch's students already have for one assignment: their submissions' ids by student,
    submitted notebooks' ids by (submission, notebook), grades' (id, manual score) and comments' ids by
    (submitted notebook, cell)."""
    from sqlalchemy import select

    _, _, _, _, submitted, submitted_nb, grades, comments = _tables()
    existing: dict[str, str] = {}
    for part in _chunks(students):
        existing.update(
            conn.execute(
                select(submitted.c.student_id, submitted.c.id).where(
                    submitted.c.assignment_id == shape["id"], _one_of(conn, submitted.c.student_id, part)
                )
            ).all()
        )
    nb_ids: dict[tuple[str, str], str] = {}  # (submission id, notebook id) -> submitted notebook id
    old_grades: dict[tuple[str, str], tuple] = {}  # (submitted notebook id, cell id) -> (grade id, manual score)
    old_comments: dict[tuple[str, str], str] = {}
    for part in _chunks(sorted(existing.values())):
        nb_ids.update(
            {
                (r.assignment_id, r.notebook_id): r.id
                for r in conn.execute(
                    select(submitted_nb.c.id, submitted_nb.c.assignment_id, submitted_nb.c.notebook_id).where(
                        _one_of(conn, submitted_nb.c.assignment_id, part)
                    )
                )
            }
        )
    for part in _chunks(list(nb_ids.values())):
        old_grades.update(
            {
                (r.notebook_id, r.cell_id): (r.id, r.manual_score)
                for r in conn.execute(
                    select(grades.c.id, grades.c.notebook_id, grades.c.cell_id, grades.c.manual_score).where(
                        _one_of(conn, grades.c.notebook_id, part)
                    )
                )
            }
        )
        old_comments.update(
            {
                (r.notebook_id, r.cell_id): r.id
                for r in conn.execute(
                    select(comments.c.id, comments.c.notebook_id, comments.c.cell_id).where(
                        _one_of(conn, comments.c.notebook_id, part)
                    )
                )
            }
        )
    return existing, nb_ids, old_grades, old_comments


_IDS = threading.local()  # each thread's (process id, random bytes not yet made into ids)


def new_id() -> str:
    """A new row id, as nbgrader makes them (`uuid4().hex`), with one read of the system's random source per
    256 ids, not one each; never the same bytes in a forked child as in its parent."""
    held = getattr(_IDS, "held", None)
    if held is None or held[0] != os.getpid() or not held[1]:
        block = os.urandom(16 * 256)
        held = _IDS.held = (os.getpid(), [block[i : i + 16] for i in range(0, len(block), 16)])
    return uuid.UUID(bytes=held[1].pop(), version=4).hex


def _cell_rows(
    shape: dict, nb_id: str, snb: str, values: dict, said: dict, old_grades: dict, old_comments: dict, out: tuple
) -> None:
    """The grade and comment rows of one submitted notebook `snb`, appended to `out` (new grades, grade
    updates, new comments, comment updates). A cell the record does not mention keeps its row; a grade
    with no score needs manual grading."""
    new_grades, grade_updates, new_comments, comment_updates = out
    for cell in shape["grade_cells"][nb_id]:
        old = old_grades.get((snb, cell))
        manual = old[1] if old else None
        if cell in values:
            score, needs = values[cell]
            needs = (manual is not None or score is None) if needs is None else needs
        elif old:
            continue
        else:
            score, needs = None, True
        if old:
            grade_updates.append({"id": old[0], "auto_score": score, "needs_manual_grade": needs})
        else:
            new_grades.append(
                {
                    "id": new_id(),
                    "notebook_id": snb,
                    "cell_id": cell,
                    "auto_score": score,
                    "manual_score": None,
                    "extra_credit": None,
                    "needs_manual_grade": needs,
                }
            )
    for cell in shape["comment_cells"][nb_id]:
        old = old_comments.get((snb, cell))
        if old and cell in said:
            comment_updates.append({"id": old, "auto_comment": said[cell]})
        elif not old:
            new_comments.append(
                {
                    "id": new_id(),
                    "notebook_id": snb,
                    "cell_id": cell,
                    "auto_comment": said.get(cell),
                    "manual_comment": None,
                }
            )


def _write_batch(conn, batch: list[Graded], structures: dict[str, dict]) -> None:
    """The statements of one batch: students, submissions, submitted notebooks, grades and comments,
    each created where missing (with new ids, as nbgrader makes them) and set to the batch's values."""
    from nbgrader.utils import parse_utc

    students, _, _, _, submitted, submitted_nb, grades, comments = _tables()
    _insert_ignoring_existing(conn, students, [{"id": s} for s in sorted({g.student for g in batch})])
    new_subs, new_nbs, new_grades, new_comments = [], [], [], []
    stamp_updates, grade_updates, comment_updates = [], [], []
    for assignment in sorted({g.assignment for g in batch}):
        if assignment not in structures:
            structures[assignment] = _structure(conn, assignment)
        shape = structures[assignment]
        mine = {g.student: g for g in batch if g.assignment == assignment}
        existing, nb_ids, old_grades, old_comments = _existing_rows(conn, shape, sorted(mine))
        for student, graded in sorted(mine.items()):
            timestamp = parse_utc(graded.timestamp) if graded.timestamp else None
            sub_id = existing.get(student)
            if sub_id is None:
                sub_id = new_id()
                new_subs.append(
                    {
                        "id": sub_id,
                        "assignment_id": shape["id"],
                        "student_id": student,
                        "timestamp": timestamp,
                        "extension": None,
                    }
                )
            elif timestamp is not None:
                stamp_updates.append({"id": sub_id, "timestamp": timestamp})
            for name, nb_id in sorted(shape["notebooks"].items()):
                snb = nb_ids.get((sub_id, nb_id))
                if snb is None:
                    snb = new_id()
                    new_nbs.append(
                        {
                            "id": snb,
                            "assignment_id": sub_id,
                            "notebook_id": nb_id,
                            "flagged": False,
                            "late_submission_penalty": None,
                        }
                    )
                summary = graded.notebooks.get(name, False)
                if summary is None:  # not handed in: zero on every item, nothing to grade by hand
                    values = {cell: (0.0, False) for cell in shape["grade_cells"][nb_id]}
                    said = {}
                elif summary is False:  # not part of this record: the rows exist, their values stay
                    values, said = {}, {}
                else:
                    by_name = shape["grade_by_name"][nb_id]
                    values = {by_name[n]: v for n, v in summary["grades"].items() if n in by_name}
                    by_name = shape["comment_by_name"][nb_id]
                    said = {by_name[n]: v for n, v in summary["comments"].items() if n in by_name}
                _cell_rows(
                    shape,
                    nb_id,
                    snb,
                    values,
                    said,
                    old_grades,
                    old_comments,
                    (new_grades, grade_updates, new_comments, comment_updates),
                )
    for table, rows in ((submitted, new_subs), (submitted_nb, new_nbs), (grades, new_grades), (comments, new_comments)):
        _insert(conn, table, rows)
    for table, rows in ((submitted, stamp_updates), (grades, grade_updates), (comments, comment_updates)):
        _update(conn, table, rows)


@dataclass(frozen=True)
class Flag:
    assignment: str
    student: str
    item: str
    detail: str


def tamper_flags(course_dir: Path, *, assignments: list[str] | None = None) -> list[Flag]:
    """Every item the grader flagged for tampering (its answer cell's comment), in the gradebook, in one query."""
    from sqlalchemy import create_engine, select

    _, assignment, _, cell, submitted, submitted_nb, _, comment = _tables()
    query = (
        select(assignment.c.name, submitted.c.student_id, cell.c.name, comment.c.auto_comment)
        .select_from(comment)
        .join(cell, cell.c.id == comment.c.cell_id)
        .join(submitted_nb, submitted_nb.c.id == comment.c.notebook_id)
        .join(submitted, submitted.c.id == submitted_nb.c.assignment_id)
        .join(assignment, assignment.c.id == submitted.c.assignment_id)
        .where(comment.c.auto_comment.startswith(scoring.TAMPER_COMMENT))
    )
    if assignments:
        query = query.where(assignment.c.name.in_(list(assignments)))
    engine = create_engine(ensure_schema(course_dir))  # a fresh course has no tables yet: nbgrader creates them
    try:
        with engine.connect() as conn:
            flags = [
                Flag(a, s, item, text.removeprefix(scoring.TAMPER_COMMENT + ": "))
                for a, s, item, text in conn.execute(query)
            ]
    finally:
        engine.dispose()
    return sorted(flags, key=lambda f: (f.assignment, f.student, f.item))


EXPORT_COLUMNS = [
    "assignment",
    "duedate",
    "timestamp",
    "student_id",
    "last_name",
    "first_name",
    "email",
    "raw_score",
    "late_submission_penalty",
    "score",
    "max_score",
]


def _export_tables(course_dir: Path) -> tuple[list, list, dict, dict, dict]:
    """What nbgrader's export reads, in five queries: the assignments and the students in its order, each
    submission by (assignment id, student id), and the scores and late penalties summed by submission."""
    from nbgrader.api import Assignment, Grade, Student, SubmittedAssignment, SubmittedNotebook
    from sqlalchemy import create_engine, func, select
    from sqlalchemy.orm import Session

    engine = create_engine(ensure_schema(course_dir))  # a fresh course has no tables yet: nbgrader creates them
    try:
        with Session(engine) as session:
            assignments = session.execute(
                select(Assignment.id, Assignment.name, Assignment.duedate, Assignment.max_score).order_by(
                    Assignment.duedate, Assignment.name
                )
            ).all()
            students = session.execute(
                select(Student.id, Student.last_name, Student.first_name, Student.email).order_by(
                    Student.last_name, Student.first_name, Student.id
                )
            ).all()
            handed_in = {
                (r.assignment_id, r.student_id): r
                for r in session.execute(
                    select(
                        SubmittedAssignment.id,
                        SubmittedAssignment.assignment_id,
                        SubmittedAssignment.student_id,
                        SubmittedAssignment.timestamp,
                    )
                )
            }
            scores = dict(
                session.execute(
                    select(SubmittedNotebook.assignment_id, func.sum(Grade.score))
                    .join(Grade, Grade.notebook_id == SubmittedNotebook.id)
                    .group_by(SubmittedNotebook.assignment_id)
                ).all()
            )
            penalties = dict(
                session.execute(
                    select(
                        SubmittedNotebook.assignment_id, func.sum(SubmittedNotebook.late_submission_penalty)
                    ).group_by(SubmittedNotebook.assignment_id)
                ).all()
            )
    finally:
        engine.dispose()
    return assignments, students, handed_in, scores, penalties


def export_csv(course_dir: Path, to: Path, *, progress: bool = False) -> Path:
    """nbgrader's CSV export (`nbgrader export`: a row per assignment and student, in its order and
    format, zeros where nothing was handed in), from a few bulk queries instead of one object at a
    time; `progress` shows a bar over the rows."""
    from tqdm import tqdm

    assignments, students, handed_in, scores, penalties = _export_tables(course_dir)

    def text(value) -> str:
        return "" if value is None else str(value)

    with open(to, "w", encoding="utf-8") as fh:
        fh.write(",".join(EXPORT_COLUMNS) + "\n")
        bar = tqdm(total=len(assignments) * len(students), desc="export", unit="row", disable=not progress)
        for assignment in assignments:
            for student in students:
                sub = handed_in.get((assignment.id, student.id))
                if sub is None:
                    stamp, raw, penalty, score = "", 0.0, 0.0, 0.0
                else:
                    raw = float(scores.get(sub.id) or 0.0)
                    penalty = float(penalties.get(sub.id) or 0.0)
                    stamp, score = sub.timestamp, max(0.0, raw - penalty)
                fh.write(
                    ",".join(
                        text(v)
                        for v in (
                            assignment.name,
                            assignment.duedate,
                            stamp,
                            student.id,
                            student.last_name,
                            student.first_name,
                            student.email,
                            raw,
                            penalty,
                            score,
                            assignment.max_score,
                        )
                    )
                    + "\n"
                )
            bar.update(len(students))
        bar.close()
    return to
