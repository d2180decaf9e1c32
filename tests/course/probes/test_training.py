"""`course.probes.training.evaluate_probe` in the student's kernel: a graph recorded by an evaluate that
forgets `no_grad` is seen even when the program switched recording off for good."""

from __future__ import annotations

import pytest
import torch

from course.probes.training import evaluate_probe


def forgets_no_grad(model, images, labels):
    was = model.training
    model.eval()
    try:
        predicted = model(images).argmax(dim=1)
    finally:
        model.train(was)
    return (predicted == labels).float().mean().item()


def honest(model, images, labels):
    with torch.no_grad():
        return forgets_no_grad(model, images, labels)


@pytest.mark.parametrize("switch", [torch.no_grad, torch.inference_mode, torch.enable_grad])
def test_the_graph_verdict_holds_whatever_the_program_switched_off(switch):
    with switch():
        forgetful, right = evaluate_probe(forgets_no_grad, 0), evaluate_probe(honest, 0)
    assert forgetful["graph_recorded"] and not right["graph_recorded"]
    assert forgetful["value"] == right["value"] == pytest.approx(0.425)


def drops_dropout_for_good(model, images, labels):
    for layer in model.modules():
        if isinstance(layer, torch.nn.Dropout):
            layer.p = 0.0
    with torch.no_grad():
        return (model(images).argmax(dim=1) == labels).float().mean().item()


def test_a_layer_setting_changed_for_good_is_seen():
    """Dropout switched off by its `p` instead of `model.eval()` gives evaluation-mode accuracy in training mode;
    the layers' settings before and after the call show it, while an honest evaluate changes none."""
    cheat = evaluate_probe(drops_dropout_for_good, 7, hidden=32, dropout=0.5, n=100)
    right = evaluate_probe(honest, 7, hidden=32, dropout=0.5, n=100)
    assert cheat["value"] == right["value"] and cheat["mode_restored"]
    assert cheat["settings_changed"] == ["Dropout.p"] and right["settings_changed"] == []
