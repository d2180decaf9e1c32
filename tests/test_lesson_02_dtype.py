"""Unit tests for the pictures of lesson 02 (data types)."""

import matplotlib.pyplot as plt
import torch
from matplotlib.figure import Figure

from course.pictures.dtype import dtype_rows, dtype_table, range_and_precision


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
