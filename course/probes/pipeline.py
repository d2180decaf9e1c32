"""Probes for lesson 10 (the GPU pipeline): which copies a function makes, and how it asks for them."""

from __future__ import annotations

from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from course.probes import EvidenceError, check_received, expect, probe, sealed
from course.probes.core import received
from course.probes.steps import Step


def _non_blocking(args: tuple, kwargs: dict, *, first: int) -> bool:
    """The `non_blocking` flag of a copy call: the keyword, or the first positional bool from `first` on."""
    if "non_blocking" in kwargs:
        return bool(kwargs["non_blocking"])
    return next((bool(a) for a in args[first:] if type(a) is bool), False)


class _CopyRecorder(TorchFunctionMode):
    """Notes every `Tensor.to`, `Tensor.cuda` and `Tensor.copy_` call: was its source pinned, did it ask for non_blocking."""

    def __init__(self) -> None:
        super().__init__()
        self.copies: list[dict[str, bool]] = []

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        source_at = {torch.Tensor.to: 0, torch.Tensor.cuda: 0, torch.Tensor.copy_: 1}.get(func)
        if source_at is not None and len(args) > source_at and isinstance(args[source_at], torch.Tensor):
            source = args[source_at]
            self.copies.append(
                {
                    "pinned": bool(source.device.type == "cpu" and source.is_pinned()),
                    "non_blocking": _non_blocking(args, kwargs, first=source_at + 1),
                }
            )
        return func(*args, **kwargs)


@sealed
def returned_with_copies(snaps: Any, result: Any, copies: list) -> dict:
    return {"result": snaps.snap(result), "copies": snaps.snap(copies)}


@probe
def call_recording_copies(step: Any, func: Any, *args: Any, **kwargs: Any) -> None:
    """Call `func(*args, **kwargs)`; report (result, copies), one `{"pinned", "non_blocking"}` dict per copy call.

    A copy call is `Tensor.to`, `Tensor.cuda` or `Tensor.copy_` (whose source is its argument);
    "pinned" says whether the source was a pinned CPU tensor, "non_blocking" whether the call asked
    for a non-blocking copy (by keyword or position).
    """
    step(Step.SEAL, received, args, kwargs)
    recorder = _CopyRecorder()
    with recorder:
        result = func(*args, **kwargs)
    step(Step.SEAL, returned_with_copies, result, list(recorder.copies))


@call_recording_copies.reading
def _(evidence: list, func: Any, *args: Any, **kwargs: Any) -> tuple[Any, list[dict[str, bool]]]:
    before, after = expect(evidence, 2)
    check_received(evidence, args, kwargs)
    copies = after["copies"]
    if not isinstance(copies, list) or not all(
        isinstance(c, dict) and set(c) == {"pinned", "non_blocking"} for c in copies
    ):
        raise EvidenceError("the record of the copies is not what the probe's steps write")
    return after["result"], copies
