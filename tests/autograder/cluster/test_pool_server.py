"""`python -m autograder.cluster.pool_server`, the warm pool a Dask worker grades in, run as its own process
on a tiny course's jobs planned and loaded as the coordinator makes them. Its first line out is the hello,
carrying the code hash the coordinator computes; each job line in gets one result line out naming its job,
whatever lines that are not jobs come between; closing its input stops it, its zygote and its judges, and
leaves no scratch folder behind. `LineFeed`, the reader of its input, is checked on a real pipe.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from autograder.authoring import samples
from autograder.cluster.pool_server import LineFeed
from autograder.config.limits import Limits, as_dict
from autograder.coordinator import plan
from autograder.judge import jobs
from autograder.sandbox import capabilities
from tests.autograder.coordinator.test_grader import FULL, LESSON, TINY, make_course, notebooks, submit

needs_confinement = pytest.mark.skipif(
    bool(capabilities.missing_mechanisms()),
    reason="this machine lacks confinement: " + "; ".join(capabilities.missing_mechanisms()),
)


# ---------------------------------------------------------------- processes, by pid


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (state first), or None when there is no such process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def descendants(root: int) -> dict[int, str]:
    """Every process below `root`, as pid -> its start time (so a pid used again later is not taken for it)."""
    children: dict[int, list[int]] = collections.defaultdict(list)
    started: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))):
            children[int(fields[1])].append(int(entry.name))
            started[int(entry.name)] = fields[19]
    found: dict[int, str] = {}
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child in started:
                found[child] = started[child]
                todo.append(child)
    return found


def running(pid: int, start: str) -> bool:
    """Whether the process `pid` that started at `start` still runs (a zombie runs nothing)."""
    fields = _stat(pid)
    return fields is not None and fields[19] == start and fields[0] != "Z"


def started_at(pid: int) -> str:
    fields = _stat(pid)
    assert fields is not None, f"no process {pid}"
    return fields[19]


def wait_for(predicate, what: str, timeout: float = 120.0):
    """`predicate()` once it is true; a test that waits longer than `timeout` fails, naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def kill_left(processes: dict[int, str]) -> None:
    """SIGKILL whichever of `processes` still run: a failed test leaves nothing behind."""
    for pid, start in processes.items():
        if running(pid, start):
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass


# ---------------------------------------------------------------- a tiny class's jobs


def planned_jobs(course: Path, students: dict, *, limits: Limits | None = None) -> dict[str, dict]:
    """student -> the job of their notebook, planned (`plan`) and loaded (`jobs.load`) as the coordinator does;
    `students` maps a student to the notebook they hand in."""
    for student, nb in students.items():
        submit(course, student, LESSON, nb)
    state = course / plan.STATE_DIR
    templates, notebooks_of = plan.write_templates(course, state, [LESSON])
    planned = plan.submissions(
        course,
        [(student, LESSON) for student in students],
        notebooks_of,
        templates,
        limits=limits or Limits(),
        code_hash=jobs.course_code_hash(),
        tests_in_sandbox=False,
        allow_weak_sandbox=False,
    )
    return {sub.student: jobs.load(sub.jobs[LESSON]) for sub in planned}


def scores(result: dict) -> dict[str, float]:
    assert result["status"] == "ok", result.get("reason")
    return {item: points for item, (points, _) in result["summary"]["grades"].items() if item in FULL}


@pytest.fixture(scope="module")
def tiny_jobs(tmp_path_factory) -> dict[str, dict]:
    course = make_course(tmp_path_factory.mktemp("pool-server") / "course", {LESSON: TINY})
    source, release = notebooks(course, LESSON)
    return planned_jobs(course, {"ada": samples.answered(source, release, keep=None), "bo": release})


# ---------------------------------------------------------------- the server as a process


class PoolServer:
    """`python -m autograder.cluster.pool_server` with pipes, as the worker starts it; its scratch under `tmp`."""

    def __init__(self, tmp: Path, *, workers: int = 1) -> None:
        self.tmp = tmp
        tmp.mkdir()
        argv = [sys.executable, "-m", "autograder.cluster.pool_server", "--workers", str(workers), "--threads", "1"]
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=tmp,
            env=dict(os.environ, TMPDIR=str(tmp)),
            text=True,
            encoding="utf-8",
        )
        self.lines: queue.SimpleQueue = queue.SimpleQueue()
        self.errors: list[str] = []
        self.seen: dict[int, str] = {}  # every process of its tree seen so far
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.errors.extend(self.proc.stderr), daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = 300.0) -> dict | None:
        """The next line out, read as JSON; None once the server closed its output."""
        line = self.lines.get(timeout=timeout)
        return None if line is None else json.loads(line)

    def tree(self) -> dict[int, str]:
        """The server and every process below it now (remembered, to be checked and cleaned up later)."""
        found = {self.proc.pid: started_at(self.proc.pid), **descendants(self.proc.pid)}
        self.seen.update(found)
        return found

    def close(self) -> None:
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        kill_left(self.seen)


@pytest.fixture
def server(tmp_path):
    started = PoolServer(tmp_path / "tmp", workers=2)
    try:
        yield started
    finally:
        started.close()


# ---------------------------------------------------------------- the server


