"""Attempts per item of grading on receipt: how many tries a student needed for an item's full points."""

from __future__ import annotations

import datetime as dt

from autograder.grades import attempts

T0 = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)


def test_tries_to_full_points_per_item(tmp_path):
    def graded(submission: int, student: str, minute: int, rank: float, quiz: float):
        return attempts.record(
            tmp_path,
            submission_id=submission,
            assignment="a",
            student=student,
            attempt=None,
            received_at=T0 + dt.timedelta(minutes=minute),
            scores={"a": {"test_rank": (rank, 1.0), "test_quiz": (quiz, 2.0)}},
        )

    graded(1, "ada", 0, 0.0, 2.0)
    graded(2, "ben", 1, 0.0, 0.0)
    graded(3, "ada", 2, 0.0, 2.0)
    assert graded(4, "ada", 3, 1.0, 2.0) == [
        (1, T0),
        (3, T0 + dt.timedelta(minutes=2)),
        (4, T0 + dt.timedelta(minutes=3)),
    ]
    found = attempts.per_item(tmp_path)
    assert found[("a", "test_rank")] == {"students": 2, "attempts": 4, "mean_to_full": 3.0, "never_full": 1}
    assert found[("a", "test_quiz")] == {"students": 2, "attempts": 4, "mean_to_full": 1.0, "never_full": 1}
    assert attempts.per_item(tmp_path, assignments=["b"]) == {}
    assert attempts.per_item(tmp_path / "elsewhere") == {}


def test_a_quiz_is_told_not_right_at_most_its_limit_and_right_once_found(tmp_path):
    def told(submission: int, student: str, right: bool, limit: int = 2) -> bool:
        return "test_q" in attempts.told_quiz_verdicts(
            tmp_path, submission_id=submission, assignment="a", student=student, verdicts={"test_q": right}, limit=limit
        )

    assert [told(1, "ada", False), told(2, "ada", False), told(3, "ada", False), told(4, "ada", True)] == [
        True,
        True,
        False,
        False,
    ]
    assert told(2, "ada", False), "grading the same submission again tells what it told"
    assert told(5, "ben", False) and told(6, "ben", True) and told(7, "ben", False) and told(8, "ben", False), (
        "once told right, a quiz is always told: nothing is left to find"
    )
    assert all(told(10 + n, "cy", False, limit=0) for n in range(5)), "0 is no limit"


def test_a_withheld_quiz_shows_no_verdict_and_no_points():
    from course_exchange import feedback
    from course_exchange.policy import Policy

    rules = Policy(on_receipt=True, quiz_attempts=1)
    checks = [
        feedback.Check("test_answer_q", "quiz", False, 0.0, 2.0, "", withheld=True),
        feedback.Check("test_f", "hidden", True, 1.0, 1.0, ""),
    ]
    page = feedback.page(
        assignment="a", notebook="a", student="ada", received="now", attempt=2, rules=rules, found=checks
    )
    row = next(line for line in page.splitlines() if 'data-item="answer_q"' in line)
    assert "verdict withheld" in row and "1 earlier attempt already" in row
    assert feedback.WRONG not in row and feedback.RIGHT not in row and "/ 2" not in row
    assert "Score of the checks shown: 1 / 1" in page


def test_one_students_tries_per_item_and_the_note_formgrader_shows(tmp_path):
    for submission, (rank, quiz) in enumerate([(0.0, 0.0), (1.0, 0.0), (1.0, 0.0)], start=1):
        attempts.record(
            tmp_path,
            submission_id=submission,
            assignment="a",
            student="ada",
            attempt=submission,
            received_at=T0 + dt.timedelta(minutes=submission),
            scores={"nb": {"test_rank": (rank, 1.0), "test_quiz": (quiz, 2.0)}},
        )
    attempts.record(
        tmp_path,
        submission_id=9,
        assignment="a",
        student="ben",
        attempt=1,
        received_at=T0,
        scores={"nb": {"test_rank": (1.0, 1.0)}},
    )
    found = attempts.of_student(tmp_path, assignment="a", student="ada")
    assert found == {"nb": {"test_rank": (3, 2), "test_quiz": (3, None)}}
    assert (
        attempts.note(*found["nb"]["test_rank"])
        == "Graded on receipt: 3 graded attempts, full points first at attempt 2."
    )
    assert attempts.note(1, None) == "Graded on receipt: 1 graded attempt, never full points."
    assert attempts.of_student(tmp_path / "elsewhere", assignment="a", student="ada") == {}
