# %% [markdown]
# # Lesson 3: where a tensor lives
#
# Every tensor has a *device*: the piece of hardware whose memory holds its numbers. So far every
# tensor you made lived on the CPU. This lesson is about the GPU, and about the rules that keep
# tensors on different devices apart.
#
# **You will learn to**
#
# - read a tensor's device, and say why new tensors live on the CPU;
# - pick a device once with `torch.device` and the "CUDA if available" idiom, so one script runs on a
#   laptop and on a GPU server, and compare devices without tripping over `cuda` against `cuda:0`;
# - move tensors with `.to(device)` and keep the result (`.to` returns a new tensor);
# - create tensors directly on a device with `device=`;
# - explain why CPU memory and GPU memory are usually separate, and what a transfer over the PCIe bus
#   costs;
# - recognise the device-mismatch `RuntimeError` and fix it.
#
# This notebook runs on any machine. Where something can only happen on a GPU, the cell does it for
# real when a GPU is present, and otherwise shows the same rule with PyTorch's `meta` device (more on
# that below), saying what differs.

# %%
import time

import torch
from torch import nn

from course.device import describe_setup
from course.pictures.device import memory_and_bus

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(describe_setup(device))

# %% [markdown]
# ## Where a tensor lives: the CPU by default
#
# A tensor's `.device` says where its numbers are stored. Unless you ask for something else, a new
# tensor is made in the computer's main memory and worked on by the CPU, even on a machine with a
# powerful GPU.

# %%
x = torch.randn(2, 3)
print(x.device)
print(x.is_cuda)
print(torch.get_default_device())

# %% [markdown]
# Besides `cpu` and `cuda`, PyTorch has a device called `meta`. A meta tensor has a shape and a
# dtype but **no values at all**: no memory is set aside for its numbers. PyTorch treats it as a
# device of its own: adding, multiplying or concatenating a CPU tensor and a meta tensor raises a
# device-mismatch error, as it would with a GPU tensor, so this lesson uses it to show device rules
# on machines without a GPU. The stand-in is not exact: a matrix product of a CPU matrix and a meta
# matrix runs, and gives a CPU tensor whose numbers mean nothing, where a GPU matrix would be
# refused. A meta tensor is not a GPU and computes nothing; printing one shows `...` where the
# values would be.

# %%
m = torch.zeros(2, 3, device="meta")
print(m.device, m.shape, m.dtype)
print(m)

# %% [markdown]
# ### Quiz: the default device
#
# On a machine with a GPU and a working CUDA install, where does `torch.zeros(3)` live (no `device=`
# given, and no default changed)?
#
# - **A.** On the CPU.
# - **B.** On the GPU.
# - **C.** On the `meta` device.
# - **D.** On the device of the tensor made just before it.

# %% answer answer_default_device quiz=recall
# One upper-case letter as a string, for example "A".
answer_default_device = None
### BEGIN SOLUTION
answer_default_device = "A"
### END SOLUTION

# %% test answer_default_device points=1
from course.quiz import check_choice, form_checked

check_choice(answer_default_device, "ABCD", name="answer_default_device")
form_checked("answer_default_device")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_default_device, "A", name="answer_default_device",
          why="New tensors are made on the CPU unless you pass device= (or change the default with "
              "torch.set_default_device). Having a GPU changes nothing until you ask for it.")
### END HIDDEN TESTS

# %% [markdown]
# ## Picking a device once: torch.device and the CUDA-if-available idiom
#
# A `torch.device` names a place: a type (`"cpu"`, `"cuda"`, `"meta"`) and, for GPUs, an optional
# index (`"cuda:0"` is the first GPU, `"cuda:1"` the second). `torch.cuda.is_available()` tells you
# whether PyTorch can see a CUDA GPU. Together they give the line almost every PyTorch script starts
# with:
#
# ```python
# device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
# ```
#
# Decide once, store it in one variable, and pass that variable everywhere. The same script then
# runs on a laptop (everything on the CPU) and on a GPU server (everything on the GPU), with no edits.
# The first cell of this notebook does exactly that.
#
# The idiom can only find a GPU that your PyTorch was built for, so install the build that matches
# your hardware. On a Linux x86-64 machine, a plain `pip install torch` from PyPI gives a CUDA build
# (it also pulls in NVIDIA's CUDA libraries, several gigabytes), while on Windows and macOS it gives
# one without CUDA. On a Linux machine without an NVIDIA GPU, PyTorch's own CPU index
# (`pip install torch --index-url https://download.pytorch.org/whl/cpu`) gives a much smaller
# CPU-only build; for a GPU on Windows, or a particular CUDA version, the selector on pytorch.org
# gives the command. `torch.version.cuda` tells you which one you have: the CUDA version the build was
# made for, or `None` for a CPU-only build.
#
# CUDA is not the only accelerator PyTorch drives: Apple's GPUs (`mps`) and Intel's (`xpu`) have
# their own device types. `torch.accelerator.current_accelerator()` names whichever one the machine
# has (`None` when there is none), and `torch.accelerator.is_available()` says whether there is one.
# This course's idiom and tests name CUDA, the accelerator its GPU machines have.

# %%
print(device, "| type:", device.type, "| index:", device.index)
print('torch.device("cuda") == torch.device("cuda:0"):', torch.device("cuda") == torch.device("cuda:0"))
made = torch.zeros(2, device=device)
print("made with device =", device, "-> made.device is", made.device, "| made.device == device:", made.device == device,
      "| same type:", made.device.type == device.type)
print(torch.device("cuda:1").type, torch.device("cuda:1").index)
print(torch.device("cpu") == torch.device("cpu"), torch.device("cpu") == torch.device("meta"))
print("this build:", torch.__version__, "| torch.version.cuda:", torch.version.cuda)
print("accelerator:", torch.accelerator.current_accelerator(), "| available:", torch.accelerator.is_available())

