"""nbgrader's stderr rule: a test cell that writes to stderr scores 0, unless the course opts out.

A plain nbgrader course (nothing of this one's configuration) is graded by stock `nbgrader autograde` and by
the engine: a correct answer that warns, or prints to stderr, scores 0 under both, as nbgrader's
`determine_grade` rules. The same class graded again with `c.Autograder.stderr_fails_test = False` (what this
course sets) keeps those points, and a wrong answer still scores 0.
"""

from __future__ import annotations

import copy
import shutil

import nbformat
import pytest

from autograder import commands, stock
from autograder.grades import gradebook

pytestmark = pytest.mark.slow

ASSIGNMENT = "ps1"
ANSWERS = {
    "quiet": "def double(x):\n    return 2 * x",
    "warns": "def double(x):\n    import warnings\n    warnings.warn('careful with x')\n    return 2 * x",
    "prints_to_stderr": "def double(x):\n    import sys\n    print('doubling', file=sys.stderr)\n    return 2 * x",
    "wrong": "def double(x):\n    return x",
}
STDERR_COSTS = {"quiet": 1.0, "warns": 0.0, "prints_to_stderr": 0.0, "wrong": 0.0}
VERDICT_ALONE = {"quiet": 1.0, "warns": 1.0, "prints_to_stderr": 1.0, "wrong": 0.0}


def _meta(grade_id: str, *, solution: bool, points: int = 0) -> dict:
    meta = {"grade_id": grade_id, "grade": not solution, "solution": solution, "locked": not solution}
    return {"nbgrader": {**meta, "schema_version": 3, **({"points": points} if points else {})}}


def _source() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        nbformat.v4.new_markdown_cell("Write `double(x)`, which returns twice `x`."),
        nbformat.v4.new_code_cell(
            "def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION",
            metadata=_meta("double", solution=True),
        ),
        nbformat.v4.new_code_cell(
            "assert double(2) == 4\nassert double(-3) == -6", metadata=_meta("test_double", solution=False, points=1)
        ),
    ]
    return nb


def _course(root, *, opt_out: bool):
    root.mkdir(parents=True)
    config = "c = get_config()\n" + ("c.Autograder.stderr_fails_test = False\n" if opt_out else "")
    (root / "nbgrader_config.py").write_text(config, encoding="utf-8")
    (root / "source" / ASSIGNMENT).mkdir(parents=True)
    nbformat.write(_source(), root / "source" / ASSIGNMENT / "p1.ipynb")
    stock.run_nbgrader(root, "db", "assignment", "add", ASSIGNMENT)
    stock.generate_assignment(root, ASSIGNMENT)
    release = nbformat.read(root / "release" / ASSIGNMENT / "p1.ipynb", as_version=4)
    for student, answer in ANSWERS.items():
        nb = copy.deepcopy(release)
        next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "double").source = answer
        (root / "submitted" / student / ASSIGNMENT).mkdir(parents=True)
        nbformat.write(nb, root / "submitted" / student / ASSIGNMENT / "p1.ipynb")
    return root


def _scores(course) -> dict[str, float]:
    return {student: items["test_double"] for (_, student), items in gradebook.score_table(course).items()}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("stderr_rule")
    out = {}
    for name, grader, opt_out in (
        ("nbgrader", "nbgrader", False),
        ("autograder", "autograder", False),
        ("opted_out", "autograder", True),
    ):
        course = _course(base / name, opt_out=opt_out)
        results = commands.grade(course, progress=False, grader=grader, workers=2)
        assert set(results.values()) == {"ok"}, results
        out[name] = (course, _scores(course))
    return out


def test_stock_nbgrader_scores_stderr_zero(graded):
    assert graded["nbgrader"][1] == STDERR_COSTS


def test_the_engine_follows_nbgraders_rule_by_default(graded):
    assert graded["autograder"][1] == STDERR_COSTS


def test_a_course_that_opts_out_scores_the_verdict_alone(graded):
    assert graded["opted_out"][1] == VERDICT_ALONE
    course, _ = graded["opted_out"]
    nb = nbformat.read(course / "autograded" / "warns" / ASSIGNMENT / "p1.ipynb", as_version=4)
    test = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test_double")
    streams = [o for o in test.outputs if o.output_type == "stream"]
    assert streams and all(o.name == "stdout" for o in streams) and "careful with x" in streams[0].text


def test_the_setting_is_read_from_the_course(graded, tmp_path):
    from autograder.config import settings

    assert settings.read_limits(graded["autograder"][0]).stderr_fails_test is True
    assert settings.read_limits(graded["opted_out"][0]).stderr_fails_test is False
    shutil.copy(graded["opted_out"][0] / "nbgrader_config.py", tmp_path / "nbgrader_config.py")
    with open(tmp_path / "nbgrader_config.py", "a", encoding="utf-8") as handle:
        handle.write("c.Autograder.stderr_fails_test = 'sometimes'\n")
    with pytest.raises(settings.SettingsError, match="stderr_fails_test must be True or False"):
        settings.read(tmp_path)
