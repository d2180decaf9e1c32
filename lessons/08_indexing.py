# %% [markdown]
# # indexing, gathering and vectorized code
#
# This lesson follows the one on shapes (lesson {05_shapes}). Fast tensor code rarely touches one element at
# a time: it selects, gathers, counts and scatters whole batches with a few tensor operations, and
# leaves the loop to compiled code. Here you learn those operations, and you measure what a Python
# loop costs.
#
# **You will learn to**
#
# - tell *basic* indexing (integers and slices: a view) from *advanced* indexing (integer tensors
#   with at least one dimension, and boolean masks: a copy), and write through a view on purpose;
# - select with boolean masks and keep shapes with `torch.where`;
# - pick one entry per row with advanced indexing or `gather`;
# - join tensors with `cat` and `stack`;
# - count with `bincount`, and add into positions with `scatter_add_` and `index_add_`;
# - encode labels as one-hot rows, and find the largest entries with `sort` and `topk`;
# - write products and sums over named dimensions with `einsum`;
# - turn a Python loop into tensor operations, and time both with `torch.utils.benchmark`.

# %%
import torch
import torch.nn.functional as F

from course.device import describe_setup
from course.pictures.indexing import gather_picture, mask_selection, timing_curves

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(describe_setup(device))


def same_memory(a, b):
    """Whether two tensors are windows on the same block of memory."""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()

# %% [markdown]
# ## Basic indexing gives views
#
# Indexing with integers and slices (`x[1]`, `x[:, 1]`, `x[1:, ::2]`) is *basic indexing*. Every
# element it selects sits at a regular step in memory, so PyTorch answers with a **view**: a new
# shape and new strides over the same memory, with nothing copied (lesson {05_shapes}). An integer removes
# its dimension; a slice keeps it, even a slice of length 1.

# %%
x = torch.arange(12, device=device).reshape(3, 4)
for name, part in [("x[1]", x[1]), ("x[:, 1]", x[:, 1]), ("x[1:, ::2]", x[1:, ::2]), ("x[1:2]", x[1:2])]:
    print(f"{name:11} shape {str(tuple(part.shape)):7} stride {str(part.stride()):7} same memory as x: {same_memory(part, x)}")

# %% [markdown]
# ## Writing through a view
#
# A view is a window onto the original, so an in-place operation on it (`+=`, `.zero_()`,
# `.fill_()`, `view[...] = value`) changes the original tensor. That is how you update one column
# or one block of a large tensor without rebuilding it, and also how data changes by accident:
# call `.clone()` when you need a copy you can change freely.

# %%
x = torch.arange(12, device=device).reshape(3, 4)
column = x[:, 1]
column += 100               # in place, through the view
x[2:, ::2].zero_()          # a strided block, set to zero in place
print(x)
safe = x[0].clone()
safe.fill_(-1)              # the clone has its own memory
print("row 0 after filling its clone:", x[0].tolist())

# %% [markdown]
# ## Advanced indexing copies
#
# Indexing with a tensor (or a list) of integers, or with a boolean mask, is *advanced indexing*.
# The elements it picks can come from anywhere, in any order, even twice, so no single stride
# describes them: PyTorch copies them into new memory. Writing into that result leaves `x` alone.
#
# A 0-d integer tensor is not advanced indexing: PyTorch reads `torch.tensor(1)` as the integer 1,
# so `x[torch.tensor(1)]` is a view, like `x[1]`, while `x[torch.tensor([1])]` is a copy.
#
# Assignment is the exception that makes this confusing: `x[index] = value` (one indexing
# expression on the left of `=`) writes into `x` itself. Python turns it into a call on `x`
# (`x.__setitem__`, PyTorch's `index_put_`), not into "make the copy, then write into it".

# %%
x = torch.arange(12, device=device).reshape(3, 4)
rows = torch.tensor([2, 0], device=device)
picked = x[rows]                       # rows 2 and 0, in that order: a copy
print(picked.tolist(), "same memory as x:", same_memory(picked, x))
picked[0, 0] = -1                      # changes the copy only
print("x[2, 0] after writing into the copy:", x[2, 0].item())
x[rows, 0] = -1                        # one indexing expression left of '=': writes into x
print("x[:, 0] after x[rows, 0] = -1:", x[:, 0].tolist())
x[rows][:, 1] = -5                     # two steps: x[rows] is a copy, the write lands there
print("x[:, 1] after x[rows][:, 1] = -5:", x[:, 1].tolist(), "(unchanged)")
print("x[torch.tensor(1)] same memory as x:", same_memory(x[torch.tensor(1, device=device)], x),
      "| x[torch.tensor([1])]:", same_memory(x[torch.tensor([1], device=device)], x))

# %% [markdown]
# NumPy follows the same rule: fancy indexing copies, slicing gives a view.

# %%
import numpy as np

a = np.arange(12).reshape(3, 4)
print("a[1:]:", np.shares_memory(a, a[1:]), "  a[[2, 0]]:", np.shares_memory(a, a[[2, 0]]))

# %% [markdown]
# ### Quiz: does `x[[0, 2]]` share memory?
#
# ```python
# x = torch.arange(12).reshape(4, 3)
# y = x[[0, 2]]
# z = x[0:3:2]
# y[0, 0] = 100
# z[1, 0] = -1
# print(x[:, 0])
# ```
#
# `y` and `z` pick the same two rows, 0 and 2. What does the last line print?
#
# - **A.** `tensor([100,   3,  -1,   9])`
# - **B.** `tensor([0, 3, 6, 9])`
# - **C.** `tensor([100,   3,   6,   9])`
# - **D.** `tensor([ 0,  3, -1,  9])`

# %% answer answer_advanced_index_copies quiz=rule
# One upper-case letter as a string, for example "A".
answer_advanced_index_copies = None
### BEGIN SOLUTION
answer_advanced_index_copies = "D"
### END SOLUTION

# %% test answer_advanced_index_copies points=1
from course.quiz import check_choice, form_checked

check_choice(answer_advanced_index_copies, "ABCD", name="answer_advanced_index_copies")
form_checked("answer_advanced_index_copies")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_advanced_index_copies, "D", name="answer_advanced_index_copies",
          why="x[[0, 2]] is advanced indexing, which always copies: y[0, 0] = 100 changes only that copy. x[0:3:2] is "
              "basic slicing, a view with a step (stride 6 between its rows), so z[1, 0] = -1 writes into x[2, 0]. "
              "Whether rows sit side by side does not matter; what kind of index picked them does. Only "
              "x[[0, 2], 0] = 100, written as one indexing expression, would write through a list of rows.")
### END HIDDEN TESTS

# %% [markdown]
# ## Boolean masks
#
# A comparison such as `x > 0` gives a bool tensor of `x`'s shape: a *mask*. `x[mask]` keeps the
# entries where the mask is True and returns them as a copy, **flattened**: read row by row, one
# after another. When the mask covers only the first dimensions of `x`, each True position brings
# everything behind it along: for `x` of shape `(3, 4, 2)` and a mask of shape `(3, 4)` with 5 True
# cells, `x[mask]` has shape `(5, 2)`.

# %%
mask = torch.tensor([[True, False, True, False],
                     [False, False, True, True],
                     [True, False, False, False]], device=device)
x = torch.arange(24, device=device).reshape(3, 4, 2)
print(tuple(x[mask].shape), "<- one row of 2 values per True cell;", int(mask.sum()), "True cells")
mask_selection(mask.tolist(), trailing=2)

# %% [markdown]
# A selection loses the shape, which is often not what you want. Three ways keep it:
#
# - `torch.where(cond, a, b)` picks from `a` where `cond` is True and from `b` elsewhere; `a` and
#   `b` broadcast, and either may be a plain number;
# - `x.masked_fill(mask, value)` returns a copy with `value` where the mask is True;
# - `x[mask] = value` writes into `x` in place.

