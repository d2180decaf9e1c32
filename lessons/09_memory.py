# %% [markdown]
# # Lesson 9: memory: storage, strides, views and copies
#
# Some of the most confusing PyTorch bugs are memory bugs: a `view` that refuses, a write that shows
# up in another tensor, a copy nobody asked for, an in-place write that lands somewhere else. They
# all make sense once you see a tensor the way PyTorch does: a window, with strides, over a row of
# memory cells.
#
# **You will learn to**
#
# - read a tensor's `untyped_storage()`, `storage_offset()` and `stride()`, and predict how slicing,
#   `view`, `transpose`, `permute`, `expand`, `unfold` and `as_strided` change them without moving data;
# - tell a view from a copy with `untyped_storage().data_ptr()` (not `data_ptr()`);
# - state the exact rule by which `view` refuses, and choose between `view`, `reshape` and `contiguous`;
# - store images `channels_last` and check it with `is_contiguous(memory_format=...)`;
# - choose between `expand` and `repeat`, and know why writing into an expanded tensor goes wrong;
# - write in place safely: broadcasting, `out=`, aliasing, views and their shared version counter;
# - measure what a copy costs.

# %%
import torch

from course.device import describe_setup
from course.pictures.memory import storage_window

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(describe_setup(device))

# %% [markdown]
# ## Storage, offset and strides
#
# A tensor's numbers live in a *storage*: one flat row of memory cells. The tensor itself only says
# how to read it: the shape, the `storage_offset()` (the cell where element 0 sits) and the
# `stride()` (how many cells to skip for one step along each dimension). Element `[i, j]` of a 2D
# tensor is cell `storage_offset() + i * stride(0) + j * stride(1)`.

# %%
x = torch.arange(12, device=device).reshape(3, 4)
print("shape", tuple(x.shape), "stride", x.stride(), "offset", x.storage_offset())
print("storage:", x.untyped_storage().nbytes(), "bytes =", x.numel(), "elements of", x.element_size(), "bytes")
i, j = 2, 1
print("x[2, 1] =", x[i, j].item(), "= cell", x.storage_offset() + i * x.stride(0) + j * x.stride(1))

# %% [markdown]
# The picture draws the storage as a row of numbered cells, and over it the window `x` reads: each
# cell it reads carries the index of the element there, and one arrow per dimension shows its stride.

# %%
storage_window(x.shape, x.stride(), x.storage_offset(), name="x")

# %% [markdown]
# ## Views: new windows over the same cells
#
# Basic slicing (integers, `a:b:c` ranges), `view`, `transpose`, `permute`, `expand`, `unfold` and
# `as_strided` all return a *view*: a new shape, offset and strides over the same storage, with no
# data moved. Slicing `x[1:, ::2]` starts one row in (offset 4) and takes every second column
# (stride 2); a transpose swaps the strides; `expand` gives a stretched dimension a stride of 0, so
# every step along it reads the same cells again.

# %%
views = {
    "x[1:, ::2]": x[1:, ::2],
    "x.view(2, 6)": x.view(2, 6),
    "x.t()": x.t(),
    "x[0].expand(3, 4)": x[0].expand(3, 4),
    "x.view(-1).unfold(0, 4, 2)": x.view(-1).unfold(0, 4, 2),
    "x.as_strided((2, 2), (1, 4), 1)": x.as_strided((2, 2), (1, 4), 1),
}
for name, v in views.items():
    same = v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    print(f"{name:<32} shape {str(tuple(v.shape)):<8} stride {str(v.stride()):<8} offset {v.storage_offset()}  same storage: {same}")

# %%
part = x[1:, ::2]
storage_window(part.shape, part.stride(), part.storage_offset(), storage_size=12, name="x[1:, ::2]")

# %% [markdown]
# Because a view reads the same cells, a write through it shows in the original, and the other way
# round.

# %%
column = x[:, 1]
column[0] = 100
print(x[0])
x[0, 1] = 1

# %% [markdown]
# **Try it.** Draw `x.t()` and `x[0].expand(3, 4)` with `storage_window`. Which cells does the
# expanded tensor read more than once?

# %%
storage_window(x.t().shape, x.t().stride(), name="x.t()")

# %% [markdown]
# ### Quiz: the layout of a slice
#
# `x = torch.arange(24).reshape(4, 6)` and `y = x[1:, ::2]`. Give `(y.storage_offset(), y.stride(0),
# y.stride(1))` as a tuple of three ints.

# %% answer answer_slice_layout quiz=rule
# A tuple of three ints, for example (0, 1, 1).
answer_slice_layout = None
### BEGIN SOLUTION
answer_slice_layout = (6, 6, 2)
### END SOLUTION

# %% test answer_slice_layout points=1
from course.quiz import check_int_tuple, form_checked

check_int_tuple(answer_slice_layout, name="answer_slice_layout", length=3)
form_checked("answer_slice_layout")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_slice_layout, (6, 6, 2), name="answer_slice_layout",
          why="x has strides (6, 1). y starts at row 1, column 0: cell 1 * 6 + 0 = 6. One step down a row is still 6 "
              "cells; one step along y's columns skips every second column of x, 2 cells.")
### END HIDDEN TESTS

# %% [markdown]
# ### Quiz: strides after permute and indexing
#
# `x = torch.zeros(2, 3, 4)` and `y = x.permute(2, 0, 1)[:, 1]`. Give `y.stride()` as a tuple of
# ints.

