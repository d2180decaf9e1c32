"""Grading on a Dask cluster, measured on this machine: what workers add, what the coordinator costs.

    python benchmarks/cluster_scaling.py [--students N] [--lessons ID ...] [--copies N] [--repeats N] [--notebooks N]

Starts the real parts on 127.0.0.1: PostgreSQL (the gradebook, every commit flushed to disk as by
default), a TLS-secured Dask scheduler and worker processes, each worker with one thread (one
notebook at a time). Builds the synthetic class of benchmarks/grading_speed.py, releases it once
into a PostgreSQL database that every run copies, then grades it with one worker, and again with
two. The workers' pools are started and warmed before the clock starts; their start-up time is
printed on its own.

The coordinator's cost is measured apart from the graders, on a class --copies times larger (each
student handed in again under new names), with the one-worker run's results replayed (each job
answered at once with the result a worker gave that student's original):

- through the real coordinator alone (`autograder grade`, with a stand-in for the pool): its wall
  time is the coordinator's own work after planning: reading each job's files, records,
  autograded/ and the PostgreSQL gradebook;
- through the real Dask cluster (the workers' pools replaced by the same stand-in): the seconds
  the coordinator spends in the Dask client (sending jobs, reading results) are its share.

Each of these is run --repeats times (default 3) and the median run is the one used: on this machine
one run's figure can differ from the next by a tenth (the file system, the host); every run's figure is
printed.

Prints:

- throughput with one and with two workers (notebooks per second, pools warm);
- the coordinator's cost per notebook, PostgreSQL's part of it and the Dask client's share, and
  the ceiling they set on notebooks per second however many workers there are; and the CPU the
  coordinator's process spent per notebook in all its threads, the work beside its main loop included;
- the wall time that implies for a class of --notebooks notebooks (default 50,000) on N machines of
  16 cores, each core grading at the one-worker rate measured here.

Each run starts once what was written before it (the class copied, the runs before) is on the disk, so
that the kernel's throttling of the writes left over from them is not counted in it.

Checks that every run gives every item the same score. Every server is stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

import dask  # noqa: E402
from distributed import WorkerPlugin  # noqa: E402

from autograder.cluster import client as cluster_mod  # noqa: E402
from autograder import commands  # noqa: E402
from autograder.grades import gradebook, records  # noqa: E402
from autograder.coordinator import grader  # noqa: E402
from autograder.cluster.worker import PLUGIN_NAME  # noqa: E402
from grading_speed import build_class  # noqa: E402
from tests.conftest import copy_course, use_gradebook  # noqa: E402
from tests.support.servers import DaskCluster, PostgreSQL, make_certificates, tls_config  # noqa: E402

MACHINE_CORES = 16
MACHINES = (1, 2, 4, 8, 16, 32, 64)


async def _pool_ready(dask_worker, timeout: float = 600.0) -> bool:
    """On a worker (`Client.run`): wait, off its event loop, until its grading pool has started."""
    import asyncio

    return await asyncio.to_thread(dask_worker.plugins[PLUGIN_NAME].host.process().ready.wait, timeout)


def warm(address: str, workers: int) -> float:
    """Register the pool plugin (as a run does) and wait until every worker's pool is up; seconds taken."""
    started = time.perf_counter()
    coordinator = cluster_mod.Cluster(address)
    try:
        coordinator.client.wait_for_workers(workers, timeout=300)
        assert all(coordinator.client.run(_pool_ready).values()), "a worker's pool did not start"
    finally:
        coordinator.close()
    return time.perf_counter() - started


COPY = "-copy"


class Replay:
    """Stands in for the graders: answers each job at once with the result a worker gave for the
    job's student (or the student a copy was made from)."""

    def __init__(self, answers: dict) -> None:
        self.answers = answers

    def run(self, jobs, limits=None):
        for job in jobs:
            answer = dict(self.answers[(job["student"].split(COPY)[0], job["assignment"], job["notebook"])])
            answer.update(job=job["key"], student=job["student"])
            yield answer

    def close(self) -> None:
        pass


class ReplayHost:
    """On a Dask worker, in place of its grading pool: `Replay`'s answers, as the pool's JSON text."""

    def __init__(self, answers: dict) -> None:
        self.answers = answers

    def grade(self, text: str) -> str:
        job = json.loads(text)
        answer = next(Replay(self.answers).run([job]))
        answer["worker"] = "replay"
        return json.dumps(answer)


class ReplayPlugin(WorkerPlugin):
    """Replaces each worker's grading pool plugin (the same name) with a `ReplayHost`."""

    name = PLUGIN_NAME

    def __init__(self, answers: dict) -> None:
        self.answers = answers

    def setup(self, worker) -> None:
        self.host = ReplayHost(self.answers)


def recorded_answers(course: Path) -> dict:
    answers = {}
    for path in (course / ".autograder" / "results").rglob("*.json"):
        record = records.parse_record(path.read_text(encoding="utf-8"))
        answers[(record["student"], record["assignment"], record["notebook"])] = record
    return answers


