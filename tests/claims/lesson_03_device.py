"""Claims of lesson 03 (where a tensor lives).

The machine that runs these has no GPU, so claims about CUDA are checked with the `meta` device where
the lesson itself says the rule is the same, and with `torch.device` objects, which need no GPU.
"""

import pytest
import torch
from torch import nn

from tests.claims import claim


@claim("03_device", "Unless you ask for something else, a new tensor is made in the computer's main memory and worked on by the CPU, even on a machine with a powerful GPU.")
def _():
    assert torch.get_default_device() == torch.device("cpu")
    for made in (torch.randn(2, 3), torch.zeros(3), torch.tensor([1, 2]), torch.arange(4)):
        assert made.device == torch.device("cpu") and not made.is_cuda


@claim("03_device", "A meta tensor has a shape and a dtype but **no values at all**: no memory is set aside for its numbers.")
def _():
    m = torch.zeros(2, 3, device="meta")
    assert m.shape == (2, 3) and m.dtype == torch.float32
    with pytest.raises(NotImplementedError):
        m.to("cpu")


@claim("03_device", "printing one shows `...` where the values would be.")
def _():
    assert "..." in repr(torch.zeros(2, 3, device="meta"))


@claim("03_device", "A `torch.device` names a place: a type (`\"cpu\"`, `\"cuda\"`, `\"meta\"`) and, for GPUs, an optional index (`\"cuda:0\"` is the first GPU, `\"cuda:1\"` the second).")
def _():
    assert (torch.device("cuda:1").type, torch.device("cuda:1").index) == ("cuda", 1)
    assert torch.device("cuda").index is None
    assert torch.device("cpu").type == "cpu" and torch.device("meta").type == "meta"


@claim("03_device", "a `torch.device` is the real thing: it has `.type` and `.index`, it compares exactly, and it is what `tensor.device` returns.")
def _():
    assert torch.device("cpu") == torch.device("cpu")
    assert torch.device("cpu") != torch.device("meta")
    assert torch.device("cuda") != torch.device("cuda:0")
    assert isinstance(torch.zeros(1).device, torch.device)


@claim("03_device", "Without the parentheses you test the function object itself instead of its answer, and a function object always counts as true in an `if`, so the code would pick `\"cuda\"` on every machine, GPU or not.")
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


@claim("03_device", "`x.to(device)` copies `x`'s numbers to `device` and returns a **new tensor** there. `x` itself does not move.")
def _():
    x = torch.arange(4.0)
    moved = x.to("meta")
    assert moved is not x and moved.device.type == "meta" and x.device.type == "cpu"


@claim("03_device", "calling `.to(device)` on a **model** (an `nn.Module`) moves its parameters in place and returns the same model")
def _():
    model = nn.Linear(3, 2)
    assert model.to("meta") is model
    assert all(p.device.type == "meta" for p in model.parameters())


@claim("03_device", "Every factory function (`torch.zeros`, `torch.ones`, `torch.randn`, `torch.arange`, `torch.tensor`, ...) takes `device=`.")
def _():
    made = [torch.zeros(2, device="meta"), torch.ones(2, device="meta"), torch.randn(2, device="meta"),
            torch.arange(3, device="meta"), torch.tensor([1.0], device="meta"), torch.eye(2, device="meta")]
    assert all(t.device.type == "meta" for t in made)


@claim("03_device", "The `*_like` functions copy the device (and dtype and shape) of the tensor you give them.")
def _():
    template = torch.ones(3, 2, dtype=torch.float16, device="meta")
    for made in (torch.ones_like(template), torch.zeros_like(template), torch.randn_like(template)):
        assert (made.device, made.dtype, made.shape) == (template.device, template.dtype, template.shape)


@claim("03_device", "A batch of 32 RGB images of 224x224 pixels in float32 takes about 19 MB; at the roughly 32 GB/s of a PCIe 4.0 x16 slot that is over half a millisecond each way")
def _():
    n_bytes = torch.zeros(32, 3, 224, 224).nbytes
    assert 19e6 < n_bytes < 20e6
    assert 0.5e-3 < n_bytes / 32e9 < 0.7e-3


@claim("03_device", "what differs is the wording (the message says a tensor \"is not on the expected device\")")
def _():
    with pytest.raises(RuntimeError, match="is not on the expected device"):
        torch.ones(3) + torch.ones(3, device="meta")


@claim("03_device", "It stops with a `RuntimeError`.")
def _():
    for a, b in ((torch.ones(3), torch.ones(3, device="meta")), (torch.ones(3, device="meta"), torch.ones(3))):
        with pytest.raises(RuntimeError):
            a + b


@claim("03_device", "a 0-d CPU tensor (a single number such as `torch.tensor(2.0)`) may be combined with a tensor on another device, because PyTorch passes it along as a plain number. Any tensor with at least one dimension must be on the operation's device.")
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


@claim("03_device", "`next(model.parameters()).device` reads the device of the first one")
def _():
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).to("meta")
    assert next(model.parameters()).device.type == "meta"
    assert next(nn.Linear(3, 2).parameters()).device.type == "cpu"


@claim("03_device", "For `nn.Linear(in_features, out_features)` there are two: `\"weight\"`, of shape `(out_features, in_features)`, and `\"bias\"`, of shape `(out_features,)`; a layer made with `bias=False` has no `\"bias\"` entry. The layer computes `x @ weight.T + bias`.")
def _():
    layer = nn.Linear(3, 2)
    params = layer.state_dict()
    assert list(params) == ["weight", "bias"]
    assert params["weight"].shape == (2, 3) and params["bias"].shape == (2,)
    assert list(nn.Linear(3, 2, bias=False).state_dict()) == ["weight"]
    x = torch.randn(4, 3)
    assert torch.allclose(layer(x), x @ params["weight"].T + params["bias"])


@claim("03_device", "(adding the two where they are raises one for you)")
def _():
    x = torch.ones(2, 3)
    for weight, bias in ((torch.ones(2, 3, device="meta"), torch.ones(2)), (torch.ones(2, 3), torch.ones(2, device="meta"))):
        with pytest.raises(RuntimeError):
            x.to(weight.device) @ weight.T + bias
