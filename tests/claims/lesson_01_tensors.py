"""Claims of lesson 01 (tensors, rank and shape)."""

import warnings

import numpy as np
import pytest
import torch
from torch import nn

from tests.claims import claim

NEGATIVE_STRIDE_VIEWS = [
    np.arange(6, dtype=np.int16).reshape(2, 3)[:, ::-1],
    np.arange(5.0)[::-1],
    np.zeros((1, 10, 20))[::-1],
    np.zeros((3, 1), dtype=np.float32)[:, ::-1],
    np.zeros((2, 1, 3))[:, ::-1],
    np.flip(np.arange(24, dtype=np.uint8).reshape(2, 3, 4)),
    np.arange(24).reshape(2, 3, 4)[::-1, :, ::-2],
]


@claim(
    "01_tensors",
    "`torch.tensor([1, 2, 3])` builds a tensor the way `np.array([1, 2, 3])` builds an array; both keep one dtype for all their elements",
)
def _():
    assert torch.tensor([1, 2.5, 3]).dtype == torch.float32
    assert np.array([1, 2.5, 3]).dtype == np.float64


@claim("01_tensors", "The layers and losses in `torch.nn` only accept tensors.")
def _():
    with pytest.raises(TypeError):
        nn.Linear(2, 2)(np.zeros((1, 2), dtype=np.float32))
    with pytest.raises(TypeError):
        nn.CrossEntropyLoss()(np.zeros((2, 3), dtype=np.float32), np.array([0, 1]))


@claim("01_tensors", "| Default float dtype | `float64` | `float32` |")
def _():
    assert np.array([1.0]).dtype == np.float64
    assert torch.tensor([1.0]).dtype == torch.float32


@claim("01_tensors", "| Shape | `a.shape`, a plain `tuple` | `t.shape`, a `torch.Size` (a kind of tuple) |")
def _():
    assert type(np.zeros((2, 3)).shape) is tuple
    shape = torch.zeros(2, 3).shape
    assert type(shape) is torch.Size and isinstance(shape, tuple)


@claim("01_tensors", "| Number of dimensions | `a.ndim` | `t.dim()` or `t.ndim` |")
def _():
    assert np.zeros((2, 3, 4)).ndim == 3
    t = torch.zeros(2, 3, 4)
    assert t.dim() == t.ndim == 3


@claim(
    "01_tensors", "| Reversing with a negative step | `a[::-1]`, a free view | not allowed; `torch.flip` makes a copy |"
)
def _():
    a = np.arange(5)
    assert np.shares_memory(a, a[::-1])
    t = torch.arange(5)
    with pytest.raises(ValueError):
        t[::-1]
    flipped = torch.flip(t, dims=[0])
    assert flipped.tolist() == [4, 3, 2, 1, 0]
    assert flipped.untyped_storage().data_ptr() != t.untyped_storage().data_ptr()


@claim(
    "01_tensors",
    "`t.numpy()` gives an array (from a CPU tensor in a dtype NumPy has, not bfloat16; a tensor that requires grad is refused outside `torch.no_grad()`, so `.detach()` it first)",
)
def _():
    with torch.no_grad():
        assert torch.ones(2, requires_grad=True).numpy().tolist() == [1.0, 1.0]
    assert torch.ones(2, requires_grad=True).detach().numpy().tolist() == [1.0, 1.0]
    assert isinstance(torch.zeros(2).numpy(), np.ndarray)
    with pytest.raises((RuntimeError, TypeError, NotImplementedError)):
        torch.zeros(2, device="meta").numpy()
    with pytest.raises(RuntimeError, match="requires grad"):
        torch.zeros(2, requires_grad=True).numpy()
    with pytest.raises(TypeError):
        torch.zeros(2, dtype=torch.bfloat16).numpy()
    assert torch.zeros(2, dtype=torch.float16).numpy().dtype == np.float16


@claim(
    "01_tensors",
    "If you only need numerical processing (statistics on a table, a simulation, image arithmetic), NumPy may be enough",
)
def _():
    table = np.random.default_rng(0).normal(size=(100, 3))
    assert table.mean(axis=0).shape == (3,) and np.cov(table.T).shape == (3, 3)
    image = np.arange(12, dtype=np.uint8).reshape(3, 4)
    assert (image.astype(np.int16) - 1).min() == -1


