"""The library behind each command; the CLI only parses arguments and calls these."""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

from tqdm import tqdm

from autograder import stock
from autograder.authoring import bundle, leaks, lessons, samples
from autograder.config import nbconfig, settings
from autograder.grades import feedback_pages, gradebook, report
from autograder.rules import items as item_rules
from autograder.rules.text import printable


class UsageError(ValueError):
    """Bad input from the user (unknown assignment, missing folder); shown as one line."""


def source_assignments(course_dir: Path) -> list[str]:
    source = course_dir / "source"
    return sorted(p.name for p in source.iterdir() if p.is_dir() and any(p.glob("*.ipynb"))) if source.is_dir() else []


def _chosen(course_dir: Path, assignments: list[str] | None) -> list[str]:
    known = source_assignments(course_dir)
    if not assignments:
        return known
    unknown = [a for a in assignments if a not in known]
    if unknown:
        raise UsageError(f"unknown assignment {', '.join(unknown)} (known: {', '.join(known) or 'none'})")
    return list(assignments)


def build(course_dir: Path, *, assignments: list[str] | None = None) -> list[Path]:
    try:
        return lessons.build(course_dir, assignments=assignments)
    except LookupError as exc:
        raise UsageError(str(exc)) from None


def release(
    course_dir: Path, *, assignments: list[str] | None = None, progress: bool = True, bundle_to: Path | None = None
) -> list[leaks.Leak]:
    """Generate release/ with nbgrader, and the student bundle at `bundle_to` when given.

    Returns every leak found in the release and the bundle (an empty list is success).
    """
    chosen = _chosen(course_dir, assignments)
    gradebook.ensure_schema(course_dir)
    for assignment in tqdm(chosen, desc="release", unit="assignment", disable=not progress):
        stock.generate_assignment(course_dir, assignment)
    found = leaks.scan_release(course_dir, chosen)
    if not found and bundle_to is not None:
        try:
            bundle.write_bundle(course_dir, out=bundle_to)
        except bundle.BundleLeak as exc:
            found = exc.leaks
    return found


def submitted_pairs(course_dir: Path, assignments: list[str], student: str | None) -> list[tuple[str, str]]:
    """(student, assignment) for every submission folder present, but for the students nbgrader's
    `c.CourseDirectory.student_id_exclude` leaves out."""
    submitted = course_dir / "submitted"
    if not submitted.is_dir():
        raise UsageError(f"nothing to grade: {submitted} does not exist")
    students = [student] if student else sorted(p.name for p in submitted.iterdir() if p.is_dir())
    if student and not (submitted / student).is_dir():
        raise UsageError(f"no submissions for student {student!r} in {submitted}")
    excluded = str(nbconfig.section(course_dir, "CourseDirectory").get("student_id_exclude") or "").split(",")
    return [(s, a) for s in students if s not in excluded for a in assignments if (submitted / s / a).is_dir()]


def grade(
    course_dir: Path,
    *,
    assignments: list[str] | None = None,
    student: str | None = None,
    workers: int | None = None,
    progress: bool = True,
    grader: str = "autograder",
    force: bool = False,
    tests_in_sandbox: bool = False,
    allow_weak_sandbox: bool = False,
    cluster: str | None = None,
    local: bool = False,
    allow_insecure_cluster: bool = False,
    stats: dict | None = None,
) -> dict[tuple[str, str], str]:
    """Grade every submission; returns {(student, assignment): "ok" or the reason it failed}.

    `cluster` is a Dask scheduler's address (default: `c.Autograder.cluster` in nbgrader_config.py,
    unless `local`); the run then grades on its workers (`client.ClusterError` when it cannot).
    `grader="nbgrader"` grades with stock `nbgrader autograde` instead (for comparisons).
    """
    cluster = None if local or grader != "autograder" else cluster_address(course_dir, cluster)
    if cluster:
        from autograder.cluster import client  # Dask is imported only for a run on a cluster

        client.check_address(cluster, allow_insecure=allow_insecure_cluster)
    chosen = _chosen(course_dir, assignments)
    pairs = submitted_pairs(course_dir, chosen, student)
    if grader == "autograder":
        from autograder.coordinator import grader as coordinator

        return coordinator.grade(
            course_dir,
            pairs,
            workers=workers,
            progress=progress,
            force=force,
            tests_in_sandbox=tests_in_sandbox,
            allow_weak_sandbox=allow_weak_sandbox,
            cluster=cluster,
            allow_insecure_cluster=allow_insecure_cluster,
            stats=stats,
        )
    if grader != "nbgrader":
        raise UsageError(f"unknown grader {grader!r} (autograder or nbgrader)")
    results: dict[tuple[str, str], str] = {}
    for who, assignment in tqdm(pairs, desc="grade", unit="notebook", disable=not progress):
        proc = stock.autograde(course_dir, assignment, student=who)
        failed = proc.returncode != 0 or not (course_dir / "autograded" / who / assignment).is_dir()
        results[(who, assignment)] = _failure_reason(proc.stdout) if failed else "ok"
    return results


