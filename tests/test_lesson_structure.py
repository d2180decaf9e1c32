"""Every lesson has the same bones: objectives, a device line first, pictures, common mistakes,
a recap and things to try."""

from __future__ import annotations

import math
import re

import pytest

from autograder.authoring.lessons import course_order, parse_lesson
from autograder.rules import items as item_rules
from autograder.authoring.quizzes import LetterQuiz, blind_score, form_scores, key_spread, letter_quizzes, mixed_form
from tests.conftest import ROOT, lessons


def _cells(lesson: str):
    return parse_lesson((ROOT / "lessons" / f"{lesson}.py").read_text(encoding="utf-8"))


@pytest.mark.parametrize("lesson", lessons())
def test_lesson_bones(lesson):
    cells = _cells(lesson)
    first_md = "\n".join(cells[0].lines)
    assert cells[0].kind == "markdown" and re.search(r"objectives|you will", first_md, re.IGNORECASE), (
        "objectives up front"
    )
    first_code = next(c for c in cells if c.kind == "code")
    assert "describe_setup(device)" in "\n".join(first_code.lines), (
        "the first code cell says which device the lesson uses"
    )
    headings = [line for c in cells if c.kind == "markdown" for line in c.lines if line.startswith("#")]
    assert any("Common mistakes" in h for h in headings)
    assert any("Recap" in h for h in headings)
    everything = "\n".join("\n".join(c.lines) for c in cells if c.kind in ("markdown", "code"))
    assert re.search(r"try it", everything, re.IGNORECASE), "ungraded 'try it' cells"
    code = "\n".join("\n".join(c.lines) for c in cells if c.kind == "code")
    assert "course.pictures" in code, "at least one picture drawn by the course package"


@pytest.mark.parametrize("lesson", lessons())
def test_every_function_item_is_set_in_a_markdown_cell_of_its_own(lesson):
    """A function item's task opens with `### Your turn: `<item>`` in the markdown cell just before its
    answer (text left in a test cell's comments is locked away in a code cell, or hidden with the tests),
    then says what to write in at most two lines, then the details."""
    cells = _cells(lesson)
    for index, cell in enumerate(cells):
        if cell.kind != "answer" or cell.item.startswith(item_rules.QUIZ_PREFIX):
            continue
        before = cells[index - 1] if index else None
        assert before is not None and before.kind == "markdown", (
            f"{lesson}: {cell.item}'s answer follows no markdown cell"
        )
        assert f"### Your turn: `{cell.item}`" in before.lines, (
            f"{lesson}:{before.line_no}: the markdown cell before {cell.item}'s answer has no '### Your turn: `{cell.item}`'"
        )
        heading = before.lines.index(f"### Your turn: `{cell.item}`")
        opening = "\n".join(before.lines[heading + 1 :]).strip("\n").split("\n\n")[0].splitlines()
        assert opening[0].startswith(f"**To write:** `{cell.item}") and len(opening) <= 2, (
            f"{lesson}:{before.line_no}: {cell.item}'s task opens with '**To write:** `{cell.item}...' in at most "
            f"two lines, then the details; it opens with {opening}"
        )
    for cell in cells:
        if cell.kind in ("test", "answer"):
            stray = [line for line in cell.lines if line.startswith("# ### ")]
            assert not stray, f"{lesson}:{cell.line_no}: a heading inside {cell.item}'s {cell.kind} cell: {stray}"


@pytest.mark.parametrize("lesson", lessons())
def test_items_match_the_curriculum_conventions(lesson):
    for cell in _cells(lesson):
        if cell.kind != "answer":
            continue
        source = "\n".join(cell.lines)
        if cell.item.startswith("answer_"):
            assert f"{cell.item} = None" in source.split("### BEGIN SOLUTION")[0], f"{cell.item} starts as None"
        else:
            assert re.search(rf"^(def|class) {cell.item}\(", source, re.MULTILINE), (
                f"{cell.item} is a function or a class"
            )
            assert '"""' in source.split("### BEGIN SOLUTION")[0], f"{cell.item} keeps its docstring in the release"


