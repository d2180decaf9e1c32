"""Probes for lesson 03: how a function behaves on a machine with, or without, a GPU."""

from __future__ import annotations

from typing import Any

import torch

from course.probes import probe


@probe
def call_with_cuda_available(func: Any, available: bool, *args: Any, **kwargs: Any) -> Any:
    """Call `func(*args, **kwargs)` while `torch.cuda.is_available()` answers `available`.

    Only that one answer is simulated (nothing is moved to a GPU), so a device-picking function can be
    tried for both kinds of machine on either. The real function is put back afterwards.
    """
    real = torch.cuda.is_available
    torch.cuda.is_available = lambda: bool(available)
    try:
        return func(*args, **kwargs)
    finally:
        torch.cuda.is_available = real
