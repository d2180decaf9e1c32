"""Claims of lesson 10 (the GPU pipeline).

The claims about CUDA itself are registered with `cuda=True` (their tests carry the `cuda` mark) and
skip on a machine without a GPU; the others run on the CPU and `meta`, as the lesson does there, and
check their CUDA part too when a GPU is present.
"""

import io
import inspect
import math
import pickle
import random
import warnings
from fractions import Fraction

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.overrides import TorchFunctionMode
from torch.utils import benchmark
from torch.utils.data import DataLoader, TensorDataset

from tests.claims import claim

L = "10_pipeline"


def _needs_cuda() -> None:
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")


def _busy_stream(cycles: int = int(1e8)) -> None:
    """Queue a kernel that spins for `cycles` GPU clock cycles on an idle current stream, so that work
    queued after it cannot have finished when the next line looks."""
    torch.cuda.synchronize()
    torch.cuda._sleep(cycles)


def _needs_no_cuda() -> None:
    if torch.cuda.is_available():
        pytest.skip("about a machine without CUDA")


class _Calls(TorchFunctionMode):
    """Counts the torch calls made inside it, by name."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(getattr(func, "__name__", str(func)))
        return func(*args, **(kwargs or {}))


# Device identity


@claim(
    L,
    'A `torch.device` has a type and an index. `torch.device("cuda")` has no index: it means "the current CUDA device", '
    "whichever that is when a tensor is made.",
)
def _():
    assert torch.device("cuda").type == "cuda" and torch.device("cuda").index is None
    assert torch.device("cuda:1").index == 1
    if torch.cuda.is_available():
        with torch.cuda.device(torch.cuda.device_count() - 1):
            assert torch.ones(1, device="cuda").device.index == torch.cuda.device_count() - 1


@claim(
    L,
    'A tensor always knows exactly where it is, so a tensor made with `device="cuda"` reports `cuda:0` (on a one-GPU machine, '
    "or when GPU 0 is current).",
    cuda=True,
)
def _():
    _needs_cuda()
    with torch.cuda.device(0):
        assert torch.ones(1, device="cuda").device == torch.device("cuda:0")


@claim(
    L,
    'Two `torch.device` objects are equal only when both the type and the index are equal, and "no index" is not the same as '
    'index 0: `torch.device("cuda") == torch.device("cuda:0")` is `False`.',
)
def _():
    assert torch.device("cuda") != torch.device("cuda:0")
    assert torch.device("cpu") != torch.device("cpu:0")
    assert torch.device("cuda:0") == torch.device("cuda", 0)
    assert torch.device("cuda:0") != torch.device("cuda:1") and torch.device("cpu") != torch.device("meta")


@claim(
    L,
    'So a check such as `x.device == torch.device("cuda")` is `False` for every CUDA tensor, and the code behind it silently '
    "takes the wrong branch.",
    cuda=True,
)
def _():
    _needs_cuda()
    for index in range(torch.cuda.device_count()):
        x = torch.ones(1, device=f"cuda:{index}")
        assert x.device != torch.device("cuda") and x.device.index == index


@claim(L, '"is this tensor on a GPU at all?" is `x.is_cuda`, or `x.device.type == "cuda"`')
def _():
    for x in (torch.ones(1), torch.ones(1, device="meta")):
        assert not x.is_cuda and x.device.type != "cuda"
    if torch.cuda.is_available():
        x = torch.ones(1, device="cuda")
        assert x.is_cuda and x.device.type == "cuda"


@claim(
    L,
    '"are these two on the same device?" compares two devices that both come from tensors (`a.device == b.device`): a CUDA '
    "tensor's device always carries its index;",
)
def _():
    assert torch.ones(1).device == torch.zeros(2).device
    assert torch.ones(1).device != torch.ones(1, device="meta").device
    _needs_cuda()
    assert torch.ones(1, device="cuda").device == torch.ones(1, device="cuda:0").device
    assert torch.ones(1, device="cuda").device.index is not None


@claim(
    L,
    'Apple GPUs appear as the device type `mps` (Metal Performance Shaders). `torch.device("mps")` names one, and '
    "`torch.backends.mps.is_available()` says whether this machine has one.",
)
def _():
    assert torch.device("mps").type == "mps"
    assert isinstance(torch.backends.mps.is_available(), bool)


@claim(
    L, "The rules of this lesson hold there too, with `torch.mps.synchronize()` in place of `torch.cuda.synchronize()`."
)
def _():
    assert callable(torch.mps.synchronize) and callable(torch.cuda.synchronize)


# Transfers


@claim(L, "Every copy has a fixed cost before its first byte moves: PyTorch checks the tensors and picks a kernel")
def _():
    source, target = torch.randn(64), torch.empty(64)
    with _Calls() as one:
        target.copy_(source)
    pieces = list(zip(target.split(1), source.split(1)))
    with _Calls() as many:
        for into, piece in pieces:
            into.copy_(piece)
    # The fixed part of the cost is paid per call: 1 call for one copy, N calls for N copies.
    assert one.names.count("copy_") == 1 and many.names.count("copy_") == 64
    assert torch.equal(target, source)


@claim(L, "a copy to a GPU also starts a transfer over the bus", cuda=True)
def _():
    _needs_cuda()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        torch.ones(16).to("cuda")
        torch.cuda.synchronize()
    assert any("Memcpy HtoD" in event.name for event in prof.events())


@claim(
    L,
    "`torch.utils.benchmark.Timer` measures this fairly: `Timer(stmt, globals=...).timeit(n)` runs the statement to warm up, "
    "then `n` times, and its `.median` is the time of one run.",
)
def _():
    calls = []
    measurement = benchmark.Timer("record()", globals={"record": lambda: calls.append(1)}).timeit(10)
    assert len(calls) > 10 and measurement.number_per_run == 10
    assert measurement.median == pytest.approx(measurement.raw_times[0] / 10)


@claim(
    L,
    "It uses one CPU thread unless told otherwise, and on a GPU it waits for the GPU to finish before reading the clock.",
)
def _():
    seen = []
    benchmark.Timer("record()", globals={"record": lambda: seen.append(torch.get_num_threads())}).timeit(3)
    assert set(seen) == {1}
    from torch.utils.benchmark.utils import timer

    assert "synchronize" in inspect.getsource(timer.timer)
    assert inspect.signature(benchmark.Timer).parameters["timer"].default is timer.timer


# Asynchronous execution


@claim(
    L,
    "A CUDA operation called from Python does not wait for the GPU: PyTorch puts the kernel in a queue (a *stream*) and returns at once",
    cuda=True,
)
def _():
    _needs_cuda()
    a = torch.randn(4096, 4096, device="cuda")
    torch.cuda.synchronize()
    for _ in range(20):
        a = a @ a / 4096
    assert not torch.cuda.current_stream().query(), "the queued products had already finished"
    torch.cuda.synchronize()
    assert torch.cuda.current_stream().query()


@claim(
    L,
    "To time GPU work, wait for the queue to empty with `torch.cuda.synchronize()` before each reading of the clock, or record "
    "CUDA events (`torch.cuda.Event(enable_timing=True)`, `.record()` before and after, `end.synchronize()`, then "
    "`start.elapsed_time(end)` in milliseconds). `torch.utils.benchmark` does the waiting for you.",
    cuda=True,
)
def _():
    _needs_cuda()
    a = torch.randn(2048, 2048, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    a @ a
    end.record()
    end.synchronize()
    assert end.query() and start.elapsed_time(end) > 0
    torch.cuda.synchronize()
    assert torch.cuda.current_stream().query()


@claim(
    L,
    "Some calls wait for the GPU without saying so, because they need the values: `.item()`, `.tolist()`, `.cpu()` and "
    '`.to("cpu")`, printing a CUDA tensor, and `bool(t)`, which is what `if t > 0:` calls.',
)
def _():
    class Seen:
        def __init__(self) -> None:
            self.calls = 0

        def __bool__(self) -> bool:
            self.calls += 1
            return True

    seen = Seen()
    if seen:
        pass
    assert seen.calls == 1
    _needs_cuda()
    t = torch.randn(4, device="cuda")
    torch.cuda.set_sync_debug_mode("error")
    try:
        for wait in (
            lambda: t[0].item(),
            t.tolist,
            t.cpu,
            lambda: t.to("cpu"),
            lambda: repr(t),
            lambda: bool(t[0] > 0),
        ):
            with pytest.raises(RuntimeError):
                wait()
    finally:
        torch.cuda.set_sync_debug_mode("default")


@claim(
    L,
    "On the CPU, and on `meta`, every operation has finished when the call returns: there is nothing to wait for, and "
    "`torch.cuda.synchronize()` on a machine without CUDA raises an error.",
)
def _():
    a = torch.randn(256, 256)
    product = a @ a
    assert torch.equal(product, a @ a)
    assert (torch.ones(2, 2, device="meta") @ torch.ones(2, 2, device="meta")).shape == (2, 2)
    _needs_no_cuda()
    with pytest.raises((AssertionError, RuntimeError)):
        torch.cuda.synchronize()


# Pinned memory


@claim(
    L,
    "Ordinary CPU memory is *pageable*: the operating system may move it around, so on most machines the GPU cannot read it "
    "directly.",
    cuda=True,
)
def _():
    _needs_cuda()
    pageable = torch.randn(1024)
    assert not pageable.is_pinned() and pageable.pin_memory().is_pinned() and not pageable.is_pinned()


@claim(
    L,
    'from pinned memory `t.to("cuda", non_blocking=True)` returns at once: the copy is queued on the current stream like a '
    "kernel, and Python goes on (loading the next batch, queueing more work) while the bytes cross the bus.",
    cuda=True,
)
def _():
    _needs_cuda()
    pinned = torch.randn(64 * 1024 * 1024).pin_memory()
    assert pinned.is_pinned()
    _busy_stream()
    moved = pinned.to("cuda", non_blocking=True)
    assert not torch.cuda.current_stream().query()
    torch.cuda.synchronize()
    assert torch.equal(moved.cpu(), pinned)


@claim(
    L,
    "From pageable memory the same call returns only once the bytes have been staged, so the source can be reused at once, "
    "and the values that arrive are right either way.",
    cuda=True,
)
def _():
    _needs_cuda()
    pageable = torch.randn(16 * 1024 * 1024)
    kept = pageable.clone()
    assert not pageable.is_pinned()
    _busy_stream()
    moved = pageable.to("cuda", non_blocking=True)
    pageable.zero_()  # reusing the source right away must not change what arrives
    torch.cuda.synchronize()
    assert torch.equal(moved.cpu(), kept)


@claim(
    L,
    "A stream runs its work in order: a copy waits for the kernels queued on its stream before it, and the kernels queued after "
    "it wait for the copy.",
    cuda=True,
)
def _():
    _needs_cuda()
    pinned = torch.randn(16 * 1024 * 1024).pin_memory()
    target = torch.empty(pinned.shape, device="cuda")
    _busy_stream()
    target.fill_(-1.0)  # queued before the copy: the copy must not be overwritten by it
    target.copy_(pinned, non_blocking=True)
    doubled = target * 2  # queued after the copy: must see the copied values
    torch.cuda.synchronize()
    assert torch.equal(target.cpu(), pinned) and torch.equal(doubled.cpu(), pinned * 2)


@claim(
    L,
    "For that overlap the copy goes on a second stream, `side = torch.cuda.Stream()`, inside `with torch.cuda.stream(side):`, "
    "and the compute stream is told to wait for it before using the batch: `torch.cuda.current_stream().wait_stream(side)`.",
    cuda=True,
)
def _():
    _needs_cuda()
    pinned = torch.randn(16 * 1024 * 1024).pin_memory()
    side = torch.cuda.Stream()
    _busy_stream(int(2e9))  # the compute stream is busy for a while
    with torch.cuda.stream(side):
        moved = pinned.to("cuda", non_blocking=True)
    side.synchronize()
    assert not torch.cuda.current_stream().query(), (
        "the copy on the second stream finished while the first still computed"
    )
    torch.cuda.current_stream().wait_stream(side)
    doubled = moved * 2  # queued on the compute stream, after the wait: sees the copied batch
    torch.cuda.synchronize()
    assert torch.equal(doubled.cpu(), pinned * 2)


@claim(L, "a GPU tensor is never pinned", cuda=True)
def _():
    _needs_cuda()
    assert not torch.zeros(3, device="cuda").is_pinned()
    assert not torch.zeros(3).pin_memory().to("cuda").is_pinned()


@claim(L, "`DataLoader(..., pin_memory=True)` puts each batch in pinned memory as it is made", cuda=True)
def _():
    _needs_cuda()
    images, labels = next(
        iter(DataLoader(TensorDataset(torch.randn(8, 3), torch.arange(8)), batch_size=4, pin_memory=True))
    )
    assert images.is_pinned() and labels.is_pinned()


@claim(L, "pinning is itself a copy", cuda=True)
def _():
    _needs_cuda()
    t = torch.randn(8)
    pinned = t.pin_memory()
    assert pinned.data_ptr() != t.data_ptr() and torch.equal(pinned, t) and not t.is_pinned()


@claim(
    L,
    "A copy from the GPU to the CPU with `non_blocking=True` may return before the values have arrived: synchronise before reading them.",
    cuda=True,
)
def _():
    _needs_cuda()
    big = torch.randn(64 * 1024 * 1024, device="cuda")
    _busy_stream()
    back = big.to("cpu", non_blocking=True)
    assert back.is_pinned() and not torch.cuda.current_stream().query()
    torch.cuda.synchronize()
    assert torch.equal(back, big.cpu())


@claim(
    L,
    "Pinning needs an accelerator: without one, `pin_memory()` raises a `RuntimeError`, and a `DataLoader` with `pin_memory=True` "
    "warns and hands out ordinary batches.",
)
def _():
    _needs_no_cuda()
    assert not torch.ones(3).is_pinned()
    with pytest.raises(RuntimeError):
        torch.ones(3).pin_memory()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        images, _ = next(
            iter(DataLoader(TensorDataset(torch.randn(8, 3), torch.arange(8)), batch_size=4, pin_memory=True))
        )
    assert not images.is_pinned() and any("pin_memory" in str(w.message) for w in caught)


# Saving and loading


@claim(L, "A model's learned numbers are in its `state_dict()`: a dict from parameter (and buffer) names to tensors.")
def _():
    model = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    state = model.state_dict()
    assert {"0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var"} <= set(state)
    assert all(isinstance(t, torch.Tensor) for t in state.values())


@claim(
    L,
    "`torch.save(model.state_dict(), path)` writes it, and `model.load_state_dict(torch.load(path))` reads it back into a model "
    "built by the same code. `torch.save` takes a file path or any binary file object, such as an `io.BytesIO`.",
)
def _():
    import tempfile
    from pathlib import Path

    model = nn.Linear(3, 2)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.pt"
        torch.save(model.state_dict(), path)
        fresh = nn.Linear(3, 2)
        fresh.load_state_dict(torch.load(path))
    assert torch.equal(fresh.weight, model.weight) and torch.equal(fresh.bias, model.bias)
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    assert torch.equal(torch.load(io.BytesIO(buffer.getvalue()))["weight"], model.weight)


@claim(
    L,
    "Each tensor is saved with the device it lived on. Loading a checkpoint written on a GPU, on a machine without one, fails unless "
    'you say where the tensors should go: `map_location="cpu"` (or any device, `"meta"` included) sends every tensor there '
    "as it is read.",
)
def _():
    from instructor.pipeline import checkpoint_bytes

    data = checkpoint_bytes({"w": torch.arange(3.0)}, saved_on="cuda:0")
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA"):
            torch.load(io.BytesIO(data), weights_only=True)
    assert torch.equal(torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)["w"], torch.arange(3.0))
    assert torch.load(io.BytesIO(data), map_location="meta", weights_only=True)["w"].device.type == "meta"
    if torch.cuda.is_available():
        buffer = io.BytesIO()
        torch.save({"w": torch.ones(2, device="cuda")}, buffer)
        assert torch.load(io.BytesIO(buffer.getvalue()))["w"].is_cuda
        assert torch.load(io.BytesIO(buffer.getvalue()), map_location="cpu")["w"].device.type == "cpu"


@claim(
    L,
    "`torch.load` unpickles, and unpickling can run code hidden in the file. With `weights_only=True` (the default since PyTorch 2.6) "
    "it accepts only tensors, plain containers and numbers, and refuses anything else with a `pickle.UnpicklingError`.",
)
def _():
    class Runs:
        def __reduce__(self):
            return (print, ("code from the file ran",))

    buffer = io.BytesIO()
    torch.save({"w": torch.ones(1), "x": Runs()}, buffer)
    with pytest.raises(pickle.UnpicklingError):
        torch.load(io.BytesIO(buffer.getvalue()))
    assert (
        inspect.signature(torch.load).parameters["weights_only"].default is None
    )  # None: decided by the default, True
    risky = io.BytesIO()
    torch.save({"w": torch.ones(1), "f": Fraction(1, 3)}, risky)
    with pytest.raises(pickle.UnpicklingError):
        torch.load(io.BytesIO(risky.getvalue()), weights_only=True)
    plain = io.BytesIO()
    torch.save({"w": torch.ones(1), "epoch": 3, "lr": 0.1, "names": ["a"], "pair": (1, 2)}, plain)
    assert torch.load(io.BytesIO(plain.getvalue()), weights_only=True)["epoch"] == 3


@claim(
    L,
    "`model.load_state_dict(state)` copies the values into the model's own tensors, which stay where they are: loading CPU tensors "
    "into a model on a GPU leaves the model on the GPU. To move the model itself, use `model.to(device)`.",
)
def _():
    state = nn.Linear(4, 2).state_dict()
    for dev in ["meta"] + (["cuda"] if torch.cuda.is_available() else []):
        model = nn.Linear(4, 2).to(dev)
        weight = model.weight
        model.load_state_dict(state)
        assert model.weight is weight and model.weight.device.type == dev
        if dev == "cuda":
            assert torch.equal(model.weight.cpu(), state["weight"])
    model = nn.Linear(4, 2)
    assert model.to("meta") is model and model.weight.device.type == "meta"


# Reproducibility


@claim(
    L,
    "`torch.manual_seed(seed)` seeds PyTorch's global generator on the CPU and on every GPU (initial weights, dropout, `torch.randn`)",
)
def _():
    def draws():
        torch.manual_seed(3)
        return nn.Linear(3, 2).weight.detach().clone(), F.dropout(torch.ones(20), 0.5), torch.randn(3)

    for a, b in zip(draws(), draws()):
        assert torch.equal(a, b)
    assert "on all devices" in torch.random.manual_seed.__doc__
    if torch.cuda.is_available():
        torch.manual_seed(5)
        first = torch.randn(3, device="cuda")
        torch.manual_seed(5)
        assert torch.equal(first, torch.randn(3, device="cuda"))


@claim(L, "`random.seed(seed)` and `numpy.random.seed(seed)` seed Python's and NumPy's, if your code uses them")
def _():
    random.seed(1)
    np.random.seed(1)
    first = random.random(), np.random.rand()
    random.seed(1)
    np.random.seed(1)
    assert (random.random(), np.random.rand()) == first


@claim(
    L,
    "a shuffling `DataLoader` draws its order from the `generator=` you give it (the training lesson), and each worker process "
    "(`num_workers > 0`) seeds its own PyTorch, Python and NumPy generators from it, one seed per worker (other libraries need "
    "a `worker_init_fn` that seeds them).",
)
def _():
    def order(seed):
        return [
            b.tolist()
            for b in DataLoader(range(10), batch_size=3, shuffle=True, generator=torch.Generator().manual_seed(seed))
        ]

    assert order(0) == order(0) != order(1)
    source = inspect.getsource(torch.utils.data._utils.worker._worker_loop)
    assert "seed = base_seed + worker_id" in source
    assert "random.seed(seed)" in source and "torch.manual_seed(seed)" in source and "np.random.seed(np_seed)" in source
    assert "init_fn(worker_id)" in source
    loader_source = inspect.getsource(torch.utils.data.dataloader._BaseDataLoaderIter.__init__)
    assert "loader.generator" in loader_source and "_base_seed" in loader_source


@claim(
    L,
    "The seed must be set inside the run, right before the random numbers are drawn: a seed set once at the top of a notebook is "
    "used up by whatever ran since.",
)
def _():
    torch.manual_seed(0)
    first = torch.rand(1)
    second = torch.rand(1)
    assert not torch.equal(first, second)
    torch.manual_seed(0)
    assert torch.equal(torch.rand(1), first)


@claim(L, "float addition is not associative, so two runs can differ in the last bits.")
def _():
    assert (0.1 + 0.2) + 0.3 != 0.1 + (0.2 + 0.3)
    a, b, c = torch.tensor(1e8), torch.tensor(-1e8), torch.tensor(1.0)
    assert ((a + b) + c).item() != (a + (b + c)).item()


@claim(
    L,
    "Some CUDA kernels add floating-point numbers in whatever order the GPU's threads finish (atomic additions in `index_add_`, "
    "`scatter_add_` and the backward passes of some pooling and interpolation layers)",
)
def _():
    doc = torch.use_deterministic_algorithms.__doc__
    for name in ("index_add", "scatter_add", "AdaptiveAvgPool2d", "interpolate"):
        assert name in doc, name


@claim(
    L,
    "`torch.use_deterministic_algorithms(True)` makes PyTorch pick deterministic kernels, and raise a `RuntimeError` for an operation "
    "that has none (on CUDA, `torch.histc` is one)",
)
def _():
    was = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        assert torch.are_deterministic_algorithms_enabled()
        assert "histc" in torch.use_deterministic_algorithms.__doc__
        if torch.cuda.is_available():
            with pytest.raises(RuntimeError):
                torch.histc(torch.rand(10, device="cuda"), bins=4)
    finally:
        torch.use_deterministic_algorithms(was)


@claim(
    L,
    "cuBLAS also needs the environment variable `CUBLAS_WORKSPACE_CONFIG=:4096:8`, and `torch.backends.cudnn.benchmark = False` "
    "stops cuDNN from choosing its algorithms by timing them.",
)
def _():
    import os

    assert torch.backends.cudnn.benchmark is False  # the default: no timing of algorithms
    _needs_cuda()
    if os.environ.get("CUBLAS_WORKSPACE_CONFIG"):
        pytest.skip("CUBLAS_WORKSPACE_CONFIG is set here")
    a = torch.randn(64, 64, device="cuda")
    was = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        with pytest.raises(RuntimeError, match="CUBLAS_WORKSPACE_CONFIG=:4096:8"):
            a @ a
    finally:
        torch.use_deterministic_algorithms(was)


@claim(
    L,
    "The CPU is not exempt: a float sum is split among the threads, so the same sum can end in other bits when the number of "
    "threads changes (`torch.set_num_threads`).",
)
def _():
    values = torch.randn(10_000_000, generator=torch.Generator().manual_seed(0))
    before = torch.get_num_threads()
    try:
        sums = set()
        for threads in (1, 2, 3, 4):
            torch.set_num_threads(threads)
            sums.add(values.sum().item())
    finally:
        torch.set_num_threads(before)
    assert len(sums) > 1


@claim(L, "Run for run, on one machine with the same settings, the CPU gives the same bits.")
def _():
    def run():
        torch.manual_seed(0)
        model = nn.Linear(16, 4)
        x = torch.randn(64, 16)
        loss = F.cross_entropy(model(x), torch.randint(0, 4, (64,)))
        loss.backward()
        return loss.item(), model.weight.grad.clone()

    (a, ga), (b, gb) = run(), run()
    assert a == b and torch.equal(ga, gb)


# Inference


@claim(
    L,
    "The autograd lesson ran inference under `torch.no_grad()`: no graph is recorded, so no memory is kept for a backward pass.",
)
def _():
    w = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        y = w * 2
    assert not y.requires_grad and y.grad_fn is None


@claim(
    L,
    "`torch.inference_mode()` goes one step further: the tensors made inside it are marked as *inference tensors* (`t.is_inference()`)",
)
def _():
    with torch.inference_mode():
        t = torch.ones(2) * 3
    with torch.no_grad():
        u = torch.ones(2) * 3
    assert t.is_inference() and not u.is_inference()


@claim(L, "which lets PyTorch skip the bookkeeping autograd would need later (version counters)")
def _():
    with torch.inference_mode():
        t = torch.ones(2)
    with pytest.raises(RuntimeError, match="version_counter|version counter"):
        t._version  # noqa: B018
    assert torch.ones(2)._version == 0


@claim(
    L,
    "The price: an inference tensor cannot be saved for backward. A recorded operation that needs its value for a gradient "
    '(a product with a weight, the input of a layer that learns) fails with a `RuntimeError` ("Inference tensors cannot '
    'be saved for backward"); only one that saves nothing of it, such as adding it to a weight, goes through.',
)
def _():
    with torch.inference_mode():
        t = torch.ones(3)
    w = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        w * t
    layer = nn.Linear(3, 2)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        layer(t.unsqueeze(0))
    (w + t).sum().backward()  # an addition saves neither input
    assert torch.equal(w.grad, torch.ones(3))


@claim(
    L,
    "`torch.autocast(device_type, dtype=torch.bfloat16)` runs the operations that gain from it (matrix products, linear layers, "
    "convolutions) in bfloat16, a 16-bit float with float32's range and fewer digits. An operation not on its lists keeps the "
    "dtype of its inputs, so a ReLU or a softmax after a bfloat16 linear layer is bfloat16 too, and a few that need the range, "
    "such as `cross_entropy`, are run in float32",
)
def _():
    x = torch.randn(2, 3, 8, 8)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        assert (x[0, 0] @ x[0, 0]).dtype == torch.bfloat16
        hidden = nn.Linear(8, 2)(x)
        assert hidden.dtype == torch.bfloat16
        assert nn.Conv2d(3, 4, 3)(x).dtype == torch.bfloat16
        assert x.exp().dtype == torch.float32 and F.softmax(x, -1).dtype == torch.float32
        assert F.relu(hidden).dtype == torch.bfloat16 and F.softmax(hidden, -1).dtype == torch.bfloat16
        logits = hidden.flatten(0, 2)
        assert F.cross_entropy(logits, torch.zeros(len(logits), dtype=torch.long)).dtype == torch.float32
    assert torch.finfo(torch.bfloat16).bits == 16
    assert torch.finfo(torch.bfloat16).max == pytest.approx(torch.finfo(torch.float32).max, rel=0.01)
    assert torch.finfo(torch.bfloat16).eps > torch.finfo(torch.float16).eps > torch.finfo(torch.float32).eps


@claim(
    L,
    'Autocast works on the CPU too (`device_type="cpu"`), so this cell runs without a GPU. An `nn.Linear` inside it returns '
    "bfloat16, while the same arithmetic written as `x @ w.T + b` returns float32: the product is bfloat16, and adding the float32 "
    "bias promotes it back.",
)
def _():
    layer, x = nn.Linear(4, 3), torch.randn(5, 4)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        assert layer(x).dtype == torch.bfloat16
        product = x @ layer.weight.T
        assert product.dtype == torch.bfloat16
        assert (product + layer.bias).dtype == torch.float32
    assert torch.promote_types(torch.bfloat16, torch.float32) == torch.float32


@claim(L, "under `torch.inference_mode()`, so the result does not require grad")
def _():
    w = torch.ones(2, 2, requires_grad=True)
    with torch.inference_mode():
        assert not (w @ w).requires_grad


# Recap


@claim(L, "One large copy beats many small ones: each copy pays a fixed cost.")
def _():
    source = torch.randn(32)
    with _Calls() as many:
        for piece in source.split(1):
            piece.clone()
    assert many.names.count("clone") == 32
    assert math.isclose(float(torch.cat(list(source.split(1))).sum()), float(source.sum()), rel_tol=1e-6)


# Common mistakes


@claim(
    L,
    '`x.device == torch.device("cuda")` is `False` for a tensor on `cuda:0`. Test `x.is_cuda` or `x.device.type == "cuda"`, '
    "or compare two tensors' devices.",
)
def _():
    assert torch.device("cuda:0") != torch.device("cuda")
    _needs_cuda()
    x = torch.ones(1, device="cuda:0")
    assert (
        x.device != torch.device("cuda")
        and x.is_cuda
        and x.device.type == "cuda"
        and x.device == torch.zeros(1, device="cuda").device
    )


@claim(L, "A clock read right after a CUDA call measures the queueing.", cuda=True)
def _():
    _needs_cuda()
    a = torch.randn(4096, 4096, device="cuda")
    torch.cuda.synchronize()
    for _ in range(10):
        a = a @ a / 4096
    assert not torch.cuda.current_stream().query()
    torch.cuda.synchronize()


@claim(
    L, "`loss.item()` or `print(loss)` in every step of a GPU loop makes Python wait for the GPU each time.", cuda=True
)
def _():
    _needs_cuda()
    loss = torch.tensor(1.0, device="cuda")
    torch.cuda.set_sync_debug_mode("error")
    try:
        with pytest.raises(RuntimeError):
            loss.item()
        with pytest.raises(RuntimeError):
            print(loss)
    finally:
        torch.cuda.set_sync_debug_mode("default")


@claim(L, "Keep the running total as a tensor on the device, and read it once at the end")
def _():
    total = torch.zeros((), device="meta")
    total += torch.tensor(2.0, device="meta")
    assert total.device.type == "meta"
    _needs_cuda()
    total = torch.zeros((), device="cuda")
    torch.cuda.set_sync_debug_mode("error")
    try:
        for step in range(3):
            total += torch.full((), float(step), device="cuda")
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert total.item() == 3.0


@claim(
    L,
    'On a machine without a GPU, `torch.load` of a checkpoint written on one fails; pass `map_location="cpu"` (and `weights_only=True`).',
)
def _():
    from instructor.pipeline import checkpoint_bytes

    data = checkpoint_bytes({"w": torch.ones(2)}, saved_on="cuda:0")
    assert torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)["w"].device.type == "cpu"
    _needs_no_cuda()
    with pytest.raises(RuntimeError):
        torch.load(io.BytesIO(data), weights_only=True)


@claim(L, "Every cell that draws random numbers moves the generator on.")
def _():
    torch.manual_seed(0)
    state = torch.random.get_rng_state()
    torch.rand(1)
    assert not torch.equal(torch.random.get_rng_state(), state)


@claim(L, "the lists differ between the CPU and CUDA (on CUDA, softmax is one of the float32 ones)", cuda=True)
def _():
    _needs_cuda()
    x = torch.randn(4, 8)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        assert F.softmax(nn.Linear(8, 8)(x), -1).dtype == torch.bfloat16
    layer = nn.Linear(8, 8).cuda()
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
        assert F.softmax(layer(x.cuda()), -1).dtype == torch.float32
