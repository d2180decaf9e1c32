"""Graded attempts of grading on receipt, per item: what a student needed several tries for.

The grader on receipt (`course_exchange.receipt`) records the scores of every attempt it graded in
the course's `.autograder/attempts.sqlite`; the instructor's gradebook holds only the attempt that
counts. `autograder report` reads this file to show attempts per item. It also keeps which attempts told
a student a quiz's verdict, so a per-quiz limit holds across attempts.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

FILE = Path(".autograder") / "attempts.sqlite"
SCHEMA = """
CREATE TABLE IF NOT EXISTS attempts (
    submission_id INTEGER NOT NULL, assignment TEXT NOT NULL, student TEXT NOT NULL, attempt INTEGER,
    received_at TEXT NOT NULL, graded_at TEXT NOT NULL, notebook TEXT NOT NULL, item TEXT NOT NULL,
    score REAL NOT NULL, max_score REAL NOT NULL, PRIMARY KEY (submission_id, notebook, item));
CREATE TABLE IF NOT EXISTS quiz_verdicts_told (
    assignment TEXT NOT NULL, student TEXT NOT NULL, item TEXT NOT NULL, submission_id INTEGER NOT NULL,
    right INTEGER NOT NULL, PRIMARY KEY (assignment, student, item, submission_id));
"""


def _open(course_dir: Path) -> sqlite3.Connection:
    path = Path(course_dir) / FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    return db


def record(
    course_dir: Path,
    *,
    submission_id: int,
    assignment: str,
    student: str,
    attempt: int | None,
    received_at: dt.datetime,
    scores: dict[str, dict[str, tuple[float, float]]],
) -> list[tuple[int, dt.datetime]]:
    """Keep one graded attempt's scores ({notebook: {grade_id: (score, max)}}); returns the student's graded
    attempts of the assignment as (submission id, receipt time), oldest first."""
    graded_at = dt.datetime.now(dt.timezone.utc).isoformat()
    db = _open(course_dir)
    try:
        with db:
            for notebook, items in scores.items():
                for item, (score, maximum) in items.items():
                    db.execute(
                        "INSERT OR REPLACE INTO attempts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            submission_id,
                            assignment,
                            student,
                            attempt,
                            received_at.isoformat(),
                            graded_at,
                            notebook,
                            item,
                            score,
                            maximum,
                        ),
                    )
        rows = db.execute(
            "SELECT DISTINCT submission_id, received_at FROM attempts WHERE assignment = ? AND student = ? "
            "ORDER BY received_at, submission_id",
            (assignment, student),
        ).fetchall()
    finally:
        db.close()
    return [(r[0], dt.datetime.fromisoformat(r[1])) for r in rows]


def of_student(course_dir: Path, *, assignment: str, student: str) -> dict[str, dict[str, tuple[int, int | None]]]:
    """{notebook: {grade_id: (graded attempts, the attempt that first had full points or None)}} of one student."""
    if not (Path(course_dir) / FILE).is_file():
        return {}
    db = _open(course_dir)
    try:
        rows = db.execute(
            "SELECT notebook, item, score, max_score FROM attempts WHERE assignment = ? AND student = ? "
            "ORDER BY received_at, submission_id",
            (assignment, student),
        ).fetchall()
    finally:
        db.close()
    out: dict[str, dict[str, tuple[int, int | None]]] = {}
    for notebook, item, score, maximum in rows:
        tries, first = out.setdefault(notebook, {}).get(item, (0, None))
        tries += 1
        if first is None and maximum > 0 and score >= maximum:
            first = tries
        out[notebook][item] = (tries, first)
    return out


def note(tries: int, first: int | None) -> str:
    """What formgrader shows beside an answer about its attempts on receipt."""
    plural = "s" if tries != 1 else ""
    reached = f"full points first at attempt {first}" if first else "never full points"
    return f"Graded on receipt: {tries} graded attempt{plural}, {reached}."


def told_quiz_verdicts(
    course_dir: Path, *, submission_id: int, assignment: str, student: str, verdicts: dict[str, bool], limit: int
) -> set[str]:
    """Which quizzes of one graded attempt ({item: right}) the student is told the verdict of. A quiz once told
    right is always told; otherwise only while fewer than `limit` (0: no limit) earlier attempts told it was not
    right. The count rests on the grader's own verdicts, so nothing in a notebook can reset it; the told ones
    are kept in one transaction, and grading the same submission again tells the same."""
    db = _open(course_dir)
    told = set()
    try:
        with db:
            for item, right in sorted(verdicts.items()):
                earlier = db.execute(
                    "SELECT right FROM quiz_verdicts_told WHERE assignment = ? AND student = ? AND item = ? "
                    "AND submission_id != ?",
                    (assignment, student, item, submission_id),
                ).fetchall()
                again = db.execute(
                    "SELECT 1 FROM quiz_verdicts_told WHERE assignment = ? AND student = ? AND item = ? AND submission_id = ?",
                    (assignment, student, item, submission_id),
                ).fetchone()
                wrong_told = sum(1 for (was_right,) in earlier if not was_right)
                if again or any(was_right for (was_right,) in earlier) or not limit or wrong_told < limit:
                    db.execute(
                        "INSERT OR IGNORE INTO quiz_verdicts_told VALUES (?, ?, ?, ?, ?)",
                        (assignment, student, item, submission_id, int(right)),
                    )
                    told.add(item)
    finally:
        db.close()
    return told


def per_item(course_dir: Path, *, assignments: list[str] | None = None) -> dict[tuple[str, str], dict[str, float]]:
    """{(assignment, grade_id): {"students", "attempts", "mean_to_full", "never_full"}}; `mean_to_full` is
    the mean number of graded attempts the students who reached the item's full points needed."""
    if not (Path(course_dir) / FILE).is_file():
        return {}
    db = _open(course_dir)
    try:
        rows = db.execute(
            "SELECT assignment, item, student, score, max_score FROM attempts ORDER BY submission_id"
        ).fetchall()
    finally:
        db.close()
    seen: dict[tuple[str, str], dict[str, list[bool]]] = {}
    for assignment, item, student, score, maximum in rows:
        if assignments is None or assignment in assignments:
            seen.setdefault((assignment, item), {}).setdefault(student, []).append(maximum > 0 and score >= maximum)
    out = {}
    for key, by_student in sorted(seen.items()):
        needed = [marks.index(True) + 1 for marks in by_student.values() if True in marks]
        out[key] = {
            "students": len(by_student),
            "attempts": sum(len(m) for m in by_student.values()),
            "mean_to_full": sum(needed) / len(needed) if needed else 0.0,
            "never_full": len(by_student) - len(needed),
        }
    return out