# %% [markdown]
# A string such as `"cuda"` is accepted almost everywhere a device is, but a `torch.device` is the
# real thing: it has `.type` and `.index`, it compares exactly, and it is what `tensor.device`
# returns.
#
# "Exactly" includes the index, and that trips people up: `torch.device("cuda")` (no index: "the
# current GPU") is not equal to `torch.device("cuda:0")`, yet a tensor made with `device="cuda"`
# reports the index it landed on, `cuda:0`. So on a GPU machine the test `x.device == device`, with
# `device` from the idiom above, is `False` even though `x` is exactly where you put it. Compare the
# types (`x.device.type == device.type`) when any GPU will do, or compare with a device read from a
# GPU tensor, which always carries its index. (CPU and `meta` devices have no index, so they compare
# as you would expect.)

# %% [markdown]
# ### Quiz: comparing devices
#
# On a machine with one GPU:
#
# ```python
# a = torch.zeros(2, device="cuda")
# b = torch.ones(2).to(torch.device("cuda", 0))
# same = a.device == b.device
# named = a.device == torch.device("cuda")
# ```
#
# What are `same` and `named`?
#
# - **A.** `True` and `True`
# - **B.** `True` and `False`
# - **C.** `False` and `False`
# - **D.** `False` and `True`

# %% answer answer_device_index quiz=rule
# One upper-case letter as a string, for example "A".
answer_device_index = None
### BEGIN SOLUTION
answer_device_index = "B"
### END SOLUTION

# %% test answer_device_index points=1
from course.quiz import check_choice, form_checked

check_choice(answer_device_index, "ABCD", name="answer_device_index")
form_checked("answer_device_index")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_device_index, "B", name="answer_device_index",
          why="A CUDA tensor's device always carries its index: a and b both report cuda:0, so same is True, however "
              "they were made. torch.device('cuda') has no index, and a torch.device compares its index too, so "
              "cuda:0 == cuda is False. Compare .type when any GPU will do.")
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `pick_device`
#
# **To write:** `pick_device()` returns the `torch.device` to compute on: CUDA when it is available,
# else the CPU.
#
# Return a `torch.device` (not a string) of type `"cuda"` when CUDA is available, else `"cpu"`.
# Careful: `torch.cuda.is_available` is a function. Without the parentheses you test the function
# object itself instead of its answer, and a function object always counts as true in an `if`, so
# the code would pick `"cuda"` on every machine, GPU or not.

# %% answer pick_device
def pick_device():
    """The device this machine should compute on: the GPU when CUDA is available, else the CPU."""
    ### BEGIN SOLUTION
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    ### END SOLUTION

# %% test pick_device points=2
import torch
from course.checks import check_equal, check_true, passed

found = pick_device()
check_true(isinstance(found, torch.device),
           f"Expected pick_device() to return a torch.device, such as torch.device('cpu'), but found a "
           f"{type(found).__name__}: {found!r:.100}.")
expected_type = "cuda" if torch.cuda.is_available() else "cpu"
check_equal(found.type, expected_type,
            what=f"the device type from pick_device() on this machine (torch.cuda.is_available() is {torch.cuda.is_available()})")
passed("pick_device")
### BEGIN HIDDEN TESTS
from course.probes.device import call_with_cuda_available

for available, expected_type in ((True, "cuda"), (False, "cpu")):
    found = call_with_cuda_available(pick_device, available)
    check_true(isinstance(found, torch.device),
               f"Expected pick_device() to return a torch.device when torch.cuda.is_available() returns {available}, "
               f"but found a {type(found).__name__}: {found!r:.100}.")
    check_equal(found.type, expected_type,
                what=f"the device type from pick_device() when torch.cuda.is_available() returns {available} "
                     f"(simulated in your process: only that answer changes, nothing runs on a GPU)")
### END HIDDEN TESTS

# %% [markdown]
# ## Moving a tensor: .to returns a new tensor
#
# `x.to(device)` copies `x`'s numbers to `device` and returns a **new tensor** there. `x` itself
# does not move. So the pattern is always to keep the result, usually under the same name:
#
# ```python
# x = x.to(device)
# ```
#
# A bare `x.to(device)` line does the copy and throws it away. (`x.cuda()` and `x.cpu()` are
# shorthands for `.to("cuda")` and `.to("cpu")`, with the same rule.) When `x` is already on
# `device`, `.to` copies nothing and returns `x` itself.
#
# The cell below moves a tensor to the GPU when there is one; otherwise it "moves" it to `meta`,
# which keeps the shape and dtype but, unlike a real GPU, drops the values.

# %%
target = device if device.type == "cuda" else torch.device("meta")
x = torch.arange(4.0)
x.to(target)
print("after a bare x.to(...):    x is on", x.device)
x_moved = x.to(target)
print("after x_moved = x.to(...): x is on", x.device, "and x_moved is on", x_moved.device)
print("x.to('cpu') is x:", x.to("cpu") is x)

# %% [markdown]
# One exception to remember: calling `.to(device)` on a **model** (an `nn.Module`) moves its
# parameters in place and returns the same model, so `model.to(device)` alone works. Writing
# `model = model.to(device)` anyway does no harm and keeps one habit for both.

# %%
model = nn.Linear(3, 2)
same = model.to(target)
print(same is model, model.weight.device)

# %% [markdown]
# ### Quiz: a bare `.to`
#
# On a machine with a GPU, `x = torch.ones(3)` is followed by a line that just says `x.to("cuda")`
# (the result is not assigned). Where does `x` live afterwards?
#
# - **A.** On the GPU: `.to` moved it there.
# - **B.** Still on the CPU: `.to` gave back a new tensor.
# - **C.** On both: `x` now keeps a copy in each memory.
# - **D.** Nowhere: `.to` freed the CPU memory, so `x` is now empty.

# %% answer answer_to_returns_new quiz=recall
# One upper-case letter as a string, for example "A".
answer_to_returns_new = None
### BEGIN SOLUTION
answer_to_returns_new = "B"
### END SOLUTION

# %% test answer_to_returns_new points=1
from course.quiz import check_choice, form_checked

check_choice(answer_to_returns_new, "ABCD", name="answer_to_returns_new")
form_checked("answer_to_returns_new")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_to_returns_new, "B", name="answer_to_returns_new",
          why="Tensor.to never changes the tensor it is called on: it returns a new tensor on the target "
              "device. Keep it with x = x.to('cuda'); a bare x.to('cuda') copies the data and drops the copy.")
