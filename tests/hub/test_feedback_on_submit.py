"""Feedback on submit, in a browser, through the course's JupyterHub: the grader on receipt is the hub
service deploy/jupyterhub/course.py adds, grading as the grader account in the course directory.

1. The instructor turns grading on receipt on for lesson 01 (two graded attempts per student) and
   releases it.
2. Ada answers every item as the instructor did except one function (the corpus's first wrong answer,
   a slip only the hidden checks catch) and one quiz (a wrong letter), and submits in the
   Assignments tab. Feedback is offered within seconds; she fetches it and reads, in JupyterLab's
   viewer, that exactly those two checks failed and every other one passed.
3. She fixes both, submits again, fetches the new feedback and reads full marks.
4. Ben submits his blank notebook and reads his own feedback; Ada's folder and tab hold only her own
   pages, and her server's token cannot fetch his.
5. Ada's third submission is received and kept but not graded: the limit holds, and no feedback is
   offered for it.
"""

from __future__ import annotations

import re
import time
import urllib.parse

import nbformat
import pytest

from autograder.authoring import corpus, samples
from course_exchange import feedback
from course_exchange.client import RequestRefused
from tests.hub.lab import AssignmentsTab, UserLab, log_in
from tests.quiz_keys import key_of

pytestmark = [pytest.mark.hub, pytest.mark.slow]

LESSON = "01_tensors"
WRONG_FUNCTION = "tensor_rank"
WRONG_QUIZ = "answer_rank_meaning"
ON_RECEIPT = {LESSON: {"attempts": 2, "shows": "verdicts", "score": True}}
FEEDBACK_WAIT_S = 600  # the grader's judges start with the hub; a bound on a hang, not a speed claim
TIMESTAMP = re.compile(r"^\s*(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \w+)")


def _answers(course_dir) -> dict[str, str]:
    """The instructor's answer to every item of the lesson, by grade id."""
    source = nbformat.read(course_dir / "source" / LESSON / f"{LESSON}.ipynb", as_version=4)
    release = nbformat.read(course_dir / "release" / LESSON / f"{LESSON}.ipynb", as_version=4)
    solution = samples.answered(source, release, keep=None)
    wanted = set(samples.answer_items(release))
    return {
        c.metadata.nbgrader.grade_id: c.source
        for c in solution.cells
        if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") in wanted
    }


def _submissions(tab: AssignmentsTab) -> dict[str, str]:
    """timestamp -> the text of its line in the Submitted list (with "(view feedback)" and the like)."""
    tab.refresh()
    out = {}
    for text in tab.row("submitted", LESSON).locator(".nested_list_item .item_name").all_inner_texts():
        found = TIMESTAMP.match(text)
        if found:
            out[found.group(1)] = text
    return out


def _submit(tab: AssignmentsTab) -> str:
    """Press Submit; returns the new submission's timestamp as the Submitted list shows it."""
    before = set(_submissions(tab)) if tab.row("submitted", LESSON).count() else set()
    tab.row("fetched", LESSON).get_by_role("button", name="Submit").click()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        tab.page.wait_for_timeout(1000)
        new = set(_submissions(tab)) - before
        if new:
            [stamp] = new
            return stamp
    raise AssertionError("the Submitted list shows no new submission")


def _wait_for_offer(tab: AssignmentsTab, stamp: str) -> None:
    deadline = time.monotonic() + FEEDBACK_WAIT_S
    while time.monotonic() < deadline:
        if "feedback available to fetch" in _submissions(tab).get(stamp, ""):
            return
        tab.page.wait_for_timeout(1000)
    raise AssertionError(f"no feedback offered for the submission of {stamp} within {FEEDBACK_WAIT_S} s")


def _log_in_and_fetch(room, page, student) -> AssignmentsTab:
    """The student logs in, opens the Assignments tab and fetches the lesson."""
    tab = AssignmentsTab(page, UserLab(room.hub, student.name, student.home))
    log_in(page, room.hub, student)
    tab.open()
    tab.fetch(LESSON)
    return tab


def _read_feedback(tab: AssignmentsTab, stamp: str) -> tuple[dict[str, str], str]:
    """Fetch Feedback, follow the submission's "(view feedback)" into the file browser and open its page in
    JupyterLab's viewer; returns {item: verdict} and the page's text."""
    tab.row("submitted", LESSON).get_by_role("button", name="Fetch Feedback").click()
    line = tab.row("submitted", LESSON).locator(".nested_list_item").filter(has_text=stamp)
    line.locator("a").filter(has_text="view feedback").wait_for(timeout=120_000)
    line.locator("a").filter(has_text="view feedback").click()
    # Every submission's folder holds a page of the same name: wait until the file browser shows this
    # submission's folder, or the double click may open the page of the one it showed before.
    tab.page.locator(".jp-BreadCrumbs").filter(has_text=stamp).wait_for(timeout=60_000)
    tab.page.locator(".jp-DirListing-item").filter(has_text=f"{LESSON}.html").dblclick()
    tab.page.wait_for_url(lambda url: stamp in urllib.parse.unquote(url), timeout=60_000)
    frame = tab.page.frame_locator(".jp-MainAreaWidget:not(.lm-mod-hidden) iframe")
    frame.locator("tr.check").first.wait_for(timeout=60_000)
    verdicts = {}
    for row in frame.locator("tr.check").all():
        verdicts[row.get_attribute("data-item")] = row.locator("td.verdict").inner_text().strip()
    return verdicts, frame.locator("body").inner_text()


