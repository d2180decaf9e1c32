"""Stock nbgrader runs with this environment's commands first on PATH (it runs `alembic` by name)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from autograder import stock


def test_the_environment_bin_comes_first_once():
    bindir = str(Path(sys.executable).parent)
    path = stock.with_environment_bin(os.pathsep.join(["/usr/bin", bindir, "/bin", ""]))
    assert path.split(os.pathsep) == [bindir, "/usr/bin", "/bin"]


@pytest.mark.process
def test_nbgrader_runs_and_its_failure_carries_the_end_of_its_log(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n")
    done = stock.run_nbgrader(tmp_path, "--version")
    assert done.returncode == 0 and done.stdout.strip()
    try:
        stock.run_nbgrader(tmp_path, "generate_assignment", "no_such_assignment")
    except stock.NbgraderError as exc:
        assert "generate_assignment no_such_assignment failed" in str(exc)
    else:
        raise AssertionError("a failing nbgrader command must raise NbgraderError")
