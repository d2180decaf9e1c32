"""docs/curriculum.md is the single table of graded items: every graded cell has a row, and the
course's original contract is in it unchanged."""

from __future__ import annotations

import re

import nbformat
import pytest

from tests.conftest import ROOT, lessons

TABLE = ROOT / "docs" / "curriculum.md"
SHARED = ROOT.parent / "shared" / "CURRICULUM.md"
ROW = re.compile(r"^\| `(?P<item>[A-Za-z_][A-Za-z0-9_]*)(\(.*?\))?` \|")


def _sections(text: str) -> dict[str, list[str]]:
    """{lesson id: its table rows}."""
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        heading = re.match(r"^## (\d\d_[a-z_]+):", line)
        if heading:
            current = sections.setdefault(heading.group(1), [])
        elif current is not None and ROW.match(line):
            current.append(line)
    return sections


def _graded_items(lesson: str) -> set[str]:
    nb = nbformat.read(ROOT / "source" / lesson / f"{lesson}.ipynb", as_version=4)
    return {
        c.metadata["nbgrader"]["grade_id"]
        for c in nb.cells
        if c.get("metadata", {}).get("nbgrader", {}).get("solution")
    }


@pytest.mark.parametrize("lesson", lessons())
def test_every_graded_item_has_exactly_one_row(lesson):
    rows = _sections(TABLE.read_text(encoding="utf-8")).get(lesson)
    assert rows, f"docs/curriculum.md has no section for {lesson}"
    named = [ROW.match(r).group("item") for r in rows]
    assert len(named) == len(set(named)), f"an item of {lesson} has two rows"
    items = _graded_items(lesson)
    assert set(named) == items, {
        "rows without an item": sorted(set(named) - items),
        "items without a row": sorted(items - set(named)),
    }


@pytest.mark.skipif(
    not SHARED.is_file(), reason="the original contract (../shared/CURRICULUM.md) is not beside this checkout"
)
def test_the_original_contract_is_unchanged():
    ours = TABLE.read_text(encoding="utf-8").splitlines()
    for lesson, rows in _sections(SHARED.read_text(encoding="utf-8")).items():
        for row in rows:
            assert row in ours, f"the contract row of {ROW.match(row).group('item')} ({lesson}) changed or is missing"
