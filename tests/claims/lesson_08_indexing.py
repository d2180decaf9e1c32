"""Claims of lesson 08 (indexing): views and copies, masks, gather, counting, sorting, einsum, timing."""

import inspect

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch.utils import benchmark

from course.probes.loops import count_python_lines
from tests.claims import claim

LESSON = "08_indexing"


def _same_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _needs_cuda() -> None:
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")


@claim(
    LESSON,
    "PyTorch answers with a **view**: a new shape and new strides over the same memory, with nothing copied "
    "(lesson {05_shapes}). An integer removes its dimension; a slice keeps it, even a slice of length 1.",
)
def _():
    x = torch.arange(24).reshape(2, 3, 4)
    for part, shape in [
        (x[1], (3, 4)),
        (x[:, 1], (2, 4)),
        (x[1:, ::2], (1, 2, 4)),
        (x[1:2], (1, 3, 4)),
        (x[0, :, 1], (3,)),
    ]:
        assert tuple(part.shape) == shape and _same_memory(part, x)


@claim(
    LESSON,
    "an in-place operation on it (`+=`, `.zero_()`, `.fill_()`, `view[...] = value`) changes the original tensor.",
)
def _():
    x = torch.arange(12).reshape(3, 4)
    column = x[:, 1]
    column += 100
    x[2:, ::2].zero_()
    x[0].fill_(-1)
    window = x[1:, 2:]
    window[...] = 7
    assert x.tolist() == [[-1, -1, -1, -1], [4, 105, 7, 7], [0, 109, 7, 7]]


@claim(LESSON, "call `.clone()` when you need a copy you can change freely.")
def _():
    x = torch.arange(4)
    safe = x[1:].clone()
    safe.fill_(-1)
    assert x.tolist() == [0, 1, 2, 3] and not _same_memory(safe, x)


@claim(
    LESSON,
    "Indexing with a tensor (or a list) of integers, or with a boolean mask, is *advanced indexing*. The "
    "elements it picks can come from anywhere, in any order, even twice, so no single stride describes them: "
    "PyTorch copies them into new memory. Writing into that result leaves `x` alone.",
)
def _():
    x = torch.arange(12).reshape(3, 4)
    for picked in (x[torch.tensor([2, 0, 2])], x[[1, 1]], x[x > 5], x[torch.tensor([0, 2]), 1]):
        assert not _same_memory(picked, x)
        picked.fill_(-1)
    assert x.tolist() == torch.arange(12).reshape(3, 4).tolist()


@claim(LESSON, "`x[index] = value` (one indexing expression on the left of `=`) writes into `x` itself.")
def _():
    x = torch.arange(12).reshape(3, 4)
    x[torch.tensor([2, 0]), 0] = -1
    x[[1], 1] = -2
    x[x > 10] = -3
    assert x.tolist() == [[-1, 1, 2, 3], [4, -2, 6, 7], [-1, 9, 10, -3]]
    x[torch.tensor([2, 0])][:, 1] = -5  # two steps: the write lands in a copy
    assert x[:, 1].tolist() == [1, -2, 9]


@claim(LESSON, "NumPy follows the same rule: fancy indexing copies, slicing gives a view.")
def _():
    a = np.arange(12).reshape(3, 4)
    assert np.shares_memory(a, a[1:]) and np.shares_memory(a, a[:, ::2])
    assert not np.shares_memory(a, a[[2, 0]]) and not np.shares_memory(a, a[a > 3])


@claim(
    LESSON,
    "`x[mask]` keeps the entries where the mask is True and returns them as a copy, **flattened**: read row "
    "by row, one after another.",
)
def _():
    x = torch.arange(12).reshape(3, 4)
    mask = x % 3 == 0
    picked = x[mask]
    assert picked.tolist() == [0, 3, 6, 9] and picked.dim() == 1 and not _same_memory(picked, x)


