"""`Session` against a real zygote: one notebook's sandboxed child as the judge sees it.

A zygote started by a `JudgePool` with no judges forks the children; the session talks to it over a
judge socket added the way the pool adds its own. The tests check that cells run in order in one
process and share its state, that a cell that kills the process or runs past its time limit costs
only itself (a fresh child replays the earlier cells), that tamper reports reach `take_events` even
from a child that then died, and that `close` stops the child's processes.
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from autograder.config.limits import Limits
from autograder.judge.connection import MISSING
from autograder.judge.pool import JudgePool
from autograder.judge.session import Session
from autograder.sandbox import capabilities
from autograder.wire import control
from autograder.wire.ops import ZygoteOp

pytestmark = pytest.mark.skipif(
    bool(capabilities.missing_mechanisms()),
    reason="this machine lacks confinement: " + "; ".join(capabilities.missing_mechanisms()),
)

CELL_TIMEOUT = 5.0  # short, so the hanging cell costs little; trivial cells take milliseconds
WAIT_S = 60.0  # a safety limit for processes to go, never reached when the code is right


def judge_socket(pool: JudgePool) -> socket.socket:
    """A control socket to the pool's zygote, added as `JudgePool` adds a judge's (the caller closes it)."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    control.send_message(pool.master, {"op": ZygoteOp.ADD}, [theirs.fileno()])
    theirs.close()
    reply, _ = control.recv_message(pool.master)
    assert reply == {"ok": True}, reply
    return mine


def _stat(pid: int) -> tuple[int, str, int] | None:
    """(parent pid, state, start time) of a process, None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]), fields[0], int(fields[19])


def processes_under(root: int) -> set[tuple[int, int]]:
    """(pid, start time) of `root` and every live process below it (zombies are not live)."""
    parents: dict[int, list[int]] = {}
    stats = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _stat(int(entry))) is not None:
            stats[int(entry)] = stat
            parents.setdefault(stat[0], []).append(int(entry))
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        if pid in stats and stats[pid][1] not in "ZX":
            found.add((pid, stats[pid][2]))
        todo += parents.get(pid, [])
    return found


def running(processes: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """Those of `processes` still alive (the same pid and start time, not a zombie)."""
    alive = set()
    for pid, started in processes:
        stat = _stat(pid)
        if stat is not None and stat[2] == started and stat[1] not in "ZX":
            alive.add((pid, started))
    return alive


def wait_gone(processes: set[tuple[int, int]], limit: float = WAIT_S) -> set[tuple[int, int]]:
    """Those of `processes` still running after `limit` seconds (empty as soon as all are gone)."""
    deadline = time.monotonic() + limit
    while (left := running(processes)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


@pytest.fixture(scope="module")
def zygote(tmp_path_factory):
    pool = JudgePool(tmp_path_factory.mktemp("course"), 0, 1)
    sock = judge_socket(pool)
    try:
        yield pool, sock
    finally:
        sock.close()
        pool.close()


@pytest.fixture
def new_session(zygote):
    """Sessions on the module's zygote, closed at the end of the test."""
    pool, sock = zygote
    made: list[Session] = []

    def make(**limits) -> Session:
        limits = Limits(**{"cell_timeout": CELL_TIMEOUT, **limits})
        session = Session(sock, [], limits, time.monotonic() + 600)
        made.append(session)
        return session

    yield make
    for session in made:
        session.close()


def _stdout(reply: dict) -> str:
    return "".join(o["text"] for o in reply["outputs"] if o.get("output_type") == "stream" and o["name"] == "stdout")


@pytest.mark.process
def test_cells_run_in_order_in_one_process_and_share_its_state(new_session):
    """A session that ran each cell in a fresh process, or out of order, would lose `x` or print the wrong sum."""
    session, failures = new_session(), []
    for source in ("x = 2", "x = x * 10", "y = x + 1"):
        status, _ = session.run_student(source, failures)
        assert status == "ok"
    status, reply = session.run_student("print(x + y)", failures)
    assert (status, _stdout(reply)) == ("ok", "41\n")
    status, reply = session.run_student("raise ValueError('not this one')", failures)
    assert status == "error" and reply["ename"] == "ValueError"
    assert session.forks == 1 and failures == []
    assert session.history == ["x = 2", "x = x * 10", "y = x + 1", "print(x + y)", "raise ValueError('not this one')"]
    assert session.raised == {"raise ValueError('not this one')"}


