"""Quiz keys as the lessons hold them, and the rule that exactly one choice comes true when run.

A quiz's key lives in one place, the `check_key` call of its hidden test; `key_of` reads it from
`source/`, so a test that runs the quiz's code compares with that key and never restates it.
"""

from __future__ import annotations

import ast
from typing import Any, Callable

import nbformat

from tests.conftest import ROOT


def key_of(lesson: str, item: str) -> Any:
    """The key the hidden test of `item` compares with."""
    nb = nbformat.read(ROOT / "source" / lesson / f"{lesson}.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") != f"test_{item}":
            continue
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "check_key":
                return ast.literal_eval(node.args[1])
    raise LookupError(f"no check_key for {item} in source/{lesson}")


def outcome(run: Callable[[], Any]) -> Any:
    """What running a snippet gives: its value, or the type of the exception it raises."""
    try:
        return run()
    except Exception as exc:  # the snippet's own error is the outcome some choices predict
        return type(exc)


def the_true_choice(choices: dict[str, bool]) -> str:
    """The one choice that holds; fails unless exactly one does."""
    true = [letter for letter, holds in choices.items() if holds]
    assert len(true) == 1, f"exactly one choice must hold, but these do: {true} (of {sorted(choices)})"
    return true[0]
