# %% [markdown]
# # Lesson 2: data types
#
# Every tensor stores one kind of number, its **dtype**. Most of the time you never think about it,
# and then a layer refuses your data with a message about `Long` and `Float`. This lesson is about
# which dtypes exist, which ones PyTorch picks for you, how NumPy's choices leak in, and how to cast.
#
# **By the end of this lesson you will be able to**
#
# - read a tensor's dtype and say how much memory and precision it buys;
# - predict the dtype PyTorch picks: `float32` for Python floats, `int64` for Python ints;
# - spot NumPy's `float64` arriving through `torch.from_numpy`;
# - cast with `.float()` and `.to(dtype)`, and know what casting does to the values;
# - compute with integer data (a mean of ints) without errors;
# - prepare inputs for `nn.Linear`, which wants floats of its own dtype.
#
# Run the cell below first: it imports what the lesson needs and tells you which device it will use.

# %%
import numpy as np
import torch
from torch import nn

from course.device import describe_setup
from course.pictures.dtype import dtype_table

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(describe_setup(device))

# %% [markdown]
# ## What a dtype is
#
# A tensor's dtype says what kind of number each element is and how many bytes it takes. All the
# elements of a tensor share one dtype, as in NumPy: a list that mixes ints and floats becomes a
# tensor of floats. `t.dtype` tells you the dtype, `t.element_size()` the bytes per element, and
# `t.is_floating_point()` whether it holds floats.

# %%
for values in (7, [1.0, 2.0, 3.0], [1, 2.5, 3], [True, False, True]):
    t = torch.tensor(values)
    print(f"{str(values):<20} -> {str(t):<34} dtype {t.dtype}, bytes per element {t.element_size()}, floats: {t.is_floating_point()}")

# %% [markdown]
# ## The common dtypes
#
# The table lists the dtypes you will meet, read from the installed PyTorch. More bytes buy a wider
# range or more significant digits; fewer bytes save memory and time. Integer dtypes hold whole
# numbers exactly, within their range; float dtypes hold fractions, to a limited number of digits.
#
# PyTorch also has `uint16`, `uint32` and `uint64`, but mostly for storing data: most arithmetic is
# not implemented for them (`torch.zeros(3, dtype=torch.uint32) + 1` raises), so cast them to `int64`
# before you compute.

# %%
dtype_table()

# %% [markdown]
# Memory is the price of a wider dtype: a million numbers take 4 MB as `float32` and twice as much
# as `float64`. On a GPU, memory is usually what runs out first.

# %%
for dtype in (torch.uint8, torch.float16, torch.float32, torch.float64):
    block = torch.zeros(1_000_000, dtype=dtype)
    print(f"{str(dtype):<14} {block.element_size()} bytes x 1,000,000 = {block.nbytes / 1e6:.0f} MB")

# %% [markdown]
# ## The defaults: float32 and int64
#
# When you do not say which dtype you want, PyTorch decides:
#
# - Python floats become `float32`, PyTorch's *default dtype* (`torch.get_default_dtype()`);
# - Python ints become `int64`;
# - Python bools become `bool`;
# - `torch.zeros`, `torch.ones`, `torch.randn` and `torch.linspace` make `float32`;
# - `torch.arange(5)` follows its arguments: `int64` for ints, `float32` for `torch.arange(5.0)`;
#   `torch.full` follows its fill value in the same way (`torch.full((2, 3), 7)` is `int64`);
# - `torch.randint` and `torch.randperm` make `int64`: they draw whole numbers.
#
# Deep learning keeps its weights in `float32` by default because it has enough digits for learning,
# takes half the memory of `float64`, and GPUs compute it fast. Many training scripts go further and
# compute in a 16-bit float (`bfloat16` or `float16`, "mixed precision") where that is safe, keeping
# `float32` where precision matters. Integers default to `int64` so that indices and counts do
# not overflow in practice: an `int32` stops a little above two billion, an `int64` above nine
# quintillion. You can always ask for a dtype with `dtype=`.

# %%
print("default dtype:        ", torch.get_default_dtype())
print("torch.tensor(7):      ", torch.tensor(7).dtype)
print("torch.tensor([1., 2]):", torch.tensor([1.0, 2]).dtype)
print("torch.zeros(2):       ", torch.zeros(2).dtype, "  torch.randn(2):", torch.randn(2).dtype)
print("torch.arange(5):      ", torch.arange(5).dtype, "  torch.arange(5.0):", torch.arange(5.0).dtype)
print("torch.full((2, 3), 7):", torch.full((2, 3), 7).dtype, "  torch.randint(0, 9, (2,)):", torch.randint(0, 9, (2,)).dtype)
print("asked for:            ", torch.tensor([1, 2], dtype=torch.float32).dtype, torch.zeros(2, dtype=torch.int32).dtype)

# %% [markdown]
# ### Quiz: the dtype of a tensor of ints
#
# What is the dtype of `torch.tensor([1, 2, 3])`?
#
# - **A.** `torch.float32`
# - **B.** `torch.int32`
# - **C.** `torch.int64`
# - **D.** `torch.uint8`

# %% answer answer_int_dtype quiz=recall
# One upper-case letter as a string, for example "A".
answer_int_dtype = None
### BEGIN SOLUTION
answer_int_dtype = "C"
### END SOLUTION

# %% test answer_int_dtype points=1
from course.quiz import check_choice, form_checked

check_choice(answer_int_dtype, "ABCD", name="answer_int_dtype")
form_checked("answer_int_dtype")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_int_dtype, "C", name="answer_int_dtype",
          why="Python ints become int64 in PyTorch; the float32 default only applies to Python floats, and PyTorch never shrinks a dtype to fit the values.")
### END HIDDEN TESTS

# %% [markdown]
# ## NumPy's float64 crosses over
#
# NumPy's default float is `float64`, not `float32`. `torch.from_numpy(a)` keeps the array's dtype,
# because the tensor it returns uses the array's own memory (lesson {04_numpy}): it cannot change a single
# byte. `torch.tensor(a)` copies, but keeps the dtype too. So data prepared with NumPy (or pandas,
# which sits on it) arrives as `float64`, and integer columns as `int64`.

