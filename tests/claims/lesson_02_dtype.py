"""Claims of lesson 02 (data types)."""

import io
import warnings

import numpy as np
import pytest
import torch
from torch import nn

from tests.claims import claim


@claim("02_dtype", "Python ints become `int64`;")
def _():
    assert torch.tensor([1, 2, 3]).dtype == torch.int64
    assert torch.tensor(7).dtype == torch.int64


@claim("02_dtype", "`torch.arange(5)` follows its arguments: `int64` for ints, `float32` for `torch.arange(5.0)`;")
def _():
    assert torch.arange(5).dtype == torch.int64
    assert torch.arange(5.0).dtype == torch.float32


@claim(
    "02_dtype",
    "All the elements of a tensor share one dtype, as in NumPy: a list that mixes ints and floats becomes a tensor of floats.",
)
def _():
    assert torch.tensor([1, 2.5, 3]).dtype == torch.float32
    assert torch.tensor([True, 2]).dtype == torch.int64


@claim(
    "02_dtype",
    "`t.dtype` tells you the dtype, `t.element_size()` the bytes per element, and `t.is_floating_point()` whether it holds floats.",
)
def _():
    t = torch.zeros(3, dtype=torch.float16)
    assert t.dtype == torch.float16 and t.element_size() == 2 and t.is_floating_point()
    assert not torch.zeros(3, dtype=torch.int32).is_floating_point()


@claim("02_dtype", "a million numbers take 4 MB as `float32` and twice as much as `float64`.")
def _():
    assert torch.zeros(1_000_000).nbytes == 4_000_000
    assert torch.zeros(1_000_000, dtype=torch.float64).nbytes == 8_000_000


@claim("02_dtype", "Python floats become `float32`, PyTorch's *default dtype* (`torch.get_default_dtype()`);")
def _():
    assert torch.get_default_dtype() == torch.float32
    assert torch.tensor([1.0, 2.0]).dtype == torch.float32


@claim("02_dtype", "Python bools become `bool`;")
def _():
    assert torch.tensor([True, False]).dtype == torch.bool


@claim("02_dtype", "`torch.zeros`, `torch.ones`, `torch.randn` and `torch.linspace` make `float32`;")
def _():
    for made in (torch.zeros(2), torch.ones(2), torch.randn(2), torch.linspace(0, 1, 3)):
        assert made.dtype == torch.float32


@claim("02_dtype", "an `int32` stops a little above two billion, an `int64` above nine quintillion.")
def _():
    assert torch.iinfo(torch.int32).max == 2_147_483_647
    assert 9 * 10**18 < torch.iinfo(torch.int64).max < 10**19


@claim("02_dtype", "`torch.from_numpy(a)` keeps the array's dtype")
def _():
    for dtype in (np.float64, np.float32, np.int64, np.int32, np.uint8, np.bool_):
        a = np.zeros(2, dtype=dtype)
        assert torch.from_numpy(a).numpy().dtype == a.dtype


@claim("02_dtype", "`torch.tensor(a)` copies, but keeps the dtype too.")
def _():
    a = np.array([1.0, 2.0])
    t = torch.tensor(a)
    assert t.dtype == torch.float64
    t[0] = 5
    assert a[0] == 1.0


@claim(
    "02_dtype",
    "in arithmetic with a `float32` tensor of features or weights, the result is `float64` too (between two tensors that have dimensions, the `float64` wins;",
)
def _():
    weights = torch.randn(3)
    features = torch.from_numpy(np.array([0.5, 1.5, 2.5]))
    assert (weights * features).dtype == torch.float64


@claim("02_dtype", "A cast returns a **new** tensor and leaves the original as it was, so write `t = t.float()`.")
def _():
    counts = torch.tensor([3, 0, 7])
    as_float = counts.float()
    assert counts.dtype == torch.int64 and as_float.dtype == torch.float32


@claim("02_dtype", "(When `t` already has the dtype, you get `t` itself back, not a copy.)")
def _():
    t = torch.tensor([1.0, 2.0])
    assert t.float() is t and t.to(torch.float32) is t
    n = torch.tensor([1, 2])
    assert n.long() is n


