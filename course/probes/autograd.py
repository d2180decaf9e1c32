"""Probes for lesson 06 (autograd): functions, models and graphs that cannot cross into the sandbox.

A judge cannot send a Python function or a model to the student's process, so these probes pick the
function by name from `NAMED_FUNCTIONS` and build models from a seed (`build_model`, `build_stack`).
Both are plain module-level code: the judge builds the same things itself, checks that the probe got
exactly those, and computes its own reference values. Nor can a graph come back from the sandbox: a
result crosses as its values only, so `backward_through` runs the backward pass next to the student's
code and sends the gradient it found.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import torch
import torch.autograd.functional
from torch import nn

from course.probes import EvidenceError, check_built, check_received, expect, probe, sealed
from course.probes.core import after_call, as_in_training, changed_arguments, received
from course.probes.evidence import same, tensor_meta, type_name
from course.probes.steps import Step


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
    step(Step.SEAL, received, (x,), {})
    result = grad_of(NAMED_FUNCTIONS[name], x)
    step(Step.SEAL, after_call, result, (x,), {})


_PEEK = torch._C._functorch.peek_interpreter_stack  # bound at import, before any student code exists
_GETFRAME = sys._getframe
_FUNCTIONAL_FILE = torch.autograd.functional.__file__
TORCH_FUNC = "torch.func (grad, grad_and_value, vjp, jacrev, jacfwd or hessian)"
AUTOGRAD_FUNCTIONAL = "torch.autograd.functional (jacobian, hessian, vjp, jvp, vhp or hvp)"
LIBRARY_GRADIENTS = (TORCH_FUNC, AUTOGRAD_FUNCTIONAL)
"""The calls that do grad_of's whole job, as the message names them."""


def _library_caller(peek: Any = _PEEK, getframe: Any = _GETFRAME, functional: str = _FUNCTIONAL_FILE) -> str:
    """Which library gradient is calling f right now: a torch.func transform, torch.autograd.functional, or ""."""
    if peek() is not None:
        return TORCH_FUNC
    frame = getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == functional:
            return AUTOGRAD_FUNCTIONAL
        frame = frame.f_back
    return ""


@sealed
def transform_calls(snaps: Any, calls: Any) -> dict:
    if type(calls) is not list:
        return {"calls": -1, "used": None}
    used = []
    for call in calls:
        if type(call) is str and call and call not in used:
            used.append(call)
    return {"calls": len(calls), "used": used}


@probe
def grad_of_under_transform(step: Any, grad_of: Any, name: str, x: torch.Tensor) -> None:
    """Call `grad_of(f, x)` with the function called `name`; returns the library gradients that called f.

    `torch.func.grad` and its kin (grad_and_value, vjp, jacrev, jacfwd, hessian) call f inside a
    functorch interpreter, which f sees on the interpreter stack; `torch.autograd.functional`
    (jacobian, hessian, vjp, ...) calls f from its own module, which f sees on the Python stack
    (code compiled under an installed file's name is the guard's to report). `torch.autograd.grad`
    does neither.
    """
    step(Step.SEAL, received, (x,), {})
    calls: list = []

    def watched(t: torch.Tensor, _f=NAMED_FUNCTIONS[name], _calls=calls, _caller=_library_caller) -> torch.Tensor:
        _calls.append(_caller())
        return _f(t)

    grad_of(watched, x)
    step(Step.SEAL, transform_calls, calls)


@grad_of_under_transform.reading
def _(evidence: list, grad_of: Any, name: str, x: torch.Tensor) -> list[str]:
    _, after = expect(evidence, 2)
    check_received(evidence, (x,), {})
    used = after.get("used")
    if type(used) is not list or not set(used) <= set(LIBRARY_GRADIENTS):
        raise EvidenceError("the transform watch sent no verdict")
    return used


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
    with as_in_training():
        model = _predict_model(seed, in_features, out_features, hidden, x, preset_grads)
        params = list(model.parameters())
        step(Step.SEAL, model_state, params, (x,))
        step(Step.WITNESS)
        output = predict(model, x)
        step(Step.SEAL, model_output, output, params, (x,))


