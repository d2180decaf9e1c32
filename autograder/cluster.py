"""Grading on a Dask cluster, the coordinator's side: one job per notebook out, the results back.

`Cluster` is a Dask client that submits each job (JSON text carrying its content,
`autograder/jobs.py`) as one task, in batches, keeps a bounded number in flight, and yields the
results as they come (those finished together fetched together), for the engine to record. The coordinator stays the only writer of records,
`autograded/` and the gradebook; a task Dask ran twice still has one future, so one result and one
record. The workers' side (their pools, the task itself) is `autograder/cluster_worker.py`.

Security: Dask's messages are pickles, so whoever reaches an unauthenticated scheduler runs code
beside the hidden tests. The coordinator connects over TLS with the certificates set in Dask's
own settings (`distributed.comm.tls.*`, or DASK_DISTRIBUTED__COMM__TLS__CA_FILE and friends) and
refuses an unencrypted address unless the instructor allows it. Results cross as the engine's JSON
text and are read with `json.loads`: nothing student code produced is ever unpickled.
"""

from __future__ import annotations

import json
import sys
import time

from autograder.jobs import IDENT, failed_result

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
        unset = [name for name, value in (("distributed.comm.tls.ca-file", security.tls_ca_file),
                                          ("distributed.comm.tls.client.cert", security.tls_client_cert)) if not value]
        if unset:
            raise ClusterError(
                f"no TLS certificate to reach {address} with: set {' and '.join(unset)} (and "
                "distributed.comm.tls.client.key) in Dask's configuration, or the environment variables "
                "DASK_DISTRIBUTED__COMM__TLS__CA_FILE, DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT and "
                "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY")
        return security
    if scheme in INSECURE_SCHEMES:
        if not allow_insecure:
            raise ClusterError(
                f"refusing the unencrypted address {address}: Dask's messages are pickles, so whoever can reach an "
                "unauthenticated scheduler runs code on the workers, beside the hidden tests. Use a tls:// address with "
                "certificates (Dask's distributed.comm.tls.* settings), or pass --allow-insecure-cluster on a network "
                "only you can reach")
        return Security()
    raise ClusterError(f"{address}: not a Dask scheduler address (expected tls://HOST:PORT)")


def _task_key(job: dict) -> str:
    return f"autograde-{job['assignment']}-{job['student']}-{job['notebook']}-{job['key'][:16]}"


class Cluster:
    """The engine's pool, on a Dask cluster: `run` yields one result per job, `close` lets go."""

    WAIT_S = 30.0  # how often a run with nothing finished checks that the cluster still has workers

    def __init__(self, address: str, *, allow_insecure: bool = False, timeout: float = 30.0) -> None:
        from distributed import Client

        from autograder.cluster_worker import PLUGIN_NAME, PoolPlugin

        security = check_address(address, allow_insecure=allow_insecure)
        if _scheme(address) not in SECURE_SCHEMES:
            print(f"WARNING: grading over the unencrypted address {address} (--allow-insecure-cluster)", file=sys.stderr)
        self.address = address
        try:
            self.client = Client(address, security=security, timeout=timeout, set_as_default=False)
        except Exception as exc:
            raise ClusterError(f"cannot connect to the Dask scheduler at {address}: {type(exc).__name__}: {exc}") from None
        try:
            self.client.register_plugin(PoolPlugin(), name=PLUGIN_NAME)
        except Exception as exc:
            self.close()
            raise ClusterError(f"the scheduler at {address} did not take the grading pool's plugin: {exc}") from None
        self._window = (0.0, 0)
        self.busy_s = 0.0  # seconds in the Dask client: sending jobs and reading results (not waiting for them)

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
            size = max(64, 8 * threads)
            self._window = (time.monotonic(), size)
        return size

    def run(self, jobs, limits=None):
        """Submit `jobs` (read lazily) and yield each result as it comes back; ClusterError stops the run.

        Jobs go out in batches (one message to the scheduler once a quarter of the window has room) and
        the results of every task finished since the last look are fetched together."""
        import itertools

        from distributed import as_completed

        from autograder.cluster_worker import grade_on_worker

        source = iter(jobs)
        flying: dict = {}  # future -> the job's identity
        done = as_completed(loop=self.client.loop)
        exhausted = False
        idle_since = time.monotonic()
        while True:
            size = self.window()
            room = size - len(flying)
            if not exhausted and room > 0 and (room >= size // 4 or not flying):  # a batch at a time, not a job
                batch = list(itertools.islice(source, room))  # reading jobs is the engine's work, not the client's
                exhausted = len(batch) < room
                t0 = time.perf_counter()
                if batch:
                    texts = [json.dumps(job) for job in batch]
                    try:
                        futures = self.client.map(grade_on_worker, texts, key=[_task_key(job) for job in batch], pure=False)
                    except Exception as exc:
                        raise self._lost(exc) from None
                    for future, job in zip(futures, batch):
                        flying[future] = {k: job[k] for k in IDENT}
                    done.update(futures)
                self.busy_s += time.perf_counter() - t0
            if not flying:
                return
            finished = done.next_batch(block=False)
            if not finished:
                if time.monotonic() - idle_since > self.WAIT_S:
                    self._check_workers()
                    idle_since = time.monotonic()
                time.sleep(0.01)
                continue
            idle_since = time.monotonic()
            t0 = time.perf_counter()
            ready = [future for future in finished if future.status == "finished"]
            try:
                texts = dict(zip(ready, self.client.gather(ready))) if ready else {}
            except Exception as exc:
                raise self._lost(exc) from None
            answers = []
            for future in finished:
                answers.append(self._result(future, flying.pop(future), texts.get(future)))
                future.release()
            self.busy_s += time.perf_counter() - t0
            yield from answers

    def _lost(self, exc: BaseException | None = None) -> ClusterLost:
        why = f" ({type(exc).__name__}: {exc})" if exc else ""
        return ClusterLost(
            f"lost the Dask scheduler at {self.address} in the middle of the run (was it restarted?){why}. "
            "Every notebook graded so far is recorded; run the same `autograder grade` again, once the scheduler "
            "and its workers are back, to grade the rest.")

    def _check_workers(self) -> None:
        if self.client.status not in ("running", "connecting"):
            raise self._lost()
        try:
            workers = self.client.nthreads()
        except Exception as exc:
            raise self._lost(exc) from None
        if not workers:
            print(f"waiting: the Dask scheduler at {self.address} has no workers", file=sys.stderr)

    def _result(self, future, job: dict, text) -> dict:
        """The engine's result for a task that is over, from the text its worker answered."""
        status = future.status
        if status == "cancelled":
            raise self._lost()
        if status == "error":
            from distributed.scheduler import KilledWorker

            exc = future.exception()
            if isinstance(exc, KilledWorker):
                return failed_result(job, "the Dask workers grading this notebook died every time it was tried "
                                    f"({exc.allowed_failures + 1} times); it was given up")
            return failed_result(job, f"the cluster could not run this notebook's job ({type(exc).__name__})")
        try:
            result = json.loads(text) if isinstance(text, str) else None
        except ValueError:
            result = None
        if not isinstance(result, dict):
            return failed_result(job, "a worker answered something that is not the grader's JSON result")
        if "refused" in result:
            raise ClusterError(str(result["refused"]))
        if any(result.get("job" if k == "key" else k) != job[k] for k in IDENT):
            return failed_result(job, "a worker answered for another notebook")
        return result

    def close(self) -> None:
        try:
            self.client.close(timeout=10)
        except Exception:
            pass
