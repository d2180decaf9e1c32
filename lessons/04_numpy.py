# %% [markdown]
# # Lesson 4: NumPy and PyTorch
#
# Data is usually loaded and prepared with NumPy (or pandas, which is built on it), then handed to a
# model as tensors, and predictions often go back to NumPy for plotting or saving. This lesson is
# about that crossing: which conversions share memory, which copy, and which refuse.
#
# **You will learn to**
#
# - say what a tensor adds to a NumPy array, and what the two have in common;
# - predict when a tensor and an array share one block of memory (`torch.from_numpy`, `.numpy()`)
#   and when they do not (`torch.tensor`);
# - handle negative strides such as `a[::-1]`, which tensors cannot represent;
# - turn a tensor into a NumPy array, also one that requires grad or lives on a GPU, with
#   `.detach().cpu().numpy()`, and know the dtypes NumPy has no match for (bfloat16);
# - turn a NumPy array of numbers into a float32 model input on the right device;
# - bring a batch of images from NumPy's channels-last `uint8` layout into a model, and back out for
#   plotting.

# %%
import numpy as np
import torch

from course.device import describe_setup
from course.pictures.numpy_interop import shared_and_copied, show_channels_last

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(describe_setup(device))

# %% [markdown]
# ## Arrays and tensors side by side
#
# A tensor is close kin to NumPy's `ndarray`: one dtype per array, the same memory layout (a block of
# memory read with strides), nearly the same indexing, slicing, boolean masks and broadcasting.
# Assuming the two are completely different things is a mistake; so is assuming they are the same.
# What a tensor adds is what deep learning needs:
#
# | | NumPy `ndarray` | PyTorch `Tensor` |
# |---|---|---|
# | made for | scientific computing | machine learning and deep learning |
# | where the data lives | CPU memory only | the CPU or a GPU (`.device`) |
# | gradients | none | recorded by autograd when `requires_grad=True` |
# | neural networks | needs other libraries | `torch.nn` layers take tensors directly |
# | default float dtype | float64 | float32 |
# | indexing, slicing, masks, broadcasting | NumPy's rules | the same rules, except negative steps |
# | negative strides (`a[::-1]` as a view) | yes | no: `t[::-1]` raises, `t.flip(0)` makes a copy |
#
# For GPU arrays without PyTorch, other libraries (CuPy, for example) exist; NumPy itself never
# leaves the CPU.

# %%
a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
t = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(a[:, 1], t[:, 1])
print(a[a > 2], t[t > 2])
print(a.dtype, t.dtype)
print(a[0, ::-1], t[0].flip(0))
try:
    t[0, ::-1]
except ValueError as err:
    print("t[0, ::-1]: ValueError:", err)

# %% [markdown]
# ## torch.from_numpy shares memory
#
# `torch.from_numpy(a)` does not copy anything. It builds a tensor object that points at the array's
# own block of memory, with the same dtype (a float64 array gives a float64 tensor) and shape. It is
# instant even for a huge array, and a write through either object shows in the other. Here the
# write goes through the tensor, into an array of ints:

# %%
counts = np.arange(4)
t = torch.from_numpy(counts)
t[2] = -1
print("array: ", counts)
print("tensor:", t, t.dtype)

# %% [markdown]
# Two names, one buffer, on the left; two buffers on the right, which is what the next section's
# `torch.tensor` gives you:

# %%
shared_and_copied()

# %%
# Try it: draw what happens after a[1] = 9 with shared_and_copied(write=(1, 9)).

# %% [markdown]
# Sharing is what you want for a large dataset that will only be read. It bites when the array is
# changed later (a preprocessing step that works in place, say): the tensor changes with it, silently.
#
# ### Quiz: a change after `from_numpy`
#
# ```python
# a = np.zeros(3)
# t = torch.from_numpy(a)
# a[0] = 5
# ```
#
# What is `t[0]` now?
#
# - **A.** `tensor(0., dtype=torch.float64)`
# - **B.** `tensor(5., dtype=torch.float64)`
# - **C.** a `RuntimeError`
# - **D.** `tensor(5.)`

# %% answer answer_shared_after_mutation quiz=recall
# One upper-case letter as a string, for example "A".
answer_shared_after_mutation = None
### BEGIN SOLUTION
answer_shared_after_mutation = "B"
### END SOLUTION

# %% test answer_shared_after_mutation points=1
from course.quiz import check_choice, form_checked

check_choice(answer_shared_after_mutation, "ABCD", name="answer_shared_after_mutation")
form_checked("answer_shared_after_mutation")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_shared_after_mutation, "B", name="answer_shared_after_mutation",
          why="torch.from_numpy copies nothing: t reads the array's own memory, so a[0] = 5 shows as t[0] == 5. "
              "The dtype stays float64, NumPy's default, because nothing was converted.")
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `numpy_to_tensor_shared`
#
# **To write:** `numpy_to_tensor_shared(arr)` returns a tensor that shares `arr`'s memory.
#
# Return a tensor that shares memory with `arr`: same dtype, same shape, and a write to either one
# shows in the other. The tests use many dtypes (bool and float16 included), every rank (0-d and
# empty arrays included) and non-contiguous views such as `arr.T`, but no negative strides: no tensor
# can share those (see below). The tests measure the sharing inside your own Python process.

# %% answer numpy_to_tensor_shared
def numpy_to_tensor_shared(arr):
    """A tensor over `arr`'s own memory, so that changes to either show in both."""
    ### BEGIN SOLUTION
    return torch.from_numpy(arr)
    ### END SOLUTION

# %% test numpy_to_tensor_shared points=2
import numpy as np
import torch
from course.checks import check_tensor, check_true, passed
from course.probes.core import call_sharing_memory

