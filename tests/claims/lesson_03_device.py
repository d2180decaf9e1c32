"""Claims of lesson 03 (where a tensor lives).

The machine that runs these has no GPU, so claims about CUDA are checked with the `meta` device where
the lesson itself says the rule is the same, and with `torch.device` objects, which need no GPU.
"""

import pytest
import torch
from torch import nn

from tests.claims import claim


@claim(
    "03_device",
    "Unless you ask for something else, a new tensor is made in the computer's main memory and worked on by the CPU, even on a machine with a powerful GPU.",
)
def _():
    assert torch.get_default_device() == torch.device("cpu")
    for made in (torch.randn(2, 3), torch.zeros(3), torch.tensor([1, 2]), torch.arange(4)):
        assert made.device == torch.device("cpu") and not made.is_cuda


@claim(
    "03_device",
    "A meta tensor has a shape and a dtype but **no values at all**: no memory is set aside for its numbers.",
)
def _():
    m = torch.zeros(2, 3, device="meta")
    assert m.shape == (2, 3) and m.dtype == torch.float32
    with pytest.raises(NotImplementedError):
        m.to("cpu")


@claim("03_device", "printing one shows `...` where the values would be.")
def _():
    assert "..." in repr(torch.zeros(2, 3, device="meta"))


@claim(
    "03_device",
    'A `torch.device` names a place: a type (`"cpu"`, `"cuda"`, `"meta"`) and, for GPUs, an optional index (`"cuda:0"` is the first GPU, `"cuda:1"` the second).',
)
def _():
    assert (torch.device("cuda:1").type, torch.device("cuda:1").index) == ("cuda", 1)
    assert torch.device("cuda").index is None
    assert torch.device("cpu").type == "cpu" and torch.device("meta").type == "meta"


@claim(
    "03_device",
    "a `torch.device` is the real thing: it has `.type` and `.index`, it compares exactly, and it is what `tensor.device` returns.",
)
def _():
    assert torch.device("cpu") == torch.device("cpu")
    assert torch.device("cpu") != torch.device("meta")
    assert torch.device("cuda") != torch.device("cuda:0")
    assert isinstance(torch.zeros(1).device, torch.device)


@claim(
    "03_device",
    'Without the parentheses you test the function object itself instead of its answer, and a function object always counts as true in an `if`, so the code would pick `"cuda"` on every machine, GPU or not.',
)
def _():
    assert callable(torch.cuda.is_available)
    assert bool(torch.cuda.is_available) is True
    assert ("cuda" if torch.cuda.is_available else "cpu") == "cuda"
    assert not bool(0) and not bool([]) and not bool(None)


@claim("03_device", "When `x` is already on `device`, `.to` copies nothing and returns `x` itself.")
def _():
    x = torch.arange(4.0)
    assert x.to("cpu") is x and x.to(torch.device("cpu")) is x
    m = torch.zeros(2, device="meta")
    assert m.to("meta") is m


@claim(
    "03_device",
    "`x.to(device)` copies `x`'s numbers to `device` and returns a **new tensor** there. `x` itself does not move.",
)
def _():
    x = torch.arange(4.0)
    moved = x.to("meta")
    assert moved is not x and moved.device.type == "meta" and x.device.type == "cpu"


@claim(
    "03_device",
    "calling `.to(device)` on a **model** (an `nn.Module`) moves its parameters in place and returns the same model",
)
def _():
    model = nn.Linear(3, 2)
    assert model.to("meta") is model
    assert all(p.device.type == "meta" for p in model.parameters())


@claim(
    "03_device",
    "Every factory function (`torch.zeros`, `torch.ones`, `torch.randn`, `torch.arange`, `torch.tensor`, ...) takes `device=`.",
)
def _():
    made = [
        torch.zeros(2, device="meta"),
        torch.ones(2, device="meta"),
        torch.randn(2, device="meta"),
        torch.arange(3, device="meta"),
        torch.tensor([1.0], device="meta"),
        torch.eye(2, device="meta"),
    ]
    assert all(t.device.type == "meta" for t in made)


@claim("03_device", "The `*_like` functions copy the device (and dtype and shape) of the tensor you give them.")
def _():
    template = torch.ones(3, 2, dtype=torch.float16, device="meta")
    for made in (torch.ones_like(template), torch.zeros_like(template), torch.randn_like(template)):
        assert (made.device, made.dtype, made.shape) == (template.device, template.dtype, template.shape)


@claim(
    "03_device",
    "A batch of 32 RGB images of 224x224 pixels in float32 takes about 19 MB; at the roughly 32 GB/s of a PCIe 4.0 x16 slot that is over half a millisecond each way",
)
def _():
    n_bytes = torch.zeros(32, 3, 224, 224).nbytes
    assert 19e6 < n_bytes < 20e6
    assert 0.5e-3 < n_bytes / 32e9 < 0.7e-3


