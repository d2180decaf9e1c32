"""A warm grading pool (the zygote and its judges, `judge.pool.JudgePool`) that serves jobs over pipes.

The worker plugin (`cluster.worker`) starts one per Dask worker, as a process of its own:
the Dask worker is threaded, and forking a threaded process is unsafe, so the judges are forked
from here instead. Standard input brings one JSON job per line; standard output answers one JSON
result per line, in any order. The first line out introduces the pool: whether it started, which
confinement layers this machine lacks (`sandbox.capabilities.missing_mechanisms`) and which grader code it
runs. The pool stops when its input closes, which happens when the worker stops or dies.

    python -m autograder.cluster.pool_server --workers N --threads T [--limits JSON] [--environment A,B]

`--limits` and `--environment` are the course's pool-level settings (`c.Autograder.judge_memory_mb`,
`stop_timeout`, `pool_start_timeout`, `sandbox_environment`), which a job carries; the hello repeats them,
so the worker can tell which pool serves which course's settings.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from autograder.config.limits import as_dict, from_dict
from autograder.judge import jobs
from autograder.judge.pool import JudgePool
from autograder.sandbox import capabilities


class LineFeed:
    """Jobs from a pipe, one JSON object per line, for `JudgePool.run(incoming=...)`."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()

    def fileno(self) -> int:
        return self.fd

    def poll(self) -> list[dict] | None:
        chunk = os.read(self.fd, 1 << 20)
        if not chunk:
            return None
        self.buffer += chunk
        *lines, rest = self.buffer.split(b"\n")
        self.buffer = bytearray(rest)
        found = []
        for line in lines:
            try:
                job = json.loads(line)
            except ValueError:
                print("pool server: a job line that is not JSON was dropped", file=sys.stderr)
                continue
            if isinstance(job, dict):
                found.append(job)
        return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder.cluster.pool_server",
        description="Serve grading jobs (JSON lines on stdin) with a warm sandbox pool.",
    )
    parser.add_argument("--workers", type=int, required=True, help="judge processes (notebooks graded at once)")
    parser.add_argument("--threads", type=int, required=True, help="torch threads of each sandboxed child")
    parser.add_argument(
        "--limits", default="{}", help="the course's limits as JSON (`config.limits.as_dict`); defaults otherwise"
    )
    parser.add_argument(
        "--environment", default="", help="comma-separated names of variables student code may also see"
    )
    args = parser.parse_args(argv)
    try:
        limits = from_dict(json.loads(args.limits))
    except (ValueError, TypeError) as exc:
        parser.error(f"--limits must be a JSON object of limits: {exc}")
    environment = tuple(name for name in args.environment.split(",") if name)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the worker decides when we stop: it closes our input
    # Results go out on a copy of stdout; everything else anyone here prints goes to stderr.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)

    def send(message: dict) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    hello = {
        "ready": False,
        "pid": os.getpid(),
        "code": jobs.course_code_hash(),
        "missing": capabilities.missing_mechanisms(),
        "settings": {"limits": as_dict(limits), "environment": list(environment)},
    }
    scratch = Path(tempfile.mkdtemp(prefix="autograder-pool-"))
    try:
        # Confinement is checked per job (a job says whether the instructor allowed a weak sandbox).
        pool = JudgePool(
            scratch,
            max(1, args.workers),
            max(1, args.threads),
            allow_weak_sandbox=True,
            limits=limits,
            environment=environment,
        )
    except Exception as exc:
        shutil.rmtree(scratch, ignore_errors=True)
        send({**hello, "error": f"the grading pool did not start: {type(exc).__name__}: {exc}"})
        return 1
    send({**hello, "ready": True})
    try:
        for result in pool.run([], incoming=LineFeed(0)):
            send(result)
    except BrokenPipeError:
        pass
    finally:
        pool.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
