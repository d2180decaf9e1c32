"""Probes: measurements that can only be taken next to the student's code.

A probe has two halves. Its steps take the student's callable and plain data, build what the call
needs, call the student's code, and take evidence with sealed actions (`@sealed` functions that only
use `course.probes.evidence`). Its reading turns that evidence into what the test cell gets back
(`@<probe>.reading`), deciding every flag from values: "changed", "shares memory", "accuracy".

In a notebook (the student's kernel, nbval, stock nbgrader) both halves simply run here. Under the
grader the test cell runs in the judge, which holds only a proxy of the student's callable: the grader
runs the steps in a fresh sandboxed process next to the student's code, where each action's evidence
is sealed and sent the moment it is taken (`autograder.child.guard`), and the reading runs in the judge on
what arrived. A probe's steps never decide anything; they only measure.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable

REGISTRY: dict[str, Callable[..., Any]] = {}
SEALED_ACTIONS: list[Callable[..., Any]] = []
_dispatcher: Callable[[str, Any, tuple, dict], list] | None = None


class EvidenceError(BaseException):
    """Evidence that a probe's own steps cannot have produced: the grader treats it as tampering."""


def set_dispatcher(dispatcher: Callable[[str, Any, tuple, dict], list] | None) -> None:
    """Installed by the grader's judge; None restores local execution."""
    global _dispatcher
    _dispatcher = dispatcher


def sealed(action: Callable[..., Any]) -> Callable[..., Any]:
    """Register a step that takes evidence: `action(snapshots, *objects)` returning snapshots and plain values."""
    SEALED_ACTIONS.append(action)
    return action


class Probe:
    """A registered probe: call it like a function, with the student's callable first."""

    def __init__(self, steps: Callable[..., Any]):
        self.steps = steps
        self.name = f"{steps.__module__}:{steps.__qualname__}"
        self.read: Callable[..., Any] | None = None
        self.__doc__ = steps.__doc__
        self.__name__ = steps.__name__
        self.__qualname__ = steps.__qualname__
        self.__module__ = steps.__module__
        self.__wrapped__ = steps
        REGISTRY[self.name] = steps

    def reading(self, read: Callable[..., Any]) -> "Probe":
        """Set the function that turns the evidence into the probe's result (runs in the judge)."""
        self.read = read
        return self

    def __call__(self, target: Any, *args: Any, **kwargs: Any) -> Any:
        if _dispatcher is not None and getattr(target, "__sandbox_handle__", None) is not None:
            evidence = _dispatcher(self.name, target, args, kwargs)
        else:
            from course.subset import check_measured

            check_measured(target)
            evidence = run_locally(self.steps, target, args, kwargs)
        return self.read(evidence, target, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<probe {self.name}>"


def probe(steps: Callable[..., Any]) -> Probe:
    return Probe(steps)


class LocalSteps:
    """The probe steps served in this process (the student's kernel, nbval, stock nbgrader), evidence kept as
    copies. Each `Step` has a method of the same name, lower case; `close` undoes whatever is still on."""

    def __init__(self) -> None:
        self.items: list[dict] = []
        self.saving: list = []
        self.counting: list = []
        self.watching: list = []

    def __call__(self, command: str, *rest: Any) -> Any:
        from course.probes.steps import Step

        if command not in Step.__members__.values():
            raise ValueError(f"unknown probe command {command!r}")
        return getattr(self, Step(command).name.lower())(*rest)

    def seal(self, action: Callable[..., Any], *objects: Any) -> None:
        from course.probes.evidence import Snapshots

        item = {"value": action(Snapshots(), *objects), "at": time.perf_counter(), "local": True}
        if self.saving:
            item["saved_tensors"] = self.saving[1][0]
        self.items.append(item)

    def witness(self) -> None:
        import torch

        count = [0]

        def pack(tensor: Any) -> Any:
            count[0] += 1
            return tensor.detach()  # the tensor itself would make a reference cycle through its grad_fn

        hooks = torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t)
        hooks.__enter__()
        self.saving[:] = [hooks, count]

    def count(self) -> None:
        import torch

        from course.probes.evidence import library_prefixes
        from course.probes.opwatch import OpTally

        count = [0]
        library = library_prefixes()

        def local(frame: Any, event: str, arg: Any) -> Any:
            if event == "line":
                count[0] += 1
            return local

        def tracer(frame: Any, event: str, arg: Any) -> Any:
            return None if event != "call" or frame.f_code.co_filename.startswith(library) else local

        tally = OpTally()
        tally.__enter__()
        torch.zeros(1).add_(1)  # torch's first operation under a dispatch mode imports modules: not the notebook's
        tally.count = 0
        self.counting[:] = [count, sys.gettrace(), tally]
        sys.settrace(tracer)

    def lines(self) -> list[int]:
        sys.settrace(self.counting[1] if self.counting else None)
        if not self.counting:
            return [0, 0]
        count, _, tally = self.counting
        self.counting.clear()
        tally.__exit__(None, None, None)
        return [count[0], tally.count]

    def ops(self, names: Any) -> None:
        from course.probes.opwatch import OpWatch

        mode = OpWatch(names)
        mode.__enter__()
        self.watching[:] = [mode]

    def ops_seen(self) -> list[str]:
        if not self.watching:
            return []
        mode = self.watching.pop()
        mode.__exit__(None, None, None)
        return list(mode.seen)

    def close(self) -> None:
        if self.watching:
            self.watching.pop().__exit__(None, None, None)
        if self.counting:
            sys.settrace(self.counting[1])
            self.counting[2].__exit__(None, None, None)
        if self.saving:
            self.saving[0].__exit__(None, None, None)


def run_locally(steps: Callable[..., Any], target: Any, args: tuple, kwargs: dict) -> list[dict]:
    """Run a probe's steps in this process, keeping each action's evidence as copies."""
    served = LocalSteps()
    try:
        steps(served, target, *args, **kwargs)
    finally:
        served.close()
    return served.items


def expect(evidence: list[dict], count: int) -> list[Any]:
    """The values of exactly `count` pieces of evidence, in order."""
    if len(evidence) != count:
        raise EvidenceError(f"the probe sent {len(evidence)} pieces of evidence where its steps take {count}")
    return [item["value"] for item in evidence]


def check_built(evidence: list[dict], matches: Callable[[], bool], what: str) -> None:
    """Under the grader, what the probe built next to the student's code is what the judge builds itself."""
    if evidence and not evidence[0].get("local") and not matches():
        raise EvidenceError(f"the {what} the probe built differs from the judge's")


def check_received(evidence: list[dict], args: tuple, kwargs: dict) -> None:
    """Under the grader, the arguments the steps received (the first evidence) are the ones the test passed.

    A difference means something in the student's process changed them on the way in. (In a local run the
    steps got the test's own objects, which the call itself may have changed since: nothing to compare.)
    """
    from course.probes.evidence import Snapshots, same

    if not evidence or evidence[0].get("local"):
        return
    received, mine = evidence[0]["value"], Snapshots()
    if not same(received.get("args"), mine.snap(tuple(args))) or not same(
        received.get("kwargs"), mine.snap(dict(kwargs))
    ):
        raise EvidenceError("the probe's steps did not receive the arguments the test passed")