@claim("03_device", 'what differs is the wording (the message says a tensor "is not on the expected device")')
def _():
    with pytest.raises(RuntimeError, match="is not on the expected device"):
        torch.ones(3) + torch.ones(3, device="meta")


@claim("03_device", "It stops with a `RuntimeError`.")
def _():
    for a, b in ((torch.ones(3), torch.ones(3, device="meta")), (torch.ones(3, device="meta"), torch.ones(3))):
        with pytest.raises(RuntimeError):
            a + b


@claim(
    "03_device",
    "a 0-d CPU tensor (a single number such as `torch.tensor(2.0)`) may be combined with a tensor on another device, because PyTorch passes it along as a plain number. Any tensor with at least one dimension must be on the operation's device.",
)
def _():
    b = torch.ones(3, device="meta")
    assert (b + torch.tensor(2.0)).device.type == "meta"
    with pytest.raises(RuntimeError):
        b + torch.tensor([2.0])


@claim("03_device", "New tensors and new models start on the CPU, and the work runs wherever their data is.")
def _():
    assert nn.Linear(10, 2).weight.device.type == "cpu"
    assert torch.randn(4, 4).device.type == "cpu"


@claim("03_device", "The forward pass then mixes devices and fails with the mismatch error.")
def _():
    model = nn.Linear(4, 2).to("meta")
    with pytest.raises(RuntimeError):
        model(torch.randn(8, 4))
    assert model(torch.randn(8, 4).to("meta")).shape == (8, 2)


MIXING = "adding, multiplying or concatenating a CPU tensor and a meta tensor raises a device-mismatch error, as it would with a GPU tensor"


def _every_mix_refused(other: torch.Tensor, message: str) -> None:
    cpu = torch.ones(2, 2)
    for mix in (lambda: cpu + other, lambda: cpu * other, lambda: torch.cat([cpu, other])):
        with pytest.raises(RuntimeError, match=message):
            mix()


@claim("03_device", MIXING)
def _():
    _every_mix_refused(torch.ones(2, 2, device="meta"), "not on the expected device")


@claim("03_device", MIXING, cuda=True)
def _():
    _every_mix_refused(torch.ones(2, 2, device=_cuda()), "same device")


@claim(
    "03_device",
    "a matrix product of a CPU matrix and a meta matrix runs, and gives a CPU tensor whose numbers mean nothing, where a GPU matrix would be refused.",
)
def _():
    meta = torch.ones(2, 2, device="meta")
    product = torch.ones(2, 2) @ meta
    assert meta.is_meta and product.device.type == "cpu" and product.shape == (2, 2)


@claim(
    "03_device",
    "a matrix product of a CPU matrix and a meta matrix runs, and gives a CPU tensor whose numbers mean nothing, where a GPU matrix would be refused.",
    cuda=True,
)
def _():
    with pytest.raises(RuntimeError):
        torch.ones(2, 2) @ torch.ones(2, 2, device=_cuda())


@claim(
    "03_device",
    "`.to`, `copy_` and assignment into a slice (`gpu_x[0:2] = cpu_rows`) copy over the bus, and a CPU index tensor or mask may pick the entries of a GPU tensor (`gpu_x[cpu_mask]`).",
    cuda=True,
)
def _():
    gpu_x = torch.zeros(4, 3, device=_cuda())
    cpu_rows = torch.ones(2, 3)
    gpu_x[0:2] = cpu_rows
    assert gpu_x.sum().item() == 6.0
    target = torch.empty(2, 3, device=_cuda())
    target.copy_(cpu_rows)
    assert target.device.type == "cuda" and target.sum().item() == 6.0
    cpu_mask = torch.tensor([True, False, True, False])
    assert gpu_x[cpu_mask].shape == (2, 3) and gpu_x[cpu_mask].device.type == "cuda"
    assert gpu_x[torch.tensor([3, 0])].tolist() == [[0.0] * 3, [1.0] * 3]
    with pytest.raises(RuntimeError):
        gpu_x + torch.ones(4, 3)


@claim(
    "03_device",
    "`.to`, `copy_` and assignment into a slice (`gpu_x[0:2] = cpu_rows`) copy over the bus, and a CPU index tensor or mask may pick the entries of a GPU tensor (`gpu_x[cpu_mask]`).",
)
def _():
    meta_x = torch.zeros(4, 3, device="meta")
    meta_x[0:2] = torch.ones(2, 3)
    assert meta_x.copy_(torch.ones(4, 3)).device.type == "meta"
    assert meta_x[torch.tensor([True, False, True, False])].shape == (2, 3)