# %% answer answer_permute_stride quiz=rule
# A tuple of ints, for example (2, 5).
answer_permute_stride = None
### BEGIN SOLUTION
answer_permute_stride = (1, 4)
### END SOLUTION

# %% test answer_permute_stride points=1
from course.quiz import check_int_tuple, form_checked

check_int_tuple(answer_permute_stride, name="answer_permute_stride")
form_checked("answer_permute_stride")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_permute_stride, (1, 4), name="answer_permute_stride",
          why='x is contiguous, with strides (12, 4, 1). permute(2, 0, 1) reorders them with the dimensions: (1, '
              '12, 4), for shape (4, 2, 3). The integer index 1 on the middle dimension removes it (its stride goes'
              ' into the offset), leaving strides (1, 4) for shape (4, 3).')
### END HIDDEN TESTS

# %% [markdown]
# ## Views and copies: how to tell
#
# `t.data_ptr()` is the address of `t`'s *first element*, so a view that starts further in has
# another `data_ptr()` although it shares the memory. Compare the storages instead: for two
# tensors that have elements, `a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()` is
# True exactly when they are windows over the same storage.

# %%
tail = x.view(-1)[3:]
print("data_ptr equal:", tail.data_ptr() == x.data_ptr())
print("same storage:  ", tail.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())
print("data_ptr moved by", tail.data_ptr() - x.data_ptr(), "bytes = 3 elements of", x.element_size())

# %% [markdown]
# These make a copy: `clone()`, advanced indexing (`x[[0, 2]]`, a boolean mask), `flip`, a change of
# dtype or device with `.to(...)`, and `contiguous()` or `reshape` when no view can do it.

# %%
copies = {"x.clone()": x.clone(), "x[[0, 2]]": x[[0, 2]], "x.flip(0)": x.flip(0), "x.double()": x.double(),
          "x.t().contiguous()": x.t().contiguous(), "x.t().reshape(-1)": x.t().reshape(-1)}
for name, c in copies.items():
    print(f"{name:<20} same storage: {c.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()}")

# %% [markdown]
# ### Quiz: the same memory?
#
# `x = torch.arange(10)` and `y = x[3:]`. Which of these is True?
#
# - **A.** `y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()`
# - **B.** `y.untyped_storage().nbytes() == y.numel() * y.element_size()`
# - **C.** `y.storage_offset() == 0`
# - **D.** `y.data_ptr() == x.data_ptr()`

# %% answer answer_same_storage quiz=rule
# One upper-case letter as a string, for example "A".
answer_same_storage = None
### BEGIN SOLUTION
answer_same_storage = "A"
### END SOLUTION

# %% test answer_same_storage points=1
from course.quiz import check_choice, form_checked

check_choice(answer_same_storage, "ABCD", name="answer_same_storage")
form_checked("answer_same_storage")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_same_storage, "A", name="answer_same_storage",
          why="y is a view: it reads x's storage from cell 3 on, so its storage offset is 3 and its data_ptr() is 3 "
              "elements past x's. The two share one storage, whose data_ptr() is the same, and that storage is all of "
              "x's: 10 elements of 8 bytes, not y's 7.")
### END HIDDEN TESTS

# %% [markdown]
# ## Contiguity and why view refuses
#
# A tensor is *contiguous* when its elements, read in row-major order, sit in consecutive cells:
# the last dimension has stride 1 and each other stride is the next stride times the next size
# (dimensions of size 1 do not count, since no step is ever taken along them, and a tensor with no
# elements always counts as contiguous). `x.is_contiguous()` checks exactly that.
#
# `view` never copies, so it only works when the new shape can be read from the same cells with new
# strides. The exact rule (from PyTorch's documentation of `Tensor.view`): each new dimension must
# either split one old dimension, or merge old dimensions `d, d+1, ..., d+k` that satisfy
# `stride[i] == stride[i+1] * size[i+1]` for every `i` from `d` to `d+k-1`. As for contiguity,
# dimensions of size 1 are left out of that test, and a tensor with no elements takes any shape with
# no elements. A transpose breaks the rule for the dimensions it swapped, so `x.t().view(-1)`
# raises, while `x.t().view(4, 1, 3)` (no merge) works.

# %%
for name, attempt in {"x.t().view(-1)": lambda: x.t().view(-1), "x.t().view(4, 1, 3)": lambda: x.t().view(4, 1, 3),
                      "x[:, :2].view(6)": lambda: x[:, :2].view(6), "x[::2].view(8)": lambda: x[::2].view(8)}.items():
    try:
        print(f"{name:<20} works: shape {tuple(attempt().shape)}")
    except RuntimeError as error:
        print(f"{name:<20} RuntimeError: {str(error)[:60]}...")

# %% [markdown]
# `x[::2]` keeps rows 0 and 2. Each sits in four consecutive cells, but merging the two rows needs
# `stride[0] == stride[1] * size[1]`, here `8 == 1 * 4`, which is false: `x[::2].view(8)` raises.
# Splitting a dimension needs no condition, so `x[::2].view(2, 2, 2)` works.
#
# So: `view` when you want a guarantee that nothing is copied (you will write through the result);
# `reshape` when you only want the shape (it views when it can and copies when it must);
# `contiguous()` when the next step needs consecutive cells (it returns the tensor itself when it
# already is contiguous, and a copy otherwise).

# %%
print(tuple(x[::2].view(2, 2, 2).shape), "contiguous() of a contiguous tensor is itself:", x.contiguous() is x)

