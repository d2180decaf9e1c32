"""The coordinator's records of graded notebooks (.autograder/results/STUDENT/ASSIGNMENT/NOTEBOOK.json),
and its own writes: atomic, and tried again when the disk is full for a moment.

A record is what lets a re-run reuse a notebook's result. Writing one file per notebook (a directory
or two, a temporary file, a rename) costs more than the rest of recording a result, so the grading
loop does not wait for it: `RecordWriter.add` appends the record as one entry to this run's journal
(a write to a file already open, which survives the run being killed) and a thread beside the loop
writes the record's own file. The journal is removed once each of its entries is in its file; the
journal of a run that was killed is folded into the files by the next run, before it plans.

A record is JSON. Its autograded notebook (57 kB of JSON text for a lesson) is kept as it is, the last
member on lines of its own, rather than escaped into a string: escaping it was the largest part of
recording a result, and reading it back takes a slice instead of a parse. The journal frames each
record with its length, since a record spans lines.
"""

from __future__ import annotations

import errno
import fcntl
import functools
import json
import os
import queue
import tempfile
import threading
import time
from pathlib import Path

RESULTS = "results"
JOURNAL_PREFIX = ".journal-"

# Errors of the grader's own writes that may pass (a full disk, descriptors run out), and the pauses before each new try.
TRANSIENT_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EMFILE, errno.ENFILE)
RETRY_PAUSES = (0.2, 0.5)
IDENTITY = ("student", "assignment", "notebook")
NOTEBOOK_MEMBER = '\n"autograded_notebook": '  # a record's notebook, as JSON text, follows this


def retrying(write, *args):
    """`write(*args)`, tried again after each of `RETRY_PAUSES` while it fails with one of `TRANSIENT_ERRNOS`."""
    for pause in (*RETRY_PAUSES, None):
        try:
            return write(*args)
        except OSError as exc:
            if exc.errno not in TRANSIENT_ERRNOS or pause is None:
                raise
            time.sleep(pause)


def write_atomic(path: Path, text: str, *, durable: bool = True) -> None:
    """Replace `path` with `text` at once (never half written); `durable` waits for the disk first. A write that
    fails leaves no temporary file holding the space it took.

    Records and autograded/ are not durable: a record lost to a power cut is graded again, and
    writes the same gradebook rows again (every write there finds what exists first)."""
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_retrying(path: Path, text: str, *, durable: bool = True) -> None:
    """`write_atomic`, tried again when the disk is full or descriptors ran out."""
    retrying(functools.partial(write_atomic, durable=durable), path, text)


def one_line(exc: BaseException) -> str:
    """An error as one line: SQLAlchemy's first line (the database's own message), an OSError's errno and text."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def record_path(state: Path, job: dict) -> Path:
    """Where the record of a job (or of a result, which names the same notebook) is kept."""
    return state / RESULTS / job["student"] / job["assignment"] / f"{job['notebook']}.json"


def record_text(result: dict) -> str:
    """A result as its record: JSON whose last member, on lines of its own, is the autograded notebook's
    JSON text as it is (`NOTEBOOK_MEMBER`); a result without a notebook text is plain one-line JSON."""
    notebook = result.get("notebook_json")
    if not isinstance(notebook, str):
        return json.dumps(result)
    head = json.dumps({k: v for k, v in result.items() if k != "notebook_json"})
    return head[:-1] + ("," if len(head) > 2 else "") + NOTEBOOK_MEMBER + notebook + "\n}"


def parse_record(text: str) -> dict | None:
    """The result a record holds (`record_text`), its notebook as JSON text again; None for a text that is
    no record. The head is one line (json.dumps writes no line break), so the notebook is a slice."""
    head, newline, notebook = text.partition("\n")
    try:
        if not newline:
            record = json.loads(head)
        elif notebook.startswith(NOTEBOOK_MEMBER[1:]) and notebook.endswith("\n}") and head.startswith("{"):
            record = json.loads(head[:-1] + "}" if head.endswith(",") else head + "}")
            if isinstance(record, dict):
                record["notebook_json"] = notebook[len(NOTEBOOK_MEMBER) - 1 : -2]
        else:
            record = json.loads(text)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def read_record(state: Path, job: dict) -> dict:
    """The record kept for a job's notebook ({} when there is none, or it cannot be read)."""
    try:
        text = record_path(state, job).read_text(encoding="utf-8")
    except (OSError, ValueError):
        return {}
    return parse_record(text) or {}


