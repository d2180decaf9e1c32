"""A test's score is its verdict: output on stderr never costs a passing test, with either grader.

nbgrader scores a test cell 0 when its outputs hold a stderr stream. PyTorch warns on stderr about
honest code (`torch.tensor(t)` of a tensor), so lesson 02's `to_float32` written that way is right
and must keep its points under stock `nbgrader autograde` (through `course.checks`) as under
`autograder grade` (through the grader's own rule); a noisy wrong answer must still lose them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from autograder import commands
from autograder.authoring import corpus, samples
from autograder.grades import gradebook
from tests.conftest import released_copy

pytestmark = pytest.mark.slow
LESSON = "02_dtype"
ITEM = "to_float32"

ANSWERS = {
    # Right, and PyTorch prints a UserWarning about copy-constructing from a tensor.
    "warns-right": "def to_float32(t):\n    return torch.tensor(t, dtype=torch.float32)\n",
    # Right, and prints to stderr itself on every call.
    "prints-right": (
        "import sys\n\ndef to_float32(t):\n"
        "    print('converting', tuple(t.shape), file=sys.stderr)\n    return t.to(torch.float32)\n"
    ),
    # Wrong (float16), with the same warning: it must still lose.
    "warns-wrong": "def to_float32(t):\n    return torch.tensor(t, dtype=torch.float16)\n",
}
KEEPS = {"warns-right": True, "prints-right": True, "warns-wrong": False}


def _class(course: Path) -> dict[str, float]:
    source = nbformat.read(course / "source" / LESSON / f"{LESSON}.ipynb", as_version=4)
    release = nbformat.read(course / "release" / LESSON / f"{LESSON}.ipynb", as_version=4)
    full = samples.answered(source, release, keep=None)
    for student, code in ANSWERS.items():
        target = course / "submitted" / student / LESSON / f"{LESSON}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(samples.with_answer(full, ITEM, code), target)
    return corpus.points_of(source)


@pytest.fixture(scope="module", params=["nbgrader", "autograder"])
def graded(request, tmp_path_factory, released_course):
    course = released_copy(released_course, tmp_path_factory.mktemp(request.param) / "course")
    points = _class(course)
    commands.grade(course, assignments=[LESSON], grader=request.param, progress=False)
    yield course, points, gradebook.score_table(course)
    shutil.rmtree(course, ignore_errors=True)


@pytest.mark.parametrize("student", sorted(ANSWERS))
def test_noisy_answers_score_by_verdict(graded, student):
    course, points, table = graded
    scores = table[(LESSON, student)]
    expected = {gid: (p if gid != f"test_{ITEM}" or KEEPS[student] else 0.0) for gid, p in points.items()}
    assert scores == pytest.approx(expected), {
        k: (expected[k], scores.get(k)) for k in expected if expected[k] != scores.get(k)
    }


@pytest.mark.parametrize("student", ["warns-right", "prints-right"])
def test_the_noise_is_still_shown(graded, student):
    """The student reads the warning (or the print) in the test cell's output, as plain output."""
    course, _, _ = graded
    nb = nbformat.read(course / "autograded" / student / LESSON / f"{LESSON}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == f"test_{ITEM}")
    streams = [o for o in cell.outputs if o.output_type == "stream"]
    text = "".join(o.text for o in streams)
    assert ("UserWarning" in text) if student == "warns-right" else ("converting (3,)" in text), text
    assert all(o.name == "stdout" for o in streams)