# %% [markdown]
# ### Your turn: `strides_after_permute`
#
# **To write:** `strides_after_permute(shape, dims)` works out the strides of a contiguous tensor
# after `.permute(*dims)`, without making one.
#
# A contiguous tensor of shape `shape` is permuted with `.permute(*dims)`. Return the strides the
# result has, as a tuple of ints, **worked out from the numbers**: the tests use shapes far too large
# to allocate. Every size is at least 1; `dims` is a permutation of `range(len(shape))`; a 0-d shape
# `()` with `dims == ()` has strides `()`.

# %% answer strides_after_permute
def strides_after_permute(shape, dims):
    """The strides of a contiguous tensor of `shape` after `.permute(*dims)`, worked out from the numbers."""
    ### BEGIN SOLUTION
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return tuple(strides[d] for d in dims)
    ### END SOLUTION

# %% test strides_after_permute points=2
from course.checks import check_runs, check_true, passed
from course.quiz import read_int_tuple

found = check_runs(strides_after_permute, (2, 3, 4), (2, 0, 1), what="strides_after_permute((2, 3, 4), (2, 0, 1))")
check_true(read_int_tuple(found) == (1, 12, 4),
           f"Expected strides_after_permute((2, 3, 4), (2, 0, 1)) to be (1, 12, 4), but found {found!r:.200}.",
           fix="A contiguous (2, 3, 4) tensor has strides (12, 4, 1); permute((2, 0, 1)) takes them in the order 2, 0, 1.")
passed("strides_after_permute")
### BEGIN HIDDEN TESTS
import torch

cases = [((5,), (0,)), ((), ()), ((3, 1, 4), (1, 0, 2)), ((2, 3, 4, 5), (0, 2, 3, 1)), ((7, 2), (1, 0)),
         ((1, 1, 1), (2, 1, 0)), ((10**6, 10**6, 10**5), (1, 2, 0)), ((6, 5, 4, 3, 2), (4, 3, 2, 1, 0)),
         ((2, 3, 4, 5), (0, 1, 2, 3))]
for shape, dims in cases:
    what = f"strides_after_permute({shape}, {dims})"
    found = check_runs(strides_after_permute, shape, dims, what=what)
    expected = torch.empty(shape, device="meta").permute(dims).stride()
    check_true(read_int_tuple(found) == tuple(expected),
               f"Expected {what} to be {tuple(expected)}, but found {found!r:.200}.")
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `contiguous_when_needed`
#
# **To write:** `contiguous_when_needed(x)` returns a contiguous tensor equal to `x`, copying only
# when `x` is not contiguous.
#
# Return a contiguous tensor with `x`'s values, dtype, shape and device, copying only when you must:
# when `x` is already contiguous, the result must share its memory (no copy); otherwise it must be a
# copy. Any shape (0-d and empty included), any dtype and device, views with an offset; leave `x`
# unchanged. The tests measure the sharing inside your own Python process.

# %% answer contiguous_when_needed
def contiguous_when_needed(x):
    """`x` itself when it is already contiguous; otherwise a contiguous copy with the same values."""
    ### BEGIN SOLUTION
    return x.contiguous()
    ### END SOLUTION

# %% test contiguous_when_needed points=2
import torch
from course.checks import check_runs, check_tensor, check_true, passed
from course.probes.core import call_sharing_memory

x = torch.arange(6.0).reshape(2, 3)
result, overlaps, _ = call_sharing_memory(contiguous_when_needed, x)
check_tensor(result, x, what="contiguous_when_needed of a contiguous (2, 3) tensor")
check_true(overlaps, "Expected contiguous_when_needed of a contiguous tensor to share its memory (no copy), but the "
                     "result has memory of its own (measured in your process).")
found = check_runs(contiguous_when_needed, x.t(), what="contiguous_when_needed(x.t())")
check_tensor(found, x.t(), what="contiguous_when_needed(x.t())")
check_true(found.is_contiguous(), f"Expected contiguous_when_needed(x.t()) to be contiguous, but its strides are {found.stride()}.")
passed("contiguous_when_needed")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from course.probes.core import call_watching_inputs

for dev in test_devices():
    g = torch.Generator().manual_seed(9)
    base = torch.randn(6, 8, generator=g, dtype=torch.float64).to(dev)
    cases = [
        ("a contiguous float64 (6, 8) tensor", base),
        ("a 0-d tensor", torch.tensor(2.5, device=dev)),
        ("an empty (0, 3) tensor", torch.zeros(0, 3, device=dev)),
        ("a float16 (4, 5) tensor", torch.randn(4, 5, generator=g).to(dev, torch.float16)),
        ("rows 2 to 5 of a tensor (contiguous, storage offset 16)", base[2:5]),
        ("x.t() (not contiguous)", base.t()),
        ("x[:, :3] (not contiguous)", base[:, :3]),
        ("x[1:, 2:] (not contiguous, storage offset 10)", base[1:, 2:]),
        ("a float16 permute (not contiguous)", torch.randn(2, 3, 4, generator=g).to(dev, torch.float16).permute(2, 0, 1)),
        ("an int64 expand (not contiguous)", torch.arange(3, device=dev).expand(4, 3)),
        ("a (3, 1) column x[:3, 2:3] (not contiguous)", base[:3, 2:3]),
        ("a transposed row x[2:3].t() (contiguous: size-1 dimensions do not count)", base[2:3].t()),
    ]
    for label, t in cases:
        what = f"contiguous_when_needed of {label} on {dev}"
        found = check_runs(contiguous_when_needed, t, what=what)
        check_tensor(found, t, what=what)
        check_true(found.is_contiguous(), f"Expected {what} to be contiguous, but its strides are {found.stride()}.")
        result, changed = check_runs(call_watching_inputs, contiguous_when_needed, t, what=what)
        check_true(changed == [], f"Expected {what} to leave x unchanged (measured in your process), but it changed it.")
        if dev == "cpu" and t.numel():
            result, overlaps, _ = check_runs(call_sharing_memory, contiguous_when_needed, t, what=what)
            if t.is_contiguous():
                check_true(overlaps, f"Expected {what} to share x's memory (x is contiguous: no copy is needed), but the "
                                     "result has memory of its own (measured in your process).")
            else:
                check_true(not overlaps, f"Expected {what} to be a copy (x is not contiguous), but it shares x's memory.")
