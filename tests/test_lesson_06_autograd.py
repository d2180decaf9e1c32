"""Unit tests for lesson 06 (autograd): its pictures, its probes, and the instructor's references."""

import math

import matplotlib.pyplot as plt
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure
from torch import nn

from course.checks import CheckFailed
from course.pictures.autograd import draw_graph, draw_tangent, graph_nodes
from course.probes.autograd import (
    NAMED_FUNCTIONS,
    backward_through,
    build_model,
    build_stack,
    freeze_probe,
    grad_of_named,
    predict_probe,
)
from instructor.autograd import check_grad_by_finite_differences, softmax_and_vjp, tanh_layer_products
from tests.quiz_keys import key_of, outcome, the_true_choice


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


# ---------------------------------------------------------------- backward_through


def _straight_through(x):
    return x + (torch.round(x) - x).detach()


def test_backward_through_reports_the_gradient_that_reaches_x_and_leaves_x_grad_alone():
    x = torch.tensor([0.2, 1.7, -0.6], requires_grad=True)
    x.grad = torch.full((3,), 5.0)
    v = torch.tensor([1.0, 2.0, 3.0])
    report = backward_through(_straight_through, x, v)
    assert report["error"] is None and not report["x_changed"]
    assert torch.equal(report["output"], torch.tensor([0.0, 2.0, -1.0])) and report["output"].requires_grad
    assert torch.equal(report["grad"], v) and not report["grad"].requires_grad
    assert torch.equal(x.grad, torch.full((3,), 5.0)), "the probe's backward pass accumulates nothing"


def test_backward_through_says_why_there_is_no_gradient():
    x = torch.tensor([0.2, 1.7], requires_grad=True)
    v = torch.ones(2)
    assert "does not require grad" in backward_through(lambda t: torch.round(t.detach()), x, v)["error"]
    assert "shape is ()" in backward_through(lambda t: t.sum(), x, v)["error"]
    assert "dtype is float64" in backward_through(lambda t: t.double(), x, v)["error"]
    assert "not a torch.Tensor" in backward_through(lambda t: t.tolist(), x, v)["error"]

    def inplace_after_exp(t):
        e = torch.exp(t)
        e /= e.sum()
        return e

    assert "modified by an inplace operation" in backward_through(inplace_after_exp, x, v)["error"]
    assert torch.equal(backward_through(torch.round, x, v)["grad"], torch.zeros(2))


def test_backward_through_sees_a_changed_x_and_skips_backward_without_requires_grad():
    def overwrite(t):
        t.data = torch.round(t.data)
        return t

    assert backward_through(overwrite, torch.tensor([0.2, 1.7], requires_grad=True), torch.ones(2))["x_changed"]
    report = backward_through(_straight_through, torch.tensor([0.2, 1.7]), torch.ones(2))
    assert report["grad"] is None and report["error"] is None and not report["output"].requires_grad


def test_backward_through_a_function_that_drops_requires_grad_keeps_its_evidence_count():
    def unflag(t):
        t.requires_grad_(False)
        return t * 2

    report = backward_through(unflag, torch.tensor([1.0, 2.0], requires_grad=True), torch.ones(2))
    assert report["x_changed"] and report["error"] is not None


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-5, 5), min_size=1, max_size=6), st.floats(-3, 3))
def test_backward_through_matches_a_scaled_output_gradient(values, scale):
    """For f(x) = c * x the gradient that reaches x is c * v, whatever x and v are."""
    x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    v = torch.linspace(-1, 1, len(values), dtype=torch.float64)
    report = backward_through(lambda t: t * scale, x, v)
    assert torch.allclose(report["grad"], v * scale)


# ---------------------------------------------------------------- freeze_probe and build_stack


def _freeze_head(model):
    model.requires_grad_(False)
    model[-1].requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def test_build_stack_is_deterministic_and_leaves_the_random_state():
    state = torch.random.get_rng_state()
    a, b = build_stack(3, [4, 5, 6, 2], layer_norm=True), build_stack(3, [4, 5, 6, 2], layer_norm=True)
    assert torch.equal(torch.random.get_rng_state(), state)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    assert [type(m).__name__ for m in a] == ["Linear", "Tanh", "LayerNorm", "Linear", "Tanh", "LayerNorm", "Linear"]
    assert build_stack(1, [3, 2], head_bias=False)[-1].bias is None
    assert build_stack(1, [3, 4, 2], dtype=torch.float64)[0].weight.dtype == torch.float64


@pytest.mark.parametrize(
    "frozen_before, expected",
    [
        ("none", [True, True, True, True]),
        ("all", [False, False, False, False]),
        ("head", [True, True, False, False]),
        ("first", [False, False, True, True]),
    ],
)
def test_build_stack_freezes_what_it_is_told(frozen_before, expected):
    assert [p.requires_grad for p in build_stack(0, [3, 4, 2], frozen_before=frozen_before).parameters()] == expected


def test_build_stack_rejects_bad_arguments():
    with pytest.raises(ValueError, match="frozen_before"):
        build_stack(0, [3, 2], frozen_before="body")
    with pytest.raises(ValueError, match="sizes"):
        build_stack(0, [3])