@claim(
    LESSON, "for `x` of shape `(3, 4, 2)` and a mask of shape `(3, 4)` with 5 True cells, `x[mask]` has shape `(5, 2)`."
)
def _():
    mask = torch.tensor([[True, False, True, False], [False, False, True, True], [True, False, False, False]])
    x = torch.arange(24).reshape(3, 4, 2)
    assert int(mask.sum()) == 5 and tuple(x[mask].shape) == (5, 2)
    assert x[mask].tolist() == [x[r, c].tolist() for r, c in [(0, 0), (0, 2), (1, 2), (1, 3), (2, 0)]]


@claim(
    LESSON,
    "`torch.where(cond, a, b)` picks from `a` where `cond` is True and from `b` elsewhere; `a` and `b` "
    "broadcast, and either may be a plain number;",
)
def _():
    cond = torch.tensor([[True, False], [False, True]])
    assert torch.where(cond, torch.tensor([[1.0, 2.0], [3.0, 4.0]]), 0.0).tolist() == [[1.0, 0.0], [0.0, 4.0]]
    assert torch.where(cond, 5.0, torch.tensor([10.0, 20.0])).tolist() == [[5.0, 20.0], [10.0, 5.0]]
    assert torch.where(cond, torch.tensor([1, 2]), torch.tensor([[7], [8]])).tolist() == [[1, 7], [8, 2]]


@claim(LESSON, "`x.masked_fill(mask, value)` returns a copy with `value` where the mask is True;")
def _():
    x = torch.tensor([1.0, -2.0, 3.0])
    filled = x.masked_fill(x < 0, 0.0)
    assert filled.tolist() == [1.0, 0.0, 3.0] and x.tolist() == [1.0, -2.0, 3.0] and not _same_memory(filled, x)


@claim(LESSON, "`x[mask] = value` writes into `x` in place.")
def _():
    x = torch.tensor([1.0, -2.0, 3.0, -4.0])
    before = x.untyped_storage().data_ptr()
    x[x < 0] = 0.0
    assert x.tolist() == [1.0, 0.0, 3.0, 0.0] and x.untyped_storage().data_ptr() == before


@claim(
    LESSON,
    "`x[rows, cols]` is the tensor of `x[rows[i], cols[i]]`, with the shape of the index tensors (they "
    "broadcast against each other).",
)
def _():
    x = torch.arange(12).reshape(3, 4) * 10
    rows, cols = torch.tensor([2, 0, 1]), torch.tensor([1, 3, 3])
    assert x[rows, cols].tolist() == [x[r, c].item() for r, c in zip(rows.tolist(), cols.tolist())]
    grid = x[torch.tensor([[0], [2]]), torch.tensor([1, 2, 3])]
    assert tuple(grid.shape) == (2, 3) and grid.tolist() == [[10, 20, 30], [90, 100, 110]]


@claim(
    LESSON,
    "`index` has as many dimensions as `x`, and the result has `index`'s shape; with `dim=1`, "
    "`out[i][j] = x[i][index[i][j]]`: row `i` picks its own columns.",
)
def _():
    x = torch.arange(12).reshape(3, 4)
    index = torch.tensor([[2, 0], [1, 1], [3, 2]])
    out = x.gather(1, index)
    assert tuple(out.shape) == tuple(index.shape)
    assert out.tolist() == [[x[i, index[i, j]].item() for j in range(2)] for i in range(3)]


@claim(
    LESSON,
    "`gather` with an index that has fewer dimensions than `x` raises a `RuntimeError`; add the missing "
    "dimension with `unsqueeze` (and drop it afterwards with `squeeze`).",
)
def _():
    x = torch.arange(12.0).reshape(3, 4)
    labels = torch.tensor([0, 3, 1])
    with pytest.raises(RuntimeError):
        x.gather(1, labels)
    assert x.gather(1, labels.unsqueeze(1)).squeeze(1).tolist() == [0.0, 7.0, 9.0]


