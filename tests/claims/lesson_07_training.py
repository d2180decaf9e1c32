"""Claims of lesson 07 (training): layers, the loss, optimizers, modules, data loaders, modes and devices."""

import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, TensorDataset

from course.data import make_images
from tests.claims import claim

LESSON = "07_training"


def _raises(exc_type, func, *args, **kwargs):
    with pytest.raises(exc_type) as info:
        func(*args, **kwargs)
    return info.value


@claim(LESSON, "`images` is `(16, 3, 224, 224)`, `images.view(16, -1)` is `(16, 150528)`, `predictions` is `(16, 2)`.")
def _():
    images = torch.randn(16, 3, 224, 224)
    assert images.view(16, -1).shape == (16, 150528)
    assert nn.Linear(3 * 224 * 224, 2)(images.view(16, -1)).shape == (16, 2)


@claim(LESSON, "'ValueError: Expected input batch_size (16) to match target batch_size (4).' It does not")
def _():
    error = _raises(ValueError, nn.CrossEntropyLoss(), torch.randn(16, 2), torch.tensor([0, 1, 0, 1]))
    assert str(error) == "Expected input batch_size (16) to match target batch_size (4)."
    _raises(ValueError, nn.CrossEntropyLoss(), torch.randn(16, 2), torch.tensor([1]))


@claim(
    LESSON,
    "The predicted class is the index of the largest logit along the class dimension: `logits.argmax(dim=1)`, shape `(N,)`.",
)
def _():
    logits = torch.tensor([[0.1, 2.0, -1.0], [3.0, 0.0, 1.0]])
    assert logits.argmax(dim=1).tolist() == [1, 0] and logits.argmax(dim=1).shape == (2,)


@claim(LESSON, "the `meta` device (tensors with a shape and dtype but no data)")
def _():
    t = torch.empty(2, 3, dtype=torch.float16, device="meta")
    assert t.shape == (2, 3) and t.dtype == torch.float16
    _raises((RuntimeError, NotImplementedError), t.tolist)


@claim(LESSON, "a fresh tensor from randn is contiguous")
def _():
    assert torch.randn(16, 3, 224, 224).is_contiguous()


@claim(
    LESSON,
    "`nn.Linear(in_features, out_features)` holds a weight of shape `(out_features, in_features)` and a bias of shape "
    "`(out_features,)`, both with `requires_grad=True`, and computes `x @ weight.T + bias` on the **last** dimension of `x`.",
)
def _():
    layer = nn.Linear(5, 3)
    assert layer.weight.shape == (3, 5) and layer.bias.shape == (3,)
    assert layer.weight.requires_grad and layer.bias.requires_grad
    x = torch.randn(2, 4, 5)
    assert torch.allclose(layer(x), x @ layer.weight.T + layer.bias, atol=1e-6)
    assert layer(x).shape == (2, 4, 3)


@claim(LESSON, "`nn.Flatten()` does what `images.view(16, -1)` did (keeping dimension 0 as the batch)")
def _():
    images = torch.randn(16, 3, 8, 8)
    assert torch.equal(nn.Flatten()(images), images.view(16, -1))


@claim(
    LESSON,
    "The inputs must have the weights' dtype, float32 here: an int64 batch raises a RuntimeError (lesson {02_dtype}), and so does a "
    "float64 one.",
)
def _():
    layer = nn.Linear(3, 2)
    assert layer.weight.dtype == torch.float32
    _raises(RuntimeError, layer, torch.ones(4, 3, dtype=torch.int64))
    _raises(RuntimeError, layer, torch.ones(4, 3, dtype=torch.float64))


@claim(
    LESSON,
    "It applies a softmax itself, takes minus the log of the probability given to the right class, and averages over the "
    "batch. The result is a 0-d tensor with a `grad_fn`, ready for `backward()`.",
)
def _():
    logits = torch.randn(5, 4, requires_grad=True)
    labels = torch.tensor([0, 3, 1, 1, 2])
    loss = nn.CrossEntropyLoss()(logits, labels)
    by_hand = -torch.log(torch.softmax(logits, dim=1)[torch.arange(5), labels]).mean()
    assert torch.allclose(loss, by_hand, atol=1e-6)
    assert loss.dim() == 0 and loss.grad_fn is not None
    loss.backward()
    assert logits.grad is not None