arr = np.arange(6.0).reshape(2, 3)
result, overlaps, shows = call_sharing_memory(numpy_to_tensor_shared, arr)
check_tensor(result, torch.from_numpy(arr.copy()), what="numpy_to_tensor_shared(np.arange(6.0).reshape(2, 3))")
check_true(overlaps and shows,
           "Expected the tensor to share memory with the array, so that a write to the array shows in the tensor, "
           "but it has memory of its own (measured in your process). torch.from_numpy shares; torch.tensor, "
           ".clone() and dtype conversions copy.")
passed("numpy_to_tensor_shared")
### BEGIN HIDDEN TESTS
from course.checks import check_runs

cases = {
    "a float32 vector": np.linspace(0.0, 1.0, 5, dtype=np.float32),
    "an int32 matrix": np.arange(12, dtype=np.int32).reshape(3, 4),
    "an int64 vector": np.array([7, -3, 12]),
    "a bool array": np.array([True, False, True]),
    "a uint8 image (2, 3, 4)": np.arange(24, dtype=np.uint8).reshape(2, 3, 4),
    "a float16 array": np.array([0.5, 1.5], dtype=np.float16),
    "a 0-d array": np.array(3.5),
    "a transposed (non-contiguous) view": np.arange(12.0).reshape(3, 4).T,
    "a strided view arr[::2]": np.arange(10, dtype=np.int64)[::2],
}
for name, arr in cases.items():
    what = f"numpy_to_tensor_shared of {name}"
    result, overlaps, shows = check_runs(call_sharing_memory, numpy_to_tensor_shared, arr, what=what)
    check_tensor(result, torch.from_numpy(arr.copy()), what=what)
    check_true(overlaps and shows,
               f"Expected the tensor made from {name} to share memory with it (a write to the array should show in "
               "the tensor), but it has memory of its own (measured in your process).")
what = "numpy_to_tensor_shared of an empty (0, 3) float32 array"
check_tensor(check_runs(numpy_to_tensor_shared, np.zeros((0, 3), dtype=np.float32), what=what), torch.zeros(0, 3), what=what)
### END HIDDEN TESTS

# %% [markdown]
# ## torch.tensor copies
#
# `torch.tensor(a)` always makes a new block of memory and copies the numbers into it. The tensor
# keeps the array's dtype (float64 stays float64 unless you pass `dtype=`), but from then on the two
# are independent. (`torch.as_tensor(a)` sits in between: it shares when it can and copies only
# when it must, for example when you ask for another dtype or device.)

# %%
a = np.zeros(3)
t = torch.tensor(a)
a[0] = 5.0
print("array: ", a)
print("tensor:", t)

# %% [markdown]
# Any dtype change also makes a copy: `torch.from_numpy(a).float()` on a float64 array is a new
# float32 tensor that no longer sees `a`.

# %%
a = np.zeros(3)
t32 = torch.from_numpy(a).float()
a[0] = 5.0
print(t32)

# %% [markdown]
# ### Quiz: `torch.as_tensor` with a dtype
#
# ```python
# a = np.arange(3.0)
# t = torch.as_tensor(a, dtype=torch.float32)
# a[0] = 9
# ```
#
# What is `t[0]` now?
#
# - **A.** `tensor(9.)`
# - **B.** `tensor(9., dtype=torch.float64)`
# - **C.** `as_tensor` raises an error
# - **D.** `tensor(0.)`

# %% answer answer_as_tensor_dtype quiz=rule
# One upper-case letter as a string, for example "A".
answer_as_tensor_dtype = None
### BEGIN SOLUTION
answer_as_tensor_dtype = "D"
### END SOLUTION

# %% test answer_as_tensor_dtype points=1
from course.quiz import check_choice, form_checked

check_choice(answer_as_tensor_dtype, "ABCD", name="answer_as_tensor_dtype")
form_checked("answer_as_tensor_dtype")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_as_tensor_dtype, "D", name="answer_as_tensor_dtype",
          why="np.arange(3.0) is float64. as_tensor shares only when it can; a float32 tensor cannot read float64 "
              "bytes, so it copies the values into new float32 memory, and the later a[0] = 9 does not reach t.")
### END HIDDEN TESTS

# %% [markdown]
# ### Quiz: does `torch.tensor` share?
#
# Does `t = torch.tensor(a)` share memory with the NumPy array `a`?
#
# - **A.** Yes, always: it works like `torch.from_numpy(a)`.
# - **B.** Only when `a` is float32: then no cast is needed.
# - **C.** No: `torch.tensor` copies the data into new memory.
# - **D.** Only when `a` is contiguous: a strided array needs a copy.

# %% answer answer_tensor_copies quiz=recall
# One upper-case letter as a string, for example "A".
answer_tensor_copies = None
### BEGIN SOLUTION
answer_tensor_copies = "C"
### END SOLUTION

# %% test answer_tensor_copies points=1
from course.quiz import check_choice, form_checked

check_choice(answer_tensor_copies, "ABCD", name="answer_tensor_copies")
form_checked("answer_tensor_copies")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_tensor_copies, "C", name="answer_tensor_copies",
          why="torch.tensor always copies, whatever the dtype or layout of the array; torch.from_numpy "
              "(and torch.as_tensor, when it can) share memory instead.")
### END HIDDEN TESTS

# %% [markdown]
# ## Negative strides
#
# An array's *strides* say how many bytes to step to reach the next element along each dimension.
# NumPy makes `a[::-1]` without copying anything, by giving it a negative stride: it walks the same
# memory backwards. Flipping the colour channels of an image with `img[..., ::-1]` (BGR to RGB) is a
# common way to meet one. PyTorch tensors cannot have negative strides, so `torch.from_numpy` and
# even `torch.tensor` refuse such arrays.

# %%
img = np.arange(12, dtype=np.uint8).reshape(2, 2, 3)
flipped = img[..., ::-1]
print("strides:", img.strides, "->", flipped.strides)
for convert in (torch.from_numpy, torch.tensor):
    try:
        convert(flipped)
    except ValueError as err:
        print(f"{convert.__name__}: ValueError: {str(err)[:70]}...")

