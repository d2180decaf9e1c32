"""Probes for lesson 03: how a function behaves on a machine with, or without, a GPU."""

from __future__ import annotations

from typing import Any

import torch

from course.probes import check_received, expect, probe
from course.probes.core import received, returned
from course.probes.steps import Step


def _simulated(available: bool) -> dict[tuple[Any, str], Any]:
    """Every way a device-picking function may ask whether there is a GPU, answering `available`."""
    answers: dict[tuple[Any, str], Any] = {
        (torch.cuda, "is_available"): lambda: bool(available),
        (torch.cuda, "device_count"): lambda: 1 if available else 0,
    }
    accelerator = getattr(torch, "accelerator", None)
    if accelerator is not None:
        answers[(accelerator, "is_available")] = lambda: bool(available)
        answers[(accelerator, "device_count")] = lambda: 1 if available else 0
        answers[(accelerator, "current_accelerator")] = lambda check_available=False: (
            torch.device("cuda") if available else None
        )
    return {key: _dressed(value, getattr(*key)) for key, value in answers.items() if hasattr(*key)}


def _dressed(stand_in: Any, original: Any) -> Any:
    """`stand_in` under the original's name, qualified name, module and docstring, so that reading them does
    not tell a probe's answer from PyTorch's (and no `__wrapped__` either)."""
    for name in ("__name__", "__qualname__", "__module__", "__doc__"):
        try:
            setattr(stand_in, name, getattr(original, name))
        except (AttributeError, TypeError):
            pass
    return stand_in


@probe
def call_with_cuda_available(step: Any, func: Any, available: bool, *args: Any, **kwargs: Any) -> None:
    """Call `func(*args, **kwargs)` while PyTorch answers that CUDA is (or is not) `available`.

    Only the answers are simulated (`torch.cuda.is_available`, `torch.cuda.device_count` and the
    `torch.accelerator` equivalents; nothing is moved to a GPU), so a device-picking function can be
    tried for both kinds of machine on either. The real functions are put back afterwards.
    """
    step(Step.SEAL, received, args, kwargs)
    answers = _simulated(available)
    real = {key: getattr(*key) for key in answers}
    for (owner, name), answer in answers.items():
        setattr(owner, name, answer)
    try:
        result = func(*args, **kwargs)
    finally:
        for (owner, name), original in real.items():
            setattr(owner, name, original)
    step(Step.SEAL, returned, result)


@call_with_cuda_available.reading
def _(evidence: list, func: Any, available: bool, *args: Any, **kwargs: Any) -> Any:
    before, after = expect(evidence, 2)
    check_received(evidence, args, kwargs)
    return after["result"]
