"""The lanes of the test suite, and the promise that keeps the fast lane fast.

A test that starts another process (a sandboxed child, the command line, a notebook kernel, a pool,
a hub, a cluster or a browser) carries one of the `HEAVY` markers. Every other test runs inside the
pytest process, and `refusing_processes` holds it to that: while an unmarked test sets up or runs
(its teardown may stop what a marked test started), any attempt to start a process fails it with one
line naming the marker it lacks. So `pytest --fast` (unmarked tests only) stays fast without anyone
timing it, and a marker cannot go missing unnoticed.
"""

from __future__ import annotations

import contextlib
import os
import subprocess

import _posixsubprocess

HEAVY = {
    "slow": "runs notebooks or the grader end to end",
    "process": "starts another process (a sandboxed child, the command line, a kernel, a tool)",
    "browser": "drives JupyterLab in headless Chromium",
    "cuda": "needs a CUDA device",
    "hub": "the round trip through JupyterHub, nbgrader's exchange and the browser (as root: creates system users)",
    "cluster": "starts PostgreSQL and a TLS-secured Dask cluster on 127.0.0.1",
    "default_exchange_attack": (
        "shows an attack on nbgrader's default filesystem exchange succeeding "
        "(the exchange service's tests show it failing)"
    ),
}


class ProcessInFastLane(RuntimeError):
    """An unmarked test tried to start a process."""


def is_heavy(markers) -> bool:
    return any(name in HEAVY for name in markers)


@contextlib.contextmanager
def refusing_processes(test_id: str):
    """Every way this interpreter starts a process raises `ProcessInFastLane` until the block ends."""

    def refuse(*args, **kwargs):
        raise ProcessInFastLane(
            f"{test_id} starts a process but carries no lane marker: mark it "
            f"@pytest.mark.process (or one of {', '.join(sorted(HEAVY))})"
        )

    targets = [
        (_posixsubprocess, "fork_exec"),
        (subprocess, "_fork_exec"),
        (os, "fork"),
        (os, "forkpty"),
        (os, "posix_spawn"),
        (os, "posix_spawnp"),
        (os, "system"),
    ]
    saved = [(owner, name, getattr(owner, name)) for owner, name in targets if hasattr(owner, name)]
    for owner, name, _ in saved:
        setattr(owner, name, refuse)
    try:
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)