def _predict_model(
    seed: int, in_features: int, out_features: int, hidden: int, x: torch.Tensor, preset_grads: bool
) -> nn.Module:
    built = build_model(seed, in_features, out_features, hidden, device=x.device, dtype=x.dtype)
    for p in built.parameters() if preset_grads else ():
        p.grad = torch.full_like(p, 0.25)
    return built


def _values(tensors: list) -> list:
    """Each tensor's values without its flags; anything else (an opaque stand-in) as it is."""
    return [t.detach() if isinstance(t, torch.Tensor) else t for t in tensors]


def _grads(tensors: list) -> list:
    return [t.grad if isinstance(t, torch.Tensor) else t for t in tensors]


@predict_probe.reading
def _(
    evidence: list,
    predict: Any,
    seed: int,
    in_features: int,
    out_features: int,
    x: torch.Tensor,
    hidden: int = 0,
    preset_grads: bool = False,
) -> dict[str, Any]:
    before, after = expect(evidence, 2)
    if before["grad_enabled"] is not True:
        raise EvidenceError("the probe called predict with gradient recording off")
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


_ENGINE = torch.autograd.Variable._execution_engine
_RUN_BACKWARD = type(_ENGINE).run_backward  # the C engine, bound before any notebook code exists


def _vector_jacobian_product(
    out: Any,
    x: Any,
    v: Any,
    *,
    _run=_RUN_BACKWARD,
    _engine=_ENGINE,
    _type=type,
    _tensor=torch.Tensor,
    _meta=tensor_meta,
    _name=type_name,
    _str=str,
) -> tuple[Any, str | None]:
    """(the gradient at x of out with the output gradient v, None), or (None, why there is none).

    The C engine is called directly, so a notebook that patches `torch.autograd` cannot change what
    runs here; only the graph the student's code built does. Nothing is accumulated into x.grad.
    """
    if _type(out) is not _tensor:
        return None, f"backward was not run: the result is a {_name(out)}, not a torch.Tensor"
    found, wanted = _meta(out), _meta(v)
    for key in ("shape", "dtype", "device"):
        if found[key] != wanted[key]:
            return (
                None,
                f"backward was not run: the result's {key} is {found[key]}, not {wanted[key]} like the output gradient's",
            )
    try:
        (grad,) = _run(_engine, (out,), (v,), False, False, (x,), False, False)
    except Exception as exc:  # the student's graph may fail in any way: that is the finding
        return None, f"{_name(exc).rpartition('.')[2]}: {_str(exc)[:600]}"
    return grad, None


@sealed
def gradient_found(snaps: Any, grad: Any, error: Any) -> dict:
    return {"grad": snaps.snap(grad), "error": snaps.snap(error)}


@probe
def backward_through(step: Any, func: Any, x: torch.Tensor, v: torch.Tensor) -> None:
    """Call `func(x)`, then run a backward pass from its result with the output gradient `v`.

    Returns a dict: "output" (what func returned), "grad" (the gradient that reached x, as
    `torch.autograd.grad(output, x, grad_outputs=v)` gives it, or None), "error" (why there is no
    gradient: the backward pass raised, or the result is not a tensor of v's shape, dtype and
    device; None when there is one), "x_changed" (any difference in x's values, dtype, shape,
    requires_grad or .grad after the call). When x does not require grad no backward pass is run.
    """
    step(Step.SEAL, received, (x, v), {})
    wanted = tensor_meta(x)["requires_grad"]
    out = func(x)
    step(Step.SEAL, after_call, out, (x, v), {})
    if wanted:
        step(Step.SEAL, gradient_found, *_vector_jacobian_product(out, x, v))