# %%
scores = torch.tensor([[0.5, -1.0, 2.0], [-0.5, 3.0, -2.0]], device=device)
print(scores[scores > 0].tolist(), "<- flat: which row each came from is lost")
print(torch.where(scores > 0, scores, 0.0).tolist(), "<- same shape, zeros elsewhere")
print(scores.masked_fill(scores <= 0, float("-inf")).tolist())
kept = scores.clone()
kept[kept < 0] = 0.0                   # in place
print(kept.tolist())

# %% [markdown]
# ### Quiz: the shape of a masked selection
#
# ```python
# x = torch.randn(4, 3, 5)
# mask = torch.tensor([[True, False, True],
#                      [False, False, False],
#                      [True, True, True],
#                      [False, True, True]])
# ```
#
# What is `x[mask].shape`? Answer with a tuple of ints.

# %% answer answer_mask_shape quiz=rule
# A tuple of ints, for example (1, 2, 3).
answer_mask_shape = None
### BEGIN SOLUTION
answer_mask_shape = (7, 5)
### END SOLUTION

# %% test answer_mask_shape points=1
from course.quiz import check_int_tuple, form_checked

check_int_tuple(answer_mask_shape, name="answer_mask_shape")
form_checked("answer_mask_shape")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_mask_shape, (7, 5), name="answer_mask_shape",
          why="The mask covers the first two dimensions (4, 3) and holds 7 True cells; x[mask] lists them in one "
              "dimension, and each brings its row of 5 values along: (7, 5).")
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `masked_mean`
#
# **To write:** `masked_mean(x, mask)` returns the mean over the last dimension of the entries where
# `mask` is True, 0 where none is.
#
# Sequences of different lengths are usually padded to one length `L` and stored with a mask that
# says which entries are real. Write `masked_mean(x, mask)`: `x` has shape `(..., L)` (any number
# of leading dimensions, none included) and holds finite floating-point numbers, and `mask` is a
# bool tensor of the same shape. Return the mean over the last dimension of the entries where `mask`
# is True, with shape `(...)` (a 0-d tensor when `x` is 1D). A row whose mask is all False has mean
# **0**, not NaN; that includes every row when `L` is 0. Keep `x`'s dtype (float16, float32 or
# float64) and device, and leave both inputs unchanged; either may be non-contiguous.

# %% answer masked_mean
def masked_mean(x, mask):
    """The mean of x over its last dimension, counting only the entries where mask is True (0 for none)."""
    ### BEGIN SOLUTION
    total = torch.where(mask, x, 0).sum(dim=-1)
    count = mask.sum(dim=-1)
    return total / count.clamp(min=1)
    ### END SOLUTION

# %% test masked_mean points=2
import torch
from course.checks import check_tensor, passed

x = torch.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.0, 1.0, 1.0, 1.0]])
mask = torch.tensor([[True, False, True, False], [False, False, False, True], [False, False, False, False]])
check_tensor(masked_mean(x, mask), torch.tensor([2.0, 8.0, 0.0]),
             what="masked_mean of a (3, 4) x whose last row has no True entry")
x3 = torch.arange(12.0).reshape(2, 2, 3)
mask3 = torch.tensor([[[True, True, True], [True, False, False]], [[False, False, True], [False, True, True]]])
check_tensor(masked_mean(x3, mask3), torch.tensor([[1.0, 3.0], [8.0, 10.5]]),
             what="masked_mean of a (2, 2, 3) x: one mean per (batch, row)")
passed("masked_mean")
### BEGIN HIDDEN TESTS
from course.checks import check_runs, check_true
from course.device import test_devices
from course.probes.core import call_watching_inputs
from instructor.indexing import dyadic, masked_mean_reference, tolerance

for dev in test_devices():
    g = torch.Generator().manual_seed(8)
    watched = (torch.randn(4, 6, generator=g).to(dev), (torch.rand(4, 6, generator=g) < 0.5).to(dev))
    result, changed = check_runs(call_watching_inputs, masked_mean, *watched, what=f"masked_mean of a (4, 6) x on {dev}")
    which = ", ".join({"arg 0": "x", "arg 1": "mask"}.get(c, c) for c in changed)
    check_true(changed == [], f"Expected masked_mean to leave x and mask unchanged (measured in your process), but it changed {which} on {dev}.")
    cases = []
    for dtype in (torch.float16, torch.float32, torch.float64):
        values = dyadic((5, 7), generator=g).to(dtype) if dtype == torch.float16 else torch.randn(5, 7, generator=g, dtype=dtype)
        keep = torch.rand(5, 7, generator=g) < 0.5
        keep[1] = False
        keep[3] = True
        cases.append((f"a {dtype} (5, 7) x with an all-False row and an all-True row", values, keep))
    wide = torch.randn(9, 4, generator=g)
    cases += [
        ("a 1D x of 6 entries (a 0-d result)", torch.randn(6, generator=g), torch.tensor([True, False, True, True, False, False])),
        ("a 1D x whose mask is all False", torch.randn(3, generator=g), torch.zeros(3, dtype=torch.bool)),
        ("a (2, 3, 5) x", torch.randn(2, 3, 5, generator=g), torch.rand(2, 3, 5, generator=g) < 0.6),
        ("a (4, 9) x made by .t() and a mask made by .t() (not contiguous)", wide.t(), (torch.rand(9, 4, generator=g) < 0.5).t()),
        ("a (3, 0) x (L = 0: every row has no entry)", torch.zeros(3, 0), torch.zeros(3, 0, dtype=torch.bool)),
        ("an empty (0, 4) x", torch.zeros(0, 4), torch.zeros(0, 4, dtype=torch.bool)),
        ("a (2, 50) float64 x with large values", torch.randn(2, 50, generator=g, dtype=torch.float64) * 1e6,
         torch.rand(2, 50, generator=g) < 0.3),
    ]
    for label, values, keep in cases:
        values, keep = values.to(dev), keep.to(dev)
        what = f"masked_mean of {label} on {dev}"
        check_tensor(check_runs(masked_mean, values, keep, what=what), masked_mean_reference(values, keep), what=what,
                     **tolerance(values.dtype))
### END HIDDEN TESTS

# %% [markdown]
# ## Picking entries with index tensors: advanced indexing and gather
#
# Two index tensors in one indexing expression are paired up, position by position:
# `x[rows, cols]` is the tensor of `x[rows[i], cols[i]]`, with the shape of the index tensors (they
# broadcast against each other). So `x[torch.arange(3), cols]` picks one entry from each of the
# three rows.
#
# `torch.gather(x, dim, index)` (or `x.gather(dim, index)`) says the same thing along one
# dimension. `index` has as many dimensions as `x`, and the result has `index`'s shape; with
# `dim=1`, `out[i][j] = x[i][index[i][j]]`: row `i` picks its own columns. The picture shows it.

# %%
x = torch.arange(12, device=device).reshape(3, 4) * 10
cols = torch.tensor([2, 1, 3], device=device)
print(x[torch.arange(3, device=device), cols].tolist(), "<- x[i, cols[i]] for each row i")
index = torch.tensor([[2, 0], [1, 1], [3, 2]], device=device)
print(x.gather(1, index).tolist(), "<- out[i][j] = x[i][index[i][j]]")
gather_picture(index.tolist(), num_cols=4)

# %% [markdown]
# `gather` with an index that has fewer dimensions than `x` raises a `RuntimeError`; add the
# missing dimension with `unsqueeze` (and drop it afterwards with `squeeze`). `gather` works along
# any `dim`, with any number of picks per row, on any device, and keeps `x`'s dtype.
#
# **Try it.** For `x` of shape `(3, 4)`, pick from each *column* the row given by
# `torch.tensor([[2, 0, 1, 1]])`, first with `gather` along `dim=0`, then with two index tensors.

# %%
x = torch.arange(12).reshape(3, 4)
print(x)

