"""Lesson 07's toy data, probes and pictures, checked with the lesson's own reference solutions and with wrong ones."""

from __future__ import annotations

import contextlib
import io

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from autograder.authoring.lessons import parse_lesson
from course.checks import CheckFailed
from course.data import CLASS_NAMES, make_images, train_test_images
from course.pictures.training import plot_loss_curve, show_images, training_step_diagram
from course.probes import training as probes
from instructor.training import expected_accuracy, expected_training_step
from tests.conftest import ROOT
from tests.quiz_keys import key_of, outcome, the_true_choice


@pytest.fixture(scope="module")
def solutions() -> dict:
    """The namespace of the lesson's first code cell with every reference answer defined in it."""
    cells = parse_lesson((ROOT / "lessons" / "07_training.py").read_text(encoding="utf-8"))
    namespace: dict = {}
    setup = next(c for c in cells if c.kind == "code")
    with contextlib.redirect_stdout(io.StringIO()):
        exec("\n".join(setup.lines), namespace)
        for cell in cells:
            if cell.kind == "answer":
                code = "\n".join(
                    line for line in cell.lines if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line
                )
                exec(code, namespace)
    return namespace


def test_make_images_is_deterministic_and_leaves_the_global_rng_alone():
    state = torch.random.get_rng_state()
    a = make_images(20, seed=3)
    b = make_images(20, seed=3)
    assert torch.equal(torch.random.get_rng_state(), state)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    c = make_images(20, seed=4)
    assert not torch.equal(a[0], c[0])


@pytest.mark.parametrize("n, classes, size, channels", [(12, 4, 32, 3), (7, 6, 8, 1), (1, 2, 4, 3), (0, 4, 16, 3)])
def test_make_images_shapes_and_dtypes(n, classes, size, channels):
    images, labels = make_images(n, seed=0, num_classes=classes, size=size, channels=channels)
    assert images.shape == (n, channels, size, size) and images.dtype == torch.float32
    assert labels.shape == (n,) and labels.dtype == torch.int64
    assert images.device.type == "cpu" and not images.requires_grad
    assert bool(torch.isfinite(images).all())
    if n:
        assert 0 <= int(labels.min()) and int(labels.max()) < classes


@pytest.mark.parametrize("n, classes", [(100, 4), (101, 4), (30, 6), (9, 2)])
def test_labels_are_balanced(n, classes):
    _, labels = make_images(n, seed=1, num_classes=classes)
    counts = torch.bincount(labels, minlength=classes)
    assert int(counts.max() - counts.min()) <= 1 and int(counts.sum()) == n


def test_labels_are_shuffled():
    _, labels = make_images(40, seed=0)
    assert not torch.equal(labels, torch.arange(40) % 4)


@pytest.mark.parametrize(
    "kwargs", [dict(n=-1), dict(num_classes=1), dict(num_classes=len(CLASS_NAMES) + 1), dict(size=3), dict(channels=0)]
)
def test_make_images_rejects_bad_sizes(kwargs):
    args = dict(n=4, seed=0) | kwargs
    with pytest.raises(ValueError):
        make_images(**args)


def test_train_test_images_use_different_seeds():
    (x, y), (tx, ty) = train_test_images(16, 8, seed=5, size=8)
    assert x.shape == (16, 3, 8, 8) and tx.shape == (8, 3, 8, 8) and y.shape == (16,) and ty.shape == (8,)
    assert not torch.equal(x[:8], tx)


def test_reference_training_step_matches_expectation(solutions):
    for seed, options in [
        (0, {}),
        (1, dict(stale_grads=True)),
        (2, dict(hidden=8, optimizer="adam", lr=0.01, stale_grads=True)),
    ]:
        found = probes.training_step_probe(solutions["training_step"], seed, **options)
        probes.check_training_step(found, expected_training_step(seed, **options), what="reference", stale_grads=True)


