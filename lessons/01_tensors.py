# %% [markdown]
# # Lesson 1: tensors, rank and shape
#
# Everything a PyTorch model touches is a tensor: the images you feed it, its weights, its
# predictions, its loss. This lesson is about the container itself: what it holds and how to read
# its shape.
#
# **By the end of this lesson you will be able to**
#
# - say what a tensor is, and what it adds to a NumPy array;
# - read a tensor's rank and shape (`t.dim()`, `t.shape`, `torch.Size`) and say what each rank
#   usually holds;
# - create tensors with `torch.zeros`, `torch.ones` and `torch.randn`;
# - index, slice and mask tensors the way you would NumPy arrays;
# - lay out a batch of images as `(batch, channels, height, width)`;
# - turn any NumPy array into a tensor, including the flipped views that `torch.from_numpy` refuses.
#
# Run the cell below first: it imports what the lesson needs and tells you which device it will use.

# %%
import numpy as np
import torch

from course.device import describe_setup
from course.pictures.tensors import batch_layout, rank_ladder

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(describe_setup(device))

# %% [markdown]
# ## What a tensor is
#
# A tensor is a block of numbers arranged along any number of axes, all of one type. It can hold a
# single number, a list of numbers, a table, or a stack of tables. Four properties describe every
# tensor, and you will print them again and again:
#
# - its **shape**: how many numbers lie along each axis;
# - its **dtype**: the kind of number stored (`float32`, `int64`, ...; lesson {02_dtype});
# - its **device**: where the numbers live, in main memory (`cpu`) or on a GPU (`cuda`; lesson {03_device});
# - whether it **requires grad**: whether PyTorch records what is computed from it, so that it can
#   work out gradients later (the autograd lesson).

# %%
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(x)
print("shape:        ", x.shape)
print("dtype:        ", x.dtype)
print("device:       ", x.device)
print("requires_grad:", x.requires_grad)

on_device = torch.zeros(2, 3, device=device)
print("made directly on the lesson's device:", on_device.device)

# %% [markdown]
# ### Tensors and NumPy arrays side by side
#
# If you know NumPy, you already know most of this. `torch.tensor([1, 2, 3])` builds a tensor the way
# `np.array([1, 2, 3])` builds an array; both keep one dtype for all their elements, and arithmetic,
# indexing and slicing look the same. PyTorch has its own type because training a network needs two
# things an array lacks: the data must be able to move to a GPU, and the operations on it must be
# recorded so gradients can be computed. The layers and losses in `torch.nn` only accept tensors.
#
# | | NumPy array (`numpy.ndarray`) | PyTorch tensor (`torch.Tensor`) |
# |---|---|---|
# | Made for | scientific computing in general | machine learning and deep learning |
# | Built from data | `np.array([1.0, 2.0])` | `torch.tensor([1.0, 2.0])` |
# | Default float dtype | `float64` | `float32` |
# | Where the numbers live | main memory only | main memory or a GPU: `.device`, `.to(device)` |
# | Gradients | none | built in (autograd): `requires_grad`, `.grad` |
# | Used by neural-network layers | no: convert it first | yes: `torch.nn` takes tensors only |
# | Shape | `a.shape`, a plain `tuple` | `t.shape`, a `torch.Size` (a kind of tuple) |
# | Number of dimensions | `a.ndim` | `t.dim()` or `t.ndim` |
# | Indexing, slicing, masks | `a[0]`, `a[1:3]`, `a[:, 0]`, `a[a > 0]` | the same |
# | Reversing with a negative step | `a[::-1]`, a free view | not allowed; `torch.flip` makes a copy |
# | Converting | `torch.from_numpy(a)` gives a tensor | `t.numpy()` gives an array (from a CPU tensor in a dtype NumPy has, not bfloat16; a tensor that requires grad is refused outside `torch.no_grad()`, so `.detach()` it first) |
#
# So which one should you use? If you only need numerical processing (statistics on a table, a
# simulation, image arithmetic), NumPy may be enough, and it is one dependency less. Reach for tensors
# when you train neural networks or want a GPU to do the work.
#
# The cell below does the same work both ways. Change the numbers and compare.

# %%
a = np.array([[1.0, 2.0], [3.0, 4.0]])
t = torch.tensor([[1.0, 2.0], [3.0, 4.0]])

print("NumPy: ", type(a).__name__, a.dtype, a.shape, "sum", a.sum(), "first column", a[:, 0])
print("PyTorch:", type(t).__name__, t.dtype, t.shape, "sum", t.sum(), "first column", t[:, 0])
print("matrix product, both ways:", (a @ a).tolist(), (t @ t).tolist())

# %% [markdown]
# ## Rank: what each number of dimensions holds
#
# A tensor's **rank** is its number of dimensions, `t.dim()` (also `t.ndim`). Each rank has a usual
# meaning in deep learning, which is what a tensor's dimensions represent in a network:
#
# | rank | name | example shape | typical content |
# |---|---|---|---|
# | 0 | scalar | `()` | one number: a loss, a learning rate |
# | 1 | vector | `(4,)` | the features of one sample, a bias |
# | 2 | matrix | `(3, 4)` | a batch of feature vectors (rows are samples), a weight matrix, a grey image |
# | 3 | stack of matrices | `(3, 64, 64)` | one colour image: channels, height, width |
# | 4 | batch of stacks | `(16, 3, 64, 64)` | a batch of colour images |
#
# The picture draws one box per number, ranks 0 to 4 side by side.

# %%
rank_ladder()

# %%
scalar = torch.tensor(3.5)
vector = torch.tensor([0.2, 0.1, 0.7, 0.0])
matrix = torch.zeros(3, 4)
image = torch.zeros(3, 5, 6)
batch = torch.zeros(2, 3, 5, 6)
for name, value in [("scalar", scalar), ("vector", vector), ("matrix", matrix), ("image", image), ("batch", batch)]:
    print(f"{name:<7} rank {value.dim()}  shape {tuple(value.shape)}")

