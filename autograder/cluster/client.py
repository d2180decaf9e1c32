"""Grading on a Dask cluster, the coordinator's side: one job per notebook out, the results back.

`Cluster` is a Dask client that submits jobs (JSON text carrying their content,
`judge.jobs`) several to a task (`CHUNK`, so the scheduler's and the client's cost per task is
shared by several notebooks, and a notebook's template goes once for all its jobs in the task), in
batches, keeps a bounded number in flight, and yields the results as they come (fetched by Dask's
event loop in its own thread, not waited for by the coordinator's), for the coordinator to record. A task that
fails as a whole has its jobs sent again one to a task, so one notebook that kills its workers
cannot take its neighbours with it. The coordinator stays the only writer of records,
`autograded/` and the gradebook; a task Dask ran twice still has one future, so one result and one
record. The workers' side (their pools, the task itself) is `cluster.worker`.

Security: Dask's messages are pickles, so whoever reaches an unauthenticated scheduler runs code
beside the hidden tests. The coordinator connects over TLS with the certificates set in Dask's
own settings (`distributed.comm.tls.*`, or DASK_DISTRIBUTED__COMM__TLS__CA_FILE and friends) and
refuses an unencrypted address unless the instructor allows it. Results cross as the judges' JSON
text (`worker.answer_text`) and are read with `json.loads`: nothing student code produced is ever unpickled.
"""

from __future__ import annotations

import itertools
import json
import sys
import time

from autograder.config import settings
from autograder.judge.jobs import IDENT, failed_result

SECURE_SCHEMES = ("tls", "wss", "gateway")  # gateway://: Dask Gateway's TLS proxy (needs the dask-gateway package)
INSECURE_SCHEMES = ("tcp", "ws", "ucx", "inproc")


class ClusterError(RuntimeError):
    """The run cannot go on on this cluster; the message says why and what to do. Records stay."""


class ClusterLost(ClusterError):
    """The scheduler went away in the middle of a run."""


def _scheme(address: str) -> str:
    return address.split("://", 1)[0].lower() if "://" in address else "tcp"


def check_address(address: str, *, allow_insecure: bool = False):
    """The `distributed.Security` to reach `address` with, or ClusterError when it is not safe to use."""
    from distributed.security import Security

    scheme = _scheme(address)
    if scheme in SECURE_SCHEMES:
        if scheme == "gateway":
            try:
                import dask_gateway  # noqa: F401  (registers the gateway:// protocol)
            except ImportError:
                raise ClusterError(f"{address} is a Dask Gateway address: install dask-gateway to reach it") from None
        security = Security()
        unset = [
            name
            for name, value in (
                ("distributed.comm.tls.ca-file", security.tls_ca_file),
                ("distributed.comm.tls.client.cert", security.tls_client_cert),
            )
            if not value
        ]
        if unset:
            raise ClusterError(
                f"no TLS certificate to reach {address} with: set {' and '.join(unset)} (and "
                "distributed.comm.tls.client.key) in Dask's configuration, or the environment variables "
                "DASK_DISTRIBUTED__COMM__TLS__CA_FILE, DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT and "
                "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY"
            )
        return security
    if scheme in INSECURE_SCHEMES:
        if not allow_insecure:
            raise ClusterError(
                f"refusing the unencrypted address {address}: Dask's messages are pickles, so whoever can reach an "
                "unauthenticated scheduler runs code on the workers, beside the hidden tests. Use a tls:// address with "
                "certificates (Dask's distributed.comm.tls.* settings), or pass --allow-insecure-cluster on a network "
                "only you can reach"
            )
        return Security()
    raise ClusterError(f"{address}: not a Dask scheduler address (expected tls://HOST:PORT)")


def _task_key(jobs: list[dict]) -> str:
    first = jobs[0]
    more = f"+{len(jobs) - 1}" if len(jobs) > 1 else ""
    return f"autograde-{first['assignment']}-{first['student']}-{first['notebook']}-{first['key'][:16]}{more}"


