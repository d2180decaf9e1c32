"""Writing graded submissions to autograded/ and nbgrader's gradebook, in batches, off the grading loop."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from autograder.config import settings
from autograder.grades import records
from autograder.coordinator import plan
from autograder.coordinator.plan import Submission
from autograder.grades import gradebook
from autograder.rules import scoring


class Recorder:
    """Writes graded submissions to autograded/ and the gradebook, off the grading loop's path.

    `finish` queues a submission's autograded notebooks and gradebook values; a full batch (or one
    that waited long enough) goes to a writer thread, which writes the batch's notebooks, then
    records the batch in one gradebook transaction (so the gradebook never names a notebook
    autograded/ lacks), while the loop goes on. One batch is written at a time; an error stops
    the run at the next batch. A submission whose autograded/ folder cannot be written (a full
    disk) stays out of the gradebook and is reported in `unwritten`. The records (in the
    run's journal, `records.RecordWriter`) were kept before: a run killed at any point loses no grading, and the
    next run writes each submission again, over the same rows.
    """

    BATCH = 200  # submissions per gradebook transaction

    def __init__(
        self, course_dir: Path, clock: dict, *, wait: float = settings.Autograder.record_wait.default_value
    ) -> None:
        import concurrent.futures

        self.batch_wait = wait  # the longest a finished submission waits for its transaction (c.Autograder.record_wait)
        self.course_dir = course_dir
        self.clock = clock
        self.book = gradebook.Writer(course_dir)
        self.writer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="recorder")
        self.writing = None  # the batch being written
        self.queued: list[tuple[gradebook.Graded, tuple]] = []
        self.since = 0.0
        self.unwritten: dict[tuple[str, str], str] = {}  # (student, assignment): why autograded/ was not written

    def finish(self, sub: Submission) -> str:
        """Queue a submission whose notebooks all have results; its status ("ok" or why not)."""
        from nbgrader.utils import parse_utc

        errors = [
            f"{n}: {r['reason']}" if len(sub.jobs) > 1 else r["reason"]
            for n, r in sub.results.items()
            if r.get("status") != "ok"
        ]
        if not sub.jobs:
            return "no notebook of this assignment was handed in"
        graded = {n: r["notebook_json"] for n, r in sub.results.items() if r.get("status") == "ok"}
        if graded:
            notebooks = {
                name: None if name not in graded else scoring.summary_of(sub.results[name])
                for name in sub.notebooks
                if name in graded or name not in sub.jobs
            }
            try:
                timestamp = parse_utc((sub.folder / "timestamp.txt").read_text(encoding="utf-8").strip())
            except (OSError, ValueError, OverflowError):
                timestamp = None
            if not self.queued:
                self.since = time.monotonic()
            handed_in = {e["to"] for j in sub.jobs.values() for e in j.get("extra_files", []) if e.get("student")}
            files = (self.course_dir / "autograded" / sub.student / sub.assignment, sub.folder, handed_in, graded)
            self.queued.append((gradebook.Graded(sub.assignment, sub.student, notebooks, timestamp), files))
            self.flush(due=True)
        return "; ".join(errors) if errors else "ok"

    def flush(self, *, due: bool = False) -> None:
        """Hand what is queued to the writer; with `due`, only once a batch is full or has waited long enough."""
        if not self.queued or (
            due and len(self.queued) < self.BATCH and time.monotonic() - self.since < self.batch_wait
        ):
            return
        self.wait()
        batch, self.queued = self.queued, []
        self.writing = self.writer.submit(self._write, batch)

    def wait(self) -> None:
        """Until the batch being written is written (its error, if it failed)."""
        if self.writing is not None:
            writing, self.writing = self.writing, None
            writing.result()

    def _write(self, batch: list) -> None:
        written = []
        for graded, files in batch:
            try:
                records.retrying(_write_autograded, *files)
            except OSError as exc:
                shutil.rmtree(files[0], ignore_errors=True)
                self.unwritten[(graded.student, graded.assignment)] = (
                    f"the grader could not write the autograded notebook: {records.one_line(exc)}"
                )
                continue
            written.append((graded, files[0]))
        t0 = time.perf_counter()
        try:
            self.book.write([graded for graded, _ in written])
        except (
            *gradebook.write_errors(),
            OSError,
        ) as exc:  # its disk is full, or no descriptor was left for its journal
            for graded, target in written:  # the gradebook names no notebook autograded/ lacks, and the reverse
                shutil.rmtree(target, ignore_errors=True)
                self.unwritten[(graded.student, graded.assignment)] = (
                    f"the grader could not record this submission in the gradebook: {records.one_line(exc)}"
                )
        self.clock["gradebook_s"] += time.perf_counter() - t0

    def close(self) -> None:
        try:
            self.wait()
        finally:
            self.writer.shutdown(wait=True)
            self.book.close()


def _write_autograded(target: Path, folder: Path, handed_in: set[str], graded: dict[str, str]) -> None:
    """autograded/STUDENT/ASSIGNMENT: the files handed in that the notebook was given (`handed_in`,
    within the caps) and timestamp.txt, and each notebook as the judge wrote it (with nbformat,
    validated there)."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    for relative, path in plan.plain_files(folder):
        if relative in handed_in or relative.rsplit("/", 1)[-1] == "timestamp.txt":
            dest = target / relative
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
    for name, text in graded.items():  # a folder of its own, made afresh: nothing to replace atomically
        (target / f"{name}.ipynb").write_bytes(text.encode("utf-8"))