@claim("03_device", "`next(model.parameters()).device` reads the device of the first one")
def _():
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).to("meta")
    assert next(model.parameters()).device.type == "meta"
    assert next(nn.Linear(3, 2).parameters()).device.type == "cpu"


@claim(
    "03_device",
    'For `nn.Linear(in_features, out_features)`, which has no buffers, there are two: `"weight"`, of shape `(out_features, in_features)`, and `"bias"`, of shape `(out_features,)`; a layer made with `bias=False` has no `"bias"` entry. The layer computes `x @ weight.T + bias`.',
)
def _():
    layer = nn.Linear(3, 2)
    params = layer.state_dict()
    assert list(params) == ["weight", "bias"] and not list(layer.buffers())
    assert params["weight"].shape == (2, 3) and params["bias"].shape == (2,)
    assert list(nn.Linear(3, 2, bias=False).state_dict()) == ["weight"]
    x = torch.randn(4, 3)
    assert torch.allclose(layer(x), x @ params["weight"].T + params["bias"])


@claim("03_device", "(adding the two where they are raises one for you)")
def _():
    x = torch.ones(2, 3)
    for weight, bias in (
        (torch.ones(2, 3, device="meta"), torch.ones(2)),
        (torch.ones(2, 3), torch.ones(2, device="meta")),
    ):
        with pytest.raises(RuntimeError):
            x.to(weight.device) @ weight.T + bias


def _cuda() -> torch.device:
    """The first GPU, or a skip: some claims are about CUDA itself and have no meta stand-in."""
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    return torch.device("cuda")


@claim("03_device", "On a Linux x86-64 machine, a plain `pip install torch` from PyPI gives a CUDA build")
def _():
    from importlib.metadata import requires

    # The installed build is the evidence at hand: a CPU-only build carries no NVIDIA libraries and
    # says "+cpu"; a CUDA build names its CUDA version and, from PyPI, depends on NVIDIA's wheels.
    needs = " ".join(requires("torch") or [])
    if torch.__version__.endswith("+cpu"):
        assert torch.version.cuda is None and "nvidia" not in needs
    elif torch.version.cuda is not None:
        assert "nvidia" in needs or "+cu" in torch.__version__


@claim(
    "03_device",
    "`torch.version.cuda` tells you which one you have: the CUDA version the build was made for, or `None` for a CPU-only build.",
)
def _():
    assert (torch.version.cuda is None) == (not torch.backends.cuda.is_built())
    if torch.__version__.endswith("+cpu"):
        assert torch.version.cuda is None and not torch.cuda.is_available()
    if torch.version.cuda is not None:
        assert torch.version.cuda[0].isdigit()


@claim(
    "03_device",
    '`torch.device("cuda")` (no index: "the current GPU") is not equal to `torch.device("cuda:0")`, yet a tensor made with `device="cuda"` reports the index it landed on, `cuda:0`. So on a GPU machine the test `x.device == device`, with `device` from the idiom above, is `False` even though `x` is exactly where you put it.',
)
def _():
    assert torch.device("cuda") != torch.device("cuda:0") and torch.device("cuda").index is None
    assert torch.device("cuda", 0) == torch.device("cuda:0")
    assert torch.zeros(1, device="meta").device == torch.device("meta")
    gpu = _cuda()
    x = torch.zeros(2, device=gpu)
    assert x.device == torch.device("cuda", torch.cuda.current_device()) and x.device.index is not None
    assert x.device != gpu and x.device.type == gpu.type


@claim(
    "03_device",
    "Compare the types (`x.device.type == device.type`) when any GPU will do, or compare with a device read from a GPU tensor, which always carries its index. (CPU and `meta` devices have no index, so they compare as you would expect.)",
)
def _():
    assert torch.zeros(1, device="meta").device.type == torch.device("meta").type
    for plain in ("cpu", "meta"):
        made = torch.zeros(1, device=plain).device
        assert made.index is None and made == torch.device(plain)
    gpu = _cuda()
    x = torch.zeros(2, device=gpu)
    assert x.device.type == gpu.type and x.device == torch.zeros(0, device=gpu).device


@claim(
    "03_device", "A CUDA tensor's device always carries its index: a and b both report cuda:0, so same is True, however"
)
def _():
    assert torch.device("cuda:0") == torch.device("cuda", 0) and torch.device("cuda:0") != torch.device("cuda")
    _cuda()
    a = torch.zeros(2, device="cuda")
    b = torch.ones(2).to(torch.device("cuda", 0))
    assert a.device == b.device and a.device != torch.device("cuda")


@claim("03_device", "on most machines the CPU and the GPU do not share memory.")
def _():
    assert torch.zeros(2).device != torch.zeros(2, device="meta").device
    if torch.cuda.is_available():
        x = torch.ones(3, device="cuda")
        assert x.cpu().untyped_storage().data_ptr() != x.untyped_storage().data_ptr()