# %% [markdown]
# The fix is to make a fresh, ordinary copy first with `arr.copy()`. That copy is new memory with
# positive strides, so the tensor no longer shares with the original array (there is no way to share
# here).
#
# `np.ascontiguousarray(arr)` looks like a fix too, but it is not a reliable one. It copies only when
# NumPy does not already call the array contiguous, and NumPy ignores the stride of a dimension of
# size 1 when it decides that. So `np.zeros((1, 10, 20))[::-1]`, reversed along its size-1 first
# dimension, comes back unchanged, negative stride and all, and PyTorch still refuses it. (It also
# turns a 0-d array into a 1-d one.) `.copy()` always works.

# %%
t = torch.from_numpy(flipped.copy())
print(t[0, 0], t.shape)
odd = np.zeros((1, 10, 20))[::-1]
same = np.ascontiguousarray(odd)
print("strides:", odd.strides, "after ascontiguousarray:", same.strides, " the same array:", same is odd)
try:
    torch.from_numpy(same)
except ValueError as err:
    print("torch.from_numpy: ValueError:", str(err)[:60], "...")
print("after .copy():", odd.copy().strides, torch.from_numpy(odd.copy()).shape)
print(np.ascontiguousarray(np.array(2.0)).shape)

# %% [markdown]
# ### Your turn: `numpy_to_tensor_copy`
#
# **To write:** `numpy_to_tensor_copy(arr)` returns a tensor with `arr`'s values, dtype and shape
# that shares no memory with it.
#
# Return a tensor with `arr`'s values, dtype and shape that shares **no** memory with it. It must
# work for any dtype the previous task used, any rank (0-d and empty arrays included), and for
# negative strides (also along a dimension of size 1), and leave `arr` unchanged.

# %% answer numpy_to_tensor_copy
def numpy_to_tensor_copy(arr):
    """A tensor with `arr`'s values in memory of its own, so later changes to `arr` do not reach it."""
    ### BEGIN SOLUTION
    return torch.from_numpy(arr.copy())
    ### END SOLUTION

# %% test numpy_to_tensor_copy points=2
import numpy as np
import torch
from course.checks import check_tensor, check_true, passed
from course.probes.core import call_sharing_memory

arr = np.arange(6.0).reshape(2, 3)
result, overlaps, shows = call_sharing_memory(numpy_to_tensor_copy, arr)
check_tensor(result, torch.tensor(arr), what="numpy_to_tensor_copy(np.arange(6.0).reshape(2, 3))")
check_true(not overlaps and not shows,
           "Expected the tensor to have memory of its own, but it shares memory with the array, so a write to the "
           "array shows in it (measured in your process). torch.from_numpy(arr) shares; copy first.")
passed("numpy_to_tensor_copy")
### BEGIN HIDDEN TESTS
from course.checks import check_runs
from course.probes.core import call_watching_inputs

image = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
cases = {
    "an int64 vector": np.array([7, -3, 12]),
    "an int32 matrix": np.arange(12, dtype=np.int32).reshape(3, 4),
    "a bool array": np.array([True, False, True]),
    "a float16 array": np.array([0.5, 1.5], dtype=np.float16),
    "a float32 0-d array": np.array(2.5, dtype=np.float32),
    "an int64 0-d array": np.array(4),
    "a transposed (non-contiguous) view": np.arange(12.0).reshape(3, 4).T,
    "a negative-stride vector arr[::-1]": np.arange(5.0)[::-1],
    "an image with its channels flipped, img[..., ::-1]": image[..., ::-1],
    "a view with a negative and a positive step, m[::-1, ::2]": np.arange(12).reshape(3, 4)[::-1, ::2],
    "a (1, 4, 3) array reversed along its size-1 dimension, a[::-1]": np.arange(12.0).reshape(1, 4, 3)[::-1],
    "a (4, 1) int32 array reversed along its size-1 dimension, a[:, ::-1]": np.arange(4, dtype=np.int32).reshape(4, 1)[:, ::-1],
}
for name, arr in cases.items():
    what = f"numpy_to_tensor_copy of {name}"
    result, overlaps, shows = check_runs(call_sharing_memory, numpy_to_tensor_copy, arr, what=what)
    check_tensor(result, torch.tensor(arr.copy()), what=what)
    check_true(not overlaps and not shows,
               f"Expected the tensor made from {name} to have memory of its own, but it shares memory with the "
               "array (measured in your process).")
what = "numpy_to_tensor_copy of an empty (0, 3) float32 array"
check_tensor(check_runs(numpy_to_tensor_copy, np.zeros((0, 3), dtype=np.float32), what=what), torch.zeros(0, 3), what=what)
what = "numpy_to_tensor_copy(img[:, ::-1])"
result, changed = check_runs(call_watching_inputs, numpy_to_tensor_copy, image[:, ::-1], what=what)
check_true(changed == [], "Expected numpy_to_tensor_copy to leave its array unchanged (measured in your process), "
                          "but it changed it.")
check_tensor(result, torch.tensor(image[:, ::-1].copy()), what=what)
### END HIDDEN TESTS

# %% [markdown]
# ## From a tensor back to NumPy: .numpy() shares memory
#
# `t.numpy()` is `torch.from_numpy` in reverse: an array over the tensor's own memory, no copy.

# %%
t = torch.zeros(3)
n = t.numpy()
n[1] = 7.0
print(t)

# %% [markdown]
# ### Quiz: which changes reach the array?
#
# ```python
# t = torch.zeros(3)
# a = t.numpy()
# t += 1
# t = t * 2
# t += 1
# ```
#
# What does `a` hold now?
#
# - **A.** `[1., 1., 1.]`
# - **B.** `[0., 0., 0.]`
# - **C.** `[2., 2., 2.]`
# - **D.** `[3., 3., 3.]`