def test_quizzes_say_their_kind_and_two_thirds_apply_a_rule(capsys):
    """Every quiz's answer marker says `quiz=rule` or `quiz=recall`; at least two thirds of the course's are rules."""
    kinds: dict[str, str | None] = {}
    for lesson in lessons():
        for cell in _cells(lesson):
            if cell.kind != "answer":
                continue
            if cell.item.startswith("answer_"):
                kinds[f"{lesson}:{cell.item}"] = cell.quiz
            else:
                assert cell.quiz is None, f"{lesson}:{cell.item} is not a quiz, so its marker takes no quiz="
    unmarked = sorted(name for name, kind in kinds.items() if kind is None)
    assert not unmarked, f"these quizzes need quiz=rule or quiz=recall on their answer marker: {unmarked}"
    rule = sum(kind == "rule" for kind in kinds.values())
    with capsys.disabled():
        print(f"\nquizzes: {len(kinds)}, applying a rule: {rule} ({rule / len(kinds):.0%})")
    assert 3 * rule >= 2 * len(kinds), f"only {rule} of {len(kinds)} quizzes apply a rule; at least two thirds must"


def _letter_quizzes() -> list[tuple[str, LetterQuiz]]:
    return [(lesson, quiz) for lesson in lessons() for quiz in letter_quizzes(_cells(lesson))]


def test_every_option_of_a_letter_quiz_has_the_same_form():
    """Each option gives a reason after its claim, or none does: a key is never the one option told apart."""
    mixed = []
    for lesson, quiz in _letter_quizzes():
        assert len(quiz.options) >= 3 and quiz.key in quiz.options, f"{lesson}:{quiz.item} reads as a letter quiz"
        if reasoned := mixed_form(quiz):
            mixed.append(f"{lesson}:{quiz.item} (reasons on {reasoned} only)")
    assert not mixed, "give every option a reason, or none: " + "; ".join(mixed)


@pytest.mark.parametrize("lesson", lessons())
def test_keys_are_spread_over_the_letters_in_each_lesson(lesson):
    counts = key_spread(letter_quizzes(_cells(lesson)))
    assert not counts or max(counts.values()) - min(counts.values()) <= 1, f"keys by letter in {lesson}: {counts}"


def test_no_form_heuristic_beats_chance_on_the_letter_quizzes(capsys):
    """Over the course's letter quizzes, no way of guessing from form scores more than blind guessing would."""
    quizzes = [quiz for _, quiz in _letter_quizzes()]
    chance, scores = blind_score(quizzes), form_scores(quizzes)
    with capsys.disabled():
        print(f"\nletter quizzes: {len(quizzes)}, blind guessing scores {chance:.2f}")
        for name, score in scores.items():
            print(f"  {name}: {score:.2f}")
    beating = {name: round(score, 2) for name, score in scores.items() if score > math.ceil(chance)}
    assert not beating, f"these guess better than chance ({chance:.2f} of {len(quizzes)}): {beating}"


FIRST_TAUGHT = {r"\.backward\(": "06_autograd", r"\boptim\.\w+\(": "06_autograd", r"\bDataLoader\(": "07_training"}
"""Code that a lesson teaches, and the lesson that teaches it: no lesson taught earlier runs it where students read."""


def test_no_lesson_runs_code_before_the_lesson_that_teaches_it():
    order = course_order(ROOT)
    early = []
    for pattern, home in FIRST_TAUGHT.items():
        for lesson in order[: order.index(home)]:
            for cell in _cells(lesson):
                shown = "\n".join(cell.lines).split(item_rules.BEGIN_HIDDEN)[0]
                if cell.kind != "markdown" and re.search(pattern, shown):
                    early.append(f"{lesson}:{cell.line_no} runs {pattern} before {home}")
    assert not early, early


@pytest.mark.parametrize("lesson", lessons())
def test_a_quiz_says_its_answer_is_graded_later(lesson):
    """A quiz's visible check sees the form only, so its line must not read as "right": every quiz ends
    its visible part with `form_checked`, which says the answer is graded after hand-in."""
    for cell in _cells(lesson):
        if cell.kind != "test" or not cell.item.startswith(item_rules.QUIZ_PREFIX):
            continue
        visible = "\n".join(cell.lines).split(item_rules.BEGIN_HIDDEN)[0]
        assert f'form_checked("{cell.item}")' in visible and "passed(" not in visible, (
            f"{lesson}: {cell.item}'s visible check must end with form_checked({cell.item!r})"
        )


def test_form_checked_says_the_answer_is_graded_later(capsys):
    from course.quiz import GRADED_LATER, form_checked

    form_checked("answer_rank_meaning")
    line = capsys.readouterr().out.strip()
    assert line.startswith("✓ answer_rank_meaning: ") and line.endswith(GRADED_LATER)
    assert "graded after you hand" in GRADED_LATER
