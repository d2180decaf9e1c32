"""Claims of lesson 05 (shapes): views and copies, strides, broadcasting, reductions, matrix products."""

import itertools
import math
import warnings

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.claims import claim

LESSON = "05_shapes"


def _raises(exc_type, func, *args, **kwargs):
    with pytest.raises(exc_type) as info:
        func(*args, **kwargs)
    return info.value


def _same_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _broadcast_by_the_rules(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...] | None:
    """The lesson's three steps, written out: right-align, pad with 1, each column equal or one of them 1."""
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            return None
        out.append(y if x == 1 else x)
    return tuple(out)


@claim(
    LESSON,
    "`x.t()` (transpose) is a view: it only swaps the strides, so reading it row by row jumps around in "
    "memory, and it is no longer contiguous.",
)
def _():
    x = torch.arange(6).reshape(2, 3)
    xt = x.t()
    assert xt.stride() == tuple(reversed(x.stride())) and _same_memory(x, xt)
    assert x.is_contiguous() and not xt.is_contiguous()


@claim(
    LESSON,
    "`x.contiguous()` returns the tensor itself when it is already contiguous, and otherwise a copy laid "
    "out in order. `x.clone()` always copies.",
)
def _():
    x = torch.arange(6).reshape(2, 3)
    assert x.contiguous() is x
    fixed = x.t().contiguous()
    assert fixed.is_contiguous() and not _same_memory(fixed, x) and torch.equal(fixed, x.t())
    assert not _same_memory(x.clone(), x)


@claim(
    LESSON,
    "Both give the same elements, read in row-major order (last dimension fastest), under a new shape. "
    "One size may be `-1`: PyTorch works it out from the others.",
)
def _():
    x = torch.arange(24).reshape(2, 3, 4)
    flat = list(range(24))
    assert x.view(-1).tolist() == flat and x.reshape(4, -1).flatten().tolist() == flat
    assert x.view(6, -1).shape == (6, 4) and x.reshape(-1, 8).shape == (3, 8)


@claim(
    LESSON,
    "`x.view(shape)` **never copies**. It only works when the new shape can be described with new strides "
    "over the existing memory; otherwise it raises a `RuntimeError`.",
)
def _():
    grid = torch.arange(12).reshape(3, 4)
    for shape in [(12,), (2, 6), (4, 3), (2, 2, 3)]:
        assert _same_memory(grid.view(shape), grid)
    cut = grid[:, :3]
    assert not cut.is_contiguous() and _same_memory(cut.view(3, 1, 3), grid)
    assert _same_memory(grid[:, ::2].view(-1), grid)
    _raises(RuntimeError, grid.t().view, -1)
    _raises(RuntimeError, cut.view, -1)


@claim(
    LESSON,
    "`x.reshape(shape)` returns a view when it can, and a copy when it must. It works whenever the sizes "
    "add up (mind one trap with `-1`, below).",
)
def _():
    grid = torch.arange(12).reshape(3, 4)
    assert _same_memory(grid.reshape(-1), grid)
    copied = grid.t().reshape(-1)
    assert not _same_memory(copied, grid) and copied.tolist() == grid.t().contiguous().view(-1).tolist()
    for shape in [(12,), (6, 2), (2, 3, 2), (1, 12, 1)]:
        assert grid.t().reshape(shape).shape == shape
    _raises(RuntimeError, grid.reshape, 5, 3)


@claim(
    LESSON,
    "`-1` cannot be worked out when the tensor has no elements and another size is 0, because any number "
    "would fit. `torch.flatten(x, start_dim=1)` (or `x.flatten(1)`) keeps the first dimension and merges "
    "all the others, and it handles that case.",
)
def _():
    empty = torch.zeros(0, 3, 4, 4)
    _raises(RuntimeError, empty.reshape, 0, -1)
    assert torch.flatten(empty, start_dim=1).shape == (0, 48) and empty.flatten(1).shape == (0, 48)
    x = torch.arange(24).reshape(2, 3, 2, 2)
    assert torch.equal(x.flatten(1), x.reshape(2, 12))