@claim("02_dtype", "dtype and device in one call: `t.to(device, torch.float32)`;")
def _():
    moved = torch.tensor([1, 2]).to("meta", torch.float32)
    assert moved.device.type == "meta" and moved.dtype == torch.float32


@claim("02_dtype", "float to int drops the fraction, towards zero (`-1.7` becomes `-1`; it does not round);")
def _():
    assert torch.tensor([1.7, -1.7, 2.5, -2.5]).long().tolist() == [1, -1, 2, -2]


@claim(
    "02_dtype",
    "an integer outside the range of a smaller integer dtype wraps around, keeping only the low bits (`300` as `uint8` is `44`, and `-1` is `255`);",
)
def _():
    assert torch.tensor([300, 256, -1]).to(torch.uint8).tolist() == [44, 0, 255]
    assert torch.tensor([200, 130]).to(torch.int8).tolist() == [200 - 256, 130 - 256]


@claim("02_dtype", "so clamp first (`x.clamp(0, 255)` before `.to(torch.uint8)`) when the values may not fit;")
def _():
    assert torch.tensor([312.5, -3.0, 17.9]).clamp(0, 255).to(torch.uint8).tolist() == [255, 0, 17]


@claim(
    "02_dtype",
    "`float32` keeps about 6 significant digits (the table's figure) and holds whole numbers exactly only up to 2**24 = 16,777,216, so larger ints can lose their last digits;",
)
def _():
    from course.pictures.dtype import range_and_precision

    assert "about 6 significant digits" in range_and_precision(torch.float32)
    assert torch.finfo(torch.float32).resolution == 1e-6
    exact = torch.arange(2**24 - 3, 2**24 + 1)
    assert torch.equal(exact.float().long(), exact)
    assert torch.tensor([16_777_216, 16_777_217, 16_777_218]).float().long().tolist() == [
        16_777_216,
        16_777_216,
        16_777_218,
    ]


@claim("02_dtype", "anything to `bool` is `True` when it is not zero.")
def _():
    assert torch.tensor([0.0, 2.0, -0.5, float("nan")]).bool().tolist() == [False, True, True, True]
    assert torch.tensor([0, 3, -1]).bool().tolist() == [False, True, True]


@claim(
    "02_dtype",
    "Between tensors that have dimensions, the higher kind wins: `int64` with `float32` gives `float32`. Within one kind the result is the smallest dtype that holds both: `float32` with `float64` gives `float64`, `int32` with `int64` gives `int64`. That is usually the wider one, but not always: `uint8` with `int8` gives `int16` (neither holds the other's range), and `float16` with `bfloat16` gives `float32`.",
)
def _():
    def both(a, b):
        return (torch.ones(2, dtype=a) + torch.ones(2, dtype=b)).dtype

    assert both(torch.int64, torch.float32) == torch.float32
    assert both(torch.float32, torch.float64) == torch.float64
    assert both(torch.int32, torch.int64) == torch.int64
    assert both(torch.bool, torch.uint8) == torch.uint8
    assert both(torch.uint8, torch.int8) == torch.int16
    assert both(torch.float16, torch.bfloat16) == torch.float32
    assert both(torch.uint8, torch.int16) == torch.int16


@claim(
    "02_dtype",
    "So `t * 2.5` stays `float32` for a `float32` tensor `t`, and a `float32` vector times a 0-d `float64` tensor stays `float32`.",
)
def _():
    assert (torch.ones(2) * 2.5).dtype == torch.float32
    assert (torch.ones(2) * torch.tensor(3.0, dtype=torch.float64)).dtype == torch.float32
    assert torch.result_type(torch.ones(2), torch.tensor(3.0, dtype=torch.float64)) == torch.float32


@claim(
    "02_dtype",
    "But an `int64` vector times a 0-d `float64` tensor becomes `float64`, and an `int64` tensor plus `0.5` becomes `float32`, the default dtype.",
)
def _():
    assert (torch.tensor([7, 2]) * torch.tensor(3.0, dtype=torch.float64)).dtype == torch.float64
    assert (torch.tensor([7, 2]) + 0.5).dtype == torch.float32


