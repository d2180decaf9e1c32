"""Memory cgroups on the real kernel, where this machine gives the grader one: `Groups` makes its folder under
the cgroup this process is in and each group with the limit asked; a process that writes to a group's
`procs_fd` through `join` is counted in it (and so is what it starts later); a forked child that allocates past
a small limit is OOM-killed and `oom_kills()` rises; and `close` removes every folder, waiting for a group
to empty. Allocations happen only in forked children, under 64 MB limits.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from autograder.sandbox import cgroup

pytestmark = pytest.mark.skipif(
    not cgroup.available(),
    reason="no memory cgroup for the grader here (needs root and a writable cgroup v1 memory controller, "
    "or cgroup v2 with memory delegated to this process's cgroup)",
)

MB = 1 << 20
LIMIT_MB = 64
REPORT, RELEASE = 90, 91  # the descriptors a forked child reports on and waits on


@pytest.fixture
def groups() -> Iterator[cgroup.Groups]:
    """A run's groups, closed after the test; fails the test if a folder is left behind."""
    made = cgroup.Groups()
    assert made.available
    root = made.root.path
    try:
        yield made
    finally:
        made.close()
        assert not root.exists(), f"{root} was left behind"


def limit_of(group: cgroup.Group) -> int:
    name = "memory.limit_in_bytes" if group.version == 1 else "memory.max"
    return int((group.path / name).read_text())


def members(group: cgroup.Group) -> set[int]:
    return {int(pid) for pid in (group.path / "cgroup.procs").read_text().split()}


