"""A student's session in JupyterLab, driven in headless Chromium.

For every released lesson: run each cell, see the pictures and the device line, and no error outside
the exercises. For the first lesson (every lesson with BROWSER_ANSWER_LESSONS=all): type one answer
right and one wrong, run the visible checks, press Validate and read what it says. The student's
JupyterLab shows no instructor tool; the same JupyterLab without the student configuration does,
which shows the check can fail.
"""

from __future__ import annotations

import os
import re

import nbformat
import pytest

from autograder.authoring.samples import answered
from student_view import ROOT, StudentView, artifacts_dir, released_lessons, wrong_answer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSONS = released_lessons()
INSTRUCTOR_TOOLS = ("Formgrader", "Course List", "Create Assignment", "Create assignment")
NEWS_PROMPT = "Would you like to get notified about official Jupyter news?"  # JupyterLab's own words
FAILED_CHECK = re.compile(r"Expected .+ but found", re.S)


def _answered_lessons() -> set[str]:
    chosen = os.environ.get("BROWSER_ANSWER_LESSONS", "")
    if chosen == "all":
        return set(LESSONS)
    return set(chosen.split(",")) if chosen else set(LESSONS[:1])


def _solution(lesson: str, grade_id: str) -> str:
    """The instructor's answer for one item, as a student would type it (markers removed)."""
    source = nbformat.read(ROOT / "source" / lesson / f"{lesson}.ipynb", as_version=4)
    release = nbformat.read(ROOT / "release" / lesson / f"{lesson}.ipynb", as_version=4)
    nb = answered(source, release, keep={grade_id})
    return next(c.source for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id)


def _errors(nb_json: dict) -> dict[int, list[str]]:
    found = {}
    for index, cell in enumerate(nb_json["cells"]):
        names = [o.get("ename", "") for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if names:
            found[index] = names
    return found


@pytest.mark.parametrize("lesson", LESSONS)
def test_student_works_through_the_lesson(lesson, student_lab, page):
    view = StudentView(page, student_lab, lesson, artifacts_dir())
    answers = [c for c in view.cells if c.solution]
    tests = {c.grade_id: c for c in view.cells if c.grade}

    with view.step("open"):
        view.open()

    with view.step("run every cell"):
        view.run_all_one_by_one()

    with view.step("device line"):
        first_code = next(c for c in view.cells if c.kind == "code")
        assert re.search(r"device '(cpu|cuda(:\d+)?)'", view.output_text(first_code.index)), (
            f"the first code cell of {lesson} does not say which device the lesson will use"
        )

    with view.step("pictures"):
        images = view.images()
        drawn = [i for i in images if i["in_output"]]
        assert drawn, f"{lesson} shows no picture drawn by its cells"
        blank = [i for i in images if not (i["width"] > 0 and i["height"] > 0)]
        assert not blank, f"images that did not render (cell indices): {[i['cell'] for i in blank]}"

    with view.step("errors only in the exercises"):
        saved = view.save()
        exercise_cells = {c.index for c in view.cells if c.solution or c.grade}
        allowed = {c.index for c in view.cells if "raises-exception" in c.tags}
        stray = {
            i: e
            for i, e in _errors(saved).items()
            if i not in exercise_cells | allowed and e != ["NotImplementedError"]
        }
        assert not stray, f"cells outside the exercises raised errors: {stray}"
        errors = _errors(saved)
        silent = [c.grade_id for c in view.cells if c.grade and c.index not in errors]
        assert not silent, f"visible checks that pass before anything is answered: {silent}"

    if lesson not in _answered_lessons():
        return
    right, wrong = answers[0], answers[1]

    with view.step("type answers"):
        view.type_answer(right.index, _solution(lesson, right.grade_id), paste=True)
        view.type_answer(wrong.index, wrong_answer(wrong))

    with view.step("run the visible checks"):
        for cell in (right, tests[f"test_{right.grade_id}"], wrong, tests[f"test_{wrong.grade_id}"]):
            view.run(cell.index)
        passing = view.output_text(tests[f"test_{right.grade_id}"].index)
        assert f"✓ {right.grade_id}: the visible checks pass." in passing, passing
        failing = view.output_text(tests[f"test_{wrong.grade_id}"].index)
        assert "CheckFailed" in failing and FAILED_CHECK.search(failing), failing
        assert "✓" not in failing, failing

    with view.step("validate"):
        dialog = view.validate()
        message = dialog.locator("#validation-message")
        assert "validation-failed" in (message.get_attribute("class") or ""), message.inner_text()
        text = message.inner_text()
        assert FAILED_CHECK.search(text), text
        # a test cell ends with passed("<item>"), a quiz's with form_checked("<item>")
        assert f'("{wrong.grade_id}")' in text, "the wrong answer's test cell is not listed as failing"
        assert f'("{right.grade_id}")' not in text, "the right answer's test cell is listed as failing"
        dialog.get_by_role("button", name="Ok").click()
        dialog.wait_for(state="detached")


def _instructor_tools(view: StudentView) -> list[str]:
    seen = [f"menu entry {e!r}" for e in view.menu_entries("Nbgrader") if e in INSTRUCTOR_TOOLS]
    seen += [
        f"side bar tab {t!r}"
        for t in view.sidebar_titles()
        if any(tool.lower() in t.lower() for tool in INSTRUCTOR_TOOLS)
    ]
    seen += [f"command {c!r}" for c in view.commands_matching("formgrader")]
    seen += [f"command {c!r}" for c in view.commands_matching("create assignment")]
    if view.lab.status_of("formgrader") == 200:
        seen.append("the /formgrader page")
    return seen


def test_student_sees_no_instructor_tools(student_lab, page):
    view = StudentView(page, student_lab, LESSONS[0], artifacts_dir())
    with view.step("open"):
        view.open()
    with view.step("no instructor tools"):
        assert view.page.locator(".jp-NotebookPanel-toolbar").filter(has_text="Validate").count() == 1, (
            "no Validate button"
        )
        assert _instructor_tools(view) == []
    with view.step("nothing that needs the hub, no news prompt"):
        assert view.menu_entries("Nbgrader") == [] and view.commands_matching("Assignment List") == []
        assert view.page.get_by_text(NEWS_PROMPT).count() == 0, "JupyterLab asks about its news"


def test_without_the_student_configuration_the_tools_show(instructor_lab, page):
    view = StudentView(page, instructor_lab, LESSONS[0], artifacts_dir())
    with view.step("open (instructor)"):
        view.open()
    with view.step("instructor tools (instructor)"):
        seen = _instructor_tools(view)
        assert any("Formgrader" in s for s in seen) and any("Create Assignment" in s for s in seen), seen
    with view.step("what the bundle turns off (instructor)"):
        view.page.get_by_text(NEWS_PROMPT).wait_for(timeout=30_000)
        assert "Assignment List" in view.menu_entries("Nbgrader")
