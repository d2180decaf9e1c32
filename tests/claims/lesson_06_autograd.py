"""Claims of lesson 06 (automatic differentiation)."""

import warnings
import weakref

import numpy as np
import pytest
import torch
from torch import nn

from tests.claims import claim

L = "06_autograd"


def _classic():
    """x and weight of the lesson's classic example."""
    return torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[0.5], [0.5]], requires_grad=True)


@claim(L, "The flag is `False` by default")
def _():
    assert torch.tensor([1.0, 2.0]).requires_grad is False
    assert torch.zeros(3).requires_grad is False


@claim(L, "The layers in `torch.nn` flag their parameters for you.")
def _():
    layer = nn.Linear(2, 1)
    assert layer.weight.requires_grad and layer.bias.requires_grad


@claim(L, "Only floating-point (and complex) tensors can require grad")
def _():
    with pytest.raises(RuntimeError):
        torch.tensor([1, 2, 3], requires_grad=True)
    assert torch.tensor([1.0], requires_grad=True).requires_grad
    assert torch.tensor([1 + 2j], requires_grad=True).requires_grad


@claim(L, "You can also switch the flag on later, in place, with `requires_grad_()`")
def _():
    bias = torch.zeros(3)
    assert bias.requires_grad_() is bias and bias.requires_grad


@claim(
    L,
    "A tensor you make yourself is a **leaf** (`is_leaf` is `True`). A tensor computed from something "
    "that requires grad is a **result**: it requires grad too, and it is not a leaf.",
)
def _():
    x, weight = _classic()
    output = x @ weight
    assert x.is_leaf and weight.is_leaf
    assert output.requires_grad and not output.is_leaf


@claim(L, "leaves have no `grad_fn` (it is `None`).")
def _():
    weight = torch.tensor([[0.5], [0.5]], requires_grad=True)
    assert weight.grad_fn is None and torch.zeros(2).grad_fn is None
    assert (weight * 2).grad_fn is not None


@claim(
    L,
    "`MmBackward0` (the matrix product) has two inputs. The first, `x`, does not require grad, so its entry is `None`",
)
def _():
    x, weight = _classic()
    node = (x @ weight).grad_fn
    assert type(node).__name__ == "MmBackward0" and len(node.next_functions) == 2
    assert node.next_functions[0][0] is None


@claim(L, "The second is an `AccumulateGrad` node. It belongs to the leaf `weight` (its `.variable`)")
def _():
    x, weight = _classic()
    accumulate = (x @ weight).grad_fn.next_functions[1][0]
    assert type(accumulate).__name__ == "AccumulateGrad" and accumulate.variable is weight


@claim(
    L,
    "`nn.Linear` computes `input @ weight.T + bias` in one node (`AddmmBackward0`); the transpose of its weight has its own "
    "node (`TBackward0`).",
)
def _():
    layer = nn.Linear(3, 2)
    node = layer(torch.randn(4, 3)).grad_fn
    assert type(node).__name__ == "AddmmBackward0"
    assert "TBackward0" in [type(n).__name__ for n, _ in node.next_functions if n is not None]


@claim(
    L,
    "The columns of `x` sum to `1 + 3 = 4` and `2 + 4 = 6`, so `weight.grad` is `[[4.], [6.]]`, shaped like `weight`. "
    "Before `backward()` it was `None`; `x.grad` stays `None` because `x` does not require grad.",
)
def _():
    x, weight = _classic()
    loss = (x @ weight).sum()
    assert weight.grad is None
    loss.backward()
    assert weight.grad.tolist() == [[4.0], [6.0]] and x.grad is None


@claim(L, "For `y = sin(a * b)` that gives `dy/da = cos(a * b) * b`.")
def _():
    a = torch.tensor(2.0, requires_grad=True, dtype=torch.float64)
    b = torch.tensor(3.0, requires_grad=True, dtype=torch.float64)
    torch.sin(a * b).backward()
    assert torch.isclose(a.grad, torch.cos(a * b) * b)
    assert type(torch.sin(a * b).grad_fn).__name__ == "SinBackward0"