@pytest.mark.process
def test_a_probe_child_has_what_a_cell_that_raised_left_and_no_more(new_session):
    """A cell that raised after binding a name left that name in the notebook's process: the probe child has
    it too (else its absence would tell a function it is being measured), and not what came after the error."""
    session, failures = new_session(), []
    assert session.run_student("SEEN = 'before the error'\nraise ValueError('stop')\nLATER = 1", failures)[0] == "error"
    assert session.run_student("def f():\n    return SEEN", failures)[0] == "ok"
    child = session.test_child({"f"})
    try:
        assert child is not session and child.conn.lookup("SEEN") == "before the error"
        assert child.conn.lookup("LATER") is MISSING
    finally:
        session.close_test_child(child, spoiled=False)


@pytest.mark.process
def test_a_cell_that_kills_its_process_is_replayed_away(new_session):
    """The next cell finds the earlier cells' state in a fresh child and nothing of the crashing cell; a replay
    that ran the crashing cell again would crash once more and record a failure."""
    session, failures = new_session(), []
    assert session.run_student("a = 1", failures)[0] == "ok"
    assert session.run_student("b = a + 1", failures)[0] == "ok"
    first = session.pid
    status, _ = session.run_student("c = 3\nimport os\nos._exit(1)", failures)
    assert status == "died" and not session.alive()
    status, reply = session.run_student("print(a, b, 'c' in globals())", failures)
    assert (status, _stdout(reply)) == ("ok", "1 2 False\n")
    assert session.forks == 2 and session.pid != first and failures == []


@pytest.mark.process
def test_a_cell_past_its_time_limit_fails_and_the_session_goes_on(new_session):
    """The hanging cell answers "timeout" (not an error, not a hang of the judge); the cells before it are back."""
    session, failures = new_session(), []
    assert session.run_student("import time\nx = 5", failures)[0] == "ok"
    status, reply = session.run_student("while True:\n    pass", failures)
    assert (status, reply) == ("timeout", {}) and not session.alive()
    status, reply = session.run_student("print(x)", failures)
    assert (status, _stdout(reply)) == ("ok", "5\n")
    assert session.forks == 2 and failures == [] and session.history == ["import time\nx = 5", "print(x)"]


@pytest.mark.process
def test_tamper_reports_come_out_of_take_events_once(new_session):
    """The guard's sealed reports reach the judge, even from a child that died right after sending them
    (`kill` keeps them); a session that dropped them with the dead child, or returned them twice, fails."""
    session, failures = new_session(), []
    assert session.run_student("x = 1", failures)[0] == "ok"
    assert session.take_events() == []
    status, _ = session.run_student("import sys\nsys.settrace(lambda *a: None)\nsys.settrace(None)", failures)
    assert status == "ok"
    events = session.take_events()
    assert any("sys.settrace" in e for e in events), events
    assert session.take_events() == []
    status, _ = session.run_student("import sys, os\nsys.setprofile(lambda *a: None)\nos._exit(1)", failures)
    assert status == "died"
    events = session.take_events()
    assert any("sys.setprofile" in e for e in events), events


@pytest.mark.process
def test_close_stops_the_child(zygote, new_session):
    """After `close` no process forked for the session is left, and the zygote still runs; a close that
    neither asks the child to exit nor has the zygote kill it leaves the child waiting for its next cell."""
    pool, _ = zygote
    before = processes_under(pool.zygote.pid)
    session, failures = new_session(), []
    assert session.run_student("x = 1", failures)[0] == "ok"
    children = processes_under(pool.zygote.pid) - before
    assert children, "the session's child should be a process below the zygote"
    session.close()
    assert not session.alive() and session.pid is None
    assert wait_gone(children) == set()
    assert running(before) == before, "closing one session must leave the zygote running"
