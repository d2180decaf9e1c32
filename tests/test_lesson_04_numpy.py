"""Unit tests for the pictures of lesson 04 (NumPy interop), and its quizzes run."""

import re

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from course.pictures.numpy_interop import CHANGED_COLOUR, shared_and_copied, show_channels_last
from tests.quiz_keys import key_of, outcome, the_true_choice


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
    highlighted = [
        p
        for ax in fig.axes
        for p in ax.patches
        if p.get_facecolor()[:3] == plt.matplotlib.colors.to_rgb(CHANGED_COLOUR)
    ]
    assert len(highlighted) == 2
    assert any("a[0] = 5" in t for t in _texts(fig))


def _images(n=2, h=3, w=4, c=3):
    return (np.arange(n * h * w * c) % 256).astype(np.uint8).reshape(n, h, w, c)


@pytest.mark.parametrize("images", [_images(), _images(c=1), _images().astype(np.float32) / 255, _images(n=0)])
def test_show_channels_last_draws_one_panel_per_image(images, tmp_path):
    before = set(plt.get_fignums())
    fig = show_channels_last(images, titles=[str(i) for i in range(len(images))])
    assert set(plt.get_fignums()) == before
    drawn = [ax for ax in fig.axes if ax.images]
    assert len(drawn) == len(images)
    for i, ax in enumerate(drawn):
        shown = ax.images[0].get_array()
        expected = images[i].astype(np.float32) / (255 if images.dtype == np.uint8 else 1)
        assert np.allclose(shown, expected[..., 0] if images.shape[-1] == 1 else expected)
        assert ax.get_title() == str(i)
    fig.savefig(tmp_path / "images.png")


@pytest.mark.parametrize(
    "bad, error, words",
    [
        (torch.zeros(1, 2, 2, 3), TypeError, "NumPy array"),
        (np.zeros((2, 3, 4), dtype=np.uint8), ValueError, "(N, H, W, C)"),
        (np.zeros((1, 3, 4, 4), dtype=np.float32), ValueError, "channels last"),
        (np.full((1, 2, 2, 3), 1.2, dtype=np.float32), ValueError, "clip"),
        (np.full((1, 2, 2, 3), -0.1), ValueError, "clip"),
        (np.zeros((1, 2, 2, 3), dtype=np.int64), ValueError, "uint8 or float"),
    ],
)
def test_show_channels_last_refuses_what_imshow_would_misdraw(bad, error, words):
    with pytest.raises(error, match=re.escape(words)):
        show_channels_last(bad)


def test_show_channels_last_wants_one_title_per_image():
    with pytest.raises(ValueError, match="titles"):
        show_channels_last(_images(n=2), titles=["only one"])


# Each quiz run: exactly one choice holds, and it is the key in the lesson's hidden test.

LESSON = "04_numpy"


def test_shared_after_mutation_key():
    a = np.zeros(3)
    t = torch.from_numpy(a)
    a[0] = 5
    found = outcome(lambda: t[0])
    value = isinstance(found, torch.Tensor)
    holds = {
        "A": value and found.item() == 0.0 and found.dtype == torch.float64,
        "B": value and found.item() == 5.0 and found.dtype == torch.float64,
        "C": found is RuntimeError,
        "D": value and found.item() == 5.0 and found.dtype == torch.float32,
    }
    assert the_true_choice(holds) == key_of(LESSON, "answer_shared_after_mutation")


def test_tensor_copies_key():
    arrays = {
        "float32": np.zeros(4, dtype=np.float32),
        "float64": np.zeros(4),
        "contiguous int64": np.arange(4),
        "strided float32": np.zeros(8, dtype=np.float32)[::2],
    }
    shares = {name: np.shares_memory(torch.tensor(a).numpy(), a) for name, a in arrays.items()}
    holds = {
        "A": all(shares.values()),
        "B": shares["float32"] and not shares["float64"],
        "C": not any(shares.values()),
        "D": shares["contiguous int64"] and not shares["strided float32"],
    }
    assert the_true_choice(holds) == key_of(LESSON, "answer_tensor_copies")


def test_cuda_numpy_key():
    t = torch.ones(3, device="cuda" if torch.cuda.is_available() else "meta")
    try:
        found, error = t.numpy(), None
    except Exception as exc:
        found, error = None, exc
    holds = {
        "A": found is not None,  # A, C and D all say an array comes back
        "B": isinstance(error, TypeError) and "cpu()" in str(error),
        "C": found is not None,
        "D": found is not None,
    }
    assert the_true_choice(holds) == key_of(LESSON, "answer_cuda_numpy")


def test_numpy_after_rebind_key():
    t = torch.zeros(3)
    a = t.numpy()
    t += 1
    t = t * 2
    t += 1
    holds = {letter: a.tolist() == [value] * 3 for letter, value in zip("ABCD", (1.0, 0.0, 2.0, 3.0))}
    assert the_true_choice(holds) == key_of(LESSON, "answer_numpy_after_rebind")


def test_as_tensor_dtype_key():
    a = np.arange(3.0)
    t = outcome(lambda: torch.as_tensor(a, dtype=torch.float32))
    a[0] = 9
    works = isinstance(t, torch.Tensor)
    holds = {
        "A": works and t[0].item() == 9.0 and t.dtype == torch.float32,
        "B": works and t[0].item() == 9.0 and t.dtype == torch.float64,
        "C": not works,
        "D": works and t[0].item() == 0.0,
    }
    assert the_true_choice(holds) == key_of(LESSON, "answer_as_tensor_dtype")