### END HIDDEN TESTS

# %% [markdown]
# ## Creating a tensor directly on a device
#
# Every factory function (`torch.zeros`, `torch.ones`, `torch.randn`, `torch.arange`,
# `torch.tensor`, ...) takes `device=`. Making a tensor where it will be used saves a copy: creating
# it on the CPU and then calling `.to(device)` builds it twice and sends it over the bus once. The
# `*_like` functions copy the device (and dtype and shape) of the tensor you give them.

# %%
w = torch.randn(3, 3, device=device)
bias = torch.zeros(3, device=device)
labels = torch.tensor([0, 2, 1], device=device)
mask = torch.ones_like(w)
print(w.device, bias.device, labels.device, mask.device)

# %% [markdown]
# Tensors made in the middle of a computation (a mask, a constant, a running total) are the ones
# most often forgotten: give them `device=` too, or make them with a `*_like` function.

# %%
# Try it: make a 2x2 identity matrix with torch.eye on `device`, then one on "meta", and print both.

# %% [markdown]
# ## CPU memory, GPU memory and the PCIe bus
#
# Why all this care? Because on most machines the CPU and the GPU do not share memory. A CPU tensor's
# bytes sit in the computer's RAM, which the CPU reads. A GPU tensor's bytes sit in the GPU's own
# memory (VRAM), on the graphics card, which the CPU cannot read directly. The road between the two
# is the PCIe bus, and it is narrow compared with the memory on either side. (Some machines differ:
# chips that join CPU and GPU with a fast link such as NVLink-C2C, GPUs that share the computer's
# memory, and CUDA's "managed" memory let both sides reach the same bytes. PyTorch keeps the same
# rules there: a tensor still has one device.)

# %%
memory_and_bus()

# %% [markdown]
# So on a machine like that, `.to("cuda")` and `.to("cpu")` are real copies across the bus, not a
# change of label. A
# batch of 32 RGB images of 224x224 pixels in float32 takes about 19 MB; at the roughly 32 GB/s of a
# PCIe 4.0 x16 slot that is over half a millisecond each way, while the GPU could have done a great
# deal of arithmetic in that time. Every transfer also has a fixed start-up cost, so many tiny
# transfers are worse than one big one.

# %%
batch = torch.zeros(32, 3, 224, 224)
n_bytes = batch.element_size() * batch.nelement()
pcie_bytes_per_second = 32e9
print(f"{n_bytes / 1e6:.1f} MB, about {n_bytes / pcie_bytes_per_second * 1e3:.2f} ms to cross the bus once")

# %% [markdown]
# With a GPU, the cell below measures the bus for real: one transfer of 10,000 numbers against
# 10,000 transfers of one number each. Without one it says so and measures nothing.

# %%
if torch.cuda.is_available():
    numbers = torch.randn(10_000)
    torch.cuda.synchronize()
    start = time.perf_counter()
    numbers.to("cuda")
    torch.cuda.synchronize()
    once = time.perf_counter() - start
    start = time.perf_counter()
    for value in numbers.split(1):
        value.to("cuda")
    torch.cuda.synchronize()
    many = time.perf_counter() - start
    print(f"one transfer: {once * 1e3:.3f} ms; 10,000 tiny transfers: {many * 1e3:.1f} ms")
else:
    print("No GPU here, so there is no bus to measure: the arithmetic above is the estimate.")

# %% [markdown]
# The rule of thumb: **move the data to the device once, keep every step of the computation there,
# and bring back only the small result you need** (a loss value, a prediction).
#
# Why put up with the bus at all? A GPU has thousands of simple cores that run the same operation on
# many numbers at once, and memory fast enough to feed them, so big tensor operations such as the
# matrix multiplications inside a neural network finish far sooner than on a CPU. The gain only
# shows when there is enough work per transfer.

# %%
a = torch.randn(1024, 1024)
start = time.perf_counter()
a @ a
print(f"1024x1024 matrix product on the CPU: {(time.perf_counter() - start) * 1e3:.1f} ms")
if torch.cuda.is_available():
    a_gpu = a.to("cuda")
    a_gpu @ a_gpu
    torch.cuda.synchronize()
    start = time.perf_counter()
    a_gpu @ a_gpu
    torch.cuda.synchronize()
    print(f"the same product on the GPU: {(time.perf_counter() - start) * 1e3:.2f} ms")

# %%
# Try it: change the batch above to 256 images of 512x512 pixels. How long would one trip take?

# %% [markdown]
# ## Moving a whole batch
#
# Data usually arrives in containers: a `(images, labels)` tuple from a data loader, or a dict of
# named tensors, sometimes with plain values (an id, a file name) mixed in. Moving a batch means
# moving every tensor inside it and leaving everything else alone.
#
# ### Your turn: `move_batch`
#
# **To write:** `move_batch(batch, device)` returns a copy of a nested batch (dicts, lists, tuples)
# with every tensor on `device`.
#
# Return the same structure with every tensor moved to `device`:
#
# - dicts keep their keys in their order; lists stay lists and tuples stay tuples;
# - containers can be nested to any depth (a function that calls itself is the natural fit);
# - anything that is not a tensor or a container (ints, strings, `None`) comes back as it is;
# - the containers you were given are not changed: build new ones.
#
# The tests move batches to `meta`, which works on every machine.

