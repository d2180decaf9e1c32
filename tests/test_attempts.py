"""Attempts per item of grading on receipt: how many tries a student needed for an item's full points."""

from __future__ import annotations

import datetime as dt

from autograder import attempts

T0 = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)


def test_tries_to_full_points_per_item(tmp_path):
    def graded(submission: int, student: str, minute: int, rank: float, quiz: float):
        return attempts.record(tmp_path, submission_id=submission, assignment="a", student=student, attempt=None,
                               received_at=T0 + dt.timedelta(minutes=minute), scores={"a": {"test_rank": (rank, 1.0), "test_quiz": (quiz, 2.0)}})

    graded(1, "ada", 0, 0.0, 2.0)
    graded(2, "ben", 1, 0.0, 0.0)
    graded(3, "ada", 2, 0.0, 2.0)
    assert graded(4, "ada", 3, 1.0, 2.0) == [(1, T0), (3, T0 + dt.timedelta(minutes=2)), (4, T0 + dt.timedelta(minutes=3))]
    found = attempts.per_item(tmp_path)
    assert found[("a", "test_rank")] == {"students": 2, "attempts": 4, "mean_to_full": 3.0, "never_full": 1}
    assert found[("a", "test_quiz")] == {"students": 2, "attempts": 4, "mean_to_full": 1.0, "never_full": 1}
    assert attempts.per_item(tmp_path, assignments=["b"]) == {}
    assert attempts.per_item(tmp_path / "elsewhere") == {}
