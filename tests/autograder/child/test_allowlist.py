"""The allow-list of a probed call: what honest answers do passes, anything else ends the call and is reported.

The policy is checked on real frames here (a notebook's function, a library function it calls, a library
function that library calls), then in a guarded child, through a probe, with the notebook's code doing
each thing for real.
"""

from __future__ import annotations

import os
import sys

import pytest

from autograder.child import allowlist
from course.probes.evidence import library_prefixes
from tests.support.children import GuardedChild

LIBRARY = library_prefixes()
REFUSAL = allowlist.refusal_for(LIBRARY)
LIBRARY_FILE = os.path.join(os.path.dirname(os.__file__), "not_a_module.py")


def _define(source: str, filename: str, namespace: dict) -> None:
    exec(compile(source, filename, "exec"), namespace)


def _frames() -> dict:
    """Callables that each ask the policy about an event raised in their own frame: one in the notebook, a
    library function the notebook calls, a library function the notebook reaches through another, and a
    library function called by a probe's steps (library code, where the walk stops) with no notebook between."""
    ns: dict = {"REFUSAL": REFUSAL, "sys": sys}
    _define(
        "def deep(event, args, stop=None):\n    return REFUSAL(event, args, sys._getframe(), stop)\n"
        "def via(event, args, stop=None):\n    return deep(event, args, stop)\n"
        "def entry(event, args):\n    return REFUSAL(event, args, sys._getframe(), None)\n"
        "def steps(event, args):\n    return via(event, args, sys._getframe())\n",
        LIBRARY_FILE,
        ns,
    )
    _define(
        "def notebook(event, args):\n    return REFUSAL(event, args, sys._getframe(), None)\n"
        "def calls_entry(event, args):\n    return entry(event, args)\n"
        "def calls_deep(event, args):\n    return via(event, args)\n",
        "<ipython-input-1-0>",
        ns,
    )
    return {"notebook": ns["notebook"], "entry": ns["calls_entry"], "deep": ns["calls_deep"], "library": ns["steps"]}


FRAMES = _frames()


class Mine:
    pass


@pytest.mark.parametrize(
    "where, event, args, allowed",
    [
        ("notebook", "builtins.id", (1,), True),
        ("notebook", "time.sleep", (0.0,), True),
        ("notebook", "object.__setattr__", (Mine, "count", 1), True),
        ("notebook", "object.__getattr__", (len, "__code__"), True),
        ("notebook", "object.__getattr__", (None, "tb_frame"), False),
        ("deep", "object.__getattr__", (None, "tb_frame"), True),
        ("notebook", "import", ("scipy",), False),
        ("entry", "import", ("scipy",), False),
        ("deep", "import", ("torch.profiler",), True),
        ("notebook", "sys._getframe", (), False),
        ("entry", "sys._getframe", (), False),
        ("deep", "sys._getframe", (), True),
        ("deep", "open", ("/x", "r", os.O_RDONLY), True),
        ("deep", "open", ("/x", "w", os.O_WRONLY), False),
        ("deep", "open", ("/x", None, os.O_RDWR), False),
        ("notebook", "open", ("/x", "r", os.O_RDONLY), False),
        ("notebook", "compile", (b"x", "<string>"), False),
        ("deep", "compile", (b"x", "<string>"), True),
        ("deep", "object.__setattr__", (sys.modules["torch"].nn.Module, "__bases__", None), False),
        ("deep", "object.__setattr__", (sys.modules["torch"], "__class__", None), False),
        ("deep", "object.__setattr__", (sys.modules["tests"], "__class__", None), True),
        ("deep", "object.__setattr__", (_define, "__code__", None), False),
        ("notebook", "object.__setattr__", (int, "x", 1), False),
        ("deep", "subprocess.Popen", ("ls",), False),
        ("deep", "socket.connect", (None, ("127.0.0.1", 1)), False),
        ("notebook", "gc.get_objects", (), False),
        ("deep", "sys.settrace", (), False),
        ("notebook", "a.made.up.event", (), False),
        ("library", "subprocess.Popen", ("ls",), True),
        ("library", "sys.settrace", (), True),
    ],
)
def test_the_policy(where, event, args, allowed):
    reason = FRAMES[where](event, args)
    assert (reason is None) is allowed, reason
    if not allowed:
        assert reason.startswith("the notebook's code")


