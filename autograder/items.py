"""nbgrader's notebook rules as this course uses them: how an item's test cell is named, and the markers.

One place for both, so a module that reads a notebook never spells them itself. The markers are nbgrader's
defaults (`ClearSolutions`, `ClearHiddenTests`); the course's nbgrader_config.py keeps them.
"""

from __future__ import annotations

TEST_PREFIX = "test_"  # an item's test cell is named test_<item>
QUIZ_PREFIX = "answer_"  # a quiz item is the variable answer_<name>

BEGIN_SOLUTION = "### BEGIN SOLUTION"
END_SOLUTION = "### END SOLUTION"
BEGIN_HIDDEN = "### BEGIN HIDDEN TESTS"
END_HIDDEN = "### END HIDDEN TESTS"


def test_cell(item: str) -> str:
    """The grade id of `item`'s test cell."""
    return f"{TEST_PREFIX}{item}"


def item_of(grade_id: str) -> str:
    """The item a test cell's grade id names (an answer cell's grade id is the item already)."""
    return grade_id.removeprefix(TEST_PREFIX)


def is_test_cell(grade_id: str) -> bool:
    return grade_id.startswith(TEST_PREFIX)


def short_name(grade_id: str) -> str:
    """The item without its test or quiz prefix, for a narrow table."""
    return item_of(grade_id).removeprefix(QUIZ_PREFIX)
