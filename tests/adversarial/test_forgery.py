"""Forged probe verdicts earn nothing: each forgery's item scores 0, and is flagged for review when it was seen.

One batch holds every case of `forgery.FORGERIES`, an honest classmate per lesson and the honest
idioms of `honest.py` (progress bars, warnings, logging, figures, helpers, decorators, wrappers), graded
together by `autograder grade`. Each forger's other items keep full marks; the honest classmates and
the idioms keep full marks and are never flagged.
"""

from __future__ import annotations

import shutil

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder import commands
from autograder.authoring import corpus, samples
from autograder.grades import gradebook
from autograder.rules import scoring
from autograder.sandbox import capabilities
from tests.adversarial.cases import write_case
from tests.adversarial.forgery import all_forgeries
from tests.adversarial.harness import LIMITS
from tests.adversarial.honest import all_idioms
from tests.conftest import ROOT, copy_course, lessons

FORGERIES = all_forgeries()
IDIOMS = all_idioms(ROOT, lessons())
LESSONS = sorted({f.lesson for f in FORGERIES} | {i.lesson for i in IDIOMS})

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        bool(capabilities.missing_mechanisms()),
        reason="this machine lacks confinement: " + "; ".join(capabilities.missing_mechanisms()),
    ),
]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("forgery")
    course = copy_course(root / "course")
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as handle:
        handle.write(LIMITS.replace("cell_timeout = 10", "cell_timeout = 30"))
    commands.release(course, assignments=LESSONS, progress=False)
    points = {}
    for lesson in LESSONS:
        source = nbformat.read(course / "source" / lesson / f"{lesson}.ipynb", as_version=4)
        release = nbformat.read(course / "release" / lesson / f"{lesson}.ipynb", as_version=4)
        points[lesson] = corpus.points_of(source)
        write_case(
            course / "submitted" / "honest" / lesson, {f"{lesson}.ipynb": samples.answered(source, release, keep=None)}
        )
        for case in (f for f in FORGERIES if f.lesson == lesson):
            files: dict[str, object] = {f"{lesson}.ipynb": case.notebook(source, release)}
            files.update({name: text.encode() for name, text in case.files.items()})
            write_case(course / "submitted" / case.name / lesson, files)
        for idiom in (i for i in IDIOMS if i.lesson == lesson):
            write_case(course / "submitted" / idiom.name / lesson, {f"{lesson}.ipynb": idiom.notebook(source, release)})
    stats: dict = {}
    results = commands.grade(course, assignments=LESSONS, progress=False, stats=stats)
    flagged = next(f for f in FORGERIES if f.detected)
    commands.feedback(course, assignments=[flagged.lesson], student=flagged.name)
    feedback = next((course / "feedback" / flagged.name / flagged.lesson).glob("*.html")).read_text(encoding="utf-8")
    with Gradebook(gradebook.db_url(course)) as gb:
        manual = {
            (s.assignment.name, s.student.id): s.needs_manual_grade for a in gb.assignments for s in a.submissions
        }
    yield {
        "results": results,
        "table": gradebook.score_table(course),
        "flags": gradebook.tamper_flags(course),
        "points": points,
        "stats": stats,
        "manual": manual,
        "feedback": (flagged, feedback),
    }
    shutil.rmtree(root, ignore_errors=True)


def test_there_are_enough_forgeries():
    assert len(FORGERIES) >= 20
    assert set(LESSONS) >= {"02_dtype", "03_device", "04_numpy", "05_shapes", "06_autograd", "07_training"}
    assert {f.placement for f in FORGERIES} == {"separate cell", "answer cell", "function body", "import side effect"}


@pytest.mark.parametrize("case", FORGERIES, ids=[f.name for f in FORGERIES])
def test_forgery_earns_nothing(graded, case):
    assert graded["results"][(case.name, case.lesson)] == "ok"
    scores = graded["table"][(case.lesson, case.name)]
    expected = dict(graded["points"][case.lesson], **{f"test_{item}": 0.0 for item in (case.item, *case.also)})
    assert scores == expected, {k: (expected[k], scores.get(k)) for k in expected if scores.get(k) != expected[k]}
    flagged = {f.item for f in graded["flags"] if (f.assignment, f.student) == (case.lesson, case.name)}
    assert flagged == ({case.item} if case.detected else set()) | set(case.also), flagged
    assert graded["manual"][(case.lesson, case.name)] is (case.detected or bool(case.also)), (
        "formgrader lists exactly the flagged submissions"
    )


def test_the_feedback_says_what_was_detected(graded):
    case, html = graded["feedback"]
    assert scoring.TAMPER_COMMENT in html and "TamperingDetected" in html


def test_there_are_enough_honest_idioms():
    assert len(IDIOMS) >= 20
    assert {i.lesson for i in IDIOMS} == set(lessons())


@pytest.mark.parametrize("idiom", IDIOMS, ids=[f"{i.lesson}-{i.name}" for i in IDIOMS])
def test_an_honest_idiom_keeps_full_marks_unflagged(graded, idiom):
    assert graded["results"][(idiom.name, idiom.lesson)] == "ok"
    scores = graded["table"][(idiom.lesson, idiom.name)]
    expected = graded["points"][idiom.lesson]
    assert scores == expected, (
        idiom.what,
        {k: (expected[k], scores.get(k)) for k in expected if scores.get(k) != expected[k]},
    )
    assert not [f.detail for f in graded["flags"] if (f.assignment, f.student) == (idiom.lesson, idiom.name)], (
        idiom.what
    )
    assert graded["manual"][(idiom.lesson, idiom.name)] is False


@pytest.mark.parametrize("lesson", LESSONS)
def test_honest_classmates_keep_full_marks_unflagged(graded, lesson):
    assert graded["table"][(lesson, "honest")] == graded["points"][lesson]
    assert graded["manual"][(lesson, "honest")] is False
    assert not [f for f in graded["flags"] if f.student == "honest"]
    assert not [k for k in graded["stats"].get("tampering", {}) if k.startswith("honest/")]
