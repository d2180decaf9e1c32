"""Submission checks and repairs: each kind of tampering has one exact outcome."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import nbformat
import pytest

from autograder.rules import repair

TEST_SOURCE = "from course.checks import check_equal\ncheck_equal(f(1), 2)\n### BEGIN HIDDEN TESTS\ncheck_equal(f(5), 10)\n### END HIDDEN TESTS"
STUB = "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()"
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def meta(gid, *, grade=False, solution=False, locked=False, points=None, cell_type="code"):
    m = {
        "grade": grade,
        "grade_id": gid,
        "locked": locked,
        "schema_version": 3,
        "solution": solution,
        "task": False,
        "cell_type": cell_type,
        "checksum": f"sum-{gid}",
    }
    if points is not None:
        m["points"] = points
    return m


TEMPLATE = {
    "kernelspec": KERNELSPEC,
    "language_info": {"name": "python"},
    "cells": [
        {
            "id": "intro",
            "grade_id": "intro",
            "cell_type": "markdown",
            "locked": True,
            "nbgrader": meta("intro", locked=True, cell_type="markdown"),
            "source": "# Read me",
            "stub": "",
        },
        {
            "id": "f",
            "grade_id": "f",
            "cell_type": "code",
            "locked": False,
            "nbgrader": meta("f", solution=True),
            "source": STUB,
            "stub": STUB,
        },
        {
            "id": "test_f",
            "grade_id": "test_f",
            "cell_type": "code",
            "locked": True,
            "nbgrader": meta("test_f", grade=True, locked=True, points=2),
            "source": TEST_SOURCE,
            "stub": "",
        },
    ],
}


def released() -> dict:
    """The notebook a student downloads, as JSON."""
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": KERNELSPEC, "language_info": {"name": "python"}})
    cells = [
        nbformat.v4.new_markdown_cell(
            "# Read me", id="intro", metadata={"nbgrader": meta("intro", locked=True, cell_type="markdown")}
        ),
        nbformat.v4.new_code_cell("x = 1", id="scratch"),
        nbformat.v4.new_code_cell(STUB, id="f", metadata={"nbgrader": meta("f", solution=True)}),
        nbformat.v4.new_code_cell(
            repair.released_part(TEST_SOURCE),
            id="test_f",
            metadata={"nbgrader": meta("test_f", grade=True, locked=True, points=2)},
        ),
    ]
    nb.cells = cells
    return json.loads(nbformat.writes(nb))


def answered() -> dict:
    data = released()
    data["cells"][2]["source"] = "def f(x):\n    return 2 * x"
    return data


def summary(fixed: repair.Repaired) -> list[tuple[str, str, str]]:
    """(role, grade id, first line of source) per cell."""
    return [
        (role, c.metadata.get("nbgrader", {}).get("grade_id", ""), c.source.splitlines()[0] if c.source else "")
        for c, role in zip(fixed.notebook.cells, fixed.roles)
    ]


HONEST = [
    ("markdown", "intro", "# Read me"),
    ("student", "", "x = 1"),
    ("student", "f", "def f(x):"),
    ("test", "test_f", "from course.checks import check_equal"),
]


def test_an_honest_submission_needs_no_repair():
    fixed = repair.repair(answered(), TEMPLATE)
    assert fixed.notes == []
    assert summary(fixed) == HONEST
    test_index = 3
    assert fixed.tests == {test_index: TEST_SOURCE}
    shown = fixed.notebook.cells[test_index].source
    assert "check_equal(f(5), 10)" not in shown and repair.HIDDEN_NOTE in shown
    nbformat.validate(fixed.notebook)


def test_edited_test_cell_is_restored():
    data = answered()
    data["cells"][3]["source"] = "pass  # no tests here"
    fixed = repair.repair(data, TEMPLATE)
    assert summary(fixed) == HONEST and fixed.tests[3] == TEST_SOURCE
    assert fixed.notes == ["cell 4 (test_f) is a test cell and was edited: the instructor's tests were used"]


def test_deleted_test_cell_is_put_back_after_its_answer():
    data = answered()
    del data["cells"][3]
    fixed = repair.repair(data, TEMPLATE)
    assert summary(fixed) == HONEST and fixed.tests == {3: TEST_SOURCE}
    assert fixed.notes == ["test_f was missing from the submission: the instructor's cell was put back"]


def test_deleted_answer_cell_is_put_back_as_the_stub():
    data = answered()
    del data["cells"][2]
    fixed = repair.repair(data, TEMPLATE)
    assert [s[:2] for s in summary(fixed)] == [s[:2] for s in HONEST]
    assert fixed.notebook.cells[2].source == STUB
    assert fixed.notes == ["f was missing from the submission: the instructor's cell was put back"]


def test_duplicated_answer_cell_keeps_metadata_on_the_last_copy():
    data = answered()
    first = copy.deepcopy(data["cells"][2])
    first["source"] = "def f(x):\n    return 0"
    data["cells"].insert(2, first)
    fixed = repair.repair(data, TEMPLATE)
    roles = [
        (role, c.metadata.get("nbgrader", {}).get("grade_id", "")) for c, role in zip(fixed.notebook.cells, fixed.roles)
    ]
    assert roles == [("markdown", "intro"), ("student", ""), ("student", ""), ("student", "f"), ("test", "test_f")]
    assert fixed.notebook.cells[3].source == "def f(x):\n    return 2 * x"
    assert fixed.notes == ["cell 3 carried nbgrader metadata (a duplicate of 'f'): graded as an ordinary cell"]


def test_duplicated_test_cell_is_run_once_by_the_judge():
    data = answered()
    data["cells"].insert(1, copy.deepcopy(data["cells"][3]))
    fixed = repair.repair(data, TEMPLATE)
    assert list(fixed.tests.values()) == [TEST_SOURCE]
    assert fixed.roles.count("test") == 1


def test_retyped_answer_cell_is_code_again():
    data = answered()
    data["cells"][2]["cell_type"] = "markdown"
    data["cells"][2].pop("outputs")
    data["cells"][2].pop("execution_count")
    fixed = repair.repair(data, TEMPLATE)
    assert summary(fixed) == HONEST and fixed.notebook.cells[2].cell_type == "code"
    assert fixed.notes == ["cell 3 (f) was changed from code to markdown: restored"]


def test_points_and_flags_are_restored():
    data = answered()
    data["cells"][3]["metadata"]["nbgrader"]["points"] = 100
    data["cells"][2]["metadata"]["nbgrader"]["grade"] = True
    fixed = repair.repair(data, TEMPLATE)
    assert fixed.notebook.cells[3].metadata.nbgrader["points"] == 2
    assert fixed.notebook.cells[2].metadata.nbgrader["grade"] is False
    assert fixed.notes == [
        "cell 3 (f) had its nbgrader metadata changed: restored",
        "cell 4 (test_f) had its nbgrader metadata changed: restored",
    ]


def test_repointed_cell_is_matched_by_its_id():
    data = answered()
    data["cells"][3]["metadata"]["nbgrader"]["grade_id"] = "test_other"
    fixed = repair.repair(data, TEMPLATE)
    assert summary(fixed) == HONEST
    assert fixed.notes == ["cell 4 (test_f) had its nbgrader metadata pointed at 'test_other': restored"]


def test_invented_grade_cell_is_ordinary():
    data = answered()
    data["cells"][1]["metadata"]["nbgrader"] = meta("bonus", grade=True, points=50)
    fixed = repair.repair(data, TEMPLATE)
    assert summary(fixed) == HONEST
    assert fixed.notes == ["cell 2 carried nbgrader metadata (unknown grade id 'bonus'): graded as an ordinary cell"]


def test_kernelspec_is_restored():
    data = answered()
    data["metadata"]["kernelspec"] = {"name": "evil", "display_name": "evil", "language": "python"}
    fixed = repair.repair(data, TEMPLATE)
    assert fixed.notebook.metadata.kernelspec == KERNELSPEC
    assert fixed.notes == ["the notebook's kernelspec was changed: restored"]


def test_read_only_markdown_is_restored():
    data = answered()
    data["cells"][0]["source"] = "# I rewrote the instructions"
    fixed = repair.repair(data, TEMPLATE)
    assert fixed.notebook.cells[0].source == "# Read me"
    assert fixed.notes == ["cell 1 (intro) is read-only and was edited: restored"]


def write(tmp_path: Path, content: bytes) -> Path:
    path = tmp_path / "nb.ipynb"
    path.write_bytes(content)
    return path


@pytest.mark.parametrize(
    "content, message",
    [
        (b"{not json", "is not valid notebook JSON"),
        (b"\xff\xfe\x00garbage", "is not UTF-8 text"),
        (b"[1, 2]", "is JSON but not a notebook"),
        (json.dumps({"nbformat": 3, "cells": []}).encode(), "has nbformat 3; only version 4"),
        (json.dumps({"nbformat": 4}).encode(), "has no list of cells"),
    ],
)
def test_unreadable_submissions_get_one_clear_reason(tmp_path, content, message):
    with pytest.raises(repair.SubmissionError, match=message):
        repair.read_submission(write(tmp_path, content))


def test_malformed_cells_get_one_clear_reason(tmp_path):
    data = answered()
    del data["cells"][1]["cell_type"]
    with pytest.raises(repair.SubmissionError, match="cell 2 is not a notebook cell"):
        repair.repair(data, TEMPLATE)
    data = answered()
    data["cells"][1]["source"] = {"evil": 1}
    with pytest.raises(repair.SubmissionError, match="cell 2 has a source that is not text"):
        repair.repair(data, TEMPLATE)


def test_huge_notebooks_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(repair, "MAX_NOTEBOOK_BYTES", 1000)
    with pytest.raises(repair.SubmissionError, match="over the 0 MB limit|over the .* limit"):
        repair.read_submission(write(tmp_path, json.dumps(answered()).encode()))


def test_symlinks_are_refused(tmp_path):
    target = write(tmp_path, json.dumps(answered()).encode())
    link = tmp_path / "link.ipynb"
    os.symlink(target, link)
    with pytest.raises(repair.SubmissionError, match="symbolic link"):
        repair.read_submission(link)
    assert repair.read_submission(target)["nbformat"] == 4


@pytest.mark.parametrize("size", [0, 1, 65535, 65536, 65537, 300_000])
def test_a_submission_is_read_whole(tmp_path, size):
    data = os.urandom(size)
    assert repair.read_submission_bytes(write(tmp_path, data)) == data


def test_a_file_longer_than_its_size_said_is_read_to_its_end_and_no_further_than_past_the_limit(monkeypatch):
    """/proc files say they hold 0 bytes: the reads go on to the end, and stop one byte past the limit."""
    proc = Path("/proc/version")
    assert os.stat(proc).st_size == 0
    assert repair.read_submission_bytes(proc) == proc.read_bytes()
    monkeypatch.setattr(repair, "MAX_NOTEBOOK_BYTES", 10)
    assert repair.read_submission_bytes(proc) == proc.read_bytes()[:11]