@claim(
    LESSON,
    "It must work when the batch is not contiguous in memory (after a `permute`, or stored as "
    "`x.to(memory_format=torch.channels_last)`)",
)
def _():
    x = torch.arange(24).reshape(2, 3, 2, 2)
    stored = x.to(memory_format=torch.channels_last)
    assert not stored.is_contiguous() and torch.equal(stored, x)
    assert not x.permute(0, 2, 3, 1).is_contiguous()


@claim(
    LESSON,
    "`x.permute(0, 2, 3, 1)` turns `(B, C, H, W)` into `(B, H, W, C)`, and `out[b, h, w, c]` is `x[b, c, h, w]`.",
)
def _():
    x = torch.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    out = x.permute(0, 2, 3, 1)
    assert out.shape == (2, 4, 5, 3)
    for b, c, h, w in itertools.product(range(2), range(3), range(4), range(5)):
        assert out[b, h, w, c] == x[b, c, h, w]


@claim(
    LESSON,
    "`x.transpose(i, j)` swaps two dimensions; `x.t()` is `transpose(0, 1)` for a matrix (2D at most), "
    "and so is `x.T`. With more dimensions `x.T` reverses them all, a use PyTorch warns is deprecated; "
    "`x.mT` swaps the last two, whatever comes before them.",
)
def _():
    x = torch.arange(24).reshape(2, 3, 4)
    assert x.transpose(0, 2).shape == (4, 3, 2)
    m = torch.arange(6).reshape(2, 3)
    assert torch.equal(m.t(), m.transpose(0, 1)) and torch.equal(m.T, m.t())
    _raises(RuntimeError, x.t)
    with pytest.warns(UserWarning, match="deprecated"):
        reversed_all = x.T
    assert torch.equal(reversed_all, x.permute(2, 1, 0))
    for shape in ((2, 3, 4), (5, 2, 3, 4)):
        y = torch.arange(math.prod(shape)).reshape(shape)
        assert torch.equal(y.mT, y.transpose(-2, -1))


@claim(LESSON, "All three return views (no copy), which are usually not contiguous.")
def _():
    x = torch.arange(24).reshape(2, 3, 4)
    for view in (x.permute(2, 0, 1), x.transpose(0, 2), x[0].t()):
        assert _same_memory(view, x) and not view.is_contiguous()


@claim(
    LESSON,
    "`reshape(2, 2, 4, 3)` gives the same shape as the `permute` above, but it only regroups the elements "
    'in memory order, so each "pixel" now holds three numbers that sit next to each other in memory (some '
    "from one channel, some straddling two channels), not the three channels of one pixel.",
)
def _():
    batch = torch.arange(2 * 3 * 2 * 4).reshape(2, 3, 2, 4)
    wrong, last = batch.reshape(2, 2, 4, 3), batch.permute(0, 2, 3, 1)
    assert wrong.shape == last.shape
    assert wrong[0, 1, 2].tolist() == [18, 19, 20] and last[0, 1, 2].tolist() == batch[0, :, 1, 2].tolist()
    channel_of = {value: c for b in range(2) for c in range(3) for value in batch[b, c].flatten().tolist()}
    spans = {
        len({channel_of[v] for v in wrong[b, h, w].tolist()}) for b in range(2) for h in range(2) for w in range(4)
    }
    assert spans == {1, 2}
    pixels = {tuple(last[b, h, w].tolist()) for b in range(2) for h in range(2) for w in range(4)}
    for b, h, w in itertools.product(range(2), range(2), range(4)):
        triple = wrong[b, h, w].tolist()
        assert triple == list(range(triple[0], triple[0] + 3)) and tuple(triple) not in pixels


