"""`course.probes.autograd.predict_probe` in the student's kernel: whether predict records a graph is
measured with recording on, as in a training loop, whatever the program switched off around the call."""

from __future__ import annotations

import pytest
import torch

from course.probes.autograd import predict_probe

SWITCHES = {"no_grad": torch.no_grad, "inference_mode": torch.inference_mode, "nothing": torch.enable_grad}


def forgets_no_grad(model, x):
    return model(x)


def honest(model, x):
    with torch.no_grad():
        return model(x)


@pytest.mark.parametrize("switch", SWITCHES, ids=list(SWITCHES))
def test_a_forward_without_no_grad_records_a_graph_whatever_the_program_switched_off(switch):
    x = torch.randn(4, 3)
    with SWITCHES[switch]():
        was = (torch.is_grad_enabled(), torch.is_inference_mode_enabled())
        report = predict_probe(forgets_no_grad, 0, 3, 2, x)
        assert (torch.is_grad_enabled(), torch.is_inference_mode_enabled()) == was
    assert report["graph_recorded"]


@pytest.mark.parametrize("switch", SWITCHES, ids=list(SWITCHES))
def test_an_honest_predict_records_none_and_restores_recording(switch):
    with SWITCHES[switch]():
        report = predict_probe(honest, 0, 3, 2, torch.randn(4, 3))
    assert not report["graph_recorded"] and report["grad_mode_restored"]
