"""Quiz helpers: the visible checks see an answer's form only; the key is passed by hidden tests.

One rule for every quiz, written once here: an answer is judged by what it means, not by its Python
type. Each kind of answer has one reading (`read_letter`, `read_int_tuple`, `read_floats`) that both
the visible check and the hidden check use, so whatever the visible check accepts as well-formed,
the hidden check judges by value.

- A multiple-choice answer is one letter as a string; spaces around it and lower case are read as
  the letter (" b" means "B").
- A shape is a sequence of whole numbers: a tuple, a `torch.Size` or a list of ints (NumPy integers
  count as ints; bools and floats do not, since PyTorch refuses them as sizes).
- Nested numbers (a gradient, say) are nested lists or tuples of real numbers, or a NumPy array or
  tensor holding them; they equal the key within a relative and absolute tolerance of 1e-6.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

from course.checks import fail, passed

FLOAT_TOLERANCE = 1e-6
GRADED_LATER = "Only its form is checked here: whether it is right is graded after you hand the lesson in."


def form_checked(name: str) -> None:
    """The line a quiz's visible check prints when the form is right: the student must not read it as
    "right", since the key is never in the notebook (Validate's "Success" says the same of the form only)."""
    passed(name, GRADED_LATER)


def read_letter(answer: Any, choices: str) -> str | None:
    """The letter an answer means, or None when it is not one of `choices`."""
    if not isinstance(answer, str):
        return None
    letter = str(answer).strip().upper()
    return letter if len(letter) == 1 and letter in choices else None


def _whole(value: Any) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def read_int_tuple(answer: Any) -> tuple[int, ...] | None:
    """The shape an answer means as a tuple of ints, or None when it is not a sequence of whole numbers."""
    if not isinstance(answer, (tuple, list)):
        return None
    if not all(_whole(v) for v in answer):
        return None
    return tuple(int(v) for v in answer)


def _tolist(answer: Any) -> Any:
    """Arrays and tensors as nested lists; everything else as it is."""
    kind = type(answer).__module__.split(".")[0]
    if kind in ("numpy", "torch") and hasattr(answer, "tolist") and hasattr(answer, "shape"):
        if kind == "torch":
            answer = answer.detach().cpu()
        return answer.tolist()
    return answer


def read_floats(answer: Any, shape: tuple[int, ...]) -> Any:
    """Nested lists of floats with `shape`, or None when the answer does not have that form."""
    answer = _tolist(answer)

    def walk(value: Any, dims: tuple[int, ...]) -> Any:
        if not dims:
            if isinstance(value, Real) and not isinstance(value, bool):
                return float(value)
            return None
        if not isinstance(value, (list, tuple)) or len(value) != dims[0]:
            return None
        items = [walk(v, dims[1:]) for v in value]
        return None if any(i is None for i in items) else items

    return walk(answer, tuple(shape))


def _shape_of(key: Any) -> tuple[int, ...]:
    shape = []
    while isinstance(key, list):
        shape.append(len(key))
        key = key[0] if key else None
    return tuple(shape)


def check_choice(answer: Any, choices: str = "ABCD", *, name: str) -> None:
    """The answer must be one letter among `choices` (its form, not whether it is right)."""
    if answer is None:
        fail(f"{name} is still None: replace None with one of {', '.join(repr(c) for c in choices)}.")
    if not isinstance(answer, str):
        fail(
            f'Expected {name} to be one letter as a string, such as "A", but found a {type(answer).__name__}: {answer!r:.100}.'
        )
    if read_letter(answer, choices) is None:
        fail(
            f"Expected {name} to be one of {', '.join(repr(c) for c in choices)} (one letter), but found {answer!r:.100}."
        )


def check_int_tuple(answer: Any, *, name: str, length: int | None = None) -> None:
    """The answer must be a shape: a tuple (or torch.Size, or list) of whole numbers, of `length` items when given."""
    if answer is None:
        fail(f"{name} is still None: replace None with a tuple of ints, such as (2, 3).")
    shape = read_int_tuple(answer)
    if shape is None:
        fail(f"Expected {name} to be a tuple of ints, such as (2, 3), but found {answer!r:.100}.")
    if length is not None and len(shape) != length:
        fail(f"Expected {name} to have {length} numbers, as the question asks, but found {len(shape)}.")


def check_nested_floats(answer: Any, *, name: str, shape: tuple[int, ...]) -> None:
    """The answer must be nested lists of numbers with the given shape (an array or tensor of that shape counts)."""
    if answer is None:
        fail(f"{name} is still None: replace None with nested lists of floats.")
    if read_floats(answer, shape) is None:
        fail(
            f"Expected {name} to be nested lists of numbers with shape {shape}, such as {_example(shape)}, but found {answer!r:.100}."
        )


def _example(shape: tuple[int, ...]) -> str:
    text = "0.0"
    for size in reversed(shape):
        text = "[" + ", ".join([text] * size) + "]"
    return text


def _close(found: Any, key: Any) -> bool:
    if isinstance(key, list):
        return isinstance(found, list) and len(found) == len(key) and all(_close(f, k) for f, k in zip(found, key))
    return math.isclose(found, key, rel_tol=FLOAT_TOLERANCE, abs_tol=FLOAT_TOLERANCE)


def matches_key(answer: Any, key: Any) -> bool:
    """Whether the answer means the key: the one place where every quiz's answer is compared with its key."""
    if isinstance(key, str):
        return read_letter(answer, key) == key if len(key) == 1 else answer == key
    if isinstance(key, tuple) and all(_whole(v) for v in key):
        return read_int_tuple(answer) == key
    if isinstance(key, list):
        found = read_floats(answer, _shape_of(key))
        return found is not None and _close(found, key)
    return type(answer) is type(key) and answer == key


def check_key(answer: Any, key: Any, *, name: str, why: str) -> None:
    """Hidden part of a quiz test: compare with the key by meaning; on failure, explain the key."""
    if not matches_key(answer, key):
        fail(f"{name} is not right. {why}")
    print(f"✓ {name} is right. {why}")