def test_training_step_probe_catches_leaked_gradients(monkeypatch):
    """The mismatch is told at once; how to fix it (clear the old gradient) only when the check fails again."""
    from course import checks

    monkeypatch.setattr(checks, "FAILURES", {})

    def no_zero_grad(model, images, labels, optimizer, loss_fn):
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        return loss.item()

    found = probes.training_step_probe(no_zero_grad, 1, stale_grads=True)
    with pytest.raises(CheckFailed) as first:
        probes.check_training_step(found, expected_training_step(1, stale_grads=True), what="leaky", stale_grads=True)
    assert str(first.value).startswith("Expected parameter 0 of the model after the update")
    assert "Hint" not in str(first.value) and "old gradient" not in str(first.value)
    with pytest.raises(CheckFailed, match=r"Hint: Every parameter came in with an old gradient"):
        probes.check_training_step(found, expected_training_step(1, stale_grads=True), what="leaky", stale_grads=True)


def test_reference_evaluate_matches_and_records_no_graph(solutions):
    for seed, options in [(0, {}), (1, dict(hidden=8, images_require_grad=True))]:
        expected = expected_accuracy(seed, **{k: v for k, v in options.items() if k != "images_require_grad"})
        found = probes.evaluate_probe(solutions["evaluate"], seed, **options)
        probes.check_evaluation(found, expected, what="reference")
        assert 0.0 < expected < 1.0


def test_evaluate_probe_sees_a_recorded_graph():
    def with_graph(model, images, labels):
        return (model(images).detach().argmax(dim=1) == labels).float().mean().item()

    found = probes.evaluate_probe(with_graph, 0)
    assert found["graph_recorded"] and found["type"] == "float"
    with pytest.raises(CheckFailed, match="no graph"):
        probes.check_evaluation(found, expected_accuracy(0), what="graph")


def test_reference_train_classifier_reaches_the_bar_on_one_thread(solutions):
    threads = torch.get_num_threads()
    found = probes.train_classifier_probe(
        solutions["train_classifier"], 7, [101, 202], n_train=512, n_test=1000, device="cpu"
    )
    assert torch.get_num_threads() == threads
    assert found["is_module"] and found["inputs_unchanged"] and found["model_error"] is None
    assert min(found["accuracies"]) >= 0.9, found
    assert found["param_devices"] == ["cpu"]


def test_a_fresh_classifier_case_moves_every_class_and_is_new_each_time():
    cases = [probes.fresh_classifier_case() for _ in range(50)]
    for case in cases:
        assert sorted(case["classes"]) == [0, 1, 2, 3]
        assert all(c != k for k, c in enumerate(case["classes"])), case
        assert len(case["test_seeds"]) == 2 and min([case["seed_train"], *case["test_seeds"]]) >= 1000
    assert len({c["seed_train"] for c in cases}) == len(cases)
    assert len({tuple(c["classes"]) for c in cases}) > 1
    assert sorted(probes.fresh_classifier_case(6)["classes"]) == list(range(6))


def test_the_reference_learns_renamed_classes_and_a_model_trained_before_does_not(solutions):
    case = probes.fresh_classifier_case()
    found = probes.train_classifier_probe(
        solutions["train_classifier"], case["seed_train"], case["test_seeds"], device="cpu", classes=case["classes"]
    )
    assert found["inputs_unchanged"] and min(found["accuracies"]) >= 0.9, found
    probes.check_trained_classifier(found, case["test_seeds"], what="renamed")
    images, labels = make_images(512, seed=7)
    before = solutions["train_classifier"](images, labels, device="cpu")
    stale = probes.train_classifier_probe(
        lambda *a, **k: before, case["seed_train"], case["test_seeds"], device="cpu", classes=case["classes"]
    )
    assert max(stale["accuracies"]) < 0.1, stale
    with pytest.raises(CheckFailed, match="0.9 accuracy"):
        probes.check_trained_classifier(stale, case["test_seeds"], what="trained before the call")


def test_pictures_are_figures(tmp_path):
    images, labels = make_images(5, seed=0)
    figures = [
        show_images(images, labels),
        show_images(images, labels, count=3, predicted=labels.flip(0)),
        show_images(*make_images(2, seed=0, channels=1, size=8)),
        training_step_diagram(),
        plot_loss_curve([2.0 - 0.01 * i for i in range(120)], accuracies=[0.5, 0.8, 0.9]),
        plot_loss_curve([1.0]),
    ]
    for index, fig in enumerate(figures):
        assert isinstance(fig, Figure)
        fig.savefig(tmp_path / f"{index}.png")
        assert (tmp_path / f"{index}.png").stat().st_size > 0