# %%
a = np.linspace(0.0, 1.0, 3)
print("NumPy's own float:    ", a.dtype, "  NumPy's own int:", np.arange(3).dtype)
small = np.array([0.5, 1.5], dtype=np.float32)
print("a float32 array:      ", torch.from_numpy(small).dtype, "(from_numpy)", torch.tensor(small).dtype, "(torch.tensor)")
print("an int16 array:       ", torch.from_numpy(np.array([1, 2], dtype=np.int16)).dtype)
print("torch.tensor([1.0]):  ", torch.tensor([1.0]).dtype, "(from a Python list: the default)")

# %% [markdown]
# A `float64` tensor does not stay alone: in arithmetic with a `float32` tensor of features or
# weights, the result is `float64` too (between two tensors that have dimensions, the `float64`
# wins; "Arithmetic with mixed dtypes" below has the full rule and its surprises). That doubles
# the memory of everything computed after it, and in a layer it stops with an error (see "Casting
# for `nn.Linear`" below).

# %%
weights = torch.randn(3)
features = torch.from_numpy(np.array([0.5, 1.5, 2.5]))
print("float32 weights * float64 features ->", (weights * features).dtype)

# %% [markdown]
# ### Quiz: a NumPy float array in PyTorch
#
# With `a = np.array([1.0, 2.0])`, what is the dtype of `torch.from_numpy(a)`?
#
# - **A.** `torch.float32`
# - **B.** `torch.float16`
# - **C.** `from_numpy` raises an error
# - **D.** `torch.float64`

# %% answer answer_numpy_float_dtype quiz=recall
# One upper-case letter as a string, for example "A".
answer_numpy_float_dtype = None
### BEGIN SOLUTION
answer_numpy_float_dtype = "D"
### END SOLUTION

# %% test answer_numpy_float_dtype points=1
from course.quiz import check_choice, form_checked

check_choice(answer_numpy_float_dtype, "ABCD", name="answer_numpy_float_dtype")
form_checked("answer_numpy_float_dtype")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_numpy_float_dtype, "D", name="answer_numpy_float_dtype",
          why="NumPy makes float64 arrays by default, and from_numpy shares the array's memory, so the tensor keeps float64; cast with .float() for a model.")
### END HIDDEN TESTS

# %% [markdown]
# ## Casting: `.float()` and `.to(dtype)`
#
# Casting makes a tensor with the same values in another dtype:
#
# - shortcuts: `t.float()` (`float32`), `t.double()` (`float64`), `t.half()` (`float16`),
#   `t.long()` (`int64`), `t.int()` (`int32`), `t.bool()`;
# - the general form: `t.to(torch.float32)`, or `t.to(other.dtype)` to match another tensor;
# - dtype and device in one call: `t.to(device, torch.float32)`;
# - on the NumPy side, before converting: `a.astype(np.float32)`.
#
# A cast returns a **new** tensor and leaves the original as it was, so write `t = t.float()`. (When
# `t` already has the dtype, you get `t` itself back, not a copy.)

# %%
counts = torch.tensor([3, 0, 7])
as_float = counts.float()
print(counts.dtype, "->", as_float.dtype, as_float)
print("the original is unchanged:", counts.dtype)
print("to(torch.float64):", counts.to(torch.float64))
print("matched to the weights:", counts.to(weights.dtype).dtype)
print("dtype and device at once:", counts.to(device, torch.float32))
print("no copy when nothing changes:", as_float.float() is as_float)
print("from NumPy, cast first:", torch.from_numpy(a.astype(np.float32)).dtype)

# %% [markdown]
# Casting changes values when the new dtype cannot hold them:
#
# - float to int drops the fraction, towards zero (`-1.7` becomes `-1`; it does not round);
# - an integer outside the range of a smaller integer dtype wraps around, keeping only the low bits
#   (`300` as `uint8` is `44`, and `-1` is `255`);
# - a *float* outside an integer dtype's range has no defined result: what you get depends on the
#   machine and the device, so clamp first (`x.clamp(0, 255)` before `.to(torch.uint8)`) when the
#   values may not fit;
# - `float32` keeps about 6 significant digits (the table's figure) and holds whole numbers exactly
#   only up to 2**24 = 16,777,216, so larger ints can lose their last digits;
# - anything to `bool` is `True` when it is not zero.

# %%
print(torch.tensor([1.7, -1.7, 2.5]).long())
print(torch.tensor([300, 256, -1]).to(torch.uint8))
print(torch.tensor([312.5, -3.0, 17.9]).clamp(0, 255).to(torch.uint8))
print(torch.tensor([16_777_217, 123_456_789]).float().long())
print(torch.tensor([0.0, 2.0, -0.5]).bool())

# %% [markdown]
# ### Quiz: two casts in a row
#
# What does `torch.tensor([-0.7, 2.5, 260.0]).long().to(torch.uint8)` hold?
#
# - **A.** `[0, 2, 4]`
# - **B.** `[0, 3, 4]`
# - **C.** `[255, 2, 4]`
# - **D.** `[0, 2, 255]`

# %% answer answer_cast_values quiz=rule
# One upper-case letter as a string, for example "A".
answer_cast_values = None
### BEGIN SOLUTION
answer_cast_values = "A"
### END SOLUTION

# %% test answer_cast_values points=1
from course.quiz import check_choice, form_checked

check_choice(answer_cast_values, "ABCD", name="answer_cast_values")
form_checked("answer_cast_values")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_cast_values, "A", name="answer_cast_values",
          why="float to int drops the fraction towards zero (-0.7 becomes 0, 2.5 becomes 2; no rounding, no floor), "
              "and 260 as an int64 is then cast to uint8, which wraps around and keeps the low bits: 260 - 256 = 4 "
              "(an int-to-int cast does not clamp to 255).")
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `to_float32`
#
# **To write:** `to_float32(t)` returns a float32 copy of `t` on `t`'s device, leaving `t` as it
# was.
#
# Return a `float32` tensor with `t`'s values, shape and device. `t` must stay as it was (still its
# old dtype). It must work for bool, integer, `float16` and `float64` tensors, on any device: on
# the CPU, on a GPU, and on the `meta` device, whose tensors have no values to read.

