"""Grading speed: stock `nbgrader autograde` against `autograder grade`, on the same synthetic class.

    python benchmarks/grading_speed.py [--students N] [--workers N] [--lessons ID ...] [--keep DIR]

Builds a class of N students over every lesson in source/ (answers correct, blank, and partly
wrong: alternate answers left blank, and the corpus's wrong variants where a lesson has one),
releases it once, then grades one copy with stock nbgrader and another with the engine, in this
run, on this machine. Checks that every item's score is identical, and prints both times, the ratio
and the engine's per-notebook overhead beyond the student code's own run time (the time the
sandboxed children report running student cells and answering the judge's calls).
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

from autograder import commands, corpus, gradebook, samples  # noqa: E402


def build_class(course: Path, lessons: list[str], students: int) -> dict[str, str]:
    """submitted/<student>/<lesson>/ for `students` students; returns {student: what they handed in}."""
    kinds = ["correct", "blank", "odd answers", "even answers", "corpus wrong", "correct"]
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
            kind = kinds[k % len(kinds)]
            if kind == "correct":
                nb = samples.answered(source, release, keep=None)
            elif kind == "blank":
                nb = release
            elif kind == "odd answers":
                nb = samples.answered(source, release, keep=set(items[::2]))
            elif kind == "even answers":
                nb = samples.answered(source, release, keep=set(items[1::2]))
            else:
                nb = wrong[k % len(wrong)] if wrong else samples.answered(source, release, keep=set(items[: len(items) // 2]))
            student = f"s{k:03d}"
            described[student] = kind
            target = course / "submitted" / student / lesson / f"{lesson}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, target)
    return described


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=6)
    parser.add_argument("--workers", type=int, default=None, help="engine workers (default: the number of cores)")
    parser.add_argument("--lessons", nargs="*", default=None, help="lesson ids (default: all in source/)")
    parser.add_argument("--keep", default=None, help="work in this folder and keep it")
    args = parser.parse_args(argv)

    lessons = args.lessons or commands.source_assignments(ROOT)
    work = Path(args.keep).resolve() if args.keep else Path(tempfile.mkdtemp(prefix="grading-speed-"))
    base = work / "base"
    if base.exists():
        shutil.rmtree(base)
    base.mkdir(parents=True)
    shutil.copy2(ROOT / "nbgrader_config.py", base)
    for lesson in lessons:
        shutil.copytree(ROOT / "source" / lesson, base / "source" / lesson)
    if (ROOT / "tests" / "corpus").is_dir():
        shutil.copytree(ROOT / "tests" / "corpus", base / "tests" / "corpus")
    print(f"releasing {len(lessons)} lessons in {work} ...", flush=True)
    commands.release(base, progress=False)
    build_class(base, lessons, args.students)
    stock_course, engine_course = work / "stock", work / "engine"
    for target in (stock_course, engine_course):
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(base, target)
    notebooks = args.students * len(lessons)
    cores = os.cpu_count() or 1

    print(f"stock nbgrader autograde: {notebooks} notebooks ...", flush=True)
    started = time.perf_counter()
    stock_results = commands.grade(stock_course, engine="nbgrader", progress=True)
    stock_s = time.perf_counter() - started

    print(f"autograder grade ({args.workers or cores} workers): {notebooks} notebooks ...", flush=True)
    stats: dict = {}
    started = time.perf_counter()
    engine_results = commands.grade(engine_course, workers=args.workers, progress=True, stats=stats)
    engine_s = time.perf_counter() - started

    stock_table, engine_table = gradebook.score_table(stock_course), gradebook.score_table(engine_course)
    differences = [
        (key, item, stock_table.get(key, {}).get(item), engine_table.get(key, {}).get(item))
        for key in sorted(set(stock_table) | set(engine_table))
        for item in sorted(set(stock_table.get(key, {})) | set(engine_table.get(key, {})))
        if stock_table.get(key, {}).get(item) != engine_table.get(key, {}).get(item)
    ]
    items = sum(len(v) for v in engine_table.values())
    workers = min(args.workers or cores, notebooks)
    student_code = sum(t.get("student_code_s", 0.0) for t in stats.get("timings", []))
    per_notebook = [t["total_s"] - t.get("student_code_s", 0.0) for t in stats.get("timings", []) if "total_s" in t]
    overhead = (engine_s * workers - student_code) / notebooks

    print()
    print(f"lessons: {', '.join(lessons)}; students: {args.students}; notebooks: {notebooks}; cores: {cores}; engine workers: {workers}")
    print(f"stock nbgrader autograde: {stock_s:8.1f} s  ({stock_s / notebooks:.2f} s per notebook)")
    print(f"autograder grade:         {engine_s:8.1f} s  ({engine_s / notebooks:.2f} s per notebook)")
    print(f"speed-up:                 {stock_s / engine_s:8.1f}x")
    print(f"student code (children):  {student_code:8.1f} s in all ({student_code / notebooks:.3f} s per notebook)")
    print(f"overhead per notebook:    {overhead:8.3f} s  (wall time x workers - student code, / notebooks; start-up included)")
    if per_notebook:
        timings = stats["timings"]
        mean = lambda key: sum(t.get(key, 0.0) for t in timings) / len(timings)  # noqa: E731
        print(f"  inside a job:           {sum(per_notebook) / len(per_notebook):8.3f} s  (fork, repair, judge, outputs; start-up excluded)")
        print(f"    fork and confine:     {mean('fork_s'):8.3f} s")
        print(f"    judge (test cells):   {mean('judge_s'):8.3f} s  (their calls into student code included)")
        print(f"    repair and writes:    {mean('total_s') - mean('student_s') - mean('judge_s'):8.3f} s")
    print(f"results: stock {sum(v == 'ok' for v in stock_results.values())}/{len(stock_results)} ok, "
          f"engine {sum(v == 'ok' for v in engine_results.values())}/{len(engine_results)} ok")
    if differences:
        print(f"SCORES DIFFER on {len(differences)} of {items} items:")
        for (assignment, student), item, theirs, ours in differences[:40]:
            print(f"  {assignment} {student} {item}: nbgrader {theirs}, autograder {ours}")
    else:
        print(f"scores: identical on all {items} items")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
