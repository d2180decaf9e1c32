"""One assignment's round trip through the course's JupyterHub, in a browser, as a class lives it.

1. The instructor (through the grader account, root here) runs `autograder release` and nbgrader's
   `release_assignment`, which sends lesson 01 to the exchange service (course_exchange/, a hub
   service running as an account of its own).
2. Two students log in with their system passwords. Each opens the Assignments tab, fetches the
   lesson, opens it from there, types answers (ada every item right, in her own words; ben half of
   them right and the rest wrong), saves, presses Validate and then Submit, all in JupyterLab.
3. The grader account runs `nbgrader collect`, `autograder grade`, `autograder feedback` and
   `nbgrader release_feedback`, with every sandbox layer active.
4. Each student fetches the feedback in the Assignments tab and opens it: their own scores, item by
   item, and their own code, never the other student's.
5. The gradebook holds both students' scores as their answers predict, and the instructor sees both
   submissions in the course's formgrader, which a student may not open.

On top of that what keeps students apart is checked from a student's own account: another student's
home, the exchange's store and the course directory are closed to them, and the token the hub gave
their server can neither read a classmate's submission, nor submit as the classmate, nor collect.
"""

from __future__ import annotations

import json

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.authoring import corpus, samples
from course_exchange.client import RequestRefused
from tests.browser.student_view import notebook_cells, wrong_answer
from tests.hub.hub import COURSE_ID, run_as
from tests.hub.lab import AssignmentsTab, UserLab, feedback_scores, log_in

pytestmark = [pytest.mark.hub, pytest.mark.slow]

LESSON = "01_tensors"
ADA, BEN = "ada", "ben"  # the students' roles (classroom.students maps them to system users)
SUCCESS = "Success! Your notebook passes all the tests."


def _flat(text: str) -> str:
    return " ".join(text.split())


def _plan(course_dir) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, float]], set[str]]:
    """What each student types into each answer cell, the score each test cell should then earn, and
    which of ben's items fail even the visible checks.

    ada writes the corpus's first alternative correct answer for every item. ben writes the
    instructor's answer for every other item; of the rest, the first returns nothing at all (its
    visible checks fail) and the others are the corpus's first wrong answer, a slip the hidden checks
    catch. Every answer starts with a comment naming its author, to tell whose code a page shows.
    """
    source = nbformat.read(course_dir / "source" / LESSON / f"{LESSON}.ipynb", as_version=4)
    release = nbformat.read(course_dir / "release" / LESSON / f"{LESSON}.ipynb", as_version=4)
    variants = corpus.load(course_dir, LESSON)
    points = corpus.points_of(source)
    cells = {c.grade_id: c for c in notebook_cells(course_dir / "release" / LESSON / f"{LESSON}.ipynb") if c.solution}
    items = samples.answer_items(release)
    solution = samples.answered(source, release, keep=None)
    instructor = {
        c.metadata.nbgrader.grade_id: c.source
        for c in solution.cells
        if c.metadata.get("nbgrader", {}).get("grade_id") in cells
    }

    answers: dict[str, dict[str, str]] = {ADA: {}, BEN: {}}
    expected: dict[str, dict[str, float]] = {ADA: dict(points), BEN: dict(points)}
    visibly_wrong: set[str] = set()
    for position, item in enumerate(items):
        answers[ADA][item] = variants[item]["right"][0]
        if position % 2 == 0:
            answers[BEN][item] = instructor[item]
            continue
        if not visibly_wrong:
            answers[BEN][item] = wrong_answer(cells[item])
            visibly_wrong.add(item)
        else:
            answers[BEN][item] = variants[item]["wrong"][0]
        expected[BEN][f"test_{item}"] = 0.0
    for student, table in answers.items():
        for item, code in table.items():
            table[item] = f"# {student}'s answer\n{code}"
    return answers, expected, visibly_wrong


def _test_cell_source(course_dir, item: str) -> str:
    cells = notebook_cells(course_dir / "release" / LESSON / f"{LESSON}.ipynb")
    return next(c.source for c in cells if c.grade_id == f"test_{item}")