# %% answer to_float32
def to_float32(t):
    """A float32 tensor with `t`'s values, shape and device; `t` keeps its dtype."""
    ### BEGIN SOLUTION
    return t.to(torch.float32)
    ### END SOLUTION

# %% test to_float32 points=2
import torch
from course.checks import check_tensor, passed

check_tensor(to_float32(torch.tensor([1, 2, 3])), torch.tensor([1.0, 2.0, 3.0]), what="to_float32(torch.tensor([1, 2, 3]))")
check_tensor(
    to_float32(torch.tensor([0.5, -2.25], dtype=torch.float64)),
    torch.tensor([0.5, -2.25]),
    what="to_float32 of a float64 tensor",
)
passed("to_float32")
### BEGIN HIDDEN TESTS
from course.checks import check_true
from course.device import test_devices
from course.probes.core import call_watching_inputs

cases = [
    (torch.bool, [True, False, True]),
    (torch.uint8, [0, 7, 255]),
    (torch.int8, [-3, 0, 7]),
    (torch.int16, [-300, 0, 700]),
    (torch.int32, [-70000, 1, 2]),
    (torch.int64, [-5, 0, 16_777_216]),
    (torch.float16, [0.5, -1.25, 1024.0]),
    (torch.float32, [0.1, -2.0, 3.5]),
    (torch.float64, [1 / 3, -2.5, 1e10]),
]
for dev in test_devices(meta=True):
    for dtype, values in cases:
        source = torch.tensor(values, dtype=dtype, device=dev)
        expected = torch.tensor([float(v) for v in values], dtype=torch.float32, device=dev)
        check_tensor(to_float32(source), expected, what=f"to_float32 of a {str(dtype)[6:]} tensor on {dev}")
    check_tensor(to_float32(torch.tensor(7, device=dev)), torch.tensor(7.0, device=dev), what=f"to_float32 of a 0-d int64 tensor on {dev}")
    check_tensor(
        to_float32(torch.zeros(0, 3, dtype=torch.int64, device=dev)),
        torch.zeros(0, 3, device=dev),
        what=f"to_float32 of an empty (0, 3) int64 tensor on {dev}",
    )
    check_tensor(
        to_float32(torch.arange(6, device=dev).reshape(2, 3).t()),
        torch.tensor([[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]], device=dev),
        what=f"to_float32 of a transposed (non-contiguous) int64 tensor on {dev}",
    )
    check_tensor(
        to_float32(torch.full((2, 3, 4, 5), 200, dtype=torch.uint8, device=dev)),
        torch.full((2, 3, 4, 5), 200.0, device=dev),
        what=f"to_float32 of a uint8 image batch on {dev}",
    )
    for source in (
        torch.tensor([1, 2, 3], device=dev),
        torch.tensor([0.25, 0.5], dtype=torch.float64, device=dev, requires_grad=True),
        torch.tensor([True, False], device=dev),
    ):
        old = str(source.dtype)[6:]
        result, changed = call_watching_inputs(to_float32, source)
        check_true(
            changed == [],
            f"Expected to_float32 to leave its {old} input on {dev} unchanged (still {old}, same values), "
            "but it changed it (measured in your process). Return a new tensor instead of changing t.",
        )
    check_tensor(to_float32(torch.tensor([16_777_217])), torch.tensor([16_777_216.0]), what="to_float32 of an int64 too large for float32's digits")
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `features_from_numpy`
#
# **To write:** `features_from_numpy(arr)` returns a float32 tensor with the values and shape of an
# int, bool or float NumPy array.
#
# Data prepared in NumPy often arrives as `int64`, `bool` or `float64` arrays. Return a `float32`
# tensor with `arr`'s values and shape, for any rank (a 0-d array too) and any int, bool or float
# dtype, including the negative-stride views of lesson {01_tensors}, such as `arr[:, ::-1]`. Leave `arr` as it
# was.

# %% answer features_from_numpy
def features_from_numpy(arr):
    """A float32 tensor with the values and shape of the NumPy array `arr`."""
    ### BEGIN SOLUTION
    return torch.from_numpy(arr.astype(np.float32))
    ### END SOLUTION

# %% test features_from_numpy points=2
import numpy as np
import torch
from course.checks import check_tensor, passed

check_tensor(features_from_numpy(np.array([[1, 2], [3, 4]])), torch.tensor([[1.0, 2.0], [3.0, 4.0]]), what="features_from_numpy of an int64 array")
check_tensor(features_from_numpy(np.array([0.5, 1.5])), torch.tensor([0.5, 1.5]), what="features_from_numpy of a float64 array")
check_tensor(features_from_numpy(np.array([1, 2, 3])[::-1]), torch.tensor([3.0, 2.0, 1.0]), what="features_from_numpy of the reversed view a[::-1]")
passed("features_from_numpy")
### BEGIN HIDDEN TESTS
from course.checks import check_true
from course.probes.core import call_watching_inputs

check_tensor(features_from_numpy(np.array(3)), torch.tensor(3.0), what="features_from_numpy of a 0-d int array")
check_tensor(features_from_numpy(np.array(-0.25)), torch.tensor(-0.25), what="features_from_numpy of a 0-d float64 array")
check_tensor(features_from_numpy(np.array([True, False, True])), torch.tensor([1.0, 0.0, 1.0]), what="features_from_numpy of a bool array")
check_tensor(features_from_numpy(np.zeros((0, 4))), torch.zeros(0, 4), what="features_from_numpy of an empty (0, 4) array")
check_tensor(features_from_numpy(np.zeros((3, 0), dtype=np.int64)), torch.zeros(3, 0), what="features_from_numpy of an empty (3, 0) int array")
grid = np.arange(6).reshape(2, 3)
check_tensor(features_from_numpy(grid[:, ::-1]), torch.tensor([[2.0, 1.0, 0.0], [5.0, 4.0, 3.0]]), what="features_from_numpy of the flipped view a[:, ::-1]")
check_tensor(features_from_numpy(np.flip(grid.astype(np.float64), axis=0)), torch.tensor([[3.0, 4.0, 5.0], [0.0, 1.0, 2.0]]), what="features_from_numpy of np.flip(a, axis=0)")
check_tensor(features_from_numpy(grid.T), torch.tensor([[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]), what="features_from_numpy of a transposed (non-contiguous) view")
check_tensor(features_from_numpy(np.arange(8.0)[::-2]), torch.tensor([7.0, 5.0, 3.0, 1.0]), what="features_from_numpy of a view with step -2")
check_tensor(features_from_numpy(np.arange(4).reshape(1, 4)[::-1]), torch.tensor([[0.0, 1.0, 2.0, 3.0]]),
             what="features_from_numpy of a one-row array with its rows reversed (a negative stride on an axis of size 1)")
check_tensor(features_from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3)[:, ::-1]),
             torch.tensor([[2.0, 1.0, 0.0], [5.0, 4.0, 3.0]]),
             what="features_from_numpy of a float32 array's flipped view (already float32, still a negative stride)")