@claim(L, "so its gradient is `c + c + 1 = 2c + 1`.")
def _():
    c = torch.tensor(2.0, requires_grad=True)
    (c * c + c).backward()
    assert c.grad.item() == 5.0


@claim(L, "`backward()` never overwrites the values in `.grad`: it adds the new gradient to them.")
def _():
    x, weight = _classic()
    for _ in range(3):
        (x @ weight).sum().backward()
    assert weight.grad.tolist() == [[12.0], [18.0]]
    w = torch.tensor([1.0], requires_grad=True)
    (w * 2).sum().backward()
    held = w.grad
    (w * 3).sum().backward()
    assert held is w.grad and w.grad.item() == 5.0  # added in place
    (w * w).sum().backward(inputs=[w], create_graph=True)
    assert w.grad.item() == 7.0  # with create_graph the sum is a new tensor, but the old values are still added in
    w.grad = None


@claim(
    L,
    "`weight.grad = None` drops them (which is what `optimizer.zero_grad()` and `model.zero_grad()` do by default for every "
    "parameter).",
)
def _():
    model = nn.Linear(2, 1)
    model(torch.ones(1, 2)).sum().backward()
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())
    model(torch.ones(1, 2)).sum().backward()
    torch.optim.SGD(model.parameters(), lr=0.1).zero_grad()
    assert all(p.grad is None for p in model.parameters())


@claim(
    L,
    "Calling `backward()` twice on the *same* graph fails instead when the graph saved values for its backward pass, as "
    "`x @ weight` does (the slope of a product needs the other factor): the first call frees them. "
    "(`loss.backward(retain_graph=True)` keeps them, when you really need a second pass.)",
)
def _():
    x, weight = _classic()
    loss = (x @ weight).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="second time"):
        loss.backward()
    loss = (x @ weight).sum()
    loss.backward(retain_graph=True)
    loss.backward()


@claim(
    L,
    "`t.detach()` returns a tensor with the same data that is cut off from the graph: it does not require grad and has no "
    "`grad_fn`. It shares memory with `t` (an in-place change to one shows in the other)",
)
def _():
    t = torch.tensor([1.0, 2.0], requires_grad=True) * 2
    d = t.detach()
    assert not d.requires_grad and d.grad_fn is None and d.data_ptr() == t.data_ptr()
    d[0] = 7.0
    assert t[0].item() == 7.0


@claim(
    L,
    "`.numpy()` refuses a tensor that requires grad, and `.detach().cpu().numpy()` works for a float32 tensor whether it "
    "lives on the CPU or on a GPU.",
)
def _():
    t = torch.tensor([[1.5], [3.5]], requires_grad=True)
    with pytest.raises(RuntimeError):
        t.numpy()
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for dev in devices:
        array = t.to(dev).detach().cpu().numpy()
        assert isinstance(array, np.ndarray) and array.dtype == np.float32


@claim(L, "`torch.autograd.grad(result, inputs)` returns the gradients as a tuple instead of adding them into `.grad`.")
def _():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    found = torch.autograd.grad((w * w).sum(), w)
    assert isinstance(found, tuple) and found[0].tolist() == [2.0, 4.0] and w.grad is None


@claim(
    L,
    "Careful: `w.clone()` without `detach()` is still connected to `w`'s graph, so a backward pass through the clone "
    "reaches `w.grad`.",
)
def _():
    w = torch.tensor([0.5, 0.5], requires_grad=True)
    copy = w.clone()
    assert not copy.is_leaf
    (copy * 3).sum().backward()
    assert w.grad.tolist() == [3.0, 3.0]


@claim(L, "`y.backward(gradient=v)` adds that product into `x.grad`; without `gradient=` it raises.")
def _():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = torch.tensor([1.0, 0.5, 0.0])
    with pytest.raises(RuntimeError, match="scalar outputs"):
        (x**2).backward()
    x.grad = torch.ones(3)
    (x**2).backward(gradient=v)
    assert x.grad.tolist() == [3.0, 3.0, 1.0]


