"""Claims of lesson 09 (memory): storage, offsets and strides, views and copies, contiguity and view's rule,
channels_last, expand and repeat, in-place writes and the version counter, the cost of a copy."""

import itertools
import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.claims import claim

LESSON = "09_memory"


def _same_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _raises(exc_type, func, *args, **kwargs):
    with pytest.raises(exc_type) as info:
        func(*args, **kwargs)
    return info.value


def _cells(t: torch.Tensor) -> list[int]:
    """The storage cell of each element of t, in row-major order, by the lesson's formula."""
    return [
        t.storage_offset() + sum(i * s for i, s in zip(index, t.stride()))
        for index in itertools.product(*(range(n) for n in t.shape))
    ]


def _storage_values(t: torch.Tensor) -> torch.Tensor:
    """The whole storage behind t, as a flat tensor of t's dtype."""
    return torch.empty(0, dtype=t.dtype).set_(t.untyped_storage())


def _layouts() -> list[torch.Tensor]:
    """Windows over one storage of 24 cells: contiguous, sliced, transposed, permuted, expanded, unfolded."""
    base = torch.arange(24.0)
    grid = base.view(4, 6)
    return [
        grid,
        grid[1:, ::2],
        grid.t(),
        base.view(2, 3, 4).permute(2, 0, 1),
        grid[2].expand(3, 6),
        base.unfold(0, 5, 3),
        grid[:, 1:2],
        grid[1:3, 2:5],
        base.view(2, 3, 4)[:, ::2, 1:],
        base.as_strided((3, 2), (5, 7), 2),
    ]


def _contiguous_by_the_rule(shape, stride) -> bool:
    if math.prod(shape) == 0:
        return True
    expected = 1
    for size, step in reversed(list(zip(shape, stride))):
        if size == 1:
            continue
        if step != expected:
            return False
        expected *= size
    return True


def _view_allowed_by_the_rule(shape, stride, new_shape) -> bool:
    """The lesson's rule: merge only runs of old dimensions with stride[i] == stride[i+1] * size[i+1]; split freely."""
    old = [(n, s) for n, s in zip(shape, stride) if n != 1]
    chunks = []  # total size of each run of old dimensions that may be merged
    for n, s in old:
        if chunks and chunks[-1][1] == s * n:
            chunks[-1] = (chunks[-1][0] * n, s)
        else:
            chunks.append((n, s))
    wanted = [n for n in new_shape if n != 1]
    for total, _ in chunks:
        product = 1
        while product < total and wanted:
            product *= wanted.pop(0)
        if product != total:
            return False
    return not wanted