@backward_through.reading
def _(evidence: list, func: Any, x: torch.Tensor, v: torch.Tensor) -> dict[str, Any]:
    wanted = x.requires_grad
    if evidence and evidence[0].get("local"):  # the steps got the test's own x, which the call may have changed since
        wanted = evidence[0]["value"]["args"][0].requires_grad
    before, after, *taken = expect(evidence, 3 if wanted else 2)
    check_received(evidence, (x, v), {})
    found = taken[0] if taken else {"grad": None, "error": None}
    return {
        "output": after["result"],
        "grad": found["grad"],
        "error": found["error"],
        "x_changed": not same(before["args"][0], after["args"][0]),
    }


FROZEN_BEFORE = ("none", "all", "head", "first")


def build_stack(
    seed: int,
    sizes: list[int],
    *,
    layer_norm: bool = False,
    head_bias: bool = True,
    frozen_before: str = "none",
    device: str | torch.device = "cpu",
    dtype: torch.dtype = torch.float32,
) -> nn.Sequential:
    """Linear, Tanh (and LayerNorm) for each hidden size in `sizes`, then a last Linear: `model[-1]`.

    The same arguments give the same weights in any process, and the global random state is left as
    it was. `frozen_before` sets which parameters are frozen (requires_grad False) when it is handed
    over: "none", "all", "head" (the last layer's) or "first" (the first layer's).
    """
    if frozen_before not in FROZEN_BEFORE:
        raise ValueError(f"frozen_before must be one of {FROZEN_BEFORE}, not {frozen_before!r}")
    if len(sizes) < 2:
        raise ValueError(f"sizes needs an input and an output size at least, not {sizes!r}")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        layers: list[nn.Module] = []
        for a, b in zip(sizes[:-2], sizes[1:-1]):
            layers += [nn.Linear(a, b), nn.Tanh()] + ([nn.LayerNorm(b)] if layer_norm else [])
        layers.append(nn.Linear(sizes[-2], sizes[-1], bias=head_bias))
        model = nn.Sequential(*layers)
    frozen = {"none": [], "all": [model], "head": [model[-1]], "first": [model[0]]}[frozen_before]
    for part in frozen:
        part.requires_grad_(False)
    return model.to(device=device, dtype=dtype)


@probe
def freeze_probe(step: Any, freeze: Any, seed: int, sizes: list[int], **options: Any) -> None:
    """Build `build_stack(seed, sizes, **options)`, call `freeze(model)`, and report what it left.

    Returns a dict: "result" (what freeze returned), "names" (each parameter's name, as
    `model.named_parameters()` gives it), "requires_grad" (each parameter's flag after the call, in the
    same order; None for a parameter that is no longer a plain tensor), "values_changed" and
    "grads_changed" (whether any parameter's values or .grad differ from before the call). The
    parameters are the ones the model held when it was handed over.
    """
    model = build_stack(seed, sizes, **options)
    params = list(model.parameters())
    step(Step.SEAL, model_state, params, ())
    result = freeze(model)
    step(Step.SEAL, model_output, result, params, ())


@freeze_probe.reading
def _(evidence: list, freeze: Any, seed: int, sizes: list[int], **options: Any) -> dict[str, Any]:
    before, after = expect(evidence, 2)
    own = build_stack(seed, sizes, **options)
    names = [name for name, _ in own.named_parameters()]
    flags = [p.requires_grad for p in own.parameters()]
    check_built(
        evidence,
        lambda: (
            same(_values(list(own.parameters())), _values(before["params"]))
            and flags == [p.requires_grad for p in before["params"]]
        ),
        "model",
    )
    return {
        "result": after["output"],
        "names": names,
        "requires_grad": [p.requires_grad if isinstance(p, torch.Tensor) else None for p in after["params"]],
        "values_changed": not same(_values(before["params"]), _values(after["params"])),
        "grads_changed": not same(_grads(before["params"]), _grads(after["params"])),
    }
