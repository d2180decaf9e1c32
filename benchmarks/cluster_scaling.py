"""Grading on a Dask cluster, measured on this machine: what workers add, what the coordinator costs.

    python benchmarks/cluster_scaling.py [--students N] [--lessons ID ...] [--notebooks N]

Starts the real parts on 127.0.0.1: PostgreSQL (the gradebook), a TLS-secured Dask scheduler and
worker processes, each worker with one thread (one notebook at a time). Builds the synthetic class
of benchmarks/grading_speed.py, releases it once into a PostgreSQL database that every run copies,
then grades it with one worker, and again with two. The workers' pools are started and warmed
before the clock starts; their start-up time is printed on its own. Prints:

- throughput with one and with two workers (notebooks per second, pools warm);
- the coordinator's cost per notebook: the seconds of its own serial work (planning, sending jobs,
  reading results, records, autograded/, the gradebook), the CPU seconds of its process (the Dask
  client's thread included), and PostgreSQL's share (the gradebook writes);
- the throughput ceiling that cost sets, however many workers there are (one over the serial
  seconds per notebook);
- the wall time that implies for a class of --notebooks notebooks (default 50,000) on N machines of
  16 cores, each core grading at the one-worker rate measured here.

Checks that both runs give every item the same score. Every server is stopped at the end.
"""

from __future__ import annotations

import argparse
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

from autograder import cluster as cluster_mod, commands, gradebook  # noqa: E402
from grading_speed import build_class  # noqa: E402
from tests.conftest import copy_course, use_gradebook  # noqa: E402
from tests.servers import DaskCluster, PostgreSQL, make_certificates, tls_config  # noqa: E402

MACHINE_CORES = 16
MACHINES = (1, 2, 4, 8, 16, 32, 64)


async def _pool_ready(dask_worker, timeout: float = 600.0) -> bool:
    """On a worker (`Client.run`): wait, off its event loop, until its grading pool has started."""
    import asyncio

    from autograder.cluster_worker import PLUGIN_NAME

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


def timed_run(released: Path, pg: PostgreSQL, work: Path, name: str, address: str) -> dict:
    course = Path(shutil.copytree(released, work / name))
    use_gradebook(course, pg.create_database(name, template="bench_released"))
    stats: dict = {}
    cpu, wall = time.process_time(), time.perf_counter()
    results = commands.grade(course, cluster=address, progress=False, stats=stats)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    failed = {k: v for k, v in results.items() if v != "ok"}
    if failed:
        raise SystemExit(f"{name}: {len(failed)} submissions not graded, e.g. {next(iter(failed.items()))}")
    return {"notebooks": stats["ran"], "wall": wall, "cpu": cpu, "serial": stats["coordinator_s"], "plan": stats["plan_s"],
            "gradebook": stats["gradebook_s"], "by": stats["graded_by"], "scores": gradebook.score_table(course)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=8, help="students in the synthetic class (default 8)")
    parser.add_argument("--lessons", nargs="*", default=["01_tensors", "02_dtype", "04_numpy"], help="lessons to grade")
    parser.add_argument("--notebooks", type=int, default=50_000, help="class size for the projection (default 50,000)")
    args = parser.parse_args(argv)
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    work = Path(tempfile.mkdtemp(prefix="cluster-scaling-"))
    pg = PostgreSQL()
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
    finally:
        if dask_cluster is not None:
            dask_cluster.stop()
        pg.stop()
        shutil.rmtree(work, ignore_errors=True)

    one, two = runs[1], runs[2]
    if one["scores"] != two["scores"]:
        raise SystemExit("the one-worker and two-worker runs gave different scores")
    items = sum(len(v) for v in one["scores"].values())
    n = one["notebooks"]
    rate = {k: r["notebooks"] / r["wall"] for k, r in runs.items()}
    serial = max(r["serial"] / r["notebooks"] for r in runs.values())
    plan = max(r["plan"] / r["notebooks"] for r in runs.values())
    cpu = max(r["cpu"] / r["notebooks"] for r in runs.values())
    pg_write = max(r["gradebook"] / r["notebooks"] for r in runs.values())
    ceiling = 1.0 / serial
    print(f"Class: {args.students} students x {len(args.lessons)} lessons = {n} notebooks; "
          f"this machine: {os.cpu_count()} cores, each Dask worker 1 thread; gradebook on PostgreSQL")
    print(f"Pool start-up: first worker {start_one:.1f} s; second worker {start_two:.1f} s (before the clock starts)")
    print(f"1 worker : {n} notebooks in {one['wall']:.1f} s = {rate[1]:.2f} notebooks/s  (graded by {one['by']})")
    print(f"2 workers: {n} notebooks in {two['wall']:.1f} s = {rate[2]:.2f} notebooks/s  (graded by {two['by']}; "
          f"{rate[2] / rate[1]:.2f}x)")
    print(f"Coordinator per notebook: {serial * 1000:.1f} ms of serial work while grading (sending the job, recording "
          f"the result, autograded/, the gradebook; PostgreSQL writes {pg_write * 1000:.1f} ms of it), "
          f"{plan * 1000:.1f} ms planning before the first job, {cpu * 1000:.1f} ms CPU of its process in all")
    print(f"Ceiling: one coordinator records at most {ceiling:.0f} notebooks/s ({3600 * ceiling:,.0f} an hour), "
          "however many workers")
    print(f"Scores: identical in both runs ({items} item scores)")
    per_core = rate[1]
    print(f"\nProjection for {args.notebooks:,} notebooks on N machines of {MACHINE_CORES} cores "
          f"(each core at the one-worker rate above, {per_core:.2f} notebooks/s; capped by the ceiling):")
    print(f"{'N':>4}  {'cores':>6}  {'notebooks/s':>11}  {'bound by':>11}  {'wall time':>10}")
    for machines in MACHINES:
        cores = machines * MACHINE_CORES
        workers_rate = cores * per_core
        throughput = min(workers_rate, ceiling)
        seconds = args.notebooks * plan + args.notebooks / throughput + start_one
        bound = "workers" if workers_rate < ceiling else "coordinator"
        print(f"{machines:>4}  {cores:>6}  {throughput:>11.1f}  {bound:>11}  {_duration(seconds):>10}")
    print(f"(wall time = planning, {plan * 1000:.1f} ms a notebook, + notebooks / throughput + one pool start-up, {start_one:.0f} s; "
          f"the coordinator becomes the limit from {math.ceil(ceiling / per_core / MACHINE_CORES)} machines)")
    return 0


def _duration(seconds: float) -> str:
    hours, rest = divmod(int(round(seconds)), 3600)
    return f"{hours} h {rest // 60:02d} min" if hours else f"{rest // 60} min {rest % 60:02d} s"


if __name__ == "__main__":
    sys.exit(main())
