"""Unit tests for the pictures of lesson 02 (data types), and its quizzes run."""

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.figure import Figure
from torch import nn

from course.pictures.dtype import dtype_rows, dtype_table, range_and_precision
from tests.quiz_keys import key_of, outcome, the_true_choice


def test_rows_agree_with_torch():
    rows = {row[0]: row for row in dtype_rows()}
    assert rows["float32"][1] == "4" and rows["float64"][1] == "8" and rows["int64"][1] == "8"
    assert rows["uint8"][2].startswith("0 to 255")
    assert rows["float16"][2].startswith("±65,504")
    assert "default" in rows["float32"][3] and "default" in rows["int64"][3]


def test_range_and_precision_covers_every_kind():
    assert range_and_precision(torch.bool) == "False or True"
    assert "digits" in range_and_precision(torch.bfloat16)
    assert "whole numbers" in range_and_precision(torch.int8)


def test_dtype_table_draws_a_closed_figure(tmp_path):
    before = set(plt.get_fignums())
    fig = dtype_table()
    assert isinstance(fig, Figure)
    assert set(plt.get_fignums()) == before
    fig.savefig(tmp_path / "dtypes.png")
    assert (tmp_path / "dtypes.png").stat().st_size > 0


# Each quiz run: exactly one choice holds, and it is the key in the lesson's hidden test.

LESSON = "02_dtype"


def _dtype_choice(found, choices):
    return the_true_choice({letter: found == dtype for letter, dtype in choices.items()})


def test_int_dtype_key():
    found = torch.tensor([1, 2, 3]).dtype
    choices = {"A": torch.float32, "B": torch.int32, "C": torch.int64, "D": torch.uint8}
    assert _dtype_choice(found, choices) == key_of(LESSON, "answer_int_dtype")


def test_numpy_float_dtype_key():
    found = outcome(lambda: torch.from_numpy(np.array([1.0, 2.0])).dtype)
    choices = {"A": torch.float32, "B": torch.float16, "C": ValueError, "D": torch.float64}
    holds = {letter: found == want or (letter == "C" and isinstance(found, type)) for letter, want in choices.items()}
    assert the_true_choice(holds) == key_of(LESSON, "answer_numpy_float_dtype")


def test_linear_int_input_key():
    layer = nn.Linear(3, 2)
    x = torch.tensor([[1, 2, 3]])
    try:
        out, error = layer(x), None
    except Exception as exc:
        out, error = None, exc
    holds = {
        "A": isinstance(error, RuntimeError),
        "B": out is not None and out.dtype == torch.float32,
        "C": out is not None and out.dtype == torch.int64,
        "D": isinstance(error, TypeError),
    }
    assert the_true_choice(holds) == key_of(LESSON, "answer_linear_int_input")


def test_cast_values_key():
    found = torch.tensor([-0.7, 2.5, 260.0]).long().to(torch.uint8).tolist()
    holds = {"A": found == [0, 2, 4], "B": found == [0, 3, 4], "C": found == [255, 2, 4], "D": found == [0, 2, 255]}
    assert the_true_choice(holds) == key_of(LESSON, "answer_cast_values")


def test_zero_d_promotion_key():
    h = torch.ones(4, dtype=torch.float16)
    s = torch.tensor(0.1, dtype=torch.float64)
    found = outcome(lambda: (h * s).dtype)
    holds = {
        "A": found == torch.float64,
        "B": found == torch.float32,
        "C": found == torch.float16,
        "D": isinstance(found, type),
    }
    assert the_true_choice(holds) == key_of(LESSON, "answer_zero_d_promotion")


def test_uint8_wrap_key():
    x = torch.tensor([250, 10], dtype=torch.uint8)
    found = outcome(lambda: (x + x).float().mean().item())
    holds = {"A": found == 260.0, "B": found == 132.0, "C": found == 137.5, "D": isinstance(found, type)}
    assert the_true_choice(holds) == key_of(LESSON, "answer_uint8_wrap")