def read_exactly(fd: int, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            break
        data += chunk
    return data


class Child:
    """A forked child that runs `body` then exits (status 0, or 1 if `body` raised).

    It writes its reports to fd REPORT and waits on fd RELEASE where `body` says so; closing `release` here
    lets it go. `stop` kills it unless it was reaped already, so a pid is never signalled after reuse.
    """

    def __init__(self, body: Callable[[], None]):
        self.report, report_w = os.pipe()
        release_r, self.release = os.pipe()
        self.status: int | None = None
        self.pid = os.fork()
        if self.pid == 0:
            code = 1
            try:
                os.close(self.report)
                os.close(self.release)
                os.dup2(report_w, REPORT)
                os.dup2(release_r, RELEASE)
                body()
                code = 0
            finally:
                os._exit(code)
        os.close(report_w)
        os.close(release_r)

    def let_go(self) -> None:
        if self.release >= 0:
            os.close(self.release)
            self.release = -1

    def wait(self) -> int:
        if self.status is None:
            self.status = os.waitpid(self.pid, 0)[1]
        return self.status

    def stop(self) -> None:
        self.let_go()
        os.close(self.report)
        if self.status is None:
            os.kill(self.pid, signal.SIGKILL)
            self.wait()


@contextmanager
def forked(body: Callable[[], None]) -> Iterator[Child]:
    child = Child(body)
    try:
        yield child
    finally:
        child.stop()


def touch(megabytes: int) -> bytearray:
    """Memory the kernel really charges: every page of it written."""
    block = bytearray(megabytes * MB)
    for i in range(0, len(block), 4096):
        block[i] = 1
    return block


def test_groups_are_made_under_this_process_cgroup_with_the_limit_asked(groups):
    """Fails if the run's folder is not beside this process (so the machine's limit would not hold) or a limit is off."""
    assert os.getpid() in {int(p) for p in (groups.root.path.parent / "cgroup.procs").read_text().split()}
    assert groups.root.path.name.startswith(f"autograder-{os.getpid()}-")
    small, large = groups.create("judge-0", LIMIT_MB), groups.create("notebook-0", 2 * LIMIT_MB)
    assert small.path == groups.root.path / "judge-0" and large.path == groups.root.path / "notebook-0"
    assert (limit_of(small), limit_of(large)) == (LIMIT_MB * MB, 2 * LIMIT_MB * MB)
    assert small.version == large.version == groups.root.version


@pytest.mark.parametrize("factor", [0.5, 3], ids=["lower", "higher"])
def test_creating_a_group_again_sets_its_new_limit(groups, factor):
    """`create` reuses an existing folder (a judge slot started again): the limit asked must hold, up or down."""
    first = groups.create("judge-0", LIMIT_MB)
    again = groups.create("judge-0", int(LIMIT_MB * factor))
    assert again is not None, "create answered None: the group would run without a memory limit"
    assert again.path == first.path and limit_of(again) == int(LIMIT_MB * factor) * MB


def test_two_runs_get_separate_folders(groups):
    """Two grading runs in one process must not share (or remove) each other's groups."""
    other = cgroup.Groups()
    path = other.root.path
    try:
        assert path != groups.root.path and path.parent == groups.root.path.parent
    finally:
        other.close()
    assert not path.exists() and groups.root.path.is_dir()


@pytest.mark.process
def test_a_process_that_joins_is_counted_in_the_group(groups):
    """The child joins through the descriptor it was handed; it, a process it starts later and its memory count."""
    group = groups.create("notebook-0", LIMIT_MB)
    fd = group.procs_fd()

    def body():
        cgroup.join(fd)
        os.close(fd)
        kept = touch(16)
        grandchild = os.fork()
        if grandchild == 0:
            try:
                os.read(RELEASE, 1)
            finally:
                os._exit(0)
        os.write(REPORT, grandchild.to_bytes(4, "big"))
        os.read(RELEASE, 1)
        del kept
        os.waitpid(grandchild, 0)

    try:
        with forked(body) as child:
            grandchild = int.from_bytes(read_exactly(child.report, 4), "big")
            assert members(group) == {child.pid, grandchild}
            assert os.getpid() not in members(group)
            assert 16 * MB <= group.peak_bytes() < LIMIT_MB * MB
            assert group.oom_kills() == 0
            child.let_go()
            assert os.WIFEXITED(child.wait()) and os.WEXITSTATUS(child.wait()) == 0
    finally:
        os.close(fd)
    assert members(group) == set()


@pytest.mark.process
def test_a_process_over_the_limit_is_oom_killed(groups):
    """A child that writes four times its group's limit is killed by the kernel and counted in `oom_kills`."""
    group = groups.create("notebook-0", LIMIT_MB)
    swap_limited = group.version == 2 or (group.path / "memory.memsw.limit_in_bytes").exists()
    if not swap_limited and len(Path("/proc/swaps").read_text().splitlines()) > 1:
        pytest.skip("swap is on and this cgroup cannot limit it: the child would swap instead of being killed")
    fd = group.procs_fd()

    def body():
        cgroup.join(fd)
        os.write(REPORT, b"j")
        touch(4 * LIMIT_MB)
        os.write(REPORT, b"survived")

    try:
        assert group.oom_kills() == 0
        with forked(body) as child:
            assert read_exactly(child.report, 1) == b"j"
            status = child.wait()
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
            assert read_exactly(child.report, 8) == b""
    finally:
        os.close(fd)
    assert group.oom_kills() >= 1
    assert group.peak_bytes() <= LIMIT_MB * MB


@pytest.mark.process
def test_close_removes_every_folder_once_processes_are_gone(groups):
    """Groups that held a process, and groups that never did, all go; a second close is harmless."""
    group = groups.create("judge-0", LIMIT_MB)
    groups.create("notebook-0", LIMIT_MB)
    fd = group.procs_fd()
    try:
        with forked(lambda: cgroup.join(fd)) as child:
            assert os.WIFEXITED(child.wait()) and os.WEXITSTATUS(child.wait()) == 0
    finally:
        os.close(fd)
    root = groups.root.path
    assert {p.name for p in root.iterdir() if p.is_dir()} == {"judge-0", "notebook-0"}
    groups.close()
    assert not root.exists() and groups.root is None
    groups.close()


class ReleasingClock:
    """The module's clock, but its first sleep lets the group's last process go (and reaps it).

    So `close` meets a group that still holds a process, and the group empties only while it waits: a `close`
    that tries once and gives up leaves the folder behind.
    """

    monotonic = staticmethod(time.monotonic)

    def __init__(self, child: Child):
        self.child, self.sleeps = child, 0

    def sleep(self, seconds: float) -> None:
        self.sleeps += 1
        if self.sleeps == 1:
            self.child.let_go()
            self.child.wait()


@pytest.mark.process
def test_close_waits_for_a_group_to_empty(groups, monkeypatch):
    group = groups.create("notebook-0", LIMIT_MB)
    fd = group.procs_fd()

    def body():
        cgroup.join(fd)
        os.write(REPORT, b"j")
        os.read(RELEASE, 1)

    root = groups.root.path
    try:
        with forked(body) as child:
            assert read_exactly(child.report, 1) == b"j" and members(group) == {child.pid}
            clock = ReleasingClock(child)
            monkeypatch.setattr(cgroup, "time", clock)
            groups.close()
            assert clock.sleeps >= 1, "the group was empty before close tried to remove it"
    finally:
        os.close(fd)
    assert not root.exists()


@pytest.mark.process
def test_available_leaves_nothing_behind():
    """The probe `available` makes a group to know; it must remove it again."""
    parent = cgroup.Groups()
    try:
        here = parent.root.path.parent
    finally:
        parent.close()
    before = {p.name for p in here.iterdir() if p.name.startswith(f"autograder-{os.getpid()}-")}
    assert cgroup.available()
    assert {p.name for p in here.iterdir() if p.name.startswith(f"autograder-{os.getpid()}-")} == before == set()
