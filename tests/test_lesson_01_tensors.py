"""Unit tests for the pictures of lesson 01 (tensors, rank and shape), and its quizzes run."""

import matplotlib.pyplot as plt
import pytest
import torch
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from tests.quiz_keys import key_of, the_true_choice

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


# Each quiz run: exactly one choice holds, and it is the key in the lesson's hidden test.

LESSON = "01_tensors"


def test_rank_meaning_key_is_the_one_rank_3_choice():
    holds = {
        "A": torch.tensor(2.5).dim() == 3,
        "B": torch.zeros(10, 4).dim() == 3,
        "C": torch.zeros(3, 8, 8).dim() == 3,
        "D": torch.zeros(2, 3, 8, 8).dim() == 3,
    }
    assert the_true_choice(holds) == key_of(LESSON, "answer_rank_meaning")


def test_batch_shape_key_is_the_stacked_shape():
    images = [torch.zeros(3, 224, 224) for _ in range(32)]
    assert tuple(torch.stack(images).shape) == key_of(LESSON, "answer_batch_shape")


def test_index_shape_key_is_what_indexing_gives():
    assert tuple(torch.zeros(6, 4, 5, 7)[2, :, 1:4, -1].shape) == key_of(LESSON, "answer_index_shape")


def test_slice_view_key_is_the_total_after_the_write():
    grid = torch.zeros(2, 3)
    col = grid[:, 1]
    col += 5
    total = grid.sum().item()
    holds = {"A": total == 0.0, "B": total == 5.0, "C": total == 30.0, "D": total == 10.0}
    assert the_true_choice(holds) == key_of(LESSON, "answer_slice_view")