@claim(
    LESSON, "`gather` works along any `dim`, with any number of picks per row, on any device, and keeps `x`'s dtype."
)
def _():
    x = torch.arange(12).reshape(3, 4)
    assert x.gather(0, torch.tensor([[2, 0, 1, 1]])).tolist() == [[8, 1, 6, 7]]
    assert tuple(x.gather(1, torch.zeros(3, 7, dtype=torch.int64)).shape) == (3, 7)
    for dtype in (torch.float16, torch.float64, torch.int32, torch.bool):
        assert x.to(dtype).gather(1, torch.tensor([[1], [2], [0]])).dtype == dtype
    devices = ["cpu", "meta"] + (["cuda"] if torch.cuda.is_available() else [])
    for dev in devices:
        assert x.to(dev).gather(1, torch.tensor([[1], [2], [0]], device=dev)).device.type == dev


@claim(
    LESSON,
    "`Timer(stmt, globals=...).timeit(n)` runs the statement a few times to warm up, then `n` times, and "
    "returns a measurement whose `.median` is the time of one call.",
)
def _():
    calls = []
    measurement = benchmark.Timer("record()", globals={"record": lambda: calls.append(1)}).timeit(10)
    assert len(calls) > 10
    assert measurement.number_per_run == 10 and len(measurement.raw_times) == 1
    assert measurement.median == pytest.approx(measurement.raw_times[0] / 10)


@claim(LESSON, "It uses one CPU thread unless you pass `num_threads`, so runs compare the same thing.")
def _():
    seen = []
    record = lambda: seen.append(torch.get_num_threads())  # noqa: E731
    benchmark.Timer("record()", globals={"record": record}).timeit(3)
    benchmark.Timer("record()", globals={"record": record}, num_threads=2).timeit(3)
    assert set(seen[:5]) == {1} and set(seen[5:]) == {2}
    assert inspect.signature(benchmark.Timer).parameters["num_threads"].default == 1


@claim(LESSON, "On a GPU it also waits for the GPU to finish before reading the clock")
def _():
    from torch.utils.benchmark.utils import timer

    assert "synchronize" in inspect.getsource(timer.timer)
    assert inspect.signature(benchmark.Timer).parameters["timer"].default is timer.timer


@claim(LESSON, "CUDA calls return to Python as soon as the work is queued")
def _():
    _needs_cuda()
    a = torch.randn(4096, 4096, device="cuda")
    torch.cuda.synchronize()
    for _ in range(20):
        a = a @ a / 4096
    assert not torch.cuda.current_stream().query(), "the queued products had already finished"
    torch.cuda.synchronize()


@claim(LESSON, "`if out[i] < 0` makes Python wait for the GPU every time")
def _():
    _needs_cuda()
    out = torch.randn(4, device="cuda")
    torch.cuda.set_sync_debug_mode("error")
    try:
        with pytest.raises(RuntimeError):
            bool(out[1] < 0)
    finally:
        torch.cuda.set_sync_debug_mode("default")


@claim(
    LESSON,
    "Vectorized code runs the same lines whatever N is; a `for` loop over the examples, a comprehension or a "
    "loop over `.tolist()` runs its body once per element, so the count grows about 8 times.",
)
def _():
    def vectorized(x):
        return torch.where(x > 0, x, 0)

    def loop(x):
        out = x.clone()
        for i in range(len(out)):
            out[i] = max(out[i], 0)
        return out

    def comprehension(x):
        return torch.tensor([v if v > 0 else 0.0 for v in x.tolist()])

    counts = {
        f: [count_python_lines(f, torch.randn(n))[1] for n in (50, 400)] for f in (vectorized, loop, comprehension)
    }
    assert counts[vectorized][0] == counts[vectorized][1]
    for f in (loop, comprehension):
        small, large = counts[f]
        assert 6 < large / small < 9, (f.__name__, small, large)


