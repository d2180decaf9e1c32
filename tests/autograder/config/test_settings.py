"""The grader's settings: declared once, each with help, read from nbgrader_config.py with one-line errors."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import fields

import pytest

from autograder.config import settings
from autograder.config.limits import Limits
from tests.conftest import ROOT


def course(tmp_path, lines: str):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n" + lines + "\n")
    return tmp_path


def test_every_setting_has_help_and_the_limits_defaults():
    traits = settings.Autograder.class_traits()
    assert set(settings.names()) >= {"cell_timeout", "memory_limit_mb", "sandbox_environment", "cluster"}
    assert all(len(traits[key].help) > 20 for key in settings.names())
    assert settings.limits(settings.Autograder()) == Limits()
    set_by = {traits[key].metadata["limit"] for key in settings.names() if traits[key].metadata.get("limit")}
    assert set_by == {f.name for f in fields(Limits)}, "every limit has exactly one setting"


@pytest.mark.process
def test_help_config_lists_every_setting_with_its_default():
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "--help-config"], capture_output=True, text=True, cwd=ROOT, check=True
    )
    for key in settings.names():
        default = settings.Autograder.class_traits()[key].default()
        assert f"c.Autograder.{key} = {default!r}" in done.stdout, key
    assert (
        "--help-config"
        in subprocess.run(
            [sys.executable, "-m", "autograder", "--help"], capture_output=True, text=True, cwd=ROOT, check=True
        ).stdout
    )


def test_values_reach_the_limits_in_any_numeric_form(tmp_path):
    root = course(
        tmp_path,
        'c.Autograder.cell_timeout = 5\nc.Autograder.memory_limit_mb = 2048.0\nc.Autograder.max_feedback_mb = "7"\n'
        'c.Autograder.sandbox_environment = ["MY_VAR"]\nc.Autograder.cluster = "tls://s:8786"',
    )
    found = settings.read_limits(root)
    assert (found.cell_timeout, found.memory_mb, found.feedback_mb, found.output_kb) == (5.0, 2048, 7, Limits.output_kb)
    assert settings.read_environment(root) == ("MY_VAR",)
    assert settings.read(root).cluster == "tls://s:8786"


@pytest.mark.parametrize(
    "lines, seconds",
    [
        ("", 30.0),  # nbgrader's default for c.Execute.timeout
        ("c.Execute.timeout = 7", 7.0),
        ("c.Execute.timeout = 7\nc.Autograder.cell_timeout = 9", 9.0),
        ("c.Execute.timeout = None\nc.Autograder.notebook_timeout = 250", 250.0),
        ("c.Execute.timeout = -1", Limits.notebook_timeout),
    ],
)
def test_a_course_without_a_cell_timeout_of_ours_keeps_nbgraders(tmp_path, lines, seconds):
    assert settings.read_limits(course(tmp_path, lines)).cell_timeout == seconds


def test_an_execute_timeout_that_is_not_a_number_is_one_line(tmp_path):
    with pytest.raises(settings.SettingsError, match="c.Execute.timeout must be a number or None, got 'soon'"):
        settings.read(course(tmp_path, 'c.Execute.timeout = "soon"'))


@pytest.mark.process
@pytest.mark.parametrize(
    "line, message",
    [
        ("c.Autograder.cell_timout = 5", "c.Autograder.cell_timout is not a setting (did you mean cell_timeout?)"),
        ('c.Autograder.cell_timeout = "soon"', "c.Autograder.cell_timeout must be a number, got 'soon'"),
        ("c.Autograder.max_processes = 0", "c.Autograder.max_processes must be positive, got 0"),
        ("c.Autograder.record_wait = 0", "c.Autograder.record_wait must be positive, got 0"),
        ("c.Autograder.start_timeout = -1", "c.Autograder.start_timeout must be positive, got -1"),
        ('c.Autograder.sandbox_environment = ["NOT A NAME"]', "must be a list of variable names"),
    ],
)
def test_a_setting_the_grader_cannot_take_is_one_line(tmp_path, line, message):
    root = course(tmp_path, line)
    with pytest.raises(settings.SettingsError) as refused:
        settings.read(root)
    assert message in str(refused.value)
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "--course-dir", str(root), "grade"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 2 and message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