# %% [markdown]
# ### Quiz: gather along dim 0
#
# `x = torch.tensor([[10, 20, 30], [40, 50, 60]])`. What is `x.gather(0, torch.tensor([[1, 0, 1]]))`?
#
# - **A.** `tensor([[40, 20, 60]])`
# - **B.** `tensor([[20, 10, 20]])`
# - **C.** a `RuntimeError`
# - **D.** `tensor([[40, 50, 60], [10, 20, 30], [40, 50, 60]])`

# %% answer answer_gather_dim0 quiz=rule
# One upper-case letter as a string, for example "A".
answer_gather_dim0 = None
### BEGIN SOLUTION
answer_gather_dim0 = "A"
### END SOLUTION

# %% test answer_gather_dim0 points=1
from course.quiz import check_choice, form_checked

check_choice(answer_gather_dim0, "ABCD", name="answer_gather_dim0")
form_checked("answer_gather_dim0")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_gather_dim0, "A", name="answer_gather_dim0",
          why='Along dim=0, out[i][j] = x[index[i][j]][j]: the index says which row, and the column is j itself. So'
              " column 0 takes row 1 (40), column 1 row 0 (20), column 2 row 1 (60), and the result has the index's"
              ' shape (1, 3). Reading the index as columns (B) is gather along dim=1; the index may be smaller than'
              ' x (not C); whole rows (D) is x[[1, 0, 1]].')
### END HIDDEN TESTS

# %% [markdown]
# ### Quiz: two index tensors of different shapes
#
# ```python
# x = torch.zeros(5, 6, 7)
# rows = torch.tensor([0, 2, 4])
# cols = torch.tensor([[1], [3]])
# ```
#
# What is the shape of `x[rows, cols]`? Answer with a tuple of ints.

# %% answer answer_index_broadcast_shape quiz=rule
# A tuple of ints, for example (2, 5).
answer_index_broadcast_shape = None
### BEGIN SOLUTION
answer_index_broadcast_shape = (2, 3, 7)
### END SOLUTION

# %% test answer_index_broadcast_shape points=1
from course.quiz import check_int_tuple, form_checked

check_int_tuple(answer_index_broadcast_shape, name="answer_index_broadcast_shape")
form_checked("answer_index_broadcast_shape")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_index_broadcast_shape, (2, 3, 7), name="answer_index_broadcast_shape",
          why='The two index tensors are paired position by position after broadcasting against each other: (3,) '
              'and (2, 1) give (2, 3), so there are 2 x 3 picks of x[rows[j], cols[i]]. Each pick is a row of the '
              'dimension left unindexed, 7 values, so the result is (2, 3, 7).')
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `select_by_label`
#
# **To write:** `select_by_label(scores, labels)` returns each example's score for its own label,
# `scores[i, labels[i]]`, with no Python loop.
#
# A classifier gives `scores` of shape `(N, C)`: one row per example, one column per class. The
# true class of each example is in `labels`, an int64 tensor of shape `(N,)` with values in
# `[0, C)`. Return the `(N,)` tensor whose entry `i` is `scores[i, labels[i]]`: the score each
# example gives its own label (a loss such as cross-entropy starts with exactly this step).
# Keep `scores`' dtype (float16, float32 or float64) and device; `N = 0` gives an empty `(0,)`
# tensor. Both inputs may be non-contiguous; leave them unchanged.

# %% answer select_by_label
def select_by_label(scores, labels):
    """(N,) tensor whose entry i is scores[i, labels[i]]."""
    ### BEGIN SOLUTION
    return scores.gather(1, labels.unsqueeze(1)).squeeze(1)
    ### END SOLUTION

# %% test select_by_label points=2
import torch
from course.checks import check_tensor, passed

scores = torch.tensor([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2], [0.2, 0.2, 0.6], [0.9, 0.05, 0.05]])
labels = torch.tensor([1, 0, 0, 2])
check_tensor(select_by_label(scores, labels), torch.tensor([0.7, 0.5, 0.2, 0.05]),
             what="select_by_label of 4 examples, 3 classes, labels [1, 0, 0, 2]")
check_tensor(select_by_label(torch.zeros(0, 3), torch.zeros(0, dtype=torch.int64)), torch.zeros(0),
             what="select_by_label of an empty batch: scores (0, 3), labels (0,)")
passed("select_by_label")
### BEGIN HIDDEN TESTS
from course.checks import check_runs, check_true
from course.device import test_devices
from course.probes.core import call_watching_inputs
from instructor.indexing import select_by_label_reference, tolerance

for dev in test_devices():
    g = torch.Generator().manual_seed(5)
    watched = (torch.randn(6, 4, generator=g).to(dev), torch.randint(0, 4, (6,), generator=g).to(dev))
    result, changed = check_runs(call_watching_inputs, select_by_label, *watched,
                                 what=f"select_by_label of 6 examples and 4 classes on {dev}")
    which = ", ".join({"arg 0": "scores", "arg 1": "labels"}.get(c, c) for c in changed)
    check_true(changed == [], f"Expected select_by_label to leave scores and labels unchanged (measured in your process), but it changed {which} on {dev}.")
    cases = [(f"7 examples, 5 classes, {dtype}", torch.randn(7, 5, generator=g).to(dtype), torch.randint(0, 5, (7,), generator=g))
             for dtype in (torch.float16, torch.float32, torch.float64)]
    cases += [
        ("scores (6, 4) made by .t() (not contiguous)", torch.randn(4, 6, generator=g).t(), torch.randint(0, 4, (6,), generator=g)),
        ("labels taken with a step, labels[::2] (not contiguous)", torch.randn(5, 3, generator=g), torch.randint(0, 3, (10,), generator=g)[::2]),
        ("one class (C = 1)", torch.randn(4, 1, generator=g), torch.zeros(4, dtype=torch.int64)),
        ("one example", torch.randn(1, 9, generator=g, dtype=torch.float64), torch.tensor([8])),
        ("an empty float64 batch (0, 5)", torch.zeros(0, 5, dtype=torch.float64), torch.zeros(0, dtype=torch.int64)),
        ("1000 examples, 10 classes", torch.randn(1000, 10, generator=g), torch.randint(0, 10, (1000,), generator=g)),
    ]
    for label, s, l in cases:
        s, l = s.to(dev), l.to(dev)
        what = f"select_by_label of {label} on {dev}"
        check_tensor(check_runs(select_by_label, s, l, what=what), select_by_label_reference(s, l), what=what, **tolerance(s.dtype))
### END HIDDEN TESTS

# %% [markdown]
# ## Loops versus vectorized code
#
# Here is one job, "replace the negative entries by 0", written three ways:

# %%
def clip_loop(x):
    """One tensor element at a time."""
    out = x.clone()
    for i in range(len(out)):
        if out[i] < 0:
            out[i] = 0
    return out


def clip_tolist(x):
    """One Python float at a time."""
    return torch.tensor([v if v > 0 else 0.0 for v in x.tolist()], dtype=x.dtype, device=x.device)


def clip_vectorized(x):
    """One call for the whole tensor."""
    return torch.where(x > 0, x, 0)


sample = torch.tensor([1.5, -2.0, 0.25, -0.5], device=device)
print(clip_loop(sample).tolist(), clip_tolist(sample).tolist(), clip_vectorized(sample).tolist())

# %% [markdown]
# They agree, and they differ enormously in speed. Each line of Python costs the interpreter time,
# and each PyTorch call costs more: it checks dtypes and devices, picks a kernel and allocates the
# result before it touches a single number. `clip_loop` pays both for every element; `clip_tolist`
# pays the interpreter for every element (plus one copy out to a list and one back);
# `clip_vectorized` pays once, then one compiled loop runs over all the numbers (on many CPU cores,
# or on the GPU).
#
# To measure this fairly, use `torch.utils.benchmark.Timer`. `Timer(stmt, globals=...).timeit(n)`
# runs the statement a few times to warm up, then `n` times, and returns a measurement whose
# `.median` is the time of one call. It uses one CPU thread unless you pass `num_threads`, so
# runs compare the same thing. On a GPU it also waits for the GPU to finish before reading the
# clock: CUDA calls return to Python as soon as the work is queued, and a plain
# `time.perf_counter()` around them measures only the queueing.