@claim(L, "That is exactly the gradient of the single number `(y * v).sum()`.")
def _():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 3, generator=g, dtype=torch.float64, requires_grad=True)
    v = torch.randn(4, 2, generator=g, dtype=torch.float64)
    w = torch.randn(3, 2, generator=g, dtype=torch.float64)
    (product,) = torch.autograd.grad(torch.tanh(x @ w), x, grad_outputs=v)
    (of_sum,) = torch.autograd.grad((torch.tanh(x @ w) * v).sum(), x)
    assert torch.allclose(product, of_sum)


@claim(L, "with `v` one-hot (a 1 at entry `i`, zeros elsewhere) the product *is* row `i`.")
def _():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    f = lambda t: torch.stack([t[0] * t[1], t[1] ** 3, t.sum()])  # noqa: E731
    table = torch.autograd.functional.jacobian(f, x.detach())
    for i in range(3):
        (row,) = torch.autograd.grad(f(x), x, grad_outputs=torch.eye(3)[i])
        assert torch.equal(row, table[i])


@claim(L, "The comparison `y.norm() < 100` is not part of the gradient: it only decided which operations ran.")
def _():
    for start, doublings in (([1.0, 1.0], 7), ([20.0, 20.0], 2)):
        x = torch.tensor(start, requires_grad=True)
        y = x * 2
        while y.norm() < 100:
            y = y * 2
        y.sum().backward()
        assert x.grad.tolist() == [2.0**doublings] * 2
        assert (y.norm() < 100).grad_fn is None


@claim(
    L,
    "A graph that saved no tensor, such as `(weight + 1).sum()`, backs up twice without an error, adding into `.grad` each time",
)
def _():
    _, weight = _classic()
    loss = (weight + 1).sum()
    loss.backward()
    loss.backward()
    assert weight.grad.flatten().tolist() == [2.0, 2.0]


@claim(
    L,
    "To choose entry by entry, use `torch.where(condition, a, b)`: it computes both `a` and `b`, takes each entry from one of "
    "them, and sends each entry's gradient back into the branch that entry came from, and a gradient of 0 into the other branch.",
)
def _():
    a = torch.tensor([2.0, -2.0, 0.5], requires_grad=True)
    b = torch.tensor([1.0, 1.0, 1.0], requires_grad=True)
    torch.where(a > 0, a, b * 3).sum().backward()
    assert a.grad.tolist() == [1.0, 0.0, 1.0] and b.grad.tolist() == [0.0, 3.0, 0.0]


@claim(
    L,
    "the slope of `sqrt` at 0 is infinite, so `torch.where(t > 0, t.sqrt(), 0.0)` has gradient NaN at `t = 0`, although the "
    "value there is a plain 0. The fix is a second `where` that keeps the unsafe branch's *input* in its safe range: "
    "`torch.where(t > 0, torch.where(t > 0, t, 1.0).sqrt(), 0.0)`.",
)
def _():
    for dtype in (torch.float32, torch.float64):
        t = torch.tensor([4.0, 0.0], dtype=dtype, requires_grad=True)
        value = torch.where(t > 0, t.sqrt(), 0.0)
        (unsafe,) = torch.autograd.grad(value.sum(), t)
        assert value.tolist() == [2.0, 0.0] and unsafe[0].item() == 0.25 and unsafe[1].isnan()
        safe_value = torch.where(t > 0, torch.where(t > 0, t, 1.0).sqrt(), 0.0)
        (safe,) = torch.autograd.grad(safe_value.sum(), t)
        assert safe_value.tolist() == [2.0, 0.0] and safe.tolist() == [0.25, 0.0]


@claim(L, "An `if` on a tensor asks Python for a single true or false, which works for a tensor with one element.")
def _():
    assert bool(torch.tensor([2.0]) > 0)
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(torch.tensor([2.0, -1.0]) > 0)


@claim(
    L,
    "The expression `x + (torch.round(x) - x).detach()` has the *value* of `torch.round(x)` (the two `x` cancel), but autograd "
    "only sees the first `x`, so the gradient passes straight through, as if there were no rounding.",
)
def _():
    x = torch.tensor([0.2, 1.7, -0.6], requires_grad=True)
    straight = x + (torch.round(x) - x).detach()
    assert torch.equal(straight, torch.round(x))
    assert torch.autograd.grad(straight.sum(), x)[0].tolist() == [1.0, 1.0, 1.0]
    assert torch.autograd.grad(torch.round(x).sum(), x)[0].tolist() == [0.0, 0.0, 0.0]


