"""A warm, guarded notebook child for tests that talk to one directly (the guard's and the judge's)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

from autograder.judge import connection
from autograder.wire import frames
from autograder.wire.ops import ChildOp
from tests.conftest import ROOT


class GuardedChild:
    """`tests.support.child_server` on a socket, unconfined, armed with a fresh key; `deadline` bounds each wait."""

    def __init__(self, *, setup: str | None = None):
        mine, theirs = socket.socketpair()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.child_server", str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            cwd=ROOT,
        )
        theirs.close()
        self.channel = frames.Channel(mine)
        self.deadline = time.monotonic() + 120
        self.conn = connection.Connection(
            self.channel, on_death=self.proc.kill, deadline=lambda: self.deadline, key=os.urandom(32)
        )
        self.channel.send({"op": ChildOp.ARM, "key": self.conn.key.hex()})
        assert "value" in self.conn.recv(self.deadline)[0]
        if setup is not None:
            reply, _ = self.run_cell(setup)
            assert reply["status"] == "ok", reply

    def run_cell(self, source: str, *, timeout: float = 60) -> tuple[dict, list[str]]:
        """Run a notebook cell; its reply and the tampering events it caused."""
        self.deadline = time.monotonic() + timeout
        self.channel.send({"op": ChildOp.CELL, "source": source})
        reply, _, sealed = self.conn.recv(self.deadline)
        assert not sealed and reply["status"] in ("ok", "error"), reply
        return reply, self.conn.take_events()

    def close(self):
        self.proc.kill()
        self.proc.wait()
        self.channel.close()