# %% [markdown]
# ### How your answers are checked
#
# Each exercise has a cell of visible checks under it; grading adds hidden checks for the edge cases
# the task names. Some checks measure how your function works, not only what it returns (does it
# change its input, share memory, loop in Python), and the grader takes those measurements only of
# code written in plain Python: no special `__names__` beyond a class's usual ones, no attribute
# that starts with `_`, no `eval`, `exec`, `globals`, `vars` or `open`, no change to a library
# (`np.copy = ...`), imports from `torch`, `numpy`, `math` and the other everyday modules (not
# `sys`, `inspect`, `pickle` or `ctypes`). Everything this course teaches is inside; if an answer
# steps outside, its visible check says which line and why. The student bundle's README lists the
# rules too.

# %% [markdown]
# ### Your turn: `tensor_rank`
#
# **To write:** `tensor_rank(t)` returns how many dimensions `t` has, as an `int`.
#
# Return the number of dimensions of `t` as a plain Python `int`: 0 for a scalar tensor, 2 for an
# empty `(0, 3)` tensor (it has two dimensions, one of them of size 0).

# %% answer tensor_rank
def tensor_rank(t):
    """The number of dimensions of `t` as an int (0 for a scalar tensor)."""
    ### BEGIN SOLUTION
    return t.dim()
    ### END SOLUTION

# %% test tensor_rank points=1
import torch
from course.checks import check_equal, passed

check_equal(tensor_rank(torch.zeros(2, 3)), 2, what="tensor_rank(torch.zeros(2, 3))")
check_equal(tensor_rank(torch.zeros(2, 3, 4, 5)), 4, what="tensor_rank of a (2, 3, 4, 5) batch of images")
passed("tensor_rank")
### BEGIN HIDDEN TESTS
from course.device import test_devices

check_equal(tensor_rank(torch.tensor(5.0)), 0, what="the rank of a scalar (0-d) tensor")
check_equal(tensor_rank(torch.tensor([5.0])), 1, what="the rank of a one-element vector")
check_equal(tensor_rank(torch.zeros(0, 3)), 2, what="the rank of an empty (0, 3) tensor")
check_equal(tensor_rank(torch.zeros(1, 1, 1, 1, 1)), 5, what="the rank of a (1, 1, 1, 1, 1) tensor")
check_equal(tensor_rank(torch.ones(3, requires_grad=True)), 1, what="the rank of a vector that requires grad")
check_equal(tensor_rank(torch.zeros(4, 2, 3).transpose(0, 2)), 3, what="the rank of a transposed (non-contiguous) tensor")
check_equal(tensor_rank(torch.tensor(7)), 0, what="the rank of an int64 scalar")
for dev in test_devices(meta=True):
    check_equal(tensor_rank(torch.zeros(2, 1, 3, device=dev)), 3, what=f"the rank of a (2, 1, 3) tensor on {dev}")
    check_equal(tensor_rank(torch.zeros((), device=dev)), 0, what=f"the rank of a scalar tensor on {dev}")
### END HIDDEN TESTS

# %% [markdown]
# ### Quiz: what a 3D tensor holds
#
# Which of these does a 3D tensor most naturally hold?
#
# - **A.** a single number
# - **B.** a table of numbers
# - **C.** one colour image
# - **D.** a batch of colour images

# %% answer answer_rank_meaning quiz=recall
# One upper-case letter as a string, for example "A".
answer_rank_meaning = None
### BEGIN SOLUTION
answer_rank_meaning = "C"
### END SOLUTION

# %% test answer_rank_meaning points=1
from course.quiz import check_choice, form_checked

check_choice(answer_rank_meaning, "ABCD", name="answer_rank_meaning")
form_checked("answer_rank_meaning")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_rank_meaning, "C", name="answer_rank_meaning",
          why="A single number is rank 0, a table rank 2, one colour image rank 3 (channels, height, width), and a batch of images rank 4.")
### END HIDDEN TESTS

# %% [markdown]
# ## `.shape` and `torch.Size`
#
# `t.shape` lists the size of each dimension. It is a `torch.Size`, which is a kind of tuple: you can
# index it, unpack it, take its `len` (the rank), and compare it with a tuple. `t.size()` gives the
# same thing, and `t.size(1)` the size of one dimension. `t.numel()` is the total number of elements,
# the product of the sizes.
#
# Reading shapes is the skill that pays back most in PyTorch: many bugs in a training pipeline are a
# tensor with the wrong shape somewhere. Print shapes often.

# %%
t = torch.zeros(2, 3, 4)
print(t.shape)
print(type(t.shape).__name__, "is a tuple:", isinstance(t.shape, tuple))
print("first size:", t.shape[0], "  last size:", t.shape[-1], "  t.size(1):", t.size(1))
batch_size, rows, cols = t.shape
print("unpacked:", batch_size, rows, cols)
print("rank:", len(t.shape), "  elements:", t.numel())
print("equal to the tuple (2, 3, 4)?", t.shape == (2, 3, 4))
print("as a plain tuple:", tuple(t.shape))

# %% [markdown]
# The `meta` device is a handy place to try shapes: a meta tensor has a shape, a dtype and a device
# but no numbers at all, so it costs no memory even when it is huge.

# %%
huge = torch.zeros(1000, 3, 1024, 1024, device="meta")
print(huge.shape, huge.dtype, huge.device, f"{huge.numel():,} elements, none of them stored")

# %% [markdown]
# ### Your turn: `describe`
#
# **To write:** `describe(t)` returns a dict of `t`'s shape, dtype, device and `requires_grad`, in
# plain Python values.
#
# Return a dict with exactly four keys that sum up a tensor:
#
# - `"shape"`: a tuple of ints;
# - `"dtype"`: a string without the `torch.` prefix, such as `"float32"`;
# - `"device"`: a string such as `"cpu"`, `"cuda:0"` or `"meta"`;
# - `"requires_grad"`: a bool.
#
# It must work for tensors on any device, including `meta` tensors, which have no values.