@claim(
    LESSON,
    "a float tensor shaped like the logits, `(N, classes)`, is read as a probability for every class of every example (a "
    '"soft" label), and a float tensor of shape `(N,)` is refused with a RuntimeError.',
)
def _():
    logits = torch.randn(5, 4)
    soft = torch.softmax(torch.randn(5, 4), dim=1)
    expected = -(soft * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
    assert torch.allclose(nn.CrossEntropyLoss()(logits, soft), expected, atol=1e-6)
    one_hot = nn.functional.one_hot(torch.tensor([0, 3, 1, 1, 2]), 4).float()
    assert torch.allclose(
        nn.CrossEntropyLoss()(logits, one_hot), nn.CrossEntropyLoss()(logits, one_hot.argmax(1)), atol=1e-6
    )
    _raises(RuntimeError, nn.CrossEntropyLoss(), logits, torch.tensor([0.0, 3.0, 1.0, 1.0, 2.0]))


@claim(LESSON, "Plain SGD (without momentum, its default) does `p -= lr * p.grad`")
def _():
    layer = nn.Linear(3, 2)
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
    assert optimizer.defaults["momentum"] == 0
    layer(torch.randn(4, 3)).sum().backward()
    expected = layer.weight.detach() - 0.1 * layer.weight.grad
    optimizer.step()
    assert torch.allclose(layer.weight.detach(), expected)


@claim(LESSON, "`backward()` *adds* to `.grad`; it never replaces the values there.")
def _():
    w = torch.ones(3, requires_grad=True)
    (2 * w).sum().backward()
    (3 * w).sum().backward()
    assert torch.equal(w.grad, torch.full((3,), 5.0))


@claim(LESSON, "unless you clear it with `optimizer.zero_grad()` (which sets every `.grad` to `None`).")
def _():
    layer = nn.Linear(3, 2)
    optimizer = torch.optim.Adam(layer.parameters())
    layer(torch.randn(4, 3)).sum().backward()
    optimizer.zero_grad()
    assert all(p.grad is None for p in layer.parameters())


@claim(
    LESSON,
    "`make_images(n, seed=...)` draws `n` labelled colour images, shape `(n, 3, 32, 32)`, float32, with int64 labels.",
)
def _():
    images, labels = make_images(7, seed=0)
    assert images.shape == (7, 3, 32, 32) and images.dtype == torch.float32
    assert labels.shape == (7,) and labels.dtype == torch.int64


class _Pairs(Dataset):
    def __init__(self, n):
        self.images, self.labels = make_images(n, seed=0, size=8)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        return self.images[index], self.labels[index]


@claim(LESSON, "Any object with `__len__` and `__getitem__` can be one")
def _():
    class Plain:
        def __len__(self):
            return 3

        def __getitem__(self, index):
            return torch.full((2,), float(index))

    assert [b.tolist() for b in DataLoader(Plain(), batch_size=2)] == [[[0.0, 0.0], [1.0, 1.0]], [[2.0, 2.0]]]


@claim(
    LESSON,
    "`batch_size` images of shape `(3, 32, 32)` become one tensor of shape `(batch_size, 3, 32, 32)`, and their labels one "
    "of shape `(batch_size,)`.",
)
def _():
    images, labels = make_images(5, seed=1)
    x, y = next(iter(DataLoader(TensorDataset(images, labels), batch_size=5)))
    assert x.shape == (5, 3, 32, 32) and y.shape == (5,)
    assert torch.equal(x, images) and torch.equal(y, labels)


@claim(
    LESSON,
    "Ten examples in batches of 4 make two full batches and a last one of 2 (`drop_last=True` would drop it). Without "
    "`shuffle`, the batches follow the dataset's order, the same on every pass.",
)
def _():
    data = _Pairs(10)
    assert [len(y) for _, y in DataLoader(data, batch_size=4)] == [4, 4, 2]
    assert [len(y) for _, y in DataLoader(data, batch_size=4, drop_last=True)] == [4, 4]
    loader = DataLoader(range(10), batch_size=4)
    first, second = [b.tolist() for b in loader], [b.tolist() for b in loader]
    assert first == second == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


@claim(
    LESSON, "With `shuffle=True` the loader draws a new order at the start of every pass over the data (every epoch)"
)
def _():
    loader = DataLoader(range(50), batch_size=50, shuffle=True, generator=torch.Generator().manual_seed(0))
    orders = [next(iter(loader)).tolist() for _ in range(3)]
    assert all(sorted(o) == list(range(50)) for o in orders)
    assert orders[0] != orders[1] != orders[2] != orders[0]


@claim(
    LESSON,
    "by default the global one, which everything else draws from too (initial weights, dropout, `torch.randn`), so the order "
    "depends on all the code that ran before.",
)
def _():
    loader = DataLoader(range(50), batch_size=50, shuffle=True)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(3)
        plain = next(iter(loader)).tolist()
        torch.manual_seed(3)
        again = next(iter(loader)).tolist()
        torch.manual_seed(3)
        torch.randn(1)
        after_randn = next(iter(loader)).tolist()
    assert plain == again and plain != after_randn


@claim(LESSON, "A `range` is a dataset as well (it has a length and an item for every index)")
def _():
    assert [b.tolist() for b in DataLoader(range(5), batch_size=2)] == [[0, 1], [2, 3], [4]]


@claim(
    LESSON,
    "The two loaders seeded with 0 agree batch for batch, and the one seeded with 1 does not; within each loader the second "
    "epoch has a new order.",
)
def _():
    def two_epochs(seed):
        loader = DataLoader(range(10), batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(seed))
        return [[batch.tolist() for batch in loader] for _ in range(2)]

    a, b, c = two_epochs(0), two_epochs(0), two_epochs(1)
    assert a == b and a != c
    assert all(epochs[0] != epochs[1] for epochs in (a, c))


@claim(LESSON, "graded code here uses `num_workers=0`, the default")
def _():
    assert DataLoader(range(3)).num_workers == 0


@claim(
    LESSON,
    "Assigning a module, or an `nn.Parameter`, to an attribute registers it, and that is how `model.parameters()`, "
    "`model.to(device)`, `model.train()` and `model.eval()` find it",
)
def _():
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = nn.Dropout(0.5)
            self.linear = nn.Linear(2, 2)
            self.scale = nn.Parameter(torch.ones(1))

    model = Model()
    assert {name for name, _ in model.named_parameters()} == {"linear.weight", "linear.bias", "scale"}
    model.eval()
    assert not model.layer.training and not model.linear.training
    model.to("meta")
    assert model.linear.weight.device.type == "meta" and model.scale.device.type == "meta"


@claim(LESSON, "`model(x)` runs `forward` and also any hooks registered on the model.")
def _():
    calls = []
    model = nn.Linear(2, 2)
    model.register_forward_hook(lambda module, args, output: calls.append("hook"))
    model(torch.ones(1, 2))
    assert calls == ["hook"]
    model.forward(torch.ones(1, 2))
    assert calls == ["hook"], "forward() alone runs no hook"


@claim(LESSON, "a `Linear(i, o)` layer holds `i * o` weights and `o` biases, here 192 * 4 + 4 = 772.")
def _():
    assert sum(p.numel() for p in nn.Linear(192, 4).parameters()) == 192 * 4 + 4 == 772
    assert sum(p.numel() for p in nn.Linear(7, 5).parameters()) == 7 * 5 + 5


@claim(
    LESSON,
    "Layers kept in a plain Python list are invisible to the module: they have no parameters as far as `parameters()` (and "
    "so the optimizer) can tell, and `.to(device)` leaves them behind. `nn.ModuleList` is the list that registers what it holds.",
)
def _():
    class Plain(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = [nn.Linear(4, 4), nn.Linear(4, 2)]

    class Registered(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 2)])

    plain = Plain()
    assert list(plain.parameters()) == []
    _raises(ValueError, torch.optim.SGD, plain.parameters(), lr=0.1)
    plain.to("meta")
    assert plain.layers[0].weight.device.type == "cpu"
    assert len(list(Registered().parameters())) == 4