def test_evaluate_probe_sees_a_model_left_in_training_mode():
    def without_eval(model, images, labels):
        with torch.no_grad():
            return (model(images).argmax(dim=1) == labels).float().mean().item()

    settings = dict(hidden=32, dropout=0.5, n=100)
    found = probes.evaluate_probe(without_eval, 7, **settings)
    assert found["mode_restored"] and not found["graph_recorded"]
    with pytest.raises(CheckFailed, match="Expected the accuracy to be 0.45"):
        probes.check_evaluation(found, expected_accuracy(7, **settings), what="no eval")
    assert probes.evaluate_probe(without_eval, 7, **settings)["value"] == found["value"], "the probe seeds dropout"


@pytest.mark.parametrize("training", [True, False])
def test_evaluate_probe_sees_a_mode_left_changed(training):
    def switch_to(mode):
        def evaluate(model, images, labels):
            model.eval()
            with torch.no_grad():
                predicted = model(images).argmax(dim=1)
            model.train(mode)
            return (predicted == labels).float().mean().item()

        return evaluate

    settings = dict(hidden=16, dropout=0.5, training=training)
    assert not probes.evaluate_probe(switch_to(not training), 5, **settings)["mode_restored"]
    found = probes.evaluate_probe(switch_to(training), 5, **settings)
    probes.check_evaluation(found, expected_accuracy(5, **settings), what="restored")


def test_reference_model_class_passes_and_matches_the_architecture(solutions):
    from instructor.training import TWO_LAYER_NET, expected_module_class, two_layer_param_count

    for seed, init, classes, n in [
        (0, {}, 4, 64),
        (1, {"hidden": 16, "num_classes": 6}, 6, 64),
        (3, {"hidden": 64}, 4, 1),
    ]:
        found = probes.module_class_probe(solutions["TwoLayerNet"], seed, init=init, num_classes=classes, n=n)
        assert found["param_count"] == two_layer_param_count(**init) == sum(p.numel() for p in found["params_before"])
        assert found["loss_after"] < 0.5 * found["loss_before"]
        probes.check_module_class(
            found, name="TwoLayerNet", param_count=two_layer_param_count(**init), output_shape=(n, classes), what="ref"
        )
        probes.check_module_follows(
            found,
            expected_module_class(found, seed, init=init, num_classes=classes),
            architecture=TWO_LAYER_NET,
            what="ref",
        )


def test_model_class_probe_builds_with_the_seed_and_leaves_the_global_generator_alone(solutions):
    state = torch.random.get_rng_state()
    a = probes.module_class_probe(solutions["TwoLayerNet"], 2)
    b = probes.module_class_probe(solutions["TwoLayerNet"], 2)
    assert torch.equal(torch.random.get_rng_state(), state)
    assert all(torch.equal(x, y) for x, y in zip(a["params_before"], b["params_before"]))
    assert a["loss_before"] == b["loss_before"] and a["loss_after"] == b["loss_after"]


class _NoRelu(nn.Module):
    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.fc1 = nn.Linear(3 * 32 * 32, hidden)
        self.fc2 = nn.Linear(hidden, num_classes)

    def forward(self, images):
        return self.fc2(self.fc1(images.flatten(1)))


class _FrozenBias(_NoRelu):
    """The first layer's bias detached: the loss still falls, but that bias never moves."""

    def forward(self, images):
        return self.fc2(torch.relu(nn.functional.linear(images.flatten(1), self.fc1.weight, self.fc1.bias.detach())))


class _Transposed(nn.Module):
    """The architecture with weights kept as (in, out): a correct model in another layout."""

    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(3 * 32 * 32, hidden) / 55.0)
        self.b1 = nn.Parameter(torch.zeros(hidden))
        self.w2 = nn.Parameter(torch.randn(hidden, num_classes) / 5.0)
        self.b2 = nn.Parameter(torch.zeros(num_classes))

    def forward(self, images):
        return torch.relu(images.flatten(1) @ self.w1 + self.b1) @ self.w2 + self.b2


@pytest.mark.parametrize("model, follows", [(_Transposed, True), (_NoRelu, False), (_FrozenBias, False)])
def test_the_architecture_check_reads_the_model_parameters(model, follows):
    from instructor.training import TWO_LAYER_NET, expected_module_class

    found = probes.module_class_probe(model, 0)
    probes.check_module_class(found, name="Net", param_count=98468, output_shape=(64, 4), what="visible checks")

    def check():
        probes.check_module_follows(found, expected_module_class(found, 0), architecture=TWO_LAYER_NET, what="arch")

    if follows:
        check()
    else:
        with pytest.raises(CheckFailed, match="applied to its own parameters|as the gradients"):
            check()


