"""The operations declared in `wire.ops` and the code that serves them agree: every `ChildOp` is served by a real
`runner.Server` (none answers "unknown request") and every `ZygoteOp` by a real zygote, while an operation that
is not declared, a member's name, or a value in the wrong case is refused by both. The operations travel as
plain strings: a JSON header carries `"cell"`, never an enum's repr."""

from __future__ import annotations

import json
import os
import socket
import time

import pytest
import torch

from autograder.wire import control, frames, values
from autograder.wire.ops import ChildOp, ZygoteOp
from course.probes.core import call_watching_inputs
from tests.autograder.child.test_runner import Child
from tests.autograder.child.test_zygote import Zygote

UNDECLARED = ["spawn", "Cell", "CELL", "FORK", "ChildOp.CELL", "ZygoteOp.FORK", "", None, 1]


@pytest.fixture(scope="module")
def zygote(tmp_path_factory):
    z = Zygote(tmp_path_factory.mktemp("ops-zygote"))
    yield z
    z.close()


def child_requests(child: Child) -> dict[ChildOp, dict]:
    """One well-formed request of each operation but `exit`, as the judge would send it; buffers under "_b"."""
    box = child.handle("box").id
    iterator = child.value(ChildOp.ITER, id=box).id
    node, buffers = values.encode(torch.zeros(2))
    key, key_buffers = values.encode(0)
    return {
        ChildOp.ARM: {"key": os.urandom(32).hex()},
        ChildOp.FILES: {"names": ["served.txt"], "_b": [b"x"]},
        ChildOp.CELL: {"source": "served = 1"},
        ChildOp.PROBE: {
            "name": call_watching_inputs.name,
            "item": "in_place",
            "req": 10**6,
            "args": [node],
            "kwargs": {},
            "_b": buffers,
        },
        ChildOp.LOOKUP: {"name": "box"},
        ChildOp.GETATTR: {"id": box, "name": "items"},
        ChildOp.CALL: {"id": child.handle("shout").id, "args": [values.encode("x")[0]], "kwargs": {}},
        ChildOp.GETITEM: {"id": box, "key": key, "_b": key_buffers},
        ChildOp.LEN: {"id": box},
        ChildOp.BOOL: {"id": box},
        ChildOp.ITER: {"id": box},
        ChildOp.NEXT: {"id": iterator},
        ChildOp.RELEASE: {"ids": [box]},
    }


@pytest.mark.process
def test_the_child_serves_every_declared_op_and_only_those(tmp_path):
    """Sent as the judge sends it, no declared operation is answered "unknown request" (`exit` ends serving);
    an undeclared one is, and the child goes on."""
    child = Child(tmp_path / "work")
    try:
        requests = child_requests(child)
        assert set(requests) | {ChildOp.EXIT} == set(ChildOp)
        for op, fields in requests.items():
            fields = dict(fields)
            buffers = fields.pop("_b", [])
            child.deadline = time.monotonic() + 60
            child.channel.send({"op": op, **fields}, buffers)
            replies = []
            while True:  # a probe answers with sealed reports until "done" or "error"
                reply, _, sealed = child.conn.recv(child.deadline)
                replies.append(reply)
                if not sealed or reply.get("kind") in ("done", "error"):
                    break
            assert not any("unknown request" in json.dumps(r) for r in replies), (op, replies)
            if op != ChildOp.ARM:  # armed when it started: a second key is refused, as the guard's own error
                assert not any("error" in r or r.get("kind") == "error" for r in replies), (op, replies)
        for op in UNDECLARED:
            assert child.error(op) == {"type": "WireError", "msg": f"unknown request {op!r}"}
        assert child.serving()
        child.channel.send({"op": ChildOp.EXIT})
        assert child.proc.wait(timeout=60) == 0
    finally:
        child.close()


@pytest.mark.process
def test_every_zygote_op_is_served(zygote):
    """`add` a judge's socket on the control socket, then `fork` and `kill` on the judge's, as the pool's judges do."""
    judge, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    judge.settimeout(60)
    try:
        served = {ZygoteOp.ADD: zygote.ask({"op": ZygoteOp.ADD}, [theirs.fileno()])}
        theirs.close()
        child = zygote.fork(sock=judge)
        served[ZygoteOp.FORK] = {"pid": child.pid}
        served[ZygoteOp.KILL] = zygote.kill(child, sock=judge)
        assert set(served) == set(ZygoteOp)
        assert served[ZygoteOp.ADD] == served[ZygoteOp.KILL] == {"ok": True}
        assert child.closed()
    finally:
        judge.close()
        theirs.close()


@pytest.mark.process
@pytest.mark.parametrize("op", UNDECLARED)
def test_the_zygote_refuses_an_undeclared_op(zygote, op):
    assert zygote.ask({"op": op}) == {"error": f"bad request {op!r}"}
    assert zygote.proc.poll() is None


def test_ops_are_plain_strings_on_the_wire():
    for op in [*ChildOp, *ZygoteOp]:
        assert type(op.value) is str and op.value == op.value.lower()
        assert str(op) == f"{op}" == json.loads(json.dumps(op)) == op.value
    assert len(ChildOp.__members__) == len(ChildOp) and len(ZygoteOp.__members__) == len(ZygoteOp)
    assert frames.pack({"op": ChildOp.CELL, "source": "1"})[1] == b'{"op":"cell","source":"1","b":[]}'
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with a, b:
        control.send_message(a, {"op": ZygoteOp.FORK})
        assert b.recv(100) == b'{"op": "fork"}'