# %%
from torch.utils import benchmark

versions = {"loop over tensor elements": (clip_loop, 1), "loop over .tolist()": (clip_tolist, 5),
            "vectorized": (clip_vectorized, 50)}


def time_versions(sizes, where):
    """Seconds per call of each version, for each size, on one device."""
    seconds = {name: [] for name in versions}
    for n in sizes:
        x = torch.randn(n, device=where)
        for name, (function, runs) in versions.items():
            timer = benchmark.Timer("function(x)", globals={"function": function, "x": x})
            seconds[name].append(timer.timeit(runs).median)
    return seconds


sizes = [10, 30, 100, 300, 1000]
cpu_seconds = time_versions(sizes, "cpu")
for name, times in cpu_seconds.items():
    print(f"{name:26} " + "  ".join(f"N={n}: {t * 1e6:9.1f} µs" for n, t in zip(sizes, times)))
timing_curves(sizes, cpu_seconds, title="CPU: replace negatives by 0")

# %% [markdown]
# On the GPU each element of the loop becomes a tiny kernel launch, and `if out[i] < 0` makes
# Python wait for the GPU every time: the loop gains nothing there, while the vectorized call
# barely notices N. (On a machine without CUDA this cell only says so.)

# %%
cuda_picture = None
if torch.cuda.is_available():
    cuda_sizes = [10, 30, 100, 300]
    cuda_seconds = time_versions(cuda_sizes, "cuda")
    for name, times in cuda_seconds.items():
        print(f"{name:26} " + "  ".join(f"N={n}: {t * 1e6:9.1f} µs" for n, t in zip(cuda_sizes, times)))
    cuda_picture = timing_curves(cuda_sizes, cuda_seconds, title="CUDA: replace negatives by 0")
else:
    print("No CUDA GPU here: the CPU timings above are the whole story on this machine.")
cuda_picture

# %% [markdown]
# Timings are noisy (other programs share the machine), so read the slopes, not the third digit:
# the loops grow in step with N, the vectorized call hardly moves.
#
# **How the grader checks "no Python loop".** Some items below say *no Python loop over N*. Their
# tests count the Python lines your function runs (lines of your notebook's code, not PyTorch's
# own) for an input of size N and for one of size 8N. Vectorized code runs the same lines whatever
# N is; a `for` loop over the examples, a comprehension or a loop over `.tolist()` runs its body once
# per element, so the count grows about 8 times. A loop over something that does not grow with N
# (the classes, the columns) is fine.

# %% [markdown]
# ### Quiz: why is the vectorized version faster?
#
# - **A.** It runs on the GPU automatically, while the loop runs on the CPU.
# - **B.** One call hands the whole tensor to compiled code: Python runs no step per element.
# - **C.** It does fewer arithmetic operations: `torch.where` skips the entries that are already
#   positive.
# - **D.** Python caches the result of the first call, so later calls cost nothing.

# %% answer answer_vectorized_speed quiz=recall
# One upper-case letter as a string, for example "A".
answer_vectorized_speed = None
### BEGIN SOLUTION
answer_vectorized_speed = "B"
### END SOLUTION

# %% test answer_vectorized_speed points=1
from course.quiz import check_choice, form_checked

check_choice(answer_vectorized_speed, "ABCD", name="answer_vectorized_speed")
form_checked("answer_vectorized_speed")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_vectorized_speed, "B", name="answer_vectorized_speed",
          why="The vectorized call pays the interpreter and PyTorch's dispatch once, then a compiled loop runs over "
              "every element; the Python loop pays both for every element. Nothing moves to the GPU by itself, the "
              "arithmetic is the same, and nothing is cached.")
### END HIDDEN TESTS

# %% [markdown]
# ## cat and stack
#
# `torch.cat(tensors, dim)` joins tensors along an **existing** dimension: their sizes must match
# in every other dimension. `torch.stack(tensors, dim)` puts equal-shaped tensors side by side
# along a **new** dimension. So five `(3,)` vectors stack into `(5, 3)`, and five `(2, 3)` batches
# concatenate into `(10, 3)`.

# %%
a = torch.zeros(2, 3, device=device)
b = torch.ones(4, 3, device=device)
print("cat dim 0:", tuple(torch.cat([a, b], dim=0).shape))
print("stack dim 0:", tuple(torch.stack([a, a, a], dim=0).shape), " stack dim 1:", tuple(torch.stack([a, a, a], dim=1).shape))
try:
    torch.stack([a, b])
except RuntimeError as error:
    print("stack of different shapes raised RuntimeError:", error)
try:
    torch.stack([])
except RuntimeError as error:
    print("stack of an empty list raised RuntimeError:", error)

# %% [markdown]
# That last error is why code that collects one result per example in a list and stacks them at the
# end breaks on an empty batch. Collecting in a list is the loop pattern anyway; the sections below
# do the same jobs in one call.

# %% [markdown]
# ## Counting and adding into positions: bincount, scatter_add_ and index_add_
#
# - `torch.bincount(values, minlength=C)` counts how often each non-negative integer occurs in a 1D
#   int tensor: entry `c` of the result is the number of `c`s, as int64. Without `minlength` the
#   result stops at the largest value present, so classes that never occur at the end are missing.
# - `out.scatter_add_(dim, index, src)` adds each entry of `src` into `out` at the position `index`
#   gives (along `dim`). Repeated positions add up.
# - `out.index_add_(dim, index, source)` adds whole slices: slice `i` of `source` is added to slice
#   `index[i]` of `out`. Repeated positions add up here too.
#
# On a GPU, `scatter_add_` and `index_add_` may behave nondeterministically (PyTorch's documentation
# says so for CUDA tensors): the additions into one position run in parallel, in no fixed order, and
# floating-point addition depends on the order, so float sums can differ in their last bits from
# one run to the next. Integer additions do not depend on the order. `torch.use_deterministic_algorithms(True)`
# asks PyTorch for deterministic versions of such operations.
#
# One trap: `counts[index] += 1` does **not** add up repeated positions. It reads `counts[index]`
# (a copy), adds 1, and writes each result back, so a position named three times still gets +1.

# %%
labels = torch.tensor([0, 2, 2, 3, 2], device=device)
print("bincount:", torch.bincount(labels).tolist(), " with minlength=6:", torch.bincount(labels, minlength=6).tolist())
counts = torch.zeros(6, dtype=torch.int64, device=device)
counts[labels] += 1
print("counts[labels] += 1:", counts.tolist(), "<- class 2 counted once")
print("scatter_add_:", torch.zeros(6, dtype=torch.int64, device=device).scatter_add_(0, labels, torch.ones_like(labels)).tolist())
features = torch.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0], [5.0, 5.0], [1.0, 1.0]], device=device)
sums = torch.zeros(4, 2, device=device).index_add_(0, labels, features)
print("index_add_ (sum of the feature rows of each class):", sums.tolist())

# %% [markdown]
# ### One-hot encoding
#
# `F.one_hot(labels, num_classes)` turns each label into a row of zeros with a single 1 at the
# label's position: an int64 tensor of shape `(N, num_classes)`. Summing its rows counts the
# classes (the same as `bincount`), and a matrix product of two one-hot matrices counts pairs:
# `one_hot(a).T @ one_hot(b)` has, at `[i, j]`, the number of positions where `a` is `i` and `b` is
# `j`. Below, the product runs in floating point (`.float()`) and `.long()` turns the counts back
# into integers.

