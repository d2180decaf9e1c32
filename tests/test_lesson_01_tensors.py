"""Unit tests for the pictures of lesson 01 (tensors, rank and shape)."""

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from course.pictures.tensors import batch_layout, rank_ladder


def _boxes(fig: Figure) -> list[Rectangle]:
    return [p for ax in fig.axes for p in ax.patches if isinstance(p, Rectangle)]


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 1, 2, 2), (3, 4, 2, 3)])
def test_batch_layout_draws_one_box_per_number(shape, tmp_path):
    before = set(plt.get_fignums())
    fig = batch_layout(*shape, mark=None)
    assert isinstance(fig, Figure)
    assert set(plt.get_fignums()) == before
    b, c, h, w = shape
    assert len(_boxes(fig)) == b * c * h * w
    fig.savefig(tmp_path / "batch.png")
    assert (tmp_path / "batch.png").stat().st_size > 0


def test_batch_layout_names_the_marked_box():
    fig = batch_layout(2, 3, 4, 5, mark=(1, 0, 2, 3))
    assert "x[1, 0, 2, 3]" in fig.axes[0].get_title()
    assert sum(1 for box in _boxes(fig) if box.get_facecolor()[:3] != _boxes(fig)[0].get_facecolor()[:3]) >= 1


def test_rank_ladder_draws_a_closed_figure(tmp_path):
    before = set(plt.get_fignums())
    fig = rank_ladder()
    assert isinstance(fig, Figure)
    assert set(plt.get_fignums()) == before
    assert len(_boxes(fig)) == 1 + 4 + 12 + 36 + 72
    fig.savefig(tmp_path / "ranks.png")
    assert (tmp_path / "ranks.png").stat().st_size > 0
