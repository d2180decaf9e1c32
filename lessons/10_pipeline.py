# %% [markdown]
# # Lesson 10: the GPU pipeline
#
# Lesson {03_device} taught where a tensor lives and why every tensor of an operation must share a device.
# This lesson is about the week you first train on a GPU: comparing devices correctly, moving data
# in few large copies, timing code that runs asynchronously, overlapping copies with compute,
# saving on one machine and loading on another, making a run repeat exactly, and running a model
# for inference.
#
# **You will learn to**
#
# - compare devices correctly: `cuda` and `cuda:0`, `torch.device` equality, `x.is_cuda`, `device.type`;
# - measure one large transfer against many small ones with `torch.utils.benchmark`;
# - time GPU code correctly, and recognise the calls that make Python wait for the GPU;
# - use pinned memory and `non_blocking=True`, and say when they help;
# - save a `state_dict` and load it anywhere with `map_location` and `weights_only`;
# - seed a run so that it repeats bit for bit, and know what CUDA adds to that;
# - run inference under `torch.inference_mode()`, and with bfloat16 autocast.
#
# This notebook runs on any machine. Without a GPU, the cells run on the CPU, and where a rule
# needs a second device they use PyTorch's `meta` device (shapes and dtypes, no values), saying what
# would differ on a GPU. With a GPU, the CUDA cells run for real.

# %%
import torch
from torch import nn

from course.device import describe_setup

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(describe_setup(device))

# %% [markdown]
# ## Device identity: cuda versus cuda:0
#
# A `torch.device` has a type and an index. `torch.device("cuda")` has no index: it means "the
# current CUDA device", whichever that is when a tensor is made. A tensor always knows exactly where
# it is, so a tensor made with `device="cuda"` reports `cuda:0` (on a one-GPU machine, or when GPU 0
# is current). Two `torch.device` objects are equal only when both the type and the index are equal,
# and "no index" is not the same as index 0: `torch.device("cuda") == torch.device("cuda:0")` is
# `False`.

# %%
print(torch.device("cuda") == torch.device("cuda:0"), torch.device("cuda").index, torch.device("cuda:0").index)
print(torch.device("cuda:0").type == torch.device("cuda").type)
x = torch.ones(2)
print(x.device, x.device.type, x.device.index, x.is_cuda)
if torch.cuda.is_available():
    on_gpu = torch.ones(2, device="cuda")
    print(on_gpu.device, on_gpu.is_cuda, on_gpu.device == torch.device("cuda"))
else:
    print("No GPU here: on one, torch.ones(2, device='cuda').device would print cuda:0.")

# %% [markdown]
# So a check such as `x.device == torch.device("cuda")` is `False` for every CUDA tensor, and the
# code behind it silently takes the wrong branch. Ask the question you mean instead:
#
# - "is this tensor on a GPU at all?" is `x.is_cuda`, or `x.device.type == "cuda"`;
# - "are these two on the same device?" compares two devices that both come from tensors
#   (`a.device == b.device`): a CUDA tensor's device always carries its index;
# - "is it on the device I configured?" needs the configured device with its index filled in.
#
# Apple GPUs appear as the device type `mps` (Metal Performance Shaders). `torch.device("mps")`
# names one, and `torch.backends.mps.is_available()` says whether this machine has one. The rules of
# this lesson hold there too, with `torch.mps.synchronize()` in place of `torch.cuda.synchronize()`.

# %%
print(torch.device("mps").type, torch.backends.mps.is_available())

# %% [markdown]
# ### Quiz: is it on the GPU?
#
# On a machine with one GPU:
#
# ```python
# x = torch.ones(3, device="cuda")
# places = {x.device, torch.device("cuda:0"), torch.device("cuda")}
# ```
#
# What is `len(places)`? (A set keeps one of each group of equal elements.)
#
# - **A.** 2
# - **B.** 1
# - **C.** 3
# - **D.** a `TypeError`

# %% answer answer_cuda_index quiz=rule
# One upper-case letter as a string, for example "A".
answer_cuda_index = None
### BEGIN SOLUTION
answer_cuda_index = "A"
### END SOLUTION

# %% test answer_cuda_index points=1
from course.quiz import check_choice, form_checked

check_choice(answer_cuda_index, "ABCD", name="answer_cuda_index")
form_checked("answer_cuda_index")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_cuda_index, "A", name="answer_cuda_index",
          why="A CUDA tensor's device always has an index: x.device is cuda:0, equal to torch.device('cuda:0'). "
              "torch.device('cuda') has no index, and devices compare (and hash) by type and index, so it is a second "
              "element: 2. Devices are compared by value, not identity (not C), and they can go into sets (not D). "
              "Use x.is_cuda or x.device.type == 'cuda' when any GPU will do.")
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `same_place`
#
# **To write:** `same_place(a, b)` says whether two devices, device names or tensors' devices are
# the same place.
#
# Return `True` when `a` and `b` name the same device, `False` otherwise. Each of `a` and `b` is a
# `torch.device`, a string such as `"cuda:1"`, or a tensor (then its device counts).
#
# - A device without an index stands for the current device of its type: on a machine with CUDA,
#   `"cuda"` means `torch.cuda.current_device()`; everywhere else (and for every other type) it
#   means index 0. So `"cuda"` and `"cuda:0"` are the same place on a machine without CUDA, and so
#   are `"cpu"` and `"cpu:0"`.
# - Different types are different places (`cpu` and `meta`), and so are different indices
#   (`cuda:0` and `cuda:1`).
#
# Nothing is moved or created on a GPU: the tests pass device names, which need no GPU.

# %% answer same_place
def same_place(a, b):
    """Whether `a` and `b` (devices, device strings or tensors) name one device, an absent index read as the current one."""
    ### BEGIN SOLUTION
    def resolve(where):
        place = where.device if isinstance(where, torch.Tensor) else torch.device(where)
        if place.index is not None:
            return place.type, place.index
        if place.type == "cuda" and torch.cuda.is_available():
            return "cuda", torch.cuda.current_device()
        return place.type, 0

    return resolve(a) == resolve(b)
    ### END SOLUTION

# %% test same_place points=2
import torch
from course.checks import check_equal, passed

