"""One notebook's sandboxed child, seen from the judge: its fork, its cells, its replay, its probe children."""

from __future__ import annotations

import os
import socket
import time
from typing import Any

from autograder.config.limits import as_dict
from autograder.judge import slicing
from autograder.judge.connection import Connection, SandboxDied
from autograder.wire import control, frames
from autograder.wire.ops import ChildOp, ZygoteOp
from autograder.wire.seal import TamperDetected


OUTSIDE_SUBSET = "code outside the Python a probe measures (docs/students.md), not run under the probe"


class Session:
    """One notebook's child, the replay that rebuilds it after a crash or a timeout, and its probe children.

    Every child gets a fresh key as its first message, before any student code runs: its guard seals
    tamper reports and probe evidence with it. A probe runs in a child of its own, forked for the item
    under test and holding only the code that item needs (`slicing.needed_code`), never in the child
    that ran the whole notebook.
    """

    def __init__(
        self,
        control: socket.socket,
        files: list[tuple[str, bytes]],
        limits: Any,
        deadline: float,
        *,
        allow_weak: bool = False,
        memory: Any = None,
        budget: frames.Budget | None = None,
    ):
        self.control = control
        self.files = files
        self.allow_weak = allow_weak
        self.memory = (
            memory  # the notebook's memory cgroup (`cgroup.Group`), which every child joins; None where there is none
        )
        self.ooms = memory.oom_kills() if memory is not None else 0
        self.budget = budget if budget is not None else frames.Budget()
        self.limits = limits
        self.notebook_deadline = deadline
        self.history: list[str] = []
        # the instructor's locked cells (what they run is the lesson's), and the cells that raised (replayed
        # whole, so that a probe child has what they left before the error, and no more)
        self.trusted: set[str] = set()
        self.raised: set[str] = set()
        self.channel: frames.Channel | None = None
        self.pid: int | None = None
        self.conn: Connection | None = None
        self.forks = 0
        self.fork_s = 0.0
        self.test_deadline = deadline
        self.busy = 0.0  # seconds the children reported running student cells (replays included)
        self.events: list[str] = []  # tamper reports that came while nothing was being attributed
        self.probe_child: Session | None = None  # the child that runs probes, holding only what the probed items need
        self.probe_ran: list = []  # the statements it ran (`slicing.Statement`)
        self.probe_history: list[str] = []  # the notebook's cells when it was made or last extended

    def _fork(self) -> None:
        started = time.perf_counter()
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        fds = [theirs.fileno()]
        try:
            if self.memory is not None:
                fds.append(self.memory.procs_fd())
            control.send_message(
                self.control,
                {"op": ZygoteOp.FORK, "limits": as_dict(self.limits), "allow_weak": self.allow_weak},
                fds,
            )
            reply, _ = control.recv_message(self.control)
        finally:
            theirs.close()
            for fd in fds[1:]:
                os.close(fd)
        if not reply or type(reply.get("pid")) is not int:
            mine.close()
            raise RuntimeError(f"the sandbox could not start a process: {reply}")
        self.pid = reply["pid"]
        self.forks += 1
        self.channel = frames.Channel(mine, budget=self.budget)
        try:
            hello, _ = self.channel.recv(deadline=time.monotonic() + self.limits.start_timeout)
        except (frames.Timeout, frames.ChannelClosed, frames.WireError):
            hello = {"fatal": "the sandboxed process did not start"}
        if hello.get("ready") is not True:
            self.kill()
            raise RuntimeError(str(hello.get("fatal", "the sandboxed process did not start"))[:500])
        key = os.urandom(32)
        self.conn = Connection(self.channel, on_death=self.kill, deadline=lambda: self.test_deadline, key=key)
        self.channel.send({"op": ChildOp.ARM, "key": key.hex()})
        reply, _, _ = self.conn.recv(time.monotonic() + self.limits.start_timeout)
        if "value" not in reply:
            self.kill()
            raise RuntimeError("the sandbox's guard could not be armed")
        if self.files:
            self.channel.send(
                {"op": ChildOp.FILES, "names": [name for name, _ in self.files]}, [data for _, data in self.files]
            )
            reply, _, _ = self.conn.recv(time.monotonic() + self.limits.start_timeout)
            if "value" not in reply:
                error = reply.get("error") if isinstance(reply.get("error"), dict) else {}
                raise RuntimeError(
                    f"the notebook's files could not be put in its folder: {str(error.get('msg', 'no reason given'))[:300]}"
                )
        self.fork_s += time.perf_counter() - started

    def kill(self) -> None:
        self._fold_busy()
        if self.conn is not None:
            self.events += self.conn.take_events()
        if self.pid is not None:
            control.send_message(self.control, {"op": ZygoteOp.KILL, "pid": self.pid})
            control.recv_message(self.control)
            self.pid = None
        if self.channel is not None:
            self.channel.close()
            self.channel = None

    def close(self) -> None:
        """Ask the child to exit and read what it sends until it has: any probe report left over is tampering."""
        if self.channel is not None and self.pid is not None and self.conn is not None and self.conn.dead is None:
            try:
                self.channel.send({"op": ChildOp.EXIT})
                deadline = time.monotonic() + self.limits.exit_timeout
                while True:
                    _, _, sealed = self.conn.recv(deadline)
                    if sealed:
                        self.conn.events.append("the notebook's process sent a probe report nobody asked for")
            except (frames.ChannelClosed, frames.Timeout, frames.WireError):
                pass
        self.kill()

    def memory_hit(self) -> bool:
        """Whether the kernel killed a process of this notebook for its memory limit since the last call."""
        if self.memory is None:
            return False
        count = self.memory.oom_kills()
        hit, self.ooms = count > self.ooms, count
        return hit

    def take_events(self) -> list[str]:
        events = self.events + (self.conn.take_events() if self.conn is not None else [])
        self.events = []
        return events

    def alive(self) -> bool:
        return self.channel is not None and self.conn is not None and self.conn.dead is None

    def _deadline(self) -> float:
        return min(time.monotonic() + self.limits.cell_timeout, self.notebook_deadline)

    def run_cell(self, source: str) -> tuple[str, dict]:
        """("ok" | "error" | "timeout" | "died", reply) for one cell in the current child."""
        try:
            self.channel.send({"op": ChildOp.CELL, "source": source})
            while True:
                reply, _, sealed = self.conn.recv(self._deadline())
                if not sealed:
                    break
                self.conn.events.append("the notebook's process sent a probe report where none was asked for")
        except frames.Timeout:
            self.kill()
            return "timeout", {}
        except frames.WireError as exc:
            self.conn.events.append(
                f"the notebook's process wrote something that is not a grader message on its channel ({exc})"
            )
            self.kill()
            return "died", {}
        except frames.ChannelClosed:
            self.kill()
            return "died", {}
        if reply.get("status") not in ("ok", "error"):
            self.kill()
            return "died", {}
        if type(reply.get("seconds")) is float and 0 <= reply["seconds"] < 1e6:
            self.busy += reply["seconds"]
        return reply["status"], reply

    def ensure(self, failures: list[dict]) -> None:
        """A live child with every earlier cell run again (one that now times out or crashes is dropped)."""
        while not self.alive():
            if self.channel is not None:
                self.kill()
            if time.monotonic() >= self.notebook_deadline:
                raise TimeoutError("notebook time limit")
            self._fork()
            for source in list(self.history):
                status, _ = self.run_cell(source)
                if status in ("timeout", "died"):
                    self.history.remove(source)
                    failures.append({"cell": None, "kind": f"replay {status}", "detail": source[:80]})
                    break

    def run_student(self, source: str, failures: list[dict], *, trusted: bool = False) -> tuple[str, dict]:
        """Run a cell of the notebook in its child; `trusted` says it is the instructor's (a locked cell)."""
        self.ensure(failures)
        status, reply = self.run_cell(source)
        if status in ("ok", "error"):  # a cell that raised still left what it did before the error
            self.history.append(source)
            if trusted:
                self.trusted.add(source)
            if status == "error":
                self.raised.add(source)
        return status, reply

    def begin_test(self) -> Connection:
        self.test_deadline = self._deadline()
        return self.conn

    def run_probe(self, probe: str, item: str, args: tuple, kwargs: dict) -> list[dict]:
        """A probe's evidence, taken in a child of its own that holds only what the items probed need.

        One probe child serves the notebook's probed items in turn: each new item's statements are run
        in it when they can run after what it already ran with the same effect (`slicing.can_run_after`),
        else a fresh child is forked for them. If the item then needs a name the slice missed
        (NameError), the probe runs once more in a child holding every cell the notebook ran.
        """
        try:
            child = self._prober({item})
            evidence = self.probe_in(child, probe, item, args, kwargs)
        except NameError:
            child = self._whole_prober()
            try:
                evidence = self.probe_in(child, probe, item, args, kwargs)
            finally:
                child.close()
                self.events += child.take_events()
        return evidence

    def test_child(self, names: set[str], *, whole: bool = False) -> "Session":
        """The child a test cell that probes runs every call in, values and probes alike (one call, one
        verdict): the probe child, holding what `names` need, or with `whole` a fresh child holding every
        cell the notebook ran (for a test that needs a name the slice missed); `close_test_child` ends it."""
        child = self._whole_prober() if whole else self._prober(names)
        child.test_deadline = self.test_deadline
        return child

    def close_test_child(self, child: "Session", *, spoiled: bool) -> list[str]:
        """After a test cell ran in `child`: the tamper reports it left (the probe child's late reports are
        `settle_probes`'s, after every test); a child that saw tampering or died (`spoiled`), or a
        whole-notebook child, serves no other test."""
        self.busy += child.conn.busy if child.conn is not None else 0.0
        if child.conn is not None:
            child.conn.busy = 0.0
        if child is not self.probe_child:
            child.close()
            return child.take_events()
        if spoiled:
            self._drop_prober()
        return self.take_events()

    def probe_in(self, child: "Session", probe: str, item: str, args: tuple, kwargs: dict) -> list[dict]:
        """A probe's evidence, taken in `child` (the probe child, or a test's own child)."""
        child.test_deadline = self.test_deadline
        spoiled = True  # a child that saw tampering, or died, serves no other item
        try:
            evidence = child.conn.probe(probe, item, args, kwargs)
            spoiled = False
        except Exception:
            spoiled = False  # the student's own exception: the child is as good as before
            raise
        finally:
            events = child.take_events()
            if child.conn is not None:
                self.busy += child.conn.busy
                child.conn.busy = 0.0
            if (spoiled or events) and child is self.probe_child:
                self._drop_prober()
        if events:
            raise TamperDetected("; ".join(dict.fromkeys(events)))
        return evidence

    def _prober(self, names: set[str]) -> "Session":
        whole = frozenset(i for i, source in enumerate(self.history) if source in self.raised)
        statements = slicing.needed_statements(self.history, names, whole=whole)
        self._measured(statements)
        child = self.probe_child
        if child is not None and child.alive() and self.history[: len(self.probe_history)] == self.probe_history:
            new = [s for s in statements if s not in self.probe_ran]
            if slicing.can_run_after(new, self.probe_ran):
                for code in slicing.as_cells(new):
                    status, _ = child.run_cell(code)
                    if status in ("timeout", "died"):
                        break
                else:
                    self.probe_ran = sorted(set(self.probe_ran) | set(new), key=lambda s: s.position)
                    self.probe_history = list(self.history)
                    events = child.take_events()
                    if events:
                        self._drop_prober()
                        raise TamperDetected("; ".join(dict.fromkeys(events)))
                    return child
        self._drop_prober()
        child = self._fresh_prober(slicing.as_cells(statements))
        events = child.take_events()
        if events:
            child.close()
            raise TamperDetected("; ".join(dict.fromkeys(events)))
        self.probe_child, self.probe_ran, self.probe_history = child, list(statements), list(self.history)
        return child

    def _whole_prober(self) -> "Session":
        """A fresh probe child holding every cell the notebook ran."""
        self._measured(slicing.every_statement(self.history))
        return self._fresh_prober(self.history)

    def _measured(self, statements: list) -> None:
        """Refuse to run under a probe what the student wrote outside the measured subset (`course.subset`):
        the item scores nothing and goes to the instructor, with what was found."""
        found = slicing.outside_subset(statements, self.history, self.trusted)
        if found:
            raise TamperDetected(f"{OUTSIDE_SUBSET}: " + "; ".join(found[:3]) + ("; ..." if len(found) > 3 else ""))

    def _fresh_prober(self, history: list[str]) -> "Session":
        child = Session(
            self.control,
            self.files,
            self.limits,
            self.notebook_deadline,
            allow_weak=self.allow_weak,
            memory=self.memory,
            budget=self.budget,
        )
        child.history = list(history)
        child.test_deadline = self.test_deadline
        child.ensure([])
        self.forks += child.forks
        self.fork_s += child.fork_s
        child.forks, child.fork_s = 0, 0.0
        self.busy += child.busy
        child.busy = 0.0
        return child

    def _drop_prober(self) -> None:
        if self.probe_child is not None:
            self.probe_child.close()
            self.events += self.probe_child.take_events()
            self.probe_child = None
            self.probe_ran, self.probe_history = [], []

    def settle_probes(self) -> list[str]:
        """After a test cell: reports the probe child sent beyond what its probes asked for (tampering)."""
        child = self.probe_child
        if child is None or not child.alive():
            return []
        try:
            child.test_deadline = time.monotonic() + self.limits.probe_sync_timeout
            child.conn.request("lookup", name="__grader_sync__")
        except SandboxDied:
            pass
        events = child.take_events()
        if events:
            self._drop_prober()
        return events

    def _fold_busy(self) -> None:
        if self.conn is not None:
            self.busy += self.conn.busy
            self.conn.busy = 0.0
