"""This machine's judges: the zygote and N judge processes, each grading one notebook at a time.

`JudgePool` starts one zygote (through `sandbox.bwrap.wrap_zygote`), imports torch and the course while
it warms up, then forks N judge processes (`judge_loop`) that take one JSON job per line and answer
one JSON result per line (`notebook.grade_job`). A judge over its time or memory is killed and
replaced; its notebook fails with a reason.
"""

from __future__ import annotations

import collections
import gc
import itertools
import json
import os
import selectors
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

from autograder.wire import control
from autograder.config.limits import Limits, from_dict
from autograder.judge import jobs
from autograder.sandbox import bwrap, capabilities, cgroup, layers
from autograder.wire.ops import ZygoteOp


POLL_S = 5.0  # how often a pool with nothing to read looks at its judges (their time, their memory)


class JudgePool:
    """The zygote and the judge processes; `run` yields results as they come, in any order."""

    def __init__(
        self,
        course_dir: Path,
        judges: int,
        threads: int,
        *,
        allow_weak_sandbox: bool = False,
        limits: Limits | None = None,
        environment: tuple[str, ...] = (),
    ):
        self.course_dir = course_dir
        self.size = judges
        self.threads = threads
        self.limits = limits or Limits()
        self.scratch = Path(tempfile.mkdtemp(prefix="autograder-run-"))
        self.groups = cgroup.Groups()
        self._slots = itertools.count()
        master, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        argv = [
            sys.executable,
            "-m",
            "autograder.child.zygote",
            str(theirs.fileno()),
            str(threads),
            ",".join(environment),
        ]
        self.zygote = subprocess.Popen(
            bwrap.wrap_zygote(argv, course_dir=course_dir),
            pass_fds=[theirs.fileno()],
            cwd=self.scratch,
            stdin=subprocess.DEVNULL,
            env=_env(threads, environment),
        )
        theirs.close()
        self.master = master
        self.judges: list[dict] = []
        try:
            capabilities.require(allow_weak_sandbox)  # while the zygote warms up; no student code runs before it
        except BaseException:
            self.master.close()
            self.zygote.kill()
            self.zygote.wait()
            raise
        _warm_judge()
        for _ in range(judges):
            self.judges.append(self._start_judge())
        master.settimeout(self.limits.pool_start_timeout)
        try:
            ready, _ = control.recv_message(master)
        except (socket.timeout, OSError):
            ready = None
        if not ready or not ready.get("ready"):
            self.close()
            raise RuntimeError("the sandbox zygote did not start (see its messages above)")
        self._registered = True
        master.settimeout(None)
        self._unacked = len(self.judges)
        if layers.gpu_devices():
            try:
                self._check_devices(allow_weak_sandbox)
            except BaseException:
                self.close()
                raise

    def _check_devices(self, allow_weak: bool) -> None:
        """Stop before any notebook when the sandbox sees other CUDA devices than the judges (`test_devices()` would differ)."""
        from autograder.judge.session import Session

        judge_sees = cuda_devices_in_a_fork()
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        control.send_message(self.master, {"op": ZygoteOp.ADD}, [theirs.fileno()])
        theirs.close()
        self._ack_adds(self._unacked + 1)
        self._unacked = 0
        session = Session(
            mine, [], self.limits, time.monotonic() + self.limits.pool_start_timeout, allow_weak=allow_weak
        )
        try:
            session.ensure([])
            status, reply = session.run_cell("import torch\nprint(torch.cuda.device_count())")
            text = "".join(o.get("text", "") for o in reply.get("outputs", []) if isinstance(o, dict))
        finally:
            session.close()
            mine.close()
        child_sees = int(text.strip()) if status == "ok" and text.strip().isdigit() else -1
        if child_sees != judge_sees:
            raise capabilities.SandboxUnavailable(
                f"the sandbox sees {child_sees} CUDA device(s), the judges {judge_sees}: every `test_devices()` case would "
                "differ between them, so no notebook is graded. Check the /dev/nvidia* nodes and CUDA_VISIBLE_DEVICES."
            )

    def _start_judge(self, slot: int | None = None) -> dict:
        """A judge forked from this process, which has torch and the course imported already.

        Slot `n` has two memory cgroups, where the machine offers them: `judge-n` for the judge
        itself, `sandbox-n` for every process of the notebook it grades.
        """
        slot = next(self._slots) if slot is None else slot
        judge_group = self.groups.create(f"judge-{slot}", self.limits.judge_memory_mb)
        sandbox_group = self.groups.create(f"sandbox-{slot}", self.limits.memory_mb)
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        control.send_message(self.master, {"op": ZygoteOp.ADD}, [mine.fileno()])
        mine.close()
        job_r, job_w = os.pipe()
        result_r, result_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                os.close(job_w)
                os.close(result_r)
                self.master.close()
                for other in self.judges:
                    for stream in (other["stdin"], other["stdout"]):
                        try:
                            stream.close()
                        except OSError:
                            pass
                if judge_group is not None:
                    fd = judge_group.procs_fd()
                    cgroup.join(fd)
                    os.close(fd)
                judge_loop(theirs, job_r, result_w, memory=sandbox_group, scratch=self.scratch)
            except BaseException:
                traceback.print_exc()
                code = 1
            finally:
                os._exit(code)
        theirs.close()
        os.close(job_r)
        os.close(result_w)
        return {
            "pid": pid,
            "stdin": os.fdopen(job_w, "w", encoding="utf-8"),
            "stdout": os.fdopen(result_r, "r", encoding="utf-8"),
            "job": None,
            "since": 0.0,
            "slot": slot,
            "group": judge_group,
            "ooms": judge_group.oom_kills() if judge_group else 0,
        }

    def _ack_adds(self, count: int) -> None:
        for _ in range(count):
            control.recv_message(self.master)

    def run(self, todo, limits=None, *, incoming=None) -> "iter[dict]":
        """Grade the jobs of `todo` (any iterable, read as judges free up); `limits` bound each job's time (by
        default its own). `incoming`, when given, is a feed of more jobs: `fileno()` to wait on, and
        `poll()` that answers the jobs that arrived, or None once the feed closed, which ends the run."""
        source = iter(todo)
        pending: collections.deque = collections.deque()
        selector = selectors.DefaultSelector()
        self._ack_adds(self._unacked)
        self._unacked = 0
        for judge in self.judges:
            selector.register(judge["stdout"], selectors.EVENT_READ, judge)
        if incoming is not None:
            selector.register(incoming, selectors.EVENT_READ, None)
        busy = 0
        while True:
            pending.extend(itertools.islice(source, 0 if pending else 1))
            if not (pending or busy or incoming is not None):
                break
            for judge in self.judges:
                pending.extend(itertools.islice(source, 0 if pending else 1))
                if judge["job"] is None and pending:
                    job = pending.popleft()
                    judge["job"], judge["since"] = job, time.monotonic()
                    try:
                        judge["stdin"].write(json.dumps(job) + "\n")
                        judge["stdin"].flush()
                    except (BrokenPipeError, OSError):
                        pass
                    busy += 1
            events = selector.select(timeout=POLL_S)
            for key, _ in events:
                judge = key.data
                if judge is None:
                    arrived = incoming.poll()
                    if arrived is None:
                        return
                    pending.extend(arrived)
                    continue
                line = judge["stdout"].readline()
                job = judge["job"]
                if line:
                    try:
                        result = json.loads(line)
                    except ValueError:
                        continue
                    judge["job"] = None
                    busy -= 1
                    yield result
                    continue
                selector.unregister(judge["stdout"])
                over = judge["group"] is not None and judge["group"].oom_kills() > judge["ooms"]
                self._replace(judge, selector)
                if job is not None:
                    busy -= 1
                    yield jobs.failed_result(
                        job,
                        f"the grader's judge for this notebook went over its memory limit (c.Autograder.judge_memory_mb = "
                        f"{self.limits.judge_memory_mb} MB) and was stopped"
                        if over
                        else "the grader's worker process stopped while grading this notebook",
                    )
            now = time.monotonic()
            for judge in self.judges:
                if judge["job"] is not None and now - judge["since"] > _budget(judge["job"], limits):
                    job = judge["job"]
                    _kill(judge["pid"])
                    selector.unregister(judge["stdout"])
                    self._replace(judge, selector)
                    busy -= 1
                    yield jobs.failed_result(job, "grading this notebook took longer than the grader allows")

    def _replace(self, judge: dict, selector) -> None:
        _kill(judge["pid"])
        for stream in (judge["stdin"], judge["stdout"]):
            try:
                stream.close()
            except OSError:
                pass
        fresh = self._start_judge(judge["slot"])
        self._ack_adds(1)
        judge.update(fresh)
        selector.register(judge["stdout"], selectors.EVENT_READ, judge)

    def close(self) -> None:
        for judge in self.judges:
            try:
                judge["stdin"].close()
            except OSError:
                pass
        deadline = time.monotonic() + self.limits.stop_timeout
        for judge in self.judges:
            while time.monotonic() < deadline and os.waitpid(judge["pid"], os.WNOHANG) == (0, 0):
                time.sleep(0.01)
            _kill(judge["pid"])
            judge["stdout"].close()
        self.master.close()
        try:
            self.zygote.wait(timeout=self.limits.stop_timeout)
        except subprocess.TimeoutExpired:
            self.zygote.kill()
            self.zygote.wait()
        self.groups.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


