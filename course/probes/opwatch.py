"""The operation watch: a torch dispatch mode that notes which watched ATen operations ran.

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