@pytest.mark.slow
def test_the_hello_comes_first_and_carries_the_coordinators_code_hash(server, tiny_jobs):
    """A worker refuses jobs when its pool's code differs from the coordinator's: the hello must carry the same
    hash the coordinator puts in every job, and come before anything else."""
    hello = server.receive()
    assert hello == {
        "ready": True,
        "pid": server.proc.pid,
        "code": jobs.course_code_hash(),
        "missing": capabilities.missing_mechanisms(),
        "settings": {"limits": as_dict(Limits()), "environment": []},  # started without the course's settings
    }
    assert {job["code"] for job in tiny_jobs.values()} == {hello["code"]}


@pytest.mark.slow
@needs_confinement
def test_each_job_line_gets_one_result_naming_its_job_and_other_lines_are_dropped(server, tiny_jobs):
    """The worker matches results to jobs by name, in any order: one result per job line, each naming its job;
    a line that is not JSON (or JSON that is no job) is dropped with a message, and the jobs after it are graded."""
    assert server.receive()["ready"]
    sent = [tiny_jobs["ada"], tiny_jobs["bo"], tiny_jobs["ada"]]
    server.send(json.dumps(sent[0]))
    server.send("this line is not JSON {")
    server.send("[1, 2, 3]")
    server.send(json.dumps(sent[1]))
    server.send(json.dumps(sent[2]))
    results = [server.receive() for _ in sent]
    server.close()
    assert server.receive() is None, "nothing more than one result per job"
    assert server.proc.returncode == 0

    answered = collections.Counter(tuple(r["job" if k == "key" else k] for k in jobs.IDENT) for r in results)
    assert answered == collections.Counter(tuple(job[k] for k in jobs.IDENT) for job in sent)
    by_student = {r["student"]: r for r in results}
    assert scores(by_student["ada"]) == FULL
    assert scores(by_student["bo"]) == {item: 0.0 for item in FULL}
    wait_for(lambda: "pool server: a job line that is not JSON was dropped\n" in server.errors, "the message on stderr")


@pytest.mark.slow
@needs_confinement
def test_closing_its_input_stops_the_server_its_zygote_and_its_judges(server, tiny_jobs):
    """The worker stops its pool by closing the pool's input (also when the worker dies): every process of
    the tree, seen by pid while it served, must be gone after, and its scratch folders with them."""
    assert server.receive()["ready"]
    server.send(json.dumps(tiny_jobs["ada"]))
    assert server.receive()["status"] == "ok"
    tree = server.tree()
    found = {pid: (_stat(pid), _cmdline(pid)) for pid in tree if pid != server.proc.pid}
    judges = [
        pid
        for pid, (fields, cmdline) in found.items()
        if fields and int(fields[1]) == server.proc.pid and b"autograder.cluster.pool_server" in cmdline
    ]
    assert len(judges) == 2, "two judges, forked from the server"
    assert any(b"autograder.child.zygote" in cmdline for _, cmdline in found.values()), "the zygote, below the server"
    assert list(server.tmp.glob("autograder-*")), "the pool keeps its scratch under TMPDIR while it runs"

    server.proc.stdin.close()
    assert server.proc.wait(timeout=120) == 0
    wait_for(lambda: not any(running(pid, start) for pid, start in tree.items()), "every process of the pool to stop")
    assert list(server.tmp.glob("autograder-*")) == []


# ---------------------------------------------------------------- the feed of job lines


@pytest.fixture
def pipe():
    read_end, write_end = os.pipe()
    try:
        yield LineFeed(read_end), write_end
    finally:
        for fd in (read_end, write_end):
            try:
                os.close(fd)
            except OSError:
                pass


def test_a_job_split_across_reads_is_kept_until_its_line_ends(pipe):
    """A pipe delivers a line in as many pieces as it likes: a job is read only once its line is complete."""
    feed, write_end = pipe
    text = json.dumps({"key": "k1", "student": "s"}) + "\n" + json.dumps({"key": "k2"})
    os.write(write_end, text[:10].encode())
    assert feed.poll() == []
    os.write(write_end, text[10:].encode())
    assert feed.poll() == [{"key": "k1", "student": "s"}]
    os.write(write_end, b"\n")
    assert feed.poll() == [{"key": "k2"}]


def test_lines_that_are_not_jobs_are_dropped_and_the_others_kept(pipe, capsys):
    feed, write_end = pipe
    os.write(write_end, b'{"key": "a"}\nnot json\n[1, 2]\n"text"\n\n{"key": "b"}\n')
    assert feed.poll() == [{"key": "a"}, {"key": "b"}]
    # the empty line and "not json" are not JSON; [1, 2] and "text" are JSON but no job, dropped silently
    assert capsys.readouterr().err.count("a job line that is not JSON was dropped") == 2


def test_a_job_longer_than_one_read_comes_whole(pipe):
    """A job carries its files: it can be larger than the feed reads at once (1 MiB)."""
    feed, write_end = pipe
    job = {"key": "big", "data": "x" * (3 << 20)}
    writer = threading.Thread(target=lambda: os.write(write_end, (json.dumps(job) + "\n").encode()))
    writer.start()
    found: list[dict] = []
    while not found:
        found = feed.poll()
    writer.join()
    assert found == [job]


def test_the_feed_ends_when_its_pipe_closes(pipe):
    """The server stops when the worker closes its input: `poll` says so with None, after the last job."""
    feed, write_end = pipe
    os.write(write_end, b'{"key": "last"}\n')
    os.close(write_end)
    assert feed.poll() == [{"key": "last"}]
    assert feed.poll() is None
