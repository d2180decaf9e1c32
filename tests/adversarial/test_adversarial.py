"""The hostile class graded in one batch by `autograder grade`: no credit gained, nothing harmed.

One batch holds every case of `cases.CASES` plus two honest classmates. For each case the exact
per-item scores are asserted; for the batch, that the classmates keep their scores, that the course
folder (but the grader's own outputs), a fake home and a folder outside are unchanged, that nothing
reached the network, and that no process the run started is left.
"""

from __future__ import annotations

import dataclasses
import shutil
import uuid
from pathlib import Path

import pytest

from autograder import commands
from autograder.grades import gradebook
from autograder.sandbox import capabilities
from tests.adversarial import harness
from tests.adversarial.cases import CASES, CONTROLS, LESSON, POINTS

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        bool(capabilities.missing_mechanisms()),
        reason="this machine lacks confinement: " + "; ".join(capabilities.missing_mechanisms()),
    ),
]

DROPPED = Path("/tmp/adversarial-dropped.txt")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("adversarial")
    course, ctx = harness.prepare(root)
    listener = harness.Listener()
    ctx = dataclasses.replace(ctx, port=listener.port)
    harness.write_class(course, ctx)
    DROPPED.unlink(missing_ok=True)
    before = {
        "course": harness.fingerprint(course, skip=harness.GRADER_OUTPUTS),
        "home": harness.fingerprint(Path(ctx.home)),
        "outside": harness.fingerprint(Path(ctx.outside)),
    }
    marker = uuid.uuid4().hex
    try:
        with harness.environment(HOME=ctx.home, ADVERSARIAL_RUN=marker):
            results = commands.grade(course, assignments=[LESSON], progress=False)
        left = harness.marked_processes(marker)
    finally:
        listener.close()
    after = {
        "course": harness.fingerprint(course, skip=harness.GRADER_OUTPUTS),
        "home": harness.fingerprint(Path(ctx.home)),
        "outside": harness.fingerprint(Path(ctx.outside)),
    }
    yield {
        "course": course,
        "results": results,
        "table": gradebook.score_table(course),
        "rows": gradebook.item_scores(course),
        "before": before,
        "after": after,
        "left": left,
        "received": list(listener.received),
        "dropped": DROPPED.exists(),
    }
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_outcome(graded, case):
    scores = graded["table"].get((LESSON, case.name))
    result = graded["results"][(case.name, LESSON)]
    if case.expected is None:
        assert scores is None or not any(scores.values()), scores
        assert case.reason.lower() in result.lower(), result
    else:
        assert scores == case.expected, f"{case.name}: {result}"


@pytest.mark.parametrize("student", sorted(CONTROLS))
def test_classmates_graded_correctly(graded, student):
    assert graded["table"][(LESSON, student)] == CONTROLS[student]
    assert graded["results"][(student, LESSON)] == "ok"


def test_gradebook_maxima_intact(graded):
    assert {(r.item, r.max_score) for r in graded["rows"]} == set(POINTS.items())


def test_course_folder_unchanged(graded):
    assert graded["after"]["course"] == graded["before"]["course"]
    assert not graded["dropped"], "a submission wrote into /tmp"


def test_home_and_outside_unchanged(graded):
    assert graded["after"]["home"] == graded["before"]["home"]
    assert graded["after"]["outside"] == graded["before"]["outside"]


def test_nothing_reached_the_network(graded):
    assert graded["received"] == []


def test_no_process_left(graded):
    assert graded["left"] == []


def test_every_case_graded_or_refused(graded):
    """The batch always finishes: one result per submission, controls included."""
    assert set(graded["results"]) == {(c.name, LESSON) for c in CASES} | {(s, LESSON) for s in CONTROLS}