def all_records(state: Path) -> list[dict]:
    """Every record kept under `state` (for the report's timings and for tests), in path order."""
    found = []
    for path in sorted((state / RESULTS).glob("*/*/*.json")):
        try:
            record = parse_record(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if record is not None:
            found.append(record)
    return found


def _names_a_notebook(record) -> bool:
    """Whether a journal line names its notebook with plain folder names (it came from this grader;
    the check keeps a damaged line from writing outside results/)."""
    return isinstance(record, dict) and all(
        isinstance(record.get(k), str)
        and record[k] not in ("", ".", "..")
        and "/" not in record[k]
        and "\0" not in record[k]
        for k in IDENTITY
    )


def fold_leftovers(state: Path) -> int:
    """Write into their files the records in journals left by runs that were killed (a journal no live
    run holds), then remove those journals; the records written. A torn last entry is left out: its
    notebook is graded again."""
    folder = state / RESULTS
    written = 0
    for journal in sorted(folder.glob(JOURNAL_PREFIX + "*")) if folder.is_dir() else []:
        try:
            fh = open(journal, "rb")
        except OSError:
            continue
        with fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # a run that is still going
            for entry in journal_entries(fh):
                try:
                    text = entry.decode("utf-8")
                except UnicodeDecodeError:
                    continue
                record = parse_record(text)
                if _names_a_notebook(record):
                    retrying(_write_record, record_path(state, record), text)
                    written += 1
            journal.unlink()
    return written


def _journal_entry(text: str) -> bytes:
    """A record as the journal keeps it: its length in bytes on a line, the record, a line break."""
    body = text.encode("utf-8")
    return b"%d\n%b\n" % (len(body), body)


def journal_entries(fh):
    """The records of a journal (`_journal_entry`), as bytes, up to the first that is torn. A line that is
    not a length is a one-line record, as journals held them before records were framed."""
    while line := fh.readline():
        size = line.rstrip(b"\n")
        if not size.isdigit():
            yield size
            continue
        body = fh.read(int(size))
        if len(body) < int(size) or fh.read(1) != b"\n":
            return
        yield body


def _write_record(path: Path, text: str) -> None:
    write_atomic(path, text, durable=False)


class RecordWriter:
    """This run's records: `add` puts one in the journal at once and queues its file for the thread;
    `close` waits for every file, then removes the journal (kept, for the next run to fold, when a
    file could not be written)."""

    def __init__(self, state: Path) -> None:
        self.state = state
        self._journal: Path | None = None
        self._fh = None
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self.failed: list[str] = []  # why a record's file could not be written (its entry stays in the journal)

    def add(self, result: dict) -> None:
        """Keep `result`'s record: in the journal now (an OSError here means it is not kept), in its own
        file soon."""
        text = record_text(result)
        if self._fh is None:
            folder = self.state / RESULTS
            folder.mkdir(parents=True, exist_ok=True)
            self._journal = folder / f"{JOURNAL_PREFIX}{time.time_ns()}-{os.getpid()}-{threading.get_ident()}"
            self._fh = open(self._journal, "ab")
            fcntl.flock(self._fh, fcntl.LOCK_EX)
            self._thread = threading.Thread(target=self._write_files, name="records", daemon=True)
            self._thread.start()
        retrying(self._append, _journal_entry(text))
        self._queue.put((record_path(self.state, result), text))

    def _append(self, entry: bytes) -> None:
        self._fh.write(entry)
        self._fh.flush()

    def _write_files(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            path, text = item
            try:
                retrying(_write_record, path, text)
            except OSError as exc:
                self.failed.append(f"{path.name}: {exc}")

    def close(self) -> None:
        """Wait for the files; remove the journal when every record is in its file."""
        if self._fh is None:
            return
        self._queue.put(None)
        self._thread.join()
        try:
            if not self.failed:
                self._journal.unlink()
        finally:
            self._fh.close()
            self._fh = None
