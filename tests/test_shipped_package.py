"""Nothing shipped to students solves a graded item: every public callable of the `course` package whose
signature fits a graded function is tried as that function's answer, against the item's whole test cell
(hidden checks included), and none may pass. For a graded class, the signature is its `__init__`'s, and
the package's public classes are tried as well.

The test cells run here, in this process, with the candidate bound to the item's name, as they would
in a kernel; probes run locally. The lesson's own solution, run the same way, must pass, so the harness
can tell a pass from a failure.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import io
import pkgutil
import signal
from dataclasses import dataclass
from typing import Any, Callable

import nbformat
import pytest

import course
from autograder.authoring.samples import _strip_regions
from tests.conftest import ROOT, lessons

LIMIT_S = 30


@dataclass(frozen=True)
class Item:
    lesson: str
    name: str
    params: tuple[inspect.Parameter, ...]
    solution: str
    test: str
    is_class: bool = False


def _items() -> list[Item]:
    found = []
    for lesson in lessons():
        nb = nbformat.read(ROOT / "source" / lesson / f"{lesson}.ipynb", as_version=4)
        tests = {
            c.metadata["nbgrader"]["grade_id"].removeprefix("test_"): c.source
            for c in nb.cells
            if c.get("metadata", {}).get("nbgrader", {}).get("grade") and not c.metadata["nbgrader"].get("solution")
        }
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if not meta.get("solution") or meta["grade_id"].startswith("answer_"):
                continue
            code = _strip_regions(cell.source)
            namespace: dict[str, Any] = {}
            definition = next(
                n
                for n in ast.parse(code).body
                if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == meta["grade_id"]
            )
            args = definition.args if isinstance(definition, ast.FunctionDef) else _init_args(definition)
            exec(f"def {definition.name}({ast.unparse(args)}): pass", namespace)
            params = tuple(inspect.signature(namespace[meta["grade_id"]]).parameters.values())
            found.append(
                Item(
                    lesson,
                    meta["grade_id"],
                    params,
                    code,
                    tests[meta["grade_id"]],
                    isinstance(definition, ast.ClassDef),
                )
            )
    return found


def _init_args(definition: ast.ClassDef) -> ast.arguments:
    """A class's `__init__` arguments without `self` (none when it defines no `__init__`)."""
    init = next((n for n in definition.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is None:
        return ast.arguments(
            posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]
        )
    args = init.args
    return ast.arguments(
        posonlyargs=args.posonlyargs,
        args=args.args[1:],
        vararg=args.vararg,
        kwonlyargs=args.kwonlyargs,
        kw_defaults=args.kw_defaults,
        kwarg=args.kwarg,
        defaults=args.defaults,
    )


def _public_callables(*, classes: bool = False) -> dict[str, Callable[..., Any]]:
    """Public functions of the `course` package; with `classes`, its public classes too."""
    found: dict[str, Callable[..., Any]] = {}
    for info in pkgutil.walk_packages(course.__path__, "course."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if name.startswith("_") or not callable(value) or (isinstance(value, type) and not classes):
                continue
            home = getattr(value, "__module__", "") or ""
            if home.startswith("course"):
                found[f"{home}.{name}"] = value
    return found


def _fits(candidate: Callable[..., Any], params: tuple[inspect.Parameter, ...]) -> bool:
    """Whether the item's test could call the candidate the way it calls the item (positionally)."""
    try:
        signature = inspect.signature(candidate)
    except (TypeError, ValueError):
        return False
    required = [
        p
        for p in params
        if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    for count in {len(required), len(positional)}:
        try:
            signature.bind(*range(count))
        except TypeError:
            return False
    return True


class _Limit(BaseException):
    pass


def _passes(item: Item, answer: Callable[..., Any] | None, *, setup: str = "") -> bool:
    """Run the item's full test cell with `answer` (or the code in `setup`) as the item; True when it passes."""
    namespace: dict[str, Any] = {"__name__": "__main__"}

    def stop(*_: Any) -> None:
        raise _Limit()

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(LIMIT_S)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            exec("import numpy as np\nimport torch\nfrom torch import nn\n" + setup, namespace)
            if answer is not None:
                namespace[item.name] = answer
            exec(compile(item.test, f"<test {item.name}>", "exec"), namespace)
    except (_Limit, Exception):
        return False
    except BaseException as exc:  # the probes' EvidenceError, a test's SystemExit: a failure all the same
        if isinstance(exc, KeyboardInterrupt):
            raise
        return False
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return True


ITEMS = _items()
CALLABLES = _public_callables()
CLASSES_TOO = _public_callables(classes=True)


def test_there_is_something_to_try():
    assert len(ITEMS) >= 20 and len(CALLABLES) >= 20
    assert "course.probes.core.call_watching_inputs" in CALLABLES


@pytest.mark.slow
@pytest.mark.parametrize("item", ITEMS, ids=[f"{i.lesson}:{i.name}" for i in ITEMS])
def test_the_solution_passes_this_harness(item):
    assert _passes(item, None, setup=item.solution)


@pytest.mark.slow
@pytest.mark.parametrize("item", ITEMS, ids=[f"{i.lesson}:{i.name}" for i in ITEMS])
def test_no_shipped_function_passes_as_the_answer(item):
    candidates = CLASSES_TOO if item.is_class else CALLABLES
    tried = [name for name, candidate in sorted(candidates.items()) if _fits(candidate, item.params)]
    passing = [name for name in tried if _passes(item, candidates[name])]
    assert passing == [], f"{item.name} is answered by the shipped {passing}"
