"""Probes for "no Python loop over N": how many Python lines the notebook's own code runs in a call.

The count covers code compiled from the notebook (cells, and code they generate), not PyTorch's or
NumPy's own Python code: a loop over the elements of a tensor shows as lines that grow with its size,
a vectorized version as a count that does not. Tests call the probe at a size N and at 8N and compare.
"""

from __future__ import annotations

from typing import Any

from course.probes import check_received, expect, probe, sealed
from course.probes.core import received


@sealed
def counted(snaps: Any, result: Any, lines: Any) -> dict:
    return {"result": snaps.snap(result), "lines": lines if type(lines) is int else -1}


@probe
def count_python_lines(step: Any, func: Any, *args: Any, **kwargs: Any) -> None:
    """Call `func(*args, **kwargs)`; returns (result, Python lines the notebook's code ran during the call)."""
    step("seal", received, args, kwargs)
    step("count")
    try:
        result = func(*args, **kwargs)
    finally:
        lines = step("lines")
    step("seal", counted, result, lines)


@count_python_lines.reading
def _(evidence: list, func: Any, *args: Any, **kwargs: Any) -> tuple[Any, int]:
    before, after = expect(evidence, 2)
    check_received(evidence, args, kwargs)
    return after["result"], after["lines"]
