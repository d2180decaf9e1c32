"""The store keeps everything it was given: rows cannot be changed or removed, blobs are never replaced."""

from __future__ import annotations

import datetime as dt
import hashlib
import sqlite3

import pytest

from course_exchange.policy import Policy
from course_exchange.store import Store

T0 = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)


def submit(store: Store, student: str, data: bytes, minute: int = 0):
    return store.add_submission(
        course="c",
        assignment="a",
        student=student,
        data=data,
        received_at=T0 + dt.timedelta(minutes=minute),
        late_seconds=None,
        files={"a.ipynb": hashlib.sha256(data).hexdigest()},
    )


def test_rows_cannot_be_updated_or_deleted(tmp_path):
    store = Store(tmp_path / "store")
    first = submit(store, "ada", b"ada's work")
    store.add_feedback(submission_id=first.id, data=b"fb", at=T0, by="grader", files={})
    store.add_release(course="c", assignment="a", data=b"release", at=T0, by="grader", policy=Policy())
    for statement in (
        "UPDATE submissions SET student = 'ben'",
        "DELETE FROM submissions",
        "UPDATE submissions SET received_at = '2000-01-01'",
        "DELETE FROM feedback",
        "UPDATE feedback SET sha256 = 'x'",
        "DELETE FROM releases",
        "UPDATE releases SET kind = 'withdraw'",
    ):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            store.db.execute(statement)
    assert store.submissions("c") == [first]


def test_a_resubmission_is_a_new_record_and_the_first_is_kept(tmp_path):
    store = Store(tmp_path / "store")
    first = submit(store, "ada", b"first")
    second = submit(store, "ada", b"second", minute=5)
    again = submit(store, "ada", b"first", minute=9)
    assert [s.id for s in store.submissions("c", "a", "ada")] == [first.id, second.id, again.id]
    assert again.sha256 == first.sha256 and store.blob(first.sha256) == b"first"
    assert store.submission(first.id).received_at == T0


def test_blobs_are_named_by_their_hash_and_checked_on_read(tmp_path):
    store = Store(tmp_path / "store")
    sha = store.put_blob(b"content")
    path = store.blobs / sha[:2] / sha
    assert sha == hashlib.sha256(b"content").hexdigest() and path.read_bytes() == b"content"
    assert path.stat().st_mode & 0o777 == 0o400
    assert (tmp_path / "store").stat().st_mode & 0o777 == 0o700
    path.chmod(0o600)
    path.write_bytes(b"tampered")
    with pytest.raises(RuntimeError, match="tampered"):
        store.blob(sha)


def test_the_current_release_is_the_latest_record(tmp_path):
    store = Store(tmp_path / "store")
    store.add_release(course="c", assignment="a", data=b"v1", at=T0, by="g", policy=Policy())
    store.add_release(course="c", assignment="a", data=b"v2", at=T0, by="g", policy=Policy(late="refuse"))
    assert store.blob(store.release("c", "a").sha256) == b"v2" and store.release("c", "a").policy.late == "refuse"
    store.withdraw_release(course="c", assignment="a", at=T0, by="g")
    assert store.release("c", "a") is None
