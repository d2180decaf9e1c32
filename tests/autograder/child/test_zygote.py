"""The zygote, started as `JudgePool` starts it (without bubblewrap) and spoken to through `wire.control`: it says
ready with its pid; `fork` answers a pid whose child says ready on its channel, takes the guard's key and runs
cells from the warm shell; `kill` stops a child and everything it started and frees its folder; a judge socket
handed over with `add` is served the same way, but a judge may kill only its own children and its children die
with its socket; a bad request gets an error (its descriptors closed) and the zygote keeps serving; closing the
control socket kills the children and ends the zygote. Also the parts it
runs in-process: `quiet_progress_bars`, `_discard` and the cleaner it feeds."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.child.zygote import _discard
from autograder.config.limits import Limits, as_dict
from autograder.judge.connection import Connection
from autograder.sandbox import layers
from autograder.wire import control, frames
from autograder.wire.ops import ChildOp, ZygoteOp
from tests.conftest import ROOT

WAIT_S = 60  # a safety limit on every wait, never a measure


def gone(pid: int, timeout: float = WAIT_S) -> bool:
    """Whether process `pid` is gone (the zygote reaps its children at once), waiting up to `timeout`."""
    deadline = time.monotonic() + timeout
    while os.path.exists(f"/proc/{pid}"):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def children_of(pid: int) -> set[int]:
    found: set[int] = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as fh:
            found |= {int(p) for p in fh.read().split()}
    return found


class Child:
    """A notebook child the zygote forked: its pid, its channel and the judge's connection to it (armed)."""

    def __init__(self, pid: int, channel: frames.Channel):
        self.pid = pid
        self.channel = channel
        hello, _ = channel.recv(deadline=time.monotonic() + WAIT_S)
        assert hello == {"ready": True}, hello
        self.conn = Connection(
            channel, on_death=lambda: None, deadline=lambda: time.monotonic() + WAIT_S, key=os.urandom(32)
        )
        channel.send({"op": ChildOp.ARM, "key": self.conn.key.hex()})
        assert "value" in self.conn.recv(time.monotonic() + WAIT_S)[0]

    def cell(self, source: str) -> dict:
        self.channel.send({"op": ChildOp.CELL, "source": source})
        reply, _, sealed = self.conn.recv(time.monotonic() + WAIT_S)
        assert not sealed and self.conn.take_events() == [], reply
        return reply

    def stdout(self, source: str) -> str:
        reply = self.cell(source)
        assert reply["status"] == "ok", reply
        return "".join(o["text"] for o in reply["outputs"] if o.get("name") == "stdout")

    def closed(self) -> bool:
        """Whether the channel reads end-of-stream: every process that held the child's end is gone."""
        try:
            self.channel.recv(deadline=time.monotonic() + WAIT_S)
        except frames.ChannelClosed:
            return True
        return False