check_equal(same_place("cpu", torch.device("cpu")), True, what="same_place('cpu', torch.device('cpu'))")
check_equal(same_place("cpu", "meta"), False, what="same_place('cpu', 'meta')")
check_equal(same_place(torch.ones(2), "cpu"), True, what="same_place(a CPU tensor, 'cpu')")
check_equal(same_place("cuda:0", "cuda:1"), False, what="same_place('cuda:0', 'cuda:1')")
current = torch.cuda.current_device() if torch.cuda.is_available() else 0
check_equal(same_place("cuda", "cuda:0"), current == 0, what="same_place('cuda', 'cuda:0'), where 'cuda' means the current GPU")
passed("same_place")
### BEGIN HIDDEN TESTS
cases = [
    ((torch.device("cuda:0"), torch.device("cuda")), current == 0, "same_place(torch.device('cuda:0'), torch.device('cuda'))"),
    (("cuda", f"cuda:{current}"), True, f"same_place('cuda', 'cuda:{current}'): the current device"),
    (("cuda", f"cuda:{current + 1}"), False, f"same_place('cuda', 'cuda:{current + 1}')"),
    (("cuda:1", torch.device("cuda", 1)), True, "same_place('cuda:1', torch.device('cuda', 1))"),
    (("cpu:0", "cpu"), True, "same_place('cpu:0', 'cpu')"),
    ((torch.device("cpu"), torch.device("cpu", 0)), True, "same_place(torch.device('cpu'), torch.device('cpu', 0))"),
    (("cpu", "cuda"), False, "same_place('cpu', 'cuda')"),
    (("cuda:0", "cpu:0"), False, "same_place('cuda:0', 'cpu:0'): same index, different types"),
    ((torch.ones(2, device="meta"), "meta"), True, "same_place(a meta tensor, 'meta')"),
    ((torch.ones(2, device="meta"), torch.ones(3)), False, "same_place(a meta tensor, a CPU tensor)"),
    ((torch.ones(2), torch.zeros(0, dtype=torch.int64)), True, "same_place(two CPU tensors)"),
    (("meta", torch.device("meta")), True, "same_place('meta', torch.device('meta'))"),
    ((torch.ones(1), "cuda:0"), False, "same_place(a CPU tensor, 'cuda:0')"),
]
for (a, b), expected, what in cases:
    check_equal(same_place(a, b), expected, what=what)
    check_equal(same_place(b, a), expected, what=what + " with the arguments swapped")
if torch.cuda.is_available():
    on_gpu = torch.ones(2, device="cuda")
    check_equal(same_place(on_gpu, "cuda"), True, what="same_place(a tensor made with device='cuda', 'cuda')")
    check_equal(same_place(on_gpu, torch.device("cuda", current)), True, what=f"same_place(a CUDA tensor, 'cuda:{current}')")
    check_equal(same_place(on_gpu, "cpu"), False, what="same_place(a CUDA tensor, 'cpu')")
### END HIDDEN TESTS

# %% [markdown]
# ## Transfers: one copy versus many
#
# Every copy has a fixed cost before its first byte moves: PyTorch checks the tensors and picks a
# kernel, and a copy to a GPU also starts a transfer over the bus. For a few numbers that fixed cost
# is all there is, so copying N numbers one at a time costs about N times the fixed cost, while
# copying them in one call costs it once.
#
# `torch.utils.benchmark.Timer` measures this fairly: `Timer(stmt, globals=...).timeit(n)` runs the
# statement to warm up, then `n` times, and its `.median` is the time of one run. It uses one CPU
# thread unless told otherwise, and on a GPU it waits for the GPU to finish before reading the clock.
#
# Without a GPU there is no bus to cross, so the cell below measures copies from one CPU buffer into
# another: what it shows is the fixed cost per call, which a GPU copy pays too, plus its start-up
# over the bus. With a GPU, the next cell measures copies to the GPU as well.

# %%
from torch.utils import benchmark

from course.pictures.indexing import timing_curves


def time_copies(sizes, where):
    """Seconds per call: one copy of N numbers to `where`, and N copies of one number each."""
    seconds = {"one copy of N numbers": [], "N copies of one number": []}
    for n in sizes:
        source = torch.randn(n)
        target = torch.empty(n, device=where)
        pieces = list(zip(target.split(1), source.split(1)))

        def one():
            target.copy_(source)

        def many():
            for into, piece in pieces:
                into.copy_(piece)

        for name, job, runs in (("one copy of N numbers", one, 20), ("N copies of one number", many, 2)):
            seconds[name].append(benchmark.Timer("job()", globals={"job": job}).timeit(runs).median)
    return seconds


sizes = [16, 64, 256, 1024]
cpu_seconds = time_copies(sizes, "cpu")
for name, times in cpu_seconds.items():
    print(f"{name:24} " + "  ".join(f"N={n}: {t * 1e6:8.1f} µs" for n, t in zip(sizes, times)))
timing_curves(sizes, cpu_seconds, title="CPU to CPU: one copy versus many")

# %% [markdown]
# The many-copies line climbs with N, and the one-copy line hardly moves: the time is the number of
# calls, not the number of bytes. (Timings are noisy; read the slopes, not the digits.)

# %%
cuda_picture = None
if torch.cuda.is_available():
    cuda_seconds = time_copies(sizes, "cuda")
    for name, times in cuda_seconds.items():
        print(f"{name:24} " + "  ".join(f"N={n}: {t * 1e6:8.1f} µs" for n, t in zip(sizes, times)))
    cuda_picture = timing_curves(sizes, cuda_seconds, title="CPU to GPU: one copy versus many")
else:
    print("No GPU here: the CPU picture above is the whole story on this machine.")
cuda_picture

