"""The judge: free names, proxies into a live child, exceptions, probes, and no credit for lying objects."""

from __future__ import annotations

import time

import pytest

from autograder.judge import connection
from autograder.judge.verdict import Verdict, free_names, run_test
from tests.support.children import GuardedChild

STUDENT = """
import os
import numpy as np
import torch

def double(x):
    return x * 2

def shout(msg):
    print("student says", msg)
    return msg.upper()

def boom(kind):
    if kind == "value":
        raise ValueError("bad value")
    class Weird(Exception):
        pass
    raise Weird("weird thing")

def die():
    os._exit(3)

def spin():
    while True:
        pass

class Box:
    size = 3
    def __init__(self):
        self.items = [1, 2, 3]
    def __len__(self):
        return len(self.items)
    def __iter__(self):
        return iter(self.items)
    def __getitem__(self, i):
        return self.items[i] * 10
    def total(self):
        return sum(self.items)

box = Box()

class Always:
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False

always = Always()
answer = (2, 3)

def in_place(t):
    t.add_(1)
    return t
"""


class Child(GuardedChild):
    """A guarded child holding STUDENT's names, for the judge to test against."""

    def __init__(self):
        super().__init__(setup=STUDENT)

    def run(self, source: str, *, timeout: float = 60) -> Verdict:
        self.deadline = time.monotonic() + timeout
        return run_test(source, self.conn)


@pytest.fixture(scope="module")
def child():
    c = Child()
    yield c
    c.close()


@pytest.fixture
def fresh_child():
    c = Child()
    yield c
    c.close()


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import numpy as np\nx = f(np.zeros(2))\nprint(x, len)", ["f"]),
        ("from a import b\nb(c)\nfor i in range(3):\n    d = i\nprint(d, e)", ["c", "e"]),
        ("def g(v):\n    return v + h\n[w for w in k]\nlambda: m", ["h", "k", "m"]),
        ("class C:\n    pass\ntry:\n    pass\nexcept Exception as err:\n    print(err)", []),
        ("x = 1\nx", []),
    ],
)
def test_free_names(source, expected):
    assert sorted(free_names(source)) == sorted(expected)


@pytest.mark.process
def test_values_come_back_as_data(child):
    verdict = child.run(
        "import numpy as np, torch\n"
        "a = double(np.arange(3)[::-1])\n"
        "assert type(a) is np.ndarray and a.tolist() == [4, 2, 0]\n"
        "t = double(torch.ones(2, 3).T)\n"
        "assert type(t) is torch.Tensor and t.shape == (3, 2) and bool((t == 2).all())\n"
        "assert answer == (2, 3) and type(answer) is tuple\n"
        "print(shout('hi'))\n"
    )
    assert verdict.passed, verdict
    text = "".join(o.get("text", "") for o in verdict.outputs)
    assert "student says hi" in text and "HI" in text


@pytest.mark.process
def test_objects_come_back_as_proxies(child):
    verdict = child.run(
        "assert box.size == 3\n"
        "assert len(box) == 3 and list(box) == [1, 2, 3] and box[1] == 20\n"
        "assert box.total() == 6 and bool(box)\n"
        "assert box.__sandbox_handle__ is not None\n"
        "assert 'Box' in repr(box)\n"
        "assert box == box and box != box.items\n"
    )
    assert verdict.passed, verdict


@pytest.mark.process
def test_an_object_whose_eq_is_always_true_gets_no_credit(child):
    assert not child.run("assert always == 5").passed
    verdict = child.run("from course.checks import check_equal\ncheck_equal(always, (2, 3))")
    assert not verdict.passed and verdict.ename == "CheckFailed"


@pytest.mark.process
def test_exceptions_map_to_builtins_or_sandbox_errors(child):
    verdict = child.run("boom('value')")
    assert (verdict.passed, verdict.ename, verdict.evalue) == (False, "ValueError", "bad value")
    verdict = child.run(
        "from autograder.judge.connection import StudentError\n"
        "try:\n    boom('weird')\nexcept StudentError as exc:\n    assert type(exc).__name__ == 'Weird' and str(exc) == 'weird thing'\n"
        "else:\n    raise AssertionError('no error')\n"
    )
    assert verdict.passed, verdict
    assert child.run(
        "from course.checks import check_raises\ncheck_raises(ValueError, boom, 'value', what='boom')"
    ).passed


@pytest.mark.process
def test_a_missing_name_is_a_name_error(child):
    verdict = child.run("not_defined_anywhere(1)")
    assert (verdict.passed, verdict.ename) == (False, "NameError")


@pytest.mark.process
def test_judge_objects_cannot_be_passed_in(child):
    verdict = child.run("double(lambda: 1)")
    assert (verdict.passed, verdict.ename) == (False, "TypeError")


@pytest.mark.process
def test_probes_run_in_the_child(child):
    verdict = child.run(
        "import torch\n"
        "from course.probes.core import call_watching_inputs\n"
        "result, changed = call_watching_inputs(in_place, torch.zeros(2))\n"
        "assert changed == ['arg 0'], changed\n"
        "assert torch.equal(result, torch.ones(2))\n"
        "result, changed = call_watching_inputs(double, torch.zeros(2))\n"
        "assert changed == []\n"
    )
    assert verdict.passed, verdict


@pytest.mark.process
def test_a_call_that_kills_the_child_fails_the_item(fresh_child):
    verdict = fresh_child.run("die()")
    assert not verdict.passed and verdict.died and verdict.ename == "SandboxDied"
    again = fresh_child.run("assert double(2) == 4")
    assert not again.passed and again.died


@pytest.mark.process
def test_a_call_that_never_returns_fails_the_item(fresh_child):
    verdict = fresh_child.run("try:\n    spin()\nexcept BaseException:\n    pass", timeout=1)
    assert not verdict.passed and verdict.died and verdict.ename == "TimeoutError"


def test_exception_from_maps_names():
    assert type(connection.exception_from("KeyError", "k")) is KeyError
    assert isinstance(connection.exception_from("SystemExit", "x"), connection.StudentError)
    assert isinstance(connection.exception_from("StopIteration", "x"), connection.StudentError)
    assert type(connection.exception_from("CheckFailed", "x")).__name__ == "CheckFailed"
