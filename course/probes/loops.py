"""Probes for "no Python loop over N": how much work a call does, counted two ways at once.

The Python lines the notebook's own code runs (code compiled from the notebook, and code it generates;
not PyTorch's or NumPy's own Python code), and the tensor operations that reach PyTorch's dispatcher,
whoever calls them: a loop over the elements of a tensor shows as lines, or operations, or both, that
grow with its size; a vectorized version as counts that do not. A loop driven from C (`map`,
`itertools`) over a tensor's elements runs no line of the notebook's, but each element it touches is an
operation. Tests call the probe at a size N and at 8N, compare both counts, and check the counted call's
result as well: the call that is counted is the one that must be right.
"""

from __future__ import annotations

from typing import Any

from course.checks import fail
from course.probes import EvidenceError, check_received, expect, probe, sealed
from course.probes.core import received
from course.probes.steps import Step


@sealed
def counted(snaps: Any, result: Any, lines: Any, ops: Any) -> dict:
    return {
        "result": snaps.snap(result),
        "lines": lines if type(lines) is int else -1,
        "ops": ops if type(ops) is int else -1,
    }


@probe
def count_python_lines(step: Any, func: Any, *args: Any, **kwargs: Any) -> None:
    """Call `func(*args, **kwargs)`; returns (result, Python lines the notebook's code ran during the call,
    tensor operations dispatched during the call)."""
    step(Step.SEAL, received, args, kwargs)
    step(Step.COUNT)
    try:
        result = func(*args, **kwargs)
    finally:
        lines, ops = step(Step.LINES)
    step(Step.SEAL, counted, result, lines, ops)


@count_python_lines.reading
def _(evidence: list, func: Any, *args: Any, **kwargs: Any) -> tuple[Any, int, int]:
    _, after = expect(evidence, 2)
    check_received(evidence, args, kwargs)
    if after["lines"] < 0 or after["ops"] < 0:
        raise EvidenceError("the probe's counts were not numbers")
    return after["result"], after["lines"], after["ops"]


def check_constant_work(small: tuple, large: tuple, *, item: str, sizes: tuple[int, int], unit: str) -> None:
    """`count_python_lines` reports at N and 8N (`sizes`): each count may grow by less than N.

    A loop over the N items costs at least one Python line or one tensor operation per item, so 8N
    items cost 7N more; what a vectorized answer runs does not depend on N at all.
    """
    (_, lines_small, ops_small), (_, lines_large, ops_large) = small, large
    few, many = sizes
    if not lines_large < lines_small + few:
        fail(
            f"Expected {item} to run about as many Python lines for {many} {unit} as for {few} (no Python loop "
            f"over the {unit}), but it ran {lines_small} lines for {few} and {lines_large} for {many}."
        )
    if not ops_large < ops_small + few:
        fail(
            f"Expected {item} to run about as many tensor operations for {many} {unit} as for {few} (operations on "
            f"whole tensors, not one per element, even in a loop that runs no Python line such as map), but it ran "
            f"{ops_small} operations for {few} and {ops_large} for {many}."
        )