def test_freeze_probe_reports_flags_by_name_and_the_result():
    report = freeze_probe(_freeze_head, 0, [5, 8, 6, 3], layer_norm=True, head_bias=False, frozen_before="all")
    assert report["names"] == [
        "0.weight",
        "0.bias",
        "2.weight",
        "2.bias",
        "3.weight",
        "3.bias",
        "5.weight",
        "5.bias",
        "6.weight",
    ]
    assert report["requires_grad"] == [False] * 8 + [True]
    assert report["result"] == 18 and not report["values_changed"] and not report["grads_changed"]


def test_freeze_probe_sees_what_a_wrong_freeze_does():
    def detach_only(model):
        for p in model.parameters():
            p.detach()
        return 0

    def scramble(model):
        with torch.no_grad():
            model[0].weight.zero_()
        model[0].weight.grad = torch.ones_like(model[0].weight)
        return _freeze_head(model)

    assert freeze_probe(detach_only, 1, [4, 3, 2])["requires_grad"] == [True] * 4
    report = freeze_probe(scramble, 1, [4, 3, 2])
    assert report["values_changed"] and report["grads_changed"]


# ---------------------------------------------------------------- the instructor's references


def _slow_softmax(row):
    exps = [math.exp(a - max(row)) for a in row]
    return [e / sum(exps) for e in exps]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(st.floats(-30, 30), min_size=3, max_size=3), min_size=1, max_size=4),
    st.lists(st.floats(-2, 2), min_size=3, max_size=3),
)
def test_softmax_and_vjp_match_the_slow_formula(rows, weights):
    """Softmax row by row in Python floats, and its product with v from the Jacobian written out entry by entry."""
    x = torch.tensor(rows, dtype=torch.float64)
    v = torch.tensor([weights] * len(rows), dtype=torch.float64)
    output, grad = softmax_and_vjp(x, v)
    for i, row in enumerate(rows):
        p = _slow_softmax(row)
        assert output[i].tolist() == pytest.approx(p, abs=1e-12)
        jacobian = [[p[a] * ((a == b) - p[b]) for b in range(3)] for a in range(3)]
        expected = [sum(weights[a] * jacobian[a][b] for a in range(3)) for b in range(3)]
        assert grad[i].tolist() == pytest.approx(expected, abs=1e-12)


def test_softmax_and_vjp_keep_the_dtype_and_agree_with_autograd():
    x = torch.randn(3, 4, generator=torch.Generator().manual_seed(1), requires_grad=True)
    v = torch.randn(3, 4, generator=torch.Generator().manual_seed(2))
    output, grad = softmax_and_vjp(x, v)
    assert output.dtype == grad.dtype == torch.float32 and not output.requires_grad
    assert torch.allclose(grad, torch.autograd.grad(torch.softmax(x, -1), x, v)[0], atol=1e-6)


def test_tanh_layer_products_match_finite_differences():
    g = torch.Generator().manual_seed(3)
    x, w, v = (torch.randn(*shape, generator=g, dtype=torch.float64) for shape in [(4, 3), (3, 2), (4, 2)])
    grad_x, grad_w = tanh_layer_products(x.requires_grad_(True), w, v)
    assert x.grad is None and not grad_x.requires_grad
    check_grad_by_finite_differences(grad_x, lambda t: (torch.tanh(t @ w) * v).sum(), x)
    check_grad_by_finite_differences(grad_w, lambda t: (torch.tanh(x.detach() @ t) * v).sum(), w)


def test_the_operation_watch_names_softmax_in_every_spelling():
    import torch.nn.functional as F

    from course.checks import CheckFailed
    from course.probes.ops import SOFTMAX_CALLS, call_watching_ops, check_no_library_call

    x = torch.randn(3, 4, requires_grad=True)
    spellings = [
        lambda t: torch.softmax(t, -1),
        lambda t: F.softmax(t, dim=-1),
        lambda t: t.softmax(-1),
        lambda t: torch.nn.Softmax(dim=-1)(t),
        lambda t: torch.special.softmax(t, -1),
        lambda t: F.log_softmax(t, -1).exp(),
    ]
    for spelling in spellings:
        result, seen = call_watching_ops(spelling, SOFTMAX_CALLS, x)
        assert seen and torch.allclose(result, torch.softmax(x, -1))
        with pytest.raises(CheckFailed, match="torch.(log_)?softmax"):
            check_no_library_call(seen, item="stable_softmax", what="here")

    def shifted(t):
        return (t - t.amax(-1, keepdim=True)).exp() / (t - t.amax(-1, keepdim=True)).exp().sum(-1, keepdim=True)

    assert call_watching_ops(shifted, SOFTMAX_CALLS, x)[1] == []
    check_no_library_call([], item="stable_softmax", what="here")


