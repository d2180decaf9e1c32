"""A job carries its content: what the grading side reads from a job is what the coordinator's files
held, read exactly as from disk, and no path of the coordinator's travels with it."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from autograder.judge import jobs
from autograder.rules import repair
from tests.conftest import ROOT

NOTEBOOK = ROOT / "release" / "01_tensors" / "01_tensors.ipynb"


def plan(folder: Path, submission: Path, extras: dict[str, bytes]) -> dict:
    """A job as the engine plans it: paths on the coordinator."""
    template = folder / "template.json"
    template.write_text(
        json.dumps({"assignment": "a", "notebook": "n", "cells": [{"grade_id": "x", "source": "hidden"}]})
    )
    listed = []
    for name, data in extras.items():
        path = folder / "extra" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        listed.append({"from": str(path), "to": name})
    return {
        "key": "k",
        "student": "s",
        "assignment": "a",
        "notebook": "n",
        "submission": str(submission),
        "template": str(template),
        "limits": {},
        "extra_files": listed,
        "code": "c",
    }


def test_a_job_delivers_what_the_files_hold(tmp_path):
    extras = {"data.csv": b"x,y\n1,2\n", "weights/w.bin": bytes(range(256))}
    planned = plan(tmp_path, NOTEBOOK, extras)
    text = json.dumps(jobs.load(planned))
    assert str(tmp_path) not in text and str(ROOT) not in text, "the job names no path of the coordinator"
    job = json.loads(text)
    assert jobs.submission(job) == repair.read_submission(NOTEBOOK)
    assert jobs.template(job) == json.loads(Path(planned["template"]).read_text())
    assert jobs.files(job) == list(extras.items())


def test_a_symlinked_submission_is_refused_with_the_same_reason(tmp_path):
    link = tmp_path / "01_tensors.ipynb"
    link.symlink_to(NOTEBOOK)
    job = json.loads(json.dumps(jobs.load(plan(tmp_path, link, {}))))
    with pytest.raises(repair.SubmissionError) as from_disk:
        repair.read_submission(link)
    with pytest.raises(repair.SubmissionError) as from_job:
        jobs.submission(job)
    assert str(from_job.value) == str(from_disk.value)
    assert "data" not in job["submission"], "a refused file's content does not travel"


def test_content_that_is_not_base64_is_an_error(tmp_path):
    job = jobs.load(plan(tmp_path, NOTEBOOK, {"f": b"1"}))
    job["submission"]["data"] = "not base64!"
    with pytest.raises(ValueError, match="not base64"):
        jobs.submission(job)
    job["extra_files"][0]["data"] = None
    with pytest.raises(ValueError, match="not base64"):
        jobs.files(job)


notebook_like = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=200).map(str.encode),
    st.builds(
        lambda cells, version: json.dumps({"nbformat": version, "cells": cells}).encode(),
        st.lists(
            st.dictionaries(st.sampled_from(["cell_type", "source"]), st.text(max_size=5), max_size=2), max_size=3
        ),
        st.sampled_from([3, 4, "4"]),
    ),
)


@settings(max_examples=150, deadline=None)
@given(raw=notebook_like)
def test_a_submission_from_a_job_reads_like_the_file_on_disk(raw):
    """The reference is the grader's own reader of the file: the same notebook, or the same reason."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "nb.ipynb"
        path.write_bytes(raw)
        job = json.loads(json.dumps(jobs.load(plan(Path(folder), path, {}))))
        outcomes = []
        for read in (lambda: repair.read_submission(path), lambda: jobs.submission(job)):
            try:
                outcomes.append(("notebook", read()))
            except repair.SubmissionError as exc:
                outcomes.append(("refused", str(exc)))
        assert outcomes[0] == outcomes[1]
