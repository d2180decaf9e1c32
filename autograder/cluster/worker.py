"""Grading on a Dask cluster, the workers' side: a warm pool per worker, and the task that uses it.

`PoolPlugin` is registered once on the scheduler; it starts on every worker (those that join later
too) a warm pool in a process tree of its own (`python -m autograder.cluster.pool_server`): the Dask
worker is threaded, and no process is forked from it. The task `grade_on_worker` hands its jobs (a
few notebooks per task, so the scheduler's cost per task is shared) to that pool one after another and
returns the judges' JSON results as one text, each naming the worker. A worker refuses jobs
(and the coordinator stops the run, `autograder/cluster.py`) when it lacks a confinement layer and
the instructor did not allow a weak sandbox, when its pool did not start, or when it runs other
grader code than the coordinator.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading

from distributed import WorkerPlugin

from autograder.config.limits import as_dict, from_dict
from autograder.judge.jobs import IDENT, failed_result

PLUGIN_NAME = "autograder-pool"
POOL_LIMITS = ("judge_memory_mb", "stop_timeout", "pool_start_timeout")  # applied by the pool, not per job
POOL_STOP_TIMEOUT = 30.0  # for the pool's process to exit when its worker closes
POLL_S = 5.0  # how often a job waiting for its answer checks that the pool is alive


class _PoolProcess:
    """One `cluster.pool_server` process and the jobs waiting on its answers."""

    def __init__(self, workers: int, threads: int, settings: str) -> None:
        self.settings = settings  # `pool_settings` text: the pool server's --limits and --environment
        chosen = json.loads(settings)
        argv = [
            sys.executable,
            "-m",
            "autograder.cluster.pool_server",
            "--workers",
            str(workers),
            "--threads",
            str(threads),
            "--limits",
            json.dumps(chosen["limits"]),
            "--environment",
            ",".join(chosen["environment"]),
        ]
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=tempfile.gettempdir(), text=True, encoding="utf-8"
        )
        self.hello: dict | None = None
        self.ready = threading.Event()
        self.lock = threading.Lock()
        self.write_lock = threading.Lock()
        self.waiters: dict[tuple, list[queue.SimpleQueue]] = {}
        threading.Thread(target=self._read, name="autograder-pool-reader", daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if self.hello is None:
                self.hello = (
                    message if isinstance(message, dict) else {"error": "the grading pool said nothing sensible"}
                )
                self.ready.set()
                continue
            ident = tuple(message.get("job" if k == "key" else k) for k in IDENT)
            with self.lock:
                waiting = self.waiters.get(ident)
                answer = waiting.pop(0) if waiting else None
                if waiting == []:
                    del self.waiters[ident]
            if answer is not None:
                answer.put(message)
        if self.hello is None:
            self.hello = {"error": f"the grading pool stopped while starting (exit status {self.proc.wait()})"}
        self.ready.set()
        with self.lock:
            stranded = [answer for waiting in self.waiters.values() for answer in waiting]
            self.waiters.clear()
        for answer in stranded:
            answer.put(None)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def grade(self, job: dict, text: str) -> dict | None:
        """The result of one job; None when the pool stopped before answering."""
        ident = tuple(job[k] for k in IDENT)
        answer: queue.SimpleQueue = queue.SimpleQueue()
        with self.lock:
            self.waiters.setdefault(ident, []).append(answer)
        try:
            with self.write_lock:
                self.proc.stdin.write(text + "\n")
                self.proc.stdin.flush()
        except OSError:
            with self.lock:
                waiting = self.waiters.get(ident, [])
                if answer in waiting:
                    waiting.remove(answer)
            return None
        while True:
            try:
                return answer.get(timeout=POLL_S)
            except queue.Empty:
                if not self.alive():
                    return None

    def stop(self, timeout: float = POOL_STOP_TIMEOUT) -> None:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class PoolHost:
    """A worker's grading pool: started once, started again if it stopped or a course asks for other pool settings."""

    def __init__(self, *, workers: int, threads: int, name: str) -> None:
        self.workers, self.threads, self.name = workers, threads, name
        self.lock = threading.Lock()
        self.current: _PoolProcess | None = None

    def process(self, settings: str | None = None) -> _PoolProcess:
        """The running pool, started (again) when it stopped or when a job asks for other pool settings
        (a job still in flight on the pool it replaces fails with a reason naming this worker)."""
        settings = settings or pool_settings({})
        with self.lock:
            old = self.current
            if old is not None and old.alive() and old.settings == settings:
                return old
            new = self.current = _PoolProcess(self.workers, self.threads, settings)
        if old is not None and old.alive():
            threading.Thread(target=old.stop, name="autograder-pool-stop", daemon=True).start()
        return new

    def grade(self, text: str) -> str:
        """The JSON result of one job (JSON text), naming this worker; or why it refuses the job."""
        job = json.loads(text)
        pool = self.process(pool_settings(job))
        wait = from_dict(job.get("limits", {})).pool_start_timeout  # the course's c.Autograder.pool_start_timeout
        if pool.ready.wait(wait):
            refused = refusal(pool.hello or {}, job, self.name)
        else:
            refused = f"worker {self.name}: its grading pool did not start within {wait:g} s"
        if refused:
            return json.dumps({"refused": refused, "worker": self.name})
        result = pool.grade(job, text)
        if result is None:
            result = failed_result(job, f"the grading pool of worker {self.name} stopped while grading this notebook")
        result["worker"] = self.name
        return json.dumps(result)

    def stop(self) -> None:
        with self.lock:
            current, self.current = self.current, None
        if current is not None:
            current.stop()