class Zygote:
    """`python -m autograder.child.zygote FD 1`, as `JudgePool` runs it minus bubblewrap; its temp folder is `folder`."""

    def __init__(self, folder: Path):
        self.tmp = folder / "tmp"
        self.tmp.mkdir(parents=True)
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = layers.sandbox_environment(os.environ)
        env.update(PYTHONPATH=str(ROOT), TMPDIR=str(self.tmp), OMP_NUM_THREADS="1", MPLBACKEND="Agg")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "autograder.child.zygote", str(theirs.fileno()), "1"],
            pass_fds=[theirs.fileno()],
            cwd=folder,
            stdin=subprocess.DEVNULL,
            env=env,
        )
        theirs.close()
        self.control.settimeout(WAIT_S + 120)
        try:
            self.ready = control.recv_message(self.control)
        except BaseException:
            self.close()
            raise
        self.control.settimeout(WAIT_S)

    def ask(self, message: dict, fds: list[int] = (), *, sock: socket.socket | None = None) -> dict:
        sock = sock or self.control
        control.send_message(sock, message, fds)
        reply, extra = control.recv_message(sock)
        assert extra == [], extra
        return reply

    def fork(self, *, sock: socket.socket | None = None) -> Child:
        """A child, forked as `Session._fork` asks for one (weak sandbox allowed: tests run where they can)."""
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            reply = self.ask(
                {"op": ZygoteOp.FORK, "limits": as_dict(Limits()), "allow_weak": True}, [theirs.fileno()], sock=sock
            )
        finally:
            theirs.close()
        assert set(reply) == {"pid"} and type(reply["pid"]) is int, reply
        return Child(reply["pid"], frames.Channel(mine))

    def kill(self, child: Child, *, sock: socket.socket | None = None) -> dict:
        return self.ask({"op": ZygoteOp.KILL, "pid": child.pid}, sock=sock)

    def folders(self) -> list[str]:
        return sorted(p.name for p in self.tmp.iterdir() if p.name.startswith("notebook-"))

    def close(self) -> None:
        self.control.close()
        try:
            self.proc.wait(timeout=WAIT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def zygote(tmp_path_factory):
    z = Zygote(tmp_path_factory.mktemp("zygote"))
    yield z
    z.close()


@pytest.fixture
def judge(zygote):
    """A judge's socket, handed to the zygote with `add` as `JudgePool._start_judge` does."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        assert zygote.ask({"op": ZygoteOp.ADD}, [theirs.fileno()]) == {"ok": True}
    finally:
        theirs.close()
    mine.settimeout(WAIT_S)
    yield mine
    mine.close()


def serving(zygote: Zygote) -> bool:
    """Whether the zygote still answers on its control socket."""
    return zygote.ask({"op": "no-such-op"}) == {"error": "bad request 'no-such-op'"}


@pytest.mark.process
def test_the_zygote_says_ready_with_its_pid(zygote):
    assert zygote.ready == ({"ready": True, "pid": zygote.proc.pid}, [])
    assert zygote.proc.poll() is None


@pytest.mark.process
def test_a_forked_child_runs_cells_from_the_warm_shell(zygote):
    """The child is the zygote's own fork: torch is imported already and the cell runs in the child's folder."""
    before = set(zygote.folders())
    child = zygote.fork()
    try:
        (folder,) = set(zygote.folders()) - before
        with open(f"/proc/{child.pid}/status") as fh:
            assert f"PPid:\t{zygote.proc.pid}\n" in fh.read()
        out = child.stdout("import os, sys\nprint('torch' in sys.modules, os.path.basename(os.getcwd()))")
        assert out.split() == ["True", folder]
    finally:
        assert zygote.kill(child) == {"ok": True}


@pytest.mark.process
def test_each_fork_is_a_fresh_copy(zygote):
    """What one notebook defines is not in another's namespace."""
    first, second = zygote.fork(), zygote.fork()
    try:
        assert first.pid != second.pid
        assert first.stdout("secret = 41\nprint(secret + 1)") == "42\n"
        assert second.cell("secret")["ename"] == "NameError"
    finally:
        zygote.kill(first)
        zygote.kill(second)


@pytest.mark.process
def test_kill_stops_the_child_and_what_it_started_and_frees_its_folder(zygote):
    before = set(zygote.folders())
    child = zygote.fork()
    (folder,) = set(zygote.folders()) - before
    child.stdout("import subprocess\nsleeper = subprocess.Popen(['sleep', '600'])")
    started = children_of(child.pid)
    assert len(started) == 1
    assert zygote.kill(child) == {"ok": True}
    assert child.closed() and gone(child.pid) and all(gone(pid) for pid in started)
    deadline = time.monotonic() + WAIT_S
    while folder in zygote.folders() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert folder not in zygote.folders()
    assert zygote.kill(child) == {"error": "bad request 'kill'"}


@pytest.mark.process
def test_kill_only_stops_a_child_the_zygote_forked(zygote):
    """A pid the zygote did not fork (here a process of the test's) is refused, and left alone."""
    bystander = subprocess.Popen(["sleep", "600"])
    try:
        for pid in (bystander.pid, str(bystander.pid), [bystander.pid], None):
            assert zygote.ask({"op": ZygoteOp.KILL, "pid": pid}) == {"error": "bad request 'kill'"}
        child = zygote.fork()
        assert zygote.ask({"op": ZygoteOp.KILL, "pid": float(child.pid)}) == {"error": "bad request 'kill'"}
        assert zygote.kill(child) == {"ok": True}
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()


@pytest.mark.process
@pytest.mark.parametrize(
    "raw",
    [
        b'{"op": "spawn"}',
        b'{"op": "FORK"}',
        b'{"op": "fork"}',
        b'{"op": "add"}',
        b'{"pid": 1}',
        b"[1, 2]",
        b"not json",
    ],
    ids=["unknown", "member-name", "fork-without-channel", "add-without-socket", "no-op", "not-object", "not-json"],
)
def test_a_bad_request_is_answered_and_the_zygote_keeps_serving(zygote, raw):
    zygote.control.send(raw)
    reply, fds = control.recv_message(zygote.control)
    assert set(reply) == {"error"} and reply["error"].startswith("bad request") and fds == []
    assert serving(zygote) and zygote.proc.poll() is None


@pytest.mark.process
def test_the_descriptors_of_a_bad_request_are_closed(zygote):
    """Left open, each would keep a socket alive in the zygote for the whole run."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        assert zygote.ask({"op": "spawn"}, [theirs.fileno()]) == {"error": "bad request 'spawn'"}
        theirs.close()
        mine.settimeout(WAIT_S)
        assert mine.recv(1) == b""
    finally:
        mine.close()
        theirs.close()


@pytest.mark.process
def test_a_judge_socket_forks_and_kills_but_cannot_add(zygote, judge):
    """Judges fork and kill on their own socket; only the coordinator's control socket hands over new sockets."""
    child = zygote.fork(sock=judge)
    assert child.stdout("print('from a judge')") == "from a judge\n"
    assert zygote.kill(child, sock=judge) == {"ok": True}
    assert child.closed() and gone(child.pid)
    spare, other = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        assert zygote.ask({"op": ZygoteOp.ADD}, [other.fileno()], sock=judge) == {"error": "bad request 'add'"}
    finally:
        spare.close()
        other.close()


@pytest.mark.process
def test_a_judge_kills_only_the_children_it_asked_for(zygote, judge):
    """A judge confused about a pid (or a stale one the kernel has reused) must not stop another judge's notebook."""
    other = zygote.fork()
    try:
        assert zygote.kill(other, sock=judge) == {"error": "bad request 'kill'"}
        assert other.stdout("print('still here')") == "still here\n"
    finally:
        assert zygote.kill(other) == {"ok": True}


@pytest.mark.process
def test_a_closed_judge_socket_is_dropped_and_the_zygote_goes_on(zygote, judge):
    judge.close()
    assert serving(zygote) and zygote.proc.poll() is None


@pytest.mark.process
def test_a_child_dies_with_the_judge_socket_that_forked_it(zygote, judge):
    """A judge the pool kills (over its time or memory) leaves its notebook's child behind unless the zygote
    stops it: a child busy in a cell never notices, and would hold its memory (in the slot's cgroup, which the
    next judge's notebooks share) until the run ends."""
    child = zygote.fork(sock=judge)
    child.channel.send({"op": ChildOp.CELL, "source": "import time\nwhile True:\n    time.sleep(0.1)"})
    judge.close()
    child.channel.close()
    assert serving(zygote)
    assert gone(child.pid, timeout=20), "the child outlived its judge's socket"


@pytest.mark.process
def test_closing_the_control_socket_kills_the_children_and_ends_the_zygote(tmp_path):
    own = Zygote(tmp_path)
    try:
        busy, idle = own.fork(), own.fork()
        busy.channel.send({"op": ChildOp.CELL, "source": "import time\nwhile True:\n    time.sleep(0.1)"})
        assert len(own.folders()) == 2
        own.control.close()
        assert own.proc.wait(timeout=WAIT_S) == 0
        assert busy.closed() and idle.closed() and gone(busy.pid) and gone(idle.pid)
        assert own.folders() == []
    finally:
        own.close()


@pytest.mark.process
def test_quiet_progress_bars_keeps_tqdm_from_starting_a_thread():
    """A thread alive in the child is reported as tampering: a progress bar must not start tqdm's monitor."""
    script = (
        "import sys, threading\nimport tqdm\nfrom autograder.child.zygote import quiet_progress_bars\n"
        "if sys.argv[1] == 'quiet':\n    quiet_progress_bars()\n"
        "bar = tqdm.tqdm(total=3, disable=False, file=sys.stderr)\n"
        "print(threading.active_count(), tqdm.tqdm.monitor_interval)\nbar.close()\n"
    )
    for mode, expected in (("quiet", "1 0"), ("default", "2 10")):
        out = subprocess.run(
            [sys.executable, "-c", script, mode], cwd=ROOT, capture_output=True, text=True, timeout=WAIT_S, check=True
        ).stdout
        assert out.split() == expected.split(), (mode, out)


def test_discard_removes_an_empty_folder_at_once(tmp_path):
    r, w = os.pipe()
    try:
        os.set_blocking(r, False)
        empty = tmp_path / "notebook-empty"
        empty.mkdir()
        _discard(w, empty)
        assert not empty.exists()
        with pytest.raises(BlockingIOError):
            os.read(r, 100)
    finally:
        os.close(r)
        os.close(w)


def test_discard_hands_a_folder_with_files_to_the_cleaner(tmp_path):
    """The fork loop never walks a tree: a folder with files goes to the cleaner, one path per line."""
    r, w = os.pipe()
    try:
        os.set_blocking(w, False)
        full = tmp_path / "notebook-full"
        (full / "sub").mkdir(parents=True)
        (full / "sub" / "file").write_text("x")
        _discard(w, full)
        assert (full / "sub" / "file").exists()
        assert os.read(r, 1000) == os.fsencode(full) + b"\n"
        while True:
            try:
                os.write(w, b"x" * 65536)
            except BlockingIOError:
                break
        _discard(w, full)
        assert full.exists()
    finally:
        os.close(r)
        os.close(w)


@pytest.mark.process
def test_the_cleaner_removes_the_folders_it_is_handed(tmp_path):
    folders = [tmp_path / "a", tmp_path / "b c"]
    for folder in folders:
        (folder / "deep").mkdir(parents=True)
        (folder / "deep" / "file").write_text("x")
    script = (
        "import os, sys\nfrom autograder.child.zygote import start_cleaner\n"
        "feed = start_cleaner(os.open(os.devnull, os.O_RDONLY))\n"
        "for path in sys.argv[1:]:\n    os.write(feed, os.fsencode(path) + b'\\n')\n"
        "os.close(feed)\nos.wait()\n"
    )
    subprocess.run([sys.executable, "-c", script, *map(str, folders)], cwd=ROOT, timeout=WAIT_S, check=True)
    assert list(tmp_path.iterdir()) == []
