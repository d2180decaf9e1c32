"""The grader's limits, read from the course's nbgrader_config.py (`c.Autograder.*`, declared in `settings`),
and their form on the wire to the children."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from autograder import settings
from autograder.sandbox import Limits


def read_limits(course_dir: Path) -> Limits:
    """Limits from `c.Autograder.*` in nbgrader_config.py (`autograder.settings`); unset keys keep their defaults."""
    return settings.limits(settings.read(course_dir))


def read_environment(course_dir: Path) -> tuple[str, ...]:
    """`c.Autograder.sandbox_environment`: names of the grader's environment student code may also see."""
    return tuple(settings.read(course_dir).sandbox_environment)


def as_dict(limits: Limits) -> dict:
    return {f.name: getattr(limits, f.name) for f in fields(Limits)}


def from_dict(data: dict) -> Limits:
    return Limits(**{f.name: data[f.name] for f in fields(Limits) if f.name in data})