# %% answer answer_numpy_after_rebind quiz=rule
# One upper-case letter as a string, for example "A".
answer_numpy_after_rebind = None
### BEGIN SOLUTION
answer_numpy_after_rebind = "A"
### END SOLUTION

# %% test answer_numpy_after_rebind points=1
from course.quiz import check_choice, form_checked

check_choice(answer_numpy_after_rebind, "ABCD", name="answer_numpy_after_rebind")
form_checked("answer_numpy_after_rebind")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_numpy_after_rebind, "A", name="answer_numpy_after_rebind",
          why="a is an array over the memory t had when a was made. The first t += 1 works in place, in that memory, "
              "so a sees 1. t * 2 makes a new tensor in new memory and the name t moves to it; the last t += 1 "
              "changes that new tensor, which a never shared.")
### END HIDDEN TESTS

# %% [markdown]
# ## When .numpy() refuses: gradients and GPUs
#
# `.numpy()` only hands out memory NumPy can safely use and read. Two cases come up all the time; a
# third, a dtype NumPy lacks, has its own section after the quiz.
#
# **The tensor requires grad.** Autograd records how such a tensor was used; NumPy knows nothing
# about that record, and a write through the array would change the numbers behind autograd's back.
# `.numpy()` raises a `RuntimeError` (inside `torch.no_grad()`, which the autograd lesson
# introduces, it lets the tensor through). `.detach()` returns a tensor over the same memory that is cut off from the
# graph, which `.numpy()` accepts.

# %%
w = torch.ones(3, requires_grad=True)
try:
    w.numpy()
except RuntimeError as err:
    print("RuntimeError:", err)
print(w.detach().numpy())

# %% [markdown]
# **The tensor is not in CPU memory.** A NumPy array is always in CPU memory, and a GPU tensor's
# numbers are in the GPU's memory, so there is nothing to share: you have to copy the tensor to the
# CPU first with `.cpu()`, which is a real transfer over the bus.
#
# On a GPU machine, the cell below does this for real with a CUDA tensor. Without a GPU it uses a
# `meta` tensor, which is refused with the same `TypeError` and the same advice. What differs: a
# meta tensor has no numbers at all, so `.cpu()` cannot help it and fails too, while on a GPU
# `.cpu()` copies the numbers back and `.numpy()` then works.

# %%
g = torch.ones(3, device=device if device.type == "cuda" else "meta")
try:
    g.numpy()
except TypeError as err:
    print("TypeError:", err)
try:
    print(g.cpu().numpy())
except NotImplementedError as err:
    print("NotImplementedError (meta has no values to copy):", err)

# %% [markdown]
# ### Quiz: `.numpy()` on a GPU tensor
#
# `t` lives on a GPU. What does `t.numpy()` do?
#
# - **A.** It returns a NumPy array that lives in GPU memory.
# - **B.** It raises a `TypeError` that names `.cpu()` as the way out.
# - **C.** It quietly copies the data to the CPU and returns an array.
# - **D.** It returns an array that shares memory with the GPU tensor.

# %% answer answer_cuda_numpy quiz=recall
# One upper-case letter as a string, for example "A".
answer_cuda_numpy = None
### BEGIN SOLUTION
answer_cuda_numpy = "B"
### END SOLUTION

# %% test answer_cuda_numpy points=1
from course.quiz import check_choice, form_checked

check_choice(answer_cuda_numpy, "ABCD", name="answer_cuda_numpy")
form_checked("answer_cuda_numpy")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_cuda_numpy, "B", name="answer_cuda_numpy",
          why="NumPy arrays live in CPU memory only, and .numpy() promises an array over the tensor's own memory, "
              "so it will not copy a GPU tensor across the bus for you: t.numpy() on a CUDA tensor raises a "
              "TypeError telling you to call .cpu() first, the copy you ask for yourself.")
### END HIDDEN TESTS

# %% [markdown]
# ## A dtype NumPy lacks: bfloat16
#
# `bfloat16`, the 16-bit float that mixed-precision training on modern GPUs often uses, has no NumPy
# counterpart, so `.numpy()` raises a `TypeError` for it, also after `.detach().cpu()`. Convert to a
# dtype NumPy knows first: `.float()` gives float32 and loses nothing, because every bfloat16 number
# is also a float32 number. (The same holds for the 8-bit float dtypes.)

# %%
half = torch.tensor([0.1, 2.5, -3.0], dtype=torch.bfloat16)
try:
    half.detach().cpu().numpy()
except TypeError as err:
    print("TypeError:", err)
print(half.detach().cpu().float().numpy())

# %% [markdown]
# ## The safe recipe: .detach().cpu().numpy()
#
# Chain the three steps and a tensor that requires grad, lives on a GPU, or both, becomes an array:
#
# - `.detach()` takes it off the autograd graph (free: same memory);
# - `.cpu()` copies it to CPU memory if it is elsewhere, and returns it untouched if it is already
#   there;
# - `.numpy()` wraps the CPU memory as an array.
#
# For a tensor that was already on the CPU, none of these copies, so the array still shares memory
# with the tensor. Add `.copy()` at the end when you need an independent array.
#
# The recipe has limits. A bfloat16 tensor (or an 8-bit float one) still raises a `TypeError` at the
# last step: put `.float()` before `.numpy()`. A `meta` tensor has no values at all, so no recipe can
# turn it into an array.

# %%
pred = torch.tensor([0.1, 0.9, 0.4], requires_grad=True) * 2
out = pred.detach().cpu().numpy()
print(out, out.dtype)
print("shares memory with pred:", np.shares_memory(out, pred.detach().numpy()))
print("after .copy():", np.shares_memory(out.copy(), pred.detach().numpy()))

# %% [markdown]
# ### Your turn: `tensor_to_numpy`
#
# **To write:** `tensor_to_numpy(t)` returns `t` as a NumPy array, also when `t` requires grad or
# lives on a GPU.
#
# Return a NumPy array with `t`'s values, dtype and shape. It must work when `t` requires grad and
# when it lives on a GPU, for any rank (0-d and empty tensors included), and leave `t` as it was
# (same values, same `requires_grad`, same `.grad`). The tests use dtypes NumPy also has (float32,
# float64, float16, int64, bool), not bfloat16.

