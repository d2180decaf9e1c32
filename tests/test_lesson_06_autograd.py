"""Unit tests for lesson 06 (autograd): its pictures, its probes, and the finite-difference check."""

import matplotlib.pyplot as plt
import pytest
import torch
from matplotlib.figure import Figure
from torch import nn

from course.checks import CheckFailed
from instructor.autograd import check_grad_by_finite_differences
from course.pictures.autograd import draw_graph, draw_tangent, graph_nodes
from course.probes.autograd import NAMED_FUNCTIONS, build_model, grad_of_named, predict_probe


def _texts(fig: Figure) -> list[str]:
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_graph_of_the_seed_example_names_its_nodes(tmp_path):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    weight = torch.tensor([[0.5], [0.5]], requires_grad=True)
    loss = (x @ weight).sum()
    before = set(plt.get_fignums())
    fig = draw_graph(loss, {"loss": loss, "weight": weight})
    assert isinstance(fig, Figure) and set(plt.get_fignums()) == before
    texts = _texts(fig)
    assert any(t.startswith("loss, shape ()") for t in texts)
    assert "SumBackward0" in texts and "MmBackward0" in texts
    assert any("weight.grad, shape (2, 1)" in t for t in texts)
    assert any(t.startswith("None") for t in texts), "x does not require grad: its None entry is drawn"
    fig.savefig(tmp_path / "graph.png")
    assert (tmp_path / "graph.png").stat().st_size > 0


def test_graph_walk_keeps_one_node_per_grad_fn_and_every_edge():
    c = torch.tensor(2.0, requires_grad=True)
    z = c * c + c
    nodes, edges, depth = graph_nodes(z)
    names = [type(n).__name__ for n in nodes]
    assert names.count("AccumulateGrad") == 1
    assert len(edges) == 4  # Add -> Mul, Add -> c, Mul -> c twice
    assert all(depth[id(child)] > depth[id(parent)] for parent, child in edges)
    assert len(_texts(draw_graph(z, {"z": z, "c": c}))) == len(nodes) + 1


def test_graph_of_a_tensor_without_grad_fn_says_so():
    with torch.no_grad():
        out = nn.Linear(3, 2)(torch.randn(4, 3))
    assert graph_nodes(out) == ([], [], {})
    assert any("grad_fn is None" in t for t in _texts(draw_graph(out, {"out": out})))


def test_tangent_draws_a_closed_figure(tmp_path):
    before = set(plt.get_fignums())
    fig = draw_tangent(lambda v: torch.sin(v) * v, 1.0, 1.38)
    assert isinstance(fig, Figure) and set(plt.get_fignums()) == before
    fig.savefig(tmp_path / "tangent.png")


def _good_grad_of(f, x):
    x_copy = x.detach().clone().requires_grad_(True)
    return torch.autograd.grad(f(x_copy), x_copy)[0]


def _mutating_grad_of(f, x):
    x.requires_grad_(True)
    f(x).backward()
    return x.grad


@pytest.mark.parametrize("name", sorted(NAMED_FUNCTIONS))
def test_named_functions_are_scalar_and_match_finite_differences(name):
    x = torch.randn(2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    for shape in [(), (0, 3), (4,)]:
        assert NAMED_FUNCTIONS[name](torch.ones(shape)).dim() == 0
    grad, changed = grad_of_named(_good_grad_of, name, x)
    assert not changed
    check_grad_by_finite_differences(grad, NAMED_FUNCTIONS[name], x)


def test_grad_of_named_sees_a_changed_input():
    x = torch.tensor([1.0, 2.0])
    grad, changed = grad_of_named(_mutating_grad_of, "sum_of_squares", x)
    assert changed and torch.equal(grad, 2 * torch.tensor([1.0, 2.0]))


def test_finite_difference_check_rejects_a_wrong_gradient():
    x = torch.tensor([1.0, -2.0], dtype=torch.float64)
    with pytest.raises(CheckFailed, match="finite differences"):
        check_grad_by_finite_differences(torch.tensor([2.0, 4.0]), NAMED_FUNCTIONS["sum_of_squares"], x)


def test_build_model_is_deterministic_and_leaves_the_random_state():
    state = torch.random.get_rng_state()
    a, b = build_model(3, 4, 2, hidden=5), build_model(3, 4, 2, hidden=5)
    assert torch.equal(torch.random.get_rng_state(), state)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    assert build_model(3, 4, 2, dtype=torch.float64).weight.dtype == torch.float64


def _no_grad_predict(model, x):
    with torch.no_grad():
        return model(x)


def _detach_predict(model, x):
    return model(x).detach()


def _switch_off_predict(model, x):
    torch.set_grad_enabled(False)
    return model(x)


def _zero_grad_predict(model, x):
    model.zero_grad()
    with torch.no_grad():
        return model(x)


def test_predict_probe_reports_each_mistake():
    x = torch.randn(3, 4)
    good = predict_probe(_no_grad_predict, 1, 4, 2, x, hidden=3, preset_grads=True)
    assert not any(good[k] for k in ("graph_recorded", "grads_touched", "weights_changed", "x_changed"))
    assert good["grad_mode_restored"]
    with torch.no_grad():
        assert torch.equal(good["output"], build_model(1, 4, 2, 3)(x))
    assert predict_probe(_detach_predict, 1, 4, 2, x)["graph_recorded"]
    assert not predict_probe(_switch_off_predict, 1, 4, 2, x)["grad_mode_restored"]
    assert torch.is_grad_enabled(), "the probe switches gradient recording back on"
    assert predict_probe(_zero_grad_predict, 1, 4, 2, x, preset_grads=True)["grads_touched"]