def _factorizations(n: int, parts: int) -> list[tuple[int, ...]]:
    if parts == 1:
        return [(n,)]
    return [(d, *rest) for d in range(1, n + 1) if n % d == 0 for rest in _factorizations(n // d, parts - 1)]


# ---------------------------------------------------------------- storage, offset and strides


@claim(
    LESSON,
    "The tensor itself only says how to read it: the shape, the `storage_offset()` (the cell where element 0 "
    "sits) and the `stride()` (how many cells to skip for one step along each dimension). Element `[i, j]` "
    "of a 2D tensor is cell `storage_offset() + i * stride(0) + j * stride(1)`.",
)
def _():
    for t in _layouts():
        flat = _storage_values(t)
        assert [flat[c].item() for c in _cells(t)] == t.reshape(-1).tolist()
        if t.dim() == 2:
            i, j = t.shape[0] - 1, t.shape[1] - 1
            assert t[i, j].item() == flat[t.storage_offset() + i * t.stride(0) + j * t.stride(1)].item()
        assert t.reshape(-1)[0].item() == flat[t.storage_offset()].item()


@claim(LESSON, "A tensor's numbers live in a *storage*: one flat row of memory cells.")
def _():
    x = torch.arange(12).reshape(3, 4)
    assert x.untyped_storage().nbytes() == x.numel() * x.element_size()
    assert _storage_values(x).dim() == 1 and _storage_values(x).tolist() == list(range(12))


# ---------------------------------------------------------------- views


@claim(
    LESSON,
    "Basic slicing (integers, `a:b:c` ranges), `view`, `transpose`, `permute`, `expand`, `unfold` and "
    "`as_strided` all return a *view*: a new shape, offset and strides over the same storage, with no data "
    "moved.",
)
def _():
    x = torch.arange(24.0).reshape(4, 6)
    before = _storage_values(x).clone()
    views = [
        x[1],
        x[1:, ::2],
        x[2:3, 4],
        x.view(3, 8),
        x.transpose(0, 1),
        x.view(2, 2, 6).permute(2, 0, 1),
        x[0].expand(5, 6),
        x.view(-1).unfold(0, 4, 2),
        x.as_strided((2, 2), (1, 4), 1),
    ]
    for v in views:
        assert _same_storage(v, x) and v.untyped_storage().nbytes() == x.untyped_storage().nbytes()
    assert torch.equal(_storage_values(x), before)


@claim(
    LESSON,
    "Slicing `x[1:, ::2]` starts one row in (offset 4) and takes every second column (stride 2); a transpose "
    "swaps the strides; `expand` gives a stretched dimension a stride of 0, so every step along it reads the "
    "same cells again.",
)
def _():
    x = torch.arange(12).reshape(3, 4)
    part = x[1:, ::2]
    assert part.storage_offset() == 4 and part.stride() == (4, 2)
    assert x.t().stride() == (1, 4)
    wide = x[0].expand(3, 4)
    assert wide.stride() == (0, 1) and _cells(wide[0]) == _cells(wide[2])


@claim(
    LESSON, "Because a view reads the same cells, a write through it shows in the original, and the other way round."
)
def _():
    x = torch.arange(12).reshape(3, 4)
    column = x[:, 1]
    column[0] = 100
    assert x[0, 1] == 100
    x[2, 1] = -5
    assert column[2] == -5


# ---------------------------------------------------------------- views and copies


@claim(
    LESSON,
    "`t.data_ptr()` is the address of `t`'s *first element*, so a view that starts further in has another "
    "`data_ptr()` although it shares the memory.",
)
def _():
    x = torch.arange(12).reshape(3, 4)
    tail = x.view(-1)[3:]
    assert tail.data_ptr() == x.data_ptr() + 3 * x.element_size() and _same_storage(tail, x)
    assert x.t().data_ptr() == x.data_ptr()


@claim(
    LESSON,
    "for two tensors that have elements, `a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()` "
    "is True exactly when they are windows over the same storage.",
)
def _():
    x = torch.arange(24.0)
    for v in _layouts():
        assert _same_storage(v, v[1:])
    others = [torch.arange(24.0) for _ in range(5)] + [x.clone(), x[[0, 1]], torch.zeros(1)]
    for a, b in itertools.combinations([x, *others], 2):
        assert not _same_storage(a, b)
    assert _same_storage(x[5:], x[:3]) and _same_storage(x.view(4, 6).t(), x[7:9])


@claim(
    LESSON,
    "These make a copy: `clone()`, advanced indexing (`x[[0, 2]]`, a boolean mask), `flip`, a change of dtype "
    "or device with `.to(...)`, and `contiguous()` or `reshape` when no view can do it.",
)
def _():
    x = torch.arange(12).reshape(3, 4)
    made = [x.clone(), x[[0, 2]], x[x > 3], x.flip(0), x.to(torch.float64), x.t().contiguous(), x.t().reshape(-1)]
    if torch.cuda.is_available():
        made.append(x.to("cuda"))
    else:
        made.append(x.to("meta"))
    for c in made:
        assert not _same_storage(c, x)
    assert _same_storage(x.contiguous(), x) and _same_storage(x.reshape(-1), x)


# ---------------------------------------------------------------- contiguity and view's rule


@claim(
    LESSON,
    "A tensor is *contiguous* when its elements, read in row-major order, sit in consecutive cells: the last "
    "dimension has stride 1 and each other stride is the next stride times the next size (dimensions of size "
    "1 do not count, since no step is ever taken along them, and a tensor with no elements always counts as "
    "contiguous). `x.is_contiguous()` checks exactly that.",
)
def _():
    storage = torch.zeros(200)
    for shape in [(2, 3), (3, 1, 2), (1, 4), (2, 2, 2), (0, 3), (3, 0, 2), (1,), ()]:
        for stride in itertools.product(*([0, 1, 2, 3, 6] for _ in shape)):
            t = storage.as_strided(shape, stride)
            assert t.is_contiguous() == _contiguous_by_the_rule(shape, stride), (shape, stride)
            if t.numel() and _contiguous_by_the_rule(shape, stride):
                assert _cells(t) == list(range(t.storage_offset(), t.storage_offset() + t.numel()))


@claim(
    LESSON,
    "`view` never copies, so it only works when the new shape can be read from the same cells with new strides. "
    "The exact rule (from PyTorch's documentation of `Tensor.view`): each new dimension must either split one "
    "old dimension, or merge old dimensions `d, d+1, ..., d+k` that satisfy `stride[i] == stride[i+1] * "
    "size[i+1]` for every `i` from `d` to `d+k-1`.",
)
def _():
    base = torch.arange(48.0)
    layouts = [
        base.view(4, 12),
        base.view(4, 12)[:, :6],
        base.view(4, 12)[::2],
        base.view(2, 4, 6).permute(1, 0, 2),
        base.view(2, 4, 6).transpose(1, 2),
        base.view(2, 4, 6)[:, 1:3],
        base.view(4, 3, 4)[:, :, ::2],
        base.view(2, 2, 3, 4).permute(0, 2, 1, 3),
        base.view(6, 8).t()[::2],
        base.view(4, 1, 12)[:, :, :6],
    ]
    for t in layouts:
        for parts in (1, 2, 3):
            for new_shape in _factorizations(t.numel(), parts):
                allowed = _view_allowed_by_the_rule(t.shape, t.stride(), new_shape)
                try:
                    v = t.view(new_shape)
                except RuntimeError:
                    assert not allowed, (tuple(t.shape), t.stride(), new_shape)
                    continue
                assert allowed, (tuple(t.shape), t.stride(), new_shape)
                assert _same_storage(v, t) and torch.equal(v, t.reshape(new_shape))


@claim(
    LESSON,
    "A transpose breaks the rule for the dimensions it swapped, so `x.t().view(-1)` raises, while "
    "`x.t().view(4, 1, 3)` (no merge) works.",
)
def _():
    x = torch.arange(12).reshape(3, 4)
    _raises(RuntimeError, x.t().view, -1)
    assert torch.equal(x.t().view(4, 1, 3)[:, 0], x.t())


@claim(
    LESSON,
    "Each sits in four consecutive cells, but merging the two rows needs `stride[0] == stride[1] * size[1]`, "
    "here `8 == 1 * 4`, which is false: `x[::2].view(8)` raises. Splitting a dimension needs no condition, so "
    "`x[::2].view(2, 2, 2)` works.",
)
def _():
    x = torch.arange(12).reshape(3, 4)
    rows = x[::2]
    assert rows.stride() == (8, 1) and _cells(rows) == [0, 1, 2, 3, 8, 9, 10, 11]
    _raises(RuntimeError, rows.view, 8)
    assert torch.equal(rows.view(2, 2, 2).reshape(2, 4), rows)


@claim(
    LESSON,
    "`reshape` when you only want the shape (it views when it can and copies when it must); `contiguous()` when "
    "the next step needs consecutive cells (it returns the tensor itself when it already is contiguous, and a "
    "copy otherwise).",
)
def _():
    x = torch.arange(12).reshape(3, 4)
    assert _same_storage(x.reshape(4, 3), x) and _same_storage(x[::2].reshape(2, 2, 2), x)
    assert not _same_storage(x.t().reshape(-1), x)
    assert x.contiguous() is x
    fixed = x.t().contiguous()
    assert fixed.is_contiguous() and not _same_storage(fixed, x) and torch.equal(fixed, x.t())


# ---------------------------------------------------------------- channels_last


@claim(
    LESSON,
    "*channels last* keeps the same shape and the same indexing, `x[b, c, h, w]`, and only changes the strides, "
    "so that the `C` values of one pixel sit next to each other.",
)
def _():
    x = torch.randn(2, 3, 4, 5)
    y = x.to(memory_format=torch.channels_last)
    assert y.shape == x.shape and torch.equal(y, x) and y.stride() != x.stride()
    assert _cells(y[1, :, 2, 3]) == [y[1, 0, 2, 3].storage_offset() + c for c in range(3)]


@claim(
    LESSON,
    "`x.to(memory_format=torch.channels_last)` copies into that order, `x.is_contiguous()` is then False and "
    "`x.is_contiguous(memory_format=torch.channels_last)` is True.",
)
def _():
    x = torch.randn(2, 3, 4, 5)
    y = x.to(memory_format=torch.channels_last)
    assert not _same_storage(x, y) and not y.is_contiguous() and y.is_contiguous(memory_format=torch.channels_last)
    assert y.stride() == (60, 1, 15, 3)


@claim(LESSON, "a convolution given a channels-last input on the CPU returns a channels-last output.")
def _():
    torch.manual_seed(0)
    for c_in, c_out, k, size, dtype in [
        (16, 16, 3, 32, torch.float32),
        (3, 8, 5, 12, torch.float32),
        (4, 4, 1, 7, torch.float64),
    ]:
        conv = torch.nn.Conv2d(c_in, c_out, k, padding=k // 2).to(dtype)
        images = torch.randn(2, c_in, size, size, dtype=dtype).to(memory_format=torch.channels_last)
        with torch.no_grad():
            out = conv(images)
        assert out.is_contiguous(memory_format=torch.channels_last), (c_in, c_out, k)


@claim(
    LESSON,
    "(`torch.utils.benchmark` runs each statement enough times to give a steady number; with a GPU the same cell "
    "times CUDA.)",
)
def _():
    from torch.utils import benchmark

    measured = benchmark.Timer("x + 1", globals={"x": torch.zeros(10)}).blocked_autorange(min_run_time=0.05)
    assert measured.number_per_run * len(measured.times) > 1


@claim(
    LESSON,
    "A dimension of size 1 is never stepped along, so its stride does not matter: a one-channel batch "
    "`(B, 1, H, W)` is contiguous in both formats at once.",
)
def _():
    gray = torch.zeros(2, 1, 4, 5)
    assert gray.is_contiguous() and gray.is_contiguous(memory_format=torch.channels_last)
    other = gray.as_strided(gray.shape, (20, 999, 5, 1))
    assert other.is_contiguous() and _cells(other) == _cells(gray)


# ---------------------------------------------------------------- expand and repeat


@claim(
    LESSON,
    "`expand` stretches size-1 dimensions with a stride of 0: no memory is used, and every row of the result is "
    "the same cells. `repeat` copies the data as many times as asked. Both give equal values.",
)
def _():
    row = torch.tensor([1.0, 2.0, 3.0])
    wide, tiled = row.expand(4, 3), row.repeat(4, 1)
    assert wide.stride() == (0, 1) and _same_storage(wide, row) and wide.untyped_storage().nbytes() == 12
    assert all(_cells(wide[r]) == _cells(wide[0]) for r in range(4))
    assert not _same_storage(tiled, row) and tiled.untyped_storage().nbytes() == 4 * 12
    assert torch.equal(wide, tiled)
    assert row[None].expand(2, 4, 3).stride() == (0, 0, 1)


@claim(
    LESSON,
    "An in-place operation that would write one cell several times with different values, such as "
    "`wide.add_(1)`, raises a `RuntimeError` (`fill_` and `zero_`, which write one value everywhere, are let "
    "through). A write to a single element succeeds and changes the shared cell, so it shows in every row, and "
    "in `row` itself.",
)
def _():
    row = torch.tensor([1.0, 2.0, 3.0])
    wide = row.expand(4, 3)

    def column():
        wide[:, 0] = torch.arange(4.0)

    for write in (lambda: wide.add_(1), lambda: wide.mul_(2), lambda: wide.copy_(torch.ones(4, 3)), column):
        _raises(RuntimeError, write)
    assert row.tolist() == [1.0, 2.0, 3.0]
    wide.fill_(2)
    assert row.tolist() == [2.0] * 3
    wide.zero_()
    assert row.tolist() == [0.0] * 3
    row.copy_(torch.tensor([1.0, 2.0, 3.0]))
    wide[0, 0] = 9
    assert wide[:, 0].tolist() == [9.0] * 4 and row[0] == 9


@claim(LESSON, "`expand(...).clone()` or `repeat` gives rows of your own.")
def _():
    row = torch.tensor([1.0, 2.0, 3.0])
    for own in (row.expand(4, 3).clone(), row.repeat(4, 1)):
        own[0, 0] = 9
        assert own[1:, 0].tolist() == [1.0] * 3 and row[0] == 1 and not _same_storage(own, row)


@claim(LESSON, "Writing into an expanded tensor goes wrong in one of two ways.")
def _():
    b = torch.zeros(3)
    e = b.expand(4, 3)
    _raises(RuntimeError, e.add_, 1)
    e[0, 0] = 1
    assert b[0] == 1 and e[:, 0].tolist() == [1.0] * 4


# ---------------------------------------------------------------- sliding windows


@claim(LESSON, "Windows of a signal overlap, so a copy of all of them costs about `size / step` times the signal.")
def _():
    signal = torch.zeros(10_000)
    for size, step in [(8, 2), (16, 4), (5, 1)]:
        copied = signal.unfold(0, size, step).contiguous()
        ratio = copied.untyped_storage().nbytes() / signal.untyped_storage().nbytes()
        assert abs(ratio - size / step) < 0.01 * size / step


@claim(
    LESSON,
    "A view costs nothing: `signal.unfold(0, size, step)` reads window `i` from `signal[i * step : i * step + "
    "size]` with strides `(step * s, s)`, where `s` is the signal's own stride.",
)
def _():
    base = torch.arange(60.0)
    for signal in (base, base[3::3], base[7:]):
        for size, step in [(4, 2), (1, 1), (3, 5), (signal.shape[0], 1)]:
            w = signal.unfold(0, size, step)
            s = signal.stride(0)
            assert w.stride() == (step * s, s) and _same_storage(w, signal)
            assert w.shape[0] == (signal.shape[0] - size) // step + 1
            for i in range(w.shape[0]):
                assert torch.equal(w[i], signal[i * step : i * step + size])


@claim(
    LESSON,
    "It counts strides in storage cells, so multiply by `t.stride(0)` when `t` is itself strided; left out, the "
    "offset stays `t`'s own.",
)
def _():
    base = torch.arange(40.0)
    t = base[5::3]
    s = t.stride(0)
    w = torch.as_strided(t, (3, 4), (2 * s, s))
    assert w.storage_offset() == t.storage_offset() == 5
    assert torch.equal(w, t.unfold(0, 4, 2)[:3])
    assert not torch.equal(torch.as_strided(t, (3, 4), (2, 1)), t.unfold(0, 4, 2)[:3])


# ---------------------------------------------------------------- in place


@claim(
    LESSON,
    "A method ending in `_` (`add_`, `mul_`, `clamp_`), an augmented assignment (`x += y`) and `out=` write "
    "into existing memory instead of allocating a result.",
)
def _():
    x = torch.arange(6.0)
    where = x.untyped_storage().data_ptr()
    assert x.add_(1) is x and x.mul_(2) is x and x.clamp_(0, 5) is x
    alias = x
    x += 1
    assert x is alias
    assert torch.add(x, 1, out=x) is x
    assert x.untyped_storage().data_ptr() == where


@claim(LESSON, "Broadcasting only stretches the right-hand side.")
def _():
    row, grid = torch.zeros(1, 3), torch.ones(2, 3)
    _raises(RuntimeError, row.add_, grid)  # even a size-1 dimension of the left operand does not stretch
    grid.add_(row)
    assert grid.tolist() == [[1.0] * 3] * 2 and (row + grid).shape == (2, 3)


@claim(
    LESSON,
    "`x.add_(y)` works when `y` broadcasts to `x.shape`; it raises when the broadcast shape is not `x.shape` "
    "(larger, or empty where `x` has a size 1), because `x` cannot change its shape. `torch.add(a, b, out=x)` "
    "writes the result into `x` and returns `x`.",
)
def _():
    acc = torch.zeros(2, 3)
    for y in (torch.ones(3), torch.ones(2, 1), torch.ones(1, 1), torch.tensor(1.0), torch.ones(2, 3)):
        acc.add_(y)
    assert acc.tolist() == [[5.0] * 3] * 2
    for y in (torch.ones(4, 2, 3), torch.ones(2, 3, 1), torch.ones(1, 2, 3)[None].expand(2, 1, 2, 3)):
        _raises(RuntimeError, acc.add_, y)
    target = torch.empty(3)
    a, b = torch.ones(3), torch.arange(3.0)
    assert torch.add(a, b, out=target) is target and target.tolist() == [1.0, 2.0, 3.0]
    _raises(RuntimeError, torch.zeros(1, 3).add_, torch.ones(0, 1))  # the broadcast shape (0, 3) is smaller
    _raises(RuntimeError, torch.zeros(3).add_, torch.ones(2, 3))


@claim(
    LESSON,
    "PyTorch refuses such partial overlaps: `m += m.t()` and `x[1:] += x[:-1]` raise a `RuntimeError` that says "
    "to `clone()` first. `x += x.flip(0)` is safe, because `flip` copies.",
)
def _():
    m = torch.arange(4.0).reshape(2, 2)

    def add_transpose():
        m.add_(m.t())

    message = str(_raises(RuntimeError, add_transpose))
    assert "clone()" in message
    x = torch.arange(5.0)

    def shift():
        x[1:] += x[:-1]

    assert "clone()" in str(_raises(RuntimeError, shift))
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0] and m.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    assert not _same_storage(x.flip(0), x)
    x += x.flip(0)
    assert x.tolist() == [4.0] * 5
    m += m.t().clone()
    assert m.tolist() == [[0.0, 3.0], [3.0, 6.0]]


@claim(
    LESSON,
    "When the written tensor and an input share cells in a different order, a loop that writes as it reads would "
    "use values it has already overwritten.",
)
def _():
    x = torch.arange(5.0)
    expected = x[1:] + x[:-1]
    naive = x.tolist()
    for i in range(1, 5):  # writing as it reads, element by element
        naive[i] += naive[i - 1]
    assert naive[1:] != expected.tolist()


@claim(
    LESSON,
    "An in-place write through a view changes its base too, and every tensor carries a version counter, "
    "`t._version`, that each in-place write increases (a view and its base share one counter).",
)
def _():
    a = torch.arange(6.0)
    v = a.view(2, 3)[1]
    start = a._version
    v.add_(1)
    assert a[3:].tolist() == [4.0, 5.0, 6.0]
    assert a._version == v._version == start + 1
    a.mul_(2)
    a[0] = 3
    assert a._version == v._version == start + 3
    fresh = torch.zeros(2)
    assert fresh._version == 0
    fresh + 1
    assert fresh._version == 0


# ---------------------------------------------------------------- the cost of a copy


@claim(
    LESSON,
    "A view allocates no storage; a copy allocates `numel() * element_size()` bytes and spends time moving them. "
    "`untyped_storage().nbytes()` shows the size of the storage behind a tensor.",
)
def _():
    big = torch.zeros(1000, 1000)
    assert big.untyped_storage().nbytes() == 4_000_000
    for view in (big.t(), big.expand(3, 1000, 1000), big[::2], big.view(-1)):
        assert _same_storage(view, big) and view.untyped_storage().nbytes() == 4_000_000
    for copy in (big.t().contiguous(), big.repeat(3, 1, 1), big.double(), big[::2].clone()):
        assert not _same_storage(copy, big) and copy.untyped_storage().nbytes() == copy.numel() * copy.element_size()


@claim(LESSON, "A view moves no data, so its cost does not grow with the size; a copy's does.")
def _():
    for n in (10, 1000):
        t = torch.zeros(n, n)
        assert _same_storage(t.t(), t) and t.t().untyped_storage().nbytes() == t.untyped_storage().nbytes()
        assert t.t().contiguous().untyped_storage().nbytes() == 4 * n * n
    huge = torch.empty(10**6, 10**6, device="meta")  # no memory at all: a view of it needs none either
    assert huge.t().stride() == (1, 10**6)


# ---------------------------------------------------------------- quizzes, common mistakes and recap


@claim(LESSON, "x has strides (6, 1). y starts at row 1, column 0: cell 1 * 6 + 0 = 6.")
def _():
    x = torch.arange(24).reshape(4, 6)
    y = x[1:, ::2]
    assert x.stride() == (6, 1) and (y.storage_offset(), *y.stride()) == (6, 6, 2)


@claim(LESSON, "y is a view: it reads x's storage from cell 3 on, so its storage offset is 3 and its data_ptr() is 3")
def _():
    x = torch.arange(10)
    y = x[3:]
    assert y.storage_offset() == 3 and y.data_ptr() == x.data_ptr() + 3 * x.element_size()
    assert _same_storage(x, y) and y.is_contiguous()


@claim(LESSON, "expand stretches b's size-1 column into 3 with stride 0: e has strides (1, 0), so e[1, j] is b[1, 0]")
def _():
    b = torch.zeros(2, 1)
    e = b.expand(2, 3)
    assert e.stride() == (1, 0) and all(e[1, j].storage_offset() == 1 for j in range(3))
    e[1, 2] = 5
    assert b[1, 0] == 5 and e[1].tolist() == [5.0] * 3 and e.sum().item() == 15.0
    _raises(RuntimeError, e.add_, 1)


@claim(LESSON, "A view that starts further in has another `data_ptr()`. Compare `untyped_storage().data_ptr()`.")
def _():
    x = torch.arange(8)
    assert x[2:].data_ptr() != x.data_ptr() and _same_storage(x[2:], x)


@claim(LESSON, "Use `reshape`, or `.contiguous().view(...)`, and remember that either makes a copy.")
def _():
    x = torch.arange(12).reshape(3, 4)
    for t in (x.t(), x.view(3, 2, 2).permute(2, 0, 1)):
        _raises(RuntimeError, t.view, -1)
        for flat in (t.reshape(-1), t.contiguous().view(-1)):
            assert not _same_storage(flat, x) and torch.equal(flat, t.flatten())


@claim(LESSON, "Each write lands in a shared cell. `clone()` first, or use `repeat`.")
def _():
    row = torch.zeros(3)
    shared = row.expand(2, 3)
    shared[1, 2] = 5
    assert shared[0, 2] == 5 and row[2] == 5
    own = row.expand(2, 3).clone()
    own[1, 2] = 7
    assert own[0, 2] == 5 and row[2] == 5


@claim(LESSON, "PyTorch refuses; `clone()` the right-hand side.")
def _():
    x = torch.arange(4.0).reshape(2, 2)

    def overlapping():
        x.add_(x.t())

    _raises(RuntimeError, overlapping)
    x += x.t().clone()
    assert x.tolist() == [[0.0, 3.0], [3.0, 6.0]]


@claim(LESSON, "The shape and the indices stay `(B, C, H, W)`; only the strides change.")
def _():
    x = torch.randn(3, 2, 4, 5)
    y = x.contiguous(memory_format=torch.channels_last)
    assert y.shape == x.shape and y.stride() != x.stride()
    assert all(y[idx] == x[idx] for idx in [(0, 0, 0, 0), (2, 1, 3, 4), (1, 0, 2, 1)])


@claim(LESSON, "`row = x[0]; row[:] = 0` clears row 0 of `x`.")
def _():
    x = torch.arange(1, 7).reshape(2, 3)
    row = x[0]
    row[:] = 0
    assert x.tolist() == [[0, 0, 0], [4, 5, 6]]


@claim(LESSON, "A tensor is a window over a storage: shape, `storage_offset()` and `stride()`.")
def _():
    for t in _layouts():
        rebuilt = torch.empty(0).set_(t.untyped_storage(), t.storage_offset(), t.shape, t.stride())
        assert torch.equal(rebuilt, t)


@claim(
    LESSON,
    "Basic slicing, `view`, `transpose`, `permute`, `expand`, `unfold` and `as_strided` make views; `clone`, "
    "advanced indexing, `flip` and dtype or device changes copy; `reshape` and `contiguous` copy only when they "
    "must.",
)
def _():
    x = torch.arange(24.0).reshape(4, 6)
    views = [
        x[1:, 2],
        x.view(6, 4),
        x.transpose(0, 1),
        x.permute(1, 0),
        x[:1].expand(3, 6),
        x.unfold(1, 2, 2),
        x.as_strided((2,), (3,)),
        x.reshape(24),
        x.contiguous(),
    ]
    assert all(_same_storage(v, x) for v in views)
    copies = [x.clone(), x[[1]], x[x > 2], x.flip(1), x.int(), x.to("meta"), x.t().reshape(24), x.t().contiguous()]
    assert not any(_same_storage(c, x) for c in copies)


@claim(LESSON, "Detect sharing with `untyped_storage().data_ptr()`.")
def _():
    x = torch.arange(10)
    assert _same_storage(x[4:], x) and not _same_storage(x[4:].clone(), x)


@claim(LESSON, "`view` merges dimensions only when `stride[i] == stride[i+1] * size[i+1]` (sizes of 1 aside).")
def _():
    column = torch.zeros(1, 3).t()  # shape (3, 1), strides (1, 3): the size-1 dimension is left out of the test
    assert column.stride() == (1, 3) and _same_storage(column.view(3), column)
    x = torch.arange(24).reshape(2, 3, 4)
    assert _view_allowed_by_the_rule(x.shape, x.stride(), (6, 4)) and x.view(6, 4) is not None
    t = x.transpose(1, 2)  # strides (12, 1, 4): dims 1 and 2 cannot merge
    assert not _view_allowed_by_the_rule(t.shape, t.stride(), (2, 12))
    _raises(RuntimeError, t.view, 2, 12)


@claim(LESSON, "`channels_last` is a stride order; check it with `is_contiguous(memory_format=torch.channels_last)`.")
def _():
    x = torch.randn(2, 3, 4, 5)
    y = x.to(memory_format=torch.channels_last)
    order = sorted(range(4), key=lambda d: -y.stride(d))
    assert order == [0, 2, 3, 1] and y.is_contiguous(memory_format=torch.channels_last)
    assert not x.is_contiguous(memory_format=torch.channels_last)


@claim(LESSON, "`expand` costs no memory and shares cells; `repeat` copies.")
def _():
    row = torch.arange(4.0)
    assert _same_storage(row.expand(5, 4), row) and row.expand(5, 4).untyped_storage().nbytes() == 16
    assert row.repeat(5, 1).untyped_storage().nbytes() == 5 * 16


@claim(
    LESSON,
    "In place: the left operand cannot grow, partial overlaps are refused, views share writes and a version counter.",
)
def _():
    x = torch.zeros(3)
    _raises(RuntimeError, x.add_, torch.ones(2, 3))
    _raises(RuntimeError, lambda: x[1:].add_(x[:-1]))
    v = x[1:]
    v.add_(1)
    assert x.tolist() == [0.0, 1.0, 1.0] and x._version == v._version


@claim(LESSON, "A copy costs `numel() * element_size()` bytes and time that grows with them; a view costs neither.")
def _():
    for dtype in (torch.float16, torch.float32, torch.float64):
        t = torch.zeros(30, 40, dtype=dtype)
        copy = t.t().contiguous()
        assert copy.untyped_storage().nbytes() == t.numel() * t.element_size()
        assert _same_storage(t.t(), t)


# ---------------------------------------------------------------- view's rule against PyTorch, at random


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.data())
def _view_rule_at_random(sizes, data):
    base = torch.arange(float(math.prod(sizes))).view(sizes)
    t = base.permute(data.draw(st.permutations(range(len(sizes)))))
    new_shape = data.draw(st.sampled_from(_factorizations(t.numel(), data.draw(st.integers(1, 3)))))
    try:
        t.view(new_shape)
        works = True
    except RuntimeError:
        works = False
    assert works == _view_allowed_by_the_rule(t.shape, t.stride(), new_shape), (tuple(t.shape), t.stride(), new_shape)


@claim(LESSON, "`view` never copies")
def _():
    _view_rule_at_random()


@claim(
    LESSON,
    "As for contiguity, dimensions of size 1 are left out of that test, and a tensor with no elements takes any shape "
    "with no elements.",
)
def _():
    column = torch.zeros(1, 3).t()
    assert column.stride()[0] != column.stride()[1] * column.shape[1] and column.view(3).shape == (3,)
    padded = torch.zeros(3, 1, 4)[:, :, ::2]  # strides (4, 4, 2) for sizes (3, 1, 2)
    assert padded.view(3, 2).shape == (3, 2)
    empty = torch.zeros(0, 3).t()
    assert not empty.view(-1).numel() and empty.view(5, 0).shape == (5, 0) and empty.view(0, 7).shape == (0, 7)
