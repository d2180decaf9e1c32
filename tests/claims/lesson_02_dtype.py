"""Claims of lesson 02 (data types)."""

import torch

from tests.claims import claim


@claim("02_dtype", "Python ints become `int64`;")
def _():
    assert torch.tensor([1, 2, 3]).dtype == torch.int64
    assert torch.tensor(7).dtype == torch.int64


@claim("02_dtype", "`torch.arange(5)` follows its arguments: `int64` for ints, `float32` for `torch.arange(5.0)`.")
def _():
    assert torch.arange(5).dtype == torch.int64
    assert torch.arange(5.0).dtype == torch.float32
