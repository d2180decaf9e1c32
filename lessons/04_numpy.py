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
# - turn any tensor into a NumPy array, also one that requires grad or lives on a GPU, with
#   `.detach().cpu().numpy()`;
# - turn any NumPy array into a float32 model input on the right device.

# %%
import numpy as np
import torch

from course.device import describe_setup
from course.pictures.numpy_interop import shared_and_copied

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(describe_setup(device))

# %% [markdown]
# ## Arrays and tensors side by side
#
# A tensor is close kin to NumPy's `ndarray`: one dtype per array, the same memory layout, the same
# indexing, slicing, boolean masks and broadcasting. Assuming the two are completely different
# things is a mistake; so is assuming they are the same. What a tensor adds is what deep learning
# needs:
#
# | | NumPy `ndarray` | PyTorch `Tensor` |
# |---|---|---|
# | made for | scientific computing | machine learning and deep learning |
# | where the data lives | CPU memory only | the CPU or a GPU (`.device`) |
# | gradients | none | recorded by autograd when `requires_grad=True` |
# | neural networks | needs other libraries | `torch.nn` layers take tensors directly |
# | default float dtype | float64 | float32 |
# | indexing, slicing, masks, broadcasting | the same rules | the same rules |
# | negative strides (`a[::-1]` as a view) | yes | no: `flip` makes a copy |
#
# For GPU arrays without PyTorch, other libraries (CuPy, for example) exist; NumPy itself never
# leaves the CPU.

# %%
a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
t = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(a[:, 1], t[:, 1])
print(a[a > 2], t[t > 2])
print(a.dtype, t.dtype)

# %% [markdown]
# ## torch.from_numpy shares memory
#
# `torch.from_numpy(a)` does not copy anything. It builds a tensor object that points at the array's
# own block of memory, with the same dtype (a float64 array gives a float64 tensor) and shape. It is
# instant even for a huge array, and a write through either object shows in the other.

# %%
a = np.zeros(3)
t = torch.from_numpy(a)
a[0] = 5.0
t[2] = -1.0
print("array: ", a)
print("tensor:", t)
print(t.dtype)

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
# - **A.** `tensor(0., dtype=torch.float64)`: `t` was made before the change.
# - **B.** `tensor(5., dtype=torch.float64)`: `t` and `a` use the same memory.
# - **C.** A `RuntimeError`, because the array changed under the tensor.
# - **D.** `tensor(5.)`: the new value, converted to float32.

# %% answer answer_shared_after_mutation
# One upper-case letter as a string, for example "A".
answer_shared_after_mutation = None
### BEGIN SOLUTION
answer_shared_after_mutation = "B"
### END SOLUTION

# %% test answer_shared_after_mutation points=1
from course.quiz import check_choice
from course.checks import passed

check_choice(answer_shared_after_mutation, "ABCD", name="answer_shared_after_mutation")
passed("answer_shared_after_mutation", "(Only the form is checked here.)")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_shared_after_mutation, "B", name="answer_shared_after_mutation",
          why="torch.from_numpy copies nothing: t reads the array's own memory, so a[0] = 5 shows as t[0] == 5. "
              "The dtype stays float64, NumPy's default, because nothing was converted.")
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `numpy_to_tensor_shared`
#
# Return a tensor that shares memory with `arr`: same dtype, same shape, and a write to either one
# shows in the other. The tests measure the sharing inside your own Python process.

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
    result, overlaps, shows = call_sharing_memory(numpy_to_tensor_shared, arr)
    check_tensor(result, torch.from_numpy(arr.copy()), what=f"numpy_to_tensor_shared of {name}")
    check_true(overlaps and shows,
               f"Expected the tensor made from {name} to share memory with it (a write to the array should show in "
               "the tensor), but it has memory of its own (measured in your process).")
check_tensor(numpy_to_tensor_shared(np.zeros((0, 3), dtype=np.float32)), torch.zeros(0, 3),
             what="numpy_to_tensor_shared of an empty (0, 3) float32 array")
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
# ### Quiz: does `torch.tensor` share?
#
# Does `t = torch.tensor(a)` share memory with the NumPy array `a`?
#
# - **A.** Yes, always, just like `torch.from_numpy(a)`.
# - **B.** No: `torch.tensor` always copies the data into new memory.
# - **C.** Only when `a` is float32, PyTorch's default float dtype.
# - **D.** Only when `a` is contiguous in memory.

# %% answer answer_tensor_copies
# One upper-case letter as a string, for example "A".
answer_tensor_copies = None
### BEGIN SOLUTION
answer_tensor_copies = "B"
### END SOLUTION

# %% test answer_tensor_copies points=1
from course.quiz import check_choice
from course.checks import passed

