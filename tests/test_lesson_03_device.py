"""Unit tests for the picture and the probe of lesson 03 (devices)."""

import matplotlib.pyplot as plt
import pytest
import torch
from matplotlib.figure import Figure

from course.pictures.device import memory_and_bus
from course.probes.device import call_with_cuda_available


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_memory_and_bus_draws_a_closed_figure(tmp_path):
    before = set(plt.get_fignums())
    fig = memory_and_bus()
    assert isinstance(fig, Figure)
    assert set(plt.get_fignums()) == before
    fig.savefig(tmp_path / "bus.png")
    assert (tmp_path / "bus.png").stat().st_size > 0


def test_memory_and_bus_draws_the_names_it_is_given():
    texts = _texts(memory_and_bus(cpu_tensors=("a", "b"), gpu_tensors=()))
    assert "a" in texts and "b" in texts
    assert "PCIe bus" in texts


@pytest.mark.parametrize("available", [True, False])
def test_simulated_cuda_answer_is_seen_and_undone(available):
    real = torch.cuda.is_available
    seen = call_with_cuda_available(lambda: torch.cuda.is_available(), available)
    assert seen is available
    assert torch.cuda.is_available is real


def test_simulation_is_undone_after_an_error():
    real = torch.cuda.is_available

    def broken():
        raise ValueError("boom")

    with pytest.raises(ValueError):
        call_with_cuda_available(broken, True)
    assert torch.cuda.is_available is real


def test_simulation_passes_arguments_through():
    device = call_with_cuda_available(lambda kind, index=None: torch.device(kind, index), True, "cuda", index=0)
    assert device == torch.device("cuda:0")