# %% answer describe
def describe(t):
    """A dict with exactly the keys "shape", "dtype", "device" and "requires_grad"."""
    ### BEGIN SOLUTION
    return {
        "shape": tuple(t.shape),
        "dtype": str(t.dtype).removeprefix("torch."),
        "device": str(t.device),
        "requires_grad": t.requires_grad,
    }
    ### END SOLUTION

# %% test describe points=2
import torch
from course.checks import check_equal, check_shape, check_true, check_type, passed


def check_description(found, expected, what):
    """Compare describe's dict with the expected one key by key, so a failure names the key."""
    check_type(found, dict, what=what)
    check_true(
        set(found) == set(expected),
        f"Expected {what} to have exactly the keys {sorted(expected)}, but found the keys {sorted(map(repr, found))}.",
    )
    for key, value in expected.items():
        if key == "shape":
            check_shape(found[key], value, what=f'the "shape" entry of {what}')
        else:
            check_equal(found[key], value, what=f'the "{key}" entry of {what}')


check_description(
    describe(torch.zeros(2, 3)),
    {"shape": (2, 3), "dtype": "float32", "device": "cpu", "requires_grad": False},
    "describe(torch.zeros(2, 3))",
)
passed("describe")
### BEGIN HIDDEN TESTS
from course.device import test_devices

check_description(
    describe(torch.ones(4, dtype=torch.int64)),
    {"shape": (4,), "dtype": "int64", "device": "cpu", "requires_grad": False},
    "describe of an int64 vector",
)
check_description(
    describe(torch.tensor(1.5, dtype=torch.float64, requires_grad=True)),
    {"shape": (), "dtype": "float64", "device": "cpu", "requires_grad": True},
    "describe of a 0-d float64 tensor that requires grad",
)
check_description(
    describe(torch.zeros(0, 3, dtype=torch.bool)),
    {"shape": (0, 3), "dtype": "bool", "device": "cpu", "requires_grad": False},
    "describe of an empty (0, 3) bool tensor",
)
check_description(
    describe(torch.ones(2, 5, requires_grad=True).t()),
    {"shape": (5, 2), "dtype": "float32", "device": "cpu", "requires_grad": True},
    "describe of a transposed tensor computed from one that requires grad",
)
check_description(
    describe(torch.zeros(3, dtype=torch.uint8)),
    {"shape": (3,), "dtype": "uint8", "device": "cpu", "requires_grad": False},
    "describe of a uint8 vector",
)
for dev in test_devices(meta=True):
    sample = torch.zeros(3, 1, dtype=torch.float16, device=dev)
    check_description(
        describe(sample),
        {"shape": (3, 1), "dtype": "float16", "device": str(sample.device), "requires_grad": False},
        f"describe of a float16 tensor on {sample.device}",
    )
    sample = torch.zeros(2, 3, 4, 5, device=dev, requires_grad=True)
    check_description(
        describe(sample),
        {"shape": (2, 3, 4, 5), "dtype": "float32", "device": str(sample.device), "requires_grad": True},
        f"describe of a (2, 3, 4, 5) tensor on {sample.device} that requires grad",
    )
### END HIDDEN TESTS

# %% [markdown]
# ## Creating tensors: zeros, ones, randn
#
# Besides `torch.tensor(data)`, a few factory functions make tensors of a given shape. You pass the
# sizes one by one or as a tuple, and can add `dtype=` and `device=`:
#
# - `torch.zeros(2, 3)` and `torch.ones(2, 3)`: filled with 0 or 1, the usual start for a buffer or a
#   bias;
# - `torch.randn(2, 3)`: random numbers from a standard normal distribution, a common start for a
#   weight matrix you make by hand (set `torch.manual_seed` to get the same numbers each run);
# - `torch.full((2, 3), 7.0)`, `torch.arange(6)`, and the `_like` versions (`torch.zeros_like(t)`),
#   which copy the shape, dtype and device of another tensor.

# %%
print(torch.zeros(2, 3))
print(torch.ones(2, 3, dtype=torch.int64))
print(torch.randn(2, 3))
print(torch.full((2, 3), 7.0))
print(torch.arange(6).reshape(2, 3))
template = torch.randn(4, 5, device=device)
print(torch.zeros_like(template).shape, torch.zeros_like(template).device)

# %% [markdown]
# ## Indexing, slicing and boolean masks
#
# Indexing was modelled on NumPy's, so what you know carries over: `x[0]` is the first row,
# `x[1:3]` rows 1 and 2, `x[:, 0]` the first column, `x[[0, 2]]` rows 0 and 2, and `x[x > 5]` the
# elements where a condition holds (a **boolean mask**, itself a tensor of `True`/`False` with `x`'s
# shape). Each integer index removes one dimension; a slice keeps it.

# %%
x = torch.arange(12).reshape(3, 4)
print(x)
print("x[0]       ", x[0], "shape", tuple(x[0].shape))
print("x[1:3]     ", x[1:3].tolist(), "shape", tuple(x[1:3].shape))
print("x[:, 0]    ", x[:, 0], "shape", tuple(x[:, 0].shape))
print("x[:, 0:1]  ", x[:, 0:1].tolist(), "shape", tuple(x[:, 0:1].shape))
print("x[[0, 2]]  ", x[[0, 2]].tolist())
mask = x > 5
print("mask\n", mask)
print("x[mask]    ", x[mask])

# %% [markdown]
# ### Quiz: the shape after indexing
#
# `v = torch.zeros(6, 4, 5, 7)`. What is the shape of `v[2, :, 1:4, -1]`? Answer with a tuple of ints.

