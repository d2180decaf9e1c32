"""One grading run over a class: plan the jobs, hand them to a pool, keep each result as it comes.

The run plans one job per notebook (`plan`), reuses each notebook whose record is current, and hands
the rest to a pool: this machine's zygote and judges (`judge.pool.JudgePool`) or a Dask cluster's
(`cluster.client.Cluster`). The coordinator alone writes: first a notebook's record (under
`.autograder/results/`, naming the machine that graded it; `records`), then `autograded/` and the
gradebook (`recorder`), one transaction per batch.
"""

from __future__ import annotations

import collections
import os
import queue
import threading
import time
from pathlib import Path

from tqdm import tqdm

from autograder.config import settings
from autograder.config.limits import Limits
from autograder.coordinator import plan
from autograder.grades import records
from autograder.coordinator.plan import Submission
from autograder.coordinator.recorder import Recorder
from autograder.grades import gradebook
from autograder.judge import jobs
from autograder.judge.pool import JudgePool


READ_AHEAD = 64  # jobs read before the pool asks for them
READ_AHEAD_POLL_S = 0.1  # how often a reader whose queue is full looks whether it was told to stop


def read_ahead(items, depth: int = READ_AHEAD):
    """`items` in order, drawn by a thread of their own up to `depth` ahead, so that reading the submissions'
    files overlaps recording results; an error the items raise is raised here, in its turn."""
    ahead: queue.Queue = queue.Queue(depth)
    stop = threading.Event()
    end = object()

    def offer(entry: tuple) -> bool:
        while not stop.is_set():
            try:
                ahead.put(entry, timeout=READ_AHEAD_POLL_S)
                return True
            except queue.Full:
                continue
        return False

    def fill() -> None:
        try:
            for item in items:
                if not offer((item, None)):
                    return
            offer((end, None))
        except BaseException as exc:  # the reader's own failure, raised where the item would have come
            offer((end, exc))

    thread = threading.Thread(target=fill, name="read-ahead", daemon=True)
    thread.start()
    try:
        while True:
            item, error = ahead.get()
            if item is end:
                if error is not None:
                    raise error
                return
            yield item
    finally:
        stop.set()
        thread.join()


def _outcomes(pool, to_run: list[dict], limits: Limits):
    """(result, keep) for each job as the pool answers; a job whose files the coordinator could not read is
    failed and not kept (no record), so that a re-run tries it again."""
    unreadable: list[dict] = []

    def loaded(planned):
        for job in planned:
            try:
                yield records.retrying(jobs.load, job)
            except OSError as exc:
                unreadable.append(
                    jobs.failed_result(job, f"the grader could not read this notebook's files: {records.one_line(exc)}")
                )

    for result in pool.run(read_ahead(loaded(to_run)), limits):
        while unreadable:
            yield unreadable.pop(), False
        yield result, True
    while unreadable:
        yield unreadable.pop(), False


