"""General probes: did the call change its inputs, does the result share memory with an input."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import torch

from course.probes import probe


def _snapshot(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        grad = None if value.grad is None else value.grad.detach().clone()
        data = value.detach().clone() if value.device.type != "meta" else None
        return ("tensor", data, value.dtype, tuple(value.shape), value.requires_grad, grad)
    if isinstance(value, np.ndarray):
        return ("array", value.copy(), value.dtype, value.shape)
    if isinstance(value, dict):
        return ("dict", type(value), [(k, _snapshot(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return ("seq", type(value), [_snapshot(v) for v in value])
    return ("other", copy.deepcopy(value))


def _same(a: Any, b: Any) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "tensor":
        if a[2:5] != b[2:5]:
            return False
        if (a[1] is None) != (b[1] is None) or (a[5] is None) != (b[5] is None):
            return False
        if a[1] is not None and not torch.equal(a[1], b[1]):
            return a[1].is_floating_point() and bool(torch.isnan(a[1]).any()) and torch.allclose(a[1], b[1], equal_nan=True)
        return a[5] is None or torch.equal(a[5], b[5])
    if a[0] == "array":
        return a[2] == b[2] and a[3] == b[3] and np.array_equal(a[1], b[1], equal_nan=a[1].dtype.kind in "fc")
    if a[0] == "dict":
        return a[1] is b[1] and len(a[2]) == len(b[2]) and all(
            ka == kb and _same(va, vb) for (ka, va), (kb, vb) in zip(a[2], b[2])
        )
    if a[0] == "seq":
        return a[1] is b[1] and len(a[2]) == len(b[2]) and all(_same(x, y) for x, y in zip(a[2], b[2]))
    return a[1] == b[1]


@probe
def call_watching_inputs(func: Any, *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    """Call `func` and report which arguments it changed: (result, names of changed arguments).

    Arguments are named by position ("arg 0") or keyword. A change is any difference in values,
    dtype, shape, requires_grad, .grad, or container contents.
    """
    before = [_snapshot(a) for a in args]
    before_kw = {k: _snapshot(v) for k, v in kwargs.items()}
    result = func(*args, **kwargs)
    changed = [f"arg {i}" for i, a in enumerate(args) if not _same(before[i], _snapshot(a))]
    changed += [k for k, v in kwargs.items() if not _same(before_kw[k], _snapshot(v))]
    return result, changed


def _memory_of(value: Any) -> np.ndarray | None:
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, torch.Tensor) and value.device.type == "cpu" and not value.is_sparse:
        try:
            return value.detach().numpy()
        except (RuntimeError, TypeError):
            return None
    return None


@probe
def call_sharing_memory(func: Any, *args: Any, **kwargs: Any) -> tuple[Any, bool, bool]:
    """Call `func(*args)`; report (result, shares memory with args[0], a write to args[0] shows in it).

    The second flag asks whether the result's buffer overlaps the first argument's; the third makes a
    real write to the first argument (on a copy of the result taken before) and looks for it in the
    result, then restores the argument.
    """
    source = args[0]
    result = func(*args, **kwargs)
    mine = _memory_of(source)
    theirs = _memory_of(result)
    if mine is None or theirs is None or mine.size == 0:
        return result, False, False
    overlaps = bool(np.shares_memory(mine, theirs))
    shows = False
    if mine.size and theirs.size and mine.shape == theirs.shape and mine.dtype.kind in "biuf":
        flat_before = theirs.copy()
        saved = mine.copy()
        try:
            mine[...] = (saved == 0).astype(mine.dtype) if mine.dtype.kind == "b" else saved + 1
            shows = not np.array_equal(theirs, flat_before)
        finally:
            mine[...] = saved
    return result, overlaps, shows