# %% answer answer_index_shape quiz=rule
# A tuple of ints, for example (1, 2, 3).
answer_index_shape = None
### BEGIN SOLUTION
answer_index_shape = (4, 3)
### END SOLUTION

# %% test answer_index_shape points=1
from course.quiz import check_int_tuple, form_checked

check_int_tuple(answer_index_shape, name="answer_index_shape")
form_checked("answer_index_shape")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_index_shape, (4, 3), name="answer_index_shape",
          why="Each integer index (2, and -1 for the last column) removes its dimension; the slice : keeps all 4 "
              "entries and 1:4 keeps 3 of the 5 rows, so two dimensions are left: (4, 3).")
### END HIDDEN TESTS

# %% [markdown]
# As in NumPy, a slice is a *view*: it shares memory with the tensor it came from, so writing into
# the slice writes into the original. A mask works for assignment too. Use `.clone()` when you want
# an independent copy.
#
# Two spellings that look alike differ here. `row += 1` (like `row.add_(1)`) changes `row`'s own
# entries **in place**, so through a view it changes the original too. `row = row + 1` computes a
# new tensor and then points the name `row` at it: the original, and the memory `row` used to
# view, are left as they were.

# %%
y = torch.arange(12).reshape(3, 4)
row = y[1]
row[0] = 100
print("after writing into the slice y[1]:\n", y)
y[y % 2 == 1] = -1
print("after y[y % 2 == 1] = -1:\n", y)
safe = y[0].clone()
safe[:] = 0
print("the clone changed, y[0] did not:", safe.tolist(), y[0].tolist())

z = torch.zeros(2, 3)
first_row = z[0]
first_row += 1
print("after first_row += 1:", z.tolist())
first_row = first_row + 1
print("after first_row = first_row + 1:", z.tolist(), "and first_row is now", first_row.tolist())

# %% [markdown]
# ### Quiz: writing through a column
#
# ```python
# grid = torch.zeros(2, 3)
# col = grid[:, 1]
# col += 5
# total = grid.sum()
# ```
#
# What is `total`?
#
# - **A.** `tensor(0.)`
# - **B.** `tensor(5.)`
# - **C.** `tensor(30.)`
# - **D.** `tensor(10.)`

# %% answer answer_slice_view quiz=rule
# One upper-case letter as a string, for example "A".
answer_slice_view = None
### BEGIN SOLUTION
answer_slice_view = "D"
### END SOLUTION

# %% test answer_slice_view points=1
from course.quiz import check_choice, form_checked

check_choice(answer_slice_view, "ABCD", name="answer_slice_view")
form_checked("answer_slice_view")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_slice_view, "D", name="answer_slice_view",
          why="grid[:, 1] is a view of column 1: two entries (one per row) in grid's own memory. col += 5 "
              "writes 5 into each of them in place, so grid holds two 5s and sums to 10 (not 0: col is no copy; "
              "not 30: only column 1 is written).")
### END HIDDEN TESTS

# %% [markdown]
# ## The (batch, channels, height, width) layout
#
# Image models in PyTorch work on a batch of images: one rank-4 tensor laid out as
# `(batch, channels, height, width)`, often written `(B, C, H, W)` or "channels first". (A layer
# such as `nn.Conv2d` also takes a single image of rank 3, `(C, H, W)`, but training and inference
# run on batches.) A batch of 16
# RGB images of 48x64 pixels (48 rows, 64 columns) has shape `(16, 3, 48, 64)`: `x[i]` is image `i`, `x[i, 0]` its red
# channel, and `x[i, c, h, w]` one number, the brightness of channel `c` at row `h`, column `w`.
#
# The picture below draws every number of a small batch of shape `(2, 3, 4, 5)` as a box.

# %%
batch_layout()

# %%
images = torch.zeros(2, 3, 4, 5)
images[1, 0, 2, 3] = 1.0
print("one image:", tuple(images[1].shape), "  its red channel:", tuple(images[1, 0].shape))
print("the red channel of every image:", tuple(images[:, 0].shape))
print("the yellow box of the picture:", images[1, 0, 2, 3].item())

# %% [markdown]
# Image files and NumPy-based libraries usually give you one image as `(height, width, channels)`
# ("channels last"). To feed it to a model, move the channel axis to the front with `permute`, then
# add the batch axis with `unsqueeze(0)` (or stack several images with `torch.stack`). Lesson {05_shapes}
# covers these shape operations in depth. (Here "channels last" is about the *shape*. PyTorch also
# has a `torch.channels_last` memory format, which keeps the `(B, C, H, W)` shape and only stores the
# numbers in another order; it is a speed setting, not a layout you index differently.)

# %%
photo = np.random.default_rng(0).integers(0, 256, size=(4, 5, 3), dtype=np.uint8)
chw = torch.from_numpy(photo).permute(2, 0, 1)
one_image_batch = chw.unsqueeze(0)
two_image_batch = torch.stack([chw, chw])
print("from the file  (H, W, C):   ", photo.shape)
print("channels first (C, H, W):   ", tuple(chw.shape))
print("a batch of one (B, C, H, W):", tuple(one_image_batch.shape))
print("a batch of two (B, C, H, W):", tuple(two_image_batch.shape))

# %% [markdown]
# ### Your turn: `make_image_batch`
#
# **To write:** `make_image_batch(batch_size, channels=3, height=224, width=224)` returns a float32
# batch of zeros of that shape, and refuses sizes below 1.
#
# Return a zero tensor (float32, on the CPU, not requiring grad) of shape
# `(batch_size, channels, height, width)`, with 3 channels of 224x224 pixels by default. Any size
# below 1 is a mistake: raise `ValueError` with a message that says which one.

# %% answer make_image_batch
def make_image_batch(batch_size, channels=3, height=224, width=224):
    """A float32 zero tensor of shape (batch_size, channels, height, width) on the CPU."""
    ### BEGIN SOLUTION
    sizes = {"batch_size": batch_size, "channels": channels, "height": height, "width": width}
    for name, size in sizes.items():
        if size < 1:
            raise ValueError(f"{name} must be at least 1, got {size}")
    return torch.zeros(batch_size, channels, height, width, dtype=torch.float32)
    ### END SOLUTION