# %% [markdown]
# ## Asynchronous execution and synchronisation
#
# A CUDA operation called from Python does not wait for the GPU: PyTorch puts the kernel in a queue
# (a *stream*) and returns at once, and the GPU works through the queue on its own. That is what lets
# Python prepare the next batch while the GPU computes. It also means that
#
# ```python
# start = time.perf_counter()
# y = a @ a                      # a on the GPU
# print(time.perf_counter() - start)
# ```
#
# measures only how long it took to queue the product. To time GPU work, wait for the queue to
# empty with `torch.cuda.synchronize()` before each reading of the clock, or record CUDA events
# (`torch.cuda.Event(enable_timing=True)`, `.record()` before and after, `end.synchronize()`, then
# `start.elapsed_time(end)` in milliseconds). `torch.utils.benchmark` does the waiting for you.
#
# Some calls wait for the GPU without saying so, because they need the values: `.item()`,
# `.tolist()`, `.cpu()` and `.to("cpu")`, printing a CUDA tensor, and `bool(t)`, which is what
# `if t > 0:` calls. One of those in every step of a loop makes Python wait for the GPU every time.
#
# On the CPU, and on `meta`, every operation has finished when the call returns: there is nothing to
# wait for, and `torch.cuda.synchronize()` on a machine without CUDA raises an error.

# %%
import time

a = torch.randn(512, 512, device=device)
start = time.perf_counter()
product = a @ a
queued = time.perf_counter() - start
if device.type == "cuda":
    torch.cuda.synchronize()
finished = time.perf_counter() - start
print(f"{device}: the call returned after {queued * 1e3:.2f} ms, the work was done after {finished * 1e3:.2f} ms")
if device.type == "cuda":
    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    begin.record()
    product = a @ a
    end.record()
    end.synchronize()
    print(f"CUDA events: {begin.elapsed_time(end):.2f} ms")
else:
    print("On the CPU the two readings agree: the product was finished when the call returned.")

# %% [markdown]
# ### Quiz: a suspiciously fast GPU
#
# `a` and `b` are two 8192x8192 float32 matrices on a GPU. A student times
#
# ```python
# start = time.perf_counter()
# c = a @ b
# total = c.sum().item()
# elapsed = time.perf_counter() - start
# ```
#
# with no `torch.cuda.synchronize()` anywhere. What does `elapsed` cover?
#
# - **A.** Only the time to queue the two kernels: nothing called `torch.cuda.synchronize()`.
# - **B.** The product and the sum, finished: `.item()` has to wait for the GPU.
# - **C.** Only the sum: the product had finished before `c.sum()` was queued.
# - **D.** Nothing: `.item()` raises, because `total` would live on the GPU.

# %% answer answer_unsynced_timing quiz=rule
# One upper-case letter as a string, for example "A".
answer_unsynced_timing = None
### BEGIN SOLUTION
answer_unsynced_timing = "B"
### END SOLUTION

# %% test answer_unsynced_timing points=1
from course.quiz import check_choice, form_checked

check_choice(answer_unsynced_timing, "ABCD", name="answer_unsynced_timing")
form_checked("answer_unsynced_timing")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_unsynced_timing, "B", name="answer_unsynced_timing",
          why="CUDA calls return as soon as the kernel is queued, so a @ b and c.sum() return at once (an 8192x8192 "
              "product is still running then, not C). .item() copies the number to the CPU, which needs it finished: "
              "it waits for everything queued before it, product included, so the clock is read after the work "
              "(not A). .item() returns a Python number on the CPU (not D).")
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `synchronize_if_needed`
#
# **To write:** `synchronize_if_needed(where)` waits for a CUDA device and returns True; for any
# other device it returns False.
#
# A timer that reads the clock around GPU work must wait for the device first, and must not try to
# on a device that has nothing to wait for. Write `synchronize_if_needed(where)`:
#
# - `where` is a `torch.device`, a device string (`"cpu"`, `"meta"`, `"cuda"`, `"cuda:1"`) or a
#   tensor (then its device counts);
# - when it is a CUDA device, wait for that device's queued work with `torch.cuda.synchronize(...)`
#   and return `True`;
# - for any other device (the CPU, `meta`), do nothing and return `False`. This must work on a
#   machine without CUDA, where calling `torch.cuda.synchronize()` raises an error.

# %% answer synchronize_if_needed
def synchronize_if_needed(where):
    """Wait for queued work when `where` (a device, a string or a tensor) is a CUDA device; True if it waited."""
    ### BEGIN SOLUTION
    place = where.device if isinstance(where, torch.Tensor) else torch.device(where)
    if place.type != "cuda":
        return False
    torch.cuda.synchronize(place)
    return True
    ### END SOLUTION

# %% test synchronize_if_needed points=2
import torch
from course.checks import check_equal, passed

check_equal(synchronize_if_needed("cpu"), False, what="synchronize_if_needed('cpu')")
check_equal(synchronize_if_needed(torch.ones(2)), False, what="synchronize_if_needed(a CPU tensor)")
passed("synchronize_if_needed")
### BEGIN HIDDEN TESTS
for where, what in ((torch.device("cpu"), "torch.device('cpu')"), ("meta", "'meta'"), (torch.device("meta"), "torch.device('meta')"),
                    (torch.zeros(2, 3, device="meta"), "a meta tensor"), ("cpu:0", "'cpu:0'"), (torch.tensor(1.5), "a 0-d CPU tensor")):
    check_equal(synchronize_if_needed(where), False, what=f"synchronize_if_needed({what})")
if torch.cuda.is_available():
    for where, what in (("cuda", "'cuda'"), ("cuda:0", "'cuda:0'"), (torch.device("cuda", 0), "torch.device('cuda', 0)"),
                        (torch.ones(2, device="cuda"), "a CUDA tensor")):
        check_equal(synchronize_if_needed(where), True, what=f"synchronize_if_needed({what})")
### END HIDDEN TESTS