# %%
onehot = F.one_hot(labels, num_classes=4)
print(onehot.tolist())
print("column sums:", onehot.sum(dim=0).tolist(), " bincount:", torch.bincount(labels, minlength=4).tolist())
other = torch.tensor([1, 1, 2, 3, 0], device=device)
pairs = onehot.T.float() @ F.one_hot(other, num_classes=4).float()
print(pairs.long().tolist())

# %% [markdown]
# ### Your turn: `confusion_matrix`
#
# **To write:** `confusion_matrix(predicted, labels, num_classes)` counts each (true, predicted)
# pair of classes, with no Python loop.
#
# A confusion matrix shows what a classifier gets wrong. For `predicted` and `labels`, int64
# tensors of shape `(N,)` with values in `[0, num_classes)`, return the `(C, C)` int64 tensor
# (`C = num_classes`) whose entry `[t, p]` counts the examples `i` with `labels[i] == t` and
# `predicted[i] == p`: rows are the true classes, columns the predictions, and the diagonal holds
# the correct answers. Return it on the inputs' device. A class that occurs nowhere has a row and a
# column of zeros; `N = 0` gives a `(C, C)` matrix of zeros. The inputs may be non-contiguous;
# leave them unchanged. **No Python loop over the examples**: the test counts your function's
# Python lines for 50 and for 400 examples (a loop over the `C` classes is fine).

# %% answer confusion_matrix
def confusion_matrix(predicted, labels, num_classes):
    """(C, C) int64 counts: entry [t, p] is the number of examples with label t and prediction p."""
    ### BEGIN SOLUTION
    pairs = labels * num_classes + predicted
    return torch.bincount(pairs, minlength=num_classes * num_classes).reshape(num_classes, num_classes)
    ### END SOLUTION

# %% test confusion_matrix points=2
import torch
from course.checks import check_runs, check_tensor, passed
from course.probes.loops import check_constant_work, count_python_lines

predicted = torch.tensor([0, 2, 1, 1, 0, 2])
labels = torch.tensor([0, 1, 1, 2, 0, 2])
check_tensor(confusion_matrix(predicted, labels, 4),
             torch.tensor([[2, 0, 0, 0], [0, 1, 1, 0], [0, 1, 1, 0], [0, 0, 0, 0]]),
             what="confusion_matrix of predicted [0, 2, 1, 1, 0, 2] and labels [0, 1, 1, 2, 0, 2] with 4 classes")
g = torch.Generator().manual_seed(0)
small = (torch.randint(0, 4, (50,), generator=g), torch.randint(0, 4, (50,), generator=g))
large = (torch.randint(0, 4, (400,), generator=g), torch.randint(0, 4, (400,), generator=g))
counts_small = check_runs(count_python_lines, confusion_matrix, *small, 4, what="confusion_matrix of 50 examples")
counts_large = check_runs(count_python_lines, confusion_matrix, *large, 4, what="confusion_matrix of 400 examples")
check_constant_work(counts_small, counts_large, item="confusion_matrix", sizes=(50, 400), unit="examples")
check_tensor(counts_small[0], confusion_matrix(*small, 4), what="confusion_matrix of 50 examples while it was counted (as when it was not)")
passed("confusion_matrix")
### BEGIN HIDDEN TESTS
from course.checks import check_true
from course.device import test_devices
from course.probes.core import call_watching_inputs
from instructor.indexing import confusion_matrix_reference

for dev in test_devices():
    g = torch.Generator().manual_seed(3)
    watched = (torch.randint(0, 3, (20,), generator=g).to(dev), torch.randint(0, 3, (20,), generator=g).to(dev))
    result, changed = check_runs(call_watching_inputs, confusion_matrix, *watched, 3,
                                 what=f"confusion_matrix of 20 examples and 3 classes on {dev}")
    which = ", ".join({"arg 0": "predicted", "arg 1": "labels"}.get(c, c) for c in changed)
    check_true(changed == [], f"Expected confusion_matrix to leave predicted and labels unchanged (measured in your process), but it changed {which} on {dev}.")
    counted = []
    for n in (64, 512):
        p, t = torch.randint(0, 5, (n,), generator=g).to(dev), torch.randint(0, 5, (n,), generator=g).to(dev)
        what = f"confusion_matrix of {n} examples on {dev}, counted"
        counted.append(check_runs(count_python_lines, confusion_matrix, p, t, 5, what=what))
        check_tensor(counted[-1][0], confusion_matrix_reference(p, t, 5), what=what)
    check_constant_work(*counted, item=f"confusion_matrix on {dev}", sizes=(64, 512), unit="examples")
    both = torch.randint(0, 6, (40,), generator=g)
    cases = [
        ("30 examples, 4 classes", torch.randint(0, 4, (30,), generator=g), torch.randint(0, 4, (30,), generator=g), 4),
        ("7 classes, of which 0, 5 and 6 never occur", torch.randint(1, 5, (25,), generator=g), torch.randint(1, 5, (25,), generator=g), 7),
        ("no examples (N = 0) and 3 classes", torch.zeros(0, dtype=torch.int64), torch.zeros(0, dtype=torch.int64), 3),
        ("one class", torch.zeros(5, dtype=torch.int64), torch.zeros(5, dtype=torch.int64), 1),
        ("every prediction right", both[:20], both[:20].clone(), 6),
        ("inputs taken with a step, [::2] (not contiguous)", both[::2], both.flip(0)[::2], 6),
        ("2000 examples, 10 classes", torch.randint(0, 10, (2000,), generator=g), torch.randint(0, 10, (2000,), generator=g), 10),
    ]
    for label, p, t, c in cases:
        p, t = p.to(dev), t.to(dev)
        what = f"confusion_matrix of {label} on {dev}"
        check_tensor(check_runs(confusion_matrix, p, t, c, what=what), confusion_matrix_reference(p, t, c), what=what)
### END HIDDEN TESTS

# %% [markdown]
# ## Sorting and the largest entries: sort and topk
#
# - `x.sort(dim, descending=False)` returns the sorted values and, for each, the index it came from
#   (`indices`); `x.argsort(dim)` returns only the indices.
# - `x.topk(k, dim)` returns the `k` largest values along `dim` and their indices, largest first
#   (pass `largest=False` for the smallest). `k = 0` is allowed and gives empty results.
# - The indices of a sort are not *ranks*: `argsort` says which entry comes first, second, ...;
#   the rank of each entry is the `argsort` of that `argsort`.

# %%
scores = torch.tensor([[0.3, 0.9, 0.1, 0.5], [0.8, 0.2, 0.6, 0.4]], device=device)
values, indices = scores.sort(dim=1, descending=True)
print("sorted values:", values.tolist())
print("from indices: ", indices.tolist())
top = scores.topk(2, dim=1)
print("topk(2) values:", top.values.tolist(), " indices:", top.indices.tolist())
print("rank of each entry (0 = largest):", scores.argsort(dim=1, descending=True).argsort(dim=1).tolist())
print("topk(0):", tuple(scores.topk(0, dim=1).indices.shape))

# %% [markdown]
# To turn indices into a mask of the same shape as `scores`, write True at those positions of a
# bool tensor of zeros: `scatter_` along the same dimension does exactly that
# (`out.scatter_(1, index, True)` sets `out[i][index[i][j]] = True`), and `F.one_hot` of the
# indices, summed over the picks, is another way.
#
# ### Your turn: `topk_mask`
#
# **To write:** `topk_mask(scores, k)` returns a bool mask, True at the `k` largest entries of each
# row.
#
# For `scores` of shape `(N, C)` (float16, float32 or float64, possibly non-contiguous, with
# distinct values within each row) and an int `k` with `0 <= k <= C`, return a bool tensor of shape
# `(N, C)` that is True exactly at each row's `k` largest entries: `k = 0` gives all False, `k = C`
# all True, and `N = 0` an empty `(0, C)` result. Leave `scores` unchanged.