@claim(
    LESSON,
    "assigning a layer before `super().__init__()` has run raises an AttributeError, because the registry does not exist yet.",
)
def _():
    class TooEarly(nn.Module):
        def __init__(self):
            self.linear = nn.Linear(4, 2)
            super().__init__()

    assert "before Module.__init__() call" in str(_raises(AttributeError, TooEarly))


@claim(LESSON, "With the defaults that is 3072 * 32 + 32 + 32 * 4 + 4 = 98,468 parameters.")
def _():
    model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 32), nn.ReLU(), nn.Linear(32, 4))
    assert sum(p.numel() for p in model.parameters()) == 3072 * 32 + 32 + 32 * 4 + 4 == 98468


@claim(
    LESSON,
    "Under `torch.no_grad()` the model's outputs do not require grad and autograd keeps nothing for a backward pass",
)
def _():
    model = nn.Linear(3, 2)
    saved = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(1) or t, lambda t: t):
        with torch.no_grad():
            out = model(torch.randn(4, 3))
    assert not out.requires_grad and out.grad_fn is None and saved == []


@claim(
    LESSON,
    "A comparison gives a bool tensor, and `.mean()` refuses bools: convert with `.float()` first. The result is a 0-d tensor; "
    "`.item()` makes it a Python float.",
)
def _():
    right = torch.tensor([1, 2, 3]) == torch.tensor([1, 0, 3])
    assert right.dtype == torch.bool
    _raises(RuntimeError, right.mean)
    mean = right.float().mean()
    assert mean.dim() == 0 and type(mean.item()) is float


