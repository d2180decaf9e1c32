"""The Dask worker's side of grading (`cluster.worker`): which hello makes a worker refuse a job, and why first
when several reasons hold; `PoolHost` with a real pool process grading a tiny course's jobs, answering in the
worker's name, refusing a job planned with other grader code, and replacing a pool that died (the job it was
grading fails with a reason, the next one is graded); and `grade_on_worker` as a task on a one-worker
`distributed.LocalCluster` with `PoolPlugin` registered: results in order naming the worker, a task cut short
at its first refusal, a pool killed between tasks replaced for the next, and no pool left once the cluster closes.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import signal

import pytest

from autograder.authoring import samples
from autograder.cluster import worker as cluster_worker
from autograder.cluster.worker import (
    PLUGIN_NAME,
    PoolHost,
    PoolPlugin,
    answer_results,
    grade_on_worker,
    refusal,
    task_text,
)
from autograder.config.limits import Limits, as_dict
from autograder.sandbox import capabilities
from tests.autograder.cluster.test_pool_server import (
    descendants,
    kill_left,
    planned_jobs,
    running,
    scores,
    started_at,
    wait_for,
)
from tests.autograder.coordinator.test_grader import FULL, LESSON, TINY, edit_cell, make_course, notebooks

needs_confinement = pytest.mark.skipif(
    bool(capabilities.missing_mechanisms()),
    reason="this machine lacks confinement: " + "; ".join(capabilities.missing_mechanisms()),
)
OTHER_CODE = "0" * 64


# ---------------------------------------------------------------- refusals


GOOD = {"ready": True, "pid": 1, "code": "c", "missing": []}


@pytest.mark.parametrize(
    "hello, job, expected",
    [
        pytest.param(GOOD, {"code": "c"}, None, id="a good hello"),
        pytest.param(
            {**GOOD, "ready": False, "error": "the grading pool did not start: RuntimeError: no zygote"},
            {"code": "c"},
            "worker w9: the grading pool did not start: RuntimeError: no zygote",
            id="a pool that did not start",
        ),
        pytest.param(
            {"error": "the grading pool stopped while starting (exit status 1)", "code": "x", "missing": ["m"]},
            {"code": "c"},
            "worker w9: the grading pool stopped while starting (exit status 1)",
            id="no pool: said before other code or missing confinement",
        ),
        pytest.param(GOOD, {"code": "d"}, "worker w9 runs other grader code", id="other grader code"),
        pytest.param({}, {"code": "c"}, "worker w9 runs other grader code", id="a hello that names no code"),
        pytest.param(
            {**GOOD, "code": "x", "missing": ["seccomp"]},
            {"code": "c", "allow_weak_sandbox": True},
            "worker w9 runs other grader code",
            id="other code, even where a weak sandbox is allowed",
        ),
        pytest.param(
            {**GOOD, "missing": ["user namespaces", "seccomp filter"]},
            {"code": "c"},
            "worker w9 refuses to run student code: it lacks user namespaces; seccomp filter.",
            id="missing confinement",
        ),
        pytest.param(
            {**GOOD, "missing": ["seccomp filter"]}, {"code": "c", "allow_weak_sandbox": True}, None, id="weak allowed"
        ),
    ],
)
def test_what_a_worker_refuses_and_which_reason_it_gives(hello, job, expected):
    """A worker that grades what it should refuse gives grades from other code or a weak sandbox; one that
    refuses with the wrong reason sends the instructor to fix the wrong thing."""
    answer = refusal(hello, job, "w9")
    if expected is None:
        assert answer is None
    else:
        assert answer is not None and answer.startswith(expected), answer


def test_the_refusal_of_missing_confinement_says_how_to_grade_anyway():
    answer = refusal({**GOOD, "missing": ["cgroup memory limits"]}, {"code": "c"}, "w9")
    assert "--allow-weak-sandbox" in answer and "autograder sandbox-check" in answer


def test_the_task_outside_a_worker_answers_a_refusal_and_does_not_raise():
    """`grade_on_worker` never raises (a raising task would be retried on other workers): called where there is
    no Dask worker, it answers why."""
    (answer,) = answer_results(grade_on_worker("[]"))
    assert answer["worker"] == "?" and answer["refused"].startswith("worker ? failed to grade: ValueError")


# ---------------------------------------------------------------- a real pool process


@pytest.fixture(scope="module")
def tiny_jobs(tmp_path_factory) -> dict[str, dict]:
    """ada's honest notebook, bo's blank one, and cy's that hangs in its first answer far longer than any test
    takes to act (the notebook's own limits)."""
    course = make_course(tmp_path_factory.mktemp("worker") / "course", {LESSON: TINY})
    source, release = notebooks(course, LESSON)
    full = samples.answered(source, release, keep=None)
    students = {"ada": full, "bo": release, "cy": edit_cell(full, "add", "while True:\n    pass")}
    return planned_jobs(course, students, limits=Limits(cell_timeout=900, notebook_timeout=1800))


def other_code(job: dict) -> dict:
    return {**job, "code": OTHER_CODE}


def pool_tree(process: cluster_worker._PoolProcess) -> dict[int, str]:
    """The pool process and everything below it."""
    return {process.proc.pid: started_at(process.proc.pid), **descendants(process.proc.pid)}


@pytest.fixture
def seen() -> dict[int, str]:
    """Processes the test saw its pools run (pid -> start time): none may be left running after it."""
    found: dict[int, str] = {}
    try:
        yield found
    finally:
        kill_left(found)


@pytest.fixture
def host(seen):
    """A worker's pool host, named as its worker; stopped at the end."""
    started = PoolHost(workers=1, threads=1, name="w-test")
    try:
        yield started
    finally:
        started.stop()


@pytest.mark.slow
@needs_confinement
def test_a_pool_host_grades_in_its_worker_name_and_refuses_a_job_of_other_code(host, seen, tiny_jobs):
    """Results go back to the coordinator naming the worker that graded them; a job planned with other grader
    code is refused without being graded, and the same warm pool goes on grading."""
    first = json.loads(host.grade(json.dumps(tiny_jobs["ada"])))
    pool = host.current
    seen.update(pool_tree(pool))
    refused = json.loads(host.grade(json.dumps(other_code(tiny_jobs["bo"]))))
    second = json.loads(host.grade(json.dumps(tiny_jobs["bo"])))
    assert (first["worker"], first["job"], scores(first)) == ("w-test", tiny_jobs["ada"]["key"], FULL)
    assert (second["worker"], second["job"], scores(second)) == (
        "w-test",
        tiny_jobs["bo"]["key"],
        dict.fromkeys(FULL, 0.0),
    )
    assert set(refused) == {"refused", "worker"} and refused["worker"] == "w-test"
    assert refused["refused"].startswith("worker w-test runs other grader code")
    assert host.current is pool and pool.hello["pid"] == pool.proc.pid, "one pool, started once"


@pytest.mark.slow
@needs_confinement
def test_a_pool_that_dies_while_grading_fails_that_job_and_a_fresh_pool_grades_the_next(host, seen, tiny_jobs):
    """A pool process killed (out of memory, by hand) must not hang its worker's task: the notebook it was grading
    fails with a reason naming the worker, and the next job starts a new pool."""
    assert json.loads(host.grade(json.dumps(tiny_jobs["ada"])))["status"] == "ok"
    dead = host.current
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        hanging = pool.submit(host.grade, json.dumps(tiny_jobs["cy"]))
        wait_for(lambda: dead.waiters, "cy's job to be handed to the pool")
        tree = pool_tree(dead)
        seen.update(tree)
        os.kill(dead.proc.pid, signal.SIGKILL)
        answer = json.loads(hanging.result(timeout=300))
    assert answer["status"] == "error" and answer["worker"] == "w-test"
    assert (answer["job"], answer["student"]) == (tiny_jobs["cy"]["key"], "cy")
    assert answer["reason"] == "the grading pool of worker w-test stopped while grading this notebook"

    after = json.loads(host.grade(json.dumps(tiny_jobs["bo"])))
    assert after["status"] == "ok" and after["worker"] == "w-test"
    assert host.current is not dead and host.current.hello["pid"] not in tree
    seen.update(pool_tree(host.current))
    wait_for(lambda: not any(running(pid, start) for pid, start in tree.items()), "the dead pool's processes to go")


# ---------------------------------------------------------------- the task on a Dask worker


def _worker_name(dask_worker) -> str:
    return str(dask_worker.name)


def _pool_pid(dask_worker) -> int:
    return dask_worker.plugins[PLUGIN_NAME].host.current.proc.pid


@pytest.mark.slow
@pytest.mark.cluster
@needs_confinement
def test_the_task_on_a_dask_worker_with_the_plugin(tiny_jobs, seen):
    """The plugin starts a pool on the worker; each task's results come back in order, naming the worker; a task
    stops at its first refusal (the coordinator stops the run); a pool killed between tasks is replaced for the
    next; and the pool stops when its worker does."""
    import distributed

    pools = seen
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        ) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):
        try:
            client.wait_for_workers(1, timeout=120)
            client.register_plugin(PoolPlugin(), name=PLUGIN_NAME)
            (name,) = client.run(_worker_name).values()

            def task(*batch: dict) -> list[dict]:
                task = task_text([(json.dumps(job), None, None) for job in batch])
                text = client.submit(grade_on_worker, task, pure=False).result(timeout=600)
                return answer_results(text)

            ada, bo = task(tiny_jobs["ada"], tiny_jobs["bo"])
            assert [(r["job"], r["worker"]) for r in (ada, bo)] == [
                (tiny_jobs["ada"]["key"], name),
                (tiny_jobs["bo"]["key"], name),
            ]
            assert scores(ada) == FULL and scores(bo) == dict.fromkeys(FULL, 0.0)

            (refused,) = task(other_code(tiny_jobs["ada"]), tiny_jobs["bo"])
            assert refused["worker"] == name and "runs other grader code" in refused["refused"]

            (first,) = client.run(_pool_pid).values()
            pools[first] = started_at(first)
            os.kill(first, signal.SIGKILL)
            wait_for(lambda: not running(first, pools[first]), "the killed pool to stop")
            (again,) = task(tiny_jobs["ada"])
            assert (again["status"], again["worker"]) == ("ok", name)
            (second,) = client.run(_pool_pid).values()
            assert second != first
            pools[second] = started_at(second)
        finally:
            for pid, start in list(pools.items()):
                pools.update(descendants(pid))
    wait_for(lambda: not any(running(pid, start) for pid, start in pools.items()), "the worker's pools to stop")