# %% answer tensor_to_numpy
def tensor_to_numpy(t):
    """`t` as a NumPy array: off the graph and in CPU memory first, because NumPy knows neither."""
    ### BEGIN SOLUTION
    return t.detach().cpu().numpy()
    ### END SOLUTION

# %% test tensor_to_numpy points=2
import numpy as np
import torch
from course.checks import check_array, passed

check_array(tensor_to_numpy(torch.tensor([[1.0, 2.0], [3.0, 4.0]])),
            np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32), what="tensor_to_numpy of a 2x2 float32 tensor")
check_array(tensor_to_numpy(torch.tensor([1.0, 2.0], requires_grad=True)), np.array([1.0, 2.0], dtype=np.float32),
            what="tensor_to_numpy of a tensor that requires grad")
passed("tensor_to_numpy")
### BEGIN HIDDEN TESTS
from course.checks import check_runs, check_true
from course.device import test_devices
from course.probes.core import call_watching_inputs


cases = [
    ("an int64 tensor", torch.tensor([3, -1, 4]), np.array([3, -1, 4], dtype=np.int64)),
    ("a bool tensor", torch.tensor([True, False]), np.array([True, False])),
    ("a 0-d float64 tensor", torch.tensor(2.5, dtype=torch.float64), np.array(2.5)),
    ("a float16 tensor", torch.tensor([0.5, 1.5], dtype=torch.float16), np.array([0.5, 1.5], dtype=np.float16)),
    ("an empty (0, 2) tensor", torch.zeros(0, 2), np.zeros((0, 2), dtype=np.float32)),
    ("a transposed (non-contiguous) tensor", torch.arange(6.0).reshape(2, 3).t(),
     np.arange(6.0, dtype=np.float32).reshape(2, 3).T),
    ("a 0-d tensor that requires grad", torch.tensor(1.5, requires_grad=True), np.array(1.5, dtype=np.float32)),
    ("a result computed from a tensor that requires grad", torch.ones(2, 2, requires_grad=True) * 3,
     np.full((2, 2), 3.0, dtype=np.float32)),
]
for name, t, expected in cases:
    what = f"tensor_to_numpy of {name}"
    check_array(check_runs(tensor_to_numpy, t, what=what), expected, what=what)
leaf = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
leaf.grad = torch.tensor([0.5, 0.5, 0.5])
what = "tensor_to_numpy of a leaf with a .grad"
result, changed = check_runs(call_watching_inputs, tensor_to_numpy, leaf, what=what)
check_true(changed == [],
           "Expected tensor_to_numpy to leave t as it was (values, requires_grad and .grad; measured in your "
           "process), but it changed it. Detach a copy of the reference instead of switching off requires_grad.")
check_array(result, np.array([1.0, -2.0, 3.0], dtype=np.float32), what=what)
for dev in test_devices():
    if dev == "cpu":
        continue
    on_gpu = [
        (f"a tensor on {dev}", torch.arange(6.0, device=dev).reshape(2, 3), np.arange(6.0, dtype=np.float32).reshape(2, 3)),
        (f"a tensor on {dev} that requires grad", torch.ones(3, device=dev, requires_grad=True), np.ones(3, dtype=np.float32)),
    ]
    for name, t, expected in on_gpu:
        what = f"tensor_to_numpy of {name}"
        check_array(check_runs(tensor_to_numpy, t, what=what), expected, what=what)
### END HIDDEN TESTS

# %% [markdown]
# ## From NumPy data to a model input
#
# Going the other way, data prepared in NumPy needs two more steps before a model can use it:
#
# - **dtype**: NumPy makes float64 arrays from Python floats and int64 arrays from Python ints,
#   while `nn.Linear` and friends expect float32; convert with `dtype=torch.float32` or `.float()`;
# - **device**: the model's device, with `device=` or `.to(device)`.
#
# Negative strides need the copy from above. Converting the dtype on the NumPy side first
# (`arr.astype(np.float32)`) makes a fresh, ordinary array, which handles them too.

# %%
raw = np.array([[0, 128, 255], [64, 32, 16]], dtype=np.uint8)
x = torch.from_numpy(raw.astype(np.float32)).to(device)
print(x.dtype, x.device, x.shape)
x = torch.tensor(raw[:, ::-1].copy(), dtype=torch.float32, device=device)
print(x)

# %% [markdown]
# ### Your turn: `to_model_input`
#
# **To write:** `to_model_input(arr, device)` returns a NumPy array as a float32 tensor on `device`.
#
# Return a float32 tensor on `device` with `arr`'s values and shape, for an array of integers or
# floats of any dtype and any rank (0-d and empty arrays included), negative strides included, and
# leave `arr` unchanged. `device` may be a string or a `torch.device`; the tests also use `"meta"`.

# %% answer to_model_input
def to_model_input(arr, device):
    """`arr` as the float32 tensor on `device` that a model's layers expect."""
    ### BEGIN SOLUTION
    return torch.from_numpy(arr.astype(np.float32)).to(device)
    ### END SOLUTION

# %% test to_model_input points=2
import numpy as np
import torch
from course.checks import check_tensor, passed

check_tensor(to_model_input(np.array([[1, 2], [3, 4]]), "cpu"), torch.tensor([[1.0, 2.0], [3.0, 4.0]]),
             what="to_model_input(an int64 2x2 array, 'cpu')")
check_tensor(to_model_input(np.zeros((2, 3)), "meta"), torch.empty(2, 3, device="meta"),
             what="to_model_input(a float64 (2, 3) array, 'meta')")
passed("to_model_input")
### BEGIN HIDDEN TESTS
from course.checks import check_runs, check_true
from course.device import test_devices
from course.probes.core import call_watching_inputs


image = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
cases = {
    "an int64 matrix": np.arange(6).reshape(2, 3),
    "a uint8 image": image,
    "an int8 array with negative values": np.array([-128, -1, 0, 127], dtype=np.int8),
    "an int32 vector": np.array([5, 6, 7], dtype=np.int32),
    "a float16 array": np.array([0.5, 1.5], dtype=np.float16),
    "a float32 array": np.array([0.25, -0.75], dtype=np.float32),
    "a float64 0-d array": np.array(3.25),
    "an int64 0-d array": np.array(7),
    "an empty (0, 3) array": np.zeros((0, 3)),
    "a transposed (non-contiguous) view": np.arange(12.0).reshape(3, 4).T,
    "a negative-stride vector arr[::-1]": np.arange(5)[::-1],
    "a float32 vector reversed, arr[::-1] (already float32, still a negative stride)": np.arange(5, dtype=np.float32)[::-1],
    "an image with its channels flipped, img[..., ::-1]": image[..., ::-1],
    "a (1, 4, 3) array reversed along its size-1 dimension, a[::-1]": np.arange(12.0).reshape(1, 4, 3)[::-1],
}
for dev in test_devices(meta=True):
    for name, arr in cases.items():
        expected = torch.tensor(arr.copy(), dtype=torch.float32).to(dev)
        what = f"to_model_input({name}, '{dev}')"
        check_tensor(check_runs(to_model_input, arr, dev, what=what), expected, what=what)
    what = f"to_model_input(an int64 vector, torch.device('{dev}'))"
    check_tensor(check_runs(to_model_input, np.arange(3), torch.device(dev), what=what), torch.arange(3.0).to(dev), what=what)
what = "to_model_input(img[:, ::-1], 'cpu')"
result, changed = check_runs(call_watching_inputs, to_model_input, image[:, ::-1], "cpu", what=what)
check_true(changed == [], "Expected to_model_input to leave its array unchanged (measured in your process), "
                          "but it changed it.")
check_tensor(result, torch.tensor(image[:, ::-1].copy(), dtype=torch.float32), what=what)
### END HIDDEN TESTS

# %% [markdown]
# ## A batch of images from NumPy
#
# Pictures usually arrive from an image library or from files on disk as NumPy arrays of `uint8`
# (whole numbers from 0 to 255), with the channels **last**: `(N, H, W, C)` for a batch. Some
# libraries store the channels in BGR order, which `[..., ::-1]` turns into RGB, negative strides
# included. A PyTorch vision model wants something else: float32 values in [0, 1], channels
# **first**, `(N, C, H, W)`, on the model's device. Each step is one you know:
#
# 1. a tensor from the array, copied first if it may have negative strides:
#    `torch.from_numpy(images.copy())`;
# 2. float32 with `.float()`, before any arithmetic: `uint8` holds only whole numbers from 0 to 255,
#    so `200 + 100` wraps around to 44;
# 3. divide by 255, so that 0 stays 0 and 255 becomes 1;
# 4. channels first with `.permute(0, 3, 1, 2)`: the new dimension 1 is the old dimension 3. Lesson {01_tensors}
#    did this for one image with `permute(2, 0, 1)`, and lesson {05_shapes} explains it in depth. `reshape`
#    would give the same shape with the pixels scrambled;
# 5. `.to(device)`.
#
# Here are four small RGB pictures made with NumPy and stored the way an image library would:

# %%
rows = np.linspace(0, 255, 6)[:, None] * np.ones((1, 8))     # brighter towards the bottom
cols = np.ones((6, 1)) * np.linspace(0, 255, 8)[None, :]     # brighter towards the right
images = np.stack([np.stack([rows, cols, np.full((6, 8), 60.0 * k)], axis=-1) for k in range(4)]).astype(np.uint8)
print(type(images).__name__, images.dtype, images.shape, "<- (N, H, W, C)")
show_channels_last(images, titles=[f"blue = {60 * k}" for k in range(4)])

# %%
batch = torch.from_numpy(images.copy()).float().div(255).permute(0, 3, 1, 2).to(device)
print(batch.dtype, tuple(batch.shape), batch.device, "values from", batch.min().item(), "to", batch.max().item())
print("pixel (0, 7) of image 3:", images[3, 0, 7], "->", batch[3, :, 0, 7].tolist())
small = torch.tensor([200], dtype=torch.uint8)
print("uint8 arithmetic wraps around:", (small + 100).item(), " float32 does not:", (small.float() + 100).item())

# %% [markdown]
# ### Your turn: `images_to_batch`
#
# **To write:** `images_to_batch(images, device)` turns uint8 images `(N, H, W, C)` into a float32
# batch `(N, C, H, W)` in [0, 1] on `device`.
#
# `images` is a NumPy `uint8` array of shape `(N, H, W, C)` with values from 0 to 255. Return the
# float32 tensor of shape `(N, C, H, W)` on `device` with `out[n, c, h, w] == images[n, h, w, c] / 255`.
# It must work for any `N` (`N = 0` included), one channel (`C = 1`) or three, images that are not
# square, views that are not contiguous (`images[:, ::2, ::2]`) or have negative strides
# (`images[..., ::-1]`, also along a dimension of size 1), and leave `images` unchanged. `device`
# may be a string or a `torch.device`; the tests also use `"meta"`.

# %% answer images_to_batch
def images_to_batch(images, device):
    """uint8 images (N, H, W, C), 0 to 255, as a float32 batch (N, C, H, W) in [0, 1] on `device`."""
    ### BEGIN SOLUTION
    batch = torch.from_numpy(images.copy()).to(device)
    return batch.permute(0, 3, 1, 2).float() / 255
    ### END SOLUTION

# %% test images_to_batch points=2
import numpy as np
import torch
from course.checks import check_tensor, passed