@claim(
    LESSON,
    "`model.train()` sets it to True for the model and every layer inside it, `model.eval()` sets it to False (it is the same "
    "as `model.train(False)`), and both return the model itself. A new module starts in training mode.",
)
def _():
    model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5), nn.Sequential(nn.BatchNorm1d(2)))
    assert all(m.training for m in model.modules())
    assert model.eval() is model and not any(m.training for m in model.modules())
    assert model.train() is model and all(m.training for m in model.modules())
    assert model.train(False) is model and not any(m.training for m in model.modules())


@claim(
    LESSON,
    "In training mode it sets each element to zero with probability `p` and multiplies the others by `1 / (1 - p)`, so that on "
    "average the output matches the input; the choice is random and new at every call. In evaluation mode it returns its input "
    "unchanged.",
)
def _():
    drop = nn.Dropout(p=0.25)
    x = torch.full((20000,), 3.0)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        first, second = drop(x), drop(x)
    assert set(first.unique().tolist()) == {0.0, 4.0}
    assert abs((first == 0).float().mean().item() - 0.25) < 0.02
    assert abs(first.mean().item() - 3.0) < 0.1
    assert not torch.equal(first, second)
    assert torch.equal(drop.eval()(x), x)


@claim(
    LESSON,
    "In training mode it normalises each feature with the mean and variance of the current batch, and updates its running "
    "averages of them. Those running averages are *buffers*, not parameters: they are saved with the model and moved by "
    "`.to(device)`, but the optimizer never touches them. In evaluation mode it normalises with the running averages, so one "
    "image's output no longer depends on the other images in its batch.",
)
def _():
    norm = nn.BatchNorm1d(3)
    batch = torch.randn(6, 3) * 4 + 2
    out = norm(batch)
    expected = (batch - batch.mean(0)) / torch.sqrt(batch.var(0, unbiased=False) + norm.eps)
    assert torch.allclose(out, expected, atol=1e-5)
    assert not torch.equal(norm.running_mean, torch.zeros(3))
    names = {name for name, _ in norm.named_parameters()}
    assert names == {"weight", "bias"} and {"running_mean", "running_var"} <= set(norm.state_dict())
    assert not any(b is p for b in norm.buffers() for p in norm.parameters())
    norm.eval()
    alone = norm(batch[:1])
    assert torch.allclose(alone, norm(batch)[:1], atol=1e-6)
    assert torch.allclose(alone, (batch[:1] - norm.running_mean) / torch.sqrt(norm.running_var + norm.eps), atol=1e-5)
    assert norm.to("meta").running_mean.device.type == "meta"


@claim(
    LESSON,
    "In training mode the batch norm layer turned each column into about -1 and +1 whatever its scale, and its running mean "
    "moved a tenth of the way (its `momentum`, 0.1) from 0 towards the batch mean `[2, 20]`.",
)
def _():
    norm = nn.BatchNorm1d(2)
    out = norm(torch.tensor([[1.0, 10.0], [3.0, 30.0]]))
    assert torch.allclose(out, torch.tensor([[-1.0, -1.0], [1.0, 1.0]]), atol=1e-4)
    assert norm.momentum == 0.1
    assert torch.allclose(norm.running_mean, torch.tensor([0.2, 2.0]))


@claim(LESSON, "`model.eval()` does not switch autograd off (the lesson on autograd)")
def _():
    model = nn.Linear(3, 2).eval()
    assert model(torch.randn(1, 3)).requires_grad


@claim(
    LESSON,
    "In training mode two calls on the same images may disagree (dropout draws again); in evaluation mode they always agree.",
)
def _():
    model = nn.Sequential(nn.Linear(10, 50), nn.Dropout(0.5), nn.Linear(50, 4))
    x = torch.randn(64, 10)
    with torch.no_grad():
        assert not torch.equal(model(x), model(x))
        model.eval()
        assert torch.equal(model(x), model(x))


@claim(
    LESSON,
    "a new model and a new tensor live on the CPU even when a GPU is there (unless some code changed the default with "
    "`torch.set_default_device`).",
)
def _():
    assert torch.zeros(1).device.type == "cpu" and nn.Linear(2, 2).weight.device.type == "cpu"
    torch.set_default_device("meta")
    try:
        assert torch.zeros(1).device.type == "meta" and nn.Linear(2, 2).weight.device.type == "meta"
    finally:
        torch.set_default_device(None)
    assert torch.zeros(1).device.type == "cpu"