# %% test make_image_batch points=2
import torch
from course.checks import check_raises, check_tensor, passed

check_tensor(make_image_batch(2, 3, 4, 5), torch.zeros(2, 3, 4, 5), what="make_image_batch(2, 3, 4, 5)", requires_grad=False)
check_tensor(make_image_batch(1), torch.zeros(1, 3, 224, 224), what="make_image_batch(1) with the default sizes")
check_raises(ValueError, make_image_batch, 0, what="make_image_batch(0)")
passed("make_image_batch")
### BEGIN HIDDEN TESTS
check_tensor(make_image_batch(4, channels=1, height=2, width=3), torch.zeros(4, 1, 2, 3), what="make_image_batch(4, channels=1, height=2, width=3)", requires_grad=False)
check_tensor(make_image_batch(3, height=1, width=1), torch.zeros(3, 3, 1, 1), what="make_image_batch(3, height=1, width=1)", requires_grad=False)
check_raises(ValueError, make_image_batch, -3, what="make_image_batch(-3)")
check_raises(ValueError, make_image_batch, 2, 0, 4, 4, what="make_image_batch with channels=0")
check_raises(ValueError, make_image_batch, 2, 3, -1, 4, what="make_image_batch with height=-1")
check_raises(ValueError, make_image_batch, 2, 3, 4, 0, what="make_image_batch with width=0")
check_raises(ValueError, make_image_batch, 2, width=0, what="make_image_batch(2, width=0)")
check_raises(ValueError, make_image_batch, 2, channels=-2, what="make_image_batch(2, channels=-2)")
check_tensor(make_image_batch(1, 2, 7, 1), torch.zeros(1, 2, 7, 1), what="make_image_batch(1, 2, 7, 1)", requires_grad=False)
### END HIDDEN TESTS

# %% [markdown]
# ### Quiz: the shape of a batch
#
# What is the shape of a batch of 32 RGB images of 224x224 pixels, in PyTorch's layout?
# Answer with a tuple of ints.

# %% answer answer_batch_shape quiz=recall
# A tuple of ints, for example (1, 2, 3).
answer_batch_shape = None
### BEGIN SOLUTION
answer_batch_shape = (32, 3, 224, 224)
### END SOLUTION

# %% test answer_batch_shape points=1
from course.quiz import check_int_tuple, form_checked

check_int_tuple(answer_batch_shape, name="answer_batch_shape", length=4)
form_checked("answer_batch_shape")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_batch_shape, (32, 3, 224, 224), name="answer_batch_shape",
          why="PyTorch puts the batch first, then channels, then height and width: (32, 3, 224, 224).")
### END HIDDEN TESTS

# %% [markdown]
# ## Putting it together: a batch from images of different sizes
#
# `torch.stack` joins tensors of one shape along a new dimension (the first one, unless you pass
# `dim`), and refuses tensors of different shapes. Real data is rarely that tidy: scanned digits, crops and photos come in many
# sizes. The usual way out is **padding**: make a zero tensor big enough for the largest item, copy
# each item into one corner of it with a slice assignment, and keep a **mask**, a bool tensor that
# is `True` where an entry is real data and `False` where it is padding, so that later steps (an
# average, a loss) can leave the padding out.
#
# Here is the idea for number sequences of different lengths, padded into a `(N, L)` batch. Two
# details matter. A slice assignment converts the values to the dtype of the tensor written into,
# so the int sequences land in a float32 batch. And the mask comes from the lengths, not from
# `padded != 0`: a real value can be 0 too, like the last number of the second sequence.

# %%
sequences = [torch.tensor([3, 1, 4]), torch.tensor([1, 0]), torch.tensor([9, 2, 6, 5])]
try:
    torch.stack(sequences)
except RuntimeError as err:
    print("RuntimeError:", err)

longest = max(len(seq) for seq in sequences)
padded = torch.zeros(len(sequences), longest, dtype=torch.float32, device=sequences[0].device)
real = torch.zeros(len(sequences), longest, dtype=torch.bool, device=sequences[0].device)
for i, seq in enumerate(sequences):
    padded[i, : len(seq)] = seq
    real[i, : len(seq)] = True
print(padded)
print(real)
print("mean of the real entries of each row:", padded.sum(dim=1) / real.sum(dim=1))

# %% [markdown]
# ### Your turn: `pad_images`
#
# **To write:** `pad_images(images)` pads 2-D images of different sizes into one float32 batch
# `(N, 1, H, W)`, with a bool mask of the real pixels.
#
# `images` is a list of grayscale images, each a 2-D tensor of shape `(H_i, W_i)` with at least
# one row and one column; the sizes differ. All the images of one list share one dtype (any of
# them: `uint8`, `int64`, `bool`, `float64`, ...) and one device. Return a pair `(batch, mask)`:
#
# - `batch`: a `float32` tensor of shape `(N, 1, H, W)` in the `(batch, channels, height, width)`
#   layout, where `N` is the number of images and `H` and `W` are the largest height and the
#   largest width in the list (they may come from different images). Image `i` fills the top-left
#   corner of `batch[i, 0]` (its first `H_i` rows and `W_i` columns), with its values converted to
#   float; every other entry is 0.
# - `mask`: a `bool` tensor of shape `(N, H, W)` (no channel dimension), `True` exactly where image
#   `i` has a pixel, whatever that pixel's value (a black pixel, 0, is still a pixel).
#
# Both live on the images' device (the tests use `meta` images too). An empty list raises
# `ValueError`: there is no size to pad to. Leave the images unchanged.

