"""After grading, at a MOOC's size: `report`, `export` and `feedback` on a synthetic class on PostgreSQL.

    python benchmarks/class_gradebook.py [--students 5000] [--assignments 10] [--seed 29] [--stock-sample 40]

Starts PostgreSQL (default durability) on 127.0.0.1, adds the course's lessons to it as nbgrader's
generate_assignment records them (more assignments than lessons: a lesson comes again under another
name), then records a class of
--students students, each of whom handed in every assignment, through the grader's own batch writer
(`gradebook.Writer`): every test cell scores its points or zero at random, seeded. Then it runs
`autograder report` and `autograder export` on that gradebook, as an instructor would, each with its
progress bar, and prints how long each took. Checks that the export's totals are the recorded ones.

Then feedback. Each synthetic submission gets an autograded notebook made from two real ones: the
demo class's right and blank answers to that lesson, graded by the engine first. Every test cell is
the graded test cell that matches the score recorded for it, every answer cell is the right or the
blank answer at random, and every answer cell ends with a comment naming its student, so that no two
students' answers are the same cell (as in a real class, where each student's code is their own).
`autograder feedback` writes the whole class's pages; stock `nbgrader generate_feedback` writes the
pages of --stock-sample students of the first assignment, the way its users run it, and the script
prints both rates, their ratio and stock nbgrader's time for the class at its rate, and checks that
stock nbgrader's sample pages are byte for byte the ones `autograder feedback` wrote.
The server is stopped and every file removed at the end.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tqdm import tqdm  # noqa: E402

from autograder import commands  # noqa: E402
from autograder.grades import gradebook  # noqa: E402
from tests.conftest import copy_course, use_gradebook  # noqa: E402
from tests.support.servers import PostgreSQL  # noqa: E402

BATCH = 500  # submissions per transaction


def add_assignments(course: Path, count: int) -> list[str]:
    """`count` assignments in the gradebook, each with the cells of one of the course's source
    notebooks, as `nbgrader generate_assignment` records them (more assignments than lessons: a
    lesson comes again under another name)."""
    import nbformat
    from nbgrader import utils
    from nbgrader.api import Gradebook

    lessons = commands.source_assignments(course)
    gradebook.ensure_schema(course)
    names = []
    with Gradebook(gradebook.db_url(course)) as gb:
        for k in tqdm(range(count), desc="assignments", unit="assignment"):
            lesson = lessons[k % len(lessons)]
            name = lesson if k < len(lessons) else f"{lesson}_again{k // len(lessons)}"
            gb.add_assignment(name)
            for path in sorted((course / "source" / lesson).glob("*.ipynb")):
                gb.add_notebook(path.stem, name)
                for cell in nbformat.read(path, as_version=4).cells:
                    meta = cell.metadata.get("nbgrader", {})
                    if not meta.get("grade_id"):
                        continue
                    gid = meta["grade_id"]
                    if utils.is_grade(cell):
                        gb.add_grade_cell(
                            gid, path.stem, name, max_score=float(meta["points"]), cell_type=cell.cell_type
                        )
                    if utils.is_solution(cell):
                        gb.add_solution_cell(gid, path.stem, name)
                    if utils.is_task(cell):
                        gb.add_task_cell(
                            gid, path.stem, name, max_score=float(meta["points"]), cell_type=cell.cell_type
                        )
            names.append(name)
    return names


def record_class(
    course: Path, assignments: list[str], students: int, seed: int
) -> tuple[dict[tuple[str, str], float], dict[tuple[str, str], dict[str, dict[str, float]]]]:
    """Every student's submission of every assignment, recorded in batches; {(assignment, student):
    total}, and {(assignment, student): {notebook: {test cell: score}}}."""
    from nbgrader.api import Gradebook

    chance = random.Random(seed)
    cells: dict[str, dict[str, list[tuple[str, float]]]] = {}
    with Gradebook(gradebook.db_url(course)) as gb:
        for name in assignments:
            cells[name] = {
                nb.name: [(c.name, float(c.max_score)) for c in nb.grade_cells if c.cell_type == "code"]
                for nb in gb.find_assignment(name).notebooks
            }
    totals: dict[tuple[str, str], float] = {}
    recorded: dict[tuple[str, str], dict[str, dict[str, float]]] = {}
    batch: list[gradebook.Graded] = []
    with (
        gradebook.Writer(course) as writer,
        tqdm(total=students * len(assignments), desc="record", unit="submission") as bar,
    ):
        for k in range(students):
            student = f"student{k:05d}"
            for name in assignments:
                notebooks = {}
                total = 0.0
                for notebook, graded in cells[name].items():
                    scores = {cell: (points if chance.random() < 0.7 else 0.0, None) for cell, points in graded}
                    total += sum(score for score, _ in scores.values())
                    notebooks[notebook] = {"grades": scores, "comments": {}}
                totals[(name, student)] = total
                recorded[(name, student)] = {
                    nb: {cell: score for cell, (score, _) in marks["grades"].items()} for nb, marks in notebooks.items()
                }
                batch.append(gradebook.Graded(name, student, notebooks, f"2026-11-{1 + k % 28:02d} 12:00:00"))
                if len(batch) == BATCH:
                    writer.write(batch)
                    bar.update(len(batch))
                    batch = []
        writer.write(batch)
        bar.update(len(batch))
    return totals, recorded


def graded_examples(lessons: list[str]) -> dict[str, dict[str, dict]]:
    """{lesson: {"right": nb, "blank": nb}}: the demo class's ada and blake, graded by the engine."""
    from autograder.authoring import samples

    scratch = Path(tempfile.mkdtemp(prefix="class-feedback-examples-"))
    try:
        course = copy_course(scratch / "course")
        commands.release(course, assignments=lessons, progress=False)
        samples.write_demo_class(course, assignments=lessons)
        for student in ("chen", "dana", "eve"):
            shutil.rmtree(course / "submitted" / student)
        commands.grade(course, assignments=lessons, progress=True)
        return {
            lesson: {
                kind: json.loads((course / "autograded" / who / lesson / f"{lesson}.ipynb").read_text(encoding="utf-8"))
                for kind, who in (("right", "ada"), ("blank", "blake"))
            }
            for lesson in lessons
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def write_autograded(
    course: Path, recorded: dict, examples: dict[str, dict[str, dict]], lesson_of: dict[str, str], seed: int
) -> int:
    """An autograded notebook for every recorded submission (see the module's docstring); the bytes written."""
    chance = random.Random(seed + 1)
    pieces = {}
    for lesson, pair in examples.items():
        right, blank = pair["right"], pair["blank"]
        head = json.dumps({k: v for k, v in right.items() if k != "cells"}, indent=1)
        cells = []
        for good, bad in zip(right["cells"], blank["cells"]):
            meta = good.get("metadata", {}).get("nbgrader", {})
            kind = (
                "test" if meta.get("grade") and not meta.get("solution") else "answer" if meta.get("solution") else ""
            )
            cells.append((kind, meta.get("grade_id"), good, bad, json.dumps(good, indent=1), json.dumps(bad, indent=1)))
        pieces[lesson] = (head[: head.rindex("}")].rstrip() + ',\n "cells": [\n', cells)
    written = 0
    for (assignment, student), notebooks in tqdm(recorded.items(), desc="autograded", unit="submission"):
        lesson = lesson_of[assignment]
        head, cells = pieces[lesson]
        for notebook, scores in notebooks.items():
            texts = []
            for kind, grade_id, good, bad, good_text, bad_text in cells:
                if kind == "test":
                    texts.append(good_text if scores.get(grade_id, 0.0) > 0 else bad_text)
                elif kind == "answer":
                    cell = dict(good if chance.random() < 0.7 else bad)
                    cell["source"] = "".join(cell["source"]) + f"\n# {student}'s answer"
                    texts.append(json.dumps(cell, indent=1))
                else:
                    texts.append(good_text)
            target = course / "autograded" / student / assignment / f"{notebook}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            text = head + ",\n".join(texts) + "\n ]\n}\n"
            target.write_text(text, encoding="utf-8")
            written += len(text)
    return written


