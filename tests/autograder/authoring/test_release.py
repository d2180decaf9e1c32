"""release/ is what nbgrader generates from source/ now, and nothing instructor-only leaks into it."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from autograder import commands
from autograder.authoring import leaks
from autograder.authoring.lessons import has_visible_check
from tests.conftest import ROOT, copy_course, lessons


@pytest.fixture(scope="module")
def fresh_release(tmp_path_factory) -> Path:
    course = copy_course(tmp_path_factory.mktemp("release") / "course", with_release=False)
    found = commands.release(course, progress=False)
    assert found == []
    return course / "release"


@pytest.mark.slow
def test_release_has_no_drift(fresh_release):
    generated = sorted(p.relative_to(fresh_release) for p in fresh_release.rglob("*") if p.is_file())
    committed = sorted(p.relative_to(ROOT / "release") for p in (ROOT / "release").rglob("*") if p.is_file())
    assert generated == committed, "release/ holds other files than nbgrader generates: run `autograder release`"
    for rel in generated:
        assert (fresh_release / rel).read_bytes() == (ROOT / "release" / rel).read_bytes(), (
            f"release/{rel} is stale: run `autograder release`"
        )


def test_committed_release_leaks_nothing():
    assert leaks.scan_release(ROOT) == []


@pytest.mark.parametrize("lesson", lessons())
def test_release_exists_for_every_lesson(lesson):
    assert (ROOT / "release" / lesson / f"{lesson}.ipynb").is_file()


def _release_copy(tmp_path: Path, lesson: str) -> tuple[Path, dict]:
    course = tmp_path / "course"
    (course / "source").mkdir(parents=True)
    (course / "release").mkdir()
    import shutil

    shutil.copytree(ROOT / "source" / lesson, course / "source" / lesson)
    shutil.copytree(ROOT / "release" / lesson, course / "release" / lesson)
    path = course / "release" / lesson / f"{lesson}.ipynb"
    return course, json.loads(path.read_text(encoding="utf-8"))


def _secret_of(lesson: str) -> str:
    source = nbformat.read(ROOT / "source" / lesson / f"{lesson}.ipynb", as_version=4)
    return sorted(leaks.secret_lines(source), key=len)[-1]


@pytest.mark.parametrize("place", ["source", "metadata", "output", "markdown"])
def test_scan_finds_a_planted_leak(tmp_path, place):
    """The scanner is only worth something if it catches solution text wherever it hides."""
    lesson = lessons()[0]
    course, nb = _release_copy(tmp_path, lesson)
    secret = _secret_of(lesson)
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code")
    if place == "source":
        cell["source"] = "".join(cell["source"]) + "\n" + secret
    elif place == "metadata":
        cell["metadata"]["note"] = {"kept": [secret]}
    elif place == "output":
        cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": [secret + "\n"]}]
    else:
        nb["cells"].append({"cell_type": "markdown", "metadata": {}, "source": f"Hint: `{secret}`", "id": "x"})
    (course / "release" / lesson / f"{lesson}.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    found = leaks.scan_release(course)
    assert any(leak.text == secret for leak in found), found


def test_scan_finds_markers_in_other_files(tmp_path):
    lesson = lessons()[0]
    course, _ = _release_copy(tmp_path, lesson)
    (course / "release" / lesson / "notes.txt").write_text("### BEGIN HIDDEN TESTS\n", encoding="utf-8")
    assert any("notes.txt" in leak.path for leak in leaks.scan_release(course))


@pytest.mark.parametrize("lesson", lessons())
def test_every_test_cell_has_a_visible_check(lesson):
    nb = nbformat.read(ROOT / "release" / lesson / f"{lesson}.ipynb", as_version=4)
    tests = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert tests
    for cell in tests:
        assert has_visible_check(cell.source), f"{cell.metadata['nbgrader']['grade_id']} has no visible check"


@pytest.mark.parametrize("lesson", lessons())
def test_answer_cells_still_name_their_item(lesson):
    nb = nbformat.read(ROOT / "release" / lesson / f"{lesson}.ipynb", as_version=4)
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            item = meta["grade_id"]
            named = f"def {item}(" in cell.source or f"class {item}(" in cell.source or f"{item} = None" in cell.source
            assert named, f"the released answer cell of {item} no longer names it"
            assert "raise NotImplementedError()" in cell.source