### END HIDDEN TESTS

# %% [markdown]
# ## Memory format: channels_last
#
# A batch of images `(B, C, H, W)` is normally stored with each channel's `H * W` pixels together.
# *channels last* keeps the same shape and the same indexing, `x[b, c, h, w]`, and only changes the
# strides, so that the `C` values of one pixel sit next to each other. It is a stride order, not a
# shape: `x.to(memory_format=torch.channels_last)` copies into that order, `x.is_contiguous()` is then
# False and `x.is_contiguous(memory_format=torch.channels_last)` is True.

# %%
batch = torch.randn(2, 3, 4, 5, device=device)
stored = batch.to(memory_format=torch.channels_last)
print("shape", tuple(stored.shape), "stride", stored.stride(), "equal values:", torch.equal(stored, batch))
print("contiguous:", stored.is_contiguous(), " channels_last contiguous:", stored.is_contiguous(memory_format=torch.channels_last))

# %% [markdown]
# In PyTorch, a convolution given a channels-last input on the CPU returns a channels-last output.
# Whether it is faster depends on the library build, the machine and the sizes: measure it.
# (`torch.utils.benchmark` runs each statement enough times to give a steady number; with a GPU the
# same cell times CUDA.)

# %%
from torch.utils import benchmark

conv = torch.nn.Conv2d(16, 16, 3, padding=1).to(device).eval()
images = torch.randn(8, 16, 32, 32, device=device)
with torch.no_grad():
    print("output channels_last:", conv(images.to(memory_format=torch.channels_last)).is_contiguous(memory_format=torch.channels_last))
    for name, layout in (("contiguous", torch.contiguous_format), ("channels_last", torch.channels_last)):
        timer = benchmark.Timer("conv(inp)", globals={"conv": conv, "inp": images.to(memory_format=layout)})
        print(f"{name:<14} {timer.blocked_autorange(min_run_time=0.2).median * 1e3:.2f} ms per call on {device}")

# %% [markdown]
# A dimension of size 1 is never stepped along, so its stride does not matter: a one-channel batch
# `(B, 1, H, W)` is contiguous in both formats at once.

# %%
gray = torch.zeros(2, 1, 4, 5)
print(gray.is_contiguous(), gray.is_contiguous(memory_format=torch.channels_last))

# %% [markdown]
# ### Your turn: `to_channels_last_memory`
#
# **To write:** `to_channels_last_memory(x)` returns `x` stored channels last, with its strides.
#
# Return `(y, strides)`: `y` has `x`'s shape `(B, C, H, W)`, values, dtype and device and is stored
# channels last (`y.is_contiguous(memory_format=torch.channels_last)` is True); `strides` is
# `y.stride()` as a tuple of ints. Any batch size (`B = 0` included: an empty batch has no layout to
# check, only its shape), any number of channels, any
# dtype and device, and `x` in any layout (a permute, a slice, already channels last); leave `x`
# unchanged.

# %% answer to_channels_last_memory
def to_channels_last_memory(x):
    """`x` (B, C, H, W) stored channels-last: same shape and values; returns (the tensor, its strides)."""
    ### BEGIN SOLUTION
    y = x.to(memory_format=torch.channels_last)
    return y, tuple(y.stride())
    ### END SOLUTION

# %% test to_channels_last_memory points=2
import torch
from course.checks import check_runs, check_tensor, check_true, passed
from course.quiz import read_int_tuple

x = torch.arange(24.0).reshape(1, 3, 2, 4)
found = check_runs(to_channels_last_memory, x, what="to_channels_last_memory of a (1, 3, 2, 4) batch")
check_true(isinstance(found, tuple) and len(found) == 2, f"Expected a pair (y, strides), but found {found!r:.200}.")
y, strides = found
check_tensor(y, x, what="y from to_channels_last_memory of a (1, 3, 2, 4) batch")
check_true(y.is_contiguous(memory_format=torch.channels_last),
           f"Expected y to be stored channels last, but its strides are {y.stride()} (channels last would be (24, 1, 12, 3)).")
check_true(read_int_tuple(strides) == (24, 1, 12, 3), f"Expected strides (24, 1, 12, 3), but found {strides!r:.200}.")
passed("to_channels_last_memory")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from course.probes.core import call_watching_inputs

