"""Inputs and references for the pipeline lesson's hidden tests.

`checkpoint_bytes` writes a checkpoint as `torch.save` would on the device named, so a machine
without a GPU can hand out a file "written on cuda:0": the location tag is what a loader sees, and
it is all that differs between such a file and one written on the CPU.
"""

from __future__ import annotations

import io
from typing import Any

import torch

_TAG: list[str | None] = [None]


def _tag(storage: Any) -> str | None:
    return _TAG[0]


def _untagged(storage: Any, location: str) -> None:
    return None


torch.serialization.register_package(0, _tag, _untagged)


def checkpoint_bytes(obj: Any, *, saved_on: str) -> bytes:
    """`torch.save(obj)` as bytes, every tensor marked as saved on `saved_on` ("cpu", "cuda:0", ...)."""
    buffer = io.BytesIO()
    _TAG[0] = None if saved_on == "cpu" else saved_on
    try:
        torch.save(obj, buffer)
    finally:
        _TAG[0] = None
    return buffer.getvalue()


def classification_data(
    n: int, features: int, classes: int, *, seed: int, separable: bool = False
) -> tuple[torch.Tensor, torch.Tensor]:
    """`n` float32 points with `features` coordinates and int64 labels in [0, classes), the same for one seed.

    With `separable`, each class sits around its own centre, far apart, so a linear model learns it.
    """
    generator = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, classes, (n,), generator=generator)
    points = torch.randn(n, features, generator=generator)
    if separable:
        centres = 4.0 * torch.randn(classes, features, generator=generator)
        points = centres[labels] + 0.3 * points
    return points, labels


def linear_reference(weight: torch.Tensor, bias: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """`x @ weight.T + bias` in float32 on the CPU, from the inputs' values rounded to bfloat16, on x's device."""
    w, b, inputs = (t.detach().to("cpu", torch.bfloat16).float() for t in (weight, bias, x))
    return (inputs @ w.T + b).to(x.device)
