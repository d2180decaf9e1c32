"""General probes: did the call change its inputs, does the result share memory with an input."""

from __future__ import annotations

from contextlib import contextmanager
from copy import deepcopy
from gc import collect as collect_garbage  # bound here: the course's names are checked before evidence is sealed
from typing import Any, Iterator

from torch._C import _InferenceMode

from course.probes import check_received, expect, probe, sealed
from course.probes.evidence import Opaque, same
from course.probes.steps import Step


@sealed
def received(snaps: Any, args: tuple, kwargs: dict) -> dict:
    """The arguments as the steps got them, before the student's code runs."""
    return {"args": snaps.snap(args), "kwargs": snaps.snap(kwargs)}


@sealed
def after_call(snaps: Any, result: Any, args: tuple, kwargs: dict) -> dict:
    """What the call returned, and its arguments as they are after it."""
    return {"result": snaps.snap(result), "args": snaps.snap(args), "kwargs": snaps.snap(kwargs)}


@sealed
def returned(snaps: Any, result: Any) -> dict:
    return {"result": snaps.snap(result)}


@contextmanager
def as_in_training(*, _mode=_InferenceMode) -> Iterator[None]:
    """Autograd as a training loop has it: gradients recorded, inference mode off; put back as it was after.

    A verdict on whether a call records a graph means something only if recording was on when the call
    began: a notebook that switches it off for the whole program beside its answer (`torch.set_grad_enabled`
    or an entered `torch.inference_mode`) would otherwise pass a function that forgets `no_grad`.
    `InferenceMode(False)` sets both, for this thread, until the block ends.
    """
    with _mode(False):
        yield


def changed_arguments(before: dict, after: dict) -> list[str]:
    """Names ("arg 0", or the keyword) of the arguments whose snapshots differ."""
    names = [f"arg {i}" for i, (a, b) in enumerate(zip(before["args"], after["args"])) if not same(a, b)]
    return names + [
        k for k in before["kwargs"] if not same(before["kwargs"][k], after["kwargs"].get(k, Opaque("missing")))
    ]


@probe
def call_watching_inputs(step: Any, func: Any, *args: Any, **kwargs: Any) -> None:
    """Call `func` and report which arguments it changed: (result, names of changed arguments).

    Arguments are named by position ("arg 0") or keyword. A change is any difference in values,
    dtype, shape, requires_grad, .grad, or container contents, right after the call, once its result
    has been dropped and garbage collected (every generation: the zygote froze what it loaded, so a full
    collection walks only what the notebook made), or after a second call on fresh copies of the
    inputs (a function that keeps its inputs and changes them at its next call).
    """
    step(Step.SEAL, received, args, kwargs)
    result = func(*args, **kwargs)
    step(Step.SEAL, after_call, result, args, kwargs)
    del result  # a change made when the result is dropped (a finalizer on it) is a change too
    collect_garbage()  # every generation: an object of the notebook's aged before the call is found too
    step(Step.SEAL, received, args, kwargs)
    later = _copies(args, kwargs)  # a change the next call makes to these inputs is a change too
    if later is not None:
        try:
            func(*later[0], **later[1])
        except Exception:
            pass  # the first call's verdict stands; only what this one did to the first inputs is read
        del later
        collect_garbage()
    step(Step.SEAL, received, args, kwargs)


def _copies(args: tuple, kwargs: dict, *, _deepcopy=deepcopy) -> tuple[tuple, dict] | None:
    """Fresh copies of the inputs for a later call, or None where they cannot be copied."""
    try:
        return _deepcopy((args, kwargs))
    except Exception:
        return None


@call_watching_inputs.reading
def _(evidence: list, func: Any, *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    before, after, dropped, later = expect(evidence, 4)
    check_received(evidence, args, kwargs)
    changed = changed_arguments(before, after)
    for snapshot in (dropped, later):
        changed += [name for name in changed_arguments(before, snapshot) if name not in changed]
    return after["result"], changed


@sealed
def sharing(snaps: Any, result: Any, source: Any) -> dict:
    """The result now; then a real write to the source array, the result again, and the source put back."""
    found = snaps.snap(result)
    result_span, source_span = snaps.span(result), snaps.span(source)
    saved = snaps.write_pattern(source)
    after = snaps.snap(result)
    written = snaps.snap(source)
    snaps.restore(source, saved)
    return {
        "result": found,
        "after": after,
        "written": written,
        "wrote": saved is not None,
        "result_span": result_span,
        "source_span": source_span,
    }


@probe
def call_sharing_memory(step: Any, func: Any, *args: Any, **kwargs: Any) -> None:
    """Call `func(*args)`; report (result, shares memory with args[0], a write to args[0] shows in it).

    The second flag says whether the result's buffer overlaps the first argument's; the third comes
    from a real write to the first argument (every element changed), looked for in the result, after
    which the argument is put back.
    """
    step(Step.SEAL, received, args, kwargs)
    result = func(*args, **kwargs)
    step(Step.SEAL, sharing, result, args[0])


@call_sharing_memory.reading
def _(evidence: list, func: Any, *args: Any, **kwargs: Any) -> tuple[Any, bool, bool]:
    before, found = expect(evidence, 2)
    check_received(evidence, args, kwargs)
    spans = found["result_span"], found["source_span"]
    overlaps = all(isinstance(s, tuple) for s in spans) and spans[0][0] < spans[1][1] and spans[1][0] < spans[0][1]
    shows = False
    result, after, written = found["result"], found["after"], found["written"]
    if found["wrote"] and _numbers(result) and _numbers(after) and tuple(result.shape) == tuple(written.shape):
        import numpy as np

        moved = not same(result, after)
        now = after.detach().cpu().numpy() if hasattr(after, "detach") else np.asarray(after)
        shows = moved and np.array_equal(now.astype(written.dtype, copy=False), written)
    return found["result"], bool(overlaps), bool(shows)


def _numbers(value: Any) -> bool:
    import numpy as np
    import torch

    if isinstance(value, torch.Tensor):
        return value.device.type != "meta"
    return isinstance(value, np.ndarray)
