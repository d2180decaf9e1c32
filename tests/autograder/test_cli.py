"""Every command has help text; bad arguments give one line and exit status 2."""

from __future__ import annotations

import subprocess
import sys

import pytest

from autograder.cli import build_parser
from tests.conftest import ROOT

COMMANDS = sorted(build_parser()._subparsers._group_actions[0].choices)


def run(*args: str, cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=cwd, capture_output=True, text=True)


@pytest.mark.process
def test_top_level_help_lists_every_command():
    proc = run("--help")
    assert proc.returncode == 0
    for command in COMMANDS:
        assert command in proc.stdout


@pytest.mark.process
@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_has_help(command):
    proc = run(command, "--help")
    assert proc.returncode == 0, proc.stderr
    assert f"usage: autograder {command}" in proc.stdout
    description = proc.stdout.split("\n\n")[1]
    assert len(description.split()) >= 5, f"{command} --help has no real description"


@pytest.mark.process
@pytest.mark.parametrize(
    "args",
    [
        ["--bogus"],
        ["grade", "--workers", "0"],
        ["grade", "--workers", "many"],
        ["grade", "no_such_assignment"],
        ["release", "no_such_assignment"],
        ["nonsense-command"],
    ],
)
def test_bad_arguments_one_line_exit_2(args):
    proc = run(*args)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "error" in lines[0], proc.stderr


@pytest.mark.process
def test_outside_a_course_directory(tmp_path):
    proc = run("grade", cwd=tmp_path)
    assert proc.returncode == 2
    assert "not a course directory" in proc.stderr


def test_grade_prints_where_the_time_went():
    from autograder.commands import speed_summary

    stats = {
        "seconds": 10.0,
        "workers": 2,
        "startup_s": 1.5,
        "timings": [
            {"notebook": "ada/01/01", "total_s": 4.0, "student_code_s": 3.0},
            {"notebook": "bob/01/01", "total_s": 2.0, "student_code_s": 1.0},
        ],
    }
    text = speed_summary(stats)
    assert "0.20 notebooks/s with 2 workers" in text
    assert "student code           4.0 s" in text and "limit on 2 workers: 2.0 s wall" in text
    assert "grader overhead        2.0 s" in text and "start-up               1.5 s" in text
    assert "slowest: ada/01/01 4.0 s, bob/01/01 2.0 s" in text
    assert "unchanged" in speed_summary({"timings": []})


@pytest.mark.process
@pytest.mark.parametrize("command", [["report"], ["export"], ["feedback"], ["grade", "--workers", "1"]])
def test_commands_run_from_the_venv_without_activation(command, tmp_path):
    """`.venv/bin/autograder` with the venv's bin/ off PATH: nbgrader still finds `alembic`, and every
    error a new course can give is one line."""
    import shutil
    from pathlib import Path

    course = tmp_path / "course"
    course.mkdir()
    shutil.copy2(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
    script = Path(sys.executable).parent / "autograder"
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg"}
    proc = subprocess.run([str(script), *command], cwd=course, capture_output=True, text=True, env=env, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "alembic" not in proc.stderr
    if proc.returncode:
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