@claim(
    "01_tensors",
    "The array both of them refuse most often is a view with a **negative stride**. (They also refuse arrays whose bytes are in the other byte order, such as a `>f8` array read from a file written on another kind of machine, and dtypes that have no tensor dtype, such as `np.longdouble`; `arr.astype(np.float64)` fixes both.)",
)
def _():
    swapped = np.arange(3.0).astype(">f8")
    wide = np.arange(3, dtype=np.longdouble)
    for convert in (torch.from_numpy, torch.tensor):
        with pytest.raises(ValueError):
            convert(np.arange(3.0)[::-1])
        with pytest.raises(ValueError, match="byte order"):
            convert(swapped)
        with pytest.raises(TypeError):
            convert(wide)
        assert convert(swapped.astype(np.float64)).tolist() == [0.0, 1.0, 2.0]
        assert convert(wide.astype(np.float64)).dtype == torch.float64


@claim("01_tensors", "They also refuse the other byte order and dtypes without a tensor dtype.")
def _():
    with pytest.raises(ValueError):
        torch.from_numpy(np.zeros(2, dtype=">i4"))
    with pytest.raises(TypeError):
        torch.from_numpy(np.zeros(2, dtype=np.longdouble))


@claim(
    "01_tensors",
    "It must work for every numeric or bool dtype that PyTorch has a tensor dtype for (the tests use native byte order)",
)
def _():
    for dtype in (
        np.bool_,
        np.uint8,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.uint16,
        np.uint32,
        np.uint64,
        np.float16,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
    ):
        assert torch.from_numpy(np.ones((2, 2), dtype=dtype)).shape == (2, 2)


@claim("01_tensors", "Each integer index (2, and -1 for the last column) removes its dimension")
def _():
    assert tuple(torch.zeros(6, 4, 5, 7)[2, :, 1:4, -1].shape) == (4, 3)


@claim(
    "01_tensors",
    "It is a `torch.Size`, which is a kind of tuple: you can index it, unpack it, take its `len` (the rank), and compare it with a tuple.",
)
def _():
    shape = torch.zeros(2, 3, 4).shape
    assert shape[0] == 2 and shape[-1] == 4
    first, second, third = shape
    assert (first, second, third) == (2, 3, 4)
    assert len(shape) == 3
    assert shape == (2, 3, 4)


@claim(
    "01_tensors",
    "`t.size()` gives the same thing, and `t.size(1)` the size of one dimension. `t.numel()` is the total number of elements, the product of the sizes.",
)
def _():
    t = torch.zeros(2, 3, 4)
    assert t.size() == t.shape and t.size(1) == 3
    assert t.numel() == 24


@claim(
    "01_tensors",
    "a meta tensor has a shape, a dtype and a device but no numbers at all, so it costs no memory even when it is huge.",
)
def _():
    huge = torch.zeros(10**12, device="meta")
    assert huge.shape == (10**12,) and huge.dtype == torch.float32 and huge.device.type == "meta"
    with pytest.raises((RuntimeError, NotImplementedError)):
        huge[0].item()


@claim("01_tensors", "`torch.zeros(2, 3)` and `torch.ones(2, 3)`: filled with 0 or 1")
def _():
    assert torch.zeros(2, 3).eq(0).all() and torch.ones(2, 3).eq(1).all()
    assert torch.zeros((2, 3)).shape == torch.zeros(2, 3).shape


@claim(
    "01_tensors",
    "the `_like` versions (`torch.zeros_like(t)`), which copy the shape, dtype and device of another tensor.",
)
def _():
    for template in (torch.ones(4, 5, dtype=torch.int16), torch.ones(2, 3, dtype=torch.float16, device="meta")):
        made = torch.zeros_like(template)
        assert (made.shape, made.dtype, made.device) == (template.shape, template.dtype, template.device)


@claim("01_tensors", "Each integer index removes one dimension; a slice keeps it.")
def _():
    x = torch.arange(12).reshape(3, 4)
    assert x[0].shape == (4,) and x[:, 0].shape == (3,) and x[1, 2].shape == ()
    assert x[1:3].shape == (2, 4) and x[:, 0:1].shape == (3, 1)