@claim("02_dtype", "Division `/` always gives floats; `//` keeps ints.")
def _():
    ints = torch.tensor([7, 2])
    assert (ints / ints).dtype == torch.float32 and (ints / 2).dtype == torch.float32
    assert (ints // 2).dtype == torch.int64 and (ints // 2).tolist() == [3, 1]


@claim("02_dtype", "The same rules keep two `uint8` tensors in `uint8`, and a Python int does not widen them either.")
def _():
    pixels = torch.tensor([10, 200, 250], dtype=torch.uint8)
    assert (pixels + pixels).dtype == torch.uint8
    assert (pixels + 100).dtype == torch.uint8


@claim(
    "02_dtype", "a pixel of 200 made brighter by 100 becomes 44, and 10 - 200 becomes 66, without any error or warning."
)
def _():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (torch.tensor([200], dtype=torch.uint8) + 100).tolist() == [44]
        assert (torch.tensor(10, dtype=torch.uint8) - torch.tensor(200, dtype=torch.uint8)).item() == 66


@claim("02_dtype", "`sum` works on ints (and gives `int64`); `mean` wants a float tensor, so cast first.")
def _():
    for dtype in (torch.int64, torch.int32, torch.uint8, torch.bool):
        assert torch.tensor([1, 0, 1], dtype=dtype).sum().dtype == torch.int64
        with pytest.raises(RuntimeError):
            torch.tensor([1, 0, 1], dtype=dtype).mean()
    assert torch.tensor([1, 0, 1, 1]).float().mean().item() == 0.75


@claim("02_dtype", "That matrix product needs both sides in one dtype, and PyTorch does not cast your input for you.")
def _():
    layer = nn.Linear(3, 2)
    with pytest.raises(RuntimeError, match="Long and Float"):
        layer(torch.tensor([[1, 2, 3]]))
    assert layer(torch.tensor([[1, 2, 3]]).float()).dtype == torch.float32


@claim(
    "02_dtype", "NumPy's `float64` fails the same way (`Double` is PyTorch's name for `float64`, `Long` for `int64`)."
)
def _():
    with pytest.raises(RuntimeError, match="Double and Float"):
        nn.Linear(3, 2)(torch.from_numpy(np.array([[0.1, 0.2, 0.3]])))


@claim(
    "02_dtype",
    "A float tensor of that shape makes the loss raise an error, and so does an `int32` one; cast the inputs, not the labels.",
)
def _():
    logits = torch.randn(2, 3)
    loss = nn.CrossEntropyLoss()
    assert loss(logits, torch.tensor([0, 2])).dtype == torch.float32
    for labels in (torch.tensor([0.0, 2.0]), torch.tensor([0, 2], dtype=torch.int32)):
        with pytest.raises(RuntimeError):
            loss(logits, labels)


@claim(
    "02_dtype", "(A float target of the logits' own shape `(N, C)` means something else: a probability for each class.)"
)
def _():
    logits = torch.randn(2, 3)
    probabilities = torch.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    by_index = nn.CrossEntropyLoss()(logits, torch.tensor([2, 0]))
    assert torch.allclose(nn.CrossEntropyLoss()(logits, probabilities), by_index)


@claim("02_dtype", "`np.loadtxt` reads every column as `float64`, so the labels arrive as floats too (`2.0`, not `2`).")
def _():
    table = np.loadtxt(io.StringIO("0.5,1.5,2\n1.0,-0.5,0\n"), delimiter=",")
    assert table.dtype == np.float64 and table[0, -1] == 2.0


@claim(
    "02_dtype",
    "most arithmetic is not implemented for them (`torch.zeros(3, dtype=torch.uint32) + 1` raises), so cast them to `int64` before you compute.",
)
def _():
    for dtype in (torch.uint16, torch.uint32, torch.uint64):
        stored = torch.zeros(3, dtype=dtype)
        with pytest.raises((NotImplementedError, RuntimeError)):
            stored + 1
        assert (stored.to(torch.int64) + 1).tolist() == [1, 1, 1]


@claim("02_dtype", "`torch.full` follows its fill value in the same way (`torch.full((2, 3), 7)` is `int64`);")
def _():
    assert torch.full((2, 3), 7).dtype == torch.int64
    assert torch.full((2, 3), 7.0).dtype == torch.float32
    assert torch.full((2,), True).dtype == torch.bool


@claim("02_dtype", "`torch.randint` and `torch.randperm` make `int64`: they draw whole numbers.")
def _():
    assert torch.randint(0, 9, (2,)).dtype == torch.int64 and torch.randperm(4).dtype == torch.int64


@claim(
    "02_dtype",
    'Many training scripts go further and compute in a 16-bit float (`bfloat16` or `float16`, "mixed precision") where that is safe, keeping `float32` where precision matters.',
)
def _():
    layer = nn.Linear(4, 2)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = layer(torch.randn(3, 4))
    assert out.dtype == torch.bfloat16 and layer.weight.dtype == torch.float32


@claim(
    "02_dtype",
    "`zeros`, `ones` and `randn` make `float32`, while `arange`, `full` and `randint` follow their arguments or make `int64`.",
)
def _():
    assert {torch.zeros(1).dtype, torch.ones(1).dtype, torch.randn(1).dtype} == {torch.float32}
    assert torch.arange(3).dtype == torch.int64 and torch.arange(3.0).dtype == torch.float32
    assert torch.full((1,), 2).dtype == torch.int64 and torch.randint(0, 3, (1,)).dtype == torch.int64


@claim(
    "02_dtype",
    "the higher kind wins, then the smallest dtype that holds both (usually the wider one), but a 0-d tensor or a Python number only counts when it is of a higher kind.",
)
def _():
    assert (torch.ones(2, dtype=torch.uint8) + torch.ones(2, dtype=torch.int8)).dtype == torch.int16
    assert (torch.ones(2, dtype=torch.int8) + torch.tensor(1000)).dtype == torch.int8
    assert (torch.ones(2, dtype=torch.int8) + torch.tensor(1.5, dtype=torch.float64)).dtype == torch.float64
    assert (torch.ones(2, dtype=torch.int8) + 1.5).dtype == torch.float32


@claim(
    "02_dtype",
    "Here is the same rule with another integer dtype, `uint8` pixels (`Byte` is PyTorch's name for `uint8`), and the fix:",
)
def _():
    with pytest.raises(RuntimeError, match="Byte and Float"):
        nn.Linear(3, 2)(torch.tensor([[0, 128, 255]], dtype=torch.uint8))


@claim(
    "02_dtype", "float to int drops the fraction towards zero (-0.7 becomes 0, 2.5 becomes 2; no rounding, no floor)"
)
def _():
    assert torch.tensor([-0.7, 2.5, 260.0]).long().tolist() == [0, 2, 260]
    assert torch.tensor([-0.7, 2.5, 260.0]).long().to(torch.uint8).tolist() == [0, 2, 4]


@claim("02_dtype", "a 0-d tensor (or a Python number) changes the result only when it is of a higher ")
def _():
    assert (torch.ones(4, dtype=torch.float16) * torch.tensor(0.1, dtype=torch.float64)).dtype == torch.float16


@claim("02_dtype", "x + x is computed in uint8 before the cast: 250 + 250 = 500 wraps around to 500 - 256 = 244")
def _():
    x = torch.tensor([250, 10], dtype=torch.uint8)
    assert (x + x).tolist() == [244, 20] and (x + x).float().mean().item() == 132.0


@claim(
    "02_dtype", "NumPy's default float is `float64`, and `torch.from_numpy` and `torch.tensor` keep an array's dtype."
)
def _():
    assert np.array([1.0]).dtype == np.float64 and np.zeros(2).dtype == np.float64
    for dtype in (np.float16, np.float32, np.float64, np.int16):
        a = np.zeros(2, dtype=dtype)
        assert torch.from_numpy(a).numpy().dtype == dtype and torch.tensor(a).numpy().dtype == dtype
