"""References for the autograd lesson's hidden tests: gradients measured without autograd."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import torch

from course.checks import _fmt_shape, _type_name, fail


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
        fail(f"Expected {what} to be a torch.Tensor, but found a {_type_name(found)}: {found!r:.200}.")
    if tuple(found.shape) != tuple(x.shape):
        fail(f"Expected {what} to have x's shape {_fmt_shape(x.shape)}, but found shape {_fmt_shape(found.shape)}.")
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