check_choice(answer_tensor_copies, "ABCD", name="answer_tensor_copies")
passed("answer_tensor_copies", "(Only the form is checked here.)")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_tensor_copies, "B", name="answer_tensor_copies",
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
# The fix is to make a fresh, ordinary copy first with `arr.copy()`. That copy is new memory, so
# the tensor no longer shares with the original array (there is no way to share here).
# `np.ascontiguousarray(arr)` also works, with one surprise: it turns a 0-d array into a 1-d one.

# %%
t = torch.from_numpy(flipped.copy())
print(t[0, 0], t.shape)
print(np.ascontiguousarray(np.array(2.0)).shape)

# %% [markdown]
# ### Your turn: `numpy_to_tensor_copy`
#
# Return a tensor with `arr`'s values, dtype and shape that shares **no** memory with it. It must
# work for any rank (0-d included) and for negative strides, and leave `arr` unchanged.

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
}
for name, arr in cases.items():
    result, overlaps, shows = call_sharing_memory(numpy_to_tensor_copy, arr)
    check_tensor(result, torch.tensor(arr.copy()), what=f"numpy_to_tensor_copy of {name}")
    check_true(not overlaps and not shows,
               f"Expected the tensor made from {name} to have memory of its own, but it shares memory with the "
               "array (measured in your process).")
check_tensor(numpy_to_tensor_copy(np.zeros((0, 3), dtype=np.float32)), torch.zeros(0, 3),
             what="numpy_to_tensor_copy of an empty (0, 3) float32 array")
result, changed = call_watching_inputs(numpy_to_tensor_copy, image[:, ::-1])
check_true(changed == [], "Expected numpy_to_tensor_copy to leave its array unchanged (measured in your process), "
                          "but it changed it.")
check_tensor(result, torch.tensor(image[:, ::-1].copy()), what="numpy_to_tensor_copy(img[:, ::-1])")
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
# ## When .numpy() refuses: gradients and GPUs
#
# `.numpy()` only hands out memory NumPy can safely use, so it refuses in two cases.
#
# **The tensor requires grad.** Autograd records how such a tensor was used; NumPy knows nothing
# about that record, and a write through the array would change the numbers behind autograd's back.
# `.detach()` returns a tensor over the same memory that is cut off from the graph, which `.numpy()`
# accepts.

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
# - **B.** It raises an error: the tensor must be copied to the CPU first, with `.cpu()`.
# - **C.** It quietly copies the data to the CPU and returns an array.
# - **D.** It returns an array that shares memory with the GPU tensor.

# %% answer answer_cuda_numpy
# One upper-case letter as a string, for example "A".
answer_cuda_numpy = None
### BEGIN SOLUTION
answer_cuda_numpy = "B"
### END SOLUTION

# %% test answer_cuda_numpy points=1
from course.quiz import check_choice
from course.checks import passed

check_choice(answer_cuda_numpy, "ABCD", name="answer_cuda_numpy")
passed("answer_cuda_numpy", "(Only the form is checked here.)")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_cuda_numpy, "B", name="answer_cuda_numpy",
          why="NumPy arrays live in CPU memory only, and PyTorch never copies across the bus behind your back: "
              "t.numpy() on a CUDA tensor raises a TypeError telling you to call .cpu() first.")
### END HIDDEN TESTS

# %% [markdown]
# ## The safe recipe: .detach().cpu().numpy()
#
# Chain the three steps and any tensor becomes an array:
#
# - `.detach()` takes it off the autograd graph (free: same memory);
# - `.cpu()` copies it to CPU memory if it is elsewhere, and returns it untouched if it is already
#   there;
# - `.numpy()` wraps the CPU memory as an array.
#
# For a tensor that was already on the CPU, none of these copies, so the array still shares memory
# with the tensor. Add `.copy()` at the end when you need an independent array.

# %%
pred = torch.tensor([0.1, 0.9, 0.4], requires_grad=True) * 2
out = pred.detach().cpu().numpy()
print(out, out.dtype)
print("shares memory with pred:", np.shares_memory(out, pred.detach().numpy()))
print("after .copy():", np.shares_memory(out.copy(), pred.detach().numpy()))

# %% [markdown]
# ### Your turn: `tensor_to_numpy`
#
# Return a NumPy array with `t`'s values, dtype and shape. It must work when `t` requires grad and
# when it lives on a GPU, and leave `t` as it was (same values, same `requires_grad`).

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
from course.checks import check_true
from course.device import test_devices
from course.probes.core import call_watching_inputs

check_array(tensor_to_numpy(torch.tensor([3, -1, 4])), np.array([3, -1, 4], dtype=np.int64),
            what="tensor_to_numpy of an int64 tensor")
check_array(tensor_to_numpy(torch.tensor([True, False])), np.array([True, False]),
            what="tensor_to_numpy of a bool tensor")
check_array(tensor_to_numpy(torch.tensor(2.5, dtype=torch.float64)), np.array(2.5),
            what="tensor_to_numpy of a 0-d float64 tensor")
