"""Frames on the channel between a judge and its child: plain data only, every size capped.

A message is a frame: an 8-byte prefix (magic, version, header length), a JSON header, then raw
byte buffers whose lengths the header lists. Anything else raises `WireError`. The values inside a
header are `values`' tagged nodes; a sealed frame (`seal`) carries the guard's evidence.
"""

from __future__ import annotations

import json
import select
import socket
import struct
import time
from dataclasses import dataclass
from typing import Any


MAGIC = b"AG"
VERSION = 1
PREFIX = struct.Struct(">2sHI")


class WireError(ValueError):
    """A malformed, oversized or unexpected message; the peer is no longer trusted."""


class ChannelClosed(ConnectionError):
    """The peer went away (it exited or was killed)."""


class Timeout(TimeoutError):
    """No complete message before the deadline."""


@dataclass(frozen=True)
class Caps:
    header_bytes: int = 16 * 1024 * 1024  # per frame
    buffer_bytes: int = 512 * 1024 * 1024  # per frame
    buffers: int = 100_000
    nodes: int = 1_000_000
    depth: int = 64
    string_chars: int = 16 * 1024 * 1024
    int_digits: int = 4300
    tensor_elements: int = 1 << 31
    call_bytes: int = 1024 * 1024 * 1024  # per decoded message: the logical size of its arrays and tensors
    notebook_bytes: int = 4 * 1024 * 1024 * 1024  # per notebook: everything its processes send the judge


DEFAULT_CAPS = Caps()


class Budget:
    """Bytes one notebook's processes may still send the judge, shared by all its channels."""

    def __init__(self, limit: int = DEFAULT_CAPS.notebook_bytes):
        self.limit = limit
        self.used = 0

    def take(self, count: int) -> None:
        self.used += count
        if self.used > self.limit:
            raise WireError(
                f"the notebook's processes sent over {self.limit} bytes to the grader, its limit per notebook"
            )


# ---------------------------------------------------------------- frames


def pack(header: dict, buffers: list[bytes] = (), *, caps: Caps = DEFAULT_CAPS) -> list[bytes]:
    """The frame for `header` and `buffers` as a list of byte strings to send in order."""
    buffers = [bytes(b) if not isinstance(b, (bytes, memoryview)) else b for b in buffers]
    header = dict(header, b=[len(b) for b in buffers])
    raw = json.dumps(header, separators=(",", ":"), allow_nan=False).encode("utf-8")
    if len(raw) > caps.header_bytes:
        raise WireError(f"header of {len(raw)} bytes is over the cap of {caps.header_bytes}")
    if len(buffers) > caps.buffers or sum(header["b"]) > caps.buffer_bytes:
        raise WireError("buffers over the cap")
    return [PREFIX.pack(MAGIC, VERSION, len(raw)), raw, *buffers]


def _strict_json(raw: bytes) -> Any:
    def no_constants(name: str) -> Any:
        raise WireError(f"non-standard JSON constant {name}")

    try:
        return json.loads(raw.decode("utf-8"), parse_constant=no_constants)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise WireError(f"header is not valid JSON: {exc}") from None


class Channel:
    """Framed messages over a connected socket, every read bounded by a deadline and the caps."""

    def __init__(self, sock: socket.socket, *, caps: Caps = DEFAULT_CAPS, budget: Budget | None = None):
        self.sock = sock
        self.caps = caps
        self.budget = budget
        sock.setblocking(True)

    def fileno(self) -> int:
        return self.sock.fileno()

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def send(self, header: dict, buffers: list[bytes] = ()) -> None:
        parts = pack(header, buffers, caps=self.caps)
        try:
            self.sock.settimeout(None)
            for part in parts:
                self.sock.sendall(part)
        except (BrokenPipeError, ConnectionResetError, OSError) as exc:
            raise ChannelClosed(str(exc)) from None

    def _read(self, n: int, deadline: float | None) -> bytes:
        chunks = []
        while n:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Timeout("deadline passed")
                ready, _, _ = select.select([self.sock], [], [], left)
                if not ready:
                    raise Timeout("deadline passed")
            try:
                chunk = self.sock.recv(min(n, 1 << 20))
            except (ConnectionResetError, OSError) as exc:
                raise ChannelClosed(str(exc)) from None
            if not chunk:
                raise ChannelClosed("peer closed the channel")
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def recv(self, *, deadline: float | None = None) -> tuple[dict, list[bytes]]:
        magic, version, size = PREFIX.unpack(self._read(PREFIX.size, deadline))
        if magic != MAGIC or version != VERSION:
            raise WireError(f"bad frame prefix {magic!r} v{version}")
        if size > self.caps.header_bytes:
            raise WireError(f"header of {size} bytes is over the cap of {self.caps.header_bytes}")
        header = _strict_json(self._read(size, deadline))
        if not isinstance(header, dict) or not isinstance(header.get("b"), list):
            raise WireError("header must be an object with a buffer list")
        sizes = header.pop("b")
        if len(sizes) > self.caps.buffers or not all(type(s) is int and s >= 0 for s in sizes):
            raise WireError("bad buffer list")
        if sum(sizes) > self.caps.buffer_bytes:
            raise WireError(f"{sum(sizes)} bytes of buffers is over the cap of {self.caps.buffer_bytes}")
        if self.budget is not None:
            self.budget.take(PREFIX.size + size + sum(sizes))
        return header, [self._read(s, deadline) if s else b"" for s in sizes]