# %% answer pad_images
def pad_images(images):
    """Zero-pad 2-D images into a float32 (N, 1, H, W) batch, with a bool (N, H, W) mask of real pixels."""
    ### BEGIN SOLUTION
    if len(images) == 0:
        raise ValueError("pad_images needs at least one image")
    height = max(image.shape[0] for image in images)
    width = max(image.shape[1] for image in images)
    device = images[0].device
    batch = torch.zeros(len(images), 1, height, width, dtype=torch.float32, device=device)
    mask = torch.zeros(len(images), height, width, dtype=torch.bool, device=device)
    for i, image in enumerate(images):
        rows, cols = image.shape
        batch[i, 0, :rows, :cols] = image
        mask[i, :rows, :cols] = True
    return batch, mask
    ### END SOLUTION

# %% test pad_images points=2
import torch
from course.checks import check_raises, check_tensor, check_true, passed


def padded_pair(result, what):
    """The (batch, mask) pair, or a message that says what came back instead."""
    check_true(
        isinstance(result, (tuple, list)) and len(result) == 2,
        f"Expected {what} to return a pair (batch, mask), but found {type(result).__name__}: {result!r:.150}.",
    )
    return result


small = [torch.tensor([[1, 2], [0, 4]], dtype=torch.uint8), torch.tensor([[5, 6, 7]], dtype=torch.uint8)]
batch, mask = padded_pair(pad_images(small), "pad_images(two uint8 images)")
check_tensor(batch, torch.tensor([[[[1.0, 2.0, 0.0], [0.0, 4.0, 0.0]]], [[[5.0, 6.0, 7.0], [0.0, 0.0, 0.0]]]]),
             what="the batch from pad_images([(2, 2) image, (1, 3) image])")
check_tensor(mask, torch.tensor([[[True, True, False], [True, True, False]], [[True, True, True], [False, False, False]]]),
             what="the mask from pad_images([(2, 2) image, (1, 3) image]) (True at every real pixel, the black 0 at [0, 1, 0] included)")
passed("pad_images")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from course.probes.core import call_watching_inputs


def expected_pair(images):
    tallest = max(img.shape[0] for img in images)
    widest = max(img.shape[1] for img in images)
    want = torch.zeros(len(images), 1, tallest, widest)
    real = torch.zeros(len(images), tallest, widest, dtype=torch.bool)
    for k, img in enumerate(images):
        rows, cols = img.shape
        want[k, 0, :rows, :cols] = img.double()
        real[k, :rows, :cols] = True
    return want, real


def check_padding(images, what):
    batch, mask = padded_pair(pad_images(images), what)
    want_batch, want_mask = expected_pair(images)
    check_tensor(batch, want_batch, what=f"the batch from {what}")
    check_tensor(mask, want_mask, what=f"the mask from {what}")


check_padding([torch.arange(6).reshape(2, 3)], "pad_images of a single (2, 3) int64 image (nothing to pad)")
check_padding([torch.zeros(2, 2, dtype=torch.uint8), torch.zeros(3, 1, dtype=torch.uint8)],
              "pad_images of all-black images (the mask still marks every real pixel)")
check_padding([torch.ones(4, 1, dtype=torch.float64) * 0.25, torch.ones(1, 5, dtype=torch.float64) * -1.5],
              "pad_images of float64 images, the tallest not the widest (H from one image, W from the other)")
check_padding([torch.tensor([[True, False]]), torch.tensor([[False], [True]])], "pad_images of bool images")
check_padding([torch.arange(12, dtype=torch.int32).reshape(3, 4).t(), torch.full((1, 1), 200, dtype=torch.int32)],
              "pad_images with a transposed (non-contiguous) int32 image")
generator = torch.Generator().manual_seed(3)
sizes = [(5, 2), (1, 1), (3, 7), (6, 6), (2, 4)]
pixels = [torch.randint(0, 256, size, generator=generator, dtype=torch.uint8) for size in sizes]
check_padding(pixels, "pad_images of five uint8 images of sizes " + ", ".join(map(str, sizes)))
check_raises(ValueError, pad_images, [], what="pad_images([]) (an empty list)")
on_cpu = [torch.full((2, 5), 9, dtype=torch.uint8), torch.full((4, 3), 7, dtype=torch.uint8)]
want_batch, want_mask = expected_pair(on_cpu)
for dev in test_devices(meta=True):
    batch, mask = padded_pair(pad_images([image.to(dev) for image in on_cpu]), f"pad_images of images on {dev}")
    check_tensor(batch, want_batch.to(dev), what=f"the batch from pad_images of (2, 5) and (4, 3) images on {dev}")
    check_tensor(mask, want_mask.to(dev), what=f"the mask from pad_images of (2, 5) and (4, 3) images on {dev}")
images = [torch.tensor([[1.0, 2.0]]), torch.tensor([[3.0], [4.0]])]
result, changed = call_watching_inputs(pad_images, images)
check_true(changed == [],
           "Expected pad_images to leave the list of images and the images in it unchanged (measured in your "
           "process), but it changed them: write into the new batch, not into the images.")
batch, mask = padded_pair(result, "pad_images([(1, 2) image, (2, 1) image])")
check_tensor(batch, torch.tensor([[[[1.0, 2.0], [0.0, 0.0]]], [[[3.0, 0.0], [4.0, 0.0]]]]),
             what="the batch from pad_images([(1, 2) image, (2, 1) image])")
### END HIDDEN TESTS

# %% [markdown]
# ## From NumPy: negative strides and the fix
#
# Data often starts life as a NumPy array. `torch.from_numpy(a)` wraps the array's memory as a
# tensor without copying it (lesson {04_numpy} is about that sharing), and `torch.tensor(a)` copies it. The
# array both of them refuse most often is a view with a **negative stride**. (They also refuse arrays
# whose bytes are in the other byte order, such as a `>f8` array read from a file written on another
# kind of machine, and dtypes that have no tensor dtype, such as `np.longdouble`; `arr.astype(np.float64)`
# fixes both.)
#
# A *stride* is how far to step in memory to reach the next element along a dimension. NumPy
# reverses an axis for free by keeping the same memory and walking it backwards, with a negative
# stride: that is what `a[::-1]`, `np.flip(a)` and the common "BGR to RGB" trick `img[..., ::-1]`
# give you. PyTorch tensors only support strides of zero or more, so a tensor cannot describe such a
# view, and `from_numpy`, which promises not to copy, has no way out: it raises a `ValueError`.
# (`torch.tensor` refuses the same views.) For the same reason `t[::-1]` does not work on a tensor.