@claim(
    LESSON,
    "`torch.cat(tensors, dim)` joins tensors along an **existing** dimension: their sizes must match in "
    "every other dimension. `torch.stack(tensors, dim)` puts equal-shaped tensors side by side along a "
    "**new** dimension. So five `(3,)` vectors stack into `(5, 3)`, and five `(2, 3)` batches concatenate "
    "into `(10, 3)`.",
)
def _():
    assert tuple(torch.stack([torch.zeros(3)] * 5).shape) == (5, 3)
    assert tuple(torch.cat([torch.zeros(2, 3)] * 5).shape) == (10, 3)
    assert tuple(torch.stack([torch.zeros(2, 3)] * 3, dim=1).shape) == (2, 3, 3)
    with pytest.raises(RuntimeError):
        torch.cat([torch.zeros(2, 3), torch.zeros(2, 4)], dim=0)
    with pytest.raises(RuntimeError):
        torch.stack([torch.zeros(2, 3), torch.zeros(4, 3)])


@claim(
    LESSON,
    "That last error is why code that collects one result per example in a list and stacks them at the end "
    "breaks on an empty batch.",
)
def _():
    with pytest.raises(RuntimeError):
        torch.stack([])


@claim(
    LESSON,
    "`torch.bincount(values, minlength=C)` counts how often each non-negative integer occurs in a 1D int "
    "tensor: entry `c` of the result is the number of `c`s, as int64. Without `minlength` the result stops "
    "at the largest value present, so classes that never occur at the end are missing.",
)
def _():
    values = torch.tensor([0, 2, 2, 3, 2], dtype=torch.int32)
    assert torch.bincount(values).tolist() == [1, 0, 3, 1] and torch.bincount(values).dtype == torch.int64
    assert torch.bincount(values, minlength=6).tolist() == [1, 0, 3, 1, 0, 0]
    with pytest.raises(RuntimeError):
        torch.bincount(torch.tensor([1, -1]))


@claim(
    LESSON,
    "`out.scatter_add_(dim, index, src)` adds each entry of `src` into `out` at the position `index` gives "
    "(along `dim`). Repeated positions add up.",
)
def _():
    out = torch.zeros(4).scatter_add_(0, torch.tensor([1, 3, 1, 1]), torch.tensor([1.0, 2.0, 3.0, 4.0]))
    assert out.tolist() == [0.0, 8.0, 0.0, 2.0]
    rows = torch.zeros(2, 3).scatter_add_(1, torch.tensor([[0, 0], [2, 1]]), torch.ones(2, 2))
    assert rows.tolist() == [[2.0, 0.0, 0.0], [0.0, 1.0, 1.0]]


@claim(
    LESSON,
    "`out.index_add_(dim, index, source)` adds whole slices: slice `i` of `source` is added to slice "
    "`index[i]` of `out`. Repeated positions add up here too.",
)
def _():
    source = torch.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    assert torch.zeros(3, 2).index_add_(0, torch.tensor([2, 0, 2]), source).tolist() == [
        [0.0, 1.0],
        [0.0, 0.0],
        [3.0, 2.0],
    ]


@claim(
    LESSON,
    "`counts[index] += 1` does **not** add up repeated positions. It reads `counts[index]` (a copy), adds "
    "1, and writes each result back, so a position named three times still gets +1.",
)
def _():
    counts = torch.zeros(6, dtype=torch.int64)
    counts[torch.tensor([0, 2, 2, 3, 2])] += 1
    assert counts.tolist() == [1, 0, 1, 1, 0, 0]


@claim(
    LESSON,
    "`F.one_hot(labels, num_classes)` turns each label into a row of zeros with a single 1 at the label's "
    "position: an int64 tensor of shape `(N, num_classes)`. Summing its rows counts the classes (the same as "
    "`bincount`), and a matrix product of two one-hot matrices counts pairs: `one_hot(a).T @ one_hot(b)` has, "
    "at `[i, j]`, the number of positions where `a` is `i` and `b` is `j`.",
)
def _():
    a, b = torch.tensor([0, 2, 2, 3, 2]), torch.tensor([1, 1, 2, 3, 0])
    onehot = F.one_hot(a, num_classes=4)
    assert onehot.dtype == torch.int64 and tuple(onehot.shape) == (5, 4) and onehot.sum(dim=1).tolist() == [1] * 5
    assert torch.equal(onehot.sum(dim=0), torch.bincount(a, minlength=4))
    pairs = (onehot.T.float() @ F.one_hot(b, num_classes=4).float()).long()
    assert pairs.tolist() == [
        [sum(1 for p, q in zip(a.tolist(), b.tolist()) if (p, q) == (i, j)) for j in range(4)] for i in range(4)
    ]


