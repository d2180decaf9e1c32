"""Unit tests for the picture of lesson 04 (NumPy interop)."""

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from course.pictures.numpy_interop import CHANGED_COLOUR, shared_and_copied


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts] + [t.get_text() for t in fig.texts]


def test_shared_and_copied_draws_a_closed_figure(tmp_path):
    before = set(plt.get_fignums())
    fig = shared_and_copied()
    assert isinstance(fig, Figure)
    assert set(plt.get_fignums()) == before
    fig.savefig(tmp_path / "buffers.png")
    assert (tmp_path / "buffers.png").stat().st_size > 0


def test_one_buffer_on_the_left_two_on_the_right():
    fig = shared_and_copied(values=(1, 2))
    left, right = fig.axes
    assert [t.get_text() for t in left.texts].count("1") == 1
    assert [t.get_text() for t in right.texts].count("1") == 2


def test_a_write_shows_in_the_shared_buffer_and_in_the_array_only():
    fig = shared_and_copied(values=(1, 2, 3), write=(0, 5))
    left, right = fig.axes
    assert [t.get_text() for t in left.texts].count("5") == 1
    right_values = [t.get_text() for t in right.texts]
    assert right_values.count("5") == 1 and right_values.count("1") == 1
    highlighted = [p for ax in fig.axes for p in ax.patches if p.get_facecolor()[:3] == plt.matplotlib.colors.to_rgb(CHANGED_COLOUR)]
    assert len(highlighted) == 2
    assert any("a[0] = 5" in t for t in _texts(fig))