@claim(
    L,
    "the backward pass pretends the forward pass was `x.clamp(-1, 1)`: the gradient passes through unchanged where "
    "`-1 < x < 1`, and is zero where `x` is beyond that range.",
)
def _():
    x = torch.tensor([-2.5, -0.5, 0.25, 3.0], requires_grad=True)
    assert torch.autograd.grad(x.clamp(-1, 1).sum(), x)[0].tolist() == [0.0, 1.0, 1.0, 0.0]


@claim(
    L,
    "`torch.exp` saves its output (the slope of `exp(u)` is `exp(u)` itself), `torch.sigmoid` saves its output too, "
    "a product saves its factors.",
)
def _():
    for op in (torch.exp, torch.sigmoid):
        x = torch.tensor([0.5, -1.0], requires_grad=True)
        out = op(x)
        assert out.grad_fn._saved_result.data_ptr() == out.data_ptr()
    a, b = torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([3.0, 4.0], requires_grad=True)
    node = (a * b).grad_fn
    assert torch.equal(node._saved_self, a) and torch.equal(node._saved_other, b)


@claim(
    L,
    "every tensor counts the in-place changes made to it (`t._version`), each saved tensor remembers the count it had when "
    "it was saved, and `backward()` raises a `RuntimeError` when the two differ.",
)
def _():
    z = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    s = torch.sigmoid(z)
    assert s._version == 0
    s *= 2
    assert s._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        s.sum().backward()


@claim(
    L,
    "`with torch.no_grad(): s *= 2` still counts as a change: the counter moves whether or not a graph is being recorded. "
    "And `s.data *= 2` changes the values behind the counter's back: `backward()` runs without an error and silently uses the "
    "changed values, so the gradient is wrong.",
)
def _():
    z = torch.tensor([0.5, -1.0, 2.0], requires_grad=True, dtype=torch.float64)
    s = torch.sigmoid(z)
    with torch.no_grad():
        s *= 2
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        torch.autograd.grad(s.sum(), z)
    right = torch.autograd.grad((torch.sigmoid(z) * 2).sum(), z)[0]
    s = torch.sigmoid(z)
    s.data *= 2
    silent = torch.autograd.grad(s.sum(), z)[0]
    assert not torch.allclose(silent, right)


@claim(
    L,
    "Or change a copy: `s = torch.sigmoid(z).clone()`, then `s *= 2` changes the clone, which no backward step saved.",
)
def _():
    z = torch.tensor([0.5, -1.0, 2.0], requires_grad=True, dtype=torch.float64)
    s = torch.sigmoid(z).clone()
    s *= 2
    (found,) = torch.autograd.grad(s.sum(), z)
    sig = torch.sigmoid(z.detach())
    assert torch.allclose(found, 2 * sig * (1 - sig))


@claim(
    L,
    "in `y = x * 1.5` followed by `y.add_(1.0)`, the multiplication by a number does not save its output, so `backward()` works.",
)
def _():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1.5
    y.add_(1.0)
    (y * y).sum().backward()
    assert x.grad.tolist() == [2 * 2.5 * 1.5, 2 * 4.0 * 1.5]


@claim(L, "For large inputs `torch.exp` overflows to `inf` (in float32, past about 88.7), and the result holds `nan`.")
def _():
    assert torch.isfinite(torch.exp(torch.tensor(88.7)))
    assert torch.isinf(torch.exp(torch.tensor(88.8)))
    x = torch.tensor([[1000.0, 1000.0, 998.0]])
    e = torch.exp(x)
    assert torch.isnan(e / e.sum(dim=-1, keepdim=True)).all()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        x = x.clone().requires_grad_(True)
        e = torch.exp(x)
        e /= e.sum(dim=-1, keepdim=True)
        e.sum().backward()


@claim(L, "Softmax does not change when the same number is subtracted from a whole row")
def _():
    x = torch.tensor([[0.5, -1.0, 2.0], [3.0, 0.0, 1.0]], dtype=torch.float64)
    assert torch.allclose(
        torch.softmax(x, -1), torch.softmax(x - torch.tensor([[7.0], [-2.0]], dtype=torch.float64), -1)
    )