def speed_summary(stats: dict, *, slowest: int = 3) -> str:
    """Where a grading run's time went: notebooks per second, student code against the grader's own work."""
    timings = stats.get("timings", [])
    ran = len(timings)
    if not ran:
        return "Nothing ran: every notebook was unchanged since the last run."
    wall = stats.get("seconds", 0.0)
    workers = max(1, stats.get("workers", 1))
    startup = stats.get("startup_s", 0.0)
    student = sum(t.get("student_code_s", 0.0) for t in timings)
    busy = sum(t.get("total_s", 0.0) for t in timings)
    lines = [
        f"Speed: {ran / wall:.2f} notebooks/s with {workers} worker{'s' if workers > 1 else ''} ({wall:.1f} s wall).",
        f"  student code      {student:8.1f} s  ({student / ran:.3f} s per notebook; its limit on {workers} workers: {student / workers:.1f} s wall)",
        f"  grader overhead   {max(busy - student, 0.0):8.1f} s  ({max(busy - student, 0.0) / ran:.3f} s per notebook: forks, judge, probes, repair)",
        f"  start-up          {startup:8.1f} s  (zygote and judges, once per run)",
    ]
    worst = sorted(timings, key=lambda t: t.get("total_s", 0.0), reverse=True)[:slowest]
    lines.append("  slowest: " + ", ".join(f"{t.get('notebook', '?')} {t.get('total_s', 0.0):.1f} s" for t in worst))
    return "\n".join(lines)


def cluster_address(course_dir: Path, given: str | None = None) -> str | None:
    """The Dask scheduler to grade on: the one given, else `c.Autograder.cluster`, else None (this machine)."""
    address = given or settings.read(course_dir).cluster
    return str(address) if address else None


def _exception_line(log: str) -> str:
    """The last exception a log's tracebacks end with (`OSError: [Errno 28] No space left on device`)."""
    found = [line.strip() for line in log.splitlines() if re.match(r"\s*[\w.]+(Error|Exception|Full): ", line)]
    return found[-1][:200] if found else "nbgrader generate_feedback failed"


def _failure_reason(log: str) -> str:
    for line in reversed(log.splitlines()):
        if "Error" in line or "error" in line:
            return line.strip()[:200]
    return "nbgrader autograde failed"


def feedback(
    course_dir: Path,
    *,
    assignments: list[str] | None = None,
    student: str | None = None,
    workers: int | None = None,
    progress: bool = True,
) -> Path:
    """feedback/ for every graded submission; one whose pages could not be written (a full disk) is one
    printed line, and the others are written all the same. The pages are nbgrader's own, written by
    `feedback_pages` on every core; a course whose configuration changes them goes through stock
    `nbgrader generate_feedback`, and a line says why."""
    chosen = _chosen(course_dir, assignments)
    refusal = feedback_pages.fast_path_refusal(nbconfig.load(course_dir))
    if refusal:
        print(f"  feedback by nbgrader generate_feedback, one notebook at a time: {refusal}")
        _stock_feedback(course_dir, chosen, student)
    else:
        started = time.perf_counter()
        written = feedback_pages.write_feedback(course_dir, chosen, student=student, workers=workers, progress=progress)
        for who, assignment, reason in written.failed:
            print(f"  feedback not written {printable(who)}/{printable(assignment)}: {printable(reason)}")
        if written.submissions:
            wall = time.perf_counter() - started
            print(
                f"Feedback: {written.pages} pages for {written.submissions} submissions in {wall:.1f} s "
                f"({written.pages / wall:.0f} pages/s; {written.rendered} cells rendered, {written.reused} reused)"
            )
    _cap_feedback(course_dir / "feedback", settings.read_limits(course_dir).feedback_mb)
    return course_dir / "feedback"