@claim(
    LESSON,
    "`x.unsqueeze(d)` inserts a size-1 dimension at position `d`: a single image `(C, H, W)` becomes a "
    "batch of one, `(1, C, H, W)`, with `unsqueeze(0)`. Indexing with `None` does the same: `x[None]`, "
    "`v[:, None]`.",
)
def _():
    image = torch.zeros(3, 8, 8)
    assert image.unsqueeze(0).shape == (1, 3, 8, 8) and torch.equal(image[None], image.unsqueeze(0))
    v = torch.arange(3)
    assert torch.equal(v[:, None], v.unsqueeze(1)) and _same_memory(v[:, None], v)


@claim(
    LESSON,
    "`x.squeeze(d)` removes dimension `d` if its size is 1 (and does nothing otherwise). `x.squeeze()` with "
    "no argument removes **every** size-1 dimension, which is risky.",
)
def _():
    scores = torch.zeros(1, 10, 1)
    assert scores.squeeze(2).shape == (1, 10) and scores.squeeze(1).shape == (1, 10, 1)
    assert scores.squeeze().shape == (10,)
    assert torch.zeros(1, 1, 28, 28).squeeze().shape == (28, 28)


@claim(
    LESSON,
    "The result has, in each column, the common size when the two are equal, and otherwise the size that is "
    "not 1: usually the larger one, but a 0 against a 1 gives 0 (an empty batch stays empty). If some column has "
    "two different sizes and neither is 1, the operation raises a `RuntimeError`.",
)
@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=4), st.lists(st.integers(0, 3), max_size=4))
def _(a, b):
    expected = _broadcast_by_the_rules(tuple(a), tuple(b))
    if expected is None:
        _raises(RuntimeError, torch.add, torch.zeros(a), torch.zeros(b))
    else:
        assert tuple((torch.zeros(a) + torch.zeros(b)).shape) == expected


@claim(LESSON, "Subtracting a per-channel mean of shape `(1, 3, 1, 1)` from a batch `(4, 3, 2, 2)` works")
def _():
    batch = torch.randn(4, 3, 2, 2)
    mean = torch.tensor([0.5, 0.4, 0.3]).view(1, 3, 1, 1)
    out = batch - mean
    assert out.shape == (4, 3, 2, 2) and torch.allclose(out[:, 1], batch[:, 1] - 0.4)


@claim(
    LESSON,
    "A mean of shape `(3,)` is lined up with the **last** dimension, the width, not with the channels. Here "
    "the width is 2, so the shapes clash. (Had the width been 3, it would have run and subtracted the "
    "wrong numbers: the rules compare sizes, not meanings.)",
)
def _():
    mean = torch.tensor([0.5, 0.4, 0.3])
    _raises(RuntimeError, torch.sub, torch.zeros(4, 3, 2, 2), mean)
    wide = torch.zeros(4, 3, 2, 3)
    assert (wide - mean)[0, 0, 0].tolist() == pytest.approx([-0.5, -0.4, -0.3])
    assert not torch.equal(wide - mean, wide - mean.view(1, 3, 1, 1))


@claim(
    LESSON,
    "Stretching costs no memory: `expand` shows what broadcasting does under the hood, a view whose stride "
    "is 0 along the stretched dimension, so every step reads the same element again.",
)
def _():
    column = torch.tensor([[1.0], [2.0], [3.0]])
    stretched = column.expand(3, 5)
    assert stretched.stride() == (1, 0) and _same_memory(stretched, column)
    assert torch.equal(column + torch.zeros(5), stretched)


@claim(
    LESSON,
    "With no argument it reduces everything to a 0-d tensor. With `dim=d` it reduces **along** dimension "
    "`d`: that dimension disappears from the shape, and everything else stays. `sum` and `mean` (and `amax`, "
    "`amin`) also take a tuple of dimensions; `max` and `min` with a `dim` take one, because they also return "
    "where each extreme was.",
)
def _():
    table = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert table.sum().dim() == 0 and table.mean().item() == 3.5
    assert table.sum(dim=0).tolist() == [5.0, 7.0, 9.0] and table.sum(dim=1).tolist() == [6.0, 15.0]
    x = torch.randn(2, 3, 4, 5)
    for reduce in (torch.sum, torch.mean, torch.amax, torch.amin):
        assert reduce(x, dim=(0, 2)).shape == (3, 5)
    for extreme in (torch.max, torch.min):
        _raises(TypeError, lambda: extreme(x, dim=(0, 2)))
        values, indices = extreme(x, dim=1)
        assert values.shape == indices.shape == (2, 4, 5) and indices.dtype == torch.int64