def test_model_class_probe_reports_what_went_wrong():
    class Plain(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = [nn.Linear(3 * 32 * 32, 4)]

        def forward(self, images):
            return self.layers[0](images.flatten(1))

    class NotAModule:
        pass

    class Softmax(_NoRelu):
        def forward(self, images):
            return torch.softmax(self.fc2(torch.relu(self.fc1(images.flatten(1)))), dim=1)

    class Raises(nn.Module):
        def __init__(self):
            raise NotImplementedError()

    cases = [
        (Plain, "0 in 0 tensors"),
        (NotAModule, "subclass of nn.Module"),
        (Softmax, "at most 0.5 times"),
        (Raises, "NotImplementedError"),
    ]
    for model, message in cases:
        found = probes.module_class_probe(model, 0)
        with pytest.raises(CheckFailed, match=message):
            probes.check_module_class(found, name="Net", param_count=98468, output_shape=(64, 4), what="wrong")


def test_expected_module_class_refuses_other_shapes():
    from instructor.training import expected_module_class

    found = probes.module_class_probe(_NoRelu, 0, init={"hidden": 16})
    assert expected_module_class(found, 0) is None
    assert expected_module_class(found, 0, init={"hidden": 16}) is not None


def _loader(images, labels, batch_size, seed):
    return DataLoader(
        TensorDataset(images, labels),
        batch_size=batch_size,
        shuffle=True,
        generator=torch.Generator().manual_seed(seed),
    )


def test_reference_loader_passes(solutions):
    for seed, other, options in [
        (0, 1, dict(n=40, batch_size=16)),
        (5, 6, dict(n=12, batch_size=1, size=8, dtype="float64")),
    ]:
        found = probes.loader_probe(solutions["make_loader"], seed, other, **options)
        probes.check_loader(found, n=options["n"], batch_size=options["batch_size"], seeds=(seed, other), what="ref")
        assert [p["order"] for p in found["passes"]][:2] == [found["passes"][0]["order"]] * 2


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 30), st.integers(1, 40), st.randoms(use_true_random=False))
def test_a_pass_is_read_back_as_its_order(n, batch_size, rng):
    images, labels = make_images(n, seed=n, size=4)
    order = list(range(n))
    rng.shuffle(order)
    batches = [[images[order[i : i + batch_size]], labels[order[i : i + batch_size]]] for i in range(0, n, batch_size)]
    read = probes._read_pass({"batches": batches, "error": None}, images, labels)
    assert read["problem"] is None and read["order"] == order
    assert read["sizes"] == [len(b[1]) for b in batches] and sum(read["sizes"]) == n


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda b: b[:-1], "of the 10 images"),
        (lambda b: b + b[:1], "came twice"),
        (lambda b: [[b[0][0] + 1, b[0][1]], *b[1:]], "not one of the inputs"),
        (lambda b: [[b[0][0], (b[0][1] + 1) % 4], *b[1:]], "pairs input image"),
        (lambda b: [b[0][0], *b[1:]], "not a pair"),
        (lambda b: [[b[0][0].double(), b[0][1]], *b[1:]], "float64 images"),
    ],
)
def test_a_pass_with_wrong_batches_names_the_problem(change, problem):
    images, labels = make_images(10, seed=0, size=4)
    batches = [[images[i : i + 4], labels[i : i + 4]] for i in range(0, 10, 4)]
    read = probes._read_pass({"batches": change(batches), "error": None}, images, labels)
    assert read["order"] is None and problem in read["problem"]


