"""Memory cgroups: each judge and each judge's notebook processes get a memory limit of their own.

A limit per process (RLIMIT_AS) lets one notebook hold memory in many processes at once; a memory
cgroup counts them all together, tmpfs pages of its scratch folder included. The coordinator makes
one group per judge slot for the judge itself (`c.Autograder.judge_memory_mb`) and one for the
processes of the notebook that judge grades (`c.Autograder.memory_limit_mb`), under its own cgroup
so the machine's limits still hold. A process joins by writing 0 to a `cgroup.procs` descriptor it
was handed (`join`), so the zygote needs no access to /sys/fs/cgroup.

Needs the memory controller writable by the grader: cgroup v1 (`/sys/fs/cgroup/memory`) or
cgroup v2 with memory delegated to the grader's cgroup. Where neither is, `Groups.create` answers
None and only the per-process limits hold (`autograder sandbox-check` says which).
"""

from __future__ import annotations

import itertools
import os
import time
from dataclasses import dataclass
from pathlib import Path

V1_ROOT = Path("/sys/fs/cgroup/memory")
_RUNS = itertools.count()
RMDIR_WAIT_S = 5.0  # for a finished run's groups to empty, so that their folders can go
V2_ROOT = Path("/sys/fs/cgroup")


def _own_memory_cgroup() -> tuple[Path, int] | None:
    """(folder, version) of this process's memory cgroup, when the memory controller is mounted."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3 and "memory" in parts[1].split(",") and (V1_ROOT / "memory.limit_in_bytes").exists():
            return V1_ROOT / parts[2].lstrip("/"), 1
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3 and parts[0] == "0" and parts[1] == "":
            folder = V2_ROOT / parts[2].lstrip("/")
            try:
                if "memory" in (folder / "cgroup.subtree_control").read_text().split():
                    return folder, 2
            except OSError:
                return None
    return None


@dataclass
class Group:
    path: Path
    version: int

    def set_limit(self, megabytes: int) -> None:
        limit = str(int(megabytes) << 20)
        if self.version == 1:
            # The kernel refuses a memory limit above the memory+swap limit: raised, the swap limit goes
            # first; lowered, it goes last (where it fails first).
            swap = self.path / "memory.memsw.limit_in_bytes"
            self._try_write(swap, limit)
            (self.path / "memory.limit_in_bytes").write_text(limit)
            self._try_write(swap, limit)
        else:
            (self.path / "memory.max").write_text(limit)
            try:
                (self.path / "memory.swap.max").write_text("0")
            except OSError:
                pass

    @staticmethod
    def _try_write(path: Path, text: str) -> None:
        if path.exists():
            try:
                path.write_text(text)
            except OSError:
                pass

    def procs_fd(self) -> int:
        """A descriptor of the group's `cgroup.procs`, open for writing (to hand to a process that joins)."""
        return os.open(self.path / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)

    def oom_kills(self) -> int:
        """How many processes the kernel killed in this group for going over its limit."""
        name = "memory.oom_control" if self.version == 1 else "memory.events"
        try:
            for line in (self.path / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def peak_bytes(self) -> int:
        name = "memory.max_usage_in_bytes" if self.version == 1 else "memory.peak"
        try:
            return int((self.path / name).read_text())
        except (OSError, ValueError):
            return 0


def join(procs_fd: int) -> None:
    """Move the calling process (and what it starts later) into the group of `procs_fd`."""
    os.write(procs_fd, b"0")


class Groups:
    """The grading run's groups, under this process's own memory cgroup; removed by `close`."""

    def __init__(self) -> None:
        own = _own_memory_cgroup()
        self.root: Group | None = None
        if own is None:
            return
        folder, version = own
        try:
            path = folder / f"autograder-{os.getpid()}-{next(_RUNS)}"
            path.mkdir()
            if version == 2:
                (path / "cgroup.subtree_control").write_text("+memory")
            self.root = Group(path, version)
        except OSError:
            self.root = None

    @property
    def available(self) -> bool:
        return self.root is not None

    def create(self, name: str, megabytes: int) -> Group | None:
        """A group `name` limited to `megabytes`; None where this machine gives the grader no memory cgroup."""
        if self.root is None:
            return None
        path = self.root.path / name
        try:
            path.mkdir(exist_ok=True)
            group = Group(path, self.root.version)
            group.set_limit(megabytes)
        except OSError:
            return None
        return group

    def close(self) -> None:
        if self.root is None:
            return
        deadline = time.monotonic() + RMDIR_WAIT_S
        try:
            children = sorted((p for p in self.root.path.iterdir() if p.is_dir()), reverse=True)
        except OSError:
            children = []
        for child in children:
            while True:
                try:
                    child.rmdir()
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.05)
        try:
            self.root.path.rmdir()
        except OSError:
            pass
        self.root = None


def available() -> bool:
    """Whether this machine gives the grader a memory cgroup to divide (probed by making one)."""
    groups = Groups()
    try:
        return groups.create("probe", 64) is not None
    finally:
        groups.close()
