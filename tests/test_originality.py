"""Lesson prose is written for the course: no long run of words copied from the seed documents.

The seeds live outside the repo (../shared/seeds); where they are absent the test is skipped.
Code, in cells or quoted in markdown, is not checked (the first seed's examples are worked
through on purpose); prose is.
"""

from __future__ import annotations

import re

import pytest

from autograder.authoring.lessons import parse_lesson
from tests.conftest import ROOT, lessons

SEEDS = ROOT.parent / "shared" / "seeds"
RUN = 10


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


@pytest.mark.parametrize("lesson", lessons())
def test_no_copied_prose(lesson):
    seed_files = sorted(SEEDS.glob("*.txt")) if SEEDS.is_dir() else []
    if not seed_files:
        pytest.skip("the seed documents are not next to the repo")
    grams = set()
    for path in seed_files:
        words = _words(path.read_text(encoding="utf-8"))
        grams |= {tuple(words[i : i + RUN]) for i in range(len(words) - RUN + 1)}
    cells = parse_lesson((ROOT / "lessons" / f"{lesson}.py").read_text(encoding="utf-8"))
    markdown = "\n".join("\n".join(c.lines) for c in cells if c.kind == "markdown")
    prose = _words(re.sub(r"```.*?```|`[^`]*`", " ", markdown, flags=re.DOTALL))
    copied = {" ".join(prose[i : i + RUN]) for i in range(len(prose) - RUN + 1) if tuple(prose[i : i + RUN]) in grams}
    assert not copied, f"{lesson} repeats seed wording: {sorted(copied)[:5]}"
