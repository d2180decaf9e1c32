"""Claims of lesson 04 (NumPy interop): what shares memory, what copies, what raises."""

import numpy as np
import pytest
import torch

from tests.claims import claim

LESSON = "04_numpy"


def _raises(exc_type, func, *args):
    with pytest.raises(exc_type) as info:
        func(*args)
    return info.value


def _shares(t: torch.Tensor, a: np.ndarray) -> bool:
    return np.shares_memory(t.detach().numpy(), a)


def _views() -> list[np.ndarray]:
    """Views with negative strides, including ones NumPy still calls contiguous."""
    base = np.arange(2 * 3 * 4, dtype=np.float64).reshape(2, 3, 4)
    return [
        base[::-1],
        base[:, ::-1],
        base[..., ::-1],
        base[::-1, ::2, ::-3],
        np.zeros((1, 10, 20))[::-1],
        np.arange(5.0).reshape(5, 1)[:, ::-1],
        np.arange(3, dtype=np.uint8)[::-1],
        np.zeros(1)[::-1],
        np.zeros((0, 3))[::-1],
    ]


@claim(LESSON, "default float dtype | float64 | float32")
def _():
    assert np.array([1.0]).dtype == np.float64
    assert torch.tensor([1.0]).dtype == torch.float32


@claim(LESSON, "no: `t[::-1]` raises, `t.flip(0)` makes a copy")
def _():
    t = torch.arange(4)
    _raises(ValueError, lambda: t[::-1])
    flipped = t.flip(0)
    assert flipped.tolist() == [3, 2, 1, 0]
    flipped[0] = 100
    assert t.tolist() == [0, 1, 2, 3]


@claim(
    LESSON,
    "`torch.from_numpy(a)` does not copy anything. It builds a tensor object that points at the "
    "array's own block of memory, with the same dtype (a float64 array gives a float64 tensor) and shape.",
)
def _():
    a = np.zeros((2, 3))
    t = torch.from_numpy(a)
    assert t.dtype == torch.float64 and tuple(t.shape) == a.shape and _shares(t, a)
    a[0, 1] = 5.0
    t[1, 2] = -1.0
    assert t[0, 1].item() == 5.0 and a[1, 2] == -1.0


@claim(
    LESSON,
    "`torch.tensor(a)` always makes a new block of memory and copies the numbers into it. The tensor "
    "keeps the array's dtype (float64 stays float64 unless you pass `dtype=`)",
)
def _():
    for a in (np.zeros(3), np.zeros(3, dtype=np.float32), np.arange(6).reshape(2, 3).T, np.array(2.5)):
        t = torch.tensor(a)
        assert not _shares(t, a)
        assert t.numpy().dtype == a.dtype
    assert torch.tensor(np.zeros(3), dtype=torch.float32).dtype == torch.float32


@claim(
    LESSON,
    "`torch.as_tensor(a)` sits in between: it shares when it can and copies only when it must, for "
    "example when you ask for another dtype or device.",
)
def _():
    a = np.zeros(3)
    assert _shares(torch.as_tensor(a), a)
    assert not _shares(torch.as_tensor(a, dtype=torch.float32), a)
    assert torch.as_tensor(a, device="meta").device.type == "meta"


@claim(
    LESSON,
    "Any dtype change also makes a copy: `torch.from_numpy(a).float()` on a float64 array is a new "
    "float32 tensor that no longer sees `a`.",
)
def _():
    a = np.zeros(3)
    t32 = torch.from_numpy(a).float()
    a[0] = 5.0
    assert t32.dtype == torch.float32 and t32[0].item() == 0.0 and not _shares(t32, a)


@claim(LESSON, "NumPy makes `a[::-1]` without copying anything, by giving it a negative stride")
def _():
    a = np.arange(5.0)
    r = a[::-1]
    assert np.shares_memory(a, r) and r.strides == (-8,)


@claim(
    LESSON,
    "PyTorch tensors cannot have negative strides, so `torch.from_numpy` and even `torch.tensor` refuse such arrays.",
)
def _():
    for view in _views():
        if view.size == 0:
            continue
        _raises(ValueError, torch.from_numpy, view)
        _raises(ValueError, torch.tensor, view)
    _raises(RuntimeError, torch.as_strided, torch.arange(4.0), (4,), (-1,), 3)


@claim(
    LESSON,
    "So `np.zeros((1, 10, 20))[::-1]`, reversed along its size-1 first dimension, comes back unchanged, "
    "negative stride and all, and PyTorch still refuses it. (It also turns a 0-d array into a 1-d one.)",
)
def _():
    odd = np.zeros((1, 10, 20))[::-1]
    same = np.ascontiguousarray(odd)
    assert same is odd and same.strides[0] < 0
    _raises(ValueError, torch.from_numpy, same)
    assert np.ascontiguousarray(np.array(2.0)).shape == (1,)


@claim(LESSON, "`np.ascontiguousarray` can hand back the very same array when the reversed dimension has size 1.")
def _():
    for view in (np.zeros((1, 4))[::-1], np.arange(4.0).reshape(4, 1)[:, ::-1], np.zeros(1)[::-1]):
        assert np.ascontiguousarray(view) is view