# %%
a = np.arange(6, dtype=np.int16).reshape(2, 3)
flipped = a[:, ::-1]
print("strides in bytes: a", a.strides, "  flipped", flipped.strides)
try:
    torch.from_numpy(flipped)
except ValueError as err:
    print("ValueError:", err)
try:
    torch.arange(5)[::-1]
except ValueError as err:
    print("and on a tensor, t[::-1] raises ValueError:", err)

# %% [markdown]
# The fix is to make a fresh array with ordinary strides first: `flipped.copy()`. A copy is laid
# out anew, row after row, so its strides are never negative, whatever the view looked like. The
# copy no longer shares memory with the original, which is usually what you want anyway. On the
# tensor side, `torch.flip(t, dims=...)` reverses an axis by copying.
#
# You may see `np.ascontiguousarray(flipped)` offered as the fix. Do not rely on it: it only copies
# when NumPy does not already count the array as contiguous, and a reversed axis of size 1 does not
# stop an array from counting as contiguous. So `np.zeros((1, 10, 20))[::-1]` comes back unchanged,
# negative stride and all, and `from_numpy` still refuses it. It also turns a 0-d array into a
# 1-element 1-D one.

# %%
fixed = torch.from_numpy(flipped.copy())
print(fixed, fixed.shape, fixed.stride())
print("torch.flip:", torch.flip(torch.arange(5), dims=[0]))

one_image = np.zeros((1, 10, 20))[::-1]
print("strides of np.zeros((1, 10, 20))[::-1]:       ", one_image.strides)
print("after np.ascontiguousarray, still:           ", np.ascontiguousarray(one_image).strides)
print("after .copy():                               ", one_image.copy().strides)
print("0-d array, shape after .copy():", np.array(7.0).copy().shape,
      "  after np.ascontiguousarray:", np.ascontiguousarray(np.array(7.0)).shape)

# %% [markdown]
# Other views are fine as they are: a transposed array, a slice with a positive step (`a[::2]`), or
# a broadcast array all have strides of zero or more, and `from_numpy` accepts them.

# %%
print(torch.from_numpy(a.T).shape, torch.from_numpy(a[:, ::2]).shape)

# %% [markdown]
# ### Your turn: `numpy_to_tensor_shape`
#
# **To write:** `numpy_to_tensor_shape(arr)` makes a tensor from any NumPy array, reversed views
# included, and returns its shape.
#
# Make a tensor from the NumPy array `arr` and return its shape (a tuple of ints; a `torch.Size`
# counts). It must work for every numeric or bool dtype that PyTorch has a tensor dtype for (the
# tests use native byte order), every rank (a 0-d array too), empty arrays
# such as shape `(0, 3)`, non-contiguous views, and negative-stride views such as `img[..., ::-1]`.
# Leave `arr` itself unchanged.

# %% answer numpy_to_tensor_shape
def numpy_to_tensor_shape(arr):
    """Make a tensor from the NumPy array `arr` and return its shape as a tuple of ints."""
    ### BEGIN SOLUTION
    return tuple(torch.from_numpy(arr.copy()).shape)
    ### END SOLUTION

# %% test numpy_to_tensor_shape points=2
import numpy as np
from course.checks import check_shape, passed

check_shape(numpy_to_tensor_shape(np.zeros((2, 3))), (2, 3), what="the shape of a tensor made from np.zeros((2, 3))")
check_shape(numpy_to_tensor_shape(np.arange(5)), (5,), what="the shape of a tensor made from np.arange(5)")
check_shape(numpy_to_tensor_shape(np.arange(6).reshape(2, 3)[:, ::-1]), (2, 3), what="the shape for the flipped view a[:, ::-1]")
passed("numpy_to_tensor_shape")
### BEGIN HIDDEN TESTS
from course.checks import check_true
from course.probes.core import call_watching_inputs

check_shape(numpy_to_tensor_shape(np.array(7.0)), (), what="the shape of a 0-d array's tensor")
check_shape(numpy_to_tensor_shape(np.array(True)), (), what="the shape of a 0-d bool array's tensor")
check_shape(numpy_to_tensor_shape(np.zeros((0, 3))), (0, 3), what="the shape of an empty (0, 3) array's tensor")
check_shape(numpy_to_tensor_shape(np.zeros((2, 0, 5), dtype=np.int32)), (2, 0, 5), what="the shape of an empty (2, 0, 5) array's tensor")
check_shape(numpy_to_tensor_shape(np.zeros((1, 3, 1))), (1, 3, 1), what="the shape of a (1, 3, 1) array's tensor (sizes of 1 are dimensions too)")
check_shape(numpy_to_tensor_shape(np.ones((4, 5, 6), dtype=bool)), (4, 5, 6), what="the shape of a bool array's tensor")
for dtype in (np.uint8, np.int8, np.int16, np.int32, np.int64, np.uint16, np.float16, np.float32, np.complex64):
    check_shape(numpy_to_tensor_shape(np.ones((2, 2), dtype=dtype)), (2, 2), what=f"the shape of a {np.dtype(dtype).name} array's tensor")