def _network():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10))
    return model, torch.randn(512, 64)


def _storage(t):
    return t.untyped_storage().data_ptr()


def _stored_while(run):
    """(run's result, weak references to what the graph stores for each saved tensor, in order)."""
    stored = []

    def pack(t):
        kept = t.detach()  # what the graph keeps: the same memory, without a cycle back to the graph
        stored.append(weakref.ref(kept))
        return kept

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        result = run()
    return result, stored


@claim(
    L,
    "Some of it is in memory anyway: the input batch, and the weights (or views of them, such as a weight's transpose). "
    "The rest are intermediate results, such as a hidden layer's activations: without a graph they would be freed as soon as "
    "the next layer had used them, but the graph keeps them alive for as long as the result is alive.",
)
def _():
    model, batch = _network()
    output, saved = _stored_while(lambda: model(batch))
    tensors = [r() for r in saved]
    weights = {_storage(p) for p in model.parameters()}
    kinds = [
        "batch" if _storage(t) == _storage(batch) else "weight" if _storage(t) in weights else "intermediate"
        for t in tensors
    ]
    assert kinds == ["batch", "intermediate", "intermediate", "weight"]
    assert tensors[3].shape == model[2].weight.T.shape, "the saved weight is its transpose, a view of it"
    assert tensors[1] is tensors[2] or _storage(tensors[1]) == _storage(tensors[2]), (
        "the hidden activations, saved twice"
    )
    del tensors
    assert saved[1]() is not None, "the graph keeps the activations alive"
    del output
    assert saved[1]() is None, "without the result (and its graph) they are freed"
    with torch.no_grad():
        model(batch)


@claim(
    L,
    "The hidden activations `(512, 256)` are saved twice (by the ReLU and by the second layer), but they are one block of memory.",
)
def _():
    model, batch = _network()
    output, stored = _stored_while(lambda: model(batch))
    hidden = [r() for r in stored if tuple(r().shape) == (512, 256)]
    assert len(hidden) == 2 and _storage(hidden[0]) == _storage(hidden[1])
    relu_node = output.grad_fn.next_functions[1][0]
    assert type(relu_node).__name__ == "ReluBackward0"
    assert relu_node._saved_result.data_ptr() == hidden[0].data_ptr()


@claim(
    L,
    "Inside `with torch.no_grad():` autograd records nothing: results do not require grad and have no `grad_fn`, and nothing "
    "is saved.",
)
def _():
    model, batch = _network()

    def quiet():
        with torch.no_grad():
            return model(batch)

    out, stored = _stored_while(quiet)
    assert stored == [] and not out.requires_grad and out.grad_fn is None


@claim(
    L,
    "`model(x).detach()` gives the same numbers, but the graph *was* built during the forward pass (and its memory used) before "
    "being dropped.",
)
def _():
    model, batch = _network()
    out, stored = _stored_while(lambda: model(batch).detach())
    assert len(stored) == 4 and all(r() is None for r in stored), "saved while it ran, freed with the dropped graph"
    with torch.no_grad():
        assert torch.equal(out, model(batch))


@claim(
    L,
    "`model.eval()` switches layers such as dropout and batch norm to their evaluation behaviour. It does not stop autograd",
)
def _():
    model, batch = _network()
    model.eval()
    assert model(batch).requires_grad


@claim(
    L,
    "`torch.inference_mode()` is a stricter, slightly faster cousin of `no_grad()`: its results are marked as inference tensors, "
    "which autograd refuses to save for a backward pass later. `@torch.no_grad()` also works as a decorator on a whole function.",
)
def _():
    with torch.inference_mode():
        t = torch.ones(3)
    assert t.is_inference()
    w = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="[Ii]nference tensors"):
        (w * t).sum()

    @torch.no_grad()
    def run(v):
        return v * 2

    assert not run(w).requires_grad


