"""nbgrader's own test notebooks, graded by stock `nbgrader autograde` and by the engine, compared cell by cell.

The notebooks ship inside the nbgrader package (`nbgrader/tests/apps/files`); each assignment is built the way
nbgrader's `test_nbgrader_autograde.py` builds it (the source notebook, `autotests.yml` in the course's root,
`nbgrader generate_assignment`) in a course that has nothing of this one's configuration. Every graded cell
must get the same score and the same manual-grading flag from both, but for the cells in `DIFFERENT`, each a
test cell that needs the student's kernel, which the engine does not run tests in yet (docs/grading.md); the
test checks that those still differ, so the list cannot outlive the difference.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from autograder import commands, stock
from autograder.grades import gradebook

pytestmark = pytest.mark.slow

AUTOTEST = ("simple", "hashed", "multi", "hidden")
ASSIGNMENTS = {  # assignment: (source notebook, {student: submitted notebook})
    "simple": ("autotest-simple", {"foo": "autotest-simple-unchanged", "bar": "autotest-simple-changed"}),
    "hashed": ("autotest-hashed", {"foo": "autotest-hashed-unchanged", "bar": "autotest-hashed-changed"}),
    "multi": ("autotest-multi", {"foo": "autotest-multi-unchanged", "bar": "autotest-multi-changed"}),
    "hidden": (
        "autotest-hidden",
        {
            "foo": "autotest-hidden-unchanged",
            "bar": "autotest-hidden-changed-wrong",
            "baz": "autotest-hidden-changed-right",
        },
    ),
    "hidden_tests": ("test-hidden-tests", {"foo": "test-hidden-tests"}),
    "with_output": ("test-with-output", {"foo": "test-with-output"}),
    "environment": ("validating-environment-variable", {"foo": "validating-environment-variable"}),
    "relative_file": ("open_relative_file", {"foo": "open_relative_file"}),  # reads data.txt beside the notebook
}
BESIDE = {"relative_file": "data.txt"}  # files of the assignment's source folder
DELETES_A_STUDENT_NAME = "the test deletes and restores the student's `squares` (`del squares`)"
DIFFERENT = {
    ("hidden_tests", "foo", "sum_of_squares_uses_squares"): DELETES_A_STUDENT_NAME,
    ("with_output", "foo", "sum_of_squares_uses_squares"): DELETES_A_STUDENT_NAME,
}


def _files() -> Path:
    import nbgrader

    return Path(nbgrader.__file__).parent / "tests" / "apps" / "files"


def _cells(course: Path) -> dict[tuple[str, str, str], tuple]:
    """(assignment, student, grade cell): (automatic score, maximum, needs manual grading)."""
    from nbgrader.api import Gradebook

    out = {}
    with Gradebook(gradebook.db_url(course)) as gb:
        for assignment in gb.assignments:
            for submission in assignment.submissions:
                for notebook in submission.notebooks:
                    for grade in notebook.grades:
                        out[(assignment.name, submission.student_id, grade.name)] = (
                            grade.auto_score,
                            grade.max_score,
                            grade.needs_manual_grade,
                        )
    return out


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    files = _files()
    base = tmp_path_factory.mktemp("nbgrader_material")
    out = {}
    for grader in ("nbgrader", "autograder"):
        course = base / grader
        course.mkdir()
        (course / "nbgrader_config.py").write_text("c = get_config()\n", encoding="utf-8")
        shutil.copy(files / "autotests.yml", course / "autotests.yml")
        for assignment, (source, students) in ASSIGNMENTS.items():
            (course / "source" / assignment).mkdir(parents=True)
            shutil.copy(files / f"{source}.ipynb", course / "source" / assignment / "p1.ipynb")
            if assignment in BESIDE:
                shutil.copy(files / BESIDE[assignment], course / "source" / assignment / BESIDE[assignment])
            stock.run_nbgrader(course, "db", "assignment", "add", assignment)
            stock.generate_assignment(course, assignment)
            for student, submitted in students.items():
                folder = course / "submitted" / student / assignment
                folder.mkdir(parents=True)
                shutil.copy(files / f"{submitted}.ipynb", folder / "p1.ipynb")
        results = commands.grade(course, progress=False, grader=grader, workers=2)
        assert set(results.values()) == {"ok"}, results
        out[grader] = _cells(course)
    return out


def test_every_submission_has_its_cells_graded(graded):
    expected = {(a, s) for a, (_, students) in ASSIGNMENTS.items() for s in students}
    for grader in ("nbgrader", "autograder"):
        assert {(a, s) for a, s, _ in graded[grader]} == expected, grader


def test_autotest_cells_score_as_nbgraders(graded):
    ours, theirs = graded["autograder"], graded["nbgrader"]
    autotest = {key for key in theirs if key[0] in AUTOTEST}
    assert {key: ours.get(key) for key in autotest} == {key: theirs[key] for key in autotest}
    blank = {key: theirs[key][0] for key in autotest if key[1] == "foo"}
    assert set(blank.values()) == {0.0}, "a blank notebook scores nothing on AUTOTEST cells"


def test_every_other_cell_scores_as_nbgraders(graded):
    ours, theirs = graded["autograder"], graded["nbgrader"]
    same = {key for key in theirs if key not in DIFFERENT}
    assert {key: ours.get(key) for key in same} == {key: theirs[key] for key in same}


@pytest.mark.parametrize("cell", sorted(DIFFERENT))
def test_known_differences_still_differ(graded, cell):
    assert graded["autograder"][cell] != graded["nbgrader"][cell], f"now the same: remove it from DIFFERENT ({cell})"
