"""The letter-quiz reader and the ways of guessing from form: a giveaway course is caught, a fair one is not."""

from __future__ import annotations

import pytest

from autograder.authoring.lessons import parse_lesson
from autograder.authoring.quizzes import (
    LetterQuiz,
    blind_score,
    form_scores,
    key_spread,
    letter_quizzes,
    mixed_form,
    reason_of,
)

LESSON = """# %% [markdown]
# ### Quiz: a sum
#
# What is `torch.ones(2, 3).sum()`?
#
# - **A.** `tensor(5.)`: the sizes add up.
# - **B.** `tensor(6.)`
# - **C.** a `RuntimeError`, because the
#   tensor has two dimensions.
# - **D.** `tensor(3.)` since only the last dimension counts.

# %% answer answer_sum quiz=rule
# One upper-case letter as a string, for example "A".
answer_sum = None
### BEGIN SOLUTION
answer_sum = "B"
### END SOLUTION

# %% test answer_sum points=1
from course.quiz import check_choice
check_choice(answer_sum, "ABCD", name="answer_sum")
### BEGIN HIDDEN TESTS
from course.quiz import check_key
check_key(answer_sum, "B", name="answer_sum", why="2 * 3 ones.")
### END HIDDEN TESTS

# %% answer answer_shape quiz=rule
# A tuple of ints.
answer_shape = None
### BEGIN SOLUTION
answer_shape = (2, 3)
### END SOLUTION

# %% test answer_shape points=1
from course.quiz import check_int_tuple
check_int_tuple(answer_shape, name="answer_shape")
### BEGIN HIDDEN TESTS
from course.quiz import check_key
check_key(answer_shape, (2, 3), name="answer_shape", why="Two rows of three.")
### END HIDDEN TESTS
"""


def _quiz(options: dict[str, str], key: str) -> LetterQuiz:
    return LetterQuiz("answer_x", options, key, 1)


def test_a_letter_quiz_is_read_with_its_options_continued_lines_and_key():
    (quiz,) = letter_quizzes(parse_lesson(LESSON))
    assert quiz.item == "answer_sum" and quiz.key == "B"
    assert quiz.options["C"] == "a `RuntimeError`, because the tensor has two dimensions."
    assert list(quiz.options) == ["A", "B", "C", "D"]


@pytest.mark.parametrize(
    ("option", "reason"),
    [
        ("`tensor(6.)`", ""),
        ("`tensor(5.)`: the sizes add up.", "the sizes add up."),
        ("On the GPU, since PyTorch prefers it.", "since PyTorch prefers it."),
        ("`tensor(3.)` since only the last dimension counts.", "since only the last dimension counts."),
        ("`torch.Size([1, 3])`", ""),
        ("`x.view(2, 3)` raises", ""),
    ],
)
def test_a_reason_starts_at_a_colon_comma_because_or_since_outside_code(option, reason):
    assert reason_of(option) == reason


def test_the_quiz_whose_key_alone_is_bare_is_caught_by_its_form():
    (quiz,) = letter_quizzes(parse_lesson(LESSON))
    assert mixed_form(quiz) == "ACD"
    assert form_scores([quiz])["the only bare option, else B"] == 1.0


def test_a_course_of_giveaways_beats_chance_and_a_fair_one_does_not():
    giveaways = [
        _quiz({"A": "`1`: a reason", "B": "`2`: a reason", "C": "`3`", "D": "`4`: a reason"}, "C"),
        _quiz({"A": "`10`", "B": "`20`: a reason", "C": "`30`: a reason", "D": "`40`: a reason"}, "A"),
        _quiz({"A": "short", "B": "the longest option of all", "C": "middling", "D": "tiny"}, "B"),
        _quiz({"A": "short", "B": "the longest option of all", "C": "middling", "D": "tiny"}, "B"),
    ]
    scores = form_scores(giveaways)
    assert blind_score(giveaways) == 1.0
    assert scores["the only bare option, else B"] == 4.0 and scores["the longest option"] == 2.0
    assert key_spread(giveaways) == {"A": 1, "B": 2, "C": 1, "D": 0}

    fair = [_quiz({"A": "`1`", "B": "`2`", "C": "`3`", "D": "`4`"}, letter) for letter in "ABCD"]
    assert max(form_scores(fair).values()) == pytest.approx(blind_score(fair)) == 1.0
    assert key_spread(fair) == {"A": 1, "B": 1, "C": 1, "D": 1}
    assert not any(mixed_form(quiz) for quiz in fair)


def test_ties_share_a_guess():
    quiz = _quiz({"A": "`11`", "B": "`22`", "C": "`3`", "D": "`4`"}, "A")
    assert form_scores([quiz])["the longest option"] == 0.5
    assert form_scores([quiz])["the shortest option"] == 0.0