@claim(
    LESSON,
    "`x.sort(dim, descending=False)` returns the sorted values and, for each, the index it came from "
    "(`indices`); `x.argsort(dim)` returns only the indices.",
)
def _():
    x = torch.tensor([[0.3, 0.9, 0.1]], dtype=torch.float64)
    values, indices = x.sort(dim=1)
    assert values.tolist() == [[0.1, 0.3, 0.9]] and torch.equal(x.gather(1, indices), values)
    assert torch.equal(x.argsort(dim=1), indices)
    assert x.sort(dim=1, descending=True).values.tolist() == [[0.9, 0.3, 0.1]]


@claim(
    LESSON,
    "`x.topk(k, dim)` returns the `k` largest values along `dim` and their indices, largest first (pass "
    "`largest=False` for the smallest). `k = 0` is allowed and gives empty results.",
)
def _():
    x = torch.tensor([[0.3, 0.9, 0.1, 0.5], [0.8, 0.2, 0.6, 0.4]], dtype=torch.float64)
    top = x.topk(2, dim=1)
    assert top.values.tolist() == [[0.9, 0.5], [0.8, 0.6]] and top.indices.tolist() == [[1, 3], [0, 2]]
    assert x.topk(2, dim=1, largest=False).indices.tolist() == [[2, 0], [1, 3]]
    empty = x.topk(0, dim=1)
    assert tuple(empty.values.shape) == (2, 0) and tuple(empty.indices.shape) == (2, 0)


@claim(
    LESSON,
    "The indices of a sort are not *ranks*: `argsort` says which entry comes first, second, ...; the rank "
    "of each entry is the `argsort` of that `argsort`.",
)
def _():
    x = torch.tensor([0.3, 0.9, 0.1, 0.5])
    order = x.argsort(descending=True)
    assert order.tolist() == [1, 3, 0, 2]
    assert order.argsort().tolist() == [2, 0, 3, 1] != order.tolist()


@claim(LESSON, "`out.scatter_(1, index, True)` sets `out[i][index[i][j]] = True`")
def _():
    out = torch.zeros(2, 4, dtype=torch.bool).scatter_(1, torch.tensor([[3, 0], [1, 1]]), True)
    assert out.tolist() == [[True, False, False, True], [False, True, False, False]]


@claim(
    LESSON,
    "Letters that appear in an input but not after `->` are summed over; the others are kept, in the order written.",
)
def _():
    a, b = torch.randn(3, 4, dtype=torch.float64), torch.randn(5, 4, dtype=torch.float64)
    assert torch.allclose(torch.einsum("nd,md->nm", a, b), a @ b.T)
    assert torch.allclose(torch.einsum("nd,md->mn", a, b), (a @ b.T).T)
    assert torch.allclose(torch.einsum("nd,nd->n", a, a), (a * a).sum(dim=1))
    batch = torch.randn(2, 3, 4, dtype=torch.float64)
    assert torch.allclose(torch.einsum("bij,bjk->bik", batch, batch.transpose(1, 2)), batch @ batch.transpose(1, 2))
    square = torch.arange(9.0).reshape(3, 3)
    assert torch.einsum("ii->i", square).tolist() == torch.diagonal(square).tolist()


@claim(LESSON, "`table[index]` looks up every id at once, giving `(B, L, D)`.")
def _():
    table = torch.randn(10, 4)
    index = torch.randint(0, 10, (3, 5))
    looked = table[index]
    assert tuple(looked.shape) == (3, 5, 4) and torch.equal(looked[2, 1], table[index[2, 1]])


@claim(
    LESSON,
    "`x[index][0] = value` and `x[mask][:, 1] = value` index twice: the first indexing makes a copy, and the "
    "write lands in the copy.",
)
def _():
    x = torch.arange(12).reshape(3, 4)
    x[torch.tensor([1, 2])][0] = -1
    x[x.sum(dim=1) > 10][:, 1] = -1
    assert x.tolist() == torch.arange(12).reshape(3, 4).tolist()
    x[torch.tensor([1, 2]), 0] = -1
    assert x[:, 0].tolist() == [0, -1, -1]


