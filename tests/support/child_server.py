"""A notebook child for the judge's tests: the grader's runner on an inherited socket, unconfined.

It warms up as the zygote does (so the guard is installed), then serves one channel.

    python -m tests.support.child_server FD
"""

from __future__ import annotations

import socket
import sys

from autograder.child import runner, zygote
from autograder.wire import frames

if __name__ == "__main__":
    shell = zygote.warm_up(1)
    channel = frames.Channel(socket.socket(fileno=int(sys.argv[1])))
    runner.Server(channel, shell, output_chars=64 * 1024).serve()
