"""matplotlib, imported when the first picture is drawn rather than when a lesson's first cell runs.

Importing `matplotlib.pyplot` takes most of a second; deferring it lets the setup cell answer quickly.
"""

from __future__ import annotations

import importlib
from types import ModuleType


class LazyModule:
    """Stands in for a module and imports it on the first attribute looked up."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attribute: str):
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attribute)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


plt = LazyModule("matplotlib.pyplot")
patches = LazyModule("matplotlib.patches")
ticker = LazyModule("matplotlib.ticker")
