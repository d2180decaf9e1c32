"""The coordinator's records: every record added is in its own file once the writer closes, and the
journal of a run killed at any point is folded into the files by the next run; a live run's journal
is left alone, and a damaged journal writes nothing outside results/."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from hypothesis import given, settings as hypothesis_settings, strategies as st

from autograder.grades import records


def result(student: str, notebook: str = "nb", **extra) -> dict:
    return {"student": student, "assignment": "ps1", "notebook": notebook, "job": f"key-{student}", **extra}


def journals(state: Path) -> list[Path]:
    return sorted((state / records.RESULTS).glob(records.JOURNAL_PREFIX + "*"))


def test_every_record_added_is_in_its_file_and_the_journal_goes(tmp_path):
    writer = records.RecordWriter(tmp_path)
    added = [result(f"s{i}", score=i) for i in range(50)]
    for r in added:
        writer.add(r)
    assert len(journals(tmp_path)) == 1
    writer.close()
    assert records.all_records(tmp_path) == sorted(added, key=lambda r: r["student"])
    assert records.read_record(tmp_path, added[7]) == added[7]
    assert journals(tmp_path) == []
    assert records.fold_leftovers(tmp_path) == 0


def test_a_writer_that_adds_nothing_leaves_nothing(tmp_path):
    records.RecordWriter(tmp_path).close()
    assert not (tmp_path / records.RESULTS).exists()


KILLED_RUN = """
import json, os, signal, sys
from pathlib import Path
from autograder.grades import records
writer = records.RecordWriter(Path(sys.argv[1]))
for i in range(int(sys.argv[2])):
    r = {"student": f"s{i}", "assignment": "ps1", "notebook": "nb", "job": f"key-s{i}"}
    writer.add(r)
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.process
def test_the_journal_of_a_killed_run_is_folded_into_the_files(tmp_path):
    run = subprocess.run([sys.executable, "-c", KILLED_RUN, str(tmp_path), "300"], capture_output=True)
    assert run.returncode == -signal.SIGKILL
    assert len(journals(tmp_path)) == 1
    for path in (tmp_path / records.RESULTS).glob("*/*/*.json"):
        path.unlink()  # as if the thread had written none of them before the kill
    assert records.fold_leftovers(tmp_path) == 300
    assert journals(tmp_path) == []
    assert [r["student"] for r in records.all_records(tmp_path)] == sorted(f"s{i}" for i in range(300))


def test_a_live_runs_journal_is_not_folded(tmp_path):
    writer = records.RecordWriter(tmp_path)
    r = result("alive")
    writer.add(r)
    assert records.fold_leftovers(tmp_path) == 0
    assert len(journals(tmp_path)) == 1
    writer.close()
    assert journals(tmp_path) == []
    assert records.read_record(tmp_path, r) == r


def test_a_torn_line_and_lines_naming_no_notebook_write_nothing_in_a_journal_of_one_line_records(tmp_path):
    folder = tmp_path / records.RESULTS
    folder.mkdir()
    good = result("good")
    lines = [
        json.dumps(good),
        json.dumps(result("..")),
        json.dumps(result("a/b")),
        json.dumps(dict(result("x"), notebook=3)),
        json.dumps(["not", "a", "record"]),
        json.dumps(result("torn"))[:-5],
    ]
    (folder / f"{records.JOURNAL_PREFIX}left").write_text("\n".join(lines), encoding="utf-8")
    assert records.fold_leftovers(tmp_path) == 1
    assert records.all_records(tmp_path) == [good]
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()) == [
        "results/good/ps1/nb.json"
    ]


def test_a_record_whose_file_cannot_be_written_stays_in_the_journal(tmp_path):
    (tmp_path / records.RESULTS / "blocked").mkdir(parents=True)
    (tmp_path / records.RESULTS / "blocked" / "ps1").write_text("a file where a folder should be")
    writer = records.RecordWriter(tmp_path)
    fine, blocked = result("fine"), result("blocked")
    for r in (fine, blocked):
        writer.add(r)
    writer.close()
    assert len(writer.failed) == 1 and "nb.json" in writer.failed[0]
    assert records.read_record(tmp_path, fine) == fine
    (left,) = journals(tmp_path)
    with open(left, "rb") as fh:
        kept = [records.parse_record(entry.decode())["student"] for entry in records.journal_entries(fh)]
    assert kept == ["fine", "blocked"]
    (tmp_path / records.RESULTS / "blocked" / "ps1").unlink()
    assert records.fold_leftovers(tmp_path) == 2
    assert records.read_record(tmp_path, blocked) == blocked


