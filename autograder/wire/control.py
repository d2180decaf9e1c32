"""Messages on the zygote's control socket: small JSON objects, with file descriptors passed beside them.

A judge hands the zygote a child's channel (and its memory cgroup) this way; the operations are
`ops.ZygoteOp`. A message that is not a JSON object reads as an empty one, which no operation matches.
"""

from __future__ import annotations

import json
import os
import socket

CONTROL_BYTES = 64 * 1024


def send_message(sock: socket.socket, message: dict, fds: list[int] = ()) -> None:
    data = json.dumps(message).encode()
    if fds:
        socket.send_fds(sock, [data], list(fds))
    else:
        sock.send(data)


def recv_message(sock: socket.socket, *, max_fds: int = 2) -> tuple[dict | None, list[int]]:
    """One message and the descriptors sent with it; (None, []) when the peer closed."""
    data, fds, _, _ = socket.recv_fds(sock, CONTROL_BYTES, max_fds)
    if not data:
        for fd in fds:
            os.close(fd)
        return None, []
    try:
        message = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        message = {}
    return (message if isinstance(message, dict) else {}), fds