for dev in test_devices():
    g = torch.Generator().manual_seed(11)
    cases = [
        ("a float32 (2, 3, 4, 5) batch", torch.randn(2, 3, 4, 5, generator=g).to(dev)),
        ("a float64 (3, 2, 5, 4) batch", torch.randn(3, 2, 5, 4, generator=g, dtype=torch.float64).to(dev)),
        ("a float16 (2, 4, 3, 3) batch", torch.randn(2, 4, 3, 3, generator=g).to(dev, torch.float16)),
        ("an empty batch (0, 3, 4, 4)", torch.zeros(0, 3, 4, 4, device=dev)),
        ("a one-channel batch (2, 1, 4, 5)", torch.randn(2, 1, 4, 5, generator=g).to(dev)),
        ("a batch made by permute (not contiguous)", torch.randn(2, 5, 6, 3, generator=g).to(dev).permute(0, 3, 1, 2)),
        ("a batch already stored channels last", torch.randn(2, 3, 4, 4, generator=g).to(dev).to(memory_format=torch.channels_last)),
        ("images 1 to 3 of a batch (storage offset)", torch.randn(4, 3, 2, 3, generator=g).to(dev)[1:]),
        ("a sliced batch x[:, :, ::2] (not contiguous)", torch.randn(2, 3, 6, 5, generator=g).to(dev)[:, :, ::2]),
        ("a uint8 image batch", torch.randint(0, 256, (1, 3, 4, 6), generator=g, dtype=torch.uint8).to(dev)),
    ]
    for label, t in cases:
        what = f"to_channels_last_memory of {label} on {dev}"
        found = check_runs(to_channels_last_memory, t, what=what)
        check_true(isinstance(found, tuple) and len(found) == 2, f"Expected {what} to be a pair (y, strides), but found {found!r:.200}.")
        y, strides = found
        check_tensor(y, t, what=f"y from {what}")
        check_true(y.numel() == 0 or y.is_contiguous(memory_format=torch.channels_last),  # no layout to check when empty
                   f"Expected y from {what} to be stored channels last, but its strides are {y.stride()}.")
        check_true(read_int_tuple(strides) == tuple(y.stride()),
                   f"Expected the strides from {what} to be y.stride() = {tuple(y.stride())}, but found {strides!r:.200}.")
        result, changed = check_runs(call_watching_inputs, to_channels_last_memory, t, what=what)
        check_true(changed == [], f"Expected {what} to leave x unchanged (measured in your process), but it changed it.")
### END HIDDEN TESTS

# %% [markdown]
# ## expand versus repeat
#
# `expand` stretches size-1 dimensions with a stride of 0: no memory is used, and every row of the
# result is the same cells. `repeat` copies the data as many times as asked. Both give equal values.

# %%
row = torch.tensor([1.0, 2.0, 3.0], device=device)
wide, tiled = row.expand(4, 3), row.repeat(4, 1)
print("expand stride", wide.stride(), "storage bytes", wide.untyped_storage().nbytes())
print("repeat stride", tiled.stride(), "storage bytes", tiled.untyped_storage().nbytes())
storage_window(wide.shape, wide.stride(), name="row.expand(4, 3)")

# %% [markdown]
# Writing into an expanded tensor goes wrong in one of two ways. An in-place operation that would
# write one cell several times with different values, such as `wide.add_(1)`, raises a
# `RuntimeError` (`fill_` and `zero_`, which write one value everywhere, are let through). A write to
# a single element succeeds and changes the shared cell, so it shows in every row, and in `row` itself.
# `expand(...).clone()` or `repeat` gives rows of your own.

# %%
try:
    wide.add_(1)
except RuntimeError as error:
    print("RuntimeError:", str(error)[:90], "...")
wide[0, 0] = 9
print(wide[:, 0], row)
row[0] = 1

# %% [markdown]
# ### Quiz: a write into an expanded tensor
#
# ```python
# b = torch.zeros(2, 1)
# e = b.expand(2, 3)
# e[1, 2] = 5
# total = e.sum()
# ```
#
# What is `total`?
#
# - **A.** a `RuntimeError`
# - **B.** `tensor(5.)`
# - **C.** `tensor(15.)`
# - **D.** `tensor(10.)`

# %% answer answer_write_expanded quiz=rule
# One upper-case letter as a string, for example "A".
answer_write_expanded = None
### BEGIN SOLUTION
answer_write_expanded = "C"
### END SOLUTION

# %% test answer_write_expanded points=1
from course.quiz import check_choice, form_checked

check_choice(answer_write_expanded, "ABCD", name="answer_write_expanded")
form_checked("answer_write_expanded")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_write_expanded, "C", name="answer_write_expanded",
          why="expand stretches b's size-1 column into 3 with stride 0: e has strides (1, 0), so e[1, j] is b[1, 0] "
              "for every column j. A write to a single element succeeds and writes that one cell, so all of row 1 "
              "reads 5 and e sums to 15. The rows are not shared here, the columns are (not D); expand copies "
              "nothing (not B); and a write to a single element is let through (not A).")
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `tile_rows`
#
# **To write:** `tile_rows(row, n)` returns `n` copies of `row` stacked, in memory of their own.
#
# Return a tensor of shape `(n, *row.shape)` whose every entry `[i]` equals `row`, in memory of its
# own: a write to one element must change no other element and not `row`. `row` may have any shape
# (0-d gives `(n,)`), dtype and device, and be a view; `n >= 0`; leave `row` unchanged. The tests
# measure the sharing inside your own Python process.

# %% answer tile_rows
def tile_rows(row, n):
    """(n, *row.shape): n copies of `row` in memory of their own, so a write to one copy changes no other."""
    ### BEGIN SOLUTION
    return row.expand(n, *row.shape).clone()
    ### END SOLUTION

# %% test tile_rows points=2
import torch
from course.checks import check_runs, check_tensor, check_true, passed
from course.probes.core import call_sharing_memory