def _start_pool(
    course_dir: Path,
    jobs_count: int,
    options: settings.Autograder,
    *,
    shared: JudgePool | None,
    cluster: str | None,
    workers: int | None,
    allow_weak_sandbox: bool,
    allow_insecure_cluster: bool,
):
    """The pool a run grades with, and its number of judges (0 on a cluster): the `shared` pool the caller
    started, the Dask cluster at `cluster`, or this machine's zygote and judges, no more than there are jobs."""
    if shared is not None:
        return shared, shared.size
    if cluster:
        from autograder.cluster import client  # Dask is imported only for a run on a cluster

        pool = client.Cluster(
            cluster,
            allow_insecure=allow_insecure_cluster,
            timeout=options.cluster_connect_timeout,
            check_interval=options.cluster_check_interval,
            stop_timeout=options.stop_timeout,
            environment=tuple(options.sandbox_environment),
        )
        return pool, 0
    count = max(1, min(workers or os.cpu_count() or 1, jobs_count))
    threads = max(1, (os.cpu_count() or 1) // count)
    pool = JudgePool(
        course_dir,
        count,
        threads,
        allow_weak_sandbox=allow_weak_sandbox,
        limits=settings.limits(options),
        environment=tuple(options.sandbox_environment),
    )
    return pool, count


def _keep_result(sub: Submission, result: dict, keep: bool, kept: records.RecordWriter) -> dict | None:
    """Write a fresh result's record and put it in its submission; None for a notebook that already has one
    (a job that ran twice). A record that cannot be written fails the notebook, so that a re-run grades it."""
    if result["notebook"] in sub.results:
        return None
    job = sub.jobs[result["notebook"]]
    result.setdefault("worker", "local")
    try:
        if keep:
            kept.add(result)
    except OSError as exc:
        result = jobs.failed_result(job, f"the grader could not write this notebook's record: {records.one_line(exc)}")
    sub.results[result["notebook"]] = result
    return result


def _by_notebook(submissions: list[Submission], key: str) -> dict[str, object]:
    """{student/assignment/notebook: the result's `key`} for every result that has one."""
    return {f"{s.student}/{s.assignment}/{n}": r[key] for s in submissions for n, r in s.results.items() if r.get(key)}


def grade(
    course_dir: Path,
    pairs: list[tuple[str, str]],
    *,
    workers: int | None = None,
    progress: bool = True,
    force: bool = False,
    tests_in_sandbox: bool = False,
    allow_weak_sandbox: bool = False,
    cluster: str | None = None,
    allow_insecure_cluster: bool = False,
    stats: dict | None = None,
    pool: JudgePool | None = None,
) -> dict[tuple[str, str], str]:
    """Grade each (student, assignment) submission; {(student, assignment): "ok" or a one-line reason}.

    Refuses to start (`capabilities.SandboxUnavailable`) on a machine without full confinement unless
    `allow_weak_sandbox`. With `cluster` (a Dask scheduler's address) the notebooks are graded by
    the cluster's workers; `client.ClusterError` stops the run (what was recorded is kept).
    `pool`, a `JudgePool` the caller started and will close, grades without starting one: a grader that
    grades one submission at a time as they arrive pays the zygote's start-up once.
    """
    planning = time.perf_counter()
    course_dir = course_dir.resolve()
    plan.use_course_references(course_dir)
    gradebook.ensure_schema(course_dir)
    options = settings.read(course_dir)
    limits = settings.limits(options)
    state = course_dir / plan.STATE_DIR
    code_hash = jobs.course_code_hash()
    templates, notebooks_of = plan.write_templates(course_dir, state, sorted({a for _, a in pairs}))
    planned = time.perf_counter()  # the run's fixed costs are behind; what follows grows with the class
    submissions = plan.submissions(
        course_dir,
        pairs,
        notebooks_of,
        templates,
        limits=limits,
        code_hash=code_hash,
        tests_in_sandbox=tests_in_sandbox,
        allow_weak_sandbox=allow_weak_sandbox,
    )
    to_run = plan.jobs_to_run(submissions, state, force=force)
    run = _Run(course_dir, state, submissions, options, progress=progress)
    started = time.perf_counter()
    shared, count, startup_s = pool, 0, 0.0
    try:
        run.finish_waiting(to_run)
        if to_run:
            pool, count = _start_pool(
                course_dir,
                len(to_run),
                options,
                shared=shared,
                cluster=cluster,
                workers=workers,
                allow_weak_sandbox=allow_weak_sandbox,
                allow_insecure_cluster=allow_insecure_cluster,
            )
            startup_s = time.perf_counter() - started
            try:
                for result, keep in _outcomes(pool, to_run, limits):
                    run.take(result, keep)
            finally:
                run.pool_done(pool)
                if pool is not shared:
                    pool.close()
        run.finish_all()
    finally:
        run.close()
    if stats is not None:
        stats.update(
            run.stats(to_run),
            seconds=time.perf_counter() - started,
            setup_s=planned - planning,
            plan_s=started - planned,
            startup_s=startup_s if to_run else 0.0,
            workers=count if to_run and not cluster else 0,
        )
    return run.results


class _Run:
    """One run's bookkeeping while its jobs are graded: the results so far, the progress bar, the recorder
    and the coordinator's clock."""

    def __init__(
        self, course_dir: Path, state: Path, submissions: list[Submission], options, *, progress: bool
    ) -> None:
        self.submissions = submissions
        self.records = records.RecordWriter(state)
        self.results: dict[tuple[str, str], str] = {}
        self.by_pair = {(s.student, s.assignment): s for s in submissions}
        self.bar = tqdm(
            total=sum(len(s.jobs) for s in submissions), desc="grade", unit="notebook", disable=not progress
        )
        self.bar.update(sum(len(s.results) for s in submissions))
        self.timings: list[dict] = []
        self.fresh: list[dict] = []
        # the coordinator's own work while jobs are graded (sending, recording), and the gradebook's part
        self.clock = {"gradebook_s": 0.0, "coordinator_s": 0.0}
        self.recorder = Recorder(course_dir, self.clock, wait=options.record_wait)

    def finish_if_done(self, sub: Submission) -> None:
        if len(sub.results) == len(sub.jobs) and (sub.student, sub.assignment) not in self.results:
            self.results[(sub.student, sub.assignment)] = self.recorder.finish(sub)

    def finish_waiting(self, to_run: list[dict]) -> None:
        """Before grading: the submissions refused at planning, and those whose every record was reused."""
        waiting = {id(job) for job in to_run}
        for sub in self.submissions:
            if sub.reason is not None:
                self.results[(sub.student, sub.assignment)] = sub.reason
            elif all(id(job) not in waiting for job in sub.jobs.values()):
                self.finish_if_done(sub)

    def take(self, result: dict, keep: bool) -> None:
        t0 = time.perf_counter()
        sub = self.by_pair[(result["student"], result["assignment"])]
        kept = _keep_result(sub, result, keep, self.records)
        if kept is None:
            return  # a job that ran twice is recorded once
        self.fresh.append(kept)
        notebook = f"{kept['student']}/{kept['assignment']}/{kept['notebook']}"
        self.timings.append(dict(kept.get("timings", {}), notebook=notebook))
        self.bar.update(1)
        self.finish_if_done(sub)
        self.clock["coordinator_s"] += time.perf_counter() - t0

    def pool_done(self, pool) -> None:
        self.clock["pool_s"] = getattr(pool, "busy_s", 0.0)
        self.clock["pool_bytes"] = getattr(pool, "bytes_moved", (0, 0))
        self.clock["coordinator_s"] += self.clock["pool_s"]

    def finish_all(self) -> None:
        """After grading: every submission's status, once its last batch is in the gradebook."""
        for sub in self.submissions:
            self.finish_if_done(sub)
            self.results.setdefault((sub.student, sub.assignment), sub.reason or "not graded")
        t0 = time.perf_counter()
        self.recorder.flush()
        self.recorder.wait()
        self.records.close()
        self.results.update(self.recorder.unwritten)
        self.clock["coordinator_s"] += time.perf_counter() - t0

    def close(self) -> None:
        try:
            self.records.close()
        finally:
            self.recorder.close()
            self.bar.close()

    def stats(self, to_run: list[dict]) -> dict:
        subs = self.submissions
        found = dict(
            ran=len(to_run),
            reused=sum(len(s.jobs) for s in subs) - len(to_run),
            timings=self.timings,
            recorded=len(self.fresh),
            coordinator_s=self.clock["coordinator_s"],
            pool_s=self.clock.get("pool_s", 0.0),
            pool_bytes=self.clock.get("pool_bytes", (0, 0)),
            gradebook_s=self.clock["gradebook_s"],
            graded_by=dict(collections.Counter(r.get("worker", "local") for r in self.fresh)),
            warnings=sorted({w for s in subs for r in s.results.values() for w in r.get("warnings", [])}),
        )
        found.update({key: _by_notebook(subs, key) for key in ("repairs", "failures", "limits", "tampering")})
        return found