@claim(
    LESSON,
    "`keepdim=True` keeps the reduced dimension as size 1 instead of dropping it. That is what you want "
    "when you combine the result with the original tensor: a `(2, 1)` row mean lines up with `(2, 3)` row "
    "by row, while a `(2,)` row mean would be lined up with the columns (and here clash).",
)
def _():
    table = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert table.mean(dim=1, keepdim=True).shape == (2, 1) and table.mean(dim=1).shape == (2,)
    assert torch.allclose((table - table.mean(dim=1, keepdim=True)).sum(dim=1), torch.zeros(2))
    _raises(RuntimeError, torch.sub, table, table.mean(dim=1))


@claim(LESSON, "`mean` needs a floating-point tensor (convert integers with `.float()` first).")
def _():
    _raises(RuntimeError, torch.arange(4).mean)
    assert torch.arange(4).float().mean().item() == 1.5


@claim(
    LESSON,
    "`std` and `var` divide by `n - 1` by default (the *sample* estimate). The *population* value divides "
    "by `n`: pass `correction=0`.",
)
def _():
    values = torch.tensor([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0])
    squares = ((values - values.mean()) ** 2).sum()
    assert values.var().item() == pytest.approx(squares.item() / 7)
    assert values.var(correction=0).item() == pytest.approx(squares.item() / 8)
    assert values.std(correction=0).item() == pytest.approx(2.0)


@claim(LESSON, "`max(dim=d)` returns two tensors, the values and their positions (`.values`, `.indices`).")
def _():
    best = torch.tensor([[1.0, 3.0, 2.0], [6.0, 5.0, 4.0]]).max(dim=1)
    assert best.values.tolist() == [3.0, 6.0] and best.indices.tolist() == [1, 0]


@claim(
    LESSON,
    "`a @ b` (or `torch.matmul(a, b)`) is the matrix product: for `a` of shape `(n, k)` and `b` of shape "
    "`(k, m)` it gives `(n, m)`, each entry the dot product of a row of `a` with a column of `b`. The inner "
    "sizes (`k`) must match.",
)
def _():
    a, b = torch.randn(4, 3), torch.randn(3, 5)
    product = a @ b
    assert product.shape == (4, 5) and torch.equal(product, torch.matmul(a, b))
    assert torch.allclose(product[2, 1], (a[2] * b[:, 1]).sum())
    _raises(RuntimeError, torch.matmul, a, torch.randn(4, 5))


@claim(
    LESSON,
    "With more than two dimensions, `@` multiplies the last two and broadcasts the ones in front, so a "
    "whole batch goes through in one call. Two 1D tensors give their dot product.",
)
def _():
    stack, w = torch.randn(8, 4, 3), torch.randn(3, 5)
    out = stack @ w
    assert out.shape == (8, 4, 5) and torch.allclose(out[6], stack[6] @ w)
    assert (torch.tensor([1.0, 2.0]) @ torch.tensor([3.0, 4.0])).item() == 11.0


@claim(
    LESSON,
    "Rounding can then make it slightly negative when two points coincide, so clamp it at 0 with "
    "`.clamp_min(0)` before taking a square root.",
)
def _():
    a = torch.randn(50, 16, generator=torch.Generator().manual_seed(0)) * 10
    squared = (a * a).sum(dim=1, keepdim=True) + (a * a).sum(dim=1) - 2 * a @ a.T
    assert (squared.diagonal() < 0).any()
    assert squared.sqrt().isnan().any() and not squared.clamp_min(0).sqrt().isnan().any()