@claim(
    "01_tensors",
    "`x[x > 5]` the elements where a condition holds (a **boolean mask**, itself a tensor of `True`/`False` with `x`'s shape)",
)
def _():
    x = torch.arange(12).reshape(3, 4)
    mask = x > 5
    assert mask.dtype == torch.bool and mask.shape == x.shape
    assert x[mask].tolist() == list(range(6, 12))


@claim(
    "01_tensors",
    "As in NumPy, a slice is a *view*: it shares memory with the tensor it came from, so writing into the slice writes into the original.",
)
def _():
    y = torch.arange(12).reshape(3, 4)
    row = y[1]
    row[0] = 100
    assert y[1, 0] == 100
    column = y[:, 2]
    column[:] = -5
    assert y[:, 2].tolist() == [-5, -5, -5]


@claim("01_tensors", "A mask works for assignment too. Use `.clone()` when you want an independent copy.")
def _():
    y = torch.arange(6)
    y[y % 2 == 1] = -1
    assert y.tolist() == [0, -1, 2, -1, 4, -1]
    safe = y.clone()
    safe[:] = 0
    assert y.tolist() == [0, -1, 2, -1, 4, -1]


@claim(
    "01_tensors",
    "`torch.stack` joins tensors of one shape along a new dimension (the first one, unless you pass `dim`), and refuses tensors of different shapes.",
)
def _():
    assert torch.stack([torch.zeros(2, 3), torch.ones(2, 3)]).shape == (2, 2, 3)
    assert torch.stack([torch.zeros(2, 3), torch.ones(2, 3)], dim=2).shape == (2, 3, 2)
    with pytest.raises(RuntimeError):
        torch.stack([torch.zeros(2), torch.zeros(3)])


@claim(
    "01_tensors",
    "A slice assignment converts the values to the dtype of the tensor written into, so the int sequences land in a float32 batch.",
)
def _():
    batch = torch.zeros(2, 3)
    batch[0, :2] = torch.tensor([3, 1])
    batch[1, :1] = torch.tensor([True])
    assert batch.dtype == torch.float32
    assert batch.tolist() == [[3.0, 1.0, 0.0], [1.0, 0.0, 0.0]]


@claim(
    "01_tensors",
    "`torch.from_numpy(a)` wraps the array's memory as a tensor without copying it (lesson {04_numpy} is about that sharing), and `torch.tensor(a)` copies it.",
)
def _():
    a = np.zeros(3)
    assert np.shares_memory(a, torch.from_numpy(a).numpy())
    assert not np.shares_memory(a, torch.tensor(a).numpy())


@claim(
    "01_tensors",
    "PyTorch tensors only support strides of zero or more, so a tensor cannot describe such a view, and `from_numpy`, which promises not to copy, has no way out: it raises a `ValueError`. (`torch.tensor` refuses the same views.)",
)
def _():
    with pytest.raises(RuntimeError):
        torch.zeros(5).as_strided((5,), (-1,))
    for view in NEGATIVE_STRIDE_VIEWS:
        assert any(step < 0 for step in view.strides)
        with pytest.raises(ValueError):
            torch.from_numpy(view)
        with pytest.raises(ValueError):
            torch.tensor(view)


@claim("01_tensors", "For the same reason `t[::-1]` does not work on a tensor.")
def _():
    with pytest.raises(ValueError):
        torch.arange(5)[::-1]


@claim(
    "01_tensors",
    "The fix is to make a fresh array with ordinary strides first: `flipped.copy()`. A copy is laid out anew, row after row, so its strides are never negative, whatever the view looked like.",
)
def _():
    for view in NEGATIVE_STRIDE_VIEWS + [np.array(7.0)]:
        copy = view.copy()
        assert all(step >= 0 for step in copy.strides) and copy.flags["C_CONTIGUOUS"]
        tensor = torch.from_numpy(copy)
        assert tuple(tensor.shape) == view.shape and np.array_equal(tensor.numpy(), view)


@claim(
    "01_tensors",
    "So `np.zeros((1, 10, 20))[::-1]` comes back unchanged, negative stride and all, and `from_numpy` still refuses it.",
)
def _():
    view = np.zeros((1, 10, 20))[::-1]
    assert view.strides[0] < 0
    assert np.ascontiguousarray(view) is view
    with pytest.raises(ValueError):
        torch.from_numpy(np.ascontiguousarray(view))