# %% [markdown]
# ## Pinned memory and non_blocking
#
# Ordinary CPU memory is *pageable*: the operating system may move it around, so on most machines
# the GPU cannot read it directly. To copy from it, CUDA first copies the bytes into a *pinned*
# (page-locked) staging buffer, then from there to the GPU. A tensor already in pinned memory
# (`t.pin_memory()`, `t.is_pinned()`) skips the staging copy, and from pinned memory
# `t.to("cuda", non_blocking=True)` returns at once: the copy is queued on the current stream like a
# kernel, and Python goes on (loading the next batch, queueing more work) while the bytes cross the
# bus. From pageable memory the same call returns only once the bytes have been staged, so the
# source can be reused at once, and the values that arrive are right either way.
#
# A stream runs its work in order: a copy waits for the kernels queued on its stream before it, and
# the kernels queued after it wait for the copy. So on the one default stream the GPU never copies
# the next batch *while* it computes on this one. For that overlap the copy goes on a second stream,
# `side = torch.cuda.Stream()`, inside `with torch.cuda.stream(side):`, and the compute stream is
# told to wait for it before using the batch: `torch.cuda.current_stream().wait_stream(side)`.
#
# `DataLoader(..., pin_memory=True)` puts each batch in pinned memory as it is made, which is the
# usual way to get pinned batches; pinning is itself a copy, so pinning every tensor by hand right
# before sending it only adds work. Two cautions. A copy from the GPU to the CPU with
# `non_blocking=True` may return before the values have arrived: synchronise before reading them.
# And pinned memory cannot be swapped out, so pinning large amounts starves the rest of the machine.
#
# Pinning needs an accelerator: without one, `pin_memory()` raises a `RuntimeError`, and a
# `DataLoader` with `pin_memory=True` warns and hands out ordinary batches.

# %%
import warnings

from torch.utils.data import DataLoader, TensorDataset

print("a new tensor is pinned:", torch.ones(3).is_pinned())
try:
    pinned = torch.ones(3).pin_memory()
    print("pinned:", pinned.is_pinned())
except RuntimeError as err:
    print("RuntimeError:", err)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    first, _ = next(iter(DataLoader(TensorDataset(torch.randn(8, 3), torch.arange(8)), batch_size=4, pin_memory=True)))
print("a batch from DataLoader(pin_memory=True) is pinned:", first.is_pinned(), "| warnings:", len(caught))

# %% [markdown]
# ### Your turn: `send_batch`
#
# **To write:** `send_batch(batch, device)` moves a nested batch to `device`, with
# `non_blocking=True` exactly for the pinned tensors.
#
# Move a batch to `device` the way a training loop should: every tensor goes to `device`, with
# `non_blocking=True` exactly for the tensors that are pinned (`t.is_pinned()`) and a blocking copy
# for all the others. The rule is safe in every direction: a GPU tensor is never pinned, and a
# non-blocking copy of one to the CPU could hand back a tensor whose values have not arrived yet.
#
# - `batch` is nested as in lesson {03_device}'s `move_batch`: dicts (keys kept in order), lists and tuples
#   to any depth, with tensors and other values (ints, strings, `None`) as leaves, which come back
#   as they are;
# - build new containers; leave the batch you were given unchanged.
#
# The tests record each copy your function makes (whether its source was pinned, and whether it
# asked for `non_blocking`). On a machine without a GPU nothing can be pinned, so there every copy
# must be a blocking one, and the batches go to `meta`; on a GPU the tests send pinned and ordinary
# tensors to CUDA.

