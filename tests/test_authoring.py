"""Lesson files parse by the documented grammar, and source/ is exactly what they generate."""

from __future__ import annotations

import pytest

from autograder.authoring import LessonSyntaxError, build_notebook, parse_lesson, render
from tests.conftest import ROOT, lessons

GOOD = '''# %% [markdown]
# # Title
#
# Text.

# %%
x = 1

# %% answer f
def f():
    """Why."""
    ### BEGIN SOLUTION
    return 1
    ### END SOLUTION

# %% test f points=2
from course.checks import check_equal
check_equal(f(), 1)
### BEGIN HIDDEN TESTS
check_equal(f(), 1)
### END HIDDEN TESTS
'''


def test_parse_builds_nbgrader_cells():
    nb = build_notebook(parse_lesson(GOOD))
    kinds = [(c.cell_type, c.metadata.get("nbgrader", {}).get("grade_id")) for c in nb.cells]
    assert kinds == [("markdown", None), ("code", None), ("code", "f"), ("code", "test_f")]
    assert nb.cells[0].source == "# Title\n\nText."
    test = nb.cells[3].metadata["nbgrader"]
    assert test["grade"] and test["locked"] and test["points"] == 2 and not test["solution"]
    answer = nb.cells[2].metadata["nbgrader"]
    assert answer["solution"] and not answer["grade"] and not answer["locked"]


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("x = 1\n", "before the first"),
        ("# %% bogus\n", "unknown cell marker"),
        ("# %% [markdown]\nnot a comment\n", "must start with"),
        (GOOD.replace("# %% test f points=2", "# %% test g points=2"), "every item needs"),
        (GOOD.replace("### BEGIN HIDDEN TESTS", "").replace("### END HIDDEN TESTS", ""), "no hidden tests"),
        (GOOD.replace("    ### BEGIN SOLUTION\n", "").replace("    ### END SOLUTION\n", ""), "no solution region"),
        (GOOD.replace("check_equal(f(), 1)\n### BEGIN", "### BEGIN"), "no visible check"),
    ],
)
def test_grammar_errors_name_the_problem(text, fragment):
    with pytest.raises(LessonSyntaxError, match=fragment):
        parse_lesson(text)


@pytest.mark.parametrize("lesson", lessons())
def test_source_matches_lesson_file(lesson, request):
    """Golden check: source/ is generated. `pytest --regenerate` rewrites it."""
    expected = render(ROOT / "lessons" / f"{lesson}.py")
    target = ROOT / "source" / lesson / f"{lesson}.ipynb"
    if request.config.getoption("--regenerate"):
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(expected, encoding="utf-8")
    assert target.read_text(encoding="utf-8") == expected, f"source/{lesson} is stale: run `autograder build {lesson}`"
