"""The zygote's control messages (`wire.control`) over a real SOCK_SEQPACKET socketpair: a message's descriptors
arrive and work on the other side, a closed peer reads as `(None, [])` with any descriptors it sent closed, and a
message that is not a JSON object reads as `{}` (which no operation matches) with its descriptors still handed
over for the caller to close."""

from __future__ import annotations

import os
import socket

import pytest

from autograder.wire.control import recv_message, send_message


@pytest.fixture
def pair():
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    a.settimeout(30)
    b.settimeout(30)
    yield a, b
    a.close()
    b.close()


@pytest.fixture
def pipe():
    """A pipe whose read end does not block: `os.read` says b"" only once every write end is closed."""
    r, w = os.pipe()
    os.set_blocking(r, False)
    ends = {"r": r, "w": w}
    yield ends
    for fd in ends.values():
        try:
            os.close(fd)
        except OSError:
            pass


def _closed_everywhere(read_end: int) -> bool:
    try:
        return os.read(read_end, 1) == b""
    except BlockingIOError:
        return False


def test_a_message_without_descriptors_arrives_as_sent(pair):
    a, b = pair
    send_message(a, {"op": "kill", "pid": 12, "nested": {"ok": [1, 2.5, None]}})
    assert recv_message(b) == ({"op": "kill", "pid": 12, "nested": {"ok": [1, 2.5, None]}}, [])


def test_descriptors_pass_with_their_message_and_work_on_the_other_side(pair, pipe):
    """The zygote gets a child's channel this way: the descriptor it receives must reach the same pipe."""
    a, b = pair
    other_r, other_w = os.pipe()
    try:
        send_message(a, {"op": "fork"}, [pipe["w"], other_w])
        message, fds = recv_message(b)
        assert message == {"op": "fork"} and len(fds) == 2
        assert fds[0] not in (pipe["w"], other_w) and fds[1] not in (pipe["w"], other_w)
        os.write(fds[0], b"first")
        os.write(fds[1], b"second")
        assert os.read(pipe["r"], 10) == b"first"
        assert os.read(other_r, 10) == b"second"
        for fd in fds:
            os.close(fd)
    finally:
        os.close(other_r)
        os.close(other_w)


def test_a_closed_peer_reads_as_none(pair):
    a, b = pair
    a.close()
    assert recv_message(b) == (None, [])


def test_an_empty_message_reads_as_closed_and_its_descriptors_are_closed(pair, pipe):
    """Descriptors that came with an end-of-stream are nobody's: left open, they would leak in the zygote."""
    a, b = pair
    socket.send_fds(a, [b""], [pipe["w"]])
    os.close(pipe.pop("w"))
    assert recv_message(b) == (None, [])
    assert _closed_everywhere(pipe["r"]), "the descriptor received with the empty message is still open"


@pytest.mark.parametrize(
    "raw",
    [b"[1, 2]", b'"fork"', b"42", b"null", b"true", b"not json", b"{", b"\xff\xfe{}", b'{"op": "fork"'],
    ids=["list", "string", "number", "null", "bool", "text", "cut", "not-utf8", "unterminated"],
)
def test_a_message_that_is_not_a_json_object_reads_as_empty(pair, raw):
    a, b = pair
    a.send(raw)
    assert recv_message(b) == ({}, [])


def test_descriptors_of_a_message_that_is_not_an_object_are_still_handed_over(pair, pipe):
    """The caller answers such a message with an error and must close what came with it: it has to see it."""
    a, b = pair
    socket.send_fds(a, [b"[]"], [pipe["w"]])
    message, fds = recv_message(b)
    assert message == {} and len(fds) == 1
    os.close(pipe.pop("w"))
    assert not _closed_everywhere(pipe["r"])
    os.close(fds[0])
    assert _closed_everywhere(pipe["r"])