# %% answer topk_mask
def topk_mask(scores, k):
    """Bool (N, C): True at the k largest entries of each row of scores."""
    ### BEGIN SOLUTION
    mask = torch.zeros(scores.shape, dtype=torch.bool, device=scores.device)
    return mask.scatter_(1, scores.topk(k, dim=1).indices, True)
    ### END SOLUTION

# %% test topk_mask points=2
import torch
from course.checks import check_tensor, passed

scores = torch.tensor([[0.1, 0.9, 0.5, 0.3], [0.8, 0.2, 0.4, 0.6]])
check_tensor(topk_mask(scores, 2), torch.tensor([[False, True, True, False], [True, False, False, True]]),
             what="topk_mask of [[0.1, 0.9, 0.5, 0.3], [0.8, 0.2, 0.4, 0.6]] with k = 2", device=False)
check_tensor(topk_mask(scores, 0), torch.zeros(2, 4, dtype=torch.bool), what="topk_mask of the same scores with k = 0",
             device=False)
passed("topk_mask")
### BEGIN HIDDEN TESTS
from course.checks import check_runs, check_true
from course.device import test_devices
from course.probes.core import call_watching_inputs
from instructor.indexing import distinct_scores, topk_mask_reference

for dev in test_devices():
    g = torch.Generator().manual_seed(11)
    watched = distinct_scores(5, 6, dtype=torch.float32, generator=g).to(dev)
    result, changed = check_runs(call_watching_inputs, topk_mask, watched, 3, what=f"topk_mask of (5, 6) scores with k = 3 on {dev}")
    check_true(changed == [], f"Expected topk_mask to leave scores unchanged (measured in your process), but it changed it on {dev}.")
    cases = [(f"(6, 8) {dtype} scores, k = 3", distinct_scores(6, 8, dtype=dtype, generator=g), 3)
             for dtype in (torch.float16, torch.float32, torch.float64)]
    many = distinct_scores(20, 50, dtype=torch.float16, generator=g)
    cases += [
        ("(4, 5) scores, k = 1", distinct_scores(4, 5, dtype=torch.float32, generator=g), 1),
        ("(4, 5) scores, k = 5 (every entry)", distinct_scores(4, 5, dtype=torch.float32, generator=g), 5),
        ("(4, 5) scores, k = 0 (no entry)", distinct_scores(4, 5, dtype=torch.float64, generator=g), 0),
        ("(3, 1) scores, k = 1", distinct_scores(3, 1, dtype=torch.float32, generator=g), 1),
        ("(7, 3) scores made by .t() (not contiguous), k = 2", distinct_scores(3, 7, dtype=torch.float32, generator=g).t(), 2),
        ("an empty (0, 4) batch, k = 2", torch.zeros(0, 4), 2),
        ("(20, 50) float16 scores, k = 7", many, 7),
        ("(5, 4) negative scores, k = 2", -distinct_scores(5, 4, dtype=torch.float32, generator=g).abs() - 1, 2),
    ]
    for label, s, k in cases:
        s = s.to(dev)
        what = f"topk_mask of {label} on {dev}"
        check_tensor(check_runs(topk_mask, s, k, what=what), topk_mask_reference(s, k), what=what, device=False)
### END HIDDEN TESTS

# %% [markdown]
# ## einsum: products with named dimensions
#
# `torch.einsum(spec, *tensors)` writes a product-and-sum by naming each dimension with a letter.
# Letters that appear in an input but not after `->` are summed over; the others are kept, in the
# order written. It spells out what `@`, `.t()`, `sum` and broadcasting do together:
#
# | spec | means |
# |---|---|
# | `"nd,md->nm"` | `a @ b.T`: every row of `a` against every row of `b` |
# | `"nd,nd->n"` | `(a * b).sum(dim=1)`: one dot product per row |
# | `"bij,bjk->bik"` | a batch of matrix products, `a @ b` |
# | `"ii->i"` | the diagonal |

# %%
a = torch.randn(3, 4, device=device)
b = torch.randn(5, 4, device=device)
print(torch.allclose(torch.einsum("nd,md->nm", a, b), a @ b.T, atol=1e-6))
print(torch.allclose(torch.einsum("nd,nd->n", a, a), (a * a).sum(dim=1), atol=1e-6))
batch = torch.randn(2, 3, 4, device=device)
print(tuple(torch.einsum("bij,bjk->bik", batch, batch.transpose(1, 2)).shape))
print(torch.einsum("ii->i", torch.arange(9.0, device=device).reshape(3, 3)).tolist())

# %% [markdown]
# ### Quiz: which letters an einsum keeps
#
# ```python
# q = torch.randn(2, 4, 5, 8)
# k = torch.randn(2, 4, 7, 8)
# out = torch.einsum("bhqd,bhkd->hkq", q, k)
# ```
#
# What is `out.shape`? Answer with a tuple of ints.

# %% answer answer_einsum_shape quiz=rule
# A tuple of ints, for example (1, 2, 3).
answer_einsum_shape = None
### BEGIN SOLUTION
answer_einsum_shape = (4, 7, 5)
### END SOLUTION

# %% test answer_einsum_shape points=1
from course.quiz import check_int_tuple, form_checked

check_int_tuple(answer_einsum_shape, name="answer_einsum_shape")
form_checked("answer_einsum_shape")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_einsum_shape, (4, 7, 5), name="answer_einsum_shape",
          why="The letters after -> are kept, in the order written there: h (4), k (7), q (5). b and d appear in the "
              "inputs but not after ->, so they are summed over and leave no dimension: (4, 7, 5).")
### END HIDDEN TESTS

# %% [markdown]
# ## Practice: averaging bags of embeddings
#
# A sentence of token ids becomes one vector in many text models: look up each token's row of an
# embedding `table` of shape `(V, D)` and average them. A batch of `B` sentences is padded to one
# length `L`: `index` of shape `(B, L)` holds the token ids, and `lengths` of shape `(B,)` says
# how many of them are real. The entries past `lengths[b]` are padding: valid row numbers, but not
# part of the sentence.
#
# Two steps you have seen combine here. `table[index]` looks up every id at once, giving
# `(B, L, D)`. And a mask of the real positions comes from broadcasting a row of positions against
# a column of lengths:

# %%
lengths = torch.tensor([2, 0, 3], device=device)
positions = torch.arange(4, device=device)                 # L = 4
print((positions < lengths.unsqueeze(1)).int().tolist())   # (3, 1) against (4,) -> (3, 4)

# %% [markdown]
# ### Your turn: `embedding_bag_mean`
#
# **To write:** `embedding_bag_mean(table, index, lengths)` returns, for each bag, the mean of the
# table rows it names, with no Python loop.
#
# `table` has shape `(V, D)` (float16, float32 or float64), `index` is an int64 tensor of shape
# `(B, L)` with values in `[0, V)`, and `lengths` an int64 tensor of shape `(B,)` with values in
# `[0, L]`. Return the `(B, D)` tensor whose row `b` is the mean of `table[index[b, j]]` over
# `j < lengths[b]`; padding (`j >= lengths[b]`) does not count, and a row with `lengths[b] == 0` is
# all zeros. Keep `table`'s dtype and device. `B = 0` gives `(0, D)`; `L = 0` (every length 0) gives
# zeros. The inputs may be non-contiguous; leave them unchanged. **No Python loop over the batch**:
# the test counts your function's Python lines for 40 and for 320 sentences (a loop over the `L`
# positions is fine).

# %% answer embedding_bag_mean
def embedding_bag_mean(table, index, lengths):
    """(B, D): row b is the mean of table[index[b, j]] for j < lengths[b], zeros when lengths[b] is 0."""
    ### BEGIN SOLUTION
    real = torch.arange(index.shape[1], device=index.device) < lengths.unsqueeze(1)   # (B, L)
    rows = table[index]                                                                # (B, L, D)
    total = torch.where(real.unsqueeze(2), rows, 0).sum(dim=1)                         # (B, D)
    return total / lengths.clamp(min=1).unsqueeze(1)
    ### END SOLUTION

