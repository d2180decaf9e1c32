"""The queue of grading on receipt, as the store keeps it: order of arrival, the attempt limit, claims that lapse, restarts."""

from __future__ import annotations

import datetime as dt
import hashlib
import sqlite3

import pytest
from traitlets.config import Config

from course_exchange.plugin import AssignmentPolicy
from course_exchange.policy import Policy
from course_exchange.store import Store

T0 = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)


def submit(store: Store, student: str, minute: float = 0, *, limit: int | None = 0):
    data = f"{student} {minute}".encode()
    return store.add_submission(
        course="c",
        assignment="a",
        student=student,
        data=data,
        received_at=T0 + dt.timedelta(minutes=minute),
        late_seconds=None,
        files={"a.ipynb": hashlib.sha256(data).hexdigest()},
        graded_attempts=limit,
    )


def claim(
    store: Store, minute: float, *, limit: int = 10, by: str = "grader", lease_s: float = 600, restarted: bool = False
) -> list[int]:
    at = T0 + dt.timedelta(minutes=minute)
    return [
        s.id
        for s in store.claim("c", by=by, at=at, limit=limit, lease_s=lease_s, reclaim_before=at if restarted else None)
    ]


def test_claims_come_in_order_of_arrival_and_each_once(tmp_path):
    store = Store(tmp_path / "store")
    ids = [submit(store, student, minute).id for minute, student in enumerate(["ben", "ada", "ben", "cy", "ada"])]
    assert claim(store, 10, limit=2) == ids[:2]
    assert claim(store, 10, limit=2) == ids[2:4]  # a later claim never skips an earlier submission, nor repeats one
    assert claim(store, 10) == ids[4:]
    assert claim(store, 10) == []


def test_attempts_past_the_limit_are_kept_not_queued(tmp_path):
    store = Store(tmp_path / "store")
    first, second, third = (submit(store, "ada", m, limit=2) for m in range(3))
    other = submit(store, "ben", 3, limit=2)
    assert [store.grading(s.id)["state"] for s in (first, second, third, other)] == [
        "queued",
        "queued",
        "kept",
        "queued",
    ]
    assert [store.grading(s.id)["attempt"] for s in (first, second, other)] == [1, 2, 1]
    assert store.submission(third.id) == third  # received and kept
    assert claim(store, 5) == [first.id, second.id, other.id]
    assert store.grading(submit(store, "cy", 6, limit=None).id) is None  # grading on receipt off: nothing queued


def test_a_lapsed_claim_is_handed_out_again_before_later_ones(tmp_path):
    store = Store(tmp_path / "store")
    first, second = submit(store, "ada", 0), submit(store, "ben", 1)
    assert claim(store, 2, limit=1) == [first.id]
    assert claim(store, 3, limit=1) == [second.id]
    assert claim(store, 5) == []
    assert claim(store, 15, limit=1, lease_s=600) == [first.id]  # ten minutes on: the first claim lapsed


def test_graded_and_failed_leave_the_queue(tmp_path):
    store = Store(tmp_path / "store")
    first, second, third = submit(store, "ada", 0), submit(store, "ben", 1), submit(store, "cy", 2)
    assert claim(store, 3) == [first.id, second.id, third.id]
    store.finish_grading(first.id, kind="graded", at=T0, by="grader")
    store.finish_grading(second.id, kind="failed", at=T0, by="grader", detail="no notebook")
    assert claim(store, 100) == [third.id]  # lapsed, and the only one not finished
    assert store.grading(second.id) == {"state": "failed", "attempt": 1, "detail": "no notebook"}


def test_the_queue_survives_a_restart_and_a_restarted_grader_gets_its_claims_back(tmp_path):
    store = Store(tmp_path / "store")
    ids = [submit(store, name, m).id for m, name in enumerate(["ada", "ben", "cy"])]
    assert claim(store, 5, limit=2) == ids[:2]
    store.close()
    store = Store(tmp_path / "store")  # the service restarted
    assert claim(store, 6, by="other") == ids[2:]  # another grader's claim holds until it lapses
    assert claim(store, 6, restarted=True) == ids[:2]  # the grader that claimed them restarted


def test_the_grading_log_is_append_only(tmp_path):
    store = Store(tmp_path / "store")
    submit(store, "ada")
    for statement in ("UPDATE grading SET kind = 'graded'", "DELETE FROM grading"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            store.db.execute(statement)


def test_the_course_policy_turns_it_on_per_assignment():
    config = Config()
    config.AssignmentPolicy.on_receipt = {"01_tensors": {"attempts": 3, "shows": "visible", "score": False}}
    rules = AssignmentPolicy(config=config)
    assert rules.for_assignment("01_tensors") == Policy(on_receipt=True, attempts=3, shows="visible", score=False)
    assert rules.for_assignment("02_dtype").on_receipt is False
    assert Policy.from_json(rules.for_assignment("01_tensors").to_json()) == rules.for_assignment("01_tensors")
    config.AssignmentPolicy.on_receipt = {"01_tensors": {"attempt": 3}}
    with pytest.raises(ValueError, match="unknown keys"):
        AssignmentPolicy(config=config).for_assignment("01_tensors")
    with pytest.raises(ValueError, match="shows"):
        Policy(on_receipt=True, shows="everything")