pixels = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
check_shape(numpy_to_tensor_shape(pixels[..., ::-1]), (2, 3, 4), what="the shape for a negative-stride view img[..., ::-1]")
check_shape(numpy_to_tensor_shape(np.flip(pixels, axis=0)), (2, 3, 4), what="the shape for np.flip(img, axis=0)")
check_shape(numpy_to_tensor_shape(np.arange(5.0)[::-1]), (5,), what="the shape for a reversed vector a[::-1]")
check_shape(numpy_to_tensor_shape(pixels[::-1, :, ::-2]), (2, 3, 2), what="the shape for a view with two negative strides")
check_shape(numpy_to_tensor_shape(np.zeros((1, 10, 20))[::-1]), (1, 10, 20), what="the shape for np.zeros((1, 10, 20))[::-1] (a reversed axis of size 1)")
check_shape(numpy_to_tensor_shape(np.zeros((3, 1), dtype=np.float32)[:, ::-1]), (3, 1), what="the shape for a (3, 1) array with its axis of size 1 reversed")
check_shape(numpy_to_tensor_shape(pixels.transpose(2, 0, 1)), (4, 2, 3), what="the shape for a transposed (non-contiguous) view")
check_shape(numpy_to_tensor_shape(np.arange(10)[::2]), (5,), what="the shape for a strided view a[::2]")
check_shape(numpy_to_tensor_shape(np.broadcast_to(np.arange(3), (4, 3))), (4, 3), what="the shape for a read-only broadcast view")
for source, name in ((pixels[:, ::-1], "the flipped uint8 view img[:, ::-1]"), (np.arange(6.0).reshape(2, 3).T, "a transposed float64 array")):
    result, changed = call_watching_inputs(numpy_to_tensor_shape, source)
    check_true(changed == [],
               f"Expected numpy_to_tensor_shape to leave its input, {name}, unchanged (same values, dtype and shape; measured "
               "in your process), but it changed it: copy the array instead of writing into it.")
    check_shape(result, source.shape, what=f"the shape for {name}")
### END HIDDEN TESTS

# %% [markdown]
# ## Common mistakes
#
# ### Confusing arrays
#
# Two opposite errors. One is to treat tensors as something entirely new and unlearn NumPy: most of
# what you know (indexing, slicing, masks, broadcasting, `@`, `.sum()`) works the same. The other is
# to treat them as the same type: PyTorch functions want tensors, the default float dtypes differ,
# and some NumPy habits (a negative step) do not carry over.

# %%
arr = np.array([0.0, 1.0])
try:
    torch.exp(arr)
except TypeError as err:
    print("TypeError:", err)
print("convert first:", torch.exp(torch.from_numpy(arr)))
print("default float dtypes differ:", np.array([1.0]).dtype, "vs", torch.tensor([1.0]).dtype)

# %% [markdown]
# ### Misunderstanding dimensions
#
# Treating shapes casually is the most common source of errors in a network. Typical slips:
#
# - feeding an image as `(height, width, channels)` where a layer expects `(channels, height, width)`;
# - forgetting the batch dimension: one image is `(3, H, W)`, a batch of one is `(1, 3, H, W)`;
# - taking `len(t)` for the rank: it is the size of the first dimension (and fails on a 0-d tensor);
# - mixing up a 0-d tensor, shape `()`, with a one-element vector, shape `(1,)`;
# - comparing a shape with a list: `torch.Size([2, 3]) == [2, 3]` is `False`; compare with a tuple.
#
# Check shapes before you connect layers. Here a convolution that expects 3 input channels gets a
# channels-last image, and says so:

# %%
conv = torch.nn.Conv2d(in_channels=3, out_channels=8, kernel_size=3)
channels_last = torch.rand(32, 32, 3)
try:
    conv(channels_last)
except RuntimeError as err:
    print("RuntimeError:", err)
print("after permute(2, 0, 1):", tuple(conv(channels_last.permute(2, 0, 1)).shape))

v = torch.zeros(5, 2)
print("len(v) =", len(v), "but v.dim() =", v.dim())
print("shape () vs (1,):", torch.tensor(3.0).shape, torch.tensor([3.0]).shape)
print("torch.Size([2, 3]) == [2, 3]:", torch.Size([2, 3]) == [2, 3], "  == (2, 3):", torch.Size([2, 3]) == (2, 3))

# %% [markdown]
# ## Recap
#
# - A tensor is a typed block of numbers with a shape, a dtype, a device and a `requires_grad` flag;
#   it is NumPy's array plus GPU support and gradients, and the only type `torch.nn` accepts.
# - Rank is the number of dimensions (`t.dim()`): 0 a number, 1 a vector, 2 a matrix, 3 one colour
#   image, 4 a batch of images.
# - `t.shape` is a `torch.Size`, a tuple of ints; `tuple(t.shape)` gives a plain tuple.
# - `torch.zeros`, `torch.ones`, `torch.randn` make tensors of a given shape.
# - Indexing, slicing and boolean masks work as in NumPy; slices are views.
# - Image batches are `(batch, channels, height, width)`.
# - `torch.stack` needs tensors of one shape; pad items of different sizes into a zero tensor, and
#   keep a mask of the real entries.
# - `torch.from_numpy` and `torch.tensor` refuse negative-stride views; copy the array first with
#   `.copy()`. They also refuse the other byte order and dtypes without a tensor dtype.
#
# ## Try it
#
# These cells are not graded. Change them and run them again.

# %%
# Predict the shape before you run: what do these index expressions keep?
x = torch.randn(4, 3, 8, 8)
print(x[0].shape, x[:, 1].shape, x[..., 0].shape, x[:2, :, 2:6, 2:6].shape)

# %%
# Draw other batches: try batch=3, channels=1, or mark=(0, 0, 0, 0).
batch_layout(batch=1, channels=3, height=3, width=4, mark=(0, 0, 1, 2))

# %%
# Flip an image upside down in NumPy and make a tensor from it. Remove .copy() to see the error.
img = np.arange(12, dtype=np.uint8).reshape(3, 4)
upside_down = img[::-1]
print(torch.from_numpy(upside_down.copy()))