@claim("03_device", "PyTorch keeps the same rules there: a tensor still has one device.")
def _():
    with pytest.raises(RuntimeError):
        torch.ones(3) + torch.ones(3, device="meta")


@claim(
    "03_device",
    'So on a machine like that, `.to("cuda")` and `.to("cpu")` are real copies across the bus, not a change of label.',
)
def _():
    x = torch.ones(3)
    gpu = _cuda()
    moved = x.to(gpu)
    assert moved.device.type == "cuda" and x.device.type == "cpu"
    moved += 1
    assert x.tolist() == [1.0, 1.0, 1.0]


@claim("03_device", "both have shape `(2, 3)` and dtype `float32`.")
def _():
    with pytest.raises(RuntimeError):
        torch.ones(2, 3) + torch.ones(2, 3, device="meta")
    if torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="same device"):
            torch.ones(2, 3) + torch.ones(2, 3, device="cuda")


@claim(
    "03_device", "The corner of the rule goes one way only: a 0-d CPU tensor may join an operation on another device. "
)
def _():
    assert (torch.ones(3, device="meta") + torch.tensor(1.0)).device.type == "meta"
    with pytest.raises(RuntimeError):
        torch.zeros(5) + torch.tensor(1.0, device="meta")
    if torch.cuda.is_available():
        with pytest.raises(RuntimeError):
            torch.zeros(5) + torch.ones(4, device="cuda").mean()
        assert (torch.zeros(5) + torch.ones(4, device="cuda").mean().item()).device.type == "cpu"


@claim(
    "03_device",
    "`model.state_dict()` maps names to tensors, in an ordered dict: one entry per parameter, detached from autograd but sharing the parameter's memory, and one per buffer, the other tensors a layer keeps (`nn.BatchNorm1d`'s running mean and variance, say).",
)
def _():
    from collections import OrderedDict

    layer = nn.Linear(3, 2)
    params = layer.state_dict()
    assert isinstance(params, OrderedDict)
    assert not params["weight"].requires_grad and layer.weight.requires_grad
    assert params["weight"].data_ptr() == layer.weight.data_ptr()
    norm = nn.BatchNorm1d(3).state_dict()
    assert {"weight", "bias", "running_mean", "running_var"} <= set(norm)
    assert len(norm) > len(list(nn.BatchNorm1d(3).parameters()))


@claim(
    "03_device",
    "`.item()`, `print(t)`, `bool(t)` and so `if t > 0:` on a GPU tensor all copy its value to the CPU (and wait for the GPU to finish) without a `.to` in sight.",
)
def _():
    import contextlib
    import io

    gpu = _cuda()
    t = torch.tensor([2.5], device=gpu)
    assert isinstance(t.item(), float) and bool(t > 0) is True
    with contextlib.redirect_stdout(io.StringIO()) as out:
        print(t)
    assert "2.5" in out.getvalue()
    assert t.device.type == "cuda"


@claim(
    "03_device",
    "Every tensor with dimensions in one operation must live on one device, or PyTorch raises a `RuntimeError`; only a 0-d CPU tensor may join an operation elsewhere.",
)
def _():
    with pytest.raises(RuntimeError):
        torch.ones(2) * torch.ones(2, device="meta")
    with pytest.raises(RuntimeError):
        torch.ones(2) * torch.tensor(3.0, device="meta")
    assert (torch.ones(2, device="meta") * torch.tensor(3.0)).device.type == "meta"


@claim(
    "03_device",
    'A `torch.device` compares its index too: `torch.device("cuda") != torch.device("cuda:0")`, and a GPU tensor\'s `.device` always has one.',
)
def _():
    assert torch.device("cuda") != torch.device("cuda:0") and torch.device("cuda:1") != torch.device("cuda:0")
    gpu = _cuda()
    assert torch.zeros(1, device=gpu).device.index is not None


@claim("03_device", "`.item()`, `print(t)` and `if t:` cross it too.")
def _():
    gpu = _cuda()
    t = torch.tensor(1.0, device=gpu)
    assert t.item() == 1.0 and bool(t)


@claim(
    "03_device",
    "`torch.accelerator.current_accelerator()` names whichever one the machine has (`None` when there is none), and `torch.accelerator.is_available()` says whether there is one.",
)
def _():
    found = torch.accelerator.current_accelerator()
    assert torch.accelerator.is_available() == (found is not None)
    if torch.cuda.is_available():
        assert found.type == "cuda"
    elif found is None:
        assert not torch.accelerator.is_available()
    else:
        assert found.type in ("mps", "xpu", "mtia", "hpu")


@claim("03_device", "Apple's GPUs (`mps`) and Intel's (`xpu`) have their own device types.")
def _():
    assert torch.device("mps").type == "mps" and torch.device("xpu").type == "xpu"