@claim(LESSON, "`.copy()` always works.")
def _():
    for view in _views():
        fresh = view.copy()
        t = torch.from_numpy(fresh)
        assert np.array_equal(t.numpy(), view) and t.numpy().dtype == view.dtype
        assert not np.shares_memory(fresh, view)
    assert torch.from_numpy(np.array(3.5).copy()).shape == ()


@claim(LESSON, "That copy is new memory with positive strides")
def _():
    for view in _views():
        assert all(s >= 0 for s in view.copy().strides)


@claim(LESSON, "`t.numpy()` is `torch.from_numpy` in reverse: an array over the tensor's own memory, no copy.")
def _():
    t = torch.zeros(3)
    n = t.numpy()
    n[1] = 7.0
    assert t[1].item() == 7.0 and n.ctypes.data == t.data_ptr()


@claim(
    LESSON,
    "`.numpy()` raises a `RuntimeError` (inside `torch.no_grad()`, which the autograd lesson introduces, it lets "
    "the tensor through). `.detach()` returns a tensor over the same memory that is cut off from the "
    "graph, which `.numpy()` accepts.",
)
def _():
    w = torch.ones(3, requires_grad=True)
    _raises(RuntimeError, w.numpy)
    with torch.no_grad():
        assert w.numpy().tolist() == [1.0, 1.0, 1.0]
    d = w.detach()
    assert not d.requires_grad and d.data_ptr() == w.data_ptr()
    assert np.shares_memory(d.numpy(), w.detach().numpy())


@claim(LESSON, "Without a GPU it uses a `meta` tensor, which is refused with the same `TypeError` and the same advice.")
def _():
    meta = _raises(TypeError, torch.ones(3, device="meta").numpy)
    assert "Tensor.cpu()" in str(meta)
    if torch.cuda.is_available():
        cuda = _raises(TypeError, torch.ones(3, device="cuda").numpy)
        assert "Tensor.cpu()" in str(cuda)


@claim(LESSON, "a meta tensor has no numbers at all, so `.cpu()` cannot help it and fails too")
def _():
    _raises(NotImplementedError, torch.ones(3, device="meta").cpu)


@claim(
    LESSON,
    "`bfloat16`, the 16-bit float that mixed-precision training on modern GPUs often uses, has no NumPy "
    "counterpart, so `.numpy()` raises a `TypeError` for it, also after `.detach().cpu()`.",
)
def _():
    half = torch.tensor([0.1, 2.5], dtype=torch.bfloat16, requires_grad=True)
    _raises(TypeError, half.detach().cpu().numpy)
    _raises(TypeError, lambda: half.numpy(force=True))


@claim(
    LESSON,
    "`.float()` gives float32 and loses nothing, because every bfloat16 number is also a float32 number. "
    "(The same holds for the 8-bit float dtypes.)",
)
def _():
    bits = torch.arange(-(2**15), 2**15, dtype=torch.int32).to(torch.int16)
    every = bits.view(torch.bfloat16)
    finite = every[torch.isfinite(every)]
    assert torch.equal(finite.float().to(torch.bfloat16), finite)
    assert finite.float().numpy().dtype == np.float32
    for dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        values = torch.arange(256, dtype=torch.int32).to(torch.uint8).view(dtype)
        values = values[torch.isfinite(values.float())]
        _raises(TypeError, values.numpy)
        assert torch.equal(values.float().to(dtype).float(), values.float())


@claim(LESSON, "`.detach()` takes it off the autograd graph (free: same memory);")
def _():
    pred = torch.tensor([0.1, 0.9], requires_grad=True) * 2
    d = pred.detach()
    assert d.grad_fn is None and not d.requires_grad and d.data_ptr() == pred.data_ptr()


@claim(LESSON, "`.cpu()` copies it to CPU memory if it is elsewhere, and returns it untouched if it is already there;")
def _():
    t = torch.arange(3.0)
    assert t.cpu() is t
    if torch.cuda.is_available():
        g = t.cuda()
        assert g.cpu().device.type == "cpu" and g.cpu().data_ptr() != g.data_ptr()


@claim(
    LESSON,
    "For a tensor that was already on the CPU, none of these copies, so the array still shares memory "
    "with the tensor. Add `.copy()` at the end when you need an independent array.",
)
def _():
    pred = torch.tensor([0.1, 0.9, 0.4], requires_grad=True) * 2
    out = pred.detach().cpu().numpy()
    assert np.shares_memory(out, pred.detach().numpy())
    assert not np.shares_memory(out.copy(), pred.detach().numpy())