row = torch.tensor([1.0, 2.0, 3.0])
found = check_runs(tile_rows, row, 2, what="tile_rows(torch.tensor([1.0, 2.0, 3.0]), 2)")
check_tensor(found, torch.tensor([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]), what="tile_rows(torch.tensor([1.0, 2.0, 3.0]), 2)")
check_true(0 not in found.stride(), f"Expected every row to have cells of its own, but the strides are {found.stride()}: "
                                    "a stride of 0 means the rows share their cells (that is what expand does).")
result, overlaps, _ = call_sharing_memory(tile_rows, row, 2)
check_true(not overlaps, "Expected the rows to be a copy, but the result shares memory with row (measured in your process).")
passed("tile_rows")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from course.probes.core import call_watching_inputs
from instructor.memory import internal_overlap

for dev in test_devices():
    g = torch.Generator().manual_seed(13)
    wide = torch.randn(3, 8, generator=g, dtype=torch.float64).to(dev)
    cases = [
        ("a float64 row of 5, n = 4", wide[0, :5], 4),
        ("a 0-d row, n = 3", torch.tensor(7, device=dev), 3),
        ("a (2, 3) row, n = 2", torch.randn(2, 3, generator=g).to(dev), 2),
        ("a row of 4, n = 1", torch.randn(4, generator=g).to(dev), 1),
        ("a row of 4, n = 0", torch.randn(4, generator=g).to(dev), 0),
        ("an empty row, n = 3", torch.zeros(0, device=dev), 3),
        ("a float16 row, n = 3", torch.randn(6, generator=g).to(dev, torch.float16), 3),
        ("a strided view wide[1, ::2] (not contiguous, storage offset 8), n = 3", wide[1, ::2], 3),
        ("a column wide[:, 2] (not contiguous), n = 2", wide[:, 2], 2),
        ("an expanded row (stride 0), n = 2", torch.arange(3, device=dev).expand(2, 3), 2),
    ]
    for label, r, n in cases:
        what = f"tile_rows of {label} on {dev}"
        found = check_runs(tile_rows, r, n, what=what)
        check_tensor(found, torch.stack([r] * n) if n else torch.zeros(0, *r.shape, dtype=r.dtype, device=r.device), what=what)
        check_true(not internal_overlap(found.shape, found.stride()),
                   f"Expected every element of {what} to have a cell of its own, but its strides {found.stride()} "
                   "make two elements share one (a stride of 0 is what expand makes).")
        result, changed = check_runs(call_watching_inputs, tile_rows, r, n, what=what)
        check_true(changed == [], f"Expected {what} to leave row unchanged (measured in your process), but it changed it.")
        if dev == "cpu" and found.numel():
            result, overlaps, _ = check_runs(call_sharing_memory, tile_rows, r, n, what=what)
            check_true(not overlaps, f"Expected {what} to be a copy, but it shares memory with row (measured in your process).")
### END HIDDEN TESTS

# %% [markdown]
# ## Sliding windows as a view: unfold and as_strided
#
# Windows of a signal overlap, so a copy of all of them costs about `size / step` times the signal. A view
# costs nothing: `signal.unfold(0, size, step)` reads window `i` from `signal[i * step : i * step +
# size]` with strides `(step * s, s)`, where `s` is the signal's own stride. `torch.as_strided(t,
# shape, strides, offset)` builds any such window by hand. It counts strides in storage cells, so
# multiply by `t.stride(0)` when `t` is itself strided; left out, the offset stays `t`'s own.

# %%
signal = torch.arange(10.0, device=device)
windows = signal.unfold(0, 4, 2)
print(windows)
print("stride", windows.stride(), "same storage:", windows.untyped_storage().data_ptr() == signal.untyped_storage().data_ptr())
storage_window(windows.shape, windows.stride(), windows.storage_offset(), name="signal.unfold(0, 4, 2)")

# %% [markdown]
# ### Your turn: `sliding_windows`
#
# **To write:** `sliding_windows(signal, size, step)` returns the windows of a 1-D signal as rows of
# a view, with no copy.
#
# For a 1D `signal` of length `N`, a window `size` with `1 <= size <= N` and a `step >= 1`, return
# the `(num_windows, size)` tensor whose row `i` is `signal[i * step : i * step + size]`, for every
# window that fits (`num_windows = (N - size) // step + 1`), **as a view: no copy**. Any dtype and
# device; `signal` may itself be a view with an offset or a stride; leave it unchanged. The tests
# measure the sharing inside your own Python process.

# %% answer sliding_windows
def sliding_windows(signal, size, step):
    """Windows of `size` samples, `step` apart, of the 1D `signal`, as a view: (num_windows, size), no copy."""
    ### BEGIN SOLUTION
    return signal.unfold(0, size, step)
    ### END SOLUTION

# %% test sliding_windows points=3
import torch
from course.checks import check_runs, check_tensor, check_true, passed
from course.probes.core import call_sharing_memory

signal = torch.arange(6.0)
result, overlaps, _ = call_sharing_memory(sliding_windows, signal, 3, 2)
check_tensor(result, torch.tensor([[0.0, 1.0, 2.0], [2.0, 3.0, 4.0]]), what="sliding_windows(torch.arange(6.0), 3, 2)")
check_true(overlaps, "Expected the windows to be a view of the signal (no copy), but they have memory of their own "
                     "(measured in your process).")
passed("sliding_windows")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from course.probes.core import call_watching_inputs