def test_a_record_that_cannot_be_read_is_no_record(tmp_path):
    path = records.record_path(tmp_path, result("s"))
    path.parent.mkdir(parents=True)
    for text in ("{not json", "[1, 2]", ""):
        path.write_text(text)
        assert records.read_record(tmp_path, result("s")) == {}
    assert records.all_records(tmp_path) == []


def test_a_write_is_tried_again_only_for_errors_that_pass(tmp_path, monkeypatch):
    monkeypatch.setattr(records, "RETRY_PAUSES", (0.0, 0.0))
    calls = []

    def full_twice(path):
        calls.append(path)
        if len(calls) < 3:
            raise OSError(28, os.strerror(28))
        return "written"

    assert records.retrying(full_twice, "p") == "written" and len(calls) == 3
    calls.clear()

    def denied(path):
        calls.append(path)
        raise PermissionError(13, os.strerror(13))

    with pytest.raises(PermissionError):
        records.retrying(denied, "p")
    assert len(calls) == 1


# ---------------------------------------------------------------- the record's form

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
results = st.builds(
    lambda extra, notebook: {**extra, **result("s"), **notebook},
    st.dictionaries(st.text(max_size=12).filter(lambda k: k != "notebook_json"), json_values, max_size=5),
    st.sampled_from([{}, {"notebook_json": None}]) | st.builds(lambda t: {"notebook_json": t}, st.text()),
)


@hypothesis_settings(max_examples=400, deadline=None)
@given(results)
def test_a_record_reads_back_as_the_result_it_was_made_from(r):
    assert records.parse_record(records.record_text(r)) == r


def notebook_text(cells: int) -> str:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(f'x = "{i}\\n"\nprint(x, {{"a": [1, 2]}})') for i in range(cells)]
    nb.cells.append(nbformat.v4.new_markdown_cell("A line\n}\nand a brace on its own line"))
    return nbformat.writes(nb)


def test_a_record_is_json_holding_its_notebook_as_it_is():
    """Anyone may read a record with a JSON parser: the notebook is a member, unescaped, the text kept."""
    nb = notebook_text(3)
    r = result("s", notebook_json=nb, status="ok", summary={"grades": {"a": [1.0, None]}})
    text = records.record_text(r)
    assert nb in text, "the notebook's text is in the record as it is, not escaped"
    parsed = json.loads(text)
    assert parsed.pop("autograded_notebook") == json.loads(nb)
    assert parsed == {k: v for k, v in r.items() if k != "notebook_json"}
    assert json.loads(records.record_text({"notebook_json": nb})) == {"autograded_notebook": json.loads(nb)}


def test_records_kept_before_notebooks_were_unescaped_still_read(tmp_path):
    r = result("old", notebook_json=notebook_text(2), status="ok")
    path = records.record_path(tmp_path, r)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(r), encoding="utf-8")
    assert records.read_record(tmp_path, r) == r
    assert records.all_records(tmp_path) == [r]


def test_a_journal_cut_at_any_byte_folds_every_whole_record_before_the_cut(tmp_path):
    """A run killed mid-write leaves a journal cut anywhere: each record wholly before the cut is folded in,
    and nothing else is written (the record the cut went through is graded again)."""
    writer = records.RecordWriter(tmp_path / "whole")
    added = [result(f"s{i}", notebook_json=notebook_text(i % 3) if i % 2 else None) for i in range(4)]
    for r in added:
        writer.add(r)
    (journal,) = journals(tmp_path / "whole")
    data = journal.read_bytes()
    ends, at = [], 0  # where each entry ends, found from the lengths
    while at < len(data):
        newline = data.index(b"\n", at)
        at = newline + 1 + int(data[at:newline]) + 1
        ends.append(at)
    assert len(ends) == len(added) and ends[-1] == len(data)
    writer.close()
    for cut in sorted({*range(0, len(data), 97), *(e + d for e in ends for d in (-2, -1, 0, 1)), len(data)}):
        if not 0 <= cut <= len(data):
            continue
        state = tmp_path / f"cut{cut}"
        (state / records.RESULTS).mkdir(parents=True)
        (state / records.RESULTS / f"{records.JOURNAL_PREFIX}left").write_bytes(data[:cut])
        whole = sum(end <= cut for end in ends)
        assert records.fold_leftovers(state) == whole, cut
        assert records.all_records(state) == added[:whole], cut