def cuda_devices_in_a_fork() -> int:
    """How many CUDA devices torch sees, asked in a throwaway child so this process never initialises CUDA before forking judges."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            import torch

            os.write(write_end, str(torch.cuda.device_count()).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as handle:
        data = handle.read()
    os.waitpid(pid, 0)
    return int(data) if data.strip().isdigit() else 0


def _env(threads: int, environment: tuple[str, ...] = ()) -> dict:
    """The zygote's environment: only what `layers.ENV_ALLOWED` and `environment` name, never the grader's secrets."""
    env = layers.sandbox_environment(os.environ, extra=environment)
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[name] = str(threads)
    env.setdefault("MPLBACKEND", "Agg")
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def _budget(job: dict, limits) -> float:
    """Seconds a judge may spend on `job` before it is stopped: the notebook's limit and some slack."""
    limits = limits or from_dict(job.get("limits", {}))
    return limits.notebook_timeout + limits.cell_timeout + limits.judge_grace


def _warm_judge() -> None:
    """What the judge needs, imported once in the coordinator before judge processes are forked: each notebook
    is graded in a fresh fork, so whatever is not imported here is imported again for every notebook."""
    import importlib
    import pkgutil

    import numpy  # noqa: F401
    import torch

    import course.checks  # noqa: F401
    import course.data  # noqa: F401
    import course.probes
    import course.quiz  # noqa: F401

    for found in pkgutil.iter_modules(course.probes.__path__):
        importlib.import_module(f"course.probes.{found.name}")
    from autograder.child import runner  # noqa: F401
    from autograder.judge import notebook  # noqa: F401
    from autograder.child.zygote import warm_torch

    warm_torch(torch)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def judge_loop(
    control: socket.socket, job_fd: int, result_fd: int, *, memory: cgroup.Group | None = None, scratch: Path
) -> None:
    """A judge process: one JSON job per line in, one JSON result per line out.

    Each notebook is graded in a fork of its own (`_grade_in_fork`), so nothing one notebook's test cells
    leave behind (a patched module, a signal handler, torch's defaults, a seed) reaches the next one."""
    import signal

    import torch

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator handles Ctrl-C and closes our pipe
    torch.set_num_threads(1)
    os.dup2(2, 1)
    # the garbage collector would walk every object torch and the course made and copy their pages into each
    # notebook's fork; frozen, they stay shared
    gc.freeze()
    results = os.fdopen(result_fd, "w", encoding="utf-8")
    for line in os.fdopen(job_fd, "r", encoding="utf-8"):
        job = json.loads(line)
        result = _grade_in_fork(job, control, memory, scratch)
        if result is None:
            # the fork died mid-notebook, perhaps mid-message to the zygote: this judge's channel cannot be
            # trusted, so it stops and the pool answers the job and starts a fresh judge
            raise RuntimeError(f"the judge's fork for job {job.get('key')} stopped without a result")
        results.write(result + "\n")
        results.flush()