# %% answer move_batch
def move_batch(batch, device):
    """`batch` with every tensor moved to `device`, the containers rebuilt with the same types."""
    ### BEGIN SOLUTION
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {key: move_batch(value, device) for key, value in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(move_batch(value, device) for value in batch)
    return batch
    ### END SOLUTION

# %% test move_batch points=3
import torch
from course.checks import check_nested, check_true, passed

batch = {"images": torch.ones(2, 3), "labels": torch.tensor([0, 1])}
check_nested(move_batch(batch, "meta"),
             {"images": torch.ones(2, 3, device="meta"), "labels": torch.tensor([0, 1], device="meta")},
             what="move_batch(batch, 'meta')")
pair = (torch.zeros(4), torch.arange(4))
check_nested(move_batch(pair, "meta"), (torch.zeros(4, device="meta"), torch.arange(4, device="meta")),
             what="move_batch((images, labels), 'meta')")
passed("move_batch")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from course.probes.core import call_watching_inputs


def nested_batch(dev):
    deep = torch.full((2,), 7.0, device=dev)
    for _ in range(12):
        deep = [deep]
    return {
        "z_images": torch.arange(24.0).reshape(2, 3, 4).to(dev),
        "a_labels": (torch.tensor([1, 0], device=dev), "two labels"),
        "info": {"ids": [3, 4], "name": "batch-0", "mask": None, "weight": 0.5, "flag": True},
        "pairs": [(torch.ones(1, device=dev), 2), (torch.zeros(0, 3, device=dev), None)],
        "empty": [[], (), {}],
        "scalar": torch.tensor(2.5, device=dev),
        "view": torch.arange(6.0).reshape(2, 3).t().to(dev),
        "deep": deep,
        "last": torch.ones(2, dtype=torch.float16, device=dev),
    }


for dev in test_devices(meta=True):
    check_nested(move_batch(nested_batch("cpu"), dev), nested_batch(dev),
                 what=f"move_batch(nested batch, '{dev}')")
check_nested(move_batch([torch.ones(2), (torch.zeros(1), [torch.ones(3)])], "meta"),
             [torch.ones(2, device="meta"), (torch.zeros(1, device="meta"), [torch.ones(3, device="meta")])],
             what="move_batch of a list holding a tuple holding a list")
check_nested(move_batch(torch.ones(3, requires_grad=True), "meta"), torch.ones(3, device="meta"),
             what="move_batch of a bare tensor that requires grad")
check_nested(move_batch("not a tensor", "meta"), "not a tensor", what="move_batch of a plain string")
check_nested(move_batch(5, "meta"), 5, what="move_batch of a plain int")
check_nested(move_batch(None, "meta"), None, what="move_batch(None, 'meta')")
result, changed = call_watching_inputs(move_batch, nested_batch("cpu"), "meta")
check_true(changed == [],
           "Expected move_batch to leave the batch it was given unchanged (measured in your process), but moving "
           "it to 'meta' changed it: build new dicts and lists instead of assigning into the old ones.")
check_nested(result, nested_batch("meta"), what="move_batch(nested batch, 'meta')")
### END HIDDEN TESTS

# %% [markdown]
# ## The device-mismatch error
#
# An operation runs on one device, with all its input tensors in that device's memory. Give it
# tensors from two devices and PyTorch does not guess (one small exception follows below): it will not quietly copy one of them over the
# bus (which would hide a slow transfer in every step), and it cannot read the other device's memory.
# It stops with a `RuntimeError`.
#
# On a GPU machine, the cell below adds a CPU tensor and a GPU tensor for real; the message starts
# with "Expected all tensors to be on the same device" and names both devices. Without a GPU it adds
# a CPU tensor and a `meta` tensor instead. For `+` the rule is the same one, and so is the exception type;
# what differs is the wording (the message says a tensor "is not on the expected device") and that a
# meta tensor has no numbers, so nothing would have been computed even with matching devices.

# %%
a = torch.ones(3)
b = torch.ones(3, device=target)
try:
    a + b
except RuntimeError as err:
    print(f"RuntimeError (cpu + {b.device.type}): {err}")

# %% [markdown]
# The fix is to put every tensor of the operation on one device first:

# %%
c = a.to(target) + b
print(c.device, c.shape)

# %% [markdown]
# One corner of the rule: a 0-d CPU tensor (a single number such as `torch.tensor(2.0)`) may be
# combined with a tensor on another device, because PyTorch passes it along as a plain number. Any
# tensor with at least one dimension must be on the operation's device.
#
# A few operations are made to cross devices, and the rule does not apply to them: `.to`, `copy_`
# and assignment into a slice (`gpu_x[0:2] = cpu_rows`) copy over the bus, and a CPU index tensor or
# mask may pick the entries of a GPU tensor (`gpu_x[cpu_mask]`).

# %%
print((b + torch.tensor(2.0)).device)

# %% [markdown]
# ### Quiz: a 0-d tensor on the GPU
#
# On a GPU machine, `loss` is a 0-d tensor on the GPU (the mean of a batch, say) and
# `history = torch.zeros(5)` lives on the CPU. What happens on `history + loss`?
#
# - **A.** It works and the result is on the GPU, where the 0-d tensor is.
# - **B.** It works and the result is on the CPU: a 0-d tensor is passed along as a plain number,
#   whichever device it is on.
# - **C.** A `RuntimeError`: only a 0-d tensor on the CPU is passed along as a number.
# - **D.** It works, but only after PyTorch copies `history` to the GPU, because the GPU is faster.

# %% answer answer_zero_d_direction quiz=rule
# One upper-case letter as a string, for example "A".
answer_zero_d_direction = None
### BEGIN SOLUTION
answer_zero_d_direction = "C"
### END SOLUTION

# %% test answer_zero_d_direction points=1
from course.quiz import check_choice, form_checked

check_choice(answer_zero_d_direction, "ABCD", name="answer_zero_d_direction")
form_checked("answer_zero_d_direction")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_zero_d_direction, "C", name="answer_zero_d_direction",
          why="The corner of the rule goes one way only: a 0-d CPU tensor may join an operation on another device. "
              "history has a dimension and lives on the CPU, loss lives on the GPU, so the devices clash and PyTorch "
              "raises a RuntimeError. Bring the number back first (loss.item(), or loss.cpu()).")
### END HIDDEN TESTS

# %% [markdown]
# ### Quiz: CPU plus GPU
#
# Tensor `A` lives on the CPU and tensor `B` on the GPU; both have shape `(2, 3)` and dtype
# `float32`. What happens on `C = A + B`?
#
# - **A.** PyTorch moves `A` to the GPU and computes `C` there.
# - **B.** PyTorch moves `B` to the CPU and computes `C` there.
# - **C.** It computes `C` correctly but slowly over the bus.
# - **D.** PyTorch raises a `RuntimeError` about the devices.

# %% answer answer_device_mismatch quiz=recall
# One upper-case letter as a string, for example "A".
answer_device_mismatch = None
### BEGIN SOLUTION
answer_device_mismatch = "D"
### END SOLUTION

