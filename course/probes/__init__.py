"""Probes: measurements that can only be taken next to the student's code.

A probe takes the student's callable first and plain data after it, and returns plain data. In a
notebook it simply runs. Under the grader the judge holds only a proxy of the student's callable;
the grader installs a dispatcher, and calling a probe with a proxy runs the probe inside the sandbox.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any, Callable

REGISTRY: dict[str, Callable[..., Any]] = {}
_dispatcher: Callable[[str, Any, tuple, dict], Any] | None = None


def set_dispatcher(dispatcher: Callable[[str, Any, tuple, dict], Any] | None) -> None:
    """Installed by the grader's judge; None restores local execution."""
    global _dispatcher
    _dispatcher = dispatcher


def probe(func: Callable[..., Any]) -> Callable[..., Any]:
    name = f"{func.__module__}:{func.__qualname__}"

    @functools.wraps(func)
    def wrapper(target: Any, *args: Any, **kwargs: Any) -> Any:
        if _dispatcher is not None and getattr(target, "__sandbox_handle__", None) is not None:
            return _dispatcher(name, target, args, kwargs)
        return func(target, *args, **kwargs)

    wrapper.__probe_name__ = name
    REGISTRY[name] = func
    return wrapper


def resolve(name: str) -> Callable[..., Any]:
    """The undecorated probe called `name` ("module:qualname"), importing only course.probes modules."""
    module, _, _ = name.partition(":")
    if not (module == "course.probes" or module.startswith("course.probes.")):
        raise LookupError(f"not a probe: {name!r}")
    importlib.import_module(module)
    try:
        return REGISTRY[name]
    except KeyError:
        raise LookupError(f"no such probe: {name!r}") from None