@claim(
    LESSON,
    "A bfloat16 tensor (or an 8-bit float one) still raises a `TypeError` at the last step: put "
    "`.float()` before `.numpy()`. A `meta` tensor has no values at all, so no recipe can turn it into "
    "an array.",
)
def _():
    for dtype in (torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2):
        t = torch.ones(2, requires_grad=dtype == torch.bfloat16).to(dtype)
        _raises(TypeError, t.detach().cpu().numpy)
        assert t.detach().cpu().float().numpy().tolist() == [1.0, 1.0]
    meta = torch.ones(2, device="meta")
    _raises(NotImplementedError, meta.detach().cpu)
    _raises(NotImplementedError, meta.float().cpu)
    with pytest.raises((TypeError, NotImplementedError)):
        meta.numpy(force=True)


@claim(LESSON, "NumPy makes float64 arrays from Python floats and int64 arrays from Python ints")
def _():
    assert np.array([1.0, 2.0]).dtype == np.float64
    assert np.array([1, 2]).dtype == np.int64


@claim(
    LESSON,
    "Converting the dtype on the NumPy side first (`arr.astype(np.float32)`) makes a fresh, ordinary "
    "array, which handles them too.",
)
def _():
    for view in _views():
        fresh = view.astype(np.float32)
        assert not np.shares_memory(fresh, view) and all(s >= 0 for s in fresh.strides)
        assert np.array_equal(torch.from_numpy(fresh).numpy(), view.astype(np.float32))


@claim(LESSON, "`uint8` holds only whole numbers from 0 to 255, so `200 + 100` wraps around to 44")
def _():
    small = torch.tensor([200], dtype=torch.uint8)
    assert (small + 100).item() == 44 and (small + 100).dtype == torch.uint8
    assert (small.float() + 100).item() == 300.0


@claim(LESSON, "channels first with `.permute(0, 3, 1, 2)`: the new dimension 1 is the old dimension 3.")
def _():
    images = torch.arange(2 * 4 * 5 * 3).reshape(2, 4, 5, 3)
    batch = images.permute(0, 3, 1, 2)
    assert tuple(batch.shape) == (2, 3, 4, 5)
    assert all(
        batch[n, c, h, w] == images[n, h, w, c] for n in range(2) for c in range(3) for h in range(4) for w in range(5)
    )


@claim(LESSON, "`reshape` would give the same shape with the pixels scrambled")
def _():
    images = torch.arange(2 * 4 * 5 * 3).reshape(2, 4, 5, 3)
    scrambled = images.reshape(2, 3, 4, 5)
    assert scrambled.shape == images.permute(0, 3, 1, 2).shape
    assert not torch.equal(scrambled, images.permute(0, 3, 1, 2))


@claim(
    LESSON,
    "Use `clamp`, not `clamp_`: a detached tensor shares memory with the original, so clamping it in "
    "place would also change the model's output.",
)
def _():
    out = torch.tensor([1.5, -0.5], requires_grad=True) * 1
    out.detach().clamp(0, 1)
    assert out.tolist() == [1.5, -0.5]
    out.detach().clamp_(0, 1)
    assert out.tolist() == [1.0, 0.0]


@claim(LESSON, "`torch.tensor(a)` always copies; so does any change of dtype or device.")
def _():
    a = np.arange(3.0)
    assert not _shares(torch.tensor(a), a)
    t = torch.from_numpy(a)
    assert not _shares(t.to(torch.float32), a)
    assert t.to("meta").device.type == "meta"


@claim(
    LESSON,
    "`.numpy()` refuses tensors that require grad (`.detach()` first), tensors on a GPU (`.cpu()` "
    "first) and dtypes NumPy lacks such as bfloat16 (`.float()` first).",
)
def _():
    _raises(RuntimeError, torch.ones(2, requires_grad=True).numpy)
    _raises(TypeError, torch.ones(2, device="meta").numpy)
    _raises(TypeError, torch.ones(2, dtype=torch.bfloat16).numpy)
    assert torch.ones(2, dtype=torch.bfloat16).float().numpy().dtype == np.float32


@claim(LESSON, "Here the write goes through the tensor, into an array of ints:")
def _():
    counts = np.arange(4)
    t = torch.from_numpy(counts)
    t[2] = -1
    assert counts.tolist() == [0, 1, -1, 3] and t.dtype == torch.int64


@claim(LESSON, "so it will not copy a GPU tensor across the bus for you: t.numpy() on a CUDA tensor raises a ")
def _():
    with pytest.raises(TypeError):
        torch.ones(2, device="meta").numpy()
    if torch.cuda.is_available():
        with pytest.raises(TypeError, match="cpu"):
            torch.ones(2, device="cuda").numpy()


@claim(LESSON, "a is an array over the memory t had when a was made. The first t += 1 works in place, in that memory,")
def _():
    t = torch.zeros(3)
    a = t.numpy()
    t += 1
    t = t * 2
    t += 1
    assert a.tolist() == [1.0, 1.0, 1.0] and t.tolist() == [3.0, 3.0, 3.0]


@claim(LESSON, "np.arange(3.0) is float64. as_tensor shares only when it can; a float32 tensor cannot read float64")
def _():
    a = np.arange(3.0)
    t = torch.as_tensor(a, dtype=torch.float32)
    a[0] = 9
    assert t[0].item() == 0.0 and t.dtype == torch.float32
    assert torch.as_tensor(a).data_ptr() == a.ctypes.data
