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

# nbgrader's settings for the markers, and the text of each this course writes after the comment mark
DELIMITERS = {
    ("ClearSolutions", "begin_solution_delimeter"): BEGIN_SOLUTION.removeprefix("### "),
    ("ClearSolutions", "end_solution_delimeter"): END_SOLUTION.removeprefix("### "),
    ("ClearHiddenTests", "begin_test_delimeter"): BEGIN_HIDDEN.removeprefix("### "),
    ("ClearHiddenTests", "end_test_delimeter"): END_HIDDEN.removeprefix("### "),
}


def marker_mismatch(config: dict) -> str | None:
    """Why the course's nbgrader settings (`config`, by section) mark solutions or hidden tests otherwise
    than the grader reads them, in one line; None when they agree (nbgrader's default text, with or
    without the comment mark: nbgrader finds it anywhere in a line)."""
    for (section, key), text in DELIMITERS.items():
        given = dict(config.get(section, {})).get(key)
        if given is not None and given not in (text, f"### {text}"):
            return (
                f"c.{section}.{key} is {given!r}, but the grader, its leak scan and its repair read nbgrader's "
                f"default markers ({text!r}); remove the setting or set it to {text!r}"
            )
    return None


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
