"""Unit tests for lesson 09 (memory): its picture, and the instructor's references its hidden tests trust."""

import matplotlib.pyplot as plt
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure

from course.pictures.memory import positions, storage_window
from instructor.memory import dyadic, internal_overlap, symmetrized
from tests.quiz_keys import key_of, outcome, the_true_choice

layouts = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 5)), min_size=0, max_size=3).flatmap(
    lambda dims: st.tuples(st.just(dims), st.integers(0, 4))
)


@settings(max_examples=60, deadline=None)
@given(layouts)
def test_positions_are_the_cells_pytorch_reads(layout):
    dims, offset = layout
    shape, stride = tuple(n for n, _ in dims), tuple(s for _, s in dims)
    storage = torch.arange(200)
    t = storage.as_strided(shape, stride, offset)
    cells = positions(shape, stride, offset)
    for cell, indices in cells.items():
        for index in indices:
            assert t[index].item() == cell
    assert sum(len(v) for v in cells.values()) == t.numel()


@settings(max_examples=60, deadline=None)
@given(layouts)
def test_internal_overlap_agrees_with_pytorch(layout):
    dims, _ = layout
    shape, stride = tuple(n for n, _ in dims), tuple(s for _, s in dims)
    t = torch.zeros(200).as_strided(shape, stride)
    distinct = len({c for c in positions(shape, stride)})
    assert internal_overlap(shape, stride) == (distinct < t.numel())
    if t.numel() > 1 and any(n > 1 and s == 0 for n, s in dims):  # the overlap PyTorch itself refuses to write
        with pytest.raises(RuntimeError):
            t.add_(1)


def test_internal_overlap_of_expand_and_repeat():
    row = torch.arange(3.0)
    assert internal_overlap(row.expand(4, 3).shape, row.expand(4, 3).stride())
    assert not internal_overlap(row.repeat(4, 1).shape, row.repeat(4, 1).stride())
    assert not internal_overlap(row.expand(1, 3).shape, row.expand(1, 3).stride())


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
def test_symmetrized_is_exact_on_dyadic_values_and_keeps_the_dtype(dtype):
    m = dyadic((5, 5), generator=torch.Generator().manual_seed(3), dtype=dtype)
    s = symmetrized(m)
    assert s.dtype == dtype and torch.equal(s, s.t())
    assert torch.equal(s, (m.double() + m.double().t()).div(2).to(dtype))
    in_place = m.clone()
    in_place.add_(in_place.t().clone()).div_(2)
    assert torch.equal(in_place, s), "an in-place answer in the dtype itself agrees to the last bit"


def _drawn(fig, tmp_path, before) -> None:
    assert isinstance(fig, Figure)
    assert set(plt.get_fignums()) == before, "the figure is closed in pyplot, so a notebook shows it once"
    fig.savefig(tmp_path / "picture.png")
    assert (tmp_path / "picture.png").stat().st_size > 0


def test_storage_window_labels_each_cell_with_the_element_it_holds(tmp_path):
    before = set(plt.get_fignums())
    x = torch.arange(12).reshape(3, 4)
    part = x[1:, ::2]
    fig = storage_window(part.shape, part.stride(), part.storage_offset(), storage_size=12, name="x[1:, ::2]")
    _drawn(fig, tmp_path, before)
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    for i in range(part.shape[0]):
        for j in range(part.shape[1]):
            assert f"{i},{j}" in texts
    assert [t for t in texts if t.isdigit()] == [str(c) for c in range(12)], "every storage cell is numbered"
    assert "dim 0: +4" in texts and "dim 1: +2" in texts and "storage_offset = 4" in texts
    assert len([p for p in ax.patches if p.get_width() == 1]) == 12


def test_storage_window_marks_cells_an_expand_reads_several_times(tmp_path):
    before = set(plt.get_fignums())
    wide = torch.arange(3).expand(4, 3)
    fig = storage_window(wide.shape, wide.stride(), name="expand")
    _drawn(fig, tmp_path, before)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts.count("×4") == 3
    assert any(t.startswith("dim 0: +0") for t in texts)


@pytest.mark.parametrize(
    "shape, stride, offset, size",
    [((3,), (2,), 0, 4), ((2, 2), (1,), 0, None), ((2,), (-1,), 0, None), ((50,), (1,), 0, None)],
)
def test_storage_window_refuses_layouts_it_cannot_draw(shape, stride, offset, size):
    with pytest.raises(ValueError):
        storage_window(shape, stride, offset, storage_size=size)


def test_storage_window_draws_a_0d_and_an_empty_tensor(tmp_path):
    before = set(plt.get_fignums())
    _drawn(storage_window((), (), 2, storage_size=4), tmp_path, before)
    _drawn(storage_window((0, 3), (3, 1)), tmp_path, before)


# Each quiz run: exactly one choice holds, and it is the key in the lesson's hidden test.

QUIZ_LESSON = "09_memory"


def test_slice_layout_key():
    y = torch.arange(24).reshape(4, 6)[1:, ::2]
    assert (y.storage_offset(), y.stride(0), y.stride(1)) == key_of(QUIZ_LESSON, "answer_slice_layout")


def test_permute_stride_key():
    assert tuple(torch.zeros(2, 3, 4).permute(2, 0, 1)[:, 1].stride()) == key_of(QUIZ_LESSON, "answer_permute_stride")


def test_same_storage_key():
    x = torch.arange(10)
    y = x[3:]
    holds = {
        "A": y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(),
        "B": y.untyped_storage().nbytes() == y.numel() * y.element_size(),
        "C": y.storage_offset() == 0,
        "D": y.data_ptr() == x.data_ptr(),
    }
    assert the_true_choice(holds) == key_of(QUIZ_LESSON, "answer_same_storage")


def test_write_expanded_key():
    def run():
        b = torch.zeros(2, 1)
        e = b.expand(2, 3)
        e[1, 2] = 5
        return e.sum().item()

    found = outcome(run)
    holds = {"A": found is RuntimeError, "B": found == 5.0, "C": found == 15.0, "D": found == 10.0}
    assert the_true_choice(holds) == key_of(QUIZ_LESSON, "answer_write_expanded")
