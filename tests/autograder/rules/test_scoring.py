"""The scoring rule: nbgrader's own rule on the judge's outputs, what tampering costs, when a record is stale."""

from __future__ import annotations

import nbformat
import pytest
from nbgrader import utils

from autograder.rules import scoring

INPUTS = dict(
    content="c" * 64,
    template_hash="t" * 64,
    limits={"cell_timeout": 60.0},
    code_hash="k",
    files_hash="f",
    tests_in_sandbox=False,
)


def notebook(test_outputs: list) -> nbformat.NotebookNode:
    answer = nbformat.v4.new_code_cell("def f():\n    return 1\n")
    answer.metadata.nbgrader = {"grade_id": "f", "solution": True, "grade": False, "locked": False, "schema_version": 3}
    answer.metadata.nbgrader["checksum"] = "not the release's"
    test = nbformat.v4.new_code_cell("assert f() == 1\n", outputs=test_outputs)
    test.metadata.nbgrader = {
        "grade_id": "test_f",
        "grade": True,
        "solution": False,
        "locked": True,
        "points": 2,
        "schema_version": 3,
    }
    return nbformat.v4.new_notebook(cells=[answer, test])


def test_a_passing_test_cell_scores_its_points_and_a_failing_one_nothing():
    assert scoring.summarise(notebook([]))["grades"] == {"test_f": (2.0, None)}
    failed = nbformat.v4.new_output("error", ename="AssertionError", evalue="", traceback=[])
    assert scoring.summarise(notebook([failed]))["grades"] == {"test_f": (0.0, None)}


def test_a_flagged_item_scores_nothing_needs_review_and_says_why():
    nb = notebook([scoring.tampered_output("the guard saw a frame read")])
    assert utils.determine_grade(nb.cells[1])[0] == 0.0, "nbgrader's own rule reads the tampered output as a failure"
    found = scoring.summarise(notebook([]), scoring.flagged_items([{"item": "f", "details": ["a frame read"]}]))
    assert found["grades"] == {"test_f": (0.0, True)}
    assert found["comments"]["f"].startswith(scoring.TAMPER_COMMENT + ": a frame read")


def test_tampering_outside_any_item_flags_no_cell():
    assert scoring.flagged_items([{"item": None, "details": ["a thread"]}, {"item": "f", "details": ["x", "y"]}]) == {
        "f": "x; y"
    }


def test_the_record_key_changes_with_every_input_and_only_then():
    base = scoring.record_key(**INPUTS)
    assert scoring.record_key(**INPUTS) == base
    changed = {
        "content": "d" * 64,
        "template_hash": "u" * 64,
        "limits": {"cell_timeout": 61.0},
        "code_hash": "k2",
        "files_hash": "g",
        "tests_in_sandbox": True,
    }
    for name, value in changed.items():
        assert scoring.record_key(**{**INPUTS, name: value}) != base, name


@pytest.mark.parametrize("record", [{"summary": {"grades": {}, "comments": {}}}])
def test_a_record_that_carries_its_values_is_taken_as_it_is(record):
    assert scoring.summary_of(record) == record["summary"]