# %% answer send_batch
def send_batch(batch, device):
    """`batch` with every tensor on `device`, copied with non_blocking=True exactly when it is pinned."""
    ### BEGIN SOLUTION
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=batch.is_pinned())
    if isinstance(batch, dict):
        return {key: send_batch(value, device) for key, value in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(send_batch(value, device) for value in batch)
    return batch
    ### END SOLUTION

# %% test send_batch points=3
import torch
from course.checks import check_nested, check_true, passed
from course.probes.pipeline import call_recording_copies

batch = {"images": torch.ones(2, 3), "labels": torch.tensor([0, 1]), "name": "batch-0"}
moved, copies = call_recording_copies(send_batch, batch, "meta")
check_nested(moved, {"images": torch.ones(2, 3, device="meta"), "labels": torch.tensor([0, 1], device="meta"), "name": "batch-0"},
             what="send_batch(batch, 'meta')")
check_true(all(not copy["non_blocking"] for copy in copies if not copy["pinned"]),
           f"Expected every copy of a tensor that is not pinned to be a blocking one, but found {copies}.")
passed("send_batch")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from course.probes.core import call_watching_inputs


def nested_batch(dev):
    deep = torch.full((2,), 3.0, device=dev)
    for _ in range(8):
        deep = [deep]
    return {
        "z_images": torch.arange(24.0).reshape(2, 3, 4).to(dev),
        "a_labels": (torch.tensor([1, 0], device=dev), "two labels"),
        "info": {"ids": [3, 4], "mask": None, "weight": 0.5, "flag": True},
        "pairs": [(torch.ones(1, device=dev), 2), (torch.zeros(0, 3, device=dev), None)],
        "empty": [[], (), {}],
        "view": torch.arange(6.0).reshape(2, 3).t().to(dev),
        "deep": deep,
        "half": torch.ones(2, dtype=torch.float16, device=dev),
    }


def check_copies(copies, what, *, pinned_expected=0):
    check_true(isinstance(copies, list), f"Expected the copies of {what} to be recorded, but found {copies!r:.200}.")
    wrong = [copy for copy in copies if copy["non_blocking"] != copy["pinned"]]
    check_true(wrong == [], f"Expected {what} to use non_blocking=True exactly for pinned tensors, but found copies {wrong}.")
    fast = sum(1 for copy in copies if copy["pinned"] and copy["non_blocking"])
    check_true(fast >= pinned_expected,
               f"Expected {what} to send its {pinned_expected} pinned tensors with non_blocking=True, but only {fast} were.")


for dev in test_devices(meta=True):
    moved, copies = call_recording_copies(send_batch, nested_batch("cpu"), dev)
    check_nested(moved, nested_batch(dev), what=f"send_batch(nested batch, '{dev}')")
    check_copies(copies, f"send_batch(nested batch of ordinary CPU tensors, '{dev}')")
moved, copies = call_recording_copies(send_batch, torch.ones(3), "meta")
check_nested(moved, torch.ones(3, device="meta"), what="send_batch(a bare tensor, 'meta')")
check_copies(copies, "send_batch(a bare tensor, 'meta')")
for plain in ("not a tensor", 5, None, [1, "a", None]):
    moved, copies = call_recording_copies(send_batch, plain, "meta")
    check_nested(moved, plain, what=f"send_batch({plain!r}, 'meta')")
result, changed = call_watching_inputs(send_batch, nested_batch("cpu"), "meta")
check_true(changed == [], "Expected send_batch to leave the batch it was given unchanged (measured in your process), but it changed it.")
if torch.cuda.is_available():
    pinned_batch = {"images": torch.ones(4, 3).pin_memory(), "labels": torch.arange(4).pin_memory(),
                    "extra": [torch.zeros(2), (torch.ones(1).pin_memory(), "id")]}
    moved, copies = call_recording_copies(send_batch, pinned_batch, "cuda")
    check_nested(moved, {"images": torch.ones(4, 3, device="cuda"), "labels": torch.arange(4, device="cuda"),
                         "extra": [torch.zeros(2, device="cuda"), (torch.ones(1, device="cuda"), "id")]},
                 what="send_batch(a batch with three pinned tensors and one ordinary one, 'cuda')")
    check_copies(copies, "send_batch(a batch with three pinned tensors, 'cuda')", pinned_expected=3)
### END HIDDEN TESTS

# %% [markdown]
# ## Saving and loading
#
# A model's learned numbers are in its `state_dict()`: a dict from parameter (and buffer) names to
# tensors. Save that, not the model object: `torch.save(model.state_dict(), path)` writes it, and
# `model.load_state_dict(torch.load(path))` reads it back into a model built by the same code.
# `torch.save` takes a file path or any binary file object, such as an `io.BytesIO`.
#
# Each tensor is saved with the device it lived on. Loading a checkpoint written on a GPU, on a
# machine without one, fails unless you say where the tensors should go: `map_location="cpu"` (or
# any device, `"meta"` included) sends every tensor there as it is read.
#
# `torch.load` unpickles, and unpickling can run code hidden in the file. With `weights_only=True`
# (the default since PyTorch 2.6) it accepts only tensors, plain containers and numbers, and refuses
# anything else with a `pickle.UnpicklingError`. Pass it explicitly, and never load a file you do
# not trust with `weights_only=False`.
#
# `model.load_state_dict(state)` copies the values into the model's own tensors, which stay where
# they are: loading CPU tensors into a model on a GPU leaves the model on the GPU. To move the model
# itself, use `model.to(device)`.

# %%
import io
import pickle
import warnings
from fractions import Fraction

model = nn.Linear(4, 2)
buffer = io.BytesIO()
torch.save(model.state_dict(), buffer)
data = buffer.getvalue()
state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
print({name: (tuple(t.shape), str(t.device)) for name, t in state.items()})
on_meta = torch.load(io.BytesIO(data), map_location="meta", weights_only=True)
print("with map_location='meta':", {name: str(t.device) for name, t in on_meta.items()})
fresh = nn.Linear(4, 2)
fresh.load_state_dict(state)
print("same weights after the round trip:", torch.equal(fresh.weight, model.weight))
target = device if device.type == "cuda" else torch.device("meta")
elsewhere = nn.Linear(4, 2).to(target)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # on meta the copy is a no-op, and PyTorch warns about it
    elsewhere.load_state_dict(state)
print("a model on", target, "stays there after loading CPU tensors:", elsewhere.weight.device)
risky = io.BytesIO()
torch.save({"weight": torch.ones(2), "note": Fraction(1, 3)}, risky)
try:
    torch.load(io.BytesIO(risky.getvalue()), weights_only=True)
except pickle.UnpicklingError as err:
    print("UnpicklingError:", str(err).splitlines()[0])

# %% [markdown]
# ### Your turn: `load_checkpoint`
#
# **To write:** `load_checkpoint(data, device)` loads the bytes of a checkpoint onto `device`,
# whatever device saved it, without running code from the file.
#
# `data` is the bytes of a checkpoint written by `torch.save`, possibly on another machine. It
# holds a dict whose values are tensors, numbers, strings or dicts of those (a model's
# `state_dict`, perhaps under a key, with an epoch number beside it). Return what it holds with every
# tensor on `device`:
#
# - it must load on any machine, whatever device the tensors were saved from (a checkpoint written
#   on a GPU included);
# - it must never run code from the file: a checkpoint holding anything but tensors, plain
#   containers, numbers and strings must raise `pickle.UnpicklingError` (let `torch.load`'s own
#   error through);
# - `device` is a `torch.device` or a string; dtypes, shapes and values are kept.
#
# The tests load onto the CPU and `meta`, from checkpoints written on the CPU and ones that say
# they were written on `cuda:0`.

# %% answer load_checkpoint
def load_checkpoint(data, device):
    """The dict saved in the checkpoint bytes `data`, every tensor on `device`; refuses anything but weights."""
    ### BEGIN SOLUTION
    import io

    return torch.load(io.BytesIO(data), map_location=device, weights_only=True)
    ### END SOLUTION

# %% test load_checkpoint points=3
import io
from fractions import Fraction

import torch
from course.checks import check_nested, check_raises, check_true, passed


def check_refused(data, what):
    """torch.load's own pickle.UnpicklingError, read by its name (the grader rebuilds errors from the notebook by name)."""
    refused = check_raises(Exception, load_checkpoint, data, "cpu", what=what)
    check_true(type(refused).__name__ == "UnpicklingError",
               f"Expected {what} to raise pickle.UnpicklingError, but it raised {type(refused).__name__}: {refused}")


written = io.BytesIO()
torch.save({"weight": torch.tensor([[1.0, 2.0]]), "bias": torch.tensor([0.5])}, written)
check_nested(load_checkpoint(written.getvalue(), "cpu"), {"weight": torch.tensor([[1.0, 2.0]]), "bias": torch.tensor([0.5])},
             what="load_checkpoint(a saved state_dict, 'cpu')")
check_nested(load_checkpoint(written.getvalue(), "meta"), {"weight": torch.empty(1, 2, device="meta"), "bias": torch.empty(1, device="meta")},
             what="load_checkpoint(a saved state_dict, 'meta')")
risky = io.BytesIO()
torch.save({"weight": torch.ones(2), "note": Fraction(1, 3)}, risky)
check_refused(risky.getvalue(), what="load_checkpoint of a file holding a Fraction object")
passed("load_checkpoint")
### BEGIN HIDDEN TESTS
import datetime

from course.device import test_devices
from instructor.pipeline import checkpoint_bytes

state = {"layer.weight": torch.arange(6.0).reshape(2, 3), "layer.bias": torch.tensor([0.25, -1.0]),
         "counts": torch.tensor([3, 1, 4], dtype=torch.int64), "half": torch.ones(2, dtype=torch.float16)}
full = {"model": state, "epoch": 7, "lr": 0.05, "name": "run-3", "history": [1.5, 0.75], "scalar": torch.tensor(2.5)}
for dev in test_devices(meta=True):
    moved = {key: value.to(dev) for key, value in state.items()}
    expected = dict(full, model=moved, scalar=torch.tensor(2.5, device=dev))
    for saved_on in ("cpu", "cuda:0"):
        for where in (dev, torch.device(dev)):
            check_nested(load_checkpoint(checkpoint_bytes(full, saved_on=saved_on), where), expected,
                         what=f"load_checkpoint(a checkpoint written on {saved_on}, {where!r})")
    check_nested(load_checkpoint(checkpoint_bytes(state, saved_on="cuda:1"), dev), moved,
                 what=f"load_checkpoint(a state_dict written on cuda:1, '{dev}')")
check_nested(load_checkpoint(checkpoint_bytes({}, saved_on="cpu"), "cpu"), {}, what="load_checkpoint of an empty dict")
for name, hostile in (("a Fraction", {"w": torch.ones(1), "x": Fraction(2, 3)}),
                      ("a datetime.date", {"w": torch.ones(1), "day": datetime.date(2024, 1, 31)}),
                      ("a function", {"w": torch.ones(1), "f": print})):
    for saved_on in ("cpu", "cuda:0"):
        check_refused(checkpoint_bytes(hostile, saved_on=saved_on), what=f"load_checkpoint of a checkpoint holding {name} (written on {saved_on})")
### END HIDDEN TESTS

# %% [markdown]
# ## Reproducibility
#
# A run repeats only when every random number in it comes from a seeded generator:
#
# - `torch.manual_seed(seed)` seeds PyTorch's global generator on the CPU and on every GPU
#   (initial weights, dropout, `torch.randn`);
# - `random.seed(seed)` and `numpy.random.seed(seed)` seed Python's and NumPy's, if your code
#   uses them;
# - a shuffling `DataLoader` draws its order from the `generator=` you give it (the training
#   lesson), and each
#   worker process (`num_workers > 0`) seeds its own PyTorch, Python and NumPy generators from it,
#   one seed per worker (other libraries need a `worker_init_fn` that seeds them).
#
# The seed must be set inside the run, right before the random numbers are drawn: a seed set once at
# the top of a notebook is used up by whatever ran since.
#
# Seeding fixes the random numbers, not the arithmetic. Some CUDA kernels add floating-point numbers
# in whatever order the GPU's threads finish (atomic additions in `index_add_`, `scatter_add_` and the
# backward passes of some pooling and interpolation layers), and float addition is not associative,
# so two runs can differ in the last bits. `torch.use_deterministic_algorithms(True)` makes PyTorch
# pick deterministic kernels, and raise a `RuntimeError` for an operation that has none (on CUDA,
# `torch.histc` is one); cuBLAS also needs the environment variable
# `CUBLAS_WORKSPACE_CONFIG=:4096:8`, and `torch.backends.cudnn.benchmark = False` stops cuDNN from
# choosing its algorithms by timing them. The CPU is not exempt: a float sum is split among the
# threads, so the same sum can end in other bits when the number of threads changes
# (`torch.set_num_threads`). Run for run, on one machine with the same settings, the CPU gives the
# same bits.

# %%
import random

import numpy as np


def draw(seed):
    """One number from each generator, after seeding all three."""
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)
    return torch.rand(1).item(), random.random(), float(np.random.rand())