@claim("01_tensors", "It also turns a 0-d array into a 1-element 1-D one.")
def _():
    assert np.ascontiguousarray(np.array(7.0)).shape == (1,)
    assert np.array(7.0).copy().shape == ()


@claim(
    "01_tensors",
    "a transposed array, a slice with a positive step (`a[::2]`), or a broadcast array all have strides of zero or more, and `from_numpy` accepts them.",
)
def _():
    a = np.arange(6, dtype=np.int16).reshape(2, 3)
    for view in (a.T, a[:, ::2], a[::2], np.broadcast_to(np.arange(3), (4, 3))):
        assert all(step >= 0 for step in view.strides)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # a read-only array only earns a warning
            assert tuple(torch.from_numpy(view).shape) == view.shape


@claim("01_tensors", "`torch.Size([2, 3]) == [2, 3]` is `False`; compare with a tuple.")
def _():
    assert (torch.Size([2, 3]) == [2, 3]) is False
    assert (torch.Size([2, 3]) == (2, 3)) is True


@claim("01_tensors", "taking `len(t)` for the rank: it is the size of the first dimension (and fails on a 0-d tensor)")
def _():
    assert len(torch.zeros(5, 2)) == 5
    with pytest.raises(TypeError):
        len(torch.tensor(3.0))


@claim("01_tensors", "mixing up a 0-d tensor, shape `()`, with a one-element vector, shape `(1,)`")
def _():
    assert torch.tensor(3.0).shape == () and torch.tensor([3.0]).shape == (1,)


@claim("01_tensors", "Here a convolution that expects 3 input channels gets a channels-last image, and says so:")
def _():
    conv = nn.Conv2d(in_channels=3, out_channels=8, kernel_size=3)
    with pytest.raises(RuntimeError, match="channels"):
        conv(torch.rand(32, 32, 3))
    assert conv(torch.rand(32, 32, 3).permute(2, 0, 1)).shape == (8, 30, 30)


@claim("01_tensors", "PyTorch functions want tensors, the default float dtypes differ")
def _():
    with pytest.raises(TypeError):
        torch.exp(np.array([0.0, 1.0]))
    assert np.array([1.0]).dtype != torch.tensor([1.0]).numpy().dtype


@claim(
    "01_tensors",
    "PyTorch also has a `torch.channels_last` memory format, which keeps the `(B, C, H, W)` shape and only stores the numbers in another order; it is a speed setting, not a layout you index differently.)",
)
def _():
    x = torch.arange(2 * 3 * 4 * 5.0).reshape(2, 3, 4, 5)
    y = x.to(memory_format=torch.channels_last)
    assert y.shape == x.shape and torch.equal(x, y) and y[1, 2, 3, 4] == x[1, 2, 3, 4]
    assert y.is_contiguous(memory_format=torch.channels_last) and y.stride()[1] == 1


@claim(
    "01_tensors",
    "`row += 1` (like `row.add_(1)`) changes `row`'s own entries **in place**, so through a view it changes the original too.",
)
def _():
    for step in (lambda row: row.__iadd__(1), lambda row: row.add_(1)):
        z = torch.zeros(2, 3)
        row = z[0]
        kept = step(row)
        assert kept is row and z[0].tolist() == [1.0, 1.0, 1.0] and z[1].tolist() == [0.0, 0.0, 0.0]


@claim(
    "01_tensors",
    "`row = row + 1` computes a new tensor and then points the name `row` at it: the original, and the memory `row` used to view, are left as they were.",
)
def _():
    z = torch.zeros(2, 3)
    row = z[0]
    viewed = row
    row = row + 1
    assert row.untyped_storage().data_ptr() != z.untyped_storage().data_ptr()
    assert z.tolist() == [[0.0] * 3] * 2 and viewed.tolist() == [0.0] * 3 and row.tolist() == [1.0] * 3


@claim(
    "01_tensors",
    "(A layer such as `nn.Conv2d` also takes a single image of rank 3, `(C, H, W)`, but training and inference run on batches.)",
)
def _():
    conv = nn.Conv2d(3, 4, 3)
    image = torch.randn(3, 8, 8)
    assert conv(image).shape == (4, 6, 6)
    assert torch.allclose(conv(image), conv(image[None])[0], atol=1e-6)
    assert conv(torch.randn(5, 3, 8, 8)).shape == (5, 4, 6, 6)
