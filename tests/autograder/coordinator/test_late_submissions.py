"""Late penalties as nbgrader's autograde assigns them: the course's plugin, the due date, a student's extension.

The same class is graded by stock `nbgrader autograde` and by the engine, each in its own copy of the
course with `c.LateSubmissionPlugin.penalty_method = 'zero'`; every notebook's penalty and the exported
scores must agree, and a late submission must export 0 where an on-time one keeps its score.
"""

from __future__ import annotations

import csv
import datetime

import pytest

from autograder import commands
from autograder.authoring import samples
from autograder.grades import gradebook
from tests.autograder.coordinator.test_grader import LESSON, TINY, make_course, notebooks, submit

pytestmark = pytest.mark.slow

DUE = datetime.datetime(2026, 3, 1, 12, 0, 0)
HANDED_IN = {
    "early": DUE - datetime.timedelta(hours=1),
    "late": DUE + datetime.timedelta(hours=1),
    "extended": DUE + datetime.timedelta(hours=1),  # two hours' extension: on time
    "very_late": DUE + datetime.timedelta(days=3),  # beyond the extension it was given
}
EXTENSIONS = {"extended": 2, "very_late": 2}


def _penalties(course) -> dict[str, float | None]:
    from nbgrader.api import Gradebook

    with Gradebook(gradebook.db_url(course)) as gb:
        return {
            sub.student_id: sub.notebooks[0].late_submission_penalty for sub in gb.find_assignment(LESSON).submissions
        }


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    from nbgrader.api import Gradebook

    base = tmp_path_factory.mktemp("late")
    out = {}
    for grader in ("nbgrader", "autograder"):
        course = make_course(base / grader, {LESSON: TINY})
        with open(course / "nbgrader_config.py", "a", encoding="utf-8") as handle:
            handle.write("\nc.LateSubmissionPlugin.penalty_method = 'zero'\n")
        source, release = notebooks(course, LESSON)
        full = samples.answered(source, release, keep=None)
        for student, stamp in HANDED_IN.items():
            submit(course, student, LESSON, full)
            (course / "submitted" / student / LESSON / "timestamp.txt").write_text(
                stamp.strftime("%Y-%m-%d %H:%M:%S.%f UTC"), encoding="utf-8"
            )
        with Gradebook(gradebook.db_url(course)) as gb:
            gb.update_or_create_assignment(LESSON, duedate=DUE)
            for student, hours in EXTENSIONS.items():
                gb.update_or_create_student(student)
                gb.add_submission(LESSON, student)
                gb.grant_extension(LESSON, student, hours=hours)
        results = commands.grade(course, progress=False, grader=grader, workers=2)
        assert set(results.values()) == {"ok"}, results
        commands.export(course, to=base / f"{grader}.csv")
        with open(base / f"{grader}.csv", newline="", encoding="utf-8") as handle:
            exported = {row["student_id"]: row for row in csv.DictReader(handle)}
        out[grader] = (_penalties(course), exported)
    return out


def test_each_notebooks_penalty_is_nbgraders(graded):
    ours, theirs = graded["autograder"][0], graded["nbgrader"][0]
    assert ours == theirs
    assert ours["early"] is None and ours["extended"] is None
    assert ours["late"] == ours["very_late"] == 6.0, "the 'zero' method takes the whole score"


def test_late_work_exports_zero_and_on_time_work_its_score(graded):
    exported = graded["autograder"][1]
    assert {s: float(row["score"]) for s, row in exported.items()} == {
        "early": 6.0,
        "late": 0.0,
        "extended": 6.0,
        "very_late": 0.0,
    }
    assert {s: row["score"] for s, row in exported.items()} == {
        s: row["score"] for s, row in graded["nbgrader"][1].items()
    }