for dtype in (np.uint8, np.int8, np.int16, np.int32, np.int64, np.uint16, np.float16, np.float32, np.float64):
    values = np.array([[0, 1], [2, 100]], dtype=dtype)
    check_tensor(features_from_numpy(values), torch.tensor([[0.0, 1.0], [2.0, 100.0]]), what=f"features_from_numpy of a {np.dtype(dtype).name} array")
check_tensor(
    features_from_numpy(np.full((2, 3, 4, 5), 7, dtype=np.uint8)),
    torch.full((2, 3, 4, 5), 7.0),
    what="features_from_numpy of a uint8 (2, 3, 4, 5) image batch",
)
for source in (grid[:, ::-1], np.array([0.5, 1.5, 2.5]), np.array(True)):
    result, changed = call_watching_inputs(features_from_numpy, source)
    check_true(
        changed == [],
        f"Expected features_from_numpy to leave its {source.dtype} input array unchanged (measured in your process), but it changed it.",
    )
### END HIDDEN TESTS

# %% [markdown]
# ## Arithmetic with mixed dtypes
#
# When an operation mixes dtypes, PyTorch picks the result's dtype by *type promotion*. It sorts
# dtypes into kinds, bool below integers below floats, and it ranks the operands in three tiers:
# tensors with at least one dimension first, then 0-d tensors, then Python numbers.
#
# - Between tensors that have dimensions, the higher kind wins: `int64` with `float32` gives
#   `float32`. Within one kind the result is the smallest dtype that holds both: `float32` with
#   `float64` gives `float64`, `int32` with `int64` gives `int64`. That is usually the wider one,
#   but not always: `uint8` with `int8` gives `int16` (neither holds the other's range), and
#   `float16` with `bfloat16` gives `float32`.
# - A 0-d tensor or a Python number changes the result only when it is of a higher kind than every
#   tensor with dimensions. So `t * 2.5` stays `float32` for a `float32` tensor `t`, and a `float32`
#   vector times a 0-d `float64` tensor stays `float32`. But an `int64` vector times a 0-d
#   `float64` tensor becomes `float64`, and an `int64` tensor plus `0.5` becomes `float32`, the
#   default dtype.
#
# Division `/` always gives floats; `//` keeps ints. `torch.result_type(a, b)` tells you the
# result's dtype in advance.

# %%
ints = torch.tensor([7, 2])
print("int64 + 0.5                 ->", (ints + 0.5).dtype)
print("int64 / int64               ->", (ints / ints).dtype, ints / 2)
print("int64 // 2                  ->", (ints // 2).dtype, ints // 2)
print("float32 * 2.5               ->", (torch.ones(2) * 2.5).dtype)
print("float32 + float64           ->", (torch.ones(2) + torch.ones(2, dtype=torch.float64)).dtype)
print("float32 vector * 0-d float64 ->", (torch.ones(2) * torch.tensor(3.0, dtype=torch.float64)).dtype)
print("int64 vector * 0-d float64  ->", (ints * torch.tensor(3.0, dtype=torch.float64)).dtype)
print("torch.result_type(ints, 2.5):", torch.result_type(ints, 2.5))

# %% [markdown]
# ### Quiz: a half-precision tensor and a 0-d double
#
# `h = torch.ones(4, dtype=torch.float16)` and `s = torch.tensor(0.1, dtype=torch.float64)`, a 0-d tensor.
# What is the dtype of `h * s`?
#
# - **A.** `torch.float64`
# - **B.** `torch.float32`
# - **C.** `torch.float16`
# - **D.** PyTorch raises an error

# %% answer answer_zero_d_promotion quiz=rule
# One upper-case letter as a string, for example "A".
answer_zero_d_promotion = None
### BEGIN SOLUTION
answer_zero_d_promotion = "C"
### END SOLUTION

# %% test answer_zero_d_promotion points=1
from course.quiz import check_choice, form_checked

check_choice(answer_zero_d_promotion, "ABCD", name="answer_zero_d_promotion")
form_checked("answer_zero_d_promotion")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_zero_d_promotion, "C", name="answer_zero_d_promotion",
          why="s is a 0-d tensor, and a 0-d tensor (or a Python number) changes the result only when it is of a higher "
              "kind than every tensor with dimensions. Both are floats, so h's float16 decides: h * s is float16.")
### END HIDDEN TESTS

# %% [markdown]
# ### Integer arithmetic wraps around too
#
# The same rules keep two `uint8` tensors in `uint8`, and a Python int does not widen them either.
# Arithmetic then wraps around exactly like a cast: a pixel of 200 made brighter by 100 becomes 44,
# and 10 - 200 becomes 66, without any error or warning. Image data is the usual victim, since
# pixels arrive as `uint8`. Cast to a dtype that can hold every intermediate result (`int16`,
# `int32` or `float32`) before you compute, and come back at the end if you need to.

# %%
pixels = torch.tensor([10, 200, 250], dtype=torch.uint8)
print("pixels + 100, in uint8:   ", pixels + 100)
print("10 - 200, in uint8:       ", torch.tensor(10, dtype=torch.uint8) - torch.tensor(200, dtype=torch.uint8))
brighter = (pixels.to(torch.int16) + 100).clamp(max=255).to(torch.uint8)
print("through int16, clamped:   ", brighter)

# %% [markdown]
# ### Quiz: a mean after the wrap
#
# ```python
# x = torch.tensor([250, 10], dtype=torch.uint8)
# m = (x + x).float().mean()
# ```
#
# What is `m`?
#
# - **A.** `tensor(260.)`
# - **B.** `tensor(132.)`
# - **C.** `tensor(137.5)`
# - **D.** `mean` raises an error

# %% answer answer_uint8_wrap quiz=rule
# One upper-case letter as a string, for example "A".
answer_uint8_wrap = None
### BEGIN SOLUTION
answer_uint8_wrap = "B"
### END SOLUTION

# %% test answer_uint8_wrap points=1
from course.quiz import check_choice, form_checked

check_choice(answer_uint8_wrap, "ABCD", name="answer_uint8_wrap")
form_checked("answer_uint8_wrap")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_uint8_wrap, "B", name="answer_uint8_wrap",
          why="x + x is computed in uint8 before the cast: 250 + 250 = 500 wraps around to 500 - 256 = 244 (uint8 does "
              "not stop at 255), and 10 + 10 = 20. The float32 mean of 244 and 20 is 132; mean only refuses ints, and "
              "here it gets floats.")
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `abs_pixel_difference`
#
# **To write:** `abs_pixel_difference(a, b)` returns `|a - b|` of two uint8 tensors, as uint8,
# without wrap-around.
#
# `a` and `b` are `uint8` tensors of one shape: two grayscale images, or two batches of them, or a
# single pixel each (0-d), or even empty ones. Return how far apart they are at each pixel,
# `|a - b|`, as a **`uint8`** tensor of that shape on their device (every difference of two `uint8`
# values fits in `uint8`, from 0 to 255). Mind the wrap-around: in `uint8`, `a - b` is wrong
# wherever `b` is larger. Leave `a` and `b` unchanged. The tests also use `meta` tensors.