@claim(
    L,
    "`backward()` then computes no gradient for it: its `.grad` stays as it was, `None` if it never had one. The optimizers in "
    "`torch.optim` skip parameters whose `.grad` is `None`, so then a step leaves it as it was.",
)
def _():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
    net[0].requires_grad_(False)
    for optimizer in (
        torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=0.1),
        torch.optim.Adam(net.parameters(), lr=0.1, weight_decay=0.1),
    ):
        before = [p.detach().clone() for p in net.parameters()]
        net(torch.randn(16, 4)).pow(2).mean().backward()
        optimizer.step()
        optimizer.zero_grad()
        assert net[0].weight.grad is None and net[0].bias.grad is None
        changed = [not torch.equal(p, old) for p, old in zip(net.parameters(), before)]
        assert changed == [False, False, True, True]


@claim(L, "`p.detach()` returns a new tensor and leaves `p`, and its flag, as they were;")
def _():
    p = nn.Linear(2, 2).weight
    d = p.detach()
    assert d is not p and p.requires_grad and not d.requires_grad


@claim(L, "`model.eval()` changes how layers such as dropout and batch norm behave, not which parameters learn.")
def _():
    model = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5), nn.BatchNorm1d(3))
    model.eval()
    assert all(p.requires_grad for p in model.parameters()) and not model[1].training


@claim(
    L, "Without `no_grad()`, every output you keep also keeps its graph, and with it the tensors saved for backward."
)
def _():
    model, batch = _network()
    kept, saved = _stored_while(lambda: [model(batch) for _ in range(2)])
    hidden = [r for r in saved if r() is not None and tuple(r().shape) == (512, 256)]
    assert len(hidden) == 4
    kept.clear()
    assert all(r() is None for r in hidden)


@claim(
    L,
    "An in-place change to a leaf that requires grad would have to be part of the graph, which makes no sense for an update; "
    "PyTorch refuses it.",
)
def _():
    w = torch.tensor([[0.5], [0.5]], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        w -= 0.1
    with torch.no_grad():
        w -= 0.1


@claim(
    L,
    "`.grad` of a result (not a leaf) stays `None`: gradients are kept for leaves only. Call `result.retain_grad()` before "
    "`backward()` if you really need one.",
)
def _():
    w = torch.tensor([[0.5], [0.5]], requires_grad=True)
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    out = x @ w
    out.sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert out.grad is None
    out = x @ w
    out.retain_grad()
    out.sum().backward()
    assert out.grad.tolist() == [[1.0], [1.0]]


@claim(
    L,
    "Two roads get past it: `.data`, as above, and a write through memory that a NumPy array shares with the tensor "
    "(`.detach().numpy()`, lesson {04_numpy}), which PyTorch never sees. Both leave the gradient silently wrong",
)
def _():
    z = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    right = torch.sigmoid(z) * (1 - torch.sigmoid(z))
    s = torch.sigmoid(z)
    version = s._version
    s.detach().numpy()[:] *= 2
    assert s._version == version
    (through_numpy,) = torch.autograd.grad(s.sum(), z)
    assert not torch.allclose(through_numpy, right.detach())
    s = torch.sigmoid(z)
    s.data *= 2
    (silent,) = torch.autograd.grad(s.sum(), z)
    assert not torch.allclose(silent, right.detach())


@claim(
    L,
    "A parameter frozen after a `backward()` and before `zero_grad()` keeps that `.grad`, and `opt.step()` still moves it "
    "with it. So freeze before the first `backward()`, or clear `.grad` as you freeze (`p.grad = None`; "
    "`optimizer.zero_grad()` does that by default).",
)
def _():
    for make in (lambda ps: torch.optim.SGD(ps, lr=0.1), lambda ps: torch.optim.Adam(ps, lr=0.1)):
        torch.manual_seed(0)
        late = nn.Linear(4, 2)
        opt = make(late.parameters())
        late(torch.randn(8, 4)).sum().backward()
        late.requires_grad_(False)
        assert late.weight.grad is not None
        old = late.weight.detach().clone()
        opt.step()
        assert not torch.equal(late.weight, old)
        opt.zero_grad()
        assert late.weight.grad is None
        old = late.weight.detach().clone()
        opt.step()
        assert torch.equal(late.weight, old)