# %% test embedding_bag_mean points=3
import torch
from course.checks import check_runs, check_tensor, passed
from course.probes.loops import check_constant_work, count_python_lines

table = torch.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0], [4.0, 0.0]])
index = torch.tensor([[0, 1, 3], [2, 2, 0], [3, 0, 0]])
lengths = torch.tensor([2, 3, 0])
check_tensor(embedding_bag_mean(table, index, lengths), torch.tensor([[0.5, 0.5], [5 / 3, 4 / 3], [0.0, 0.0]]),
             what="embedding_bag_mean of 3 sentences with lengths [2, 3, 0] (the last one empty)")
g = torch.Generator().manual_seed(0)
small = (torch.randn(10, 4, generator=g), torch.randint(0, 10, (40, 6), generator=g), torch.arange(40) % 7)
large = (small[0], torch.randint(0, 10, (320, 6), generator=g), torch.arange(320) % 7)
counts_small = check_runs(count_python_lines, embedding_bag_mean, *small, what="embedding_bag_mean of 40 sentences")
counts_large = check_runs(count_python_lines, embedding_bag_mean, *large, what="embedding_bag_mean of 320 sentences")
check_constant_work(counts_small, counts_large, item="embedding_bag_mean", sizes=(40, 320), unit="sentences")
check_tensor(counts_small[0], embedding_bag_mean(*small), what="embedding_bag_mean of 40 sentences while it was counted (as when it was not)")
passed("embedding_bag_mean")
### BEGIN HIDDEN TESTS
from course.checks import check_true
from course.device import test_devices
from course.probes.core import call_watching_inputs
from instructor.indexing import dyadic, embedding_bag_mean_reference, tolerance

for dev in test_devices():
    g = torch.Generator().manual_seed(21)
    watched = (torch.randn(6, 3, generator=g).to(dev), torch.randint(0, 6, (4, 5), generator=g).to(dev),
               torch.tensor([5, 0, 2, 3]).to(dev))
    result, changed = check_runs(call_watching_inputs, embedding_bag_mean, *watched, what=f"embedding_bag_mean of 4 sentences on {dev}")
    which = ", ".join({"arg 0": "table", "arg 1": "index", "arg 2": "lengths"}.get(c, c) for c in changed)
    check_true(changed == [], f"Expected embedding_bag_mean to leave table, index and lengths unchanged (measured in your process), but it changed {which} on {dev}.")
    counted = []
    for b in (48, 384):
        args = (torch.randn(12, 3, generator=g).to(dev), torch.randint(0, 12, (b, 5), generator=g).to(dev), (torch.arange(b) % 6).to(dev))
        what = f"embedding_bag_mean of {b} sentences on {dev}, counted"
        counted.append(check_runs(count_python_lines, embedding_bag_mean, *args, what=what))
        check_tensor(counted[-1][0], embedding_bag_mean_reference(*args), what=what, **tolerance(args[0].dtype))
    check_constant_work(*counted, item=f"embedding_bag_mean on {dev}", sizes=(48, 384), unit="sentences")
    cases = []
    for dtype in (torch.float16, torch.float32, torch.float64):
        rows = dyadic((9, 4), generator=g).to(dtype) if dtype == torch.float16 else torch.randn(9, 4, generator=g, dtype=dtype)
        cases.append((f"a {dtype} table (9, 4) and 6 sentences of up to 5 tokens", rows, torch.randint(0, 9, (6, 5), generator=g),
                      torch.tensor([5, 1, 0, 3, 2, 5])))
    loud = torch.randn(5, 3, generator=g)
    loud[4] = 1000.0                                     # padding points at this row; it must not count
    padded = torch.randint(0, 4, (4, 6), generator=g)
    padded[:, 3:] = 4
    cases += [
        ("padding that points at a row of 1000s", loud, padded, torch.tensor([3, 2, 0, 1])),
        ("a table (8, 3) made by .t() (not contiguous)", torch.randn(3, 8, generator=g).t(), torch.randint(0, 8, (3, 4), generator=g),
         torch.tensor([4, 4, 1])),
        ("index and lengths taken with a step, [::2] (not contiguous)", torch.randn(7, 2, generator=g),
         torch.randint(0, 7, (6, 3), generator=g)[::2], torch.tensor([3, 0, 2, 1, 1, 3])[::2]),
        ("every sentence full (lengths == L)", torch.randn(6, 2, generator=g), torch.randint(0, 6, (3, 4), generator=g), torch.tensor([4, 4, 4])),
        ("L = 0: an index of shape (3, 0)", torch.randn(4, 5, generator=g), torch.zeros(3, 0, dtype=torch.int64), torch.zeros(3, dtype=torch.int64)),
        ("an empty batch (B = 0)", torch.randn(4, 5, generator=g), torch.zeros(0, 3, dtype=torch.int64), torch.zeros(0, dtype=torch.int64)),
        ("one word repeated", torch.randn(3, 4, generator=g, dtype=torch.float64), torch.tensor([[2, 2, 2]]), torch.tensor([3])),
    ]
    for label, tab, idx, lens in cases:
        tab, idx, lens = tab.to(dev), idx.to(dev), lens.to(dev)
        what = f"embedding_bag_mean of {label} on {dev}"
        check_tensor(check_runs(embedding_bag_mean, tab, idx, lens, what=what), embedding_bag_mean_reference(tab, idx, lens),
                     what=what, **tolerance(tab.dtype))
### END HIDDEN TESTS

# %% [markdown]
# ## Practice: how much two boxes overlap
#
# Object detectors describe a box by its corners `(x1, y1, x2, y2)`, with `x1 <= x2` and
# `y1 <= y2`. How well a predicted box matches a true one is measured by *intersection over union*
# (IoU): the area the two boxes share, divided by the area they cover together. It is 1 for
# identical boxes and 0 for boxes that do not overlap.
#
# The intersection of two boxes is a box too: its left edge is the larger of the two left edges,
# its right edge the smaller of the two right edges (and the same for top and bottom). When the
# boxes do not overlap, right minus left comes out negative: clamp it at 0. For every pair of a
# box from `a` `(N, 4)` and a box from `b` `(M, 4)` at once, broadcast `(N, 1)` against `(1, M)`,
# as `pairwise_distances` did in lesson {05_shapes}.

# %%
a = torch.tensor([[0.0, 0.0, 2.0, 2.0]], device=device)
b = torch.tensor([[1.0, 1.0, 3.0, 3.0], [5.0, 5.0, 6.0, 6.0]], device=device)
left = torch.maximum(a[:, None, 0], b[None, :, 0])
right = torch.minimum(a[:, None, 2], b[None, :, 2])
print("overlap in x, (1, 2):", (right - left).tolist(), " clamped:", (right - left).clamp(min=0).tolist())

# %% [markdown]
# ### Your turn: `box_iou`
#
# **To write:** `box_iou(a, b)` returns the intersection over union of every box of `a` with every
# box of `b`.
#
# For boxes `a` of shape `(N, 4)` and `b` of shape `(M, 4)` (rows `(x1, y1, x2, y2)` with
# `x1 <= x2`, `y1 <= y2`; float16, float32 or float64, the same for both), return the `(N, M)`
# tensor whose entry `[i, j]` is the IoU of `a[i]` and `b[j]`, in `a`'s dtype. Boxes that only
# touch along an edge or at a corner share no area: IoU 0. Where the union is 0 (two boxes of zero
# area, such as two points), the IoU is 0, not NaN. `N` or `M` may be 0 (an empty result), and the
# inputs may be non-contiguous; leave them unchanged.