class Cluster:
    """The coordinator's pool, on a Dask cluster: `run` yields one result per job, `close` lets go."""

    CHUNK = 8  # jobs per task: with the window below, two tasks per worker thread in flight

    def __init__(
        self,
        address: str,
        *,
        allow_insecure: bool = False,
        timeout: float = settings.Autograder.cluster_connect_timeout.default_value,
        check_interval: float = settings.Autograder.cluster_check_interval.default_value,
        stop_timeout: float = settings.Autograder.stop_timeout.default_value,
        environment: tuple[str, ...] = (),
    ) -> None:
        from distributed import Client

        from autograder.cluster.worker import PLUGIN_NAME, PoolPlugin

        security = check_address(address, allow_insecure=allow_insecure)
        if _scheme(address) not in SECURE_SCHEMES:
            print(
                f"WARNING: grading over the unencrypted address {address} (--allow-insecure-cluster)", file=sys.stderr
            )
        self.address = address
        self.check_interval = check_interval  # a run with nothing finished checks the workers this often
        self.stop_timeout = stop_timeout  # for the client to close
        self.environment = list(environment)  # c.Autograder.sandbox_environment, for the workers' pools
        try:
            self.client = Client(address, security=security, timeout=timeout, set_as_default=False)
        except Exception as exc:
            raise ClusterError(
                f"cannot connect to the Dask scheduler at {address}: {type(exc).__name__}: {exc}"
            ) from None
        try:
            self.client.register_plugin(PoolPlugin(), name=PLUGIN_NAME)
        except Exception as exc:
            self.close()
            raise ClusterError(f"the scheduler at {address} did not take the grading pool's plugin: {exc}") from None
        self._window = (0.0, 0)
        self._threads = 1
        self._templates: dict[int, tuple[dict, str, str]] = {}  # id -> (the template, its name, its JSON text)
        self._names = itertools.count()
        self.busy_s = 0.0  # seconds in the Dask client: sending jobs and reading results (not waiting for them)
        self.bytes_moved = (0, 0)  # characters of the tasks' texts sent, of their results' texts received

    def window(self) -> int:
        """How many jobs to keep in flight: enough to queue work for every thread and for a worker that
        joins, and for batches of many jobs when results come back fast (the scheduler queues what no
        thread is free for, and hands it to the first thread that is)."""
        checked, size = self._window
        if time.monotonic() - checked > 5.0:
            try:
                threads = sum(self.client.nthreads().values())
            except Exception:
                threads = 0
            size = max(64, 2 * self.CHUNK * threads)
            self._window = (time.monotonic(), size)
            self._threads = max(1, threads)
        return size

    def chunk(self, jobs: int) -> int:
        """Jobs per task for a batch of `jobs`: `CHUNK`, or fewer when the batch would not give every
        worker thread two tasks (a small class is spread over all of them: Dask may queue two tasks on
        one thread while another has none)."""
        return max(1, min(self.CHUNK, -(-jobs // (2 * self._threads))))

    def run(self, jobs, limits=None):
        """Submit `jobs` (read lazily) and yield each result as it comes back; ClusterError stops the run.

        Jobs go out in batches (one message to the scheduler once a quarter of the window has room),
        `CHUNK` to a task, the jobs of one notebook side by side; a task's result is fetched as soon as
        it is done, in the background, and those fetched since the last look are taken together. The
        texts of the jobs in flight are kept, to send a failed task's jobs again singly."""
        from distributed import as_completed

        source = iter(jobs)
        flying: dict = {}  # future -> its jobs, as `_parts`
        in_flight = 0  # jobs
        alone: list[tuple] = []  # jobs whose task failed, to go again one to a task
        done = as_completed(loop=self.client.loop, with_results=True, raise_errors=False)  # fetched off this thread
        exhausted = False
        idle_since = time.monotonic()
        while True:
            size = self.window()
            room = size - in_flight
            # a batch at a time, not a job
            if (alone or not exhausted) and room > 0 and (room >= size // 4 or not flying or alone):
                chunks = [[job] for job in alone[:room]]
                del alone[: len(chunks)]
                room -= len(chunks)
                # reading jobs: the coordinator's work
                batch = list(itertools.islice(source, room)) if room > 0 and not exhausted else []
                exhausted = exhausted or len(batch) < room
                t0 = time.perf_counter()
                parts = sorted((self._parts(job) for job in batch), key=lambda part: part[2] or "")
                step = self.chunk(len(parts))  # the jobs of one notebook side by side, to share their tasks
                chunks += [parts[i : i + step] for i in range(0, len(parts), step)]
                if chunks:
                    in_flight += self._submit(chunks, flying, done)
                self.busy_s += time.perf_counter() - t0
            if not flying:
                return
            finished = done.next_batch(block=False)
            if not finished:
                if time.monotonic() - idle_since > self.check_interval:
                    self._check_workers()
                    idle_since = time.monotonic()
                time.sleep(0.01)
                continue
            idle_since = time.monotonic()
            t0 = time.perf_counter()
            answers = []
            for future, text in finished:
                if isinstance(text, str):
                    self.bytes_moved = (self.bytes_moved[0], self.bytes_moved[1] + len(text))
                chunk = flying.pop(future)
                in_flight -= len(chunk)
                if future.status == "error" and len(chunk) > 1:
                    alone.extend(chunk)
                else:
                    answers.extend(self._results(future, [part[0] for part in chunk], text))
                future.release()
            self.busy_s += time.perf_counter() - t0
            yield from answers

    def _submit(self, chunks: list[list[tuple]], flying: dict, done) -> int:
        """Send one task for each chunk of jobs, in one message to the scheduler; the number of jobs sent."""
        from autograder.cluster.worker import grade_on_worker, task_text

        tasks = [task_text([part[1:] for part in chunk]) for chunk in chunks]
        self.bytes_moved = (self.bytes_moved[0] + sum(map(len, tasks)), self.bytes_moved[1])
        keys = [_task_key([part[0] for part in chunk]) for chunk in chunks]
        try:
            futures = self.client.map(grade_on_worker, tasks, key=keys, pure=False)
        except Exception as exc:
            raise self._lost(exc) from None
        for future, chunk in zip(futures, chunks):
            flying[future] = chunk
        done.update(futures)
        return sum(len(chunk) for chunk in chunks)

    def _parts(self, job: dict) -> tuple[dict, str, str | None, str | None]:
        """(the job's identity, its JSON text, the name of its template, the template's JSON text). Every job of
        a notebook carries the same template object (`jobs.load` reads it once): its text is made once, and a
        task carries it once for all its jobs of that notebook (the job names it in `template_ref`)."""
        ident = {k: job[k] for k in IDENT}
        job = {**job, "environment": self.environment}  # a pool-level setting: the worker's pool follows it
        template = job.get("template")
        if not isinstance(template, dict):
            return ident, json.dumps(job), None, None
        held = self._templates.get(id(template))
        if held is None or held[0] is not template:
            if len(self._templates) >= 256:
                self._templates.clear()
            held = self._templates[id(template)] = (template, str(next(self._names)), json.dumps(template))
        from autograder.cluster.worker import TEMPLATE_REF

        rest = {k: v for k, v in job.items() if k != "template"}
        rest[TEMPLATE_REF] = held[1]
        return ident, json.dumps(rest), held[1], held[2]

    def _lost(self, exc: BaseException | None = None) -> ClusterLost:
        why = f" ({type(exc).__name__}: {exc})" if exc else ""
        return ClusterLost(
            f"lost the Dask scheduler at {self.address} in the middle of the run (was it restarted?){why}. "
            "Every notebook graded so far is recorded; run the same `autograder grade` again, once the scheduler "
            "and its workers are back, to grade the rest."
        )

    def _check_workers(self) -> None:
        if self.client.status not in ("running", "connecting"):
            raise self._lost()
        try:
            workers = self.client.nthreads()
        except Exception as exc:
            raise self._lost(exc) from None
        if not workers:
            print(f"waiting: the Dask scheduler at {self.address} has no workers", file=sys.stderr)

    def _results(self, future, jobs: list[dict], text) -> list[dict]:
        """The judges' results for a task that is over (one per job, in order), from the text its worker answered."""
        status = future.status
        if status == "cancelled":
            raise self._lost()
        if status == "error":
            from distributed.scheduler import KilledWorker

            exc = future.exception()
            if isinstance(exc, KilledWorker):
                why = (
                    "the Dask workers grading this notebook died every time it was tried "
                    f"({exc.allowed_failures + 1} times); it was given up"
                )
            else:
                why = f"the cluster could not run this notebook's job ({type(exc).__name__})"
            return [failed_result(job, why) for job in jobs]
        from autograder.cluster.worker import answer_results

        answers = answer_results(text) if isinstance(text, str) else None
        if answers is None:
            return [
                failed_result(job, "a worker answered something that is not the grader's JSON result") for job in jobs
            ]
        for answer in answers:
            if isinstance(answer, dict) and "refused" in answer:
                raise ClusterError(str(answer["refused"]))
        out = []
        for index, job in enumerate(jobs):
            result = answers[index] if index < len(answers) else None
            if not isinstance(result, dict):
                out.append(failed_result(job, "a worker answered something that is not the grader's JSON result"))
            elif any(result.get("job" if k == "key" else k) != job[k] for k in IDENT):
                out.append(failed_result(job, "a worker answered for another notebook"))
            else:
                out.append(result)
        return out

    def close(self) -> None:
        try:
            self.client.close(timeout=self.stop_timeout)
        except Exception:
            pass