def test_loader_probe_tells_the_seeds_and_epochs_apart():
    def global_seed(images, labels, batch_size, seed):
        torch.manual_seed(seed)
        return DataLoader(TensorDataset(images, labels), batch_size=batch_size, shuffle=True)

    def fixed_order(images, labels, batch_size, seed):
        order = torch.randperm(len(labels), generator=torch.Generator().manual_seed(seed)).tolist()
        return DataLoader(TensorDataset(images, labels), batch_size=batch_size, sampler=order)

    def unseeded(images, labels, batch_size, seed):
        return DataLoader(
            TensorDataset(images, labels), batch_size=batch_size, shuffle=True, generator=torch.Generator()
        )

    assert probes.loader_probe(_loader, 0, 1)["reshuffles"]
    assert probes.loader_probe(global_seed, 0, 1)["same_seed_same"] is False
    assert probes.loader_probe(fixed_order, 0, 1)["reshuffles"] is False
    assert probes.loader_probe(unseeded, 0, 1)["other_seed_differs"] is False
    with pytest.raises(CheckFailed, match="same seed"):
        probes.check_loader(probes.loader_probe(global_seed, 0, 1), n=40, batch_size=16, seeds=(0, 1), what="global")


def test_epoch_scenario_is_determined_by_its_arguments():
    a, b = probes.epoch_scenario(3, training=False), probes.epoch_scenario(3, training=False)
    assert not a["model"].training
    assert all(torch.equal(x, y) for x, y in zip(a["model"].state_dict().values(), b["model"].state_dict().values()))
    assert [y.tolist() for _, y in a["loader"]] == [y.tolist() for _, y in b["loader"]]


def test_reference_epoch_matches_and_a_model_left_in_eval_mode_shows(solutions):
    from instructor.training import expected_epoch

    for seed, options in [
        (0, dict(training=False)),
        (1, dict(n=40, dropout=0.5, optimizer="adam", lr=0.01, batch_norm=False)),
    ]:
        found = probes.train_one_epoch_probe(solutions["train_one_epoch"], seed, **options)
        probes.check_epoch(found, expected_epoch(seed, **options), what="ref")
        assert found["modes_after"] == [True] * len(found["modes_after"])

    def no_train(model, loader, optimizer, loss_fn):
        losses = []
        for images, labels in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(images), labels)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return sum(losses) / len(losses)

    found = probes.train_one_epoch_probe(no_train, 0, training=False)
    with pytest.raises(CheckFailed, match="evaluation mode"):
        probes.check_epoch(found, expected_epoch(0, training=False), what="eval")


def test_the_build_hint_names_super_init_only_when_it_is_missing():
    class NoSuper(nn.Module):
        def __init__(self):
            self.fc1 = nn.Linear(3 * 32 * 32, 32)

    class WrongSize(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(3 * 32 * 32, 32.5)

    for model, says, never in (
        (NoSuper, "super().__init__()", "two ints"),
        (WrongSize, "two ints", "super().__init__()"),
    ):
        found = probes.module_class_probe(model, 0)
        with pytest.raises(CheckFailed) as info:
            probes.check_module_class(found, name="Net", param_count=98468, output_shape=(64, 4), what="wrong")
        assert says in str(info.value) and never not in str(info.value), str(info.value)


# Each quiz run: exactly one choice holds, and it is the key in the lesson's hidden test.

QUIZ_LESSON = "07_training"


def test_seed_training_bug_key():
    def run():
        images = torch.randn(16, 3, 224, 224)
        labels = torch.tensor([0, 1, 0, 1])
        model = nn.Linear(3 * 224 * 224, 2)
        predictions = model(images.view(16, -1))
        loss = nn.CrossEntropyLoss()(predictions, labels)
        loss.backward()
        return loss

    found = outcome(run)
    holds = {
        "A": isinstance(found, torch.Tensor),
        "B": not torch.randn(16, 3, 224, 224).is_contiguous(),
        "C": found is ValueError,
        "D": outcome(lambda: nn.Linear(3 * 224 * 224, 2)) is RuntimeError,
    }
    assert the_true_choice(holds) == key_of(QUIZ_LESSON, "answer_seed_training_bug")


def test_zero_grad_step_key():
    def run():
        w = torch.tensor([1.0], requires_grad=True)
        opt = torch.optim.SGD([w], lr=0.1)
        (3 * w).sum().backward()
        opt.zero_grad()
        opt.step()
        return w.detach()

    found = outcome(run)
    value = round(found.item(), 6) if isinstance(found, torch.Tensor) else None
    holds = {"A": value == 0.7, "B": value == 0.9, "C": found is RuntimeError, "D": value == 1.0}
    assert the_true_choice(holds) == key_of(QUIZ_LESSON, "answer_zero_grad_step")
