"""The course's feedback page names every item and wraps long output lines; nbgrader's does neither.

Pages are rendered in-process by nbgrader's own `generate_feedback` exporter, configured from the
course's nbgrader_config.py. That the engine's pages equal stock nbgrader's under this template is
`test_feedback_pages.py`'s job (its class is graded with the course's configuration).
"""

from __future__ import annotations

import re

import pytest
from traitlets.config import Config

from autograder.config import nbconfig
from autograder.grades import feedback_pages, feedback_template
from autograder.rules import items
from tests.conftest import ROOT

EXPLANATION = "Not right: " + " ".join(["a view shares its storage with the tensor it was taken from"] * 8)
GRADED = ["tensor_rank", "answer_slice_view", "pad_images"]


def _notebook():
    """A graded notebook as GetGrades leaves it: a solution with a comment, one test cell per item, and a
    quiz whose failure printed one long line."""
    import nbformat

    cells = []
    for item in GRADED:
        solution = nbformat.v4.new_code_cell(f"{item} = None")
        solution.metadata["nbgrader"] = {"grade_id": item, "solution": True, "grade": False, "comment": "Look again."}
        test = nbformat.v4.new_code_cell(f"check({item})")
        test.metadata["nbgrader"] = {"grade_id": items.test_cell(item), "grade": True, "solution": False}
        test.metadata["nbgrader"].update(score=0.0, points=1.0)
        if item.startswith(items.QUIZ_PREFIX):
            test.outputs = [
                nbformat.v4.new_output("error", ename="CheckFailed", evalue=EXPLANATION, traceback=[EXPLANATION])
            ]
        cells += [solution, test]
    return nbformat.v4.new_notebook(cells=cells, metadata={"language_info": {"name": "python"}})


def render(config: Config) -> str:
    """The page nbgrader's `generate_feedback` exporter writes for `_notebook()` under `config`."""
    from nbconvert import HTMLExporter
    from nbgrader.converters import GenerateFeedback
    from nbgrader.coursedir import CourseDirectory

    converter = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
    exporter = HTMLExporter(config=converter.config)
    marks = {"notebook": "lesson", "score": 0.0, "max_score": float(len(GRADED)), "late_penalty": 0.0}
    html, _ = exporter.from_notebook_node(_notebook(), resources={"nbgrader": marks})
    return html


def table_of_contents(html: str) -> list[str]:
    toc = html[html.index('<div id="toc">') : html.index("</div>", html.index('<div id="toc">'))]
    return [re.sub(r"<[^>]+>", "", entry).strip() for entry in re.findall(r"<a href=[^>]*>(.*?)</a>", toc)]


@pytest.fixture(scope="module")
def course_page() -> str:
    return render(nbconfig.load(ROOT))


def test_the_course_page_names_every_item_and_each_comment(course_page):
    names = [items.item_of(items.test_cell(item)) for item in GRADED]
    assert table_of_contents(course_page) == [entry for name in names for entry in (f"Comment on {name}", name)]
    assert "Test cell" not in course_page


def test_nbgraders_own_page_names_none(course_page):
    stock = render(Config())
    assert table_of_contents(stock) == ["Comment", "Test cell"] * len(GRADED)
    assert "white-space: pre-wrap" not in stock and "white-space: pre-wrap" in course_page


def test_the_course_configures_the_named_items_page():
    assert feedback_template.is_named_items(nbconfig.load(ROOT)["HTMLExporter"])


def test_the_engine_writes_the_named_items_page_itself():
    config = nbconfig.load(ROOT)
    assert feedback_pages.fast_path_refusal(config) is None
    config.HTMLExporter.exclude_input = True
    assert feedback_pages.fast_path_refusal(config) == "the course configures HTMLExporter"
    config = nbconfig.load(ROOT)
    config.HTMLExporter.filters = {"item_name": "builtins.str"}
    assert feedback_pages.fast_path_refusal(config) == "the course configures HTMLExporter"


@pytest.mark.browser
def test_a_student_reads_every_item_and_every_line_in_a_browser(course_page, browser, tmp_path):
    page_file = tmp_path / "feedback.html"
    page_file.write_text(course_page, encoding="utf-8")
    shot = tmp_path / "feedback.png"
    page = browser.new_page(viewport={"width": 800, "height": 900})
    try:
        page.goto(page_file.as_uri())
        links = page.locator("#toc a").all_inner_texts()
        cut = page.evaluate(
            "() => [...document.querySelectorAll('div.output_area pre')]"
            ".filter(p => p.scrollWidth > p.clientWidth + 1).map(p => p.innerText.slice(0, 40))"
        )
        shown = page.locator("div.output_area pre").first.inner_text()
        page.screenshot(path=str(shot), full_page=True)
    finally:
        page.close()
    print(f"feedback page screenshot: {shot}")
    assert [link.strip() for link in links] == table_of_contents(course_page), shot
    assert cut == [], shot
    assert " ".join(shown.split()) == EXPLANATION, shot