@claim(
    LESSON,
    "for a module, `.to` moves its own parameters and buffers and returns the same module (a tensor's `.to` leaves the tensor "
    "where it was and returns a copy on the new device, or the tensor itself if it is already there",
)
def _():
    model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    assert model.to("meta") is model
    assert all(t.device.type == "meta" for t in [*model.parameters(), *model.buffers()])
    x = torch.ones(3)
    moved = x.to("meta")
    assert x.device.type == "cpu" and moved.device.type == "meta"
    assert x.to("cpu") is x


@claim(LESSON, "a DataLoader over CPU tensors gives CPU batches")
def _():
    images, labels = make_images(4, seed=0, size=8)
    x, y = next(iter(DataLoader(TensorDataset(images, labels), batch_size=2)))
    assert x.device.type == "cpu" and y.device.type == "cpu"


@claim(
    LESSON,
    "With its default, which sets each `.grad` to `None`, the optimizer then skips every parameter: the model never "
    "changes and the loss curve stays flat.",
)
def _():
    for make in (lambda p: torch.optim.SGD(p, lr=0.1), lambda p: torch.optim.Adam(p, lr=0.1)):
        layer = nn.Linear(3, 2)
        before = [p.detach().clone() for p in layer.parameters()]
        optimizer = make(layer.parameters())
        layer(torch.randn(4, 3)).sum().backward()
        optimizer.zero_grad()
        optimizer.step()
        assert all(torch.equal(a, p) for a, p in zip(before, layer.parameters()))


@claim(LESSON, "`losses.append(loss)` keeps each step's graph alive; append `loss.item()`.")
def _():
    layer = nn.Linear(3, 2)
    loss = layer(torch.randn(4, 3)).sum()
    assert loss.grad_fn is not None and loss.grad_fn.next_functions
    assert type(loss.item()) is float


@claim(
    LESSON,
    "The first raises an AttributeError as soon as a layer is assigned; the second hides the layers from `parameters()`, so the "
    "optimizer never trains them (use `nn.ModuleList`).",
)
def _():
    class NoSuper(nn.Module):
        def __init__(self):
            self.linear = nn.Linear(2, 2)

    _raises(AttributeError, NoSuper)


@claim(LESSON, "clearing the gradients may come anywhere before `backward()`; first is the safe place for it")
def _():
    def run(where: str) -> list[torch.Tensor]:
        torch.manual_seed(0)
        model = nn.Linear(3, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        data = torch.randn(4, 8, 3)
        for batch in data:
            if where == "first":
                opt.zero_grad()
            loss = model(batch).pow(2).mean()
            if where == "before backward":
                opt.zero_grad()
            loss.backward()
            opt.step()
            if where == "after step":
                opt.zero_grad()
        return [p.detach().clone() for p in model.parameters()]

    first = run("first")
    for where in ("before backward", "after step"):
        assert all(torch.equal(a, b) for a, b in zip(first, run(where)))
    assert not all(torch.equal(a, b) for a, b in zip(first, run("never")))


@claim(
    LESSON,
    "With `zero_grad(set_to_none=False)` the gradients are zeros instead, and an optimizer with weight decay still "
    "moves the weights, towards zero rather than towards a lower loss.",
)
def _():
    layer = nn.Linear(3, 2)
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1, weight_decay=0.5)
    before = [p.detach().clone() for p in layer.parameters()]
    layer(torch.randn(4, 3)).sum().backward()
    optimizer.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.any() for p in layer.parameters())
    optimizer.step()
    for old, p in zip(before, layer.parameters()):
        assert torch.allclose(p.detach(), old * (1 - 0.1 * 0.5))


@claim(
    LESSON,
    "And a GPU is used only when you ask for it (`.to(device)`, or a default device set with "
    "`torch.set_default_device`): if you did not move the model, it trains on the CPU.",
)
def _():
    assert nn.Linear(2, 2).weight.device.type == "cpu"  # on a GPU machine too: nothing moves by itself
    previous = torch.get_default_device()
    torch.set_default_device("meta")  # the same switch as "cuda", on a device every machine has
    try:
        assert nn.Linear(2, 2).weight.device.type == "meta" and torch.zeros(1).device.type == "meta"
    finally:
        torch.set_default_device(previous)
    assert nn.Linear(2, 2).to("meta").weight.device.type == "meta"
