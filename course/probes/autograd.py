"""Probes for lesson 06 (autograd): functions and models that cannot cross into the sandbox.

A judge cannot send a Python function or a model to the student's process, so these probes pick the
function by name from `NAMED_FUNCTIONS` and build the model from a seed with `build_model`. Both are
plain module-level code: the judge imports the same names and computes its own reference values.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import torch
from torch import nn

from course.probes import probe
from course.probes.core import call_watching_inputs


def _sum_of_squares(x: torch.Tensor) -> torch.Tensor:
    return (x * x).sum()


def _sin_sum(x: torch.Tensor) -> torch.Tensor:
    return torch.sin(x).sum()


def _quadratic_form(x: torch.Tensor) -> torch.Tensor:
    """v @ A @ v with a fixed, non-symmetric A, so the gradient is (A + A.T) @ v."""
    v = x.reshape(-1)
    n = v.numel()
    a = torch.arange(n * n, dtype=x.dtype, device=x.device).reshape(n, n) / max(n * n, 1) - 0.5
    return v @ a @ v


def _cube_minus_square(x: torch.Tensor) -> torch.Tensor:
    return (x**3 - 2 * x**2).sum()


def _chain_with_inplace(x: torch.Tensor) -> torch.Tensor:
    """An in-place step on an intermediate result, which autograd handles."""
    y = x * 1.5
    y.add_(1.0)
    return (y * torch.exp(-y * y)).sum()


NAMED_FUNCTIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "sum_of_squares": _sum_of_squares,
    "sin_sum": _sin_sum,
    "quadratic_form": _quadratic_form,
    "cube_minus_square": _cube_minus_square,
    "chain_with_inplace": _chain_with_inplace,
}


@probe
def grad_of_named(grad_of: Any, name: str, x: torch.Tensor) -> tuple[Any, bool]:
    """Call `grad_of(f, x)` with the function called `name`; returns (its result, whether x changed).

    A change of x is any difference in its values, dtype, shape, requires_grad or .grad.
    """
    result, changed = call_watching_inputs(grad_of, NAMED_FUNCTIONS[name], x)
    return result, "arg 1" in changed


def build_model(
    seed: int,
    in_features: int,
    out_features: int,
    hidden: int = 0,
    *,
    device: str | torch.device = "cpu",
    dtype: torch.dtype = torch.float32,
) -> nn.Module:
    """The model the predict tests use: the same arguments give the same weights in any process.

    The global random state is left as it was, so building a model does not disturb the caller.
    """
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        if hidden:
            model = nn.Sequential(nn.Linear(in_features, hidden), nn.Tanh(), nn.Linear(hidden, out_features))
        else:
            model = nn.Linear(in_features, out_features)
    return model.to(device=device, dtype=dtype)


@probe
def predict_probe(
    predict: Any,
    seed: int,
    in_features: int,
    out_features: int,
    x: torch.Tensor,
    hidden: int = 0,
    preset_grads: bool = False,
) -> dict[str, Any]:
    """Build `build_model(seed, ...)` on x's device and dtype, call `predict(model, x)`, and report.

    Returns a dict: "output" (what predict returned), "graph_recorded" (whether any tensor was saved
    for a backward pass during the call, the memory a graph holds on to), "grads_touched" (whether any
    parameter's .grad changed; with `preset_grads` every .grad starts at 0.25, else at None),
    "weights_changed", "x_changed", and "grad_mode_restored" (whether gradient recording is switched
    on and off as it was before the call; the probe restores it either way).
    """
    model = build_model(seed, in_features, out_features, hidden, device=x.device, dtype=x.dtype)
    if preset_grads:
        for p in model.parameters():
            p.grad = torch.full_like(p, 0.25)
    grads_before = [None if p.grad is None else p.grad.detach().clone() for p in model.parameters()]
    weights_before = [p.detach().clone() for p in model.parameters()]
    saved = []

    def pack(t: torch.Tensor) -> torch.Tensor:
        saved.append(1)
        return t

    mode_before = torch.is_grad_enabled()
    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            output, changed = call_watching_inputs(functools.partial(predict, model), x)
        mode_after = torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(mode_before)

    def same(a: torch.Tensor | None, b: torch.Tensor | None) -> bool:
        return (a is None and b is None) or (a is not None and b is not None and torch.equal(a, b))

    params = list(model.parameters())
    return {
        "output": output,
        "graph_recorded": bool(saved),
        "grads_touched": not all(same(before, p.grad) for before, p in zip(grads_before, params)),
        "weights_changed": not all(torch.equal(before, p.detach()) for before, p in zip(weights_before, params)),
        "x_changed": "arg 0" in changed,
        "grad_mode_restored": mode_after == mode_before,
    }