pixels = np.array([[[[0, 51, 255], [102, 153, 204]]]], dtype=np.uint8)  # one image, 1x2 pixels, 3 channels
expected = torch.tensor([[[[0.0, 0.4]], [[0.2, 0.6]], [[1.0, 0.8]]]])  # (1, 3, 1, 2): one plane per channel
check_tensor(images_to_batch(pixels, "cpu"), expected,
             what="images_to_batch of one (1, 2) RGB image with pixels [0, 51, 255] and [102, 153, 204], on 'cpu'")
check_tensor(images_to_batch(np.zeros((2, 4, 5, 3), dtype=np.uint8), "meta"), torch.empty(2, 3, 4, 5, device="meta"),
             what="images_to_batch of two (4, 5) RGB images (N=2, H=4, W=5, C=3), on 'meta'")
passed("images_to_batch")
### BEGIN HIDDEN TESTS
from course.checks import check_runs, check_true
from course.device import test_devices
from course.probes.core import call_watching_inputs


rng = np.random.default_rng(4)
photos = rng.integers(0, 256, size=(3, 4, 5, 3), dtype=np.uint8)
cases = {
    "three (4, 5) RGB images": photos,
    "the same images in BGR order, photos[..., ::-1] (negative strides)": photos[..., ::-1],
    "the same images upside down, photos[:, ::-1] (negative strides)": photos[:, ::-1],
    "every other pixel, photos[:, ::2, ::2] (not contiguous)": photos[:, ::2, ::2],
    "two grayscale (6, 4) images (C = 1)": rng.integers(0, 256, size=(2, 6, 4, 1), dtype=np.uint8),
    "one (1, 5) RGB image reversed along its size-1 batch dimension, a[::-1]":
        rng.integers(0, 256, size=(1, 1, 5, 3), dtype=np.uint8)[::-1],
    "an empty batch (0, 4, 4, 3)": np.zeros((0, 4, 4, 3), dtype=np.uint8),
    "pixels at 0 and 255": np.array([[[[0, 255, 0], [255, 0, 255]]]], dtype=np.uint8),
}
for dev in test_devices(meta=True):
    for name, arr in cases.items():
        expected = torch.tensor(arr.copy(), dtype=torch.float64).permute(0, 3, 1, 2).div(255).float().to(dev)
        what = f"images_to_batch({name}, '{dev}')"
        check_tensor(check_runs(images_to_batch, arr, dev, what=what), expected, what=what)
    what = f"images_to_batch(three (4, 5) RGB images, torch.device('{dev}'))"
    check_tensor(check_runs(images_to_batch, photos, torch.device(dev), what=what),
                 torch.tensor(photos, dtype=torch.float64).permute(0, 3, 1, 2).div(255).float().to(dev), what=what)
what = "images_to_batch(photos[..., ::-1], 'cpu')"
result, changed = check_runs(call_watching_inputs, images_to_batch, photos[..., ::-1], "cpu", what=what)
check_true(changed == [], "Expected images_to_batch to leave its images unchanged (measured in your process), "
                          "but it changed them.")
check_tensor(result, torch.tensor(photos[..., ::-1].copy(), dtype=torch.float64).permute(0, 3, 1, 2).div(255).float(),
             what=what)
### END HIDDEN TESTS

# %% [markdown]
# ## Back to NumPy for plotting
#
# Plotting goes the other way. matplotlib's `imshow` draws a NumPy array `(H, W, C)` with float
# values in [0, 1] (or `uint8` from 0 to 255). What a model gives back is a tensor `(N, C, H, W)`,
# usually still attached to the graph, perhaps on a GPU, perhaps in bfloat16 after mixed-precision
# work, and with values that stray a little outside [0, 1]. So: `.detach()`, `.cpu()`, `.float()`
# (NumPy has no bfloat16), channels last with `.permute(0, 2, 3, 1)`, `.clamp(0, 1)`, then `.numpy()`.
#
# Use `clamp`, not `clamp_`: a detached tensor shares memory with the original, so clamping it in
# place would also change the model's output.

# %%
gain = torch.tensor(1.3, requires_grad=True)
output = batch * gain - 0.15                                   # a stand-in for a model's output
print("requires grad:", output.requires_grad, " values from", round(output.min().item(), 2), "to", round(output.max().item(), 2))
pictures = output.detach().cpu().float().permute(0, 2, 3, 1).clamp(0, 1).numpy()
print(type(pictures).__name__, pictures.dtype, pictures.shape, "<- (N, H, W, C)")
show_channels_last(pictures, titles=["output"] * 4)

# %%
probe = torch.tensor([1.5, -0.5], requires_grad=True) * 1
probe.detach().clamp_(0, 1)
print("after probe.detach().clamp_(0, 1), probe itself holds:", probe.tolist())

# %% [markdown]
# ### Your turn: `batch_for_plotting`
#
# **To write:** `batch_for_plotting(x)` turns a batch `(N, C, H, W)` from a model into a float32
# NumPy array `(N, H, W, C)` clipped to [0, 1].
#
# `x` is a batch of images `(N, C, H, W)` as a model returns it: a floating-point tensor (float32,
# float64, float16 or bfloat16) that may require grad, may live on a GPU, and may hold values a
# little below 0 or above 1. Return a float32 NumPy array of shape `(N, H, W, C)` with
# `out[n, h, w, c] == x[n, c, h, w]`, clipped to [0, 1]: values below 0 become 0, values above 1
# become 1. It must work for any `N` (`N = 0` included), one channel or three, and images that are
# not square, and leave `x` as it was (same values, same `requires_grad`).

# %% answer batch_for_plotting
def batch_for_plotting(x):
    """A (N, C, H, W) float tensor as the float32 NumPy array (N, H, W, C), clipped to [0, 1], for imshow."""
    ### BEGIN SOLUTION
    return x.detach().cpu().float().permute(0, 2, 3, 1).clamp(0, 1).numpy()
    ### END SOLUTION

