"""The probe step protocol is declared once (`course.probes.steps.Step`) and served whole on both sides: the
guard in a sandboxed child and `run_locally` in the student's kernel each handle every step, and nothing else."""

from __future__ import annotations

import ast
import inspect
import textwrap

import pytest
import torch

from autograder.child import guard
from course import probes
from course.probes.steps import Step


def served(source: str, function: str) -> set[str]:
    """The steps a function's `command == <...>.NAME` branches serve."""
    tree = ast.parse(textwrap.dedent(source))
    body = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function)
    found = set()
    for node in ast.walk(body):
        if (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Name)
            and node.left.id == "command"
            and isinstance(node.comparators[0], ast.Attribute)
        ):
            found.add(node.comparators[0].attr)
    return found


def test_the_guard_serves_every_step():
    assert served(inspect.getsource(guard.install), "sealer") == set(Step.__members__)


def test_the_students_kernel_serves_every_step():
    local = probes.LocalSteps()
    assert all(callable(getattr(local, step.name.lower(), None)) for step in Step)


def test_the_check_sees_a_step_left_out():
    source = "def step(command):\n    if command == Step.SEAL:\n        pass\n"
    assert served(source, "step") == {"SEAL"} != set(Step.__members__)


def test_every_step_runs_in_the_students_kernel_and_an_unknown_one_is_refused():
    def steps(step, func):
        step(Step.WITNESS)
        step(Step.COUNT)
        func()
        lines, ops = step(Step.LINES)
        step(Step.OPS, ("aten::add",))
        func()
        seen = step(Step.OPS_SEEN)
        step(Step.SEAL, lambda snaps, *values: {"values": snaps.snap(list(values))}, lines, ops, seen)

    evidence = probes.run_locally(steps, lambda: torch.ones(2) + 1, (), {})
    lines, ops, seen = evidence[0]["value"]["values"]
    assert lines == 1 and ops >= 1 and seen == ["aten::add"]
    with pytest.raises(ValueError, match="unknown probe command"):
        probes.run_locally(lambda step, func: step("sealed"), None, (), {})


def test_steps_are_plain_strings_on_every_side():
    assert all(type(step.value) is str and step == step.value for step in Step)
    assert len({step.value for step in Step}) == len(Step)