# %% answer abs_pixel_difference
def abs_pixel_difference(a, b):
    """|a - b| per pixel for two uint8 tensors of one shape, as uint8, without wrap-around."""
    ### BEGIN SOLUTION
    return (a.to(torch.int16) - b.to(torch.int16)).abs().to(torch.uint8)
    ### END SOLUTION

# %% test abs_pixel_difference points=2
import torch
from course.checks import check_tensor, check_true, passed

dark = torch.tensor([10, 200, 50, 0], dtype=torch.uint8)
light = torch.tensor([200, 10, 50, 255], dtype=torch.uint8)
check_tensor(abs_pixel_difference(dark, light), torch.tensor([190, 190, 0, 255], dtype=torch.uint8),
             what="abs_pixel_difference([10, 200, 50, 0], [200, 10, 50, 255])")
passed("abs_pixel_difference")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from course.probes.core import call_watching_inputs


def expected_difference(a, b):
    return (a.to("cpu", torch.int64) - b.to("cpu", torch.int64)).abs().to(torch.uint8)


generator = torch.Generator().manual_seed(14)
first = torch.randint(0, 256, (2, 3, 4, 5), generator=generator, dtype=torch.uint8)
second = torch.randint(0, 256, (2, 3, 4, 5), generator=generator, dtype=torch.uint8)
check_tensor(abs_pixel_difference(first, second), expected_difference(first, second),
             what="abs_pixel_difference of two random uint8 (2, 3, 4, 5) batches")
check_tensor(abs_pixel_difference(second, first), expected_difference(first, second),
             what="abs_pixel_difference with a and b swapped (the same distances)")
check_tensor(abs_pixel_difference(torch.tensor([255, 0, 128], dtype=torch.uint8), torch.tensor([0, 255, 127], dtype=torch.uint8)),
             torch.tensor([255, 255, 1], dtype=torch.uint8), what="abs_pixel_difference at the ends of the uint8 range")
check_tensor(abs_pixel_difference(torch.tensor(3, dtype=torch.uint8), torch.tensor(250, dtype=torch.uint8)),
             torch.tensor(247, dtype=torch.uint8), what="abs_pixel_difference of two 0-d uint8 tensors (3 and 250)")
check_tensor(abs_pixel_difference(torch.zeros(0, 4, dtype=torch.uint8), torch.zeros(0, 4, dtype=torch.uint8)),
             torch.zeros(0, 4, dtype=torch.uint8), what="abs_pixel_difference of empty (0, 4) tensors")
grid = torch.arange(0, 240, 20, dtype=torch.uint8).reshape(3, 4)
check_tensor(abs_pixel_difference(grid.t(), grid.flip(0).t()), expected_difference(grid.t(), grid.flip(0).t()),
             what="abs_pixel_difference of transposed (non-contiguous) images")
for dev in test_devices(meta=True):
    moved = abs_pixel_difference(first.to(dev), second.to(dev))
    check_tensor(moved, expected_difference(first, second).to(dev), what=f"abs_pixel_difference of uint8 batches on {dev}")
result, changed = call_watching_inputs(abs_pixel_difference, dark.clone(), light.clone())
check_true(changed == [],
           f"Expected abs_pixel_difference to leave a and b unchanged (measured in your process), but it changed {changed}: "
           "compute into new tensors instead of writing into the inputs.")
check_tensor(result, torch.tensor([190, 190, 0, 255], dtype=torch.uint8), what="abs_pixel_difference([10, 200, 50, 0], [200, 10, 50, 255])")
### END HIDDEN TESTS

# %% [markdown]
# Some operations refuse integers outright. `mean` is one: the mean of ints is usually not an int,
# and PyTorch will not guess a float dtype for you. `sum` works on ints (and gives `int64`); `mean`
# wants a float tensor, so cast first.

# %%
votes = torch.tensor([1, 0, 1, 1])
try:
    votes.mean()
except RuntimeError as err:
    print("RuntimeError:", err)
print("cast first:", votes.float().mean())
print("sum works on ints:", votes.sum(), votes.sum().dtype)

# %% [markdown]
# ### Your turn: `mean_of_ints`
#
# **To write:** `mean_of_ints(t)` returns the mean of an integer, bool or float tensor as a float32
# 0-d tensor.
#
# Return the mean of `t`, an integer, bool or float tensor, as a `float32` **0-d tensor** (a tensor,
# not a Python float), however many dimensions `t` has. Leave `t` unchanged.