@claim(
    LESSON,
    "Even clamped, that form is less exact: for 50 float32 points about 40 from the origin, a point's "
    "distance to itself can come out as 0.03 instead of 0.",
)
def _():
    a = torch.randn(50, 16, generator=torch.Generator().manual_seed(0)) * 10
    assert 25 < a.norm(dim=1).median().item() < 60
    self_distance = ((a * a).sum(dim=1, keepdim=True) + (a * a).sum(dim=1) - 2 * a @ a.T).clamp_min(0).sqrt().diagonal()
    assert self_distance.max().item() == pytest.approx(0.03, abs=0.005)
    assert (a[:, None, :] - a[None, :, :]).pow(2).sum(dim=-1).sqrt().diagonal().max().item() == 0.0


@claim(
    LESSON,
    "`torch.cdist` switches to it by itself for more than 25 points, unless you pass "
    '`compute_mode="donot_use_mm_for_euclid_dist"`.',
)
def _():
    a = torch.randn(50, 16, generator=torch.Generator().manual_seed(0)) * 10
    assert torch.cdist(a[:25], a[:25]).diagonal().max().item() == 0.0
    assert torch.cdist(a[:26], a[:26]).diagonal().max().item() > 1e-3
    assert torch.cdist(a, a, compute_mode="donot_use_mm_for_euclid_dist").diagonal().max().item() == 0.0


@claim(LESSON, "`(N, 1)` against `(N,)` gives `(N, N)`, every prediction minus every target. Nothing raises")
def _():
    pred, target = torch.tensor([[2.0], [4.0], [6.0]]), torch.tensor([2.0, 4.0, 6.0])
    assert (pred - target).shape == (3, 3)
    assert ((pred - target) ** 2).mean().item() == pytest.approx(48 / 9)


@claim(
    LESSON,
    "`torch.nn.functional.mse_loss(pred, target)` does no better: it warns that the two sizes differ, then "
    "broadcasts anyway.",
)
def _():
    pred, target = torch.tensor([[2.0], [4.0], [6.0]]), torch.tensor([2.0, 4.0, 6.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loss = torch.nn.functional.mse_loss(pred, target)
    assert any(issubclass(w.category, UserWarning) and "size" in str(w.message) for w in caught)
    assert loss.item() == pytest.approx(48 / 9)


@claim(LESSON, "Patch 1, for example, should become the row `2, 3, 8, 9`.")
def _():
    img = torch.arange(24).reshape(1, 1, 4, 6)
    assert img[0, 0, 0:2, 2:4].reshape(-1).tolist() == [2, 3, 8, 9]
    patches = img.reshape(1, 1, 2, 2, 3, 2).permute(0, 2, 4, 1, 3, 5).reshape(1, 6, 4)
    assert patches[0, 1].tolist() == [2, 3, 8, 9]


@claim(
    LESSON,
    "`view` after `permute` or a transpose.** It usually raises a `RuntimeError` about size and stride, "
    "whenever it has to merge dimensions that are no longer next to each other in memory (it works when they still "
    "are: `torch.zeros(2, 3, 4).permute(0, 2, 1).view(2, 2, 2, 3)` only splits a dimension). Use `reshape`, or "
    "`.contiguous().view(...)`.",
)
def _():
    split = torch.zeros(2, 3, 4).permute(0, 2, 1).view(2, 2, 2, 3)
    assert split.shape == (2, 2, 2, 3) and not torch.zeros(2, 3, 4).permute(0, 2, 1).is_contiguous()
    x = torch.arange(24).reshape(2, 3, 4).permute(2, 0, 1)
    error = _raises(RuntimeError, x.view, -1)
    assert "size and stride" in str(error)
    assert torch.equal(x.reshape(-1), x.contiguous().view(-1))


@claim(
    LESSON,
    "A reduced tensor lines up with the *last* dimensions of the original. If the sizes happen to match, "
    "you get numbers without an error",
)
def _():
    square = torch.tensor([[1.0, 2.0], [10.0, 30.0]])
    assert (square - square.mean(dim=1)).tolist() == [[-0.5, -18.0], [8.5, 10.0]]


@claim(
    LESSON,
    "`dim` names the dimension that disappears: `dim=0` combines the rows (one result per column), `dim=1` "
    "combines the columns (one result per row).",
)
def _():
    table = torch.arange(6.0).reshape(2, 3)
    assert table.sum(dim=0).shape == (3,) and table.sum(dim=1).shape == (2,)


@claim(LESSON, "**5. `squeeze()` with no argument.** With a batch of one, it removes the batch dimension too.")
def _():
    assert torch.zeros(1, 10).squeeze().shape == (10,)
    assert torch.zeros(1, 10).squeeze(1).shape == (1, 10)


@claim(LESSON, "With a `(2, 2)` input and a `(2, 1)` weight both run, and only `@` computes the linear layer.")
def _():
    inputs, weight = torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[0.5], [0.5]])
    assert (inputs @ weight).tolist() == [[1.5], [3.5]]
    assert (inputs * weight).shape == (2, 2)
    assert torch.equal(torch.nn.functional.linear(inputs, weight.t()), inputs @ weight)