def _notebook_folder(job: dict, *, under: Path) -> str:
    """A folder holding the files handed to the notebook (the instructor's and the student's), made the
    working directory of this fork: a test cell that opens `data.txt` reads it beside the notebook, as in
    nbgrader's kernel, which runs in the autograded folder. It is made `under` the pool's scratch folder, which
    the pool removes, so a fork killed mid-notebook leaves nothing behind."""
    # an empty or relative entry of the search path would now name this folder, where a handed-in `json.py`
    # would be what the judge imports next: each is pinned to the folder it named before
    sys.path[:] = [os.path.abspath(entry) for entry in sys.path]
    folder = tempfile.mkdtemp(prefix="notebook-", dir=under)
    for name, data in jobs.files(job):
        parts = Path(name).parts
        if not parts or Path(name).is_absolute() or ".." in parts:
            continue
        target = Path(folder, *parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    os.chdir(folder)
    return folder


def _grade_in_fork(job: dict, control: socket.socket, memory: cgroup.Group | None, scratch: Path) -> str | None:
    """One notebook graded in a child of the judge: its result as one JSON line, or None if the child died."""
    from autograder.judge import notebook

    read_end, write_end = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    judge = os.getpid()
    pid = os.fork()
    if pid == 0:
        code, folder = 0, None
        try:
            os.close(read_end)
            layers.die_with_parent()
            if os.getppid() != judge:
                os._exit(1)
            os.environ.update(layers.AUTOGRADING)
            try:
                folder = _notebook_folder(job, under=scratch)
                result = notebook.grade_job(job, control, memory=memory)
            except BaseException as exc:  # noqa: BLE001 - whatever stopped grading, the job gets an answer
                traceback.print_exc()
                result = jobs.failed_result(job, f"grader error: {type(exc).__name__}: {exc}")
            with os.fdopen(write_end, "w", encoding="utf-8") as out:
                out.write(json.dumps(notebook.utf8_values(result)))
        except BaseException:
            traceback.print_exc()
            code = 1
        finally:
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "r", encoding="utf-8") as answer:
        text = answer.read()
    os.waitpid(pid, 0)
    return text if text.strip() else None