def test_round_trip(classroom, new_page):
    room = classroom
    hub = room.hub

    with room.step("instructor releases the lesson"):
        hub.as_grader("autograder", "release", LESSON)
        hub.as_grader("nbgrader", "release_assignment", LESSON)
        assert LESSON in {r["assignment"] for r in hub.exchange(hub.grader_token).releases()}
    answers, expected, visibly_wrong = _plan(room.course_dir)

    tabs: dict[str, AssignmentsTab] = {}
    for role, student in room.students.items():
        name = student.name
        page = new_page()
        lab = UserLab(hub, name, student.home)
        tab = tabs[role] = AssignmentsTab(page, lab)

        with room.step(f"{name} logs in and fetches {LESSON}", page):
            log_in(page, hub, student)
            tab.open()
            tab.fetch(LESSON)
            assert (student.home / LESSON / f"{LESSON}.ipynb").is_file()

        with room.step(f"{name}'s JupyterLab has no instructor tool", page):
            assert page.request.get(lab.page_url("api/status")).status == 200
            assert page.request.get(lab.page_url("formgrader")).status == 404
            assert tab.menu_entries() == ["Assignment List"]

        with room.step(f"{name} answers {LESSON}", page):
            view = tab.open_notebook(LESSON, room.artifacts)
            for cell in view.cells:
                if cell.solution:
                    view.type_answer(cell.index, answers[role][cell.grade_id], paste=True)
            saved = view.save()
            typed = {
                c.metadata.nbgrader.grade_id: c.source.strip()
                for c in nbformat.reads(json.dumps(saved), as_version=4).cells
                if c.get("metadata", {}).get("nbgrader", {}).get("solution")
            }
            assert typed == {k: v.strip() for k, v in answers[role].items()}, (
                "the saved notebook does not hold what was typed"
            )

        with room.step(f"{name} validates", page):
            kind, text = tab.validate(LESSON, LESSON)
            if role == ADA:
                assert "validation-success" in kind and SUCCESS in text, text
            else:
                assert "validation-failed" in kind, text
                failing = {
                    item for item in answers[BEN] if _flat(_test_cell_source(room.course_dir, item)) in _flat(text)
                }
                assert visibly_wrong <= failing, f"Validate does not list {visibly_wrong}: {text}"
                right = {item for item in answers[BEN] if expected[BEN][f"test_{item}"] > 0}
                assert not failing & right, f"Validate lists right answers as failing: {failing & right}"

        with room.step(f"{name} submits", page):
            stamp = tab.submit(LESSON)
            received = [s["timestamp"] for s in hub.exchange(hub.grader_token).submissions(LESSON, student=name)]
            assert received == [stamp], f"the Submitted list shows {stamp!r}, the exchange received {received}"

    with room.step("students cannot reach each other's work or the course"):
        ada, ben = room.students[ADA], room.students[BEN]
        own = ada.home / LESSON / f"{LESSON}.ipynb"
        assert run_as(ada, "cat", str(own)).returncode == 0
        assert run_as(ben, "cat", str(own)).returncode != 0, "ben can read ada's notebook"
        assert run_as(ben, "ls", str(room.exchange_store)).returncode != 0, "ben can list the exchange's store"
        assert run_as(ben, "touch", str(room.exchange_store / "x")).returncode != 0, (
            "ben can write into the exchange's store"
        )
        assert run_as(ben, "ls", str(room.course_dir)).returncode != 0, "ben can read the course directory"
        as_ben = hub.exchange(hub.server_token(ben))
        assert {s["student"] for s in as_ben.submissions(LESSON)} == {ben.name}
        [ada_submission] = hub.exchange(hub.grader_token).submissions(LESSON, student=ada.name)
        for attempt, status in (
            (lambda: as_ben.submissions(LESSON, student=ada.name), 403),
            (lambda: as_ben.fetch_submission(LESSON, ada_submission["id"]), 404),
            (lambda: as_ben.request("POST", f"/submissions/{LESSON}", body=b"", query={"student": ada.name}), 403),
            (lambda: as_ben.collect(LESSON), 403),
            (lambda: hub.exchange("").releases(), 401),
        ):
            with pytest.raises(RequestRefused) as refused:
                attempt()
            assert refused.value.status == status, refused.value.message

    with room.step("the grader collects, grades and releases feedback"):
        check = hub.as_grader("autograder", "sandbox-check").stdout
        assert "All confinement layers are active." in check, check
        hub.as_grader("nbgrader", "collect", LESSON)
        graded = hub.as_grader("autograder", "grade", LESSON).stdout
        assert "Graded 2 of 2 submissions" in graded, graded
        hub.as_grader("autograder", "feedback", LESSON)
        hub.as_grader("nbgrader", "release_feedback", LESSON)

    for role, tab in tabs.items():
        other = BEN if role == ADA else ADA
        with room.step(f"{tab.lab.name} fetches and reads the feedback", tab.page):
            tab.refresh()
            tab.fetch_feedback(LESSON)
            frame = tab.open_feedback(LESSON, LESSON)
            (total, maximum), scores = feedback_scores(frame)
            assert scores == pytest.approx(expected[role]), {
                k: (expected[role][k], scores.get(k)) for k in expected[role]
            }
            assert (total, maximum) == pytest.approx((sum(expected[role].values()), sum(expected[ADA].values())))
            page_text = frame.locator("body").inner_text()
            assert f"# {role}'s answer" in page_text, "the feedback does not show the student's own code"
            assert f"# {other}'s answer" not in page_text, "the feedback shows the other student's code"

    with room.step("the gradebook holds both students' scores"):
        with Gradebook(f"sqlite:///{room.course_dir / 'gradebook.db'}") as gradebook:
            for role, student in room.students.items():
                found = {gid: gradebook.find_grade(gid, LESSON, LESSON, student.name).score for gid in expected[role]}
                assert found == pytest.approx(expected[role]), (student.name, found)
                assert gradebook.find_submission(LESSON, student.name).score == pytest.approx(
                    sum(expected[role].values())
                )
        assert sum(expected[BEN].values()) < sum(expected[ADA].values())

    instructor_page = new_page()
    with room.step("the instructor sees both submissions in the formgrader", instructor_page, tabs[BEN].page):
        formgrader = f"/services/{COURSE_ID}/formgrader"
        log_in(instructor_page, hub, room.instructor, next_path=formgrader)
        instructor_page.goto(f"{hub.url}{formgrader}/manage_submissions/{LESSON}")
        for student in room.students.values():
            instructor_page.locator("tr").filter(has_text=student.name).first.wait_for()
        refused = tabs[BEN].page.request.get(f"{hub.url}{formgrader}")
        assert refused.status == 403, f"a student opens the formgrader (HTTP {refused.status})"
