"""`course.probes.core.call_watching_inputs` in the student's kernel: a change to an input counts whether
it is made during the call, once the result is dropped, or at the function's next call."""

from __future__ import annotations

import weakref

import torch

from course.probes.core import call_watching_inputs


def honest(x):
    return x - x.mean()


def in_place(x):
    return x.sub_(x.mean())


def when_dropped(x):
    out = x - x.mean()
    weakref.finalize(out, x.sub_, x.mean())
    return out


def test_an_honest_call_changes_nothing():
    result, changed = call_watching_inputs(honest, torch.arange(4.0))
    assert changed == [] and torch.equal(result, torch.tensor([-1.5, -0.5, 0.5, 1.5]))


def test_a_change_during_the_call_is_seen():
    assert call_watching_inputs(in_place, torch.arange(4.0))[1] == ["arg 0"]


def test_a_change_made_when_the_result_is_dropped_is_seen():
    result, changed = call_watching_inputs(when_dropped, torch.arange(4.0))
    assert changed == ["arg 0"] and torch.equal(result, torch.tensor([-1.5, -0.5, 0.5, 1.5]))


KEPT: list = []


def at_the_next_call(x):
    """Keeps its input and changes it when it is called again: each call alone leaves its own input alone."""
    while KEPT:
        earlier = KEPT.pop()
        earlier.sub_(earlier.mean())
    KEPT.append(x)
    return x - x.mean()


def test_a_change_made_at_the_next_call_is_seen():
    KEPT.clear()
    result, changed = call_watching_inputs(at_the_next_call, torch.arange(4.0))
    assert changed == ["arg 0"] and torch.equal(result, torch.tensor([-1.5, -0.5, 0.5, 1.5]))
    KEPT.clear()


def test_the_later_call_leaves_an_in_place_answer_as_the_first_call_left_it():
    x = torch.tensor([[1.0, 2.0], [4.0, 3.0]])
    result, changed = call_watching_inputs(lambda m: m.copy_((m + m.T) / 2), x)
    assert changed == ["arg 0"] and torch.equal(result, torch.tensor([[1.0, 3.0], [3.0, 3.0]]))


def test_the_simulated_gpu_answers_read_like_pytorchs_own():
    """A device-picking function that checks `torch.cuda.is_available.__name__` (a lambda's is "<lambda>") or
    its docstring cannot tell the probe's simulated answer from PyTorch's function."""
    from course.probes.device import call_with_cuda_available

    real = torch.cuda.is_available

    def looks(available):
        f = torch.cuda.is_available
        return [f.__name__, f.__qualname__, f.__module__, f.__doc__, hasattr(f, "__wrapped__")]

    seen = call_with_cuda_available(looks, True, True)
    assert seen == [real.__name__, real.__qualname__, real.__module__, real.__doc__, False]
    assert torch.cuda.is_available is real
