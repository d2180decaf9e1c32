"""`coordinator.recorder.Recorder` on a tiny course with two notebooks per submission and its real SQLite gradebook
(nbgrader's tables), fed the submissions of a class graded once, their results taken from the records as a re-run
takes them: finished submissions reach `autograded/` and the gradebook a batch at a time (a full `BATCH`, or
at once when `wait` is over, or on `flush`), each with the files its notebooks were given and its timestamp;
a submission whose autograded folder cannot be written is reported in `unwritten` and kept out of the gradebook
while the rest of its batch goes in; a failed notebook is reported with its reason.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autograder import commands
from autograder.authoring import samples
from autograder.config import settings
from autograder.coordinator import plan
from autograder.coordinator.recorder import Recorder
from autograder.grades import gradebook
from autograder.judge import jobs
from tests.autograder.coordinator.test_grader import FULL, LESSON, notebooks, submit
from tests.autograder.coordinator.test_plan import SECOND, submit_second, two_notebook_course

pytestmark = pytest.mark.slow

TIMESTAMP = "2024-03-04 05:06:07.000000 UTC"
ZERO = dict.fromkeys(FULL, 0.0)
NEVER = 3600.0  # a batch wait no test lasts: only a full batch or `flush` writes


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> tuple[Path, Path]:
    """The class graded once (its records kept), and its gradebook as release left it (no submission yet).

    ada hands in both notebooks and two files (one past the cap of one file); bo the first notebook, blank;
    cy the first, and a second that is not JSON; dee only a second that is not JSON; eve no notebook."""
    root = tmp_path_factory.mktemp("recorder")
    course = two_notebook_course(root / "course")
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as handle:
        handle.write("\nc.Autograder.max_handed_in_files = 1\n")
    released = Path(shutil.copy(course / "gradebook.db", root / "released.db"))
    source, release = notebooks(course, LESSON)
    full = samples.answered(source, release, keep=None)
    submit(course, "ada", LESSON, full)
    submit_second(course, "ada", full)
    folder = course / "submitted" / "ada" / LESSON
    (folder / "a.csv").write_text("kept")
    (folder / "b.csv").write_text("past the cap")
    (folder / "timestamp.txt").write_text(TIMESTAMP)
    submit(course, "bo", LESSON, release)
    submit(course, "cy", LESSON, full)
    submit_second(course, "cy", b'{"cells": [')
    submit_second(course, "dee", b'{"cells": [')
    (course / "submitted" / "eve" / LESSON).mkdir(parents=True)
    commands.grade(course, progress=False, workers=1)
    return course, released


@pytest.fixture
def fresh(graded, tmp_path) -> tuple[Path, dict[str, plan.Submission]]:
    """A copy of the class with nothing recorded yet (no autograded/, the released gradebook), and its
    submissions planned with every notebook's result taken from its record, as a re-run does."""
    course = Path(shutil.copytree(graded[0], tmp_path / "course"))
    shutil.rmtree(course / "autograded")
    shutil.copy(graded[1], course / "gradebook.db")
    pairs = [(student, LESSON) for student in ("ada", "bo", "cy", "dee", "eve")]
    state = course / plan.STATE_DIR
    templates, notebooks_of = plan.write_templates(course, state, [LESSON])
    subs = plan.submissions(
        course,
        pairs,
        notebooks_of,
        templates,
        limits=settings.limits(settings.read(course)),
        code_hash=jobs.course_code_hash(),
        tests_in_sandbox=False,
        allow_weak_sandbox=False,
    )
    assert plan.jobs_to_run(subs, state, force=False) == [], "every notebook's record is reused"
    return course, {sub.student: sub for sub in subs}


def book(course: Path) -> dict[tuple[str, str], dict[str, float | None]]:
    """(student, notebook) -> {test cell: its automatic score} for every notebook the gradebook holds."""
    from nbgrader.api import Gradebook

    with Gradebook(gradebook.db_url(course)) as gb:
        return {
            (sub.student.id, nb.name): {g.name: g.auto_score for g in nb.grades if g.name in FULL}
            for assignment in gb.assignments
            for sub in assignment.submissions
            for nb in sub.notebooks
        }


def in_book(course: Path) -> set[str]:
    return {student for student, _ in book(course)}


def autograded(course: Path) -> dict[str, list[str]]:
    """student -> the files of their autograded submission."""
    root = course / "autograded"
    if not root.is_dir():
        return {}
    return {
        folder.parent.name: sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
        for folder in root.glob(f"*/{LESSON}")
        if folder.is_dir()
    }


@pytest.fixture
def recorder(fresh):
    """A recorder on the fresh copy; closed at the end."""
    course, _ = fresh
    made: list[Recorder] = []

    def make(*, wait: float) -> Recorder:
        made.append(Recorder(course, {"gradebook_s": 0.0}, wait=wait))
        return made[-1]

    try:
        yield make
    finally:
        for rec in made:
            rec.close()


