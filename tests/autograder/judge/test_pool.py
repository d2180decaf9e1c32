"""`JudgePool` over a tiny course, with one judge: results, judges that fail, and a clean close.

One pool serves the module. Its `run` answers every job with a result naming that job; a judge
killed from outside while it grades, or stopped by the pool for running past its budget, answers
its job with the pool's failed result, and a fresh judge grades the next job in the same run.
The notebook processes of a judge that was stopped go with it, and `close` leaves no process of
the pool running (zygote, judges, notebook children).
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from autograder.authoring import samples
from autograder.config.limits import Limits
from autograder.coordinator import plan
from autograder.judge import jobs
from autograder.judge.pool import POLL_S, JudgePool
from autograder.sandbox import capabilities
from tests.autograder.coordinator.test_grader import FULL, LESSON, TINY, edit_cell, make_course, notebooks, submit
from tests.autograder.judge.test_session import processes_under, wait_gone

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        bool(capabilities.missing_mechanisms()),
        reason="this machine lacks confinement: " + "; ".join(capabilities.missing_mechanisms()),
    ),
]

# The notebooks' own limits: far longer than the pool takes to stop a judge here, so a hanging cell is
# still running when the pool acts.
JOB_LIMITS = Limits(cell_timeout=120, notebook_timeout=240)
# The pool's budget given to `run`: passed after one look at the judges, well before the notebook's own limits;
# a notebook that ends has until the second look (2 * POLL_S), a hundred times what the tiny lesson takes.
BUDGET = Limits(cell_timeout=0, notebook_timeout=0, judge_grace=1.5 * POLL_S)
STOPPED = "the grader's worker process stopped while grading this notebook"
TOO_LONG = "grading this notebook took longer than the grader allows"

STUDENTS = {
    "honest": lambda nb: nb,
    "wrong": lambda nb: edit_cell(nb, "mul", "def mul(a, b):\n    return 0"),
    "sleeps": lambda nb: edit_cell(nb, "mul", "import time\ntime.sleep(10**6)"),
    "spins": lambda nb: edit_cell(nb, "mul", "while True:\n    pass"),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The pool and one loaded job per student; the pool is closed at the end unless a test closed it."""
    course = make_course(tmp_path_factory.mktemp("pool") / "course", {LESSON: TINY})
    source, release = notebooks(course, LESSON)
    full = samples.answered(source, release, keep=None)
    for student, make in STUDENTS.items():
        submit(course, student, LESSON, make(full))
    templates, notebooks_of = plan.write_templates(course, course / plan.STATE_DIR, [LESSON])
    planned = plan.submissions(
        course,
        [(student, LESSON) for student in STUDENTS],
        notebooks_of,
        templates,
        limits=JOB_LIMITS,
        code_hash=jobs.course_code_hash(),
        tests_in_sandbox=False,
        allow_weak_sandbox=False,
    )
    loaded = {sub.student: jobs.load(sub.jobs[LESSON]) for sub in planned}
    pool = JudgePool(course, 1, 1)
    try:
        yield pool, loaded
    finally:
        if pool.master.fileno() != -1:
            pool.close()


def _scores(result: dict) -> dict:
    assert result["status"] == "ok", result["reason"]
    return {item: points for item, (points, _) in result["summary"]["grades"].items()}


def _killing_judge_after(pool: JudgePool, job: dict, then: dict, seen: dict):
    """Jobs for `run`: `job`, then (asked for once the pool has looked at its judge) `then`, after SIGKILLing
    the judge grading `job` once its notebook's process is up; `seen` gets that judge and those processes."""
    before = processes_under(pool.zygote.pid)
    yield job
    judge = pool.judges[0]
    assert judge["job"] is job, "the judge should still be grading the sleeping notebook"
    deadline = time.monotonic() + 60
    while not (children := processes_under(pool.zygote.pid) - before) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert children, "the notebook's process should be running below the zygote"
    seen.update(pid=judge["pid"], children=children)
    os.kill(judge["pid"], signal.SIGKILL)
    yield then


def test_every_job_comes_back_naming_its_job(graded):
    """A result that named another job, or a pool that dropped or repeated one, would not match."""
    pool, loaded = graded
    todo = [loaded["honest"], loaded["wrong"]]
    results = list(pool.run(todo))
    assert sorted(r["job"] for r in results) == sorted(job["key"] for job in todo)
    by_student = {r["student"]: r for r in results}
    for job in todo:
        result = by_student[job["student"]]
        assert {field: result[field] for field in jobs.IDENT if field != "key"} == {
            field: job[field] for field in jobs.IDENT if field != "key"
        }
        assert result["job"] == job["key"]
    assert _scores(by_student["honest"]) == FULL
    assert _scores(by_student["wrong"]) == {**FULL, "test_mul": 0.0}


def test_a_judge_killed_while_grading_fails_its_job_and_a_fresh_judge_grades_the_next(graded):
    """The dead judge's job gets the pool's "stopped" result (not an exception out of `run`, not a hang), and
    the next job of the same run is graded in full by a new judge process."""
    pool, loaded = graded
    seen: dict = {}
    results = list(pool.run(_killing_judge_after(pool, loaded["sleeps"], loaded["honest"], seen)))
    assert len(results) == 2
    assert results[0] == jobs.failed_result(loaded["sleeps"], STOPPED)
    assert _scores(results[1]) == FULL and results[1]["job"] == loaded["honest"]["key"]
    assert pool.judges[0]["pid"] != seen["pid"]


def test_a_stopped_judges_notebook_processes_go_with_it(graded):
    """The notebook that a killed judge was grading must not keep running in the zygote: it would hold its
    memory in the slot's memory cgroup, which the next notebook of that slot shares, until the pool closes."""
    pool, loaded = graded
    seen: dict = {}
    results = list(pool.run(_killing_judge_after(pool, loaded["sleeps"], loaded["honest"], seen)))
    assert [r["status"] for r in results] == ["error", "ok"]
    assert wait_gone(seen["children"], limit=20) == set(), "the killed judge's notebook processes are still running"


def test_a_judge_past_its_budget_is_stopped_and_a_fresh_judge_grades_the_next(graded):
    """The spinning notebook's own limits are far off, so only the pool's budget can end it: its job gets the
    "took longer" result and the honest one after it is graded by a new judge in the same run."""
    pool, loaded = graded
    first = pool.judges[0]["pid"]
    results = list(pool.run(iter([loaded["spins"], loaded["honest"]]), BUDGET))
    assert len(results) == 2
    assert results[0] == jobs.failed_result(loaded["spins"], TOO_LONG)
    assert _scores(results[1]) == FULL and results[1]["job"] == loaded["honest"]["key"]
    assert pool.judges[0]["pid"] != first


def test_close_leaves_no_process_behind(graded):
    """Every process of the pool goes: the zygote (and bubblewrap around it), the notebook processes it
    forked, its cleaner, and each judge; and the pool's scratch folder is removed."""
    pool, _ = graded
    processes = processes_under(pool.zygote.pid)
    for judge in pool.judges:
        processes |= processes_under(judge["pid"])
    assert {pid for pid, _ in processes} >= {pool.zygote.pid} | {judge["pid"] for judge in pool.judges}
    pool.close()
    assert wait_gone(processes) == set()
    assert pool.zygote.returncode is not None and not pool.scratch.exists()