# %% test answer_device_mismatch points=1
from course.quiz import check_choice, form_checked

check_choice(answer_device_mismatch, "ABCD", name="answer_device_mismatch")
form_checked("answer_device_mismatch")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_device_mismatch, "D", name="answer_device_mismatch",
          why="A and B have dimensions, and every tensor with dimensions must be on the operation's device: "
              "PyTorch does not copy one of them over the bus for you, so C = A + B raises a RuntimeError (Expected "
              "all tensors to be on the same device). Move one of them with .to first. Only a 0-d CPU tensor would "
              "have been let through, as a plain number.")
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `same_device`
#
# **To write:** `same_device(*tensors)` says whether all the tensors given are on one device.
#
# Return `True` when all the tensors given are on one device, `False` otherwise. Compare whole
# devices, not just their types: `cpu` and `meta` differ, and so do `cuda:0` and `cuda:1`. With zero
# tensors or one tensor there is nothing to disagree, so the answer is `True`.

# %% answer same_device
def same_device(*tensors):
    """True when every tensor given lives on one device (also for zero or one tensor)."""
    ### BEGIN SOLUTION
    return len({t.device for t in tensors}) <= 1
    ### END SOLUTION

# %% test same_device points=2
import torch
from course.checks import check_equal, passed

check_equal(same_device(torch.ones(2), torch.zeros(3)), True, what="same_device(two CPU tensors)")
check_equal(same_device(torch.ones(2), torch.ones(2, device="meta")), False,
            what="same_device(a CPU tensor, a meta tensor)")
passed("same_device")
### BEGIN HIDDEN TESTS
check_equal(same_device(), True, what="same_device() with no tensors at all")
check_equal(same_device(torch.ones(1)), True, what="same_device(one CPU tensor)")
check_equal(same_device(torch.ones(1, device="meta")), True, what="same_device(one meta tensor)")
check_equal(same_device(torch.ones(2, device="meta"), torch.tensor(1.0, device="meta")), True,
            what="same_device(two meta tensors)")
check_equal(same_device(torch.ones(2, device="meta"), torch.ones(2)), False,
            what="same_device(a meta tensor, a CPU tensor)")
check_equal(same_device(torch.ones(2), torch.ones(2), torch.ones(2, device="meta")), False,
            what="same_device(CPU, CPU, meta): every tensor counts, not just the first two")
check_equal(same_device(torch.ones(2), torch.ones(2, device="meta"), torch.ones(2, device="meta")), False,
            what="same_device(CPU, meta, meta)")
check_equal(same_device(torch.ones(2), torch.ones(2, device="meta"), torch.ones(2)), False,
            what="same_device(CPU, meta, CPU): a meta tensor between two CPU tensors")
check_equal(same_device(torch.ones(2, requires_grad=True), torch.tensor(3), torch.zeros(0)), True,
            what="same_device of three CPU tensors of different dtypes and shapes")
if torch.cuda.is_available():
    check_equal(same_device(torch.ones(2, device="cuda"), torch.ones(2, device="cuda")), True,
                what="same_device(two tensors on cuda:0)")
    check_equal(same_device(torch.ones(2, device="cuda"), torch.ones(2)), False,
                what="same_device(a CUDA tensor, a CPU tensor)")
    check_equal(same_device(torch.ones(2, device=torch.device("cuda")), torch.ones(2).to(torch.device("cuda", torch.cuda.current_device()))),
                True, what="same_device of a tensor made with device=torch.device('cuda') and one moved to that GPU by its index")
    if torch.cuda.device_count() >= 2:
        check_equal(same_device(torch.ones(2, device="cuda:0"), torch.ones(2, device="cuda:1")), False,
                    what="same_device(a tensor on cuda:0, a tensor on cuda:1)")
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `add_on_device`
#
# **To write:** `add_on_device(a, b)` returns `a + b` computed on `a`'s device.
#
# Return `a + b`, computed on `a`'s device: move `b` there first (keep the result of `.to`). Do not
# change `a` or `b`. The tests put `a` on `meta` and `b` on the CPU, so a plain `a + b` fails there
# just as it would with `a` on a GPU. A meta result has a shape, a dtype and a device but no values.

# %% answer add_on_device
def add_on_device(a, b):
    """`a + b` computed on `a`'s device, `b` copied there first when it lives elsewhere."""
    ### BEGIN SOLUTION
    return a + b.to(a.device)
    ### END SOLUTION

# %% test add_on_device points=2
import torch
from course.checks import check_tensor, check_true, passed

check_tensor(add_on_device(torch.tensor([1.0, 2.0]), torch.tensor([10.0, 20.0])), torch.tensor([11.0, 22.0]),
             what="add_on_device of two CPU tensors")
check_tensor(add_on_device(torch.ones(2, 3, device="meta"), torch.ones(2, 3)), torch.empty(2, 3, device="meta"),
             what="add_on_device(a on meta, b on the CPU)")
passed("add_on_device")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from course.probes.core import call_watching_inputs

check_tensor(add_on_device(torch.ones(2, 3, device="meta"), torch.arange(3.0)), torch.empty(2, 3, device="meta"),
             what="add_on_device(a (2, 3) on meta, b (3,) on the CPU), with broadcasting")
check_tensor(add_on_device(torch.ones(4, dtype=torch.int64, device="meta"), torch.ones(4)),
             torch.empty(4, device="meta"), what="add_on_device(int64 a on meta, float32 b on the CPU)")
check_tensor(add_on_device(torch.tensor(1.0, device="meta"), torch.ones(5)), torch.empty(5, device="meta"),
             what="add_on_device(0-d a on meta, b (5,) on the CPU)")
check_tensor(add_on_device(torch.ones(0, 2, device="meta"), torch.ones(0, 2)), torch.empty(0, 2, device="meta"),
             what="add_on_device of empty (0, 2) tensors, a on meta")
check_tensor(add_on_device(torch.tensor([1, 2]), torch.tensor([3, 4])), torch.tensor([4, 6]),
             what="add_on_device of two int64 CPU tensors")