# %% answer mean_of_ints
def mean_of_ints(t):
    """The mean of all of `t`'s elements as a float32 0-d tensor, for int, bool and float tensors."""
    ### BEGIN SOLUTION
    return t.to(torch.float32).mean()
    ### END SOLUTION

# %% test mean_of_ints points=2
import torch
from course.checks import check_tensor, passed

check_tensor(mean_of_ints(torch.tensor([1, 2, 3, 4])), torch.tensor(2.5), what="mean_of_ints(torch.tensor([1, 2, 3, 4]))")
check_tensor(mean_of_ints(torch.tensor([True, False, False, False])), torch.tensor(0.25), what="mean_of_ints of a bool tensor")
passed("mean_of_ints")
### BEGIN HIDDEN TESTS
from course.checks import check_true
from course.probes.core import call_watching_inputs

check_tensor(mean_of_ints(torch.tensor([[1, 2], [3, 4]])), torch.tensor(2.5), what="mean_of_ints of a (2, 2) int tensor (one number for the whole tensor)")
check_tensor(mean_of_ints(torch.tensor([[True, False], [True, True]])), torch.tensor(0.75), what="mean_of_ints of a (2, 2) bool tensor")
check_tensor(mean_of_ints(torch.tensor([-3, 4], dtype=torch.int8)), torch.tensor(0.5), what="mean_of_ints of an int8 tensor")
check_tensor(mean_of_ints(torch.tensor([255, 255, 0], dtype=torch.uint8)), torch.tensor(170.0), what="mean_of_ints of a uint8 tensor")
check_tensor(mean_of_ints(torch.tensor([1, 2], dtype=torch.int32)), torch.tensor(1.5), what="mean_of_ints of an int32 tensor")
check_tensor(mean_of_ints(torch.tensor(7)), torch.tensor(7.0), what="mean_of_ints of a 0-d int tensor")
check_tensor(mean_of_ints(torch.tensor([0.1, 0.2], dtype=torch.float64)), torch.tensor(0.15), what="mean_of_ints of a float64 tensor")
check_tensor(mean_of_ints(torch.tensor([0.5, 1.0], dtype=torch.float16)), torch.tensor(0.75), what="mean_of_ints of a float16 tensor")
check_tensor(mean_of_ints(torch.tensor([1.5, 2.5, 5.0])), torch.tensor(3.0), what="mean_of_ints of a float32 tensor")
check_tensor(mean_of_ints(torch.arange(12).reshape(3, 4).t()), torch.tensor(5.5), what="mean_of_ints of a transposed (non-contiguous) int tensor")
check_tensor(mean_of_ints(torch.tensor([10**12, 10**12 + 2])), torch.tensor(1e12), what="mean_of_ints of large int64 values")
check_tensor(mean_of_ints(torch.zeros(0, dtype=torch.int64)), torch.tensor(float("nan")), what="mean_of_ints of an empty int tensor (nan, like the mean of an empty float tensor)")
for source in (torch.tensor([1, 2, 3]), torch.tensor([[True, False]]), torch.tensor([0.5, 1.5], dtype=torch.float64)):
    old = str(source.dtype)[6:]
    result, changed = call_watching_inputs(mean_of_ints, source)
    check_true(changed == [], f"Expected mean_of_ints to leave its {old} input unchanged (measured in your process), but it changed it.")
### END HIDDEN TESTS

# %% [markdown]
# ## Casting for `nn.Linear`
#
# A layer such as `nn.Linear` holds `float32` weights and computes `x @ weight.T + bias`. That matrix
# product needs both sides in one dtype, and PyTorch does not cast your input for you. Integer data
# (counts, pixel values, category codes) and NumPy's `float64` must be cast to the layer's dtype
# first.
#
# ### Quiz: an int64 tensor into `nn.Linear`
#
# With `layer = nn.Linear(3, 2)` and
# `x = torch.tensor([[1, 2, 3]])`, what happens on `layer(x)`?
#
# - **A.** a `RuntimeError`
# - **B.** it returns a `float32` result
# - **C.** it returns an `int64` result
# - **D.** a `TypeError`

# %% answer answer_linear_int_input quiz=recall
# One upper-case letter as a string, for example "A".
answer_linear_int_input = None
### BEGIN SOLUTION
answer_linear_int_input = "A"
### END SOLUTION

# %% test answer_linear_int_input points=1
from course.quiz import check_choice, form_checked

check_choice(answer_linear_int_input, "ABCD", name="answer_linear_int_input")
form_checked("answer_linear_int_input")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_linear_int_input, "A", name="answer_linear_int_input",
          why="nn.Linear multiplies the input with its float32 weights, and a matrix product needs one dtype on both sides, so an int64 input raises a RuntimeError (mat1 and mat2 must have the same dtype, Long and Float); cast with x.float().")
### END HIDDEN TESTS

# %% [markdown]
# Here is the same rule with another integer dtype, `uint8` pixels (`Byte` is PyTorch's name for
# `uint8`), and the fix:

# %%
layer = nn.Linear(3, 2)
x = torch.tensor([[0, 128, 255]], dtype=torch.uint8)
print("input dtype:", x.dtype, "  weight dtype:", layer.weight.dtype)
try:
    layer(x)
except RuntimeError as err:
    print("RuntimeError:", err)
print("after x.float():", layer(x.float()))

# %% [markdown]
# NumPy's `float64` fails the same way (`Double` is PyTorch's name for `float64`, `Long` for
# `int64`). Casting to `layer.weight.dtype` keeps the code right even if the layer changes dtype. On
# a GPU, move and cast in one step with `.to(device, dtype)`, with the layer on that device too.

# %%
batch = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
try:
    layer(torch.from_numpy(batch))
except RuntimeError as err:
    print("RuntimeError:", err)
print(layer(torch.from_numpy(batch).to(layer.weight.dtype)).dtype)

layer_on_device = nn.Linear(3, 2).to(device)
inputs = torch.from_numpy(batch).to(device, torch.float32)
print("on", layer_on_device(inputs).device, "with dtype", layer_on_device(inputs).dtype)

