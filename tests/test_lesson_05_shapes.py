"""Unit tests for the pictures of lesson 05 (shapes)."""

import matplotlib.pyplot as plt
import pytest
import torch
from matplotlib.figure import Figure

from course.pictures.shapes import broadcast_alignment, broadcast_result, memory_order, patch_grid
from tests.quiz_keys import key_of, outcome, the_true_choice


@pytest.mark.parametrize(
    "a, b",
    [((3, 1), (1, 4)), ((4, 3, 2, 2), (1, 3, 1, 1)), ((8, 1, 6, 1), (7, 1, 5)), ((5,), ()), ((2, 0), (1,))],
)
def test_broadcast_result_agrees_with_torch(a, b):
    result, notes = broadcast_result(a, b)
    assert result == tuple(torch.broadcast_shapes(a, b))
    assert len(notes) == max(len(a), len(b))


def test_broadcast_result_reports_a_clash():
    result, notes = broadcast_result((4, 3, 2, 2), (3,))
    assert result is None
    assert notes == ["pad b", "pad b", "pad b", "clash"]


@pytest.mark.parametrize("a, b", [((3, 1), (1, 4)), ((4, 3, 2, 2), (3,))])
def test_broadcast_alignment_draws_a_closed_figure(a, b, tmp_path):
    before = set(plt.get_fignums())
    fig = broadcast_alignment(a, b, names=("x", "y"))
    assert isinstance(fig, Figure)
    assert set(plt.get_fignums()) == before
    fig.savefig(tmp_path / "broadcast.png")
    assert (tmp_path / "broadcast.png").stat().st_size > 0


@pytest.mark.parametrize("rows, cols", [(2, 3), (3, 4), (1, 1)])
def test_memory_order_draws_a_closed_figure(rows, cols, tmp_path):
    before = set(plt.get_fignums())
    fig = memory_order(rows, cols)
    assert isinstance(fig, Figure)
    assert set(plt.get_fignums()) == before
    fig.savefig(tmp_path / "memory.png")
    assert (tmp_path / "memory.png").stat().st_size > 0


@pytest.mark.parametrize("height, width, p", [(4, 6, 2), (3, 3, 1), (4, 4, 4), (2, 8, 2)])
def test_patch_grid_numbers_patches_row_by_row(height, width, p, tmp_path):
    before = set(plt.get_fignums())
    fig = patch_grid(height, width, p)
    assert set(plt.get_fignums()) == before
    texts = [t.get_text() for t in fig.axes[0].texts]
    count = (height // p) * (width // p)
    assert [t for t in texts if t.startswith("patch")] == [f"patch {n}" for n in range(count)]
    assert sorted(int(t) for t in texts if t.isdigit()) == list(range(height * width))
    fig.savefig(tmp_path / "patches.png")


def test_patch_grid_colours_each_pixel_by_its_patch():
    fig = patch_grid(4, 6, 2)
    ax = fig.axes[0]
    pixels = [patch for patch in ax.patches if patch.get_width() == 1]
    colour_of = {(int(r.get_x()), int(r.get_y())): r.get_facecolor() for r in pixels}
    # Pixel (row 0, col 2) and (row 1, col 3) share patch 1; (row 0, col 1) is in patch 0.
    assert colour_of[(2, 3)] == colour_of[(3, 2)] != colour_of[(1, 3)]


@pytest.mark.parametrize("height, width, p", [(4, 6, 4), (5, 4, 2), (4, 4, 0)])
def test_patch_grid_refuses_a_patch_size_that_does_not_divide(height, width, p):
    with pytest.raises(ValueError, match="divide"):
        patch_grid(height, width, p)


def test_the_operation_watch_sees_cdist_in_both_modes():
    from course.probes.ops import CDIST_CALLS, call_watching_ops

    g = torch.Generator().manual_seed(0)
    for n in (5, 300):
        a, b = torch.randn(n, 3, generator=g), torch.randn(n // 2 + 1, 3, generator=g)
        assert call_watching_ops(torch.cdist, CDIST_CALLS, a, b)[1], n
        assert call_watching_ops(
            lambda p, q: torch.cdist(p, q, compute_mode="donot_use_mm_for_euclid_dist"), CDIST_CALLS, a, b
        )[1]
        by_hand = lambda p, q: (p[:, None, :] - q[None, :, :]).pow(2).sum(-1).sqrt()  # noqa: E731
        result, seen = call_watching_ops(by_hand, CDIST_CALLS, a, b)
        assert seen == [] and torch.allclose(
            result, torch.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"), atol=1e-5
        )
    assert torch._C._len_torch_dispatch_stack() == 0


# Each quiz run: exactly one choice holds, and it is the key in the lesson's hidden test.

QUIZ_LESSON = "05_shapes"


def test_view_after_transpose_key():
    x = torch.arange(6).reshape(2, 3)
    found = outcome(lambda: x.t().view(-1))
    transposed = [0, 3, 1, 4, 2, 5]
    holds = {
        "A": isinstance(found, torch.Tensor) and found.tolist() == transposed and found.data_ptr() == x.data_ptr(),
        "B": isinstance(found, torch.Tensor) and found.tolist() == list(range(6)),
        "C": found is RuntimeError and x.t().reshape(-1).tolist() == transposed,
        "D": isinstance(found, torch.Tensor) and found.tolist() == transposed and found.data_ptr() != x.data_ptr(),
    }
    assert the_true_choice(holds) == key_of(QUIZ_LESSON, "answer_view_after_transpose")


def test_broadcast_shape_key():
    assert tuple((torch.zeros(3, 1) + torch.zeros(1, 4)).shape) == key_of(QUIZ_LESSON, "answer_broadcast_shape")


def test_broadcast_empty_key():
    a, b = torch.zeros(1, 3), torch.ones(0, 1)
    summed = outcome(lambda: (a + b).shape)
    in_place = outcome(lambda: a.clone().add_(b))
    holds = {
        "A": summed == (0, 3) and in_place is RuntimeError,
        "B": summed == (1, 3) and isinstance(in_place, torch.Tensor),
        "C": summed is RuntimeError,
        "D": summed == (1, 3) and in_place is RuntimeError,
    }
    assert the_true_choice(holds) == key_of(QUIZ_LESSON, "answer_broadcast_empty")


def test_reduce_shape_key():
    assert tuple(torch.zeros(4, 5, 6).sum(dim=(0, 2), keepdim=True).shape) == key_of(QUIZ_LESSON, "answer_reduce_shape")


def test_matmul_batch_shape_key():
    assert tuple((torch.zeros(5, 1, 4, 3) @ torch.zeros(2, 3, 6)).shape) == key_of(
        QUIZ_LESSON, "answer_matmul_batch_shape"
    )
