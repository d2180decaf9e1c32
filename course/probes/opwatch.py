"""The operation watch: torch dispatch modes that note which watched ATen operations ran, or count them all.

A module of its own, importing nothing of the course, so the probes' package and the guard can both
use it without importing each other.
"""

from __future__ import annotations

from typing import Any, Iterable

from torch.utils._python_dispatch import TorchDispatchMode


class OpWatch(TorchDispatchMode):
    """Notes which of `names` (ATen operation names such as "aten::_softmax") ran, in order, once each."""

    def __init__(self, names: Iterable[str]):
        super().__init__()
        self.names = frozenset(names)
        self.seen: list[str] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        name = func._schema.name
        if name in self.names and name not in self.seen:
            self.seen.append(name)
        return func(*args, **(kwargs or {}))


class OpTally(TorchDispatchMode):
    """Counts every operation that reaches the dispatcher (the notebook kernel's count; the grader keeps its own)."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        self.count += 1
        return func(*args, **(kwargs or {}))
