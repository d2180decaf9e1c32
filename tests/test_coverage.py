"""The seed-coverage table: every idea the curriculum lists is taught in a real section of a lesson."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT, lessons

HEADING = re.compile(r"^# #{1,4} (.+?)\s*$", re.MULTILINE)


def _rows(lesson: str) -> list[tuple[str, str]]:
    path = ROOT / "docs" / "coverage" / f"{lesson}.md"
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and line.lstrip().startswith("|") and not set(cells[0]) <= set("-: ") and cells[0] != "Idea from the seeds":
            rows.append((cells[0], cells[1]))
    return rows


@pytest.mark.parametrize("lesson", lessons())
def test_every_row_points_at_a_real_section(lesson):
    headings = {h.strip("`* ").strip() for h in HEADING.findall((ROOT / "lessons" / f"{lesson}.py").read_text(encoding="utf-8"))}
    rows = _rows(lesson)
    assert rows, f"docs/coverage/{lesson}.md has no rows"
    missing = [(idea, section) for idea, section in rows if section.strip("`* ").strip() not in headings]
    assert not missing, f"sections not found in lessons/{lesson}.py: {missing}"