def _stock_feedback(course_dir: Path, chosen: list[str], student: str | None) -> None:
    for assignment in chosen:
        graded = (
            sorted(p.parent.name for p in (course_dir / "autograded").glob(f"*/{assignment}"))
            if (course_dir / "autograded").is_dir()
            else []
        )
        graded = [s for s in graded if student in (None, s)]
        if not graded:
            continue
        proc = stock.generate_feedback(course_dir, assignment, student=student)
        if proc.returncode == 0:
            continue
        missing = [s for s in graded if not (course_dir / "feedback" / s / assignment).is_dir()]
        if not missing:
            raise stock.NbgraderError(
                f"nbgrader generate_feedback {assignment} failed (exit {proc.returncode}):\n"
                + "\n".join((proc.stdout or "").splitlines()[-25:])
            )
        reason = _exception_line(proc.stdout or "")
        for who in missing:
            print(f"  feedback not written {printable(who)}/{printable(assignment)}: {printable(reason)}")


def _cap_feedback(folder: Path, megabytes: int) -> None:
    """Replace each feedback page over `c.Autograder.max_feedback_mb` by a short page that says so (and print one line)."""
    for page in sorted(folder.rglob("*.html")) if folder.is_dir() else []:
        size = page.stat().st_size
        if size > megabytes * 1024 * 1024:
            page.write_text(
                f"<!DOCTYPE html><html><body><p>Your feedback for this notebook was {size / 1e6:.1f} MB, over the "
                f"course's limit of {megabytes} MB (c.Autograder.max_feedback_mb), so it is not shown here. Your "
                "scores are recorded; ask your instructor for the autograded notebook.</p></body></html>\n",
                encoding="utf-8",
            )
            print(
                f"  over a limit {printable(page.relative_to(folder))}: feedback page of {size / 1e6:.1f} MB replaced (max_feedback_mb = {megabytes})"
            )


def export(course_dir: Path, *, to: Path, lms: Path | None = None, progress: bool = False) -> tuple[Path, Path]:
    """nbgrader's CSV at `to` (what `nbgrader export` writes, read in bulk), and the LMS CSV (one row
    per student) at `lms`."""
    gradebook.export_csv(course_dir, to, progress=progress)
    lms = lms or to.with_name(to.stem + "-lms.csv")
    report.write_lms_csv(course_dir, to=lms)
    return to, lms


def make_report(course_dir: Path, *, out: Path, assignments: list[str] | None = None) -> Path:
    try:
        return report.write_report(course_dir, out=out, assignments=assignments)
    except LookupError as exc:
        raise UsageError(str(exc)) from None