check_tensor(add_on_device(torch.ones(2, requires_grad=True), torch.ones(2)), torch.full((2,), 2.0),
             what="add_on_device(a that requires grad, b)", requires_grad=True)
a = torch.tensor([1.0, 2.0, 3.0])
b = torch.tensor([0.5, 0.5, 0.5])
result, changed = call_watching_inputs(add_on_device, a, b)
check_true(changed == [],
           f"Expected add_on_device to leave a and b unchanged (measured in your process), but it changed {changed}: "
           "return a new tensor instead of adding in place.")
check_tensor(result, torch.tensor([1.5, 2.5, 3.5]), what="add_on_device([1, 2, 3], [0.5, 0.5, 0.5])")
if torch.cuda.is_available():
    check_tensor(add_on_device(torch.ones(3, device="cuda"), torch.arange(3.0)),
                 torch.tensor([1.0, 2.0, 3.0], device="cuda"), what="add_on_device(a on cuda, b on the CPU)")
    check_tensor(add_on_device(torch.ones(3), torch.arange(3.0, device="cuda")),
                 torch.tensor([1.0, 2.0, 3.0]), what="add_on_device(a on the CPU, b on cuda)")
### END HIDDEN TESTS

# %% [markdown]
# ### Finding the tensor on the wrong device
#
# The mismatch error names two devices, not the tensor at fault. In a batch with a dozen entries,
# nested a few levels deep, the quick way to find the culprit is to walk the batch the way
# `move_batch` does and note where each stray tensor sits. A **path** says where: the keys and
# indices that lead from the batch to the tensor, in order. In the batch below, the path of the
# mask is `("extra", 0)`: the key `"extra"`, then index 0 of the list stored under it.

# %%
batch = {"images": torch.ones(2, 3, device=target), "extra": [torch.ones(2), "ids 7-8"]}
print("images:", batch["images"].device, "  the tensor at ('extra', 0):", batch["extra"][0].device)
try:
    batch["images"] + batch["extra"][0].unsqueeze(1)
except RuntimeError as err:
    print("RuntimeError:", err)

# %% [markdown]
# ### Your turn: `find_misplaced`
#
# **To write:** `find_misplaced(batch, device)` lists the paths of the tensors in a nested batch
# that are not on `device`.
#
# Return the paths of the tensors in `batch` that are **not** on `device`, as a list of tuples.
#
# - `batch` is nested like `move_batch`'s input: dicts, lists and tuples, to any depth, with tensors
#   and other values (ints, strings, `None`) as leaves. Only tensors count.
# - A path is a tuple of the dict keys and list or tuple indices that lead from `batch` to the
#   tensor, outermost first, such as `("extra", 0)` above. When `batch` is itself a tensor, its
#   path is the empty tuple `()`.
# - `device` is a `torch.device` or a string such as `"cpu"` or `"meta"`. Compare whole devices, as
#   `same_device` does; the tests give devices exactly as `tensor.device` shows them (`"cuda:0"`,
#   not `"cuda"`).
# - The order of the paths does not matter. Return an empty list when every tensor is in place, or
#   when there is no tensor at all.
# - Leave `batch` unchanged.

# %% answer find_misplaced
def find_misplaced(batch, device):
    """The paths (tuples of keys and indices) of the tensors in `batch` that are not on `device`."""
    ### BEGIN SOLUTION
    target = torch.device(device)
    found = []

    def walk(node, path):
        if isinstance(node, torch.Tensor):
            if node.device != target:
                found.append(path)
        elif isinstance(node, dict):
            for key, item in node.items():
                walk(item, path + (key,))
        elif isinstance(node, (list, tuple)):
            for index, item in enumerate(node):
                walk(item, path + (index,))

    walk(batch, ())
    return found
    ### END SOLUTION

# %% test find_misplaced points=2
import torch
from course.checks import check_true, passed


def check_paths(found, expected, what):
    """Paths compared by meaning: in any order, each a tuple (or list) of keys and indices."""
    well_formed = isinstance(found, (list, tuple)) and all(isinstance(path, (list, tuple)) for path in found)
    check_true(well_formed, f"Expected {what} to be a list of paths (tuples of keys and indices), but found {found!r:.200}.")
    mine = sorted(repr(tuple(path)) for path in found)
    theirs = sorted(repr(tuple(path)) for path in expected)
    check_true(mine == theirs, f"Expected {what} to be the paths {sorted(expected, key=repr)} (in any order), but found {list(found)!r:.300}.")


batch = {"images": torch.ones(2, 3, device="meta"), "extra": [torch.ones(2), "ids 7-8"]}
check_paths(find_misplaced(batch, "meta"), [("extra", 0)], what="find_misplaced(batch, 'meta') for the lesson's batch")
check_paths(find_misplaced(batch, "cpu"), [("images",)], what="find_misplaced(batch, 'cpu') for the lesson's batch")
passed("find_misplaced")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from course.probes.core import call_watching_inputs


def mixed_batch(home, away):
    deep = torch.zeros(1, device=away)
    for _ in range(6):
        deep = [deep]
    return {
        "images": torch.ones(2, 3, device=home),
        "labels": (torch.tensor([0, 1], device=home), torch.tensor([1, 0], device=away)),
        "info": {"name": "batch-3", "ids": [3, 4], "mask": None, "weights": [torch.ones(2, device=home), torch.ones(2, device=away)]},
        7: torch.tensor(2.5, device=away),
        "empty": [[], (), {}],
        "deep": deep,
    }


away_paths = [("labels", 1), ("info", "weights", 1), (7,), ("deep", 0, 0, 0, 0, 0, 0)]
home_paths = [("images",), ("labels", 0), ("info", "weights", 0)]
check_paths(find_misplaced(mixed_batch("cpu", "meta"), "cpu"), away_paths,
            what="find_misplaced(nested batch, 'cpu') with four meta tensors in it")
check_paths(find_misplaced(mixed_batch("cpu", "meta"), torch.device("meta")), home_paths,
            what="find_misplaced(nested batch, torch.device('meta')) (a torch.device, not a string)")
check_paths(find_misplaced(mixed_batch("cpu", "meta"), torch.device("cpu")), away_paths,
            what="find_misplaced(nested batch, torch.device('cpu'))")
