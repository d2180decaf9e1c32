"""The quiz rule: an answer is judged by what it means, and the visible and hidden checks agree.

For every value quiz of the course (a test cell whose visible part checks a shape or nested numbers
and whose hidden part compares with a key), every well-formed way of writing the key passes both
checks, every well-formed wrong value passes the visible check and fails the hidden one, and
whatever the visible check accepts, the hidden check judges by value (Hypothesis, against a slow
reference reading of the answer).
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import Any

import nbformat
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from course.checks import CheckFailed
from course.quiz import check_choice, check_int_tuple, check_key, check_nested_floats
from tests.conftest import ROOT, lessons


@dataclass
class ValueQuiz:
    lesson: str
    name: str
    visible: str  # check_int_tuple | check_nested_floats
    options: dict
    key: Any


def _value_quizzes() -> list[ValueQuiz]:
    found = []
    for lesson in lessons():
        nb = nbformat.read(ROOT / "source" / lesson / f"{lesson}.ipynb", as_version=4)
        for cell in nb.cells:
            if not cell.get("metadata", {}).get("nbgrader", {}).get("grade"):
                continue
            calls = [
                n for n in ast.walk(ast.parse(cell.source)) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            ]
            visible = [c for c in calls if c.func.id in ("check_int_tuple", "check_nested_floats")]
            keys = [c for c in calls if c.func.id == "check_key"]
            if visible and keys:
                v, k = visible[0], keys[0]
                options = {kw.arg: ast.literal_eval(kw.value) for kw in v.keywords if kw.arg != "name"}
                found.append(ValueQuiz(lesson, k.args[0].id, v.func.id, options, ast.literal_eval(k.args[1])))
    return found


QUIZZES = _value_quizzes()


def _visible(quiz: ValueQuiz, answer: Any) -> bool:
    check = {"check_int_tuple": check_int_tuple, "check_nested_floats": check_nested_floats}[quiz.visible]
    try:
        check(answer, name=quiz.name, **quiz.options)
    except CheckFailed:
        return False
    return True


def _hidden(quiz: ValueQuiz, answer: Any) -> bool:
    try:
        check_key(answer, quiz.key, name=quiz.name, why="")
    except CheckFailed:
        return False
    return True


def _forms(key: Any) -> list[Any]:
    """Well-formed ways a student may write `key`."""
    if isinstance(key, tuple):
        return [
            key,
            list(key),
            torch.Size(key),
            tuple(np.int64(v) for v in key),
            tuple(np.int32(v) for v in key),
            torch.zeros(key).shape if all(v < 300 for v in key) else torch.Size(key),
        ]
    array = np.array(key, dtype=np.float64)
    nudged = (array * (1 + 1e-8)).tolist()
    return [
        key,
        nudged,
        array,
        array.astype(np.float32),
        torch.tensor(array),
        torch.tensor(array, dtype=torch.float32),
        [tuple(row) for row in key] if array.ndim == 2 else key,
        array.astype(int).tolist() if np.all(array == np.round(array)) else key,
    ]


def _wrong(key: Any) -> list[Any]:
    if isinstance(key, tuple):
        return [
            tuple(v + 1 for v in key),
            key[::-1] if key != key[::-1] else key + (1,),
            torch.Size(tuple(v * 2 for v in key)),
        ]
    array = np.array(key, dtype=np.float64)
    return [(array + 1e-3).tolist(), (-array - 1).tolist(), torch.tensor(array * 2)]


def test_the_course_has_value_quizzes():
    names = {q.name for q in QUIZZES}
    assert {"answer_batch_shape", "answer_broadcast_shape", "answer_seed_weight_grad"} <= names


@pytest.mark.parametrize("quiz", QUIZZES, ids=[q.name for q in QUIZZES])
def test_every_form_of_the_key_passes_both_checks(quiz):
    for form in _forms(quiz.key):
        assert _visible(quiz, form), form
        assert _hidden(quiz, form), form


@pytest.mark.parametrize("quiz", QUIZZES, ids=[q.name for q in QUIZZES])
def test_wrong_values_are_well_formed_but_wrong(quiz):
    for wrong in _wrong(quiz.key):
        if quiz.visible == "check_int_tuple" and quiz.options.get("length") not in (None, len(wrong)):
            continue
        assert _visible(quiz, wrong), wrong
        assert not _hidden(quiz, wrong), wrong


def _reference_meaning(answer: Any, key: Any) -> bool:
    """The slow, obvious reading: the same numbers in the same nesting, whatever the container types."""
    if isinstance(key, tuple):
        seq = list(answer) if isinstance(answer, (tuple, list)) else None
        return (
            seq is not None
            and len(seq) == len(key)
            and all(
                isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and int(v) == k
                for v, k in zip(seq, key)
            )
        )
    values = answer.tolist() if isinstance(answer, (np.ndarray, torch.Tensor)) else answer
    flat_found, flat_key = [], []

    def flatten(value: Any, into: list, like: Any) -> bool:
        if isinstance(like, list):
            if not isinstance(value, (list, tuple)) or len(value) != len(like):
                return False
            return all(flatten(v, into, k) for v, k in zip(value, like))
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            return False
        into.append(float(value))
        return True

    flatten(key, flat_key, key)
    return flatten(values, flat_found, key) and all(
        math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6) for a, b in zip(flat_found, flat_key)
    )


def _answers(key: Any):
    numbers = st.one_of(
        st.integers(-3, 300),
        st.floats(-10, 10, allow_nan=False),
        st.booleans(),
        st.sampled_from([np.int64(3), np.float32(4.0), "3"]),
    )
    if isinstance(key, tuple):
        near = st.lists(
            st.sampled_from(sorted(set(key) | {v + 1 for v in key} | {0, 1})),
            min_size=len(key) - 1,
            max_size=len(key) + 1,
        )
        seqs = st.one_of(st.lists(numbers, max_size=5), near)
        return st.one_of(seqs.map(tuple), seqs, near.map(lambda v: torch.Size(v)), numbers, st.none())
    array = np.array(key, dtype=np.float64)
    nearby = st.floats(-1e-5, 1e-5).map(lambda d: (array + d).tolist())
    return st.one_of(nearby, nearby.map(np.array), nearby.map(torch.tensor), st.lists(numbers, max_size=3), numbers)


@pytest.mark.parametrize("quiz", QUIZZES, ids=[q.name for q in QUIZZES])
def test_what_the_visible_check_accepts_is_judged_by_value(quiz):
    @settings(max_examples=150, deadline=None)
    @given(_answers(quiz.key))
    def check(answer):
        if _visible(quiz, answer):
            assert _hidden(quiz, answer) == _reference_meaning(answer, quiz.key), answer
        else:
            assert not _hidden(quiz, answer), answer

    check()


@pytest.mark.parametrize("answer", [" b", "b", "B ", np.str_("B")])
def test_letters_are_read_by_meaning(answer):
    check_choice(answer, "ABCD", name="answer_x")
    check_key(answer, "B", name="answer_x", why="")


@pytest.mark.parametrize("answer", [None, "E", 1, ("A",), "AB", "", "A.B"])
def test_check_choice_rejects_bad_forms(answer):
    with pytest.raises(CheckFailed):
        check_choice(answer, "ABCD", name="answer_x")
    with pytest.raises(CheckFailed):
        check_key(answer, "A", name="answer_x", why="")


def test_shape_forms():
    check_int_tuple((1, 2), name="t", length=2)
    check_int_tuple([1, 2], name="t", length=2)
    check_int_tuple(torch.Size([1, 2]), name="t", length=2)
    for bad in ((1.0, 2), (True, 2), None, "12", {1: 2}):
        with pytest.raises(CheckFailed):
            check_int_tuple(bad, name="t", length=2)
    with pytest.raises(CheckFailed, match="2 numbers"):
        check_int_tuple((1, 2, 3), name="t", length=2)


def test_nested_float_forms():
    check_nested_floats([[4.0], [6.0]], name="g", shape=(2, 1))
    check_nested_floats(torch.tensor([[4.0], [6.0]]), name="g", shape=(2, 1))
    with pytest.raises(CheckFailed, match=r"\[\[0.0\], \[0.0\]\]"):
        check_nested_floats([4.0, 6.0], name="g", shape=(2, 1))


def test_check_key_explains():
    with pytest.raises(CheckFailed, match="because reasons"):
        check_key("A", "B", name="answer_x", why="because reasons")
    check_key("B", "B", name="answer_x", why="because reasons")