def test_grad_of_under_transform_names_the_library_gradient():
    from course.probes.autograd import AUTOGRAD_FUNCTIONAL, TORCH_FUNC, grad_of_under_transform

    def by_hand(f, x):
        leaf = x.detach().clone().requires_grad_(True)
        return torch.autograd.grad(f(leaf), leaf)[0]

    def by_backward(f, x):
        leaf = x.detach().requires_grad_(True)
        f(leaf).backward()
        return leaf.grad

    x = torch.tensor([1.0, -2.0, 3.0])
    assert grad_of_under_transform(by_hand, "sum_of_squares", x) == []
    assert grad_of_under_transform(by_backward, "sin_sum", x) == []
    functional = (
        lambda f, t: torch.autograd.functional.jacobian(f, t),
        lambda f, t: torch.autograd.functional.jacobian(lambda u: f(u), t),
        lambda f, t: torch.autograd.functional.vjp(f, t)[1],
        lambda f, t: torch.autograd.functional.hessian(f, t).sum(0),
    )
    for library in functional:
        assert grad_of_under_transform(library, "sin_sum", x) == [AUTOGRAD_FUNCTIONAL]
    for transform in (
        lambda f, t: torch.func.grad(f)(t),
        lambda f, t: torch.func.grad_and_value(f)(t)[0],
        lambda f, t: torch.func.jacrev(f)(t),
        lambda f, t: torch.func.vjp(f, t)[1](torch.tensor(1.0))[0],
        lambda f, t: torch.autograd.functional.jacobian(f, t, vectorize=True),
    ):
        assert grad_of_under_transform(transform, "sum_of_squares", x)[0] in (TORCH_FUNC, AUTOGRAD_FUNCTIONAL)


# Each quiz run: exactly one choice holds, and it is the key in the lesson's hidden test.

QUIZ_LESSON = "06_autograd"


def _quiz(item):
    return key_of(QUIZ_LESSON, item)


def test_seed_weight_grad_key():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    weight = torch.tensor([[0.5], [0.5]], requires_grad=True)
    (x @ weight).sum().backward()
    assert weight.grad.tolist() == _quiz("answer_seed_weight_grad")


def test_backward_twice_key():
    def run():
        w = torch.tensor(2.0, requires_grad=True)
        for k in (1.0, 3.0):
            loss = k * w**2
            loss.backward()
        return w.grad

    found = outcome(run)
    value = found.item() if isinstance(found, torch.Tensor) else None
    holds = {"A": value == 12.0, "B": found is RuntimeError, "C": value == 16.0, "D": value == 4.0}
    assert the_true_choice(holds) == _quiz("answer_backward_twice")


def test_vjp_grad_key():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    total = x.sum()
    y = x * total
    y.backward(gradient=torch.tensor([1.0, 0.0, -1.0]))
    assert x.grad.tolist() == _quiz("answer_vjp_grad")


def test_loop_grad_key():
    def run():
        x = torch.tensor(3.0, requires_grad=True)
        y = x
        while y < 100:
            y = y * 3
        y.backward()
        return x.grad

    found = outcome(run)
    value = found.item() if isinstance(found, torch.Tensor) else None
    holds = {"A": value == 81.0, "B": found is RuntimeError, "C": value == 243.0, "D": value == 0.0}
    assert the_true_choice(holds) == _quiz("answer_loop_grad")


def test_where_log_grad_key():
    def run():
        x = torch.tensor([0.0, 4.0], requires_grad=True)
        y = torch.where(x > 0, x.log(), 0.0).sum()
        y.backward()
        return x.grad

    found = outcome(run)
    first = found[0].item() if isinstance(found, torch.Tensor) else None
    second_ok = isinstance(found, torch.Tensor) and found[1].item() == 0.25
    holds = {
        "A": second_ok and first == 0.0,
        "B": second_ok and first is not None and math.isnan(first),
        "C": second_ok and first == math.inf,
        "D": found is RuntimeError,
    }
    assert the_true_choice(holds) == _quiz("answer_where_log_grad")


def test_freeze_step_key():
    def run():
        w = torch.tensor([1.0, 1.0], requires_grad=True)
        opt = torch.optim.SGD([w], lr=0.5)
        (w * torch.tensor([2.0, 4.0])).sum().backward()
        w.requires_grad_(False)
        opt.step()
        return w.tolist()

    found = outcome(run)
    holds = {"A": found == [1.0, 1.0], "B": found == [0.0, -1.0], "C": found is RuntimeError, "D": found == [2.0, 3.0]}
    assert the_true_choice(holds) == _quiz("answer_freeze_step")


def test_no_grad_purpose_key():
    layer = nn.Linear(3, 2)
    x = torch.randn(4, 3)
    layer.weight.grad = torch.ones_like(layer.weight)
    with torch.no_grad():
        quiet = layer(x)
        mode_inside = layer.training
    recorded = layer(x)
    holds = {
        "A": not torch.equal(quiet, recorded),
        "B": not mode_inside,
        "C": not layer.weight.grad.eq(1).all(),
        "D": quiet.grad_fn is None and recorded.grad_fn is not None,
    }
    assert the_true_choice(holds) == _quiz("answer_no_grad_purpose")
