"""Grading speed: stock `nbgrader autograde`, run as instructors run it, against `autograder grade`.

    python benchmarks/grading_speed.py [--students 12] [--workers 2] [--lessons ID ...] [--per-student] [--keep DIR]

Builds one synthetic class of N students over every lesson in source/ (answers correct, blank, partly
wrong, and the corpus's wrong variants), releases it once, and grades two fresh copies of it in this
run, on this machine:

- stock nbgrader as instructors run it: one `nbgrader autograde ASSIGNMENT` per assignment, for the
  whole class (with `--per-student`, also one process per student and assignment, a second row);
- `autograder grade --force` with `--workers` workers.

Both get the same environment (nothing set for one side only), and both first grade one notebook
untimed, so neither pays for a cold disk cache. Every item's score must be identical. It prints both
times and their ratio, and the student-code limit: the time the sandboxed children spent running
student code, divided by the workers, which no grader running every cell on these workers can beat.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import commands, stock  # noqa: E402
from autograder.authoring import corpus, samples  # noqa: E402
from autograder.grades import gradebook  # noqa: E402

KINDS = ["correct", "blank", "odd answers", "even answers", "corpus wrong", "correct"]


def build_class(course: Path, lessons: list[str], students: int) -> dict[str, str]:
    """submitted/<student>/<lesson>/ for `students` students; returns {student: what they handed in}."""
    described = {}
    for lesson in lessons:
        source = nbformat.read(course / "source" / lesson / f"{lesson}.ipynb", as_version=4)
        release = nbformat.read(course / "release" / lesson / f"{lesson}.ipynb", as_version=4)
        items = samples.answer_items(release)
        try:
            wrong = [s.notebook for s in corpus.students(course, lesson) if s.name.startswith("wrong")]
        except (FileNotFoundError, KeyError):
            wrong = []
        for k in range(students):
            kind = KINDS[k % len(KINDS)]
            if kind == "correct":
                nb = samples.answered(source, release, keep=None)
            elif kind == "blank":
                nb = release
            elif kind == "odd answers":
                nb = samples.answered(source, release, keep=set(items[::2]))
            elif kind == "even answers":
                nb = samples.answered(source, release, keep=set(items[1::2]))
            else:
                nb = (
                    wrong[k % len(wrong)]
                    if wrong
                    else samples.answered(source, release, keep=set(items[: len(items) // 2]))
                )
            student = f"s{k:03d}"
            described[student] = kind
            target = course / "submitted" / student / lesson / f"{lesson}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, target)
    return described


def released_class(work: Path, lessons: list[str], students: int) -> Path:
    """work/base: a course of `lessons` from this tree, released, with `build_class`'s students handed in."""
    base = copy_of(ROOT / "source", work / "base" / "source").parent
    shutil.copy2(ROOT / "nbgrader_config.py", base)
    for lesson in list((base / "source").iterdir()):
        if lesson.name not in lessons:
            shutil.rmtree(lesson)
    if (ROOT / "tests" / "corpus").is_dir():
        shutil.copytree(ROOT / "tests" / "corpus", base / "tests" / "corpus")
    print(f"releasing {len(lessons)} lessons in {work} ...", flush=True)
    commands.release(base, progress=False)
    build_class(base, lessons, students)
    return base


def copy_of(base: Path, target: Path) -> Path:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(base, target)
    return target


def stock_per_assignment(course: Path, lessons: list[str]) -> float:
    started = time.perf_counter()
    for lesson in lessons:
        stock.autograde(course, lesson)
    return time.perf_counter() - started


def stock_per_student(course: Path, lessons: list[str]) -> float:
    started = time.perf_counter()
    commands.grade(course, grader="nbgrader", progress=False)
    return time.perf_counter() - started


def warm_up(base: Path, work: Path, lesson: str) -> None:
    """Grade one notebook with each tool, untimed: the disk cache holds torch for both sides afterwards."""
    warm = copy_of(base, work / "warm")
    for student in sorted(p.name for p in (warm / "submitted").iterdir())[1:]:
        shutil.rmtree(warm / "submitted" / student)
    stock.autograde(warm, lesson)
    commands.grade(warm, assignments=[lesson], progress=False, force=True)
    shutil.rmtree(warm, ignore_errors=True)


def differences(a: dict, b: dict) -> list:
    return [
        (key, item, a.get(key, {}).get(item), b.get(key, {}).get(item))
        for key in sorted(set(a) | set(b))
        for item in sorted(set(a.get(key, {})) | set(b.get(key, {})))
        if a.get(key, {}).get(item) != b.get(key, {}).get(item)
    ]