print(draw(0) == draw(0), draw(0) == draw(1))
print("deterministic algorithms:", torch.are_deterministic_algorithms_enabled())

# %% [markdown]
# ### Your turn: `repeatable_losses`
#
# **To write:** `repeatable_losses(x, y, num_classes, seed, epochs)` trains a linear classifier and
# returns its batch losses, the same list for the same seed.
#
# Each update is one training step, as the training lesson wrote it:
#
# ```python
# optimizer.zero_grad()
# loss = loss_fn(model(inputs), labels)
# loss.backward()
# optimizer.step()
# ```
#
# Write a small training run that repeats bit for bit. `x` is a float32 tensor of shape `(N, F)`
# and `y` an int64 tensor of shape `(N,)` with values in `[0, num_classes)`, on the CPU. Train an
# `nn.Linear(F, num_classes)` with `torch.optim.SGD(lr=0.1)` and `nn.CrossEntropyLoss()` for
# `epochs` passes over the data, in shuffled batches of 4 examples (the last batch of a pass may be
# smaller), one update per batch. Return the list of batch losses (`loss.item()` before each
# update), as Python floats, in order.
#
# - Everything random must come from `seed`: the initial weights and the order of every pass. Two
#   calls with the same arguments return exactly the same list, whatever ran before them; another
#   seed gives other weights and another order.
# - Leave `x` and `y` unchanged.

# %% answer repeatable_losses
def repeatable_losses(x, y, num_classes, seed, epochs):
    """The batch losses of a seeded training run of a linear classifier, identical on every call with the same seed."""
    ### BEGIN SOLUTION
    from torch.utils.data import DataLoader, TensorDataset

    torch.manual_seed(seed)
    model = nn.Linear(x.shape[1], num_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(seed))
    losses = []
    for _ in range(epochs):
        for inputs, labels in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(inputs), labels)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return losses
    ### END SOLUTION

# %% test repeatable_losses points=3
import torch
from course.checks import check_true, passed

x = torch.linspace(-1.0, 1.0, 24).reshape(12, 2)
y = (x[:, 0] > 0).long()
first = repeatable_losses(x, y, 2, 0, 2)
check_true(isinstance(first, list) and len(first) == 6 and all(type(v) is float for v in first),
           f"Expected repeatable_losses(x, y, 2, 0, 2) with 12 examples to return a list of 6 Python floats, but found {first!r:.200}.")
