"""Probes for items that teach a mechanism: which library operations ran while the notebook's function did.

`stable_softmax` and `pairwise_distances` exist to be written out by hand, so the operations that do
the whole job (`torch.softmax`, `torch.cdist`, ...) are off limits there. The check is mechanical: the
probe calls the function under a torch dispatch mode that notes each watched ATen operation that
reaches the dispatcher, whichever Python spelling called it (`F.softmax`, `Tensor.softmax`,
`nn.Softmax` all run `aten::_softmax`). The source is never read.
"""

from __future__ import annotations

from typing import Any

from course.checks import fail
from course.probes import EvidenceError, check_received, expect, probe, sealed
from course.probes.core import received
from course.probes.steps import Step

LIBRARY_CALLS: dict[str, str] = {
    "aten::_softmax": "torch.softmax (also F.softmax, Tensor.softmax, nn.Softmax, torch.special.softmax)",
    "aten::_safe_softmax": "torch.softmax (its safe variant)",
    "aten::_log_softmax": "torch.log_softmax (also F.log_softmax, Tensor.log_softmax, nn.LogSoftmax)",
    "aten::_cdist_forward": "torch.cdist",
    "aten::_euclidean_dist": "torch.cdist",
}
"""The watched operations, each with the call a student would have written to reach it."""
SOFTMAX_CALLS = ("aten::_softmax", "aten::_safe_softmax", "aten::_log_softmax")
CDIST_CALLS = ("aten::_cdist_forward", "aten::_euclidean_dist")


@sealed
def ops_seen(snaps: Any, result: Any, seen: Any) -> dict:
    return {
        "result": snaps.snap(result),
        "seen": [name for name in seen if type(name) is str] if type(seen) is list else None,
    }


@probe
def call_watching_ops(step: Any, func: Any, names: tuple, *args: Any, **kwargs: Any) -> None:
    """Call `func(*args, **kwargs)`; returns (result, the operations among `names` that ran during the call)."""
    step(Step.SEAL, received, args, kwargs)
    step(Step.OPS, tuple(names))
    try:
        result = func(*args, **kwargs)
    finally:
        seen = step(Step.OPS_SEEN)
    step(Step.SEAL, ops_seen, result, seen)


@call_watching_ops.reading
def _(evidence: list, func: Any, names: tuple, *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    _, after = expect(evidence, 2)
    check_received(evidence, args, kwargs)
    seen = after["seen"]
    if seen is None or not set(seen) <= set(names):
        raise EvidenceError("the operation watch reported operations it was not asked to watch")
    return after["result"], seen


def check_no_library_call(seen: list[str], *, item: str, what: str) -> None:
    """Fail, naming the call, when a watched operation ran: the item's task text rules it out."""
    if seen:
        calls = "; ".join(dict.fromkeys(LIBRARY_CALLS.get(name, name) for name in seen))
        fail(
            f"Expected {item} to do the computation itself, but {what} it called {calls} (measured in your process). "
            f"The task rules that call out: {item} is there to write the mechanism by hand."
        )
