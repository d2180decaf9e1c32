"""Which submission collect takes, and what it says about it."""

from __future__ import annotations

import datetime as dt

import pytest

from course_exchange.policy import Policy, lateness, parse_time, pick, stamp

DUE = dt.datetime(2026, 12, 8, 23, 59, tzinfo=dt.timezone.utc)


def at(minutes: float) -> dt.datetime:
    return DUE + dt.timedelta(minutes=minutes)


def test_the_last_before_the_deadline():
    index, reason = pick(Policy(due=DUE), "ada", [at(-60), at(-1), at(30)])
    assert index == 1
    assert reason == f"the last of 3 received before the deadline {stamp(DUE)}; 1 later one after it ignored"


def test_none_on_time_takes_the_last_and_says_how_late():
    index, reason = pick(Policy(due=DUE), "ada", [at(10), at(90)])
    assert index == 1 and reason.endswith("the last one, 1 hour, 30 minutes late")


def test_an_extension_moves_the_student_deadline_only():
    rules = Policy(due=DUE, extensions={"ada": at(120)})
    assert pick(rules, "ada", [at(-5), at(60)])[0] == 1
    assert "extended deadline" in pick(rules, "ada", [at(-5), at(60)])[1]
    assert pick(rules, "ben", [at(-5), at(60)])[0] == 0
    assert lateness(rules, "ada", at(60)) is None and lateness(rules, "ben", at(60)) == dt.timedelta(hours=1)


def test_the_last_policy_and_no_deadline():
    assert pick(Policy(due=DUE, pick="last"), "ada", [at(-5), at(60)]) == (
        1,
        "the last of 2 (the course collects the last submission); it is 1 hour late",
    )
    assert pick(Policy(), "ada", [at(-5), at(60)]) == (1, "the last of 2 (the assignment has no deadline)")


def test_a_policy_survives_its_json_form_and_refuses_unknown_rules():
    rules = Policy(
        due=DUE, extensions={"ada": at(60)}, late="refuse", pick="last", on_receipt=True, attempts=3, quiz_attempts=1
    )
    assert Policy.from_json(rules.to_json()) == rules
    with pytest.raises(ValueError):
        Policy(late="sometimes")
    assert parse_time("2026-12-08 23:59:00.000000 UTC") == DUE == parse_time("2026-12-09T00:59:00+01:00")