def test_feedback_on_submit(classroom, new_page):
    room = classroom
    hub = room.hub
    ada, ben = room.students["ada"], room.students["ben"]

    with room.step("instructor turns grading on receipt on and releases the lesson"):
        with open(room.course_dir / "nbgrader_config.py", "a", encoding="utf-8") as fh:
            fh.write(f"\nc.AssignmentPolicy.on_receipt = {ON_RECEIPT!r}\n")
        hub.as_grader("autograder", "release", LESSON)
        hub.as_grader("nbgrader", "release_assignment", LESSON)
    right = _answers(room.course_dir)
    wrong_letter = next(letter for letter in "ABCD" if letter != key_of(LESSON, WRONG_QUIZ))
    slip = corpus.load(room.course_dir, LESSON)[WRONG_FUNCTION]["wrong"][0]
    first = dict(right, **{WRONG_FUNCTION: slip, WRONG_QUIZ: f'{WRONG_QUIZ} = "{wrong_letter}"\n'})

    page = new_page()
    with room.step("ada answers with one wrong function and one wrong quiz, and submits", page):
        tab = _log_in_and_fetch(room, page, ada)
        view = tab.open_notebook(LESSON, room.artifacts)
        for cell in view.cells:
            if cell.solution:
                view.type_answer(cell.index, first[cell.grade_id], paste=True)
        view.save()
        tab.show()
        stamp1 = _submit(tab)

    with room.step("ada reads which checks failed", page):
        _wait_for_offer(tab, stamp1)
        verdicts, text = _read_feedback(tab, stamp1)
        failed = {item for item, verdict in verdicts.items() if verdict in (feedback.FAILED, feedback.WRONG)}
        assert failed == {WRONG_FUNCTION, WRONG_QUIZ}, verdicts
        assert set(verdicts) == set(right), verdicts
        assert ada.name in text and "attempt 1 of 2" in text, text[:500]

    with room.step("ada fixes both, resubmits and reads full marks", page):
        tab.show()
        view = tab.open_notebook(LESSON, room.artifacts)
        for cell in view.cells:
            if cell.grade_id in (WRONG_FUNCTION, WRONG_QUIZ):
                view.type_answer(cell.index, right[cell.grade_id], paste=True)
        view.save()
        tab.show()
        stamp2 = _submit(tab)
        _wait_for_offer(tab, stamp2)
        verdicts, text = _read_feedback(tab, stamp2)
        assert set(verdicts) == set(right) and all(v in (feedback.PASSED, feedback.RIGHT) for v in verdicts.values()), (
            verdicts
        )
        total = re.search(r"Score of the checks shown: ([\d.]+) / ([\d.]+)", text)
        assert total and total.group(1) == total.group(2), text[:800]
        assert "attempt 2 of 2" in text

    ben_page = new_page()
    with room.step("ben submits his blank notebook and reads only his own feedback", ben_page):
        ben_tab = _log_in_and_fetch(room, ben_page, ben)
        ben_stamp = _submit(ben_tab)
        _wait_for_offer(ben_tab, ben_stamp)
        verdicts, text = _read_feedback(ben_tab, ben_stamp)
        assert verdicts and all(v in (feedback.FAILED, feedback.WRONG) for v in verdicts.values()), verdicts
        assert ben.name in text and ada.name not in text

    with room.step("ada's tab, folder and token hold nothing of ben's", page):
        assert set(_submissions(tab)) == {stamp1, stamp2}
        pages = sorted((ada.home / LESSON / "feedback").glob(f"*/{LESSON}.html"))
        assert len(pages) == 2 and all(ben.name not in p.read_text(encoding="utf-8") for p in pages), pages
        [ben_submission] = hub.exchange(hub.grader_token).submissions(LESSON, student=ben.name)
        as_ada = hub.exchange(hub.server_token(ada))
        with pytest.raises(RequestRefused) as refused:
            as_ada.fetch_feedback(LESSON, ben_submission["id"])
        assert refused.value.status == 404, refused.value.message

    with room.step("ada's third submission is kept, not graded", page):
        tab.show()
        stamp3 = _submit(tab)
        received = hub.exchange(hub.grader_token).submissions(LESSON, student=ada.name)
        assert [s["grading"]["state"] for s in received][-1] == "kept", received
        page.wait_for_timeout(5000)
        line = _submissions(tab)[stamp3]
        assert "feedback" not in line, line
        assert hub.exchange(hub.grader_token).submissions(LESSON, student=ada.name)[-1]["feedback"] is None