def test_standard_modules_that_read_their_callers_module_may():
    ns: dict = {"REFUSAL": REFUSAL, "sys": sys}
    reader = os.path.join(os.path.dirname(os.__file__), "collections", "__init__.py")
    _define("def namedtuple(event):\n    return REFUSAL(event, (), sys._getframe(), None)\n", reader, ns)
    _define("def honest(event):\n    return namedtuple(event)\n", "<ipython-input-2-0>", ns)
    assert ns["honest"]("sys._getframe") is None and ns["honest"]("exec") is None
    assert ns["honest"]("subprocess.Popen") is not None


def test_rebinding_the_modules_names_changes_nothing(monkeypatch):
    monkeypatch.setattr(allowlist, "ALLOWED_ANYWHERE", frozenset({"gc.get_objects"}))
    assert FRAMES["notebook"]("gc.get_objects", ()) is not None


DOING = """
import torch

def doing(x):
{body}
    return x.sum()
"""

PROBED = "import torch\nfrom course.probes.loops import count_python_lines\ncount_python_lines(doing, torch.ones(4))"


@pytest.fixture(scope="module")
def child():
    c = GuardedChild()
    yield c
    c.close()


def _probed(child, body: str, setup: str = ""):
    """Define `doing` in the child's notebook (after `setup`), then probe it from a test cell."""
    from autograder.judge.verdict import run_test

    indented = "\n".join("    " + line for line in body.splitlines())
    assert child.run_cell(setup + DOING.format(body=indented))[0]["status"] == "ok"
    return run_test(PROBED, child.conn)


@pytest.mark.process
@pytest.mark.parametrize(
    "body",
    [
        "import sys\nsys._getframe(1)",
        "import inspect\ninspect.currentframe()",
        "import gc\ngc.get_referrers(x)",
        "import subprocess\nsubprocess.run(['true'])",
        "import socket\nsocket.socket().connect(('127.0.0.1', 9))",
        "open('/tmp/allowlist-probe.txt', 'w').close()",
        "exec('y = 1')",
        "import xml.dom.minidom",
        "torch.nn.Module.__qualname__ = 'Module'",
        "import numpy\nnumpy.__class__ = type('M', (type(numpy),), {})",
        "doing.__code__ = doing.__code__",
        "import sys\nsys.audit('my.own.event')",
    ],
)
def test_a_probed_call_that_does_what_no_tensor_function_needs_is_refused(child, body):
    verdict = _probed(child, body)
    assert not verdict.passed and verdict.tampering, (body, verdict.ename, verdict.evalue)
    assert any("while a probe called it" in t for t in verdict.tampering), verdict.tampering


@pytest.mark.process
@pytest.mark.parametrize(
    "setup, body",
    [
        ("", "import logging\nlogging.getLogger('mine').warning('a line %d', 1)"),
        ("", "import warnings\nwarnings.warn('careful', UserWarning)"),
        ("", "print('working', id(x))"),
        ("", "import collections\ncollections.namedtuple('Pair', 'a b')(1, 2)"),
        ("", "import dataclasses\ndataclasses.make_dataclass('Box', ['v'])(1)"),
        ("", "import torch.nn.functional as F\nF.relu(x)"),
        ("", "import traceback\ntry:\n    1 / 0\nexcept ZeroDivisionError:\n    traceback.format_exc()"),
        ("class Counter:\n    calls = 0\n", "Counter.calls += 1"),
        ("import functools\n@functools.lru_cache\ndef sq(n):\n    return n * n\n", "sq(3)"),
        ("", "with torch.no_grad():\n    (x * 2).sum()"),
    ],
)
def test_what_honest_answers_do_in_a_probed_call_passes(child, setup, body):
    verdict = _probed(child, body, setup)
    assert verdict.passed and not verdict.tampering, (body, verdict.ename, verdict.evalue, verdict.tampering)
