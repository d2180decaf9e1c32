"""Probes for lesson 06 (autograd): functions and models that cannot cross into the sandbox.

A judge cannot send a Python function or a model to the student's process, so these probes pick the
function by name from `NAMED_FUNCTIONS` and build the model from a seed with `build_model`. Both are
plain module-level code: the judge builds the same things itself, checks that the probe got exactly
those, and computes its own reference values.
"""

from __future__ import annotations

from typing import Any, Callable

import torch
from torch import nn

from course.probes import check_built, check_received, expect, probe, sealed
from course.probes.core import after_call, changed_arguments, received
from course.probes.evidence import same


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
def grad_of_named(step: Any, grad_of: Any, name: str, x: torch.Tensor) -> None:
    """Call `grad_of(f, x)` with the function called `name`; returns (its result, whether x changed).

    A change of x is any difference in its values, dtype, shape, requires_grad or .grad.
    """
    step("seal", received, (x,), {})
    result = grad_of(NAMED_FUNCTIONS[name], x)
    step("seal", after_call, result, (x,), {})


@grad_of_named.reading
def _(evidence: list, grad_of: Any, name: str, x: torch.Tensor) -> tuple[Any, bool]:
    before, after = expect(evidence, 2)
    check_received(evidence, (x,), {})
    return after["result"], bool(changed_arguments(before, after))


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


@sealed
def model_state(snaps: Any, params: list, inputs: tuple) -> dict:
    """Parameters (values and .grad), inputs, and whether gradient recording is on."""
    return {"params": snaps.snap(params), "inputs": snaps.snap(inputs), "grad_enabled": snaps.grad_enabled()}


@sealed
def model_output(snaps: Any, output: Any, params: list, inputs: tuple) -> dict:
    return {"output": snaps.snap(output), **model_state(snaps, params, inputs)}


@probe
def predict_probe(
    step: Any,
    predict: Any,
    seed: int,
    in_features: int,
    out_features: int,
    x: torch.Tensor,
    hidden: int = 0,
    preset_grads: bool = False,
) -> None:
    """Build `build_model(seed, ...)` on x's device and dtype, call `predict(model, x)`, and report.

    Returns a dict: "output" (what predict returned), "graph_recorded" (whether any tensor was saved
    for a backward pass during the call, the memory a graph holds on to), "grads_touched" (whether any
    parameter's .grad changed; with `preset_grads` every .grad starts at 0.25, else at None),
    "weights_changed", "x_changed", and "grad_mode_restored" (whether gradient recording is switched
    on and off as it was before the call; the probe restores it either way).
    """
    model = _predict_model(seed, in_features, out_features, hidden, x, preset_grads)
    params = list(model.parameters())
    step("seal", model_state, params, (x,))
    mode = torch.is_grad_enabled()
    step("witness")
    try:
        output = predict(model, x)
        step("seal", model_output, output, params, (x,))
    finally:
        torch.set_grad_enabled(mode)


def _predict_model(seed: int, in_features: int, out_features: int, hidden: int, x: torch.Tensor, preset_grads: bool) -> nn.Module:
    built = build_model(seed, in_features, out_features, hidden, device=x.device, dtype=x.dtype)
    for p in built.parameters() if preset_grads else ():
        p.grad = torch.full_like(p, 0.25)
    return built


def _values(tensors: list) -> list:
    return [t.detach() for t in tensors]


def _grads(tensors: list) -> list:
    return [t.grad for t in tensors]


@predict_probe.reading
def _(evidence: list, predict: Any, seed: int, in_features: int, out_features: int, x: torch.Tensor, hidden: int = 0,
      preset_grads: bool = False) -> dict[str, Any]:
    before, after = expect(evidence, 2)
    own = _predict_model(seed, in_features, out_features, hidden, x.detach(), preset_grads)
    check_built(evidence, lambda: same(_values(list(own.parameters())), _values(before["params"])), "model")
    check_received(evidence[:1] and [{"value": {"args": before["inputs"], "kwargs": {}}}], (x,), {})
    return {
        "output": after["output"],
        "graph_recorded": bool(evidence[1].get("saved_tensors", 0)),
        "grads_touched": not same(_grads(before["params"]), _grads(after["params"])),
        "weights_changed": not same(_values(before["params"]), _values(after["params"])),
        "x_changed": not same(before["inputs"], after["inputs"]),
        "grad_mode_restored": after["grad_enabled"] == before["grad_enabled"],
    }