check_array(tensor_to_numpy(torch.tensor([0.5, 1.5], dtype=torch.float16)), np.array([0.5, 1.5], dtype=np.float16),
            what="tensor_to_numpy of a float16 tensor")
check_array(tensor_to_numpy(torch.zeros(0, 2)), np.zeros((0, 2), dtype=np.float32),
            what="tensor_to_numpy of an empty (0, 2) tensor")
check_array(tensor_to_numpy(torch.arange(6.0).reshape(2, 3).t()), np.arange(6.0, dtype=np.float32).reshape(2, 3).T,
            what="tensor_to_numpy of a transposed (non-contiguous) tensor")
check_array(tensor_to_numpy(torch.tensor(1.5, requires_grad=True)), np.array(1.5, dtype=np.float32),
            what="tensor_to_numpy of a 0-d tensor that requires grad")
check_array(tensor_to_numpy(torch.ones(2, 2, requires_grad=True) * 3), np.full((2, 2), 3.0, dtype=np.float32),
            what="tensor_to_numpy of a result computed from a tensor that requires grad")
leaf = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
leaf.grad = torch.tensor([0.5, 0.5, 0.5])
result, changed = call_watching_inputs(tensor_to_numpy, leaf)
check_true(changed == [],
           "Expected tensor_to_numpy to leave t as it was (values, requires_grad and .grad; measured in your "
           "process), but it changed it. Detach a copy of the reference instead of switching off requires_grad.")
check_array(result, np.array([1.0, -2.0, 3.0], dtype=np.float32), what="tensor_to_numpy of a leaf with a .grad")
for dev in test_devices():
    if dev == "cpu":
        continue
    check_array(tensor_to_numpy(torch.arange(6.0, device=dev).reshape(2, 3)),
                np.arange(6.0, dtype=np.float32).reshape(2, 3), what=f"tensor_to_numpy of a tensor on {dev}")
    check_array(tensor_to_numpy(torch.ones(3, device=dev, requires_grad=True)), np.ones(3, dtype=np.float32),
                what=f"tensor_to_numpy of a tensor on {dev} that requires grad")
### END HIDDEN TESTS

# %% [markdown]
# ## From NumPy data to a model input
#
# Going the other way, data prepared in NumPy needs two more steps before a model can use it:
#
# - **dtype**: NumPy's floats are float64 and its integers int64, while `nn.Linear` and friends
#   expect float32; convert with `dtype=torch.float32` or `.float()`;
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
# Return a float32 tensor on `device` with `arr`'s values and shape, for any numeric array of any
# rank (0-d included), negative strides included. `device` may be a string or a `torch.device`; the
# tests also use `"meta"`.

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
from course.checks import check_true
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
    "an image with its channels flipped, img[..., ::-1]": image[..., ::-1],
}
for dev in test_devices(meta=True):
    for name, arr in cases.items():
        expected = torch.tensor(arr.copy(), dtype=torch.float32).to(dev)
        check_tensor(to_model_input(arr, dev), expected, what=f"to_model_input({name}, '{dev}')")
    check_tensor(to_model_input(np.arange(3), torch.device(dev)), torch.arange(3.0).to(dev),
                 what=f"to_model_input(an int64 vector, torch.device('{dev}'))")
result, changed = call_watching_inputs(to_model_input, image[:, ::-1], "cpu")
check_true(changed == [], "Expected to_model_input to leave its array unchanged (measured in your process), "
                          "but it changed it.")
check_tensor(result, torch.tensor(image[:, ::-1].copy(), dtype=torch.float32), what="to_model_input(img[:, ::-1], 'cpu')")
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
# ### Calling `.numpy()` on a tensor that requires grad or lives on a GPU
#
# Both raise. `.detach().cpu().numpy()` works for every tensor, on every machine.
#
# ### Feeding float64 (or int64) data to a model
#
# `torch.from_numpy` keeps NumPy's dtype. Convert to float32 before the first layer.
#
# ### Forgetting negative strides
#
# `img[..., ::-1]` and `a[::-1]` are views that no tensor can represent: copy them first.

# %%
# Try it: make `a = np.arange(4.0)`, `t = torch.from_numpy(a)`, then run `a += 1` and `a = a + 1`.
# Which of the two does `t` see, and why?

# %% [markdown]
# ## Recap
#
# - A tensor is a NumPy-style array that can also live on a GPU and record gradients.
# - `torch.from_numpy(a)` and `t.numpy()` share memory: no copy, and changes show on both sides.
# - `torch.tensor(a)` always copies; so does any change of dtype or device.
# - Tensors cannot have negative strides: copy such arrays first (`arr.copy()`).
# - `.numpy()` refuses tensors that require grad (`.detach()` first) and tensors on a GPU (`.cpu()`
#   first); `.detach().cpu().numpy()` always works, and still shares memory for CPU tensors.
# - Model inputs made from NumPy need `dtype=torch.float32` and the model's device.
