"""Deadlines, extensions, late submissions and which submission is collected: the course's rules.

Every time here is the exchange server's own clock, in UTC; a student's process never supplies one.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

LATE = ("accept", "refuse")
PICKS = ("last_before_deadline", "last")
SHOWS = ("visible", "verdicts")  # what feedback on receipt shows: the visible checks, or every check's verdict
TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S.%f UTC"  # nbgrader's default timestamp_format, in UTC


def now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def parse_time(text: str) -> dt.datetime:
    """An ISO 8601 time (or nbgrader's "YYYY-MM-DD HH:MM:SS[.ffffff] UTC"); without a zone it is UTC."""
    cleaned = text.strip().removesuffix("UTC").strip()
    value = dt.datetime.fromisoformat(cleaned)
    return value.replace(tzinfo=dt.timezone.utc) if value.tzinfo is None else value.astimezone(dt.timezone.utc)


def stamp(moment: dt.datetime) -> str:
    """The form nbgrader writes in timestamp.txt and shows in the Assignments tab."""
    return moment.astimezone(dt.timezone.utc).strftime(TIMESTAMP_FORMAT)


@dataclass(frozen=True)
class Policy:
    """One assignment's rules. `due` None means no deadline; `extensions` maps a student to their own deadline."""

    due: dt.datetime | None = None
    extensions: dict[str, dt.datetime] = field(default_factory=dict)
    late: str = "accept"
    pick: str = "last_before_deadline"
    # Grading on receipt: off when `on_receipt` is False; `attempts` graded attempts per student (0: no limit);
    # `quiz_attempts` graded attempts that may tell a student a quiz is not right (0: no limit of its own).
    on_receipt: bool = False
    attempts: int = 0
    quiz_attempts: int = 0
    shows: str = "verdicts"
    score: bool = True

    def __post_init__(self):
        if self.late not in LATE:
            raise ValueError(f"late must be one of {LATE}, not {self.late!r}")
        if self.pick not in PICKS:
            raise ValueError(f"pick must be one of {PICKS}, not {self.pick!r}")
        if self.shows not in SHOWS:
            raise ValueError(f"shows must be one of {SHOWS}, not {self.shows!r}")
        for name in ("attempts", "quiz_attempts"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} must be a whole number, 0 for no limit, not {value!r}")

    def deadline(self, student: str) -> dt.datetime | None:
        return self.extensions.get(student, self.due)

    def to_json(self) -> dict:
        return {
            "due": self.due.isoformat() if self.due else None,
            "extensions": {name: when.isoformat() for name, when in sorted(self.extensions.items())},
            "late": self.late,
            "pick": self.pick,
            "on_receipt": self.on_receipt,
            "attempts": self.attempts,
            "quiz_attempts": self.quiz_attempts,
            "shows": self.shows,
            "score": self.score,
        }

    @classmethod
    def from_json(cls, data: dict) -> Policy:
        return cls(
            due=parse_time(data["due"]) if data.get("due") else None,
            extensions={name: parse_time(when) for name, when in (data.get("extensions") or {}).items()},
            late=data.get("late", "accept"),
            pick=data.get("pick", "last_before_deadline"),
            on_receipt=bool(data.get("on_receipt", False)),
            attempts=data.get("attempts", 0),
            quiz_attempts=data.get("quiz_attempts", 0),
            shows=data.get("shows", "verdicts"),
            score=bool(data.get("score", True)),
        )


def lateness(policy: Policy, student: str, received: dt.datetime) -> dt.timedelta | None:
    """How late a submission received at `received` is for `student`, or None when it is on time."""
    deadline = policy.deadline(student)
    if deadline is None or received <= deadline:
        return None
    return received - deadline


def describe(delta: dt.timedelta) -> str:
    seconds = int(delta.total_seconds())
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    parts = [
        f"{n} {unit}{'s' if n != 1 else ''}" for n, unit in ((days, "day"), (hours, "hour"), (minutes, "minute")) if n
    ]
    return ", ".join(parts) or f"{seconds} second{'s' if seconds != 1 else ''}"


def pick(policy: Policy, student: str, received: list[dt.datetime]) -> tuple[int, str]:
    """Which of a student's submissions (their receipt times, oldest first) is collected, and why."""
    if not received:
        raise ValueError("no submissions to pick from")
    deadline = policy.deadline(student)
    last = len(received) - 1
    whose = "their extended deadline" if student in policy.extensions else "the deadline"
    if policy.pick == "last" or deadline is None:
        rule = "the course collects the last submission" if deadline is not None else "the assignment has no deadline"
        late = lateness(policy, student, received[last])
        suffix = f"; it is {describe(late)} late" if late else ""
        return last, f"the last of {len(received)} ({rule}){suffix}"
    on_time = [i for i, when in enumerate(received) if when <= deadline]
    if on_time:
        chosen = on_time[-1]
        after = last - chosen
        more = f"; {after} later one{'s' if after != 1 else ''} after it ignored" if after else ""
        return chosen, f"the last of {len(received)} received before {whose} {stamp(deadline)}{more}"
    late = lateness(policy, student, received[last])
    return (
        last,
        f"none of {len(received)} arrived before {whose} {stamp(deadline)}: the last one, {describe(late)} late",
    )
