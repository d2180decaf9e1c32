"""Letter quizzes as a lesson holds them: the options its text offers and the key its hidden test holds.

The course checks itself with these (tests/test_lesson_structure.py): a quiz proves a skill only if
nothing but the skill finds its key, so no option may stand out by its form (the only one given a
reason, the longest) and no letter may be the key more often than chance in a lesson.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Callable

from autograder.authoring.lessons import Cell

OPTION = re.compile(r"^- \*\*(?P<letter>[A-Z])\.\*\* (?P<text>.*)$")
"""One option of a letter quiz in the lesson's text; lines indented by two spaces continue it."""
CODE_SPAN = re.compile(r"`[^`]*`")
REASON = re.compile(r":\s|,\s|\bbecause\b|\bsince\b")
"""Where an option's claim ends and a reason for it begins (outside code spans)."""


@dataclass(frozen=True)
class LetterQuiz:
    item: str
    options: dict[str, str]
    key: str
    line_no: int

    def reason(self, letter: str) -> str:
        """The reason an option gives after its claim ('' for a bare claim)."""
        return reason_of(self.options[letter])


def reason_of(option: str) -> str:
    """What follows an option's claim: the text after its first colon, comma, 'because' or 'since'."""
    masked = CODE_SPAN.sub(lambda m: "x" * len(m.group()), option)
    found = REASON.search(masked)
    return option[found.start() :].lstrip(":, ").strip() if found else ""


def _options(markdown: Cell) -> dict[str, str]:
    options: dict[str, str] = {}
    last = None
    for line in markdown.lines:
        if match := OPTION.match(line):
            last = match.group("letter")
            options[last] = match.group("text").strip()
        elif last is not None and line.startswith("  ") and line.strip():
            options[last] += " " + line.strip()
        else:
            last = None
    return options


def _key(test: Cell) -> str | None:
    """The letter the hidden test's `check_key` compares with, when the visible test calls `check_choice`."""
    tree = ast.parse("\n".join(test.lines))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    if not any(call.func.id == "check_choice" for call in calls):
        return None
    for call in calls:
        if call.func.id == "check_key" and len(call.args) >= 2:
            return ast.literal_eval(call.args[1])
    return None


def letter_quizzes(cells: list[Cell]) -> list[LetterQuiz]:
    """Every letter quiz of a parsed lesson, in order; its options come from the text just above its answer."""
    quizzes = []
    for position, cell in enumerate(cells):
        if cell.kind != "test":
            continue
        key = _key(cell)
        if key is None:
            continue
        answer = next(i for i in range(position, -1, -1) if cells[i].kind == "answer" and cells[i].item == cell.item)
        markdown = next(cells[i] for i in range(answer, -1, -1) if cells[i].kind == "markdown")
        quizzes.append(LetterQuiz(cell.item, _options(markdown), key, cells[answer].line_no))
    return quizzes


def _spread(letters: list[str]) -> dict[str, float]:
    return {letter: 1 / len(letters) for letter in letters}


def _the_only(quiz: LetterQuiz, reasoned: bool, otherwise: dict[str, float]) -> dict[str, float]:
    found = [letter for letter in quiz.options if bool(quiz.reason(letter)) == reasoned]
    return {found[0]: 1.0} if len(found) == 1 else otherwise


def _by_length(pick: Callable[..., int]) -> Callable[[LetterQuiz], dict[str, float]]:
    def guess(quiz: LetterQuiz) -> dict[str, float]:
        best = pick(len(text) for text in quiz.options.values())
        return _spread([letter for letter, text in quiz.options.items() if len(text) == best])

    return guess


FORM_GUESSES: dict[str, Callable[[LetterQuiz], dict[str, float]]] = {
    "the only bare option, else B": lambda quiz: _the_only(quiz, False, {"B": 1.0}),
    "the only option with a reason": lambda quiz: _the_only(quiz, True, _spread(list(quiz.options))),
    "the longest option": _by_length(max),
    "the shortest option": _by_length(min),
    **{f"always {letter}": (lambda quiz, letter=letter: {letter: 1.0}) for letter in "ABCD"},
}
"""Ways to answer a letter quiz without reading the lesson; each gives its guess as weights over letters (ties split)."""


def blind_score(quizzes: list[LetterQuiz]) -> float:
    """What picking an option at random scores on average."""
    return sum(1 / len(quiz.options) for quiz in quizzes)


def form_scores(quizzes: list[LetterQuiz]) -> dict[str, float]:
    """What each way of guessing from form scores on `quizzes`."""
    return {name: sum(guess(quiz).get(quiz.key, 0.0) for quiz in quizzes) for name, guess in FORM_GUESSES.items()}


def mixed_form(quiz: LetterQuiz) -> str:
    """The letters whose options give a reason, when some but not all do ('' when the form is the same)."""
    reasoned = "".join(sorted(letter for letter in quiz.options if quiz.reason(letter)))
    return reasoned if 0 < len(reasoned) < len(quiz.options) else ""


def key_spread(quizzes: list[LetterQuiz]) -> dict[str, int]:
    """How often each letter offered is the key."""
    letters = sorted({letter for quiz in quizzes for letter in quiz.options})
    return {letter: sum(quiz.key == letter for quiz in quizzes) for letter in letters}