@claim(LESSON, "`x.std()` divides by `n - 1`; `correction=0` divides by `n`.")
def _():
    pair = torch.tensor([1.0, 3.0])
    assert pair.std().item() == pytest.approx(2**0.5) and pair.std(correction=0).item() == 1.0


@claim(LESSON, "Predictions of shape `(N, 1)` minus targets of shape `(N,)` give `(N, N)`, not `(N,)`")
def _():
    for n in (2, 5):
        assert (torch.zeros(n, 1) - torch.zeros(n)).shape == (n, n)


@claim(
    LESSON,
    "`view`, `permute`, `transpose`, `.t()`, `expand` and `unsqueeze`/`squeeze` make *views* over the same "
    "memory; `clone`, `contiguous` (when needed) and `reshape` (when needed) copy.",
)
def _():
    x = torch.arange(6.0).reshape(2, 3)
    for view in (
        x.view(3, 2),
        x.permute(1, 0),
        x.transpose(0, 1),
        x.t(),
        x[:1].expand(4, 3),
        x.unsqueeze(0),
        x.unsqueeze(0).squeeze(0),
    ):
        assert _same_memory(view, x)
    for copy in (x.clone(), x.t().contiguous(), x.t().reshape(-1)):
        assert not _same_memory(copy, x)


@claim(
    LESSON,
    "`view` never copies, so it refuses a new shape that the memory layout cannot give without a copy "
    "(typically after `permute` or a transpose); `reshape` copies when it must.",
)
def _():
    x = torch.arange(24).reshape(2, 3, 4)
    _raises(RuntimeError, x.permute(1, 0, 2).view, 6, 4)
    assert x.permute(1, 0, 2).view(3, 2, 4).shape == (3, 2, 4)
    assert x.permute(1, 0, 2).reshape(6, 4).shape == (6, 4)


@claim(
    LESSON,
    "`t.data_ptr()` is the address of `t`'s own first element instead, and a view that starts further in has "
    "another one: `x[1]` shares `x`'s memory, yet `x[1].data_ptr() != x.data_ptr()`.",
)
def _():
    x = torch.arange(6).reshape(2, 3)
    assert x[1].data_ptr() != x.data_ptr()
    assert x[1].untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert x[1].data_ptr() == x.data_ptr() + 3 * x.element_size()
    assert x.t().data_ptr() == x.data_ptr()
    assert x.clone().untyped_storage().data_ptr() != x.untyped_storage().data_ptr()