@pytest.mark.process
def test_a_worker_waits_for_its_pool_as_long_as_the_course_says(host, seen):
    """The wait is the course's `c.Autograder.pool_start_timeout`, carried by the job: a pool that cannot
    import torch within it refuses the job with that figure."""
    answer = json.loads(host.grade(json.dumps({"limits": {"pool_start_timeout": 0.01}})))
    seen.update(pool_tree(host.current))
    host.current.proc.kill()  # no need to wait for a pool nobody will use
    assert answer == {"refused": "worker w-test: its grading pool did not start within 0.01 s", "worker": "w-test"}


@pytest.mark.process
def test_the_pool_takes_the_courses_pool_settings_and_starts_again_when_they_change(host, seen):
    """`judge_memory_mb`, `stop_timeout`, `pool_start_timeout` and `sandbox_environment` are the pool's own;
    on a Dask worker they come with the job, and a pool started with other ones is replaced."""
    course = {"judge_memory_mb": 1234, "stop_timeout": 3.0, "pool_start_timeout": 300.0, "cell_timeout": 7.0}
    job = {"limits": course, "environment": ["AUTOGRADER_COURSE_DATA"], "code": OTHER_CODE}
    answer = json.loads(host.grade(json.dumps(job)))
    first = host.current
    seen.update(pool_tree(first))
    assert answer["refused"].startswith("worker w-test runs other grader code")
    limits = as_dict(Limits(judge_memory_mb=1234, stop_timeout=3.0, pool_start_timeout=300.0))
    assert first.hello["settings"] == {"limits": limits, "environment": ["AUTOGRADER_COURSE_DATA"]}

    json.loads(host.grade(json.dumps({**job, "limits": {**course, "cell_timeout": 30.0}})))
    assert host.current is first, "a limit applied per notebook does not restart the pool"

    json.loads(host.grade(json.dumps({"code": OTHER_CODE})))
    seen.update(pool_tree(host.current))
    assert host.current is not first and host.current.hello["settings"] == {
        "limits": as_dict(Limits()),
        "environment": [],
    }
