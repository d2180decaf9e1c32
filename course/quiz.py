"""Quiz helpers: the visible checks see an answer's form only; the key is passed by hidden tests."""

from __future__ import annotations

from typing import Any

from course.checks import fail


def check_choice(answer: Any, choices: str = "ABCD", *, name: str) -> None:
    """The answer must be one upper-case letter among `choices` (its form, not whether it is right)."""
    if answer is None:
        fail(f"{name} is still None: replace None with one of {', '.join(repr(c) for c in choices)}.")
    if not isinstance(answer, str):
        fail(f"Expected {name} to be one letter as a string, such as \"A\", but found a {type(answer).__name__}: {answer!r:.100}.")
    if answer not in tuple(choices):
        fail(f"Expected {name} to be one of {', '.join(repr(c) for c in choices)} (one upper-case letter), but found {answer!r:.100}.")


def check_int_tuple(answer: Any, *, name: str, length: int | None = None) -> None:
    """The answer must be a tuple of plain ints (of `length` items when given)."""
    if answer is None:
        fail(f"{name} is still None: replace None with a tuple of ints, such as (2, 3).")
    if not isinstance(answer, tuple) or not all(isinstance(v, int) and not isinstance(v, bool) for v in answer):
        fail(f"Expected {name} to be a tuple of ints, such as (2, 3), but found {answer!r:.100}.")
    if length is not None and len(answer) != length:
        fail(f"Expected {name} to have {length} numbers (one per dimension), but found {len(answer)}.")


def check_nested_floats(answer: Any, *, name: str, shape: tuple[int, ...]) -> None:
    """The answer must be nested lists of floats with the given shape."""
    def walk(value: Any, dims: tuple[int, ...]) -> bool:
        if not dims:
            return isinstance(value, (int, float)) and not isinstance(value, bool)
        return isinstance(value, list) and len(value) == dims[0] and all(walk(v, dims[1:]) for v in value)

    if answer is None:
        fail(f"{name} is still None: replace None with nested lists of floats.")
    if not walk(answer, shape):
        fail(f"Expected {name} to be nested lists of numbers with shape {shape}, such as {_example(shape)}, but found {answer!r:.100}.")


def _example(shape: tuple[int, ...]) -> str:
    text = "0.0"
    for size in reversed(shape):
        text = "[" + ", ".join([text] * size) + "]"
    return text


def check_key(answer: Any, key: Any, *, name: str, why: str) -> None:
    """Hidden part of a quiz test: compare with the key; on failure, explain the key."""
    if answer != key or type(answer) is not type(key):
        fail(f"{name} is not right. {why}")
    print(f"✓ {name} is right. {why}")