check_paths(find_misplaced(mixed_batch("meta", "meta"), "meta"), [], what="find_misplaced of a batch already all on 'meta'")
check_paths(find_misplaced({"id": 3, "names": ["a", "b"], "none": None, "nested": [[], {}]}, "cpu"), [],
            what="find_misplaced of a batch without any tensor")
check_paths(find_misplaced(torch.ones(3, device="meta"), "cpu"), [()],
            what="find_misplaced(a bare meta tensor, 'cpu') (its path is the empty tuple)")
check_paths(find_misplaced(torch.ones(3), "cpu"), [], what="find_misplaced(a bare CPU tensor, 'cpu')")
check_paths(find_misplaced([(torch.ones(1), torch.ones(1, device="meta")), [torch.ones(1, device="meta")]], "cpu"), [(0, 1), (1, 0)],
            what="find_misplaced of a list holding a tuple and a list")
check_paths(find_misplaced({0: torch.ones(1, device="meta"), "0": torch.ones(1)}, "cpu"), [(0,)],
            what="find_misplaced of a dict whose keys are 0 and '0' (keys kept as they are)")
for dev in test_devices(meta=True):
    place = str(torch.zeros(1, device=dev).device)
    check_paths(find_misplaced(mixed_batch(dev, "cpu" if dev != "cpu" else "meta"), place),
                [("labels", 1), ("info", "weights", 1), (7,), ("deep", 0, 0, 0, 0, 0, 0)],
                what=f"find_misplaced(nested batch, {place!r})")
if torch.cuda.is_available():
    here = torch.device("cuda", torch.cuda.current_device())
    check_paths(find_misplaced({"x": torch.ones(2, device="cuda"), "y": [torch.ones(1)]}, here), [("y", 0)],
                what=f"find_misplaced of a batch made with device='cuda', given {here} (the GPU with its index)")
result, changed = call_watching_inputs(find_misplaced, mixed_batch("cpu", "meta"), "cpu")
check_true(changed == [], "Expected find_misplaced to leave the batch unchanged (measured in your process), but it changed it.")
check_paths(result, away_paths, what="find_misplaced(nested batch, 'cpu')")
### END HIDDEN TESTS

# %% [markdown]
# ## A model's device: read it from its parameters
#
# A model has no `.device` of its own; its parameters do. `next(model.parameters()).device` reads
# the device of the first one, and since a model moves with one `model.to(device)` call, all of them
# normally share it. A function that is handed a model (to evaluate it, say) should read the device
# there instead of assuming one, and bring the inputs to it.
#
# `model.state_dict()` maps names to tensors, in an ordered dict: one entry per parameter, detached
# from autograd but sharing the parameter's memory, and one per buffer, the other tensors a layer
# keeps (`nn.BatchNorm1d`'s running mean and variance, say). For
# `nn.Linear(in_features, out_features)`, which has no buffers, there are two: `"weight"`, of shape
# `(out_features, in_features)`, and `"bias"`, of shape `(out_features,)`; a layer made with
# `bias=False` has no `"bias"` entry. The layer computes `x @ weight.T + bias`.

# %%
layer = nn.Linear(3, 2).to(target)
params = layer.state_dict()
print({name: (tuple(t.shape), str(t.device)) for name, t in params.items()})
print("the layer's device:", next(layer.parameters()).device)
print("without a bias:", list(nn.Linear(3, 2, bias=False).state_dict()))
inputs = torch.randn(4, 3)
outputs = layer(inputs.to(next(layer.parameters()).device))
print("outputs:", tuple(outputs.shape), "on", outputs.device)

# %% [markdown]
# ### Your turn: `linear_on_param_device`
#
# **To write:** `linear_on_param_device(params, x)` computes a linear layer from its state dict on
# the weight's device, wherever `x` comes from.
#
# `params` holds a linear layer's parameters as `layer.state_dict()` gives them: `params["weight"]`
# of shape `(out_features, in_features)` and, unless the layer has no bias, `params["bias"]` of
# shape `(out_features,)`. `x` is a float batch of shape `(N, in_features)` (`N` may be 0) that may
# live on another device, as a batch from a data loader arrives on the CPU.
#
# Return `x @ weight.T + bias` (without the `+ bias` when there is no `"bias"` entry), computed on
# the weight's device, and leave the result there. Do not move or change the parameters, and leave
# `x` unchanged. A bias on another device than the weight means the layer was only half moved: that
# must fail with a `RuntimeError` (adding the two where they are raises one for you). The tests put
# the parameters on `meta` and `x` on the CPU.

# %% answer linear_on_param_device
def linear_on_param_device(params, x):
    """`x @ weight.T + bias` for a linear layer's state dict, computed on the weight's device."""
    ### BEGIN SOLUTION
    weight = params["weight"]
    out = x.to(weight.device) @ weight.T
    if "bias" in params:
        out = out + params["bias"]
    return out
    ### END SOLUTION

# %% test linear_on_param_device points=2
import torch
from course.checks import check_raises, check_tensor, check_true, passed

weight = torch.tensor([[1.0, 0.0, 2.0], [0.0, -1.0, 0.5]])
bias = torch.tensor([0.5, -0.5])
x = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 1.0]])
check_tensor(linear_on_param_device({"weight": weight, "bias": bias}, x), torch.tensor([[7.5, -1.0], [2.5, 0.0]]),
             what="linear_on_param_device with everything on the CPU")
check_tensor(linear_on_param_device({"weight": weight.to("meta"), "bias": bias.to("meta")}, x), torch.empty(2, 2, device="meta"),
             what="linear_on_param_device with the parameters on meta and x on the CPU")
passed("linear_on_param_device")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from course.probes.core import call_watching_inputs

check_tensor(linear_on_param_device({"weight": weight}, x), torch.tensor([[7.0, -0.5], [2.0, 0.5]]),
             what="linear_on_param_device without a 'bias' entry (a layer made with bias=False)")
check_tensor(linear_on_param_device({"weight": weight.to("meta")}, x), torch.empty(2, 2, device="meta"),
             what="linear_on_param_device without a bias, the weight on meta and x on the CPU")