@claim(LESSON, "Count with `bincount`, `scatter_add_`, `index_add_` or `index_put_(..., accumulate=True)`.")
def _():
    index = torch.tensor([0, 0, 2])
    counts = torch.zeros(3, dtype=torch.int64)
    counts.index_put_((index,), torch.tensor(1), accumulate=True)
    assert counts.tolist() == [2, 0, 1] == torch.bincount(index, minlength=3).tolist()


@claim(
    LESSON,
    "Dividing by a count that can be 0 gives NaN (0 / 0). Clamp the count at 1, or choose the result with "
    "`torch.where`.",
)
def _():
    total, count = torch.tensor([0.0, 3.0]), torch.tensor([0, 2])
    assert torch.isnan(total / count)[0] and not torch.isnan(total / count)[1]
    assert (total / count.clamp(min=1)).tolist() == [0.0, 1.5]
    assert torch.where(count > 0, total / count, 0.0).tolist() == [0.0, 1.5]


@claim(LESSON, "`scores.gather(1, labels)` with `labels` of shape `(N,)` raises; `labels.unsqueeze(1)` fixes it.")
def _():
    scores, labels = torch.randn(4, 3), torch.tensor([0, 2, 1, 1])
    with pytest.raises(RuntimeError):
        scores.gather(1, labels)
    assert torch.equal(scores.gather(1, labels.unsqueeze(1)).squeeze(1), scores[torch.arange(4), labels])


@claim(
    LESSON,
    "A 0-d integer tensor is not advanced indexing: PyTorch reads `torch.tensor(1)` as the integer 1, so "
    "`x[torch.tensor(1)]` is a view, like `x[1]`, while `x[torch.tensor([1])]` is a copy.",
)
def _():
    x = torch.arange(12).reshape(3, 4)
    picked = x[torch.tensor(1)]
    assert picked.shape == (4,) and _same_memory(picked, x) and torch.equal(picked, x[1])
    picked[0] = -1
    assert x[1, 0].item() == -1
    copy = x[torch.tensor([1])]
    assert copy.shape == (1, 4) and not _same_memory(copy, x)


@claim(
    LESSON,
    "On a GPU, `scatter_add_` and `index_add_` may behave nondeterministically (PyTorch's documentation says so "
    "for CUDA tensors): the additions into one position run in parallel, in no fixed order, and floating-point "
    "addition depends on the order",
)
def _():
    for method in (torch.Tensor.scatter_add_, torch.Tensor.index_add_):
        assert "may behave nondeterministically when given tensors on a CUDA device" in method.__doc__
    a, b, c = (torch.tensor(v, dtype=torch.float32) for v in (1e8, -1e8, 1.0))
    assert ((a + b) + c).item() != (a + (b + c)).item()


@claim(
    LESSON,
    "Integer additions do not depend on the order. `torch.use_deterministic_algorithms(True)` asks PyTorch for "
    "deterministic versions of such operations.",
)
def _():
    values = torch.randint(-1000, 1000, (200,), generator=torch.Generator().manual_seed(0))
    index = torch.randint(0, 5, (200,), generator=torch.Generator().manual_seed(1))
    base = torch.zeros(5, dtype=torch.int64).scatter_add_(0, index, values)
    for seed in range(5):
        order = torch.randperm(200, generator=torch.Generator().manual_seed(seed))
        assert torch.equal(torch.zeros(5, dtype=torch.int64).scatter_add_(0, index[order], values[order]), base)
    before = torch.are_deterministic_algorithms_enabled()
    try:
        torch.use_deterministic_algorithms(True)
        assert torch.are_deterministic_algorithms_enabled()
        assert torch.equal(torch.zeros(5, dtype=torch.int64).index_add_(0, index, values), base)
    finally:
        torch.use_deterministic_algorithms(before)