for dev in test_devices():
    g = torch.Generator().manual_seed(17)
    long = torch.randn(40, generator=g, dtype=torch.float64).to(dev)
    cases = [
        ("a float64 signal of 40, size 8, step 4", long, 8, 4),
        ("a float16 signal of 9, size 3, step 1", torch.randn(9, generator=g).to(dev, torch.float16), 3, 1),
        ("signal[5:] (storage offset 5), size 4, step 3", long[5:], 4, 3),
        ("signal[3::3] (stride 3, storage offset 3), size 2, step 2", long[3::3], 2, 2),
        ("size equal to the length (one window)", long[:7], 7, 5),
        ("size 1, step 1 (a column of every sample)", long[:6], 1, 1),
        ("step larger than the window (gaps)", long, 3, 7),
        ("an int64 signal", torch.arange(12, device=dev), 5, 2),
        ("a column of a matrix (not contiguous)", torch.randn(10, 3, generator=g).to(dev)[:, 1], 4, 2),
    ]
    for label, s, size, step in cases:
        what = f"sliding_windows of {label} on {dev}"
        count = (s.shape[0] - size) // step + 1
        expected = torch.stack([s[i * step:i * step + size] for i in range(count)])
        found = check_runs(sliding_windows, s, size, step, what=what)
        check_tensor(found, expected, what=what)
        result, changed = check_runs(call_watching_inputs, sliding_windows, s, size, step, what=what)
        check_true(changed == [], f"Expected {what} to leave the signal unchanged (measured in your process), but it changed it.")
        if dev == "cpu":
            result, overlaps, _ = check_runs(call_sharing_memory, sliding_windows, s, size, step, what=what)
            check_true(overlaps, f"Expected {what} to be a view of the signal (no copy), but it has memory of its own "
                                 "(measured in your process).")
### END HIDDEN TESTS

# %% [markdown]
# ## In-place operations
#
# A method ending in `_` (`add_`, `mul_`, `clamp_`), an augmented assignment (`x += y`) and `out=`
# write into existing memory instead of allocating a result. Three rules follow from that.
#
# **Broadcasting only stretches the right-hand side.** `x.add_(y)` works when `y` broadcasts to
# `x.shape`; it raises when the broadcast shape is not `x.shape` (larger, or empty where `x` has a
# size 1), because `x` cannot change its shape.
# `torch.add(a, b, out=x)` writes the result into `x` and returns `x`.

# %%
acc = torch.zeros(2, 3, device=device)
acc.add_(torch.ones(3, device=device))
try:
    acc.add_(torch.ones(4, 2, 3, device=device))
except RuntimeError as error:
    print("RuntimeError:", error)
target = torch.empty(3, device=device)
print(torch.add(torch.ones(3, device=device), 1, out=target) is target)

# %% [markdown]
# **Aliasing.** When the written tensor and an input share cells in a different order, a loop that
# writes as it reads would use values it has already overwritten. PyTorch refuses such partial
# overlaps: `m += m.t()` and `x[1:] += x[:-1]` raise a `RuntimeError` that says to `clone()` first.
# `x += x.flip(0)` is safe, because `flip` copies.

# %%
m = torch.arange(4.0, device=device).reshape(2, 2)
try:
    m += m.t()
except RuntimeError as error:
    print("RuntimeError:", str(error)[:70], "...")
m += m.t().clone()
print(m)

# %% [markdown]
# **Views and the version counter.** An in-place write through a view changes its base too, and
# every tensor carries a version counter, `t._version`, that each in-place write increases (a view
# and its base share one counter). Lesson {06_autograd}, on gradients, shows who reads that counter
# and why.

# %%
base = torch.zeros(4, device=device)
tail = base[2:]
print("versions before:", base._version, tail._version)
tail.add_(1)
print("after tail.add_(1):", base._version, tail._version, "| base:", base.tolist())
fresh = base + 1
print("base + 1 writes nothing in place:", base._version, "| the new tensor starts at", fresh._version)

# %% [markdown]
# ### Your turn: `symmetrize_`
#
# **To write:** `symmetrize_(m)` replaces a square matrix by `(m + m.T) / 2` in its own memory and
# returns it.
#
# Replace the square matrix `m` (shape `(n, n)`, `n >= 0`, float16, float32 or float64, on any
# device) **in place** by `(m + m.T) / 2` of its old values, and return `m`. In place means in `m`'s
# own memory: `m` may be a view (a transposed matrix, or a block of a larger tensor with an offset),
# and the caller's tensor must hold the new values. The tests measure this inside your own Python
# process.

# %% answer symmetrize_
def symmetrize_(m):
    """Replace the square matrix `m`, in place, by (m + m.T) / 2, and return `m`."""
    ### BEGIN SOLUTION
    m.add_(m.t().clone()).div_(2)
    return m
    ### END SOLUTION

# %% test symmetrize_ points=3
import torch
from course.checks import check_runs, check_tensor, check_true, passed
from course.probes.core import call_sharing_memory, call_watching_inputs

m = torch.tensor([[1.0, 2.0], [4.0, 3.0]])
result, changed = check_runs(call_watching_inputs, symmetrize_, m, what="symmetrize_ of [[1, 2], [4, 3]]")
check_tensor(result, torch.tensor([[1.0, 3.0], [3.0, 3.0]]), what="symmetrize_ of [[1, 2], [4, 3]]")
check_true(changed == ["arg 0"], "Expected symmetrize_ to change m in place, but m is unchanged (measured in your process).")
result, overlaps, _ = call_sharing_memory(symmetrize_, torch.tensor([[1.0, 2.0], [4.0, 3.0]]))
check_true(overlaps, "Expected symmetrize_ to return m itself (its own memory), but the result has memory of its own.")
passed("symmetrize_")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from instructor.memory import dyadic, symmetrized

