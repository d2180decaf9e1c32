"""The fast lane's promise: an unmarked test that starts a process fails, with one line saying why."""

from __future__ import annotations

import multiprocessing
import os
import subprocess

import pytest

from tests.support import lanes


def _refused(start) -> str:
    with lanes.refusing_processes("tests/x.py::test_y"):
        with pytest.raises(lanes.ProcessInFastLane) as error:
            start()
    return str(error.value)


@pytest.mark.parametrize(
    "start",
    [
        lambda: subprocess.run(["true"], check=False),
        lambda: subprocess.Popen(["true"]),
        lambda: os.fork(),
        lambda: os.system("true"),
        lambda: os.posix_spawn("/bin/true", ["true"], {}),
        lambda: multiprocessing.get_context("fork").Process(target=print).start(),
        lambda: multiprocessing.get_context("spawn").Process(target=print).start(),
    ],
    ids=["run", "Popen", "fork", "system", "posix_spawn", "mp-fork", "mp-spawn"],
)
def test_every_way_to_start_a_process_is_refused_with_the_test_and_the_marker(start):
    message = _refused(start)
    assert message.startswith("tests/x.py::test_y starts a process")
    assert "@pytest.mark.process" in message and "\n" not in message


def test_the_refusal_ends_with_the_block():
    before = (os.fork, os.system, subprocess._fork_exec)
    with lanes.refusing_processes("t"):
        assert os.fork is not before[0]
    assert (os.fork, os.system, subprocess._fork_exec) == before


def test_this_unmarked_test_runs_under_the_refusal():
    with pytest.raises(lanes.ProcessInFastLane, match="test_this_unmarked_test_runs_under_the_refusal"):
        subprocess.run(["true"], check=False)


@pytest.mark.process
def test_a_marked_test_may_start_processes():
    assert subprocess.run(["true"], check=False).returncode == 0


def test_every_lane_marker_is_registered_with_its_meaning(pytestconfig):
    registered = {line.split(":", 1)[0]: line.split(":", 1)[1].strip() for line in pytestconfig.getini("markers")}
    for name, meaning in lanes.HEAVY.items():
        assert registered.get(name) == meaning
    assert lanes.is_heavy(["parametrize", "slow"]) and not lanes.is_heavy(["parametrize", "filterwarnings"])


LANE_HOOKS = (
    "from tests.conftest import (pytest_addoption, pytest_collection_modifyitems, pytest_configure,\n"
    "    pytest_runtest_call, pytest_runtest_setup)\n"
)

SUITE = """
import subprocess
import pytest

def test_in_process():
    assert sum([1, 2]) == 3

def test_forgot_its_marker():
    subprocess.run(["true"])

@pytest.mark.process
def test_marked():
    pass

@pytest.mark.slow
def test_slow():
    pass
"""


def test_the_fast_lane_runs_only_unmarked_tests_and_fails_one_that_starts_a_process(pytester):
    pytester.makeconftest(LANE_HOOKS)
    pytester.makepyfile(test_suite=SUITE)
    fast = pytester.runpytest_inprocess("--fast", "-p", "no:cacheprovider")
    fast.assert_outcomes(passed=1, failed=1, deselected=2)
    fast.stdout.fnmatch_lines(["*test_forgot_its_marker starts a process but carries no lane marker*"])
    everything = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-k", "not forgot")
    everything.assert_outcomes(passed=3, deselected=1)
