"""Lesson 07's toy data, probes and pictures, checked with the lesson's own reference solutions."""

from __future__ import annotations

import contextlib
import io

import pytest
import torch
from matplotlib.figure import Figure

from autograder.authoring import parse_lesson
from course.checks import CheckFailed
from course.data import CLASS_NAMES, make_images, train_test_images
from course.pictures.training import plot_loss_curve, show_images, training_step_diagram
from course.probes import training as probes
from instructor.training import expected_accuracy, expected_training_step
from tests.conftest import ROOT


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
                code = "\n".join(line for line in cell.lines if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line)
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


@pytest.mark.parametrize("kwargs", [dict(n=-1), dict(num_classes=1), dict(num_classes=len(CLASS_NAMES) + 1), dict(size=3), dict(channels=0)])
def test_make_images_rejects_bad_sizes(kwargs):
    args = dict(n=4, seed=0) | kwargs
    with pytest.raises(ValueError):
        make_images(**args)


def test_train_test_images_use_different_seeds():
    (x, y), (tx, ty) = train_test_images(16, 8, seed=5, size=8)
    assert x.shape == (16, 3, 8, 8) and tx.shape == (8, 3, 8, 8) and y.shape == (16,) and ty.shape == (8,)
    assert not torch.equal(x[:8], tx)


def test_reference_training_step_matches_expectation(solutions):
    for seed, settings in [(0, {}), (1, dict(stale_grads=True)), (2, dict(hidden=8, optimizer="adam", lr=0.01, stale_grads=True))]:
        found = probes.training_step_probe(solutions["training_step"], seed, **settings)
        probes.check_training_step(found, expected_training_step(seed, **settings), what="reference", stale_grads=True)


def test_training_step_probe_catches_leaked_gradients():
    def no_zero_grad(model, images, labels, optimizer, loss_fn):
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        return loss.item()

    found = probes.training_step_probe(no_zero_grad, 1, stale_grads=True)
    with pytest.raises(CheckFailed, match="old gradient"):
        probes.check_training_step(found, expected_training_step(1, stale_grads=True), what="leaky", stale_grads=True)


def test_reference_evaluate_matches_and_records_no_graph(solutions):
    for seed, settings in [(0, {}), (1, dict(hidden=8, images_require_grad=True))]:
        expected = expected_accuracy(seed, **{k: v for k, v in settings.items() if k != "images_require_grad"})
        found = probes.evaluate_probe(solutions["evaluate"], seed, **settings)
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
    found = probes.train_classifier_probe(solutions["train_classifier"], 7, [101, 202], n_train=512, n_test=1000, device="cpu")
    assert torch.get_num_threads() == threads
    assert found["is_module"] and found["inputs_unchanged"] and found["model_error"] is None
    assert min(found["accuracies"]) >= 0.9, found
    assert found["param_devices"] == ["cpu"]


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
