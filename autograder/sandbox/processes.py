"""Killing a child and everything it started, daemonised or not."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from autograder.config.limits import Limits
from autograder.sandbox.layers import SANDBOX_UID_BASE, SANDBOX_UID_SPAN, SandboxError


def _processes() -> dict[int, tuple[int, int, int, str]]:
    """pid -> (ppid, session id, real uid, state) for every visible process."""
    out: dict[int, tuple[int, int, int, str]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            uid = os.stat(entry.path).st_uid
        except (OSError, ValueError):
            continue
        out[int(entry.name)] = (int(fields[1]), int(fields[3]), uid, fields[0])
    return out


def _targets(pid: int, uid: int | None, procs: dict[int, tuple[int, int, int, str]]) -> set[int]:
    found = {pid} if pid in procs else set()
    changed = True
    while changed:
        changed = False
        for other, (ppid, sid, owner, _) in procs.items():
            if other in found:
                continue
            if ppid in found or sid == pid or (uid is not None and owner == uid):
                found.add(other)
                changed = True
    return found


def kill_tree(pid: int, *, timeout: float = Limits.stop_timeout) -> None:
    """SIGKILL the worker `pid` and every process it started, then wait until none is left running.

    Call it from the process that forked the worker (the pid is the one fork returned). Finds the
    descendants, the worker's session and, under root, every process of the worker's private uid;
    the pid namespace makes the kernel kill the rest. Zombies of the caller are left for it to reap.
    """
    procs = _processes()
    uid = procs.get(pid, (0, 0, -1, ""))[2]
    uid = uid if SANDBOX_UID_BASE <= uid < SANDBOX_UID_BASE + SANDBOX_UID_SPAN else None
    deadline = time.monotonic() + timeout
    seen: set[int] = set()
    while True:
        live = {p for p in _targets(pid, uid, procs) if procs[p][3] not in ("Z", "X")}
        seen |= live
        if not live:
            return
        for target in sorted(live):
            try:
                os.kill(target, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if time.monotonic() > deadline:
            raise SandboxError(f"processes {sorted(live)} of worker {pid} survived SIGKILL")
        time.sleep(0.01)
        procs = _processes()
        procs = {
            p: v
            for p, v in procs.items()
            if p in seen or p == pid or v[1] == pid or v[0] in seen or (uid is not None and v[2] == uid)
        }
