"""The README's main job: `autograder demo` grades the sample class end to end and leaves the tree alone.

Also the promise that stock `nbgrader autograde` and `autograder grade` agree on the demo class,
except where the engine deliberately does better: a kernel that dies half-way costs stock nbgrader
the whole submission, while the engine grades the rest of it.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from autograder import commands
from autograder.grades import gradebook
from autograder.authoring import samples
from tests.conftest import ROOT, copy_course

pytestmark = pytest.mark.slow
LESSON = "01_tensors"


def _tree_hash() -> str:
    digest = hashlib.sha256()
    for folder in ("source", "release", "lessons", "course", "autograder"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(ROOT)).encode() + path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory) -> Path:
    before = _tree_hash()
    leftovers = {p.name for p in ROOT.iterdir()}
    work = commands.demo(ROOT, assignments=[LESSON], keep=tmp_path_factory.mktemp("demo") / "work")
    assert _tree_hash() == before, "the demo changed the working tree"
    assert {p.name for p in ROOT.iterdir()} == leftovers, "the demo left files in the working tree"
    return work


def test_demo_grades_every_kind_of_student(demo_dir):
    table = gradebook.score_table(demo_dir)
    scores = {student: sum(table[(LESSON, student)].values()) for (_, student) in table}
    full = sum(samples_points(demo_dir).values())
    assert scores["ada"] == full
    assert scores["blake"] == 0
    assert 0 < scores["chen"] < full
    assert scores["dana"] == full, "the cell that kills its process is skipped; no item depends on it"
    assert scores.get("eve", 0) == 0
    for path in ("grades.csv", "grades-lms.csv", "report/report.html", "report/items.csv"):
        assert (demo_dir / path).is_file(), path
    assert any((demo_dir / "feedback").rglob("*.html"))


def samples_points(course: Path) -> dict[str, float]:
    import nbformat

    from autograder.authoring.corpus import points_of

    return points_of(nbformat.read(course / "source" / LESSON / f"{LESSON}.ipynb", as_version=4))


def test_stock_nbgrader_agrees(demo_dir, tmp_path):
    course = copy_course(tmp_path / "stock")
    samples.write_demo_class(course, assignments=[LESSON])
    commands.release(course, assignments=[LESSON], progress=False)
    commands.grade(course, assignments=[LESSON], grader="nbgrader", progress=False)
    stock = gradebook.score_table(course)
    engine = gradebook.score_table(demo_dir)
    for student in ("ada", "blake", "chen"):
        assert engine[(LESSON, student)] == stock[(LESSON, student)], student
    assert sum(stock.get((LESSON, "dana"), {}).values()) == 0, "stock nbgrader loses the whole crashed submission"
    shutil.rmtree(course, ignore_errors=True)


def test_feedback_shows_verdicts_and_messages_never_hidden_source(demo_dir):
    """A student with a wrong answer reads the check's plain-words message, and no hidden test line."""
    import html

    import nbformat

    from autograder.authoring import corpus, leaks

    wrong = next(s for s in corpus.students(ROOT, LESSON) if s.name == "wrong-0")
    target = demo_dir / "submitted" / "fay" / LESSON / f"{LESSON}.ipynb"
    target.parent.mkdir(parents=True)
    nbformat.write(wrong.notebook, target)
    assert commands.grade(demo_dir, assignments=[LESSON], student="fay", progress=False) == {("fay", LESSON): "ok"}
    commands.feedback(demo_dir, assignments=[LESSON], student="fay")
    page = html.unescape((demo_dir / "feedback" / "fay" / LESSON / f"{LESSON}.html").read_text(encoding="utf-8"))
    assert "Expected" in page and "but found" in page, "a failing check's message reaches the student"
    assert "is right." in page or "is not right." in page, "quiz verdicts come with their explanation"
    hidden_only = leaks.secret_lines(
        nbformat.read(demo_dir / "source" / LESSON / f"{LESSON}.ipynb", as_version=4), regions=leaks.HIDDEN_TESTS
    )
    assert hidden_only
    shown = [s for s in hidden_only if s in page]
    assert not shown, f"hidden test source in the feedback: {shown[:3]}"
    for path in (demo_dir / "autograded" / "fay").rglob("*.ipynb"):
        text = path.read_text(encoding="utf-8")
        assert "BEGIN HIDDEN TESTS" not in text
        assert not [s for s in hidden_only if s in text]


def test_demo_table_prints_whole_item_names_within_100_columns(demo_dir):
    table = commands.format_table(demo_dir, assignments=[LESSON], notes={"ada": "every answer correct"})
    items = {row.item.removeprefix("test_").removeprefix("answer_") for row in gradebook.item_scores(demo_dir)}
    first_words = {line.split()[0] for line in table.splitlines() if line.strip()}
    assert items <= first_words, items - first_words
    assert max(len(line) for line in table.splitlines()) <= 100
    assert "ada: every answer correct" in table
