"""The grader's limits, read from the course's nbgrader_config.py (`c.Autograder.*`)."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from autograder import config
from autograder.sandbox import Limits

# c.Autograder.<key> -> (Limits field, help text); the defaults are Limits' own.
SETTINGS = {
    "cell_timeout": ("cell_timeout", "seconds for one student cell, or for one test cell's calls into the child"),
    "notebook_timeout": ("notebook_timeout", "seconds for the whole notebook; cells after it are not run, their tests fail"),
    "memory_limit_mb": ("memory_mb", "memory of one notebook, all its processes and its scratch files together "
                                     "(a memory cgroup); each process's address space beyond the zygote's as well"),
    "output_limit_kb": ("output_kb", "recorded output per cell; the rest is cut with a note"),
    "max_processes": ("max_processes", "processes at once in one notebook's sandbox"),
    "max_file_mb": ("max_file_mb", "size of one file the notebook writes"),
    "scratch_mb": ("scratch_mb", "size of the notebook's own scratch folder (a tmpfs of its own)"),
    "scratch_files": ("scratch_files", "files and folders the notebook's scratch folder can hold (inodes)"),
    "judge_memory_mb": ("judge_memory_mb", "memory of each judge process (a memory cgroup); over it, the notebook it grades fails"),
    "max_handed_in_files": ("files_count", "files a student may hand in beside the notebook; the rest are not given to it"),
    "max_handed_in_mb": ("files_mb", "total size of the files handed in beside the notebook; past it the rest are not given to it"),
    "max_notebook_output_mb": ("notebook_output_mb", "total recorded output of one notebook; later outputs are replaced by a note"),
    "max_autograded_mb": ("autograded_mb", "size of the autograded notebook; past it the largest outputs are replaced by a note"),
    "max_feedback_mb": ("feedback_mb", "size of one feedback page; past it the page is replaced by a short one that says why"),
}
CONFIG_KEYS = {key: field for key, (field, _) in SETTINGS.items()}
ENVIRONMENT_KEY = "sandbox_environment"  # names of the grader's environment passed on to student code, beyond the built-in list


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


def read_environment(course_dir: Path) -> tuple[str, ...]:
    """`c.Autograder.sandbox_environment`: names of the grader's environment student code may also see."""
    names = config.section(course_dir, "Autograder").get(ENVIRONMENT_KEY, [])
    if isinstance(names, str) or not all(isinstance(n, str) and n.isidentifier() for n in names):
        raise ValueError(f"c.Autograder.{ENVIRONMENT_KEY} must be a list of variable names, got {names!r}")
    return tuple(names)


def as_dict(limits: Limits) -> dict:
    return {f.name: getattr(limits, f.name) for f in fields(Limits)}


def from_dict(data: dict) -> Limits:
    return Limits(**{f.name: data[f.name] for f in fields(Limits) if f.name in data})