def pool_settings(job: dict) -> str:
    """The settings a job's course gives the pool itself (not each notebook), as canonical JSON text: the
    limits the pool applies (`POOL_LIMITS`) and the names of `c.Autograder.sandbox_environment`."""
    limits = as_dict(from_dict(job.get("limits") or {}))
    environment = job.get("environment") or []
    return json.dumps(
        {"limits": {name: limits[name] for name in POOL_LIMITS}, "environment": sorted(map(str, environment))},
        sort_keys=True,
    )


def refusal(hello: dict, job: dict, name: str) -> str | None:
    """Why the worker `name`, whose pool introduced itself with `hello`, may not grade `job`; None if it may."""
    if hello.get("error"):
        return f"worker {name}: {hello['error']}"
    if hello.get("code") != job.get("code"):
        return (
            f"worker {name} runs other grader code (the autograder and course packages) than the "
            "coordinator: install the same version of the course on every worker"
        )
    if hello.get("missing") and not job.get("allow_weak_sandbox"):
        return (
            f"worker {name} refuses to run student code: it lacks "
            + "; ".join(hello["missing"])
            + ". Give every worker full confinement (see `autograder sandbox-check` there), or pass "
            "--allow-weak-sandbox to grade anyway"
        )
    return None


class PoolPlugin(WorkerPlugin):
    """Starts each worker's grading pool when the worker starts (or when the plugin is registered)."""

    idempotent = True  # a second coordinator's registration leaves the running pools alone
    name = PLUGIN_NAME

    def setup(self, worker) -> None:
        nthreads = max(1, int(worker.state.nthreads))
        self.host = PoolHost(workers=nthreads, threads=max(1, (os.cpu_count() or 1) // nthreads), name=str(worker.name))
        self.host.process()

    async def teardown(self, worker) -> None:
        import asyncio

        host = getattr(self, "host", None)
        if host is not None:
            await asyncio.get_running_loop().run_in_executor(None, host.stop)


TEMPLATE_REF = "template_ref"  # in a task, the key by which a job names its template


def task_text(jobs: list[tuple[str, str | None, str | None]]) -> str:
    """A task's JSON text, from its jobs as (the job's JSON text, naming its template in `template_ref`, that
    name, the template's JSON text) or (the whole job's JSON text, None, None): {"templates": {name:
    template}, "jobs": [job, ...]}, each template once however many of the task's jobs share it."""
    templates = {name: template for _, name, template in jobs if name is not None}
    return (
        '{"templates": {'
        + ", ".join(f"{json.dumps(name)}: {template}" for name, template in templates.items())
        + '}, "jobs": ['
        + ", ".join(job for job, _, _ in jobs)
        + "]}"
    )


def task_jobs(text: str) -> list[str]:
    """The JSON texts of the jobs of a task (`task_text`), each with its template in place."""
    task = json.loads(text)
    templates = {name: json.dumps(template) for name, template in task["templates"].items()}
    texts = []
    for job in task["jobs"]:
        name = job.pop(TEMPLATE_REF, None)
        rest = json.dumps(job)
        if name is not None:
            rest = rest[:-1] + (", " if rest != "{}" else "") + '"template": ' + templates[name] + "}"
        texts.append(rest)
    return texts


def answer_text(results: list) -> str:
    """A task's answer: a first line, the JSON of [the results without their notebooks, each notebook's length
    (None for a result without one)], then the notebooks' JSON texts one after another. A notebook crosses as
    it is, not escaped inside another JSON text, so the coordinator takes it without parsing it."""
    kept, lengths, notebooks = [], [], []
    for result in results:
        notebook = result.get("notebook_json") if isinstance(result, dict) else None
        if isinstance(notebook, str):
            result = {k: v for k, v in result.items() if k != "notebook_json"}
            notebooks.append(notebook)
            lengths.append(len(notebook))
        else:
            lengths.append(None)
        kept.append(result)
    return json.dumps([kept, lengths]) + "\n" + "".join(notebooks)


def answer_results(text: str) -> list | None:
    """The results of a task's answer (`answer_text`), each notebook back in its place; None for a text that
    is not such an answer."""
    head, newline, notebooks = text.partition("\n")
    try:
        results, lengths = json.loads(head) if newline else (None, None)
    except (ValueError, TypeError):
        return None
    if not isinstance(results, list) or not isinstance(lengths, list) or len(results) != len(lengths):
        return None
    at = 0
    for result, length in zip(results, lengths):
        if length is None:
            continue
        if not isinstance(result, dict) or type(length) is not int or not 0 <= length <= len(notebooks) - at:
            return None
        result["notebook_json"] = notebooks[at : at + length]
        at += length
    return results if at == len(notebooks) else None


def grade_on_worker(text: str) -> str:
    """The Dask task: grade its jobs (`task_jobs`) in this worker's pool, one after another; their
    results as one answer (`answer_text`), in the same order. A refusal ends the task (the coordinator
    stops the run). Never raises."""
    name = "?"
    try:
        from distributed import get_worker

        worker = get_worker()
        name = str(worker.name)
        plugin = worker.plugins.get(PLUGIN_NAME)
        if plugin is None:
            return answer_text(
                [{"refused": f"worker {name} has no grading pool (its plugin is missing)", "worker": name}]
            )
        results = []
        for job_text in task_jobs(text):
            answer = json.loads(plugin.host.grade(job_text))
            results.append(answer)
            if isinstance(answer, dict) and "refused" in answer:
                break
        return answer_text(results)
    except Exception as exc:
        return answer_text([{"refused": f"worker {name} failed to grade: {type(exc).__name__}: {exc}", "worker": name}])