def print_differences(diff: list, items: int, left: str, right: str) -> None:
    if diff:
        print(f"SCORES DIFFER on {len(diff)} of {items} items:")
        for (assignment, student), item, theirs, ours in diff[:40]:
            print(f"  {assignment} {student} {item}: {left} {theirs}, {right} {ours}")
    else:
        print(f"scores: identical on all {items} items")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=12)
    parser.add_argument("--workers", type=int, default=None, help="engine workers (default: the number of cores)")
    parser.add_argument("--lessons", nargs="*", default=None, help="lesson ids (default: all in source/)")
    parser.add_argument(
        "--per-student", action="store_true", help="also time stock nbgrader run once per student and assignment"
    )
    parser.add_argument("--keep", default=None, help="work in this folder and keep it")
    args = parser.parse_args(argv)

    lessons = args.lessons or commands.source_assignments(ROOT)
    work = Path(args.keep).resolve() if args.keep else Path(tempfile.mkdtemp(prefix="grading-speed-"))
    base = released_class(work, lessons, args.students)
    notebooks = args.students * len(lessons)
    cores = os.cpu_count() or 1
    workers = min(args.workers or cores, notebooks)

    print("warming up (one notebook with each tool, untimed) ...", flush=True)
    warm_up(base, work, lessons[0])

    stock_course = copy_of(base, work / "stock")
    print(f"stock nbgrader autograde, once per assignment: {notebooks} notebooks ...", flush=True)
    stock_s = stock_per_assignment(stock_course, lessons)

    engine_course = copy_of(base, work / "engine")
    print(f"autograder grade --force ({workers} workers): {notebooks} notebooks ...", flush=True)
    stats: dict = {}
    started = time.perf_counter()
    results = commands.grade(engine_course, workers=workers, progress=True, force=True, stats=stats)
    engine_s = time.perf_counter() - started

    per_student_s = None
    if args.per_student:
        per_student_course = copy_of(base, work / "per-student")
        print(f"stock nbgrader autograde, once per student and assignment: {notebooks} notebooks ...", flush=True)
        per_student_s = stock_per_student(per_student_course, lessons)

    stock_table, engine_table = gradebook.score_table(stock_course), gradebook.score_table(engine_course)
    diff = differences(stock_table, engine_table)
    items = sum(len(v) for v in engine_table.values())
    timings = stats.get("timings", [])
    student_code = sum(t.get("student_code_s", 0.0) for t in timings)
    limit = student_code / workers
    in_jobs = sum(t.get("total_s", 0.0) for t in timings)
    mean = lambda key: sum(t.get(key, 0.0) for t in timings) / max(len(timings), 1)  # noqa: E731

    print()
    print(
        f"lessons: {', '.join(lessons)}; students: {args.students}; notebooks: {notebooks}; cores: {cores}; engine workers: {workers}"
    )
    print(
        f"stock nbgrader autograde, once per assignment: {stock_s:8.1f} s  ({stock_s / notebooks:.2f} s per notebook)"
    )
    if per_student_s is not None:
        print(
            f"stock nbgrader autograde, once per student:    {per_student_s:8.1f} s  ({per_student_s / notebooks:.2f} s per notebook)"
        )
    print(
        f"autograder grade:                              {engine_s:8.1f} s  ({engine_s / notebooks:.2f} s per notebook)"
    )
    print(f"speed-up against stock as instructors run it:  {stock_s / engine_s:8.1f}x")
    if per_student_s is not None:
        print(f"speed-up against stock run per student:        {per_student_s / engine_s:8.1f}x")
    print(
        f"student-code limit (student code / workers):   {limit:8.1f} s  (student code: {student_code:.1f} s, {student_code / notebooks:.3f} s per notebook)"
    )
    print(f"autograder grade / student-code limit:         {engine_s / limit if limit else float('nan'):8.2f}x")
    print(
        f"stock as instructors run it / student-code limit: {stock_s / limit if limit else float('nan'):5.1f}x  (the best ratio any grader running every cell on {workers} workers could reach)"
    )
    print(
        f"where the engine's time went: start-up {stats.get('startup_s', 0.0):.1f} s; in jobs {in_jobs:.1f} s of which student code {student_code:.1f} s"
    )
    print(
        f"  per notebook: fork and confine {mean('fork_s'):.3f} s over {mean('forks'):.1f} forks; judge {mean('judge_s'):.3f} s "
        f"(its calls into student code and probe children included); repair and writes {mean('total_s') - mean('student_s') - mean('judge_s'):.3f} s"
    )
    print(f"results: engine {sum(v == 'ok' for v in results.values())}/{len(results)} ok")
    print_differences(diff, items, "nbgrader", "autograder")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
