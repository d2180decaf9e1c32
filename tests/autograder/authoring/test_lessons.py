"""Lesson files parse by the documented grammar, and source/ is exactly what they generate."""

from __future__ import annotations

import re

import pytest

from autograder.authoring.lessons import LessonSyntaxError, build_notebook, course_order, parse_lesson, render
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


@pytest.mark.parametrize("kind", ["rule", "recall"])
def test_a_quiz_marker_carries_its_kind_and_leaves_the_notebook_as_it_was(kind):
    marked = GOOD.replace("# %% answer f", f"# %% answer f quiz={kind}")
    answer = next(c for c in parse_lesson(marked) if c.kind == "answer")
    assert answer.item == "f" and answer.quiz == kind
    assert build_notebook(parse_lesson(marked)) == build_notebook(parse_lesson(GOOD))
    assert next(c for c in parse_lesson(GOOD) if c.kind == "answer").quiz is None


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
        (GOOD.replace("# %% answer f", "# %% answer f quiz=hard"), "quiz= takes one of rule, recall"),
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


def _course_with_lessons(tmp_path, ids, order=None):
    (tmp_path / "lessons").mkdir()
    for lesson in ids:
        (tmp_path / "lessons" / f"{lesson}.py").write_text(GOOD, encoding="utf-8")
    if order is not None:
        (tmp_path / "lessons" / "ORDER").write_text(order, encoding="utf-8")
    return tmp_path


def test_course_order_follows_the_order_file(tmp_path):
    course = _course_with_lessons(
        tmp_path, ["01_a", "02_b", "03_c", "04_d"], "# comment\n01_a\n\n03_c  # taught early\n02_b\n03_c\n"
    )
    assert course_order(course) == ["01_a", "03_c", "02_b", "04_d"], "unlisted ids follow, sorted; repeats count once"
    assert course_order(course, ["04_d", "02_b", "01_a", "02_b"]) == ["01_a", "02_b", "04_d"]


def test_course_order_without_the_file_is_the_order_of_ids(tmp_path):
    assert course_order(_course_with_lessons(tmp_path, ["02_b", "01_a"])) == ["01_a", "02_b"]


def test_the_order_file_names_every_lesson_once():
    listed = [
        line.split("#", 1)[0].strip() for line in (ROOT / "lessons" / "ORDER").read_text(encoding="utf-8").splitlines()
    ]
    listed = [name for name in listed if name]
    assert sorted(listed) == lessons() and len(set(listed)) == len(listed)


def test_readme_lists_the_lessons_in_course_order():
    table = re.findall(r"^\| `(\d\d_\w+)` \|", (ROOT / "README.md").read_text(encoding="utf-8"), re.M)
    assert table == course_order(ROOT)


def test_curriculum_sections_follow_the_course_order():
    sections = re.findall(r"^## (\d\d_\w+):", (ROOT / "docs" / "curriculum.md").read_text(encoding="utf-8"), re.M)
    assert sections == course_order(ROOT)


def test_titles_are_numbered_in_course_order(tmp_path):
    """A lesson's title carries its place in lessons/ORDER, whatever its id or the number its file wrote."""
    import json

    course = _course_with_lessons(tmp_path, ["01_a", "02_b", "03_c"], "03_c\n01_a\n")
    (course / "lessons" / "02_b.py").write_text(GOOD.replace("# # Title", "# # Lesson 9: Title"), encoding="utf-8")
    titles = {
        lesson: json.loads(render(course / "lessons" / f"{lesson}.py"))["cells"][0]["source"][0].rstrip("\n")
        for lesson in ("01_a", "02_b", "03_c")
    }
    assert titles == {"03_c": "# Lesson 1: Title", "01_a": "# Lesson 2: Title", "02_b": "# Lesson 3: Title"}


def test_each_lesson_ends_with_the_folder_of_the_next_one_taught(tmp_path):
    """The last cell names the next lesson in lessons/ORDER and its folder; where the folder's number is not
    the lesson's place, it says why, so a student who opens folders in sorted order is not lost."""
    import json

    course = _course_with_lessons(tmp_path, ["01_a", "02_b", "03_c"], "02_b\n01_a\n03_c\n")
    (course / "lessons" / "01_a.py").write_text(GOOD.replace("# # Title", "# # Lesson 7: Second"), encoding="utf-8")
    last = {
        lesson: "".join(json.loads(render(course / "lessons" / f"{lesson}.py"))["cells"][-1]["source"])
        for lesson in ("02_b", "01_a", "03_c")
    }
    assert last["02_b"] == (
        "That is the end of lesson 1. Next: lesson 2, *Second*, in the folder `01_a`. Folders keep the number"
        " their lesson was first given, so they do not sort in the order taught."
    )
    assert last["01_a"] == "That is the end of lesson 2. Next: lesson 3, *Title*, in the folder `03_c`."
    assert last["03_c"] == "That is the end of lesson 3, the last lesson of the course."


def test_references_to_other_lessons_are_numbered_in_course_order(tmp_path):
    """`lesson {id}` in the text becomes the lesson's place in lessons/ORDER, so moving a lesson moves every reference."""
    import json

    course = _course_with_lessons(tmp_path, ["01_a", "02_b", "03_c"], "03_c\n01_a\n")
    text = GOOD.replace(
        "# Text.", "# Text after lesson {03_c}; lessons {02_b} and {01_a} follow.\n# A dict `{1: 2}` stays."
    )
    (course / "lessons" / "01_a.py").write_text(text, encoding="utf-8")
    page = "".join(json.loads(render(course / "lessons" / "01_a.py"))["cells"][0]["source"])
    assert "Text after lesson 1; lessons 3 and 2 follow." in page and "`{1: 2}`" in page
    (course / "lessons" / "ORDER").write_text("01_a\n02_b\n03_c\n", encoding="utf-8")
    page = "".join(json.loads(render(course / "lessons" / "01_a.py"))["cells"][0]["source"])
    assert "Text after lesson 3; lessons 2 and 1 follow." in page


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("# As lesson 5 showed.", "numbers a lesson: name it by its id in braces"),
        ("# Lessons 1 and 4 agree.", "numbers a lesson"),
        ("# As lesson {07_z} showed.", "names 07_z, not a lesson of the course (01_a, 02_b)"),
    ],
)
def test_a_reference_by_number_or_to_no_lesson_is_refused_with_its_line(tmp_path, line, fragment):
    course = _course_with_lessons(tmp_path, ["01_a", "02_b"])
    (course / "lessons" / "02_b.py").write_text(GOOD.replace("# Text.", line), encoding="utf-8")
    with pytest.raises(LessonSyntaxError, match=re.escape(fragment)) as raised:
        render(course / "lessons" / "02_b.py")
    assert "02_b.py:1:" in str(raised.value) and line.lstrip("# ") in str(raised.value)
