"""The course checked against itself through the project's grader.

For every assignment: the source notebook handed in as-is earns full marks, the untouched release
earns zero on every item, and every wrong/right solution of the corpus (tests/corpus/) loses or keeps
exactly its item's points.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from autograder import commands
from autograder.authoring import corpus
from autograder.grades import gradebook
from tests.conftest import ROOT, lessons, released_copy

pytestmark = pytest.mark.slow


def _submit(course: Path, student: str, lesson: str, nb) -> None:
    target = course / "submitted" / student / lesson / f"{lesson}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)


@pytest.fixture(scope="module")
def graded(tmp_path_factory, released_course):
    course = released_copy(released_course, tmp_path_factory.mktemp("grading") / "course")
    expected: dict[tuple[str, str], dict[str, float]] = {}
    for lesson in lessons():
        source = nbformat.read(course / "source" / lesson / f"{lesson}.ipynb", as_version=4)
        release = nbformat.read(course / "release" / lesson / f"{lesson}.ipynb", as_version=4)
        points = corpus.points_of(source)
        _submit(course, "solution", lesson, source)
        expected[(lesson, "solution")] = points
        _submit(course, "blank", lesson, release)
        expected[(lesson, "blank")] = {gid: 0.0 for gid in points}
        if (course / "tests" / "corpus" / f"{lesson}.py").is_file():
            for student in corpus.students(course, lesson):
                _submit(course, student.name, lesson, student.notebook)
                expected[(lesson, student.name)] = student.expected
    stats: dict = {}
    results = commands.grade(course, progress=False, stats=stats)
    table = gradebook.score_table(course)
    yield {
        "course": course,
        "expected": expected,
        "results": results,
        "table": table,
        "stats": stats,
        "flags": gradebook.tamper_flags(course),
    }
    shutil.rmtree(course, ignore_errors=True)


def _cases() -> list[tuple[str, str]]:
    cases = []
    for lesson in lessons():
        cases += [(lesson, "solution"), (lesson, "blank")]
        path = ROOT / "tests" / "corpus" / f"{lesson}.py"
        if path.is_file():
            cases += [(lesson, s.name) for s in corpus.students(ROOT, lesson)]
    return cases


@pytest.mark.parametrize("lesson, student", _cases())
def test_scores(graded, lesson, student):
    assert graded["results"][(student, lesson)] == "ok"
    found = graded["table"][(lesson, student)]
    expected = graded["expected"][(lesson, student)]
    assert found == pytest.approx(expected), {
        k: (expected[k], found.get(k)) for k in expected if expected[k] != found.get(k)
    }


@pytest.mark.parametrize("lesson", lessons())
def test_corpus_is_big_enough(lesson):
    """Each item has at least three wrong and four right alternative solutions."""
    items = corpus.load(ROOT, lesson)
    source = nbformat.read(ROOT / "source" / lesson / f"{lesson}.ipynb", as_version=4)
    from autograder.authoring.samples import answer_items

    assert set(items) == set(answer_items(source)), "every item needs corpus entries"
    for item, table in items.items():
        assert len(table.get("wrong", [])) >= 3, item
        assert len(table.get("right", [])) >= 4, item


def test_honest_code_never_trips_the_guard(graded):
    """Solutions, blank releases and every wrong and right answer of the corpus are honest: nothing is flagged."""
    assert graded["flags"] == []
    assert graded["stats"].get("tampering", {}) == {}
