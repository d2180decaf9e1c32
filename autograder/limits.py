"""The grader's limits, read from the course's nbgrader_config.py (`c.Autograder.*`)."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from autograder import config
from autograder.sandbox import Limits

# c.Autograder.<key> -> Limits field
CONFIG_KEYS = {
    "cell_timeout": "cell_timeout",
    "notebook_timeout": "notebook_timeout",
    "memory_limit_mb": "memory_mb",
    "output_limit_kb": "output_kb",
    "max_processes": "max_processes",
    "max_file_mb": "max_file_mb",
}


def read_limits(course_dir: Path) -> Limits:
    """Limits from `c.Autograder.*` in nbgrader_config.py; unset keys keep their defaults."""
    section = config.section(course_dir, "Autograder")
    values = {field: section[key] for key, field in CONFIG_KEYS.items() if key in section}
    kinds = {f.name: f.type for f in fields(Limits)}
    out = {}
    for name, value in values.items():
        number = float(value)
        if number <= 0:
            raise ValueError(f"c.Autograder limit {name} must be positive, got {value!r}")
        out[name] = number if kinds[name] in (float, "float") else int(number)
    return Limits(**out)


def as_dict(limits: Limits) -> dict:
    return {f.name: getattr(limits, f.name) for f in fields(Limits)}


def from_dict(data: dict) -> Limits:
    return Limits(**{f.name: data[f.name] for f in fields(Limits) if f.name in data})
