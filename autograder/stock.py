"""Run stock nbgrader commands against a course directory.

nbgrader keeps global state in its traitlets applications, so each command runs in its own process
with the course's `nbgrader_config.py`; the venv's `bin/` is put on PATH because nbgrader calls
`alembic` by name when it first creates a gradebook.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


class NbgraderError(RuntimeError):
    """A stock nbgrader command failed; the message carries the end of its log."""


def with_environment_bin(path: str) -> str:
    """`path` with this Python environment's `bin/` first: nbgrader runs `alembic` by name."""
    bindir = str(Path(sys.executable).parent)
    rest = [entry for entry in path.split(os.pathsep) if entry and entry != bindir]
    return os.pathsep.join([bindir, *rest])


def use_environment_bin() -> None:
    """Make every nbgrader or alembic call of this process find this environment's commands,
    also when the grader was started as `.venv/bin/autograder` without activating the venv."""
    os.environ["PATH"] = with_environment_bin(os.environ.get("PATH", ""))


def nbgrader_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = with_environment_bin(env.get("PATH", ""))
    env.setdefault("PYTHONHASHSEED", "0")
    env.setdefault("MPLBACKEND", "Agg")
    return env


def run_nbgrader(course_dir: Path, *args: str, check: bool = True, quiet: bool = True) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "nbgrader", *args]
    proc = subprocess.run(
        cmd,
        cwd=course_dir,
        env=nbgrader_env(),
        stdout=subprocess.PIPE if quiet else None,
        stderr=subprocess.STDOUT if quiet else None,
        text=True,
    )
    if check and proc.returncode != 0:
        tail = "\n".join((proc.stdout or "").splitlines()[-25:])
        raise NbgraderError(f"nbgrader {' '.join(args)} failed (exit {proc.returncode}):\n{tail}")
    return proc


def generate_assignment(course_dir: Path, assignment: str) -> None:
    run_nbgrader(course_dir, "generate_assignment", assignment, "--force")


def autograde(course_dir: Path, assignment: str, *, student: str | None = None) -> subprocess.CompletedProcess:
    args = ["autograde", assignment, "--force"]
    if student:
        args += ["--student", student]
    return run_nbgrader(course_dir, *args, check=False)


def generate_feedback(course_dir: Path, assignment: str, *, student: str | None = None) -> None:
    args = ["generate_feedback", assignment, "--force"]
    if student:
        args += ["--student", student]
    run_nbgrader(course_dir, *args)


def export_csv(course_dir: Path, to: Path) -> None:
    run_nbgrader(course_dir, "export", "--to", str(to))
