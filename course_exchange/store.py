"""Append-only, content-addressed storage: blobs named by their SHA-256, records that are never changed.

Every release, submission and feedback is a row in SQLite pointing at a blob. Grading on receipt is
a log of events per submission (queued or kept at receipt, in the same transaction as the
submission; then claimed by a grader, graded or failed): the queue is what that log says, so it
survives a restart and loses nothing. The tables refuse
UPDATE and DELETE (triggers), and a blob, once written, is read-only and never replaced: a second
submission with the same bytes points at the same blob, under a row of its own.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from course_exchange.policy import Policy, parse_time

SCHEMA = """
CREATE TABLE IF NOT EXISTS releases (
    id INTEGER PRIMARY KEY, course TEXT NOT NULL, assignment TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('release', 'withdraw')), sha256 TEXT, size INTEGER,
    at TEXT NOT NULL, by TEXT NOT NULL, policy TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY, course TEXT NOT NULL, assignment TEXT NOT NULL, student TEXT NOT NULL,
    sha256 TEXT NOT NULL, size INTEGER NOT NULL, received_at TEXT NOT NULL, late_seconds REAL, files TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS feedback (
    id INTEGER PRIMARY KEY, submission_id INTEGER NOT NULL REFERENCES submissions(id),
    sha256 TEXT NOT NULL, size INTEGER NOT NULL, at TEXT NOT NULL, by TEXT NOT NULL, files TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS grading (
    id INTEGER PRIMARY KEY, submission_id INTEGER NOT NULL REFERENCES submissions(id),
    kind TEXT NOT NULL CHECK (kind IN ('queued', 'kept', 'claimed', 'graded', 'failed')),
    attempt INTEGER, at TEXT NOT NULL, by TEXT NOT NULL, detail TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS grading_submission ON grading (submission_id);
"""
APPEND_ONLY = "".join(
    f"CREATE TRIGGER IF NOT EXISTS {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
    f"BEGIN SELECT RAISE(ABORT, '{table} are append-only'); END;\n"
    for table in ("releases", "submissions", "feedback", "grading")
    for verb in ("UPDATE", "DELETE")
)


@dataclass(frozen=True)
class Release:
    id: int
    course: str
    assignment: str
    sha256: str
    size: int
    at: dt.datetime
    by: str
    policy: Policy


@dataclass(frozen=True)
class Submission:
    id: int
    course: str
    assignment: str
    student: str
    sha256: str
    size: int
    received_at: dt.datetime
    late_seconds: float | None
    files: dict[str, str]  # file name -> SHA-256

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "course": self.course,
            "assignment": self.assignment,
            "student": self.student,
            "sha256": self.sha256,
            "size": self.size,
            "received_at": self.received_at.isoformat(),
            "late_seconds": self.late_seconds,
            "files": self.files,
        }


@dataclass(frozen=True)
class Feedback:
    id: int
    submission_id: int
    sha256: str
    size: int
    at: dt.datetime
    files: dict[str, str]


class Store:
    """The exchange's storage under `root`, which only the exchange's account may enter."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.blobs = self.root / "blobs"
        self.blobs.mkdir(parents=True, exist_ok=True)
        os.chmod(self.root, 0o700)
        self.db = sqlite3.connect(self.root / "exchange.sqlite", isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.executescript(SCHEMA + APPEND_ONLY)

    def close(self) -> None:
        self.db.close()

    # ------------------------------------------------------------ blobs

    def _blob_path(self, sha256: str) -> Path:
        return self.blobs / sha256[:2] / sha256

    def put_blob(self, data: bytes) -> str:
        """Store `data` under its hash; an existing blob is kept as it is (same hash, same bytes)."""
        sha256 = hashlib.sha256(data).hexdigest()
        path = self._blob_path(sha256)
        if path.exists():
            return sha256
        path.parent.mkdir(exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".incoming-")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(temporary, 0o400)
            os.link(temporary, path)  # fails rather than replaces if the blob appeared meanwhile
        except FileExistsError:
            pass
        finally:
            os.unlink(temporary)
        return sha256

    def blob(self, sha256: str) -> bytes:
        data = self._blob_path(sha256).read_bytes()
        if hashlib.sha256(data).hexdigest() != sha256:
            raise RuntimeError(f"blob {sha256} does not match its hash: the store was tampered with")
        return data

    # ------------------------------------------------------------ releases

    def add_release(
        self, *, course: str, assignment: str, data: bytes, at: dt.datetime, by: str, policy: Policy
    ) -> Release:
        sha256 = self.put_blob(data)
        cursor = self.db.execute(
            "INSERT INTO releases (course, assignment, kind, sha256, size, at, by, policy) VALUES (?, ?, 'release', ?, ?, ?, ?, ?)",
            (course, assignment, sha256, len(data), at.isoformat(), by, json.dumps(policy.to_json())),
        )
        return Release(cursor.lastrowid, course, assignment, sha256, len(data), at, by, policy)

    def withdraw_release(self, *, course: str, assignment: str, at: dt.datetime, by: str) -> None:
        self.db.execute(
            "INSERT INTO releases (course, assignment, kind, at, by, policy) VALUES (?, ?, 'withdraw', ?, ?, '{}')",
            (course, assignment, at.isoformat(), by),
        )

    def releases(self, course: str) -> dict[str, Release]:
        """The assignments released now (the latest record of each, unless it withdrew it)."""
        latest: dict[str, tuple] = {}
        for row in self.db.execute(
            "SELECT id, assignment, kind, sha256, size, at, by, policy FROM releases WHERE course = ? ORDER BY id",
            (course,),
        ):
            latest[row[1]] = row
        return {
            assignment: Release(
                row[0],
                course,
                assignment,
                row[3],
                row[4],
                parse_time(row[5]),
                row[6],
                Policy.from_json(json.loads(row[7])),
            )
            for assignment, row in latest.items()
            if row[2] == "release"
        }

    def release(self, course: str, assignment: str) -> Release | None:
        return self.releases(course).get(assignment)

    # ------------------------------------------------------------ submissions

    def add_submission(
        self,
        *,
        course: str,
        assignment: str,
        student: str,
        data: bytes,
        received_at: dt.datetime,
        late_seconds: float | None,
        files: dict[str, str],
        graded_attempts: int | None = None,
    ) -> Submission:
        """Keep a submission; with `graded_attempts` (grading on receipt; 0 for no limit) it is also queued
        for grading, or kept ungraded when the student has used that many attempts, in one transaction."""
        sha256 = self.put_blob(data)
        self.db.execute("BEGIN IMMEDIATE")
        try:
            cursor = self.db.execute(
                "INSERT INTO submissions (course, assignment, student, sha256, size, received_at, late_seconds, files) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    course,
                    assignment,
                    student,
                    sha256,
                    len(data),
                    received_at.isoformat(),
                    late_seconds,
                    json.dumps(files),
                ),
            )
            submission_id = cursor.lastrowid
            if graded_attempts is not None:
                used = self.db.execute(
                    "SELECT COUNT(*) FROM grading g JOIN submissions s ON s.id = g.submission_id "
                    "WHERE g.kind = 'queued' AND s.course = ? AND s.assignment = ? AND s.student = ?",
                    (course, assignment, student),
                ).fetchone()[0]
                kind = "queued" if graded_attempts == 0 or used < graded_attempts else "kept"
                self.db.execute(
                    "INSERT INTO grading (submission_id, kind, attempt, at, by) VALUES (?, ?, ?, ?, 'exchange')",
                    (submission_id, kind, used + 1 if kind == "queued" else None, received_at.isoformat()),
                )
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return Submission(
            submission_id, course, assignment, student, sha256, len(data), received_at, late_seconds, files
        )

    def submissions(self, course: str, assignment: str | None = None, student: str | None = None) -> list[Submission]:
        """Oldest first (by receipt, which is also insertion order)."""
        query = "SELECT id, course, assignment, student, sha256, size, received_at, late_seconds, files FROM submissions WHERE course = ?"
        args: list = [course]
        if assignment is not None:
            query += " AND assignment = ?"
            args.append(assignment)
        if student is not None:
            query += " AND student = ?"
            args.append(student)
        rows = self.db.execute(query + " ORDER BY id", args)
        return [Submission(r[0], r[1], r[2], r[3], r[4], r[5], parse_time(r[6]), r[7], json.loads(r[8])) for r in rows]

    def submission(self, submission_id: int) -> Submission | None:
        row = self.db.execute(
            "SELECT id, course, assignment, student, sha256, size, received_at, late_seconds, files FROM submissions WHERE id = ?",
            (submission_id,),
        ).fetchone()
        return (
            Submission(row[0], row[1], row[2], row[3], row[4], row[5], parse_time(row[6]), row[7], json.loads(row[8]))
            if row
            else None
        )

    # ------------------------------------------------------------ feedback

    def add_feedback(
        self, *, submission_id: int, data: bytes, at: dt.datetime, by: str, files: dict[str, str]
    ) -> Feedback:
        sha256 = self.put_blob(data)
        cursor = self.db.execute(
            "INSERT INTO feedback (submission_id, sha256, size, at, by, files) VALUES (?, ?, ?, ?, ?, ?)",
            (submission_id, sha256, len(data), at.isoformat(), by, json.dumps(files)),
        )
        return Feedback(cursor.lastrowid, submission_id, sha256, len(data), at, files)

    def feedback(self, submission_id: int) -> Feedback | None:
        """The latest feedback released for a submission."""
        row = self.db.execute(
            "SELECT id, submission_id, sha256, size, at, files FROM feedback WHERE submission_id = ? ORDER BY id DESC LIMIT 1",
            (submission_id,),
        ).fetchone()
        return Feedback(row[0], row[1], row[2], row[3], parse_time(row[4]), json.loads(row[5])) if row else None

    # ------------------------------------------------------------ grading on receipt

    def grading(self, submission_id: int) -> dict | None:
        """Where a submission stands: {"state": queued, kept, claimed, graded or failed, "attempt", "detail"}; None when it is not graded on receipt."""
        rows = self.db.execute(
            "SELECT kind, attempt, detail FROM grading WHERE submission_id = ? ORDER BY id", (submission_id,)
        ).fetchall()
        if not rows:
            return None
        attempt = rows[0][1]
        return {"state": rows[-1][0], "attempt": attempt, "detail": rows[-1][2]}

    def claim(
        self,
        course: str,
        *,
        by: str,
        at: dt.datetime,
        limit: int,
        lease_s: float,
        reclaim_before: dt.datetime | None = None,
    ) -> list[Submission]:
        """The oldest queued submissions nobody is grading, at most `limit`, now claimed by `by`.

        A claim older than `lease_s`, or one of `by`'s own made before `reclaim_before` (a grader that
        restarted), no longer holds: that submission is handed out again, before any later one.
        """
        self.db.execute("BEGIN IMMEDIATE")
        try:
            rows = self.db.execute(
                "SELECT s.id, MAX(CASE WHEN g.kind = 'claimed' THEN g.id END) FROM submissions s JOIN grading g ON g.submission_id = s.id "
                "WHERE s.course = ? GROUP BY s.id HAVING SUM(g.kind = 'queued') > 0 AND SUM(g.kind IN ('graded', 'failed')) = 0 ORDER BY s.id",
                (course,),
            ).fetchall()
            chosen = []
            for submission_id, claim_id in rows:
                if len(chosen) >= limit:
                    break
                if claim_id is not None:
                    when, who = self.db.execute("SELECT at, by FROM grading WHERE id = ?", (claim_id,)).fetchone()
                    claimed_at = parse_time(when)
                    expired = (at - claimed_at).total_seconds() > lease_s
                    restarted = reclaim_before is not None and who == by and claimed_at < reclaim_before
                    if not (expired or restarted):
                        continue
                self.db.execute(
                    "INSERT INTO grading (submission_id, kind, at, by) VALUES (?, 'claimed', ?, ?)",
                    (submission_id, at.isoformat(), by),
                )
                chosen.append(submission_id)
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return [self.submission(i) for i in chosen]

    def finish_grading(self, submission_id: int, *, kind: str, at: dt.datetime, by: str, detail: str = "") -> None:
        """Record that a queued submission was graded (its feedback is released) or could not be."""
        if kind not in ("graded", "failed"):
            raise ValueError(f"a grading ends graded or failed, not {kind!r}")
        self.db.execute(
            "INSERT INTO grading (submission_id, kind, at, by, detail) VALUES (?, ?, ?, ?, ?)",
            (submission_id, kind, at.isoformat(), by, detail[:2000]),
        )
