"""The grader of submissions on receipt: takes them off the exchange's queue in order of arrival,
grades them with the course's grader (`autograder.coordinator.grader.grade`: the same sandbox, judge and
limits as the instructor's grading), and releases each student's feedback to that student alone.

It runs as the instructor's account, from the course folder: it reads source/ with the hidden tests,
which the exchange never holds, and it talks to the exchange with a grader's token. Each attempt is
graded in a scratch course under `.autograder/on-receipt/` (its own gradebook, one pseudo-student
per attempt), so the instructor's submitted/ and autograded/ are left alone. What the instructor's
gradebook gets is the attempt that counts under the assignment's policy (`policy.pick`: by default
the last graded attempt before the student's deadline), with its receipt time; every graded attempt's
scores per item are kept in `.autograder/attempts.sqlite` (`autograder.grades.attempts`, which
`autograder report` reads), and the answer cells of the attempt that counts say, in their comment
that formgrader shows, how many attempts each item took.

    python -m course_exchange.receipt --course-dir COURSE [--workers N] [--batch N]
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import os
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import nbformat

from course_exchange import archive, feedback, policy
from course_exchange.client import Client, RequestRefused
from course_exchange.policy import Policy, parse_time, stamp

SCRATCH = Path(".autograder") / "on-receipt"
UNPACK_LIMIT = 200_000_000
SCRATCH_CONFIG = '''"""The scratch course of grading on receipt: the instructor's settings, its own gradebook."""
import os
c = get_config()  # noqa: F821
load_subconfig({instructor!r})  # noqa: F821
here = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.root = here
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(here, "gradebook.db")
'''


@dataclass
class Attempt:
    """One submission taken off the queue, unpacked where the grader reads it."""

    id: int
    student: str
    assignment: str
    received_at: dt.datetime
    attempt: int | None
    rules: Policy

    @property
    def pseudo(self) -> str:
        """Its student id in the scratch course: one per attempt."""
        return f"{self.id}-{self.student}"


@dataclass
class Graded:
    attempt: Attempt
    reason: str | None  # None when every notebook was graded
    pages: dict[str, str] = field(default_factory=dict)  # notebook -> feedback HTML
    scores: dict[str, dict[str, tuple[float, float]]] = field(
        default_factory=dict
    )  # notebook -> grade_id -> (score, max)
    notebooks: dict[str, nbformat.NotebookNode] = field(default_factory=dict)  # notebook -> autograded notebook


class Grader:
    """The grader's judges, kept warm between submissions, and the scratch course it grades in."""

    def __init__(self, course_dir: Path, *, workers: int = 1, allow_weak_sandbox: bool = False) -> None:
        from autograder.coordinator import plan

        self.course_dir = Path(course_dir).resolve()
        self.scratch = self.course_dir / SCRATCH
        self.workers = workers
        self.allow_weak_sandbox = allow_weak_sandbox
        self.pool = None
        self._known: set[str] = set()
        plan.use_course_references(self.course_dir)
        self.scratch.mkdir(parents=True, exist_ok=True)
        os.chmod(self.scratch, 0o700)
        (self.scratch / "nbgrader_config.py").write_text(
            SCRATCH_CONFIG.format(instructor=str(self.course_dir / "nbgrader_config.py"))
        )
        link = self.scratch / "source"
        if not link.is_symlink():
            link.symlink_to(self.course_dir / "source", target_is_directory=True)

    def start(self) -> None:
        """Prepare the assignments the course grades on receipt, and start the zygote and the judges once
        (as the instructor's course's: its folder stays out of the sandbox)."""
        from autograder.config import nbconfig, settings
        from autograder.judge.pool import JudgePool

        for assignment in sorted(nbconfig.section(self.course_dir, "AssignmentPolicy").get("on_receipt") or {}):
            if (self.course_dir / "source" / assignment).is_dir():
                self._ensure_assignment(assignment)  # before the first submission arrives
        threads = max(1, (os.cpu_count() or 1) // self.workers)
        self.pool = JudgePool(
            self.course_dir,
            self.workers,
            threads,
            allow_weak_sandbox=self.allow_weak_sandbox,
            limits=settings.read_limits(self.course_dir),
            environment=settings.read_environment(self.course_dir),
        )

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    def _ensure_assignment(self, assignment: str) -> None:
        """The scratch gradebook knows the assignment's notebooks and points (nbgrader's generate_assignment, once)."""
        from autograder.grades import gradebook
        from autograder import stock

        if assignment in self._known:
            return
        gradebook.ensure_schema(self.scratch)
        try:
            gradebook.notebook_names(self.scratch, assignment)
        except LookupError:
            stock.generate_assignment(self.scratch, assignment)
        self._known.add(assignment)

    def forget(self, attempt: Attempt) -> None:
        """Drop an attempt's files from the scratch course once its feedback is out (the exchange keeps the submission)."""
        for top in ("submitted", "autograded", ".autograder/results"):
            shutil.rmtree(self.scratch / top / attempt.pseudo, ignore_errors=True)

    def folder(self, attempt: Attempt) -> Path:
        return self.scratch / "submitted" / attempt.pseudo / attempt.assignment

    def put(self, attempt: Attempt, data: bytes) -> None:
        """Unpack a submission where the grader reads it, with the exchange's receipt time as its timestamp."""
        dest = self.folder(attempt)
        if dest.exists():
            shutil.rmtree(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        archive.unpack(data, dest, max_bytes=UNPACK_LIMIT)
        (dest / "timestamp.txt").write_text(stamp(attempt.received_at))

    def grade(self, attempts: list[Attempt]) -> list[Graded]:
        """Grade unpacked attempts together (in parallel on the judges) and build each one's feedback."""
        from autograder.coordinator import grader

        for assignment in sorted({a.assignment for a in attempts}):
            self._ensure_assignment(assignment)
        results = grader.grade(
            self.scratch,
            [(a.pseudo, a.assignment) for a in attempts],
            pool=self.pool,
            progress=False,
            allow_weak_sandbox=self.allow_weak_sandbox,
            force=True,
        )
        return [self._graded(a, results.get((a.pseudo, a.assignment), "not graded")) for a in attempts]

    def _graded(self, attempt: Attempt, result: str) -> Graded:
        from autograder.grades import gradebook
        from nbgrader.api import Gradebook, MissingEntry

        out = Graded(attempt, None if result == "ok" else result)
        names = gradebook.notebook_names(self.scratch, attempt.assignment)
        with Gradebook(gradebook.db_url(self.scratch)) as gb:
            for name in names:
                path = self.scratch / "autograded" / attempt.pseudo / attempt.assignment / f"{name}.ipynb"
                source = nbformat.read(self.course_dir / "source" / attempt.assignment / f"{name}.ipynb", as_version=4)
                found: list[feedback.Check] = []
                if path.is_file():
                    try:
                        grades = gb.find_submission_notebook(name, attempt.assignment, attempt.pseudo).grades
                    except MissingEntry:
                        grades = []
                    out.scores[name] = {g.name: (float(g.score or 0.0), float(g.max_score or 0.0)) for g in grades}
                    out.notebooks[name] = nbformat.read(path, as_version=4)
                    found = self._limit_quizzes(attempt, feedback.checks(source, out.notebooks[name], out.scores[name]))
                out.pages[name] = feedback.page(
                    assignment=attempt.assignment,
                    notebook=name,
                    student=attempt.student,
                    received=stamp(attempt.received_at),
                    attempt=attempt.attempt,
                    rules=attempt.rules,
                    found=found,
                    reason=out.reason,
                )
        return out

    def _limit_quizzes(self, attempt: Attempt, found: list[feedback.Check]) -> list[feedback.Check]:
        """The checks with the verdicts of quizzes whose tries are used up withheld (`Policy.quiz_attempts`)."""
        from autograder.grades import attempts

        quizzes = {c.grade_id: c.passed for c in found if c.kind == "quiz"}
        if not quizzes:
            return found
        told = attempts.told_quiz_verdicts(
            self.course_dir,
            submission_id=attempt.id,
            assignment=attempt.assignment,
            student=attempt.student,
            verdicts=quizzes,
            limit=attempt.rules.quiz_attempts,
        )
        return [replace(c, withheld=True) if c.kind == "quiz" and c.grade_id not in told else c for c in found]

    def record(self, graded: Graded) -> bool:
        """Keep a graded attempt's scores; put it in the instructor's gradebook when it is the attempt that counts (True then)."""
        from autograder.grades import attempts, gradebook
        from autograder.rules import items
        from nbgrader.utils import parse_utc

        a = graded.attempt
        graded_ones = attempts.record(
            self.course_dir,
            submission_id=a.id,
            assignment=a.assignment,
            student=a.student,
            attempt=a.attempt,
            received_at=a.received_at,
            scores=graded.scores,
        )
        if not graded.notebooks:
            return False
        index, _ = policy.pick(a.rules, a.student, [when for _, when in graded_ones])
        if graded_ones[index][0] != a.id:
            return False
        tries = attempts.of_student(self.course_dir, assignment=a.assignment, student=a.student)
        notes = {
            name: {items.item_of(grade_id): attempts.note(*counted) for grade_id, counted in by_item.items()}
            for name, by_item in tries.items()
        }
        gradebook.save_autograde(
            self.course_dir,
            a.assignment,
            a.student,
            graded.notebooks,
            timestamp=parse_utc(stamp(a.received_at)),
            notes=notes,
        )
        return True


def serve(grader: Grader, client: Client, *, batch: int, poll_s: float, log=print, stop=lambda: False) -> None:
    """Grade what the exchange queues until `stop()`; claims this grader left unfinished before it (re)started are taken first."""
    first = True
    while not stop():
        try:
            items = client.claim(limit=batch, restarted=first)
        except RequestRefused as refused:
            log(f"receipt: {refused.message}")
            time.sleep(max(poll_s, 1.0))
            continue
        first = False
        if not items:
            time.sleep(poll_s)
            continue
        attempts = []
        for item in items:
            sub = item["submission"]
            attempt = Attempt(
                sub["id"],
                sub["student"],
                sub["assignment"],
                parse_time(sub["received_at"]),
                (sub.get("grading") or {}).get("attempt"),
                Policy.from_json(item["policy"]),
            )
            try:
                data = client.fetch_submission(attempt.assignment, attempt.id)
                if hashlib.sha256(data).hexdigest() != sub["sha256"]:
                    raise ValueError("the submission does not match its hash")
                grader.put(attempt, data)
            except RequestRefused as refused:
                log(f"receipt: submission {attempt.id} could not be fetched, it stays queued: {refused.message}")
                continue
            except (ValueError, OSError, archive.ArchiveError) as exc:
                log(f"receipt: submission {attempt.id} cannot be graded: {exc}")
                try:
                    client.grading_failed(attempt.assignment, attempt.id, str(exc))
                except RequestRefused as refused:
                    log(f"receipt: {refused.message}")
                continue
            attempts.append(attempt)
        if not attempts:
            continue
        for graded in grader.grade(attempts):
            a = graded.attempt
            try:
                if graded.reason is not None and not graded.notebooks:
                    client.grading_failed(a.assignment, a.id, graded.reason)
                with tempfile.TemporaryDirectory() as scratch:
                    for name, text in graded.pages.items():
                        Path(scratch, f"{name}.html").write_text(text, encoding="utf-8")
                    client.release_feedback(a.assignment, a.id, archive.pack(Path(scratch)))
            except RequestRefused as refused:
                # Still queued under this grader's claim: graded again when the claim lapses or the grader restarts.
                log(f"receipt: the feedback of submission {a.id} could not be released: {refused.message}")
                continue
            counted = grader.record(graded)
            grader.forget(a)
            log(
                f"receipt: graded {a.student}'s submission {a.id} of {a.assignment} (attempt {a.attempt}): "
                f"{graded.reason or 'ok'}{'; it counts in the gradebook' if counted else ''}"
            )


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="course-exchange-receipt", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--course-dir",
        type=Path,
        default=Path("."),
        help="the instructor's course folder (source/, nbgrader_config.py) [.]",
    )
    parser.add_argument(
        "--course", default=None, help="the course id [c.CourseDirectory.course_id of the course's nbgrader_config.py]"
    )
    parser.add_argument(
        "--url", default=os.environ.get("COURSE_EXCHANGE_URL", ""), help="the exchange's URL [$COURSE_EXCHANGE_URL]"
    )
    parser.add_argument(
        "--token-file",
        default=os.environ.get("COURSE_EXCHANGE_TOKEN_FILE", ""),
        help="a file holding a grader's hub token [$COURSE_EXCHANGE_TOKEN_FILE; else $JUPYTERHUB_API_TOKEN]",
    )
    parser.add_argument(
        "--workers", type=int, default=max(1, (os.cpu_count() or 1)), help="judges grading at once [cores]"
    )
    parser.add_argument("--batch", type=int, default=0, help="submissions taken off the queue at a time [--workers]")
    parser.add_argument("--poll", type=float, default=0.25, help="seconds between looks at an empty queue [0.25]")
    parser.add_argument(
        "--allow-weak-sandbox", action="store_true", help="grade even where the sandbox cannot confine fully"
    )
    args = parser.parse_args(argv)
    from autograder.config import nbconfig

    course = args.course or nbconfig.section(args.course_dir, "CourseDirectory").get("course_id")
    token = Path(args.token_file).read_text().strip() if args.token_file else os.environ.get("JUPYTERHUB_API_TOKEN", "")
    if not (args.url and course and token):
        parser.error("the exchange's URL, the course id and a grader's token are all needed")
    signal.signal(signal.SIGTERM, _interrupt)
    grader = Grader(args.course_dir, workers=args.workers, allow_weak_sandbox=args.allow_weak_sandbox)
    grader.start()
    print(
        f"course-exchange-receipt: grading {course} on receipt from {args.url} with {args.workers} judge(s)",
        file=sys.stderr,
        flush=True,
    )
    try:
        serve(
            grader,
            Client(url=args.url, token=token, course=course),
            batch=args.batch or args.workers,
            poll_s=args.poll,
            log=lambda line: print(line, file=sys.stderr, flush=True),
        )
    except KeyboardInterrupt:
        pass
    finally:
        grader.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
