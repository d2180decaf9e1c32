"""Unit tests for the pictures of lesson 05 (shapes)."""

import matplotlib.pyplot as plt
import pytest
import torch
from matplotlib.figure import Figure

from course.pictures.shapes import broadcast_alignment, broadcast_result, memory_order


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
