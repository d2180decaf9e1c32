"""Grading on receipt through a real hub: a student's submission is graded by the engine as it arrives and
its feedback reaches that student alone, through nbgrader's own exchange classes; the attempt limit holds,
the instructor's gradebook gets the attempt that counts, and the queue survives a crash of the service.
"""

from __future__ import annotations

import html
import time
from pathlib import Path

import nbformat
import pytest

from autograder.grades import attempts, gradebook
from autograder import commands
from autograder.authoring import corpus, samples
from course_exchange import feedback
from course_exchange.client import Client, RequestRefused
from course_exchange.policy import parse_time
from tests.conftest import ROOT, copy_course
from tests.course_exchange.conftest import Course
from tests.course_exchange.hub import COURSE, ReceiptGrader
from tests.course_exchange.test_feedback import rows

LESSON = "01_tensors"
ATTEMPTS = 2
ON_RECEIPT = {LESSON: {"attempts": ATTEMPTS, "shows": "verdicts", "score": True}}
FIRST_FEEDBACK_S = (
    900  # the grader's first notebook waits for its judges to start; a bound on a hang, not a speed claim
)


@pytest.fixture(scope="module")
def receipt(tmp_path_factory, exchange_hub, tokens):
    """A copy of the course with lesson 01 released (gradebook and exchange) and graded on receipt."""
    root = copy_course(tmp_path_factory.mktemp("on-receipt") / "course")
    with open(root / "nbgrader_config.py", "a", encoding="utf-8") as fh:
        fh.write(f"\nc.AssignmentPolicy.on_receipt = {ON_RECEIPT!r}\n")
    assert commands.release(root, assignments=[LESSON], progress=False) == []
    course = Course(root, LESSON, exchange_hub.url)
    course.run(
        "ReleaseAssignment",
        tokens["grader"],
        AssignmentPolicy__on_receipt=ON_RECEIPT,
        ExchangeReleaseAssignment__force=True,
    )
    token_file = root.parent / "grader-token"
    token_file.write_text(tokens["grader"])
    token_file.chmod(0o600)
    grader = ReceiptGrader(root, exchange_hub.url, token_file, root.parent / "receipt.log")
    state = {"course": course, "grader": grader, "token_file": token_file}
    try:
        yield state
    finally:
        state["grader"].stop()


def client(course: Course, token: str) -> Client:
    return Client(url=course.url, token=token, course=COURSE)


def hand_in(course: Course, token: str, home: Path, notebook: nbformat.NotebookNode) -> dict:
    if not (home / LESSON).is_dir():
        course.run("FetchAssignment", token, home=home)
    nbformat.write(notebook, home / LESSON / f"{LESSON}.ipynb")
    return course.run("Submit", token, home=home)


def wait_for_feedback(
    course: Course, token: str, submission_id: int, log: Path, timeout: float = FIRST_FEEDBACK_S
) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [s for s in client(course, token).submissions(LESSON) if s["id"] == submission_id]
        if found and found[0]["feedback"]:
            return found[0]
        time.sleep(0.5)
    raise AssertionError(
        f"no feedback for submission {submission_id} within {timeout:.0f} s:\n{log.read_text()[-3000:]}"
    )


def fetched_rows(course: Course, token: str, home: Path, submission: dict) -> dict:
    course.run("FetchFeedback", token, home=home)
    page = home / LESSON / "feedback" / submission["timestamp"] / f"{LESSON}.html"
    return rows(page.read_text(encoding="utf-8")), page.read_text(encoding="utf-8")


def notebooks() -> tuple[nbformat.NotebookNode, nbformat.NotebookNode]:
    """(every item answered wrong, every item answered as the instructor did)."""
    wrong = next(s for s in corpus.students(ROOT, LESSON) if s.name == "wrong-0").notebook
    source = nbformat.read(ROOT / "source" / LESSON / f"{LESSON}.ipynb", as_version=4)
    release = nbformat.read(ROOT / "release" / LESSON / f"{LESSON}.ipynb", as_version=4)
    return wrong, samples.answered(source, release, keep=None)