@claim(
    LESSON,
    "broadcasting may stretch `b` but never `a`: the result must have `a`'s shape. "
    "`torch.zeros(2, 3).add_(torch.ones(3))` works, and `torch.zeros(3).add_(torch.ones(2, 3))` raises a "
    "`RuntimeError`, although `torch.zeros(3) + torch.ones(2, 3)` is fine.",
)
def _():
    assert torch.zeros(2, 3).add_(torch.ones(3)).tolist() == [[1.0] * 3] * 2
    _raises(RuntimeError, torch.zeros(3).add_, torch.ones(2, 3))
    _raises(RuntimeError, torch.zeros(1, 3).mul_, torch.ones(2, 3))
    assert (torch.zeros(3) + torch.ones(2, 3)).shape == (2, 3)


@claim(
    LESSON,
    "`x.to(memory_format=torch.channels_last)` keeps the `C` channel values of each pixel next to each other, as a "
    "`(B, H, W, C)` tensor would store them, in one dense block with no gaps: its strides become "
    '`(H*W*C, 1, W*C, C)`. The shape stays `(B, C, H, W)`, and "contiguous" means row-major for the tensor\'s own '
    "shape, so `is_contiguous()` is `False` while `is_contiguous(memory_format=torch.channels_last)` is `True`.",
)
def _():
    for b, c, h, w in ((2, 3, 2, 2), (1, 4, 3, 5)):
        x = torch.arange(b * c * h * w).reshape(b, c, h, w)
        stored = x.to(memory_format=torch.channels_last)
        assert stored.shape == x.shape and torch.equal(stored, x)
        assert stored.stride() == (h * w * c, 1, w * c, c)
        assert not stored.is_contiguous() and stored.is_contiguous(memory_format=torch.channels_last)
        assert stored.untyped_storage().nbytes() == x.numel() * x.element_size()
        flat = torch.empty(0, dtype=x.dtype).set_(stored.untyped_storage())
        assert torch.equal(flat, x.permute(0, 2, 3, 1).reshape(-1))


@claim(
    LESSON,
    "Your result must agree with the exact distances, `torch.cdist(a, b, "
    'compute_mode="donot_use_mm_for_euclid_dist")`, to within 1e-4',
)
def _():
    a = torch.randn(50, 16, generator=torch.Generator().manual_seed(0)) * 10
    exact = (a[:, None, :] - a[None, :, :]).pow(2).sum(dim=-1).sqrt()
    assert torch.allclose(torch.cdist(a, a, compute_mode="donot_use_mm_for_euclid_dist"), exact, atol=1e-4)
    assert not torch.allclose(torch.cdist(a, a), exact, atol=1e-4)


@claim(LESSON, "(`dim` takes a tuple of dimensions too, and reduces along each.)")
def _():
    t = torch.arange(120.0).reshape(4, 5, 6)
    assert torch.equal(t.sum(dim=(0, 2)), t.sum(dim=2).sum(dim=0))
    assert torch.equal(t.sum(dim=(0, 2), keepdim=True), t.sum(dim=2, keepdim=True).sum(dim=0, keepdim=True))
    assert torch.equal(t.mean(dim=(0, 2)), t.mean(dim=2).mean(dim=0))


@claim(
    LESSON,
    "A batch-normalisation layer (`nn.BatchNorm2d`, in training mode) starts by giving every channel mean 0 and standard "
    "deviation 1 over the batch",
)
def _():
    from torch import nn

    x = torch.randn(8, 3, 5, 5) * 4 + 2
    norm = nn.BatchNorm2d(3, eps=1e-12).train()
    out = norm(x)
    mean, std = x.mean(dim=(0, 2, 3), keepdim=True), x.std(dim=(0, 2, 3), correction=0, keepdim=True)
    assert torch.allclose(out, (x - mean) / std, atol=1e-4)
    assert torch.allclose(out.mean(dim=(0, 2, 3)), torch.zeros(3), atol=1e-5)
    assert torch.allclose(out.std(dim=(0, 2, 3), correction=0), torch.ones(3), atol=1e-4)
