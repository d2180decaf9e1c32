"""A notebook child for the judge's tests: the grader's runner on an inherited socket, unconfined.

    python -m tests.child_server FD
"""

from __future__ import annotations

import socket
import sys

from autograder import runner, wire

if __name__ == "__main__":
    channel = wire.Channel(socket.socket(fileno=int(sys.argv[1])))
    runner.Server(channel, runner.make_shell(), output_chars=64 * 1024).serve()