@pytest.mark.slow
def test_a_student_reads_what_failed_fixes_it_and_gets_full_marks_alone(receipt, tokens):
    course, log = receipt["course"], receipt["grader"].log
    ada, _ = course.home("ada"), course.home("ben")
    wrong, right = notebooks()

    reply = hand_in(course, tokens["ada"], ada, wrong)
    assert "feedback is coming" in reply["message"] and reply["grading"] == {
        "state": "queued",
        "attempt": 1,
        "detail": "",
    }
    first = wait_for_feedback(course, tokens["ada"], reply["id"], log)
    found, page = fetched_rows(course, tokens["ada"], ada, first)
    assert found and all(r["verdict"] in (feedback.FAILED, feedback.WRONG) for r in found.values()), found
    assert "Score of the checks shown: 0 /" in page

    # Ben sees neither Ada's submission nor her feedback.
    assert all(s["student"] == "ben" for s in client(course, tokens["ben"]).submissions(LESSON))
    with pytest.raises(RequestRefused) as refused:
        client(course, tokens["ben"]).fetch_feedback(LESSON, reply["id"])
    assert refused.value.status == 404

    reply = hand_in(course, tokens["ada"], ada, right)
    assert reply["grading"]["attempt"] == 2
    second = wait_for_feedback(course, tokens["ada"], reply["id"], log)
    found, page = fetched_rows(course, tokens["ada"], ada, second)
    assert found and all(r["verdict"] in (feedback.PASSED, feedback.RIGHT) for r in found.values()), found
    total = sum(
        cell["nbgrader"].get("points", 0)
        for cell in gradebook.template(course.root, LESSON, LESSON)["cells"]
        if cell["nbgrader"].get("grade")
    )
    assert f"Score of the checks shown: {total:g} / {total:g}" in html.unescape(page)

    # The instructor's gradebook holds the attempt that counts (the last, no deadline), at its receipt time.
    scores = gradebook.score_table(course.root, assignments=[LESSON])[(LESSON, "ada")]
    assert sum(scores.values()) == total
    from nbgrader.api import Gradebook

    with Gradebook(gradebook.db_url(course.root)) as gb:
        stamp = gb.find_submission(LESSON, "ada").timestamp
        # What formgrader shows beside each answer: how many graded attempts the item took.
        said = gb.find_comment("tensor_rank", LESSON, LESSON, "ada").auto_comment
    assert said == "Graded on receipt: 2 graded attempts, full points first at attempt 2.", said
    assert (
        abs((stamp.replace(tzinfo=None) - parse_time(second["received_at"]).replace(tzinfo=None)).total_seconds())
        < 1e-3
    )

    # Attempts per item: every item took Ada two graded attempts, which the class report shows.
    tries = attempts.per_item(course.root, assignments=[LESSON])
    assert tries and all(
        t == {"students": 1, "attempts": 2, "mean_to_full": 2.0, "never_full": 0} for t in tries.values()
    )
    report = commands.make_report(course.root, out=course.root.parent / "report").read_text(encoding="utf-8")
    assert (
        "<h2>Attempts on receipt</h2>" in report
        and "<td>tensor_rank</td><td>1</td><td>2</td><td>2.0</td><td>0</td>" in report
    )

    # Past the limit: received and kept, not graded.
    reply = hand_in(course, tokens["ada"], ada, wrong)
    assert reply["grading"]["state"] == "kept" and "kept" in reply["message"]
    time.sleep(3)
    kept = [s for s in client(course, tokens["ada"]).submissions(LESSON) if s["id"] == reply["id"]][0]
    assert kept["grading"]["state"] == "kept" and kept["feedback"] is None
    assert sum(gradebook.score_table(course.root, assignments=[LESSON])[(LESSON, "ada")].values()) == total


@pytest.mark.slow
def test_the_queue_survives_a_crash_of_the_service(receipt, tokens, exchange_hub):
    course = receipt["course"]
    receipt["grader"].stop()
    wrong, _ = notebooks()
    reply = hand_in(course, tokens["ben"], course.home("ben"), wrong)
    assert reply["grading"]["state"] == "queued"
    exchange_hub.kill_service()  # the hub starts it again; nothing was graded meanwhile
    after = [s for s in client(course, tokens["ben"]).submissions(LESSON) if s["id"] == reply["id"]][0]
    assert after["grading"]["state"] == "queued" and after["feedback"] is None
    receipt["grader"] = ReceiptGrader(course.root, exchange_hub.url, receipt["token_file"], receipt["grader"].log)
    done = wait_for_feedback(course, tokens["ben"], reply["id"], receipt["grader"].log)
    found, _ = fetched_rows(course, tokens["ben"], course.home("ben"), done)
    assert found and all(r["verdict"] in (feedback.FAILED, feedback.WRONG) for r in found.values())