# %% test batch_for_plotting points=2
import numpy as np
import torch
from course.checks import check_array, passed

x = torch.tensor([[[[0.25, 1.5]], [[-0.5, 0.75]], [[1.0, 0.0]]]])  # (1, 3, 1, 2): one image, 1x2 pixels
expected = np.array([[[[0.25, 0.0, 1.0], [1.0, 0.75, 0.0]]]], dtype=np.float32)  # (1, 1, 2, 3), clipped
check_array(batch_for_plotting(x), expected, what="batch_for_plotting of one (1, 2) RGB image")
check_array(batch_for_plotting(x.clone().requires_grad_()), expected,
            what="batch_for_plotting of the same image in a tensor that requires grad")
passed("batch_for_plotting")
### BEGIN HIDDEN TESTS
from course.checks import check_runs, check_true
from course.device import test_devices
from course.probes.core import call_watching_inputs


def plotted(t):
    return t.detach().cpu().double().clamp(0, 1).permute(0, 2, 3, 1).float().numpy()


g = torch.Generator().manual_seed(21)
for dev in test_devices():
    raw = torch.rand(3, 3, 4, 5, generator=g) * 1.4 - 0.2
    leaf = raw.clone().to(dev).requires_grad_()
    cases = {
        "three (4, 5) RGB images (float32)": raw.to(dev),
        "the same images in a leaf that requires grad": leaf,
        "the same images computed from a tensor that requires grad": leaf * 1.0,
        "bfloat16 images (NumPy has no bfloat16)": raw.to(dev, torch.bfloat16),
        "float16 images": raw.to(dev, torch.float16),
        "float64 images": (torch.rand(2, 3, 3, 2, generator=g, dtype=torch.float64) * 1.4 - 0.2).to(dev),
        "two grayscale (6, 4) images (C = 1)": (torch.rand(2, 1, 6, 4, generator=g) * 1.4 - 0.2).to(dev),
        "images made by permute (not contiguous)": (torch.rand(2, 4, 5, 3, generator=g) * 1.4 - 0.2).to(dev).permute(0, 3, 1, 2),
        "bfloat16 images that require grad": raw.to(dev, torch.bfloat16).requires_grad_(),
        "an empty batch (0, 3, 4, 4)": torch.zeros(0, 3, 4, 4, device=dev),
    }
    for name, t in cases.items():
        what = f"batch_for_plotting of {name} on {dev}"
        check_array(check_runs(batch_for_plotting, t, what=what), plotted(t), what=what)
watched = (torch.rand(2, 3, 4, 4, generator=g) * 1.4 - 0.2).requires_grad_()
what = "batch_for_plotting of two (4, 4) RGB images that require grad"
result, changed = check_runs(call_watching_inputs, batch_for_plotting, watched, what=what)
check_true(changed == [],
           "Expected batch_for_plotting to leave x as it was (values and requires_grad; measured in your process), "
           "but it changed it. A detached tensor shares memory with x: clamp it with clamp, not clamp_.")
check_array(result, plotted(watched), what=what)
### END HIDDEN TESTS

# %% [markdown]
# ## Common mistakes
#
# ### Confusing arrays and tensors
#
# They are close relatives, not strangers, and not the same thing either. Layers, losses and
# optimizers accept tensors only; NumPy functions want arrays. Convert at the boundary, on purpose,
# and check with `type(x)` when unsure.
#
# ### Changing an array a tensor still reads
#
# After `torch.from_numpy(a)` (or `t.numpy()`), an in-place change to one object changes the other.
# If the array will be modified later, make the tensor with a copy.
#
# ### Calling `.numpy()` on a tensor that requires grad, lives on a GPU, or is bfloat16
#
# All three raise. `.detach().cpu().numpy()` handles the first two on every machine; a bfloat16
# tensor also needs `.float()` before `.numpy()`.
#
# ### Feeding float64 (or int64) data to a model
#
# `torch.from_numpy` keeps NumPy's dtype. Convert to float32 before the first layer.
#
# ### Forgetting negative strides, or fixing them with `np.ascontiguousarray`
#
# `img[..., ::-1]` and `a[::-1]` are views that no tensor can represent: copy them first with
# `.copy()`. `np.ascontiguousarray` can hand back the very same array when the reversed dimension has
# size 1.
#
# ### `reshape` where you meant `permute`
#
# Turning `(N, H, W, C)` into `(N, C, H, W)` moves a dimension: `permute(0, 3, 1, 2)`. A `reshape` to
# the same shape runs without complaint and scrambles every picture.
#
# ### Clamping a detached tensor in place
#
# `t.detach()` shares memory with `t`, so `t.detach().clamp_(0, 1)` changes `t` too. Use `clamp`.

# %%
# Try it: make `a = np.arange(4.0)`, `t = torch.from_numpy(a)`, then run `a += 1` and `a = a + 1`.
# Which of the two does `t` see, and why?

# %% [markdown]
# ## Recap
#
# - A tensor is a NumPy-style array that can also live on a GPU and record gradients.
# - `torch.from_numpy(a)` and `t.numpy()` share memory: no copy, and changes show on both sides.
# - `torch.tensor(a)` always copies; so does any change of dtype or device.
# - Tensors cannot have negative strides: copy such arrays first (`arr.copy()`, not
#   `np.ascontiguousarray`, which may return them unchanged).
# - `.numpy()` refuses tensors that require grad (`.detach()` first), tensors on a GPU (`.cpu()`
#   first) and dtypes NumPy lacks such as bfloat16 (`.float()` first). `.detach().cpu().numpy()`
#   handles gradients and GPUs, and still shares memory for CPU tensors.
# - Model inputs made from NumPy need `dtype=torch.float32` and the model's device; images also need
#   their channels moved first (`permute(0, 3, 1, 2)`) and their `uint8` pixels divided by 255.
# - For plotting, go back with `.detach().cpu().float()`, channels last, `clamp(0, 1)`, `.numpy()`.