# %% [markdown]
# Not everything should become a float. Class labels for `nn.CrossEntropyLoss`, one per sample in a
# tensor of shape `(N,)`, are class *indices*: keep them `int64`. A float tensor of that shape makes
# the loss raise an error, and so does an `int32` one; cast the inputs, not the labels. (A float
# target of the logits' own shape `(N, C)` means something else: a probability for each class.)

# %%
logits = torch.randn(2, 3)
labels = torch.tensor([0, 2])
print("int64 labels:", nn.CrossEntropyLoss()(logits, labels))
try:
    nn.CrossEntropyLoss()(logits, labels.float())
except RuntimeError as err:
    print("RuntimeError with float labels:", err)

# %% [markdown]
# ### Labels that arrive as floats
#
# A small data set often comes as one table read from a CSV file, one row per sample, with the
# features in the first columns and the class label in the last. `np.loadtxt` reads every column as
# `float64`, so the labels arrive as floats too (`2.0`, not `2`).

# %%
import io

csv_file = io.StringIO("0.5,1.5,2\n1.0,-0.5,0\n0.0,2.5,1\n")
table = np.loadtxt(csv_file, delimiter=",")
print(table.dtype)
print(table)
print("the label column:", table[:, -1], "as int64:", table[:, -1].astype(np.int64))

# %% [markdown]
# ### Your turn: `features_and_labels`
#
# **To write:** `features_and_labels(table)` splits a NumPy table into float32 features and int64
# labels, and refuses labels that are not whole numbers.
#
# Turn such a table into what `nn.Linear` and `nn.CrossEntropyLoss` want. `table` is a 2-D NumPy
# array of shape `(N, D + 1)` with `D >= 0`. Its dtype is `float64`, `float32` or an integer dtype,
# and it may be a view with negative strides, such as `table[::-1]` (the rows in reverse order),
# even one with a single row. Return a pair `(features, labels)`:
#
# - `features`: a `float32` tensor of shape `(N, D)`, the first `D` columns;
# - `labels`: an `int64` tensor of shape `(N,)`, the last column;
# - a label that is not a whole number (such as `1.5`) means the table is not what you think it is:
#   raise `ValueError` rather than let the cast drop the fraction (compare the column with its
#   rounded values, for instance);
# - `N` may be 0: a `(0, D + 1)` table gives tensors of shapes `(0, D)` and `(0,)`.
#
# Leave `table` unchanged.

# %% answer features_and_labels
def features_and_labels(table):
    """(float32 features (N, D), int64 labels (N,)) from a table whose last column holds class labels."""
    ### BEGIN SOLUTION
    column = table[:, -1]
    if np.any(column != np.round(column)):
        raise ValueError(f"every label must be a whole number, but the last column holds {column[column != np.round(column)][:3]}")
    features = torch.from_numpy(table[:, :-1].astype(np.float32))
    labels = torch.from_numpy(column.astype(np.int64))
    return features, labels
    ### END SOLUTION

# %% test features_and_labels points=2
import numpy as np
import torch
from course.checks import check_raises, check_runs, check_tensor, check_true, passed


def check_split(table, features, labels, what):
    """Compare the (features, labels) pair with the expected one, so a failure names the half that is wrong."""
    result = check_runs(features_and_labels, table, what=what)
    check_true(
        isinstance(result, (tuple, list)) and len(result) == 2,
        f"Expected {what} to return a pair (features, labels), but found {type(result).__name__}: {result!r:.150}.",
    )
    check_tensor(result[0], features, what=f"the features from {what}")
    check_tensor(result[1], labels, what=f"the labels from {what}")


check_split(np.array([[0.5, 1.5, 2.0], [1.0, -0.5, 0.0]]), torch.tensor([[0.5, 1.5], [1.0, -0.5]]), torch.tensor([2, 0]),
            "features_and_labels of a float64 (2, 3) table")
check_raises(ValueError, features_and_labels, np.array([[0.1, 0.2, 1.5]]),
             what="features_and_labels of a table whose label is 1.5")
passed("features_and_labels")
### BEGIN HIDDEN TESTS
from course.probes.core import call_watching_inputs

rows = np.array([[0.25, -1.0, 3.0, 1.0], [2.0, 0.5, -4.0, 0.0], [1.5, 1.5, 1.5, 2.0]])
want_features = torch.tensor([[0.25, -1.0, 3.0], [2.0, 0.5, -4.0], [1.5, 1.5, 1.5]])
want_labels = torch.tensor([1, 0, 2])
check_split(rows, want_features, want_labels, "features_and_labels of a float64 (3, 4) table")
check_split(rows.astype(np.float32), want_features, want_labels, "features_and_labels of a float32 table")
check_split(rows[::-1], want_features.flip(0), want_labels.flip(0), "features_and_labels of table[::-1] (rows reversed, a negative stride)")
check_split(rows[1:2][::-1], want_features[1:2], want_labels[1:2],
            "features_and_labels of a one-row table with its rows reversed (np.ascontiguousarray keeps that negative stride)")
check_split(np.ascontiguousarray(rows.T).T, want_features, want_labels, "features_and_labels of a transposed (non-contiguous) view")
check_split(np.array([[3, 7, 1], [0, -2, 4]]), torch.tensor([[3.0, 7.0], [0.0, -2.0]]), torch.tensor([1, 4]),
            "features_and_labels of an int64 table")
check_split(np.array([[9, 0], [8, 1]], dtype=np.uint8), torch.tensor([[9.0], [8.0]]), torch.tensor([0, 1]),
            "features_and_labels of a uint8 table")
check_split(np.array([[4.0], [1.0], [0.0]]), torch.zeros(3, 0), torch.tensor([4, 1, 0]),
            "features_and_labels of a (3, 1) table (no feature columns, D = 0)")
check_split(np.zeros((0, 4)), torch.zeros(0, 3), torch.zeros(0, dtype=torch.int64), "features_and_labels of an empty (0, 4) table")
check_split(np.array([[0.5, 1000.0], [-0.5, 12.0]]), torch.tensor([[0.5], [-0.5]]), torch.tensor([1000, 12]),
            "features_and_labels of a table with labels 1000 and 12")
