"""A grading job carries its content, so any machine can grade it without the coordinator's files.

The coordinator plans each job with the paths it found (`submission`, `template`, `extra_files`
with `from` and `to`) and hashes them into the job's key; `load` turns the plan into the job that
travels: the submitted file's bytes, the instructor's template (hidden tests included) and the
other files handed to the notebook. Only JSON crosses, bytes as base64. On the grading side,
`template`, `submission` and `files` read a job's inputs back.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import json
import os
from pathlib import Path

from autograder.rules import repair

GRADER_VERSION = "2"  # part of every record's key: a new version grades every notebook again


def course_code_hash() -> str:
    """The code a grade depends on besides the submission: the course package, the grader and the references.

    A job carries it (`code`); a Dask worker whose own differs refuses the job."""
    import course
    import instructor

    digest = hashlib.sha256(GRADER_VERSION.encode())
    for root in (Path(course.__file__).parent, Path(__file__).resolve().parents[1], Path(instructor.__file__).parent):
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _decode(text: object, what: str) -> bytes:
    if not isinstance(text, str):
        raise ValueError(f"the job's {what} is not base64 text")
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise ValueError(f"the job's {what} is not base64 text") from None


def _template(path: str) -> dict:
    """An instructor's template as the coordinator wrote it (read once while the file stays the same,
    not once per job); never to be changed by the caller."""
    found = os.stat(path)
    return _read_template(path, found.st_ino, found.st_mtime_ns, found.st_size)


@functools.lru_cache(maxsize=64)
def _read_template(path: str, inode: int, mtime_ns: int, size: int) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def load(plan: dict) -> dict:
    """The job to send for a planned one: every path replaced by what it holds."""
    job = dict(plan)
    path = Path(plan["submission"])
    try:
        job["submission"] = {"name": path.name, "data": _encode(repair.read_submission_bytes(path))}
    except repair.SubmissionError as exc:
        job["submission"] = {"name": path.name, "refused": str(exc)}
    job["template"] = _template(plan["template"])
    job["extra_files"] = [
        {"to": extra["to"], "data": _encode(Path(extra["from"]).read_bytes())} for extra in plan["extra_files"]
    ]
    return job


def template(job: dict) -> dict:
    """The instructor's template of the job's notebook."""
    if not isinstance(job.get("template"), dict):
        raise ValueError("the job carries no template")
    return job["template"]


def submission(job: dict) -> dict:
    """The submitted notebook's JSON, or `repair.SubmissionError` with the one-line reason."""
    sent = job["submission"]
    if "refused" in sent:
        raise repair.SubmissionError(str(sent["refused"]))
    return repair.parse_submission(str(sent["name"]), _decode(sent.get("data"), "submission"))


def files(job: dict) -> list[tuple[str, bytes]]:
    """(name relative to the notebook's folder, content) of every other file handed to the notebook."""
    return [
        (str(extra["to"]), _decode(extra.get("data"), f"file {extra.get('to')!r}"))
        for extra in job.get("extra_files", [])
    ]


IDENT = ("key", "student", "assignment", "notebook")  # the fields that name a job, in its messages and its result


def failed_result(job: dict, reason: str) -> dict:
    """The result record of a job that could not be graded: every backend (local, Dask) answers this shape."""
    return {
        "job": job["key"],
        "student": job["student"],
        "assignment": job["assignment"],
        "notebook": job["notebook"],
        "status": "error",
        "reason": reason,
        "notebook_json": None,
        "repairs": [],
        "failures": [],
        "warnings": [],
        "timings": {},
    }
