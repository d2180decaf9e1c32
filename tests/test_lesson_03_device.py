"""Unit tests for the picture and the probe of lesson 03 (devices), and its quizzes run."""

import matplotlib.pyplot as plt
import pytest
import torch
from matplotlib.figure import Figure

from course.pictures.device import memory_and_bus
from course.probes.device import call_with_cuda_available
from tests.quiz_keys import key_of, outcome, the_true_choice


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


# Each quiz run: exactly one choice holds, and it is the key in the lesson's hidden test. Where the
# quiz speaks of a GPU, the GPU is used when there is one and `meta` (the lesson's stand-in) otherwise.

LESSON = "03_device"
ELSEWHERE = torch.device("cuda") if torch.cuda.is_available() else torch.device("meta")


def test_default_device_key():
    previous = torch.zeros(1, device=ELSEWHERE)
    found = torch.zeros(3).device
    holds = {
        "A": found.type == "cpu",
        "B": found.type == "cuda",
        "C": found.type == "meta",
        "D": found == previous.device,
    }
    assert the_true_choice(holds) == key_of(LESSON, "answer_default_device")


def test_to_returns_new_key():
    x = torch.ones(3)
    x.to(ELSEWHERE)
    holds = {
        "A": x.device.type == ELSEWHERE.type,
        "B": x.device.type == "cpu" and x.to(ELSEWHERE).device.type == ELSEWHERE.type,
        "C": not isinstance(x.device, torch.device),
        "D": x.numel() == 0,
    }
    assert the_true_choice(holds) == key_of(LESSON, "answer_to_returns_new")


def test_device_mismatch_key_and_its_shapes():
    a, b = torch.ones(2, 3), torch.ones(2, 3, device=ELSEWHERE)
    found = outcome(lambda: a + b)
    works = isinstance(found, torch.Tensor)
    holds = {
        "A": works and found.device.type == ELSEWHERE.type,
        "B": works and found.device.type == "cpu",
        "C": works,
        "D": found is RuntimeError,
    }
    assert the_true_choice(holds) == key_of(LESSON, "answer_device_mismatch")
    # The shapes in the question matter: 0-d CPU tensors would have been let through.
    assert isinstance(torch.tensor(1.0) + torch.tensor(2.0, device=ELSEWHERE), torch.Tensor)


def test_device_index_key():
    if torch.cuda.is_available():
        a_device = torch.zeros(2, device="cuda").device
        b_device = torch.ones(2).to(torch.device("cuda", 0)).device
    else:  # what a CUDA tensor reports, checked on a GPU by the lesson's claims
        a_device = b_device = torch.device("cuda", 0)
    same, named = a_device == b_device, a_device == torch.device("cuda")
    holds = {
        "A": (same, named) == (True, True),
        "B": (same, named) == (True, False),
        "C": (same, named) == (False, False),
        "D": (same, named) == (False, True),
    }
    assert the_true_choice(holds) == key_of(LESSON, "answer_device_index")


def test_zero_d_direction_key():
    history = torch.zeros(5)
    loss = torch.ones(4, device=ELSEWHERE).mean()
    found = outcome(lambda: history + loss)
    works = isinstance(found, torch.Tensor)
    holds = {
        "A": works and found.device.type == ELSEWHERE.type,
        "B": works and found.device.type == "cpu",
        "C": found is RuntimeError,
        "D": history.device.type != "cpu",
    }
    assert the_true_choice(holds) == key_of(LESSON, "answer_zero_d_direction")