check_split(np.array([[1, 16777217], [2, 3]]), torch.tensor([[1.0], [2.0]]), torch.tensor([16777217, 3]),
            "features_and_labels of an int64 table with label 16777217 (not exact in float32)")
for bad, label in ((2.999, "2.999"), (0.25, "0.25"), (-1.5, "-1.5"), (2.0000001, "2.0000001")):
    table = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, bad]])
    check_raises(ValueError, features_and_labels, table, what=f"features_and_labels of a table whose last label is {label}")
result, changed = call_watching_inputs(features_and_labels, rows[::-1])
check_true(changed == [], "Expected features_and_labels to leave its table unchanged (measured in your process), but it changed it.")

# Every stated kind of table (float64, float32, integer dtypes) crossed with every stated layout (plain,
# rows reversed, a reversed single row, both axes reversed) and every stated rule.
whole = np.array([[1, 0, 3, 1], [2, 5, 4, 0], [0, 1, 7, 2]])
for dtype in (np.float64, np.float32, np.int64, np.int32, np.int16, np.uint8):
    kind = np.dtype(dtype).name
    base = whole.astype(dtype)
    for view, layout in ((base, ""), (base[::-1], ", rows reversed (a negative stride)"),
                         (base[1:2][::-1], ", a single row reversed"), (base[::-1, ::-1], ", both axes reversed")):
        plain = view.astype(np.int64)
        check_split(view, torch.tensor(plain[:, :-1], dtype=torch.float32), torch.tensor(plain[:, -1]),
                    f"features_and_labels of a {kind} table{layout}")
        result, changed = call_watching_inputs(features_and_labels, view)
        check_true(changed == [], f"Expected features_and_labels to leave its {kind} table{layout} unchanged "
                                  "(measured in your process), but it changed it.")
    check_split(np.zeros((0, 3), dtype=dtype), torch.zeros(0, 2), torch.zeros(0, dtype=torch.int64),
                f"features_and_labels of an empty (0, 3) {kind} table")
    check_split(np.zeros((0, 3), dtype=dtype)[::-1], torch.zeros(0, 2), torch.zeros(0, dtype=torch.int64),
                f"features_and_labels of an empty (0, 3) {kind} table with its rows reversed")
    if base.dtype.kind == "f":
        for bad in (2.5, -0.5, 1.25):
            table = base.copy()
            table[1, -1] = bad
            check_raises(ValueError, features_and_labels, table, what=f"features_and_labels of a {kind} table whose label {bad} is not whole")
            check_raises(ValueError, features_and_labels, table[::-1],
                         what=f"features_and_labels of a {kind} table with its rows reversed, whose label {bad} is not whole")
            check_raises(ValueError, features_and_labels, table[1:2][::-1],
                         what=f"features_and_labels of a single reversed {kind} row whose label is {bad}")
### END HIDDEN TESTS

# %% [markdown]
# ## Common mistakes
#
# - **Feeding ints or `float64` to a model.** `nn.Linear` and the other layers want the dtype of
#   their weights, `float32` by default. Cast inputs with `.float()` or `.to(layer.weight.dtype)`.
# - **Forgetting that NumPy is `float64`.** `torch.from_numpy` keeps it; the result then spreads
#   `float64` through arithmetic, or stops a layer.
# - **Casting without keeping the result.** `x.float()` returns a new tensor; on its own line it
#   changes nothing. Write `x = x.float()`.
# - **Expecting a cast to round.** `.long()` drops the fraction towards zero; round first with
#   `torch.round` if that is what you mean.
# - **Calling `.mean()` on ints.** It raises; cast to a float dtype first.
# - **Computing on `uint8` pixels.** Sums and differences wrap around silently; cast to `int16`,
#   `int32` or `float32` first.
# - **Casting labels to float.** Class indices for `CrossEntropyLoss` stay `int64`.

# %%
x = torch.tensor([1, 2, 3])
x.float()
print("after a bare x.float():", x.dtype)
x = x.float()
print("after x = x.float():   ", x.dtype)
print("round, then cast:", torch.round(torch.tensor([1.7, -1.7])).long(), "  cast only:", torch.tensor([1.7, -1.7]).long())

# %% [markdown]
# ## Recap
#
# - Every tensor has one dtype (`t.dtype`), which fixes the bytes, range and precision per element.
# - Python floats become `float32` and Python ints `int64`; `zeros`, `ones` and `randn` make
#   `float32`, while `arange`, `full` and `randint` follow their arguments or make `int64`.
# - NumPy's default float is `float64`, and `torch.from_numpy` and `torch.tensor` keep an array's
#   dtype.
# - Cast with `.float()`, `.long()`, `.to(torch.float32)` or `.to(device, dtype)`; the result is a
#   new tensor, and casting can truncate, wrap around (int to int), lose digits, or give
#   machine-dependent values (a float out of an int dtype's range).
# - Mixed arithmetic promotes: the higher kind wins, then the smallest dtype that holds both (usually
#   the wider one), but a 0-d tensor or a Python number only counts when it is of a higher kind. `uint8` arithmetic wraps around; `mean`
#   needs floats.
# - `nn.Linear` needs inputs in its weights' dtype: cast ints and `float64` with `.float()`; keep
#   class labels `int64`.
#
# ## Try it
#
# These cells are not graded. Change them and run them again.

# %%
# Predict each dtype before you run the cell.
print((torch.tensor([1, 2]) * 0.5).dtype)
print((torch.tensor([1, 2], dtype=torch.int32) + torch.tensor([1, 2])).dtype)
print(torch.from_numpy(np.array([1, 2], dtype=np.float32)).dtype)
print(torch.tensor(np.array([True, False])).float().sum())

# %%
# How many significant digits survive? Try float16, bfloat16 and float64 too.
third = torch.tensor(1 / 3, dtype=torch.float64)
for dtype in (torch.float16, torch.float32, torch.float64):
    print(f"{str(dtype):<14} {third.to(dtype).item():.20f}")

# %%
# Feed a uint8 "image" to a layer: fix the error, then try scaling to [0, 1] with / 255.
pixels = torch.randint(0, 256, (1, 3), dtype=torch.uint8)
try:
    print(nn.Linear(3, 1)(pixels))
except RuntimeError as err:
    print("RuntimeError:", err)