for dev in test_devices():
    g = torch.Generator().manual_seed(19)
    big = dyadic((6, 7), generator=g, dtype=torch.float64).to(dev)
    cases = [
        ("a float32 (5, 5) matrix", dyadic((5, 5), generator=g).to(dev)),
        ("a float64 (4, 4) matrix", dyadic((4, 4), generator=g, dtype=torch.float64).to(dev)),
        ("a float16 (3, 3) matrix", dyadic((3, 3), generator=g, dtype=torch.float16).to(dev)),
        ("a (1, 1) matrix", torch.tensor([[2.5]], device=dev)),
        ("a transposed matrix (not contiguous)", dyadic((4, 4), generator=g).to(dev).t()),
        ("a block big[1:4, 2:5] of a larger tensor (storage offset 9)", big[1:4, 2:5]),
        ("every second row and column big[::2, ::2][:3, :3]", big[::2, ::2][:3, :3]),
    ]
    for label, t in cases:
        what = f"symmetrize_ of {label} on {dev}"
        expected = symmetrized(t)
        result, changed = check_runs(call_watching_inputs, symmetrize_, t, what=what)
        check_tensor(result, expected, what=what)
        if t.shape[0] > 1:
            check_true(changed == ["arg 0"], f"Expected {what} to change m in place, but m is unchanged (measured in your process).")
        if dev == "cpu":
            result, overlaps, _ = check_runs(call_sharing_memory, symmetrize_, t, what=what)
            check_true(overlaps, f"Expected {what} to return m itself (its own memory), but the result has memory of its own.")
    empty = torch.zeros(0, 0, device=dev)
    what = f"symmetrize_ of an empty (0, 0) matrix on {dev}"
    check_tensor(check_runs(symmetrize_, empty, what=what), empty, what=what)
### END HIDDEN TESTS

# %% [markdown]
# ## The memory cost of a copy, measured
#
# A view allocates no storage; a copy allocates `numel() * element_size()` bytes and spends time
# moving them. `untyped_storage().nbytes()` shows the size of the storage behind a tensor.

# %%
big = torch.zeros(1000, 1000, device=device)
for name, t in {"big": big, "big.t() (view)": big.t(), "big.expand(3, 1000, 1000) (view)": big.expand(3, 1000, 1000),
                "big.t().contiguous() (copy)": big.t().contiguous(), "big.repeat(3, 1, 1) (copy)": big.repeat(3, 1, 1),
                "big.double() (copy)": big.double()}.items():
    fresh = t.untyped_storage().data_ptr() != big.untyped_storage().data_ptr()
    print(f"{name:<34} new bytes: {t.untyped_storage().nbytes() if fresh else 0:>10,}")

# %% [markdown]
# Time is the other cost. A view moves no data, so its cost does not grow with the size; a copy's
# does. Time both:

# %%
for n in (100, 1000):
    t = torch.zeros(n, n, device=device)
    view = benchmark.Timer("t.t()", globals={"t": t}).blocked_autorange(min_run_time=0.1).median
    copy = benchmark.Timer("t.t().contiguous()", globals={"t": t}).blocked_autorange(min_run_time=0.1).median
    print(f"{n} x {n}: view {view * 1e6:8.1f} µs   copy {copy * 1e6:8.1f} µs")

# %% [markdown]
# ## Common mistakes
#
# **1. Comparing `data_ptr()` to detect sharing.** A view that starts further in has another
# `data_ptr()`. Compare `untyped_storage().data_ptr()`.
#
# **2. `view` after `transpose` or `permute`.** Use `reshape`, or `.contiguous().view(...)`, and
# remember that either makes a copy.
#
# **3. Writing into an expanded tensor.** Each write lands in a shared cell. `clone()` first, or use
# `repeat`.
#
# **4. `x += something that overlaps x`.** PyTorch refuses; `clone()` the right-hand side.
#
# **5. Assuming `channels_last` changes the shape.** The shape and the indices stay `(B, C, H, W)`;
# only the strides change.
#
# **6. Writing through a slice and forgetting it is a view.** `row = x[0]; row[:] = 0` clears row 0
# of `x`.
#
# **Try it.** `t = torch.arange(12).reshape(3, 4)`. Predict `t[:, 1:3].stride()`,
# `t[:, 1:3].storage_offset()` and whether `t[:, 1:3].view(-1)` works; then run it.

# %%
t = torch.arange(12).reshape(3, 4)
print(t[:, 1:3].stride(), t[:, 1:3].storage_offset())

# %% [markdown]
# ## Recap
#
# - A tensor is a window over a storage: shape, `storage_offset()` and `stride()`.
# - Basic slicing, `view`, `transpose`, `permute`, `expand`, `unfold` and `as_strided` make views;
#   `clone`, advanced indexing, `flip` and dtype or device changes copy; `reshape` and `contiguous`
#   copy only when they must.
# - Detect sharing with `untyped_storage().data_ptr()`.
# - `view` merges dimensions only when `stride[i] == stride[i+1] * size[i+1]` (sizes of 1 aside).
# - `channels_last` is a stride order; check it with `is_contiguous(memory_format=torch.channels_last)`.
# - `expand` costs no memory and shares cells; `repeat` copies.
# - In place: the left operand cannot grow, partial overlaps are refused, views share writes and a
#   version counter.
# - A copy costs `numel() * element_size()` bytes and time that grows with them; a view costs neither.
