"""nbgrader's notebook rules as the course uses them: item names, and the markers nbgrader and the grader share."""

from __future__ import annotations

import pytest
from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions

from autograder.config import nbconfig, settings
from autograder.rules import items
from tests.conftest import ROOT


def test_an_item_and_its_test_cell_name_each_other():
    assert items.test_cell("numpy_to_tensor_shape") == "test_numpy_to_tensor_shape"
    assert items.item_of(items.test_cell("answer_device_mix")) == "answer_device_mix"
    assert items.item_of("numpy_to_tensor_shape") == "numpy_to_tensor_shape"
    assert items.is_test_cell("test_x") and not items.is_test_cell("x_test")
    assert items.short_name("test_answer_device_mix") == "device_mix"


def test_the_markers_are_nbgraders_defaults_and_the_course_keeps_them():
    defaults = {
        ("ClearSolutions", "begin_solution_delimeter"): ClearSolutions().begin_solution_delimeter,
        ("ClearSolutions", "end_solution_delimeter"): ClearSolutions().end_solution_delimeter,
        ("ClearHiddenTests", "begin_test_delimeter"): ClearHiddenTests().begin_test_delimeter,
        ("ClearHiddenTests", "end_test_delimeter"): ClearHiddenTests().end_test_delimeter,
    }
    assert items.DELIMITERS == defaults
    assert items.marker_mismatch(nbconfig.load(ROOT)) is None


@pytest.mark.parametrize(
    "line, refused",
    [
        ('c.ClearSolutions.begin_solution_delimeter = "BEGIN SOLUTION"', False),
        ('c.ClearHiddenTests.end_test_delimeter = "### END HIDDEN TESTS"', False),
        ('c.ClearSolutions.begin_solution_delimeter = "BEGIN ANSWER"', True),
        ('c.ClearHiddenTests.begin_test_delimeter = "HIDDEN"', True),
    ],
)
def test_a_course_that_moves_the_markers_is_told_in_one_line(tmp_path, line, refused):
    (tmp_path / "nbgrader_config.py").write_text(f"c = get_config()\n{line}\n")
    if not refused:
        settings.read(tmp_path)
        return
    with pytest.raises(settings.SettingsError) as error:
        settings.read(tmp_path)
    assert "default markers" in str(error.value) and "\n" not in str(error.value)