def timed_run(
    released: Path,
    pg: PostgreSQL,
    work: Path,
    name: str,
    address: str | None,
    *,
    replay: Path | None = None,
    copies: int = 1,
) -> dict:
    """Grade a fresh copy of the class handed in `copies` times, on the cluster at `address` (or on
    the coordinator alone, answering each job with the results recorded in `replay`)."""
    course = Path(shutil.copytree(released, work / name))
    use_gradebook(course, pg.create_database(name, template="bench_released"))
    for folder in sorted((course / "submitted").iterdir()):
        for copy in range(1, copies):
            shutil.copytree(folder, folder.with_name(f"{folder.name}{COPY}{copy}"))
    stats: dict = {}
    original = grader.JudgePool
    if replay is not None:
        answers = recorded_answers(replay)
        grader.JudgePool = lambda *args, **kwargs: Replay(answers)
    os.sync()  # what this run's set-up and the runs before it wrote goes to the disk before the clock starts
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        results = commands.grade(course, cluster=address, local=address is None, progress=False, stats=stats)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        grader.JudgePool = original
    failed = {k: v for k, v in results.items() if v != "ok"}
    if failed:
        raise SystemExit(f"{name}: {len(failed)} submissions not graded, e.g. {next(iter(failed.items()))}")
    return {
        "course": course,
        "notebooks": stats["ran"],
        "wall": wall,
        "loop": stats["seconds"],
        "cpu": cpu,
        "serial": stats["coordinator_s"],
        "plan": stats["plan_s"],
        "setup": stats["setup_s"],
        "client": stats["pool_s"],
        "gradebook": stats["gradebook_s"],
        "bytes": stats["pool_bytes"],
        "by": stats["graded_by"],
        "scores": gradebook.score_table(course),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=8, help="students in the synthetic class (default 8)")
    parser.add_argument("--lessons", nargs="*", default=["01_tensors", "02_dtype", "04_numpy"], help="lessons to grade")
    parser.add_argument(
        "--copies",
        type=int,
        default=100,
        help="the class size, as a multiple, for measuring the coordinator (default 100)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="runs of each replay, the median one used (default 3)")
    parser.add_argument("--notebooks", type=int, default=50_000, help="class size for the projection (default 50,000)")
    args = parser.parse_args(argv)
    if min(args.students, args.copies, args.repeats, args.notebooks) < 1:
        parser.error("--students, --copies, --repeats and --notebooks take a whole number of at least 1")
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    work = Path(tempfile.mkdtemp(prefix="cluster-scaling-"))
    load_before = os.getloadavg()[0]
    pg = PostgreSQL(durable=True)  # as in production: every commit waits for the disk
    dask_cluster = None
    try:
        released = copy_course(work / "released")
        use_gradebook(released, pg.create_database("bench_released"))
        commands.release(released, assignments=args.lessons, progress=False)
        build_class(released, args.lessons, args.students)
        certs = make_certificates(work / "certs")
        dask_cluster = DaskCluster(certs, work / "logs")
        runs = {}
        with dask.config.set(tls_config(certs)):
            dask_cluster.start_worker("w1")
            start_one = warm(dask_cluster.address, 1)
            runs[1] = timed_run(released, pg, work, "one_worker", dask_cluster.address)
            dask_cluster.start_worker("w2")
            start_two = warm(dask_cluster.address, 2)
            runs[2] = timed_run(released, pg, work, "two_workers", dask_cluster.address)
            coordinator = cluster_mod.Cluster(dask_cluster.address)
            try:
                coordinator.client.register_plugin(ReplayPlugin(recorded_answers(runs[1]["course"])), name=PLUGIN_NAME)
            finally:
                coordinator.close()
            on_dask = [
                timed_run(released, pg, work, f"replayed_on_dask{i}", dask_cluster.address, copies=args.copies)
                for i in range(args.repeats)
            ]
        dask_cluster.stop()
        alone_runs = [
            timed_run(released, pg, work, f"replayed{i}", None, replay=runs[1]["course"], copies=args.copies)
            for i in range(args.repeats)
        ]
    finally:
        if dask_cluster is not None:
            dask_cluster.stop()
        pg.stop()
        shutil.rmtree(work, ignore_errors=True)

    one, two = runs[1], runs[2]
    for run in (*alone_runs, *on_dask):
        like_originals = all(v == one["scores"].get((a, s.split(COPY)[0])) for (a, s), v in run["scores"].items())
        if not like_originals or len(run["scores"]) != args.copies * len(one["scores"]):
            raise SystemExit("the replayed runs gave other scores than the workers")
    alone = median_run(alone_runs, "loop")
    through_dask = median_run(on_dask, "client")
    if one["scores"] != two["scores"]:
        raise SystemExit("the runs gave different scores")
    items = sum(len(v) for v in one["scores"].values())
    n = one["notebooks"]
    rate = {k: r["notebooks"] / r["wall"] for k, r in runs.items()}
    m = alone["notebooks"]
    own = alone["loop"] / m  # the coordinator's own work per notebook, no grader competing for the CPU
    pg_write = alone["gradebook"] / m
    client = through_dask["client"] / through_dask["notebooks"]
    plan = alone["plan"] / m  # planning that grows with the class (each submission's files and records)
    setup = alone["setup"]  # and what a run pays once (the schema, the templates, the course's code hash)
    ceiling = 1.0 / (own + client)
    print(
        f"Class: {args.students} students x {len(args.lessons)} lessons = {n} notebooks; "
        f"this machine: {os.cpu_count()} cores, each Dask worker 1 thread; gradebook on PostgreSQL (default durability)"
    )
    print(f"Load average (1 min) on this machine: {load_before:.1f} before the runs, {os.getloadavg()[0]:.1f} after")
    print(f"Pool start-up: first worker {start_one:.1f} s; second worker {start_two:.1f} s (before the clock starts)")
    print(f"1 worker : {n} notebooks in {one['wall']:.1f} s = {rate[1]:.2f} notebooks/s  (graded by {one['by']})")
    print(
        f"2 workers: {n} notebooks in {two['wall']:.1f} s = {rate[2]:.2f} notebooks/s  (graded by {two['by']}; "
        f"{rate[2] / rate[1]:.2f}x)"
    )
    print(
        f"Coordinator alone ({m} notebooks, results replayed at once): {own * 1000:.2f} ms per notebook "
        f"({each_run(alone_runs, 'loop')}), of which "
        f"PostgreSQL's writes {pg_write * 1000:.2f} ms (in the writer thread, beside the rest); planning before the first job "
        f"{setup:.1f} s once and {plan * 1000:.2f} ms per notebook"
    )
    print(
        f"Dask client's share ({through_dask['notebooks']} notebooks replayed through the scheduler and both workers): "
        f"{client * 1000:.2f} ms per notebook ({each_run(on_dask, 'client')}); that run, scheduler and workers on the same cores: "
        f"{through_dask['notebooks'] / through_dask['loop']:.0f} notebooks/s; {cluster_mod.Cluster.CHUNK} notebooks a task, "
        f"{through_dask['bytes'][0] / through_dask['notebooks'] / 1e3:.0f} kB out and {through_dask['bytes'][1] / through_dask['notebooks'] / 1e3:.0f} kB "
        "back per notebook"
    )
    print(
        f"The coordinator's process, all its threads (writers, Dask's event loop fetching results): "
        f"{alone['cpu'] / m * 1000:.2f} ms of CPU per notebook alone, "
        f"{through_dask['cpu'] / through_dask['notebooks'] * 1000:.2f} ms through Dask"
    )
    print(
        f"While two workers grade on the same cores: {two['serial'] / n * 1000:.1f} ms of coordinator work per notebook "
        f"(PostgreSQL {two['gradebook'] / n * 1000:.1f} ms)"
    )
    print(
        f"Ceiling: one coordinator records at most {ceiling:.0f} notebooks/s ({3600 * ceiling:,.0f} an hour), "
        f"1 / ({own * 1000:.2f} + {client * 1000:.2f}) ms, however many workers"
    )
    print(
        f"Scores: identical in all {2 + 2 * args.repeats} runs ({items} item scores, and every copy's like its original's)"
    )
    per_core = rate[1]
    print(
        f"\nProjection for {args.notebooks:,} notebooks on N machines of {MACHINE_CORES} cores "
        f"(each core at the one-worker rate above, {per_core:.2f} notebooks/s; capped by the ceiling):"
    )
    print(f"{'N':>4}  {'cores':>6}  {'notebooks/s':>11}  {'bound by':>11}  {'wall time':>10}")
    for machines in MACHINES:
        cores = machines * MACHINE_CORES
        workers_rate = cores * per_core
        throughput = min(workers_rate, ceiling)
        seconds = setup + args.notebooks * plan + args.notebooks / throughput + start_one
        bound = "workers" if workers_rate < ceiling else "coordinator"
        print(f"{machines:>4}  {cores:>6}  {throughput:>11.1f}  {bound:>11}  {_duration(seconds):>10}")
    limit = math.ceil(ceiling / per_core / MACHINE_CORES)
    print(
        f"(wall time = planning, {setup:.1f} s + {plan * 1000:.1f} ms a notebook, + notebooks / throughput + one pool start-up, {start_one:.0f} s; "
        f"the coordinator is the limit from {limit} machine{'s' if limit > 1 else ''} on)"
    )
    return 0


def median_run(runs: list[dict], key: str) -> dict:
    """The run whose seconds per notebook in `key` are the median (the lower of the middle two)."""
    return sorted(runs, key=lambda r: r[key] / r["notebooks"])[(len(runs) - 1) // 2]


def each_run(runs: list[dict], key: str) -> str:
    """Every run's seconds per notebook in `key`, in ms, in the order they ran."""
    return f"median of {len(runs)}: " + ", ".join(f"{r[key] / r['notebooks'] * 1000:.2f}" for r in runs)


def _duration(seconds: float) -> str:
    hours, rest = divmod(int(round(seconds)), 3600)
    return f"{hours} h {rest // 60:02d} min" if hours else f"{rest // 60} min {rest % 60:02d} s"


if __name__ == "__main__":
    sys.exit(main())
