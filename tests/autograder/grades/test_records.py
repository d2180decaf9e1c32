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

import pytest

from autograder.grades import records


def result(student: str, notebook: str = "nb", **extra) -> dict:
    return {"student": student, "assignment": "ps1", "notebook": notebook, "job": f"key-{student}", **extra}


def journals(state: Path) -> list[Path]:
    return sorted((state / records.RESULTS).glob(records.JOURNAL_PREFIX + "*"))


def test_every_record_added_is_in_its_file_and_the_journal_goes(tmp_path):
    writer = records.RecordWriter(tmp_path)
    added = [result(f"s{i}", score=i) for i in range(50)]
    for r in added:
        writer.add(r, json.dumps(r))
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
    writer.add(r, json.dumps(r))
os.kill(os.getpid(), signal.SIGKILL)
"""


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
    writer.add(r, json.dumps(r))
    assert records.fold_leftovers(tmp_path) == 0
    assert len(journals(tmp_path)) == 1
    writer.close()
    assert journals(tmp_path) == []
    assert records.read_record(tmp_path, r) == r


def test_a_torn_line_and_lines_naming_no_notebook_write_nothing(tmp_path):
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
        writer.add(r, json.dumps(r))
    writer.close()
    assert len(writer.failed) == 1 and "nb.json" in writer.failed[0]
    assert records.read_record(tmp_path, fine) == fine
    (left,) = journals(tmp_path)
    assert [json.loads(line)["student"] for line in left.read_text().splitlines()] == ["fine", "blocked"]
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