again = repeatable_losses(x, y, 2, 0, 2)
check_true(again == first, f"Expected a second call with the same seed to repeat the losses exactly, but found {again} after {first}.")
passed("repeatable_losses")
### BEGIN HIDDEN TESTS
import math

from course.probes.core import call_watching_inputs
from instructor.pipeline import classification_data

for seed, (n, features, classes, epochs) in enumerate([(12, 2, 2, 2), (18, 5, 3, 1), (5, 2, 3, 2)]):
    x, y = classification_data(n, features, classes, seed=seed)
    batches = epochs * math.ceil(n / 4)
    first = repeatable_losses(x, y, classes, seed, epochs)
    check_true(isinstance(first, list) and len(first) == batches and all(type(v) is float and math.isfinite(v) for v in first),
               f"Expected {batches} finite Python floats for {n} examples over {epochs} epochs, but found {first!r:.300}.")
    again = repeatable_losses(x, y, classes, seed, epochs)
    check_true(again == first, f"Expected the run with seed {seed} to repeat bit for bit, but found {again} after {first}.")
    other = repeatable_losses(x, y, classes, seed + 100, epochs)
    check_true(other != first, f"Expected another seed ({seed + 100}) to give other losses than seed {seed}, but both gave {first}.")
x, y = classification_data(24, 3, 2, seed=11, separable=True)
losses = repeatable_losses(x, y, 2, 5, 4)
per_epoch = [sum(losses[i:i + 6]) / 6 for i in range(0, 24, 6)]
check_true(per_epoch[-1] < per_epoch[0],
           f"Expected training on separable data to lower the mean batch loss from the first epoch to the last, but found {per_epoch}.")
x, y = classification_data(8, 2, 4, seed=3)
orders = {tuple(repeatable_losses(x, y, 4, seed, 1)) for seed in range(4)}
check_true(len(orders) == 4, "Expected four seeds to give four different runs, but some of them repeated one another.")
result, changed = call_watching_inputs(repeatable_losses, x, y, 4, 0, 1)
check_true(changed == [], f"Expected repeatable_losses to leave x and y unchanged (measured in your process), but it changed {changed}.")
### END HIDDEN TESTS

# %% [markdown]
# ## Inference: no_grad, inference_mode and bfloat16
#
# The autograd lesson ran inference under `torch.no_grad()`: no graph is recorded, so no memory
# is kept for a
# backward pass. `torch.inference_mode()` goes one step further: the tensors made inside it are
# marked as *inference tensors* (`t.is_inference()`), which lets PyTorch skip the bookkeeping
# autograd would need later (version counters), so it is a little faster. The price: an inference
# tensor cannot be saved for backward. A recorded operation that needs its value for a gradient (a
# product with a weight, the input of a layer that learns) fails with a `RuntimeError` ("Inference
# tensors cannot be saved for backward"); only one that saves nothing of it, such as adding it to a
# weight, goes through. Use `no_grad` when the results may feed training later, and
# `inference_mode` for pure prediction.
#
# `torch.autocast(device_type, dtype=torch.bfloat16)` runs the operations that gain from it
# (matrix products, linear layers, convolutions) in bfloat16, a 16-bit float with float32's range and
# fewer digits. An operation not on its lists keeps the dtype of its inputs, so a ReLU or a softmax
# after a bfloat16 linear layer is bfloat16 too, and a few that need the range, such as
# `cross_entropy`, are run in float32; the lists differ between the CPU and CUDA (on CUDA, softmax is
# one of the float32 ones). Autocast works on the CPU too (`device_type="cpu"`),
# so this cell runs without a GPU. An `nn.Linear` inside it returns bfloat16, while the same
# arithmetic written as `x @ w.T + b` returns float32: the product is bfloat16, and adding the float32
# bias promotes it back.

# %%
import torch.nn.functional as F

layer = nn.Linear(4, 3)
inputs = torch.randn(5, 4)
with torch.inference_mode(), torch.autocast(device_type=inputs.device.type, dtype=torch.bfloat16):
    logits = layer(inputs)
    written_out = inputs @ layer.weight.T + layer.bias
print(logits.dtype, logits.requires_grad, logits.is_inference(), written_out.dtype)
with torch.no_grad():
    plain = layer(inputs)
print(plain.dtype, plain.is_inference(), "largest difference:", (logits.float() - plain).abs().max().item())
with torch.inference_mode():
    frozen = torch.ones(3)
weight = torch.ones(3, requires_grad=True)
try:
    (weight * frozen).sum().backward()
except RuntimeError as err:
    print("RuntimeError:", str(err).split(".")[0])

# %% [markdown]
# ### Quiz: inference tensors
#
# `features = encoder(images)` runs under `torch.inference_mode()`. Later, outside it, a student
# trains a new head, `head = nn.Linear(512, 10)`, on them, computing
# `loss_fn(head(features), labels)` and calling backward on it. What happens?
#
# - **A.** It trains normally: `inference_mode` only affects the code inside the `with` block.
# - **B.** It trains, but slowly: `features` is converted back to a normal tensor on every step.
# - **C.** It trains, but the head's gradients are all zero, because `features` does not require grad.
# - **D.** `head(features)` raises a `RuntimeError`: an inference tensor cannot be saved for backward.

# %% answer answer_inference_tensor quiz=rule
# One upper-case letter as a string, for example "A".
answer_inference_tensor = None
### BEGIN SOLUTION
answer_inference_tensor = "D"
### END SOLUTION

# %% test answer_inference_tensor points=1
from course.quiz import check_choice, form_checked

