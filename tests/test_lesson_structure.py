"""Every lesson has the same bones: objectives, a device line first, pictures, common mistakes,
a recap and things to try."""

from __future__ import annotations

import re

import pytest

from autograder.authoring.lessons import parse_lesson
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