check_tensor(linear_on_param_device({"bias": bias.to("meta"), "weight": weight.to("meta")}, torch.ones(5, 3)), torch.empty(5, 2, device="meta"),
             what="linear_on_param_device with the 'bias' entry listed first")
check_tensor(linear_on_param_device({"weight": weight.to("meta"), "bias": bias.to("meta")}, torch.ones(0, 3)), torch.empty(0, 2, device="meta"),
             what="linear_on_param_device of an empty (0, 3) batch, the parameters on meta")
check_tensor(linear_on_param_device({"weight": weight, "bias": bias}, torch.ones(0, 3)), torch.empty(0, 2),
             what="linear_on_param_device of an empty (0, 3) batch on the CPU")
check_tensor(linear_on_param_device({"weight": weight, "bias": bias}, x.t().contiguous().t()), torch.tensor([[7.5, -1.0], [2.5, 0.0]]),
             what="linear_on_param_device of a transposed (non-contiguous) x")
square = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
check_tensor(linear_on_param_device({"weight": square, "bias": torch.zeros(2)}, torch.tensor([[1.0, 0.0]])), torch.tensor([[1.0, 3.0]]),
             what="linear_on_param_device with a square weight (x @ weight.T, not x @ weight)")
check_raises(RuntimeError, linear_on_param_device, {"weight": weight.to("meta"), "bias": bias}, x,
             what="linear_on_param_device with the weight on meta and the bias on the CPU (a half-moved layer)")
check_raises(RuntimeError, linear_on_param_device, {"weight": weight, "bias": bias.to("meta")}, x,
             what="linear_on_param_device with the weight on the CPU and the bias on meta (a half-moved layer)")
for dev in test_devices(meta=True):
    for source in {"cpu", dev}:
        found = linear_on_param_device({"weight": weight.to(dev), "bias": bias.to(dev)}, x.to(source))
        check_tensor(found, torch.tensor([[7.5, -1.0], [2.5, 0.0]], device=dev),
                     what=f"linear_on_param_device with the parameters on {dev} and x on {source}")
params = {"weight": weight.clone(), "bias": bias.clone()}
result, changed = call_watching_inputs(linear_on_param_device, params, x.clone())
check_true(changed == [],
           f"Expected linear_on_param_device to leave the parameters and x unchanged (measured in your process), but it changed {changed}.")
check_tensor(result, torch.tensor([[7.5, -1.0], [2.5, 0.0]]), what="linear_on_param_device with everything on the CPU")
### END HIDDEN TESTS

# %% [markdown]
# ## A GPU is not used automatically
#
# Having a GPU in the machine, and CUDA installed, makes nothing faster by itself. New tensors and
# new models start on the CPU, and the work runs wherever their data is. You opt in by sending the
# model and the data to the device yourself.

# %%
fresh = torch.randn(1000, 1000)
layer = nn.Linear(10, 2)
print("GPU visible:", torch.cuda.is_available())
print("a new tensor lives on", fresh.device, "and a new layer's weights on", layer.weight.device)

# %%
# Try it: send `layer` and `fresh` to `device`, and print their devices again.

# %% [markdown]
# ## Common mistakes
#
# ### Ignoring devices: the model on the GPU, the inputs on the CPU
#
# The most common device bug: the model was moved with `model.to(device)`, but a batch from the data
# loader (or a tensor made mid-way without `device=`) was not. The forward pass then mixes devices
# and fails with the mismatch error. Here the model goes to `target` (the GPU if there is one, `meta`
# otherwise) and the input stays on the CPU:

# %%
model = nn.Linear(4, 2).to(target)
inputs = torch.randn(8, 4)
try:
    model(inputs)
except RuntimeError as err:
    print("RuntimeError:", err)
print("fixed:", model(inputs.to(target)).shape)

# %% [markdown]
# ### Forgetting that `.to` returns a new tensor
#
# `x.to(device)` on its own line leaves `x` where it was. Write `x = x.to(device)`. (Models are the
# exception: `model.to(device)` moves the model itself.)
#
# ### Hard-coding devices
#
# Writing `"cuda"` in one place and leaving the default CPU in another is how mismatches creep in, and
# a hard-coded `"cuda"` crashes on a machine without a GPU. Define `device` once at the top and use
# that variable everywhere.
#
# ### Assuming a GPU is used automatically
#
# A tensor does not run faster because a GPU exists. Until you move it, everything runs on the CPU.
# Check with `t.device` and `next(model.parameters()).device`.
#
# ### Ferrying data back and forth
#
# Each `.to` across the bus is a real copy. Moving tensors to the GPU and back inside a loop (or
# calling `.item()` or `.cpu()` on every step) can make GPU code slower than CPU code. Some copies
# hide in plain sight: `.item()`, `print(t)`, `bool(t)` and so `if t > 0:` on a GPU tensor all copy its
# value to the CPU (and wait for the GPU to finish) without a `.to` in sight. Move the data
# once, keep the work on the device, and bring back only what you need.

# %% [markdown]
# ## Recap
#
# - Every tensor has a `.device`; new tensors live on the CPU unless you say otherwise.
# - `device = torch.device("cuda" if torch.cuda.is_available() else "cpu")`, once, at the top.
# - `x.to(device)` returns a new tensor; keep it with `x = x.to(device)`. Models move in place.
# - Create tensors where they are needed with `device=`, or with the `*_like` functions.
# - On most machines CPU RAM and GPU VRAM are separate, and the PCIe bus between them is slow, so
#   cross it rarely; `.item()`, `print(t)` and `if t:` cross it too.
# - Every tensor with dimensions in one operation must live on one device, or PyTorch raises a
#   `RuntimeError`; only a 0-d CPU tensor may join an operation elsewhere.
# - A `torch.device` compares its index too: `torch.device("cuda") != torch.device("cuda:0")`, and a
#   GPU tensor's `.device` always has one. Compare `.type` when any GPU will do.
#
# Next: lesson {04_numpy} moves data between NumPy arrays and tensors, and shows when the two share memory.

# %%
# Try it: write a line that would fail on a GPU machine because of a forgotten device=, then fix it.