# %% answer box_iou
def box_iou(a, b):
    """(N, M) intersection over union of every box of a (N, 4) with every box of b (M, 4)."""
    ### BEGIN SOLUTION
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    top_left = torch.maximum(a[:, None, :2], b[None, :, :2])
    bottom_right = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    size = (bottom_right - top_left).clamp(min=0)
    inter = size[..., 0] * size[..., 1]
    union = area_a[:, None] + area_b[None, :] - inter
    return torch.where(union > 0, inter / union, torch.zeros_like(union))
    ### END SOLUTION

# %% test box_iou points=3
import torch
from course.checks import check_tensor, passed

a = torch.tensor([[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 3.0, 3.0]])
b = torch.tensor([[1.0, 1.0, 3.0, 3.0], [4.0, 4.0, 5.0, 5.0], [0.0, 0.0, 1.0, 1.0]])
check_tensor(box_iou(a, b), torch.tensor([[1 / 7, 0.0, 0.25], [1.0, 0.0, 0.0]]),
             what="box_iou of 2 boxes and 3 boxes (overlapping, apart, touching at a corner)", device=False)
point = torch.tensor([[1.0, 1.0, 1.0, 1.0]])
check_tensor(box_iou(point, point), torch.tensor([[0.0]]), what="box_iou of a point-sized box with itself (union 0)",
             device=False)
passed("box_iou")
### BEGIN HIDDEN TESTS
from course.checks import check_runs, check_true
from course.device import test_devices
from course.probes.core import call_watching_inputs
from instructor.indexing import box_iou_reference, boxes, tolerance

for dev in test_devices():
    g = torch.Generator().manual_seed(17)
    watched = (boxes(4, generator=g).float().to(dev), boxes(3, generator=g).float().to(dev))
    result, changed = check_runs(call_watching_inputs, box_iou, *watched, what=f"box_iou of 4 and 3 boxes on {dev}")
    which = ", ".join({"arg 0": "a", "arg 1": "b"}.get(c, c) for c in changed)
    check_true(changed == [], f"Expected box_iou to leave a and b unchanged (measured in your process), but it changed {which} on {dev}.")
    cases = [(f"12 and 9 random {dtype} boxes", boxes(12, generator=g).to(dtype), boxes(9, generator=g).to(dtype))
             for dtype in (torch.float16, torch.float32, torch.float64)]
    wide = boxes(5, generator=g).float()
    cases += [
        ("a box and the boxes sharing its edges", torch.tensor([[1.0, 1.0, 2.0, 2.0]]),
         torch.tensor([[2.0, 1.0, 3.0, 2.0], [0.0, 2.0, 1.0, 3.0], [1.0, 0.0, 2.0, 1.0], [2.0, 2.0, 3.0, 3.0]])),
        ("a box inside another", torch.tensor([[0.0, 0.0, 4.0, 4.0]]), torch.tensor([[1.0, 1.0, 2.0, 3.0]])),
        ("identical boxes", torch.tensor([[0.5, 0.5, 2.5, 1.5]]), torch.tensor([[0.5, 0.5, 2.5, 1.5]])),
        ("lines and points (zero area)", torch.tensor([[1.0, 1.0, 1.0, 3.0], [2.0, 2.0, 2.0, 2.0]]),
         torch.tensor([[1.0, 1.0, 1.0, 3.0], [2.0, 2.0, 2.0, 2.0], [0.0, 0.0, 4.0, 4.0]])),
        ("no boxes in a (N = 0)", torch.zeros(0, 4), boxes(3, generator=g).float()),
        ("no boxes in b (M = 0)", boxes(3, generator=g).float(), torch.zeros(0, 4)),
        ("boxes taken with a step, [::2] (not contiguous)", wide[::2], boxes(6, generator=g).float()[1::2]),
        ("boxes whose columns come from .t() (not contiguous)", boxes(4, generator=g).t().contiguous().t(),
         boxes(2, generator=g)),
        ("60 and 40 float32 boxes", boxes(60, generator=g).float(), boxes(40, generator=g).float()),
    ]
    for label, x, y in cases:
        x, y = x.to(dev), y.to(dev)
        what = f"box_iou of {label} on {dev}"
        check_tensor(check_runs(box_iou, x, y, what=what), box_iou_reference(x, y), what=what, device=False, **tolerance(x.dtype))
### END HIDDEN TESTS

# %% [markdown]
# ## Common mistakes
#
# **1. Writing into a copy.** `x[index][0] = value` and `x[mask][:, 1] = value` index twice: the
# first indexing makes a copy, and the write lands in the copy. Write one indexing expression:
# `x[index, 0] = value`.
#
# **2. `counts[index] += 1` with repeated positions.** Each position gets +1 once, however often it
# is named. Count with `bincount`, `scatter_add_`, `index_add_` or `index_put_(...,
# accumulate=True)`.

# %%
counts = torch.zeros(3, dtype=torch.int64, device=device)
counts.index_put_((torch.tensor([0, 0, 2], device=device),), torch.tensor(1, device=device), accumulate=True)
print(counts.tolist())

# %% [markdown]
# **3. `bincount` without `minlength`.** The result stops at the largest value present, so the
# counts of the last classes vanish when they do not occur, and a later `reshape(C, C)` fails.
#
# **4. A mask that flattens.** `x[mask]` loses the shape; to compute per row, keep the shape with
# `torch.where` or `masked_fill`, and reduce along a dimension.
#
# **5. A mean over nothing.** Dividing by a count that can be 0 gives NaN (0 / 0). Clamp the count
# at 1, or choose the result with `torch.where`.
#
# **6. `gather` with a missing dimension.** The index must have as many dimensions as the tensor:
# `scores.gather(1, labels)` with `labels` of shape `(N,)` raises; `labels.unsqueeze(1)` fixes it.

# %%
try:
    torch.zeros(3, 4, device=device).gather(1, torch.tensor([0, 1, 2], device=device))
except RuntimeError as error:
    print("RuntimeError:", error)

# %% [markdown]
# **7. Stacking an empty list.** A loop that collects results and calls `torch.stack` at the end
# raises on an empty batch.
#
# **8. A loop over `.tolist()` is still a loop.** Moving the numbers into a Python list avoids
# PyTorch's per-call cost but keeps the interpreter's: it still grows with N.
#
# **9. Timing GPU code without waiting for it.** CUDA calls return before the GPU finishes; measure
# with `torch.utils.benchmark`, or call `torch.cuda.synchronize()` before reading the clock.
#
# **Try it.** Write `clip_loop` above as a loop over `range(len(x))` that uses `torch.where` on
# each element, then time it next to `clip_vectorized` with `benchmark.Timer`. Is the per-element
# `torch.where` any faster than the `if`?

# %%
x = torch.randn(1000, device=device)
print(benchmark.Timer("clip_vectorized(x)", globals={"clip_vectorized": clip_vectorized, "x": x}).timeit(100))

# %% [markdown]
# ## Recap
#
# - Integers and slices (basic indexing) give views; integer tensors, lists and boolean masks
#   (advanced indexing) give copies. `x[index] = value`, in one expression, writes into `x`.
# - An in-place operation on a view changes the original; `.clone()` gives an independent copy.
# - `x[mask]` flattens the selected dimensions; `torch.where` and `masked_fill` keep the shape.
# - `x[rows, cols]` pairs up two index tensors; `x.gather(dim, index)` picks along one dimension,
#   with an index of the same rank as `x`.
# - `cat` joins along an existing dimension, `stack` along a new one.
# - `bincount` (with `minlength`), `scatter_add_`, `index_add_` and one-hot products count and add
#   up repeated positions; `counts[index] += 1` does not.
# - `sort`, `argsort` and `topk` give values and indices; the argsort of an argsort gives ranks.
# - `einsum` names the dimensions of a product: letters missing after `->` are summed.
# - A Python loop pays the interpreter and PyTorch's dispatch once per element; one vectorized call
#   pays them once. Measure with `torch.utils.benchmark.Timer`, which waits for the GPU.
