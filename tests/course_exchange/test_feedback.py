"""Feedback on receipt leaks nothing: for every item of the course, a wrong answer's feedback shows its
verdict, and holds no line of a hidden test, no quiz key and no quiz explanation.

Each lesson's `wrong-0` student of the corpus (every item answered wrong) is graded by the real engine
in the grader's scratch course, as submissions on receipt are, and its page is read as the student gets it.
"""

from __future__ import annotations

import ast
import datetime as dt
import html
import re

import nbformat
import pytest

from autograder.authoring import corpus, leaks, samples
from course_exchange import feedback
from course_exchange.policy import Policy
from course_exchange.receipt import Attempt, Grader
from tests.conftest import ROOT, copy_course, lessons
from tests.quiz_keys import key_of

RULES = Policy(on_receipt=True, attempts=0, shows="verdicts", score=True)  # the most the feedback can show


def rows(page: str) -> dict[str, dict[str, str]]:
    """item -> {"verdict", "message", "text"} of each check row of a feedback page."""
    out = {}
    for item, body in re.findall(r'<tr class="check [a-z]+" data-item="([^"]+)">(.*?)</tr>', page):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", body)
        out[item] = {"verdict": cells[1], "message": html.unescape(cells[3]), "text": html.unescape(body)}
    return out


def quiz_explanation(source: nbformat.NotebookNode, item: str) -> str:
    for cell in source.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == f"test_{item}":
            for node in ast.walk(ast.parse(cell.source)):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "check_key":
                    return ast.literal_eval(next(k.value for k in node.keywords if k.arg == "why"))
    raise LookupError(item)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """{lesson: (wrong-0's page, its variants)} graded in one engine run."""
    course = copy_course(tmp_path_factory.mktemp("receipt") / "course", with_release=False)
    grader = Grader(course, workers=2)
    grader.start()
    try:
        attempts, variants = [], {}
        for number, lesson in enumerate(lessons(), start=1):
            student = next(s for s in corpus.students(ROOT, lesson) if s.name == "wrong-0")
            attempt = Attempt(number, "wrong0", lesson, dt.datetime.now(dt.timezone.utc), 1, RULES)
            grader.folder(attempt).mkdir(parents=True)
            nbformat.write(student.notebook, grader.folder(attempt) / f"{lesson}.ipynb")
            attempts.append(attempt)
            variants[lesson] = student.variants
        results = grader.grade(attempts)
    finally:
        grader.close()
    return {
        r.attempt.assignment: (r.pages[r.attempt.assignment], variants[r.attempt.assignment], r.reason) for r in results
    }


@pytest.mark.slow
@pytest.mark.parametrize("lesson", lessons())
def test_a_wrong_answer_is_told_it_failed_and_sees_no_secret(graded, lesson):
    page, variants, reason = graded[lesson]
    assert reason is None
    source = nbformat.read(ROOT / "source" / lesson / f"{lesson}.ipynb", as_version=4)
    found = rows(page)
    kinds = feedback.test_cells(source)
    assert set(found) == {g.removeprefix("test_") for g in kinds}  # every check is reported
    text = html.unescape(page)
    hidden = leaks.secret_lines(source, regions=leaks.HIDDEN_TESTS)
    assert hidden, f"{lesson} has hidden tests to look for"
    assert not [line for line in hidden if line in text], "hidden test source in the feedback"
    assert not [line for line in leaks.secret_lines(source) if line in text], (
        "solution or hidden test source in the feedback"
    )
    for item in samples.answer_items(source):
        row = found[item]
        wrong = variants.get(item, "").startswith("wrong")
        if kinds[f"test_{item}"] == "quiz":
            assert row["verdict"] == (feedback.WRONG if wrong else feedback.RIGHT)
            assert row["message"] == ""  # right or wrong, nothing more
            assert quiz_explanation(source, item) not in text
            assert repr(key_of(lesson, item)) not in row["text"]
        else:
            assert row["verdict"] == (feedback.FAILED if wrong else feedback.PASSED), (item, row)
            if wrong:
                assert row["message"], f"{item}: a failed check says why"