def stock_sample(course: Path, work: Path, assignment: str, students: list[str]) -> tuple[float, int]:
    """Stock `nbgrader generate_feedback` on `students`' submissions of `assignment` in a course folder
    that holds only those (the same gradebook); (seconds, pages). Checks its pages against ours."""
    from autograder import stock

    sample = work / "stock-sample"
    sample.mkdir()
    shutil.copy2(course / "nbgrader_config.py", sample / "nbgrader_config.py")
    shutil.copytree(course / "source", sample / "source")
    for student in students:
        shutil.copytree(course / "autograded" / student / assignment, sample / "autograded" / student / assignment)
    started = time.perf_counter()
    proc = stock.generate_feedback(sample, assignment)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit("nbgrader generate_feedback failed:\n" + (proc.stdout or "")[-2000:])
    pages = sorted((sample / "feedback").rglob("*.html"))
    differ = [
        p for p in pages if p.read_bytes() != (course / "feedback" / p.relative_to(sample / "feedback")).read_bytes()
    ]
    if len(pages) < len(students) or differ:
        raise SystemExit(f"stock nbgrader's pages are not ours: {len(differ)} of {len(pages)} differ")
    return seconds, len(pages)


def timed(what: str, action) -> float:
    started = time.perf_counter()
    action()
    seconds = time.perf_counter() - started
    print(f"{what}: {seconds:.1f} s", flush=True)
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=5000, help="students in the class (default 5000)")
    parser.add_argument("--assignments", type=int, default=10, help="assignments each student handed in (default 10)")
    parser.add_argument("--seed", type=int, default=29, help="seed of the random scores (default 29)")
    parser.add_argument(
        "--stock-sample",
        type=int,
        default=40,
        help="students of the first assignment whose pages stock nbgrader writes, for its rate (default 40)",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    work = Path(tempfile.mkdtemp(prefix="class-gradebook-"))
    pg = PostgreSQL(durable=True)
    try:
        course = copy_course(work / "course", with_release=False)
        use_gradebook(course, pg.create_database("mooc"))
        assignments = add_assignments(course, args.assignments)
        recording = time.perf_counter()
        totals, recorded = record_class(course, assignments, args.students, args.seed)
        recording = time.perf_counter() - recording
        print(
            f"Gradebook on PostgreSQL: {args.students} students x {len(assignments)} assignments = "
            f"{len(totals):,} submissions, recorded in {recording:.1f} s ({len(totals) / recording:.0f} submissions/s)"
        )
        print(f"Load average (1 min) on this machine: {os.getloadavg()[0]:.1f}")
        timed("autograder report", lambda: commands.make_report(course, out=work / "report"))
        timed("autograder export", lambda: commands.export(course, to=work / "grades.csv", progress=True))
        with (work / "grades.csv").open(encoding="utf-8") as fh:
            exported = {(r["assignment"], r["student_id"]): float(r["score"]) for r in csv.DictReader(fh)}
        if exported.keys() != totals.keys() or any(abs(exported[k] - totals[k]) > 1e-9 for k in totals):
            raise SystemExit("the export's totals are not the recorded ones")
        print(f"Export: {len(exported):,} rows, every total as recorded")
        lessons = commands.source_assignments(course)
        lesson_of = {
            name: next(x for x in lessons if name == x or name.startswith(x + "_again")) for name in assignments
        }
        examples = graded_examples(sorted(set(lesson_of.values())))
        size = write_autograded(course, recorded, examples, lesson_of, args.seed)
        print(f"Autograded notebooks: {len(recorded):,}, {size / 1e9:.2f} GB", flush=True)
        ours = timed("autograder feedback", lambda: commands.feedback(course, assignments=assignments))
        pages = sum(1 for _ in (course / "feedback").rglob("*.html"))
        sample = sorted({s for (a, s) in recorded if a == assignments[0]})[: args.stock_sample]
        stock_s, stock_pages = stock_sample(course, work, assignments[0], sample)
        ours_rate, stock_rate = pages / ours, stock_pages / stock_s
        print(
            f"Feedback: {pages:,} pages in {ours:.1f} s ({ours_rate:.0f} pages/s); stock nbgrader generate_feedback: "
            f"{stock_pages} pages in {stock_s:.1f} s ({stock_rate:.2f} pages/s), the same bytes; "
            f"{ours_rate / stock_rate:.0f}x; the class at stock nbgrader's rate: {pages / stock_rate / 3600:.1f} h"
        )
    finally:
        pg.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