check_choice(answer_inference_tensor, "ABCD", name="answer_inference_tensor")
form_checked("answer_inference_tensor")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_inference_tensor, "D", name="answer_inference_tensor",
          why="Tensors made under inference_mode are inference tensors for good. The linear head's weight gradient "
              "needs its input, so autograd tries to save features for backward and raises 'Inference tensors cannot be saved for "
              "backward'. Compute them under torch.no_grad() (or clone them) if they will feed training.")
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `predict_bf16`
#
# **To write:** `predict_bf16(weight, bias, x)` returns a linear layer's logits computed in bfloat16
# for inference.
#
# Compute a linear layer's logits for inference in bfloat16. `weight` has shape
# `(classes, features)`, `bias` shape `(classes,)`, `x` shape `(N, features)`; all three are float32
# on one device (`weight` and `bias` may require grad). Return the layer's output, equal in value to
# `x @ weight.T + bias`, as a bfloat16 tensor, computed:
#
# - under `torch.autocast` with `dtype=torch.bfloat16` for the inputs' device type. Written out as
#   `x @ weight.T + bias`, the sum comes back float32 even there (the float32 bias promotes the
#   bfloat16 product, as the paragraph above shows), so compute it with the layer's own operation,
#   which autocast runs in bfloat16 as a whole;
# - without recording anything for autograd: under `torch.inference_mode()`, so the result does
#   not require grad;
# - on the inputs' device, with shape `(N, classes)`; `N` may be 0. Leave the inputs unchanged.
#
# The tests compare with a float32 result, within what bfloat16 can hold.

# %% answer predict_bf16
def predict_bf16(weight, bias, x):
    """A linear layer's logits under bfloat16 autocast and inference mode: bfloat16, on x's device, no graph."""
    ### BEGIN SOLUTION
    with torch.inference_mode(), torch.autocast(device_type=x.device.type, dtype=torch.bfloat16):
        return torch.nn.functional.linear(x, weight, bias)
    ### END SOLUTION

# %% test predict_bf16 points=2
import torch
from course.checks import check_tensor, check_true, passed

weight = torch.tensor([[1.0, 0.5], [-1.0, 2.0], [0.0, 0.25]], requires_grad=True)
bias = torch.tensor([0.5, 0.0, -0.5], requires_grad=True)
x = torch.tensor([[2.0, 4.0], [1.0, -1.0]])
check_tensor(predict_bf16(weight, bias, x), torch.tensor([[4.5, 6.0, 0.5], [1.0, -3.0, -0.75]], dtype=torch.bfloat16),
             what="predict_bf16(weight, bias, x)", requires_grad=False, atol=1e-2, rtol=1e-2)
passed("predict_bf16")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from course.probes.core import call_watching_inputs
from instructor.pipeline import linear_reference

generator = torch.Generator().manual_seed(10)
for dev in test_devices():
    for n, features, classes in ((7, 5, 3), (0, 4, 2), (1, 16, 10), (33, 64, 8)):
        w = torch.randn(classes, features, generator=generator).to(dev).requires_grad_()
        b = torch.randn(classes, generator=generator).to(dev).requires_grad_()
        inputs = torch.randn(n, features, generator=generator).to(dev)
        check_tensor(predict_bf16(w, b, inputs), linear_reference(w, b, inputs).to(torch.bfloat16),
                     what=f"predict_bf16 of {n} examples, {features} features, {classes} classes on {dev}",
                     requires_grad=False, atol=0.05 * max(1.0, features ** 0.5), rtol=2e-2)
    w = torch.randn(3, 4, generator=generator).to(dev)
    b = torch.zeros(3, device=dev)
    inputs = torch.randn(6, 4, generator=generator).to(dev).t().contiguous().t()
    check_tensor(predict_bf16(w, b, inputs), linear_reference(w, b, inputs).to(torch.bfloat16),
                 what=f"predict_bf16 of a transposed (non-contiguous) x on {dev}", requires_grad=False, atol=0.05, rtol=2e-2)
w = torch.randn(3, 4, generator=generator, requires_grad=True)
b = torch.randn(3, generator=generator, requires_grad=True)
inputs = torch.randn(5, 4, generator=generator)
result, changed = call_watching_inputs(predict_bf16, w, b, inputs)
check_true(changed == [], f"Expected predict_bf16 to leave its inputs (values, requires_grad, .grad) unchanged, but it changed {changed}.")
### END HIDDEN TESTS

# %% [markdown]
# ## Common mistakes
#
# ### Comparing with `torch.device("cuda")`
#
# `x.device == torch.device("cuda")` is `False` for a tensor on `cuda:0`. Test `x.is_cuda` or
# `x.device.type == "cuda"`, or compare two tensors' devices.
#
# ### Timing without waiting
#
# A clock read right after a CUDA call measures the queueing. Synchronise first, or use CUDA events or
# `torch.utils.benchmark`.
#
# ### A hidden wait in every step
#
# `loss.item()` or `print(loss)` in every step of a GPU loop makes Python wait for the GPU each time.
# Keep the running total as a tensor on the device, and read it once at the end:

# %%
losses = [torch.tensor(float(step), device=device) for step in range(5)]
total = torch.zeros((), device=device)
for loss_value in losses:
    total += loss_value
print("mean loss, read once:", (total / len(losses)).item())

# %% [markdown]
# ### Loading a GPU checkpoint without `map_location`
#
# On a machine without a GPU, `torch.load` of a checkpoint written on one fails; pass
# `map_location="cpu"` (and `weights_only=True`).
#
# ### Seeding once, at the top
#
# Every cell that draws random numbers moves the generator on. Seed inside the function that must
# repeat.

# %%
# Try it: seed once outside a function that draws torch.rand(1), call it twice, and compare.

# %% [markdown]
# ## Recap
#
# - `torch.device("cuda")` has no index and is not equal to `cuda:0`; test `x.is_cuda` or
#   `x.device.type`, or resolve the index before comparing.
# - One large copy beats many small ones: each copy pays a fixed cost. Measure with
#   `torch.utils.benchmark`.
# - CUDA calls return before the GPU has finished: synchronise (or use CUDA events) before reading a
#   clock; `.item()`, `.cpu()`, printing and `bool(t)` wait for the GPU.
# - `non_blocking=True` overlaps a copy to the GPU with compute only from pinned memory;
#   `DataLoader(pin_memory=True)` gives pinned batches.
# - Save `state_dict()`s; load them with `map_location` and `weights_only=True`; move models with
#   `model.to(device)`.
# - Seed inside the run, every generator the run uses; CUDA needs deterministic algorithms on top.
# - `inference_mode` for pure prediction, `no_grad` when the results may feed training; autocast
#   with bfloat16 works on the CPU too.

# %%
# Try it: call repeatable_losses twice with the same seed and compare the lists with ==.
