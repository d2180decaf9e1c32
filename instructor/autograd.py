"""References for the autograd lesson's hidden tests: gradients measured without autograd."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import torch

from course.checks import fmt_shape, type_name, check_tensor, check_true, fail


def check_grad_by_finite_differences(
    found: Any,
    f: Callable[[torch.Tensor], Any],
    x: torch.Tensor,
    *,
    what: str = "the gradient",
    eps: float = 1e-6,
    atol: float = 1e-4,
    rtol: float = 1e-3,
) -> None:
    """`found` must match the slopes of the scalar function `f` at `x`, measured by nudging each entry.

    Each entry of x is moved by +eps and -eps (central differences, in float64 on the CPU, so `f`
    must accept such a tensor) and the change of f divided by 2 * eps is compared with `found`.
    """
    if not isinstance(found, torch.Tensor):
        fail(f"Expected {what} to be a torch.Tensor, but found a {type_name(found)}: {found!r:.200}.")
    if tuple(found.shape) != tuple(x.shape):
        fail(f"Expected {what} to have x's shape {fmt_shape(x.shape)}, but found shape {fmt_shape(found.shape)}.")
    flat = x.detach().to("cpu", torch.float64).reshape(-1)
    slopes = torch.empty_like(flat)
    with torch.no_grad():
        for i in range(flat.numel()):
            up, down = flat.clone(), flat.clone()
            up[i] += eps
            down[i] -= eps
            slopes[i] = (float(f(up.reshape(x.shape))) - float(f(down.reshape(x.shape)))) / (2 * eps)
    mine = found.detach().to("cpu", torch.float64).reshape(-1)
    close = torch.isclose(mine, slopes, atol=atol, rtol=rtol)
    if not bool(close.all()):
        i = int((~close).nonzero()[0])
        index = tuple(int(v) for v in np.unravel_index(i, tuple(x.shape)))
        fail(
            f"Expected {what} to match the slopes measured by nudging each entry of x by ±{eps:g} "
            f"(finite differences), but {int((~close).sum())} of {close.numel()} entries differ; "
            f"first at index {index}: the nudge gives {float(slopes[i]):.6g}, found {float(mine[i]):.6g}."
        )


def tanh_layer_products(x: torch.Tensor, w: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(grad_x, grad_w) of y = tanh(x @ w) with the output gradient v, by the chain rule in float64.

    With g = v * (1 - y ** 2) (the slope of tanh is 1 - tanh ** 2), grad_x = g @ w.T and grad_w = x.T @ g;
    both come back in x's dtype and on its device.
    """
    a, b, c = (t.detach().to(torch.float64) for t in (x, w, v))
    y = torch.tanh(a @ b)
    g = c * (1 - y * y)
    return (g @ b.T).to(x.dtype), (a.T @ g).to(x.dtype)


def softmax_and_vjp(x: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Softmax over the last dimension of x (computed in float64, returned in x's dtype), and its
    vector-Jacobian product with v: p * (v - (p * v).sum(-1)), the same formula in float64."""
    p = torch.softmax(x.detach().to(torch.float64), dim=-1)
    grad = p * (v.detach().to(torch.float64) - (p * v.detach().to(torch.float64)).sum(dim=-1, keepdim=True))
    return p.to(x.dtype), grad.to(x.dtype)


def check_backward_report(
    report: dict,
    x: torch.Tensor,
    output: torch.Tensor,
    grad: torch.Tensor,
    *,
    item: str,
    label: str,
    atol: float = 1e-6,
    grad_note: str = "",
    hint: str = "",
) -> None:
    """What a `backward_through` report of `item` at x must show: the output (requiring grad exactly when x
    does), x left as it was, and, when x requires grad, a backward pass that reaches x with `grad`."""
    check_tensor(report["output"], output, what=f"{item}(x) for {label}", requires_grad=x.requires_grad, atol=atol)
    check_true(
        not report["x_changed"],
        f"Expected {item} to leave x as it was for {label} (values, requires_grad and .grad; "
        f"measured in your process), but x changed.{hint}",
    )
    if not x.requires_grad:
        return
    if report["error"] is not None:
        fail(
            f"Expected a backward pass from {item}(x) to reach x for {label}, but it gave no gradient: {report['error']}"
        )
    check_tensor(
        report["grad"], grad, what=f"the gradient that reaches x for {label}{grad_note}", requires_grad=False, atol=atol
    )