def test_a_batch_is_written_once_full_and_what_is_left_on_flush(fresh, recorder, monkeypatch):
    """One transaction per batch keeps the gradebook's cost per submission low; the grading loop hands a batch
    over only once it is full (`BATCH`), and the rest when told to (`flush`, at the end of a run)."""
    course, subs = fresh
    monkeypatch.setattr(Recorder, "BATCH", 2)
    rec = recorder(wait=NEVER)
    assert rec.finish(subs["ada"]) == "ok"
    rec.wait()
    assert autograded(course) == {} and book(course) == {}, "a batch of one is not written yet"

    assert rec.finish(subs["bo"]) == "ok"
    rec.wait()
    assert set(autograded(course)) == {"ada", "bo"}
    assert book(course) == {("ada", LESSON): FULL, ("ada", SECOND): FULL, ("bo", LESSON): ZERO, ("bo", SECOND): ZERO}

    assert rec.finish(subs["cy"]) != "ok"
    rec.wait()
    assert "cy" not in in_book(course) and "cy" not in autograded(course)
    rec.flush()
    rec.wait()
    assert "cy" in in_book(course) and "cy" in autograded(course)
    assert rec.unwritten == {}


def test_a_submission_that_waited_long_enough_is_written_at_once(fresh, recorder):
    """`wait` (c.Autograder.record_wait) bounds how long a graded submission waits for its transaction."""
    course, subs = fresh
    rec = recorder(wait=0.0)
    assert rec.finish(subs["bo"]) == "ok"
    rec.wait()
    assert book(course) == {("bo", LESSON): ZERO, ("bo", SECOND): ZERO} and set(autograded(course)) == {"bo"}


def test_the_autograded_folder_holds_the_graded_notebooks_and_the_files_they_were_given(fresh, recorder):
    """autograded/ is what formgrader and the feedback read: each notebook as the judge wrote it, the files the
    notebook was given (not those left out by the caps) and timestamp.txt; the gradebook gets the timestamp."""
    from nbgrader.api import Gradebook
    from nbgrader.utils import parse_utc

    course, subs = fresh
    rec = recorder(wait=NEVER)
    for student in ("ada", "cy"):
        rec.finish(subs[student])
    rec.flush()
    rec.wait()
    files = autograded(course)
    assert files["ada"] == sorted(["a.csv", "timestamp.txt", f"{LESSON}.ipynb", f"{SECOND}.ipynb"])
    assert files["cy"] == [f"{LESSON}.ipynb"], "the notebook that failed has no autograded copy"
    for name in (LESSON, SECOND):
        written = (course / "autograded" / "ada" / LESSON / f"{name}.ipynb").read_text(encoding="utf-8")
        assert written == subs["ada"].results[name]["notebook_json"]
    assert (course / "autograded" / "ada" / LESSON / "a.csv").read_text() == "kept"
    with Gradebook(gradebook.db_url(course)) as gb:
        assert gb.find_submission(LESSON, "ada").timestamp == parse_utc(TIMESTAMP).replace(tzinfo=None)
    assert book(course)[("cy", LESSON)] == FULL


@pytest.mark.parametrize(
    "blocked",
    [
        pytest.param(lambda autograded_dir: autograded_dir / "bo", id="a file where the student's folder goes"),
        pytest.param(lambda autograded_dir: autograded_dir / "bo" / LESSON, id="a file where the submission goes"),
    ],
)
def test_a_submission_whose_autograded_folder_cannot_be_written_stays_out_of_the_gradebook(fresh, recorder, blocked):
    """The gradebook must name no notebook autograded/ lacks (formgrader would show a grade it cannot open): that
    submission is reported with the error, and the others of its batch are written."""
    course, subs = fresh
    in_the_way = blocked(course / "autograded")
    in_the_way.parent.mkdir(parents=True, exist_ok=True)
    in_the_way.write_text("not a folder")
    rec = recorder(wait=NEVER)
    for student in ("ada", "bo", "cy"):
        rec.finish(subs[student])
    rec.flush()
    rec.wait()
    assert list(rec.unwritten) == [("bo", LESSON)]
    assert rec.unwritten[("bo", LESSON)].startswith("the grader could not write the autograded notebook: [Errno ")
    assert "\n" not in rec.unwritten[("bo", LESSON)]
    assert in_book(course) == {"ada", "cy"}
    assert set(autograded(course)) == {"ada", "cy"}


def test_a_failed_notebook_is_reported_with_its_reason(fresh, recorder):
    """The run's summary names each submission's outcome: a failed notebook by its name and reason when the
    submission has others, by its reason alone when it is the only one; a submission with no notebook says so.
    A submission with nothing graded writes nothing."""
    course, subs = fresh
    rec = recorder(wait=NEVER)
    cy_reason = subs["cy"].results[SECOND]["reason"]
    dee_reason = subs["dee"].results[SECOND]["reason"]
    assert cy_reason.startswith(f"{SECOND}.ipynb is not valid notebook JSON") and dee_reason == cy_reason
    assert rec.finish(subs["cy"]) == f"{SECOND}: {cy_reason}"
    assert rec.finish(subs["dee"]) == dee_reason
    assert rec.finish(subs["eve"]) == "no notebook of this assignment was handed in"
    rec.flush()
    rec.wait()
    assert in_book(course) == {"cy"} and set(autograded(course)) == {"cy"}
    assert rec.unwritten == {}