def format_table(
    course_dir: Path, *, assignments: list[str] | None = None, notes: dict[str, str] | None = None, width: int = 100
) -> str:
    """A plain-text score table per assignment: a row per item under its whole name, a column per
    student, split into several tables when the class is too wide for `width` columns."""
    rows = gradebook.item_scores(course_dir, assignments=assignments)
    out: list[str] = []
    for assignment in sorted({r.assignment for r in rows}):
        mine = [r for r in rows if r.assignment == assignment]
        items = list(dict.fromkeys(r.item for r in mine))
        maxima = {r.item: r.max_score for r in mine}
        students = sorted({r.student for r in mine})
        scores = {(r.student, r.item): r.score for r in mine}
        names = [item_rules.short_name(i) for i in items] + ["total"]
        label = max(len(n) for n in names)
        cell = max(9, *(len(s) for s in students))
        per_table = max(1, (width - label) // (cell + 2))
        for first in range(0, len(students), per_table):
            group = students[first : first + per_table]
            out.append(
                f"\n{assignment}"
                + (f" (students {first + 1}-{first + len(group)})" if len(students) > per_table else "")
            )
            out.append(" " * label + "".join(f"  {s:>{cell}}" for s in group))
            for item, name in zip(items, names):
                out.append(
                    f"{name:<{label}}"
                    + "".join(f"  {_score(scores.get((s, item), 0), maxima[item]):>{cell}}" for s in group)
                )
            total_max = sum(maxima.values())
            out.append(
                f"{'total':<{label}}"
                + "".join(f"  {_score(sum(scores.get((s, i), 0) for i in items), total_max):>{cell}}" for s in group)
            )
    shown = sorted({r.student for r in rows})
    if notes and any(who in notes for who in shown):
        out.append("")
        out.extend(f"{who}: {notes[who]}" for who in shown if who in notes)
    return "\n".join(out)


def _score(score: float, maximum: float) -> str:
    return f"{score:g}/{maximum:g}"


def demo(
    course_dir: Path, *, assignments: list[str] | None = None, keep: Path | None = None, db_url: str | None = None
) -> Path:
    """Grade the sample class in a copy of the course; returns the folder it worked in.

    The demo keeps its own gradebook, never the course's: `db_url` (say an empty PostgreSQL
    database), or a SQLite file in the folder it works in.
    """
    chosen = _chosen(course_dir, assignments)
    work = keep.resolve() if keep else Path(tempfile.mkdtemp(prefix="autograder-demo-"))
    work.mkdir(parents=True, exist_ok=True)
    for name in ("nbgrader_config.py", "source"):
        target = work / name
        if target.is_dir():
            shutil.rmtree(target)
        (shutil.copytree if (course_dir / name).is_dir() else shutil.copy2)(course_dir / name, target)
    for stale in ("release", "submitted", "autograded", "feedback", "gradebook.db", ".autograder"):
        path = work / stale
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    with open(work / "nbgrader_config.py", "a", encoding="utf-8") as fh:
        fh.write(
            f"\n# autograder demo: its own gradebook\nc.CourseDirectory.db_url = {db_url or 'sqlite:///' + str(work / 'gradebook.db')!r}\n"
        )
    print(f"Working in {work}")
    found = release(work, assignments=chosen)
    if found:
        raise RuntimeError("the release leaks instructor text:\n" + "\n".join(map(str, found[:20])))
    students = samples.write_demo_class(work, assignments=chosen)
    started = time.perf_counter()
    results = grade(work, assignments=chosen)
    elapsed = time.perf_counter() - started
    feedback(work, assignments=chosen)
    csv_path, lms_path = export(work, to=work / "grades.csv")
    report_path = make_report(work, out=work / "report")
    print(format_table(work, assignments=chosen, notes=students))
    failed = {k: v for k, v in results.items() if v != "ok"}
    print(f"\nGraded {len(results) - len(failed)} of {len(results)} notebooks in {elapsed:.1f} s.")
    for (who, assignment), reason in sorted(failed.items()):
        print(f"  not graded: {printable(who)}/{printable(assignment)}: {printable(reason)}")
    print(f"Gradebook: {gradebook.describe(gradebook.db_url(work))}")
    print(f"Grades CSV: {csv_path} (LMS: {lms_path})")
    print(f"Report:     {report_path}")
    print(f"Feedback:   {work / 'feedback'}")
    print(f"Autograded: {work / 'autograded'}")
    return work


def problem_lines(stats: dict, failed: dict) -> list[str]:
    """The lines `autograder grade` prints after its table, one per thing to look at. Each piece may hold
    what a submission wrote (a file name, a message), so each is shown as `printable` text."""
    lines: list[str] = []
    for warning in stats.get("warnings", []):
        lines.append(f"  WARNING: {printable(warning)}")
    for where, notes in sorted(stats.get("repairs", {}).items()):
        for note in notes:
            lines.append(f"  repaired {printable(where)}: {printable(note)}")
    for where, notes in sorted(stats.get("limits", {}).items()):
        for note in notes:
            lines.append(f"  over a limit {printable(where)}: {printable(note)}")
    for where, found in sorted(stats.get("tampering", {}).items()):
        for entry in found:
            target = f"item {printable(entry['item'])}" if entry.get("item") else "outside any item"
            lines.append(
                f"  TAMPERING {printable(where)}: {target}: {printable('; '.join(entry['details']), limit=300)}"
                + (" (scored 0, flagged for manual grading)" if entry.get("item") else "")
            )
    for where, items in sorted(stats.get("failures", {}).items()):
        for failure in items:
            cell = f"cell {failure['cell'] + 1}" if isinstance(failure.get("cell"), int) else "replay"
            lines.append(f"  {printable(where)}: {cell}: {printable(failure['kind'])}")
    for (who, assignment), reason in sorted(failed.items()):
        lines.append(f"  not graded: {printable(who)}/{printable(assignment)}: {printable(reason)}")
    return lines


def _grade_and_print(course_dir: Path, args: argparse.Namespace) -> int:
    """`autograder grade`: the run, then the class's table, the speed and one line for each thing to look at."""
    stats: dict = {}
    started = time.perf_counter()
    results = grade(
        course_dir,
        assignments=args.assignments,
        student=args.student,
        workers=args.workers,
        force=args.force,
        tests_in_sandbox=args.in_sandbox_tests,
        allow_weak_sandbox=args.allow_weak_sandbox,
        cluster=args.cluster,
        local=args.local,
        allow_insecure_cluster=args.allow_insecure_cluster,
        stats=stats,
    )
    print(format_table(course_dir, assignments=args.assignments))
    failed = {k: v for k, v in results.items() if v != "ok"}
    print(
        f"\nGraded {len(results) - len(failed)} of {len(results)} submissions in {time.perf_counter() - started:.1f} s"
        f" ({stats.get('ran', 0)} notebooks run, {stats.get('reused', 0)} unchanged since the last run)."
    )
    if any(worker != "local" for worker in stats.get("graded_by", {})):
        print(
            "  graded by: " + ", ".join(f"{worker} ({count})" for worker, count in sorted(stats["graded_by"].items()))
        )
    print(speed_summary(stats))
    for line in problem_lines(stats, failed):
        print(line)
    if failed:  # as `nbgrader autograde`, which exits 1 when a submission failed
        print(
            f"autograder: {len(failed)} of {len(results)} submissions could not be graded (the 'not graded' lines above)",
            file=sys.stderr,
        )
        return 1
    return 0


def run(command: str, course_dir: Path, args: argparse.Namespace) -> int:
    if command == "build":
        for path in build(course_dir, assignments=args.assignments):
            print(f"wrote {path.relative_to(course_dir)}")
        return 0
    if command == "release":
        bundle_dir = course_dir / "dist" / "student-bundle"
        found = release(course_dir, assignments=args.assignments, bundle_to=bundle_dir)
        if found:
            print(f"release/ leaks instructor text ({len(found)} places):", file=sys.stderr)
            for leak in found[:50]:
                print(f"  {leak}", file=sys.stderr)
            return 1
        print("release/ written; no solution, hidden test or quiz key found in it.")
        print(f"student bundle: {bundle_dir} and {bundle_dir.with_suffix('.zip')}")
        return 0
    if command == "grade":
        return _grade_and_print(course_dir, args)
    if command == "feedback":
        folder = feedback(course_dir, assignments=args.assignments, student=args.student, workers=args.workers)
        print(f"feedback written to {folder}")
        return 0
    if command == "export":
        started = time.perf_counter()
        nb_csv, lms_csv = export(
            course_dir, to=Path(args.to).resolve(), lms=Path(args.lms).resolve() if args.lms else None, progress=True
        )
        print(f"grades written to {nb_csv} (nbgrader) and {lms_csv} (LMS) in {time.perf_counter() - started:.1f} s")
        return 0
    if command == "report":
        path = make_report(course_dir, out=Path(args.out).resolve(), assignments=args.assignments or None)
        print(f"report written to {path} and {path.with_name('items.csv')}")
        return 0
    if command == "demo":
        demo(course_dir, assignments=args.assignments, keep=Path(args.keep) if args.keep else None, db_url=args.db_url)
        return 0
    if command == "sandbox-check":
        from autograder.sandbox import capabilities

        print(capabilities.describe_capabilities())
        return 0
    raise UsageError(f"unknown command {command!r}")
