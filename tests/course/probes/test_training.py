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
