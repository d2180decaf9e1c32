"""course.checks: they pass what is right, fail what is wrong, and say why in plain words."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from course.checks import (
    CheckFailed,
    check_array,
    check_equal,
    check_float,
    check_raises,
    check_runs,
    check_shape,
    check_tensor,
    check_true,
)
from course.quiz import check_key

floats = arrays(np.float32, array_shapes(min_dims=0, max_dims=3, max_side=4), elements=st.floats(-100, 100, width=32))


def _reference_close(a: np.ndarray, b: np.ndarray, atol: float, rtol: float) -> bool:
    """The slow, obvious definition: every element pair within tolerance."""
    return all(
        math.isclose(x, y, rel_tol=0, abs_tol=atol + rtol * abs(y))
        for x, y in zip(a.ravel().tolist(), b.ravel().tolist())
    )


@settings(max_examples=60, deadline=None)
@given(floats, st.floats(-1, 1))
def test_check_tensor_values_agree_with_reference(values, shift):
    expected = torch.from_numpy(values.copy())
    found = expected + shift
    agree = _reference_close(found.numpy(), expected.numpy(), 1e-6, 1e-5)
    try:
        check_tensor(found, expected)
        passed = True
    except CheckFailed as exc:
        passed = False
        assert "values" in str(exc)
    # float32 rounding near the tolerance edge may differ by one ulp; stay away from the edge
    near_edge = any(abs(abs(shift) - (1e-6 + 1e-5 * abs(float(y)))) < 1e-6 for y in values.ravel().tolist())
    if not near_edge:
        assert passed == agree


@pytest.mark.parametrize(
    "found, expected, word",
    [
        (torch.zeros(2, 3), torch.zeros(3, 2), "shape (3, 2), but found shape (2, 3)"),
        (torch.zeros(2, dtype=torch.float64), torch.zeros(2), "dtype float32, but found dtype float64"),
        (torch.zeros(2, device="meta"), torch.zeros(2), "device 'cpu', but found it on 'meta'"),
        (np.zeros(2), torch.zeros(2), "torch.Tensor, but found a numpy.ndarray"),
        (
            torch.tensor([1.0, 2.0]),
            torch.tensor([1.0, 3.0]),
            "1 of 2 differ; first at index (1,): expected 3.0, found 2.0",
        ),
    ],
)
def test_check_tensor_messages(found, expected, word):
    with pytest.raises(CheckFailed, match=word.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        check_tensor(found, expected)


def test_check_tensor_requires_grad():
    check_tensor(torch.ones(2), torch.ones(2), requires_grad=False)
    with pytest.raises(CheckFailed, match="not to require grad"):
        check_tensor(torch.ones(2, requires_grad=True), torch.ones(2), requires_grad=False)


def test_check_shape_accepts_size_and_tuple_only():
    check_shape(torch.Size([2, 3]), (2, 3))
    check_shape((2, 3), (2, 3))
    with pytest.raises(CheckFailed, match="tuple of ints"):
        check_shape([2, 3], (2, 3))
    with pytest.raises(CheckFailed, match="plain ints"):
        check_shape((np.int64(2), 3), (2, 3))
    with pytest.raises(CheckFailed, match=r"\(0, 3\), but found \(3,\)"):
        check_shape((3,), (0, 3))


def test_check_equal_is_strict_about_types():
    check_equal({"a": (1, 2)}, {"a": (1, 2)})
    with pytest.raises(CheckFailed):
        check_equal([1, 2], (1, 2))
    with pytest.raises(CheckFailed):
        check_equal(True, 1)


class AlwaysEqual:
    def __eq__(self, other):
        return True


def test_always_equal_objects_do_not_pass():
    with pytest.raises(CheckFailed):
        check_equal(AlwaysEqual(), (32, 3, 224, 224))
    with pytest.raises(CheckFailed):
        check_shape(AlwaysEqual(), (1,))
    with pytest.raises(CheckFailed):
        check_key(AlwaysEqual(), "C", name="answer", why="because")


def test_check_array_and_float():
    check_array(np.arange(3), np.arange(3))
    with pytest.raises(CheckFailed, match="dtype int64, but found dtype float64"):
        check_array(np.arange(3.0), np.arange(3))
    check_float(0.5, 0.5)
    with pytest.raises(CheckFailed, match=r"\.item\(\)"):
        check_float(torch.tensor(0.5), 0.5)


def test_check_runs_returns_the_result_or_names_the_input():
    assert check_runs(lambda x, y=1: x + y, 2, y=3, what="f(2, y=3)") == 5

    def refuse(arr):
        raise ValueError("negative strides")

    with pytest.raises(
        CheckFailed, match=r"Expected f\(a\[::-1\]\) to work, but it raised ValueError: negative strides"
    ):
        check_runs(refuse, [1], what="f(a[::-1])")
    with pytest.raises(CheckFailed, match="it raised CheckFailed"):
        check_runs(lambda: check_true(False, "inner"), what="g()")


def test_check_raises():
    def boom(x):
        raise ValueError("no")

    assert isinstance(check_raises(ValueError, boom, 1, what="boom(1)"), ValueError)
    with pytest.raises(CheckFailed, match="to raise ValueError, but it returned 2"):
        check_raises(ValueError, lambda x: 2, 1, what="f(1)")
    with pytest.raises(CheckFailed, match="but it raised TypeError"):
        check_raises(ValueError, lambda: None + 1, what="f()")


def test_check_slip_names_the_slip_only_when_found_is_the_slip():
    from course.checks import check_slip

    square = torch.tensor([[1.0, 2.0], [10.0, 30.0]])
    slip = square - square.mean(dim=1)
    with pytest.raises(CheckFailed, match="keepdim"):
        check_slip(slip.clone(), slip, message="forgot keepdim")
    check_slip(square - square.mean(dim=1, keepdim=True), slip, message="forgot keepdim")
    check_slip(slip.double(), slip, message="forgot keepdim")  # another dtype is judged by check_tensor
    check_slip([[-0.5, -18.0], [8.5, 10.0]], slip, message="forgot keepdim")
    check_slip(torch.zeros(2, 2, device="meta"), torch.zeros(2, 2, device="meta"), message="no values to compare")


def test_stderr_routing_is_only_for_notebook_kernels():
    """Outside a kernel (the grader's judge, a plain process) the rule lives in the grader, not here."""
    from course.checks import TEST_CELL, show_stderr_on_stdout

    assert show_stderr_on_stdout() is False
    assert TEST_CELL.search("import torch\nfrom course.checks import check_tensor, passed\n")
    assert TEST_CELL.search("from course.quiz import check_choice\n")
    assert not TEST_CELL.search("import torch\nfrom course.device import describe_setup\n")


def test_a_fix_is_told_at_the_second_failure_of_a_check_only(monkeypatch):
    """A first failure says what was expected and found; the same check failing again adds how to fix it.
    Another check's fix keeps its own count, and a check without a fix never grows a hint."""
    from course import checks

    monkeypatch.setattr(checks, "FAILURES", {})
    messages = []
    for _ in range(3):
        with pytest.raises(checks.CheckFailed) as raised:
            checks.check_true(False, "Expected 3, found 4.", fix="Count from one.")
        messages.append(str(raised.value))
    assert messages == ["Expected 3, found 4.", *["Expected 3, found 4. Hint: Count from one."] * 2]
    with pytest.raises(checks.CheckFailed, match=r"^Expected a, found b\.$"):
        checks.fail("Expected a, found b.", fix="Another fix.")
    for _ in range(2):
        with pytest.raises(checks.CheckFailed, match=r"^Expected a, found b\.$"):
            checks.fail("Expected a, found b.")
    checks.check_true(True, "never shown", fix="Count from one.")


def test_the_hint_count_changes_words_never_verdicts(monkeypatch):
    """Student code can write to `FAILURES` (it lives in the student's kernel): all that buys is the fix
    sentence, which is lesson text. A failing check still fails and a passing one still passes."""
    from course import checks

    forged: dict = {}
    monkeypatch.setattr(checks, "FAILURES", forged)
    forged["Count from one."] = 10**9
    with pytest.raises(checks.CheckFailed, match=r"^Expected 3, found 4\. Hint: Count from one\.$"):
        checks.check_true(False, "Expected 3, found 4.", fix="Count from one.")
    checks.check_true(True, "never shown", fix="Count from one.")
