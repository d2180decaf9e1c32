"""Test cells that misbehave as instructors' tests do: none can make a notebook ungraded or change a classmate's grade.

One judge grades the whole class (`workers=1`), so what one notebook's tests leave behind would reach the
next notebook if the judge kept it. The lesson's tests raise a `BaseException` (as pytest's `Failed` is),
patch NumPy and leave it patched, time a call with `SIGALRM`, end with `;`, and read
`NBGRADER_EXECUTION`, which nbgrader sets while it autogrades.
"""

from __future__ import annotations

import subprocess
import sys

import nbformat
import pytest

from autograder import commands
from autograder.authoring import samples
from autograder.grades import gradebook
from tests.autograder.coordinator.test_grader import edit_cell, make_course, notebooks, submit

pytestmark = pytest.mark.slow

LESSON = "98_unruly"
UNRULY = '''# %% [markdown]
# # Tests that misbehave

# %%
import os

# %% answer add
def add(a, b):
    """a + b"""
    ### BEGIN SOLUTION
    return a + b
    ### END SOLUTION

# %% test add points=1
import numpy as np
from course.checks import check_equal, passed

check_equal(int(np.sum(np.array([add(1, 2), 1]))), 4, what="np.sum of [add(1, 2), 1]")
passed("add")
### BEGIN HIDDEN TESTS
check_equal(int(np.sum(np.array([add(20, 22)]))), 42, what="np.sum of [add(20, 22)]")
### END HIDDEN TESTS

# %% answer mul
def mul(a, b):
    """a * b"""
    ### BEGIN SOLUTION
    return a * b
    ### END SOLUTION

# %% test mul points=1
import numpy as np
from course.checks import check_equal, passed

check_equal(mul(2, 3), 6, what="mul(2, 3)")
passed("mul")
### BEGIN HIDDEN TESTS
check_equal(mul(7, 6), 42, what="mul(7, 6)")
np.sum = lambda *args, **kwargs: -1  # left patched, as a careless test does
mul(2, 2);
### END HIDDEN TESTS

# %% answer strict
def strict(x):
    """x doubled"""
    ### BEGIN SOLUTION
    return 2 * x
    ### END SOLUTION

# %% test strict points=1
class Failed(BaseException):
    """Like pytest's: not an Exception."""


def check_strict(x, want):
    if strict(x) != want:
        raise Failed(f"strict({x}) should be {want}")


check_strict(2, 4)
### BEGIN HIDDEN TESTS
check_strict(5, 10)
### END HIDDEN TESTS

# %% answer timed
def timed(x):
    """x doubled, quickly"""
    ### BEGIN SOLUTION
    return 2 * x
    ### END SOLUTION

# %% test timed points=1
import signal
from course.checks import check_equal


class TooSlow(Exception):
    pass


def stop(signum, frame):
    raise TooSlow("timed(1) took longer than 0.5 s")


signal.signal(signal.SIGALRM, stop)
signal.setitimer(signal.ITIMER_REAL, 0.5)
try:
    value = timed(1)
finally:
    signal.setitimer(signal.ITIMER_REAL, 0)
check_equal(value, 2, what="timed(1)")
### BEGIN HIDDEN TESTS
check_equal(timed(4), 8, what="timed(4)")
### END HIDDEN TESTS

# %% answer after
def after(x):
    """x squared"""
    ### BEGIN SOLUTION
    return x * x
    ### END SOLUTION

# %% test after points=1
from course.checks import check_equal

check_equal(after(3), 9, what="after(3)")
### BEGIN HIDDEN TESTS
check_equal(after(-4), 16, what="after(-4)")
### END HIDDEN TESTS

# %% answer mode
def mode():
    """What NBGRADER_EXECUTION says in the notebook's process."""
    ### BEGIN SOLUTION
    return os.environ.get("NBGRADER_EXECUTION")
    ### END SOLUTION

# %% test mode points=1
import os
from course.checks import check_equal

check_equal(mode(), "autograde", what="NBGRADER_EXECUTION in the notebook")
### BEGIN HIDDEN TESTS
check_equal(os.environ.get("NBGRADER_EXECUTION"), "autograde", what="NBGRADER_EXECUTION in the test")
### END HIDDEN TESTS
'''
ITEMS = ("add", "mul", "strict", "timed", "after", "mode")
FULL = {f"test_{item}": 1.0 for item in ITEMS}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = make_course(tmp_path_factory.mktemp("unruly") / "course", {LESSON: UNRULY})
    source, release = notebooks(course, LESSON)
    full = samples.answered(source, release, keep=None)
    for honest in ("first", "second", "third"):
        submit(course, honest, LESSON, full)
    submit(course, "wrong", LESSON, edit_cell(full, "strict", "def strict(x):\n    return x"))
    submit(
        course,
        "slow",
        LESSON,
        edit_cell(full, "timed", "import time\ndef timed(x):\n    time.sleep(3)\n    return 2 * x"),
    )
    submit(course, "broken", LESSON, b"{ not a notebook")
    results = commands.grade(course, progress=False, workers=1)
    return course, results


def scores(course, student: str) -> dict:
    return gradebook.score_table(course)[(LESSON, student)]


@pytest.mark.parametrize("student", ["first", "second", "third"])
def test_a_patch_left_by_one_notebooks_tests_never_reaches_the_next(graded, student):
    course, results = graded
    assert results[(student, LESSON)] == "ok"
    assert scores(course, student) == FULL


def test_a_base_exception_from_a_test_fails_that_test_only(graded):
    course, results = graded
    assert results[("wrong", LESSON)] == "ok", "the notebook is graded"
    assert scores(course, "wrong") == {**FULL, "test_strict": 0.0}
    cell = _test_cell(course, "wrong", "strict")
    assert [o.get("ename") for o in cell.outputs if o.output_type == "error"] == ["Failed"]


def test_an_alarm_that_interrupts_a_call_fails_that_test_and_the_next_is_graded_right(graded):
    course, results = graded
    assert results[("slow", LESSON)] == "ok"
    assert scores(course, "slow") == {**FULL, "test_timed": 0.0}
    cell = _test_cell(course, "slow", "timed")
    assert any("took longer than 0.5 s" in o.get("evalue", "") for o in cell.outputs if o.output_type == "error")


def test_a_trailing_semicolon_shows_no_value(graded):
    course, _ = graded
    cell = _test_cell(course, "first", "mul")
    assert not [o for o in cell.outputs if o.output_type == "execute_result"], cell.outputs


def test_a_submission_that_cannot_be_graded_is_named_and_the_command_exits_1(graded):
    course, results = graded
    assert results[("broken", LESSON)] != "ok"
    assert [key for key, result in results.items() if result != "ok"] == [("broken", LESSON)]
    proc = subprocess.run(
        [sys.executable, "-m", "autograder", "grade"], cwd=course, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert f"not graded: broken/{LESSON}" in proc.stdout
    assert proc.stderr.strip().splitlines()[-1] == (
        f"autograder: 1 of {len(results)} submissions could not be graded (the 'not graded' lines above)"
    )


def _test_cell(course, student: str, item: str):
    nb = nbformat.read(course / "autograded" / student / LESSON / f"{LESSON}.ipynb", as_version=4)
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == f"test_{item}")
