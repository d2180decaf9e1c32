"""After grading, at a MOOC's size: `report` and `export` on a synthetic gradebook on PostgreSQL.

    python benchmarks/class_gradebook.py [--students 5000] [--assignments 10] [--seed 29]

Starts PostgreSQL (default durability) on 127.0.0.1, adds the course's lessons to it as nbgrader's
generate_assignment records them (more assignments than lessons: a lesson comes again under another
name), then records a class of
--students students, each of whom handed in every assignment, through the grader's own batch writer
(`gradebook.Writer`): every test cell scores its points or zero at random, seeded. Then it runs
`autograder report` and `autograder export` on that gradebook, as an instructor would, each with its
progress bar, and prints how long each took. Checks that the export's totals are the recorded ones.
The server is stopped at the end.

The synthetic class has no autograded notebooks, so the report's most common failure messages
(read from autograded/) and `autograder feedback` are not measured here.
"""

from __future__ import annotations

import argparse
import csv
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

from autograder import commands, gradebook  # noqa: E402
from tests.conftest import copy_course, use_gradebook  # noqa: E402
from tests.servers import PostgreSQL  # noqa: E402

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


def record_class(course: Path, assignments: list[str], students: int, seed: int) -> dict[tuple[str, str], float]:
    """Every student's submission of every assignment, recorded in batches; {(assignment, student): total}."""
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
                batch.append(gradebook.Graded(name, student, notebooks, f"2026-11-{1 + k % 28:02d} 12:00:00"))
                if len(batch) == BATCH:
                    writer.write(batch)
                    bar.update(len(batch))
                    batch = []
        writer.write(batch)
        bar.update(len(batch))
    return totals


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
        totals = record_class(course, assignments, args.students, args.seed)
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
    finally:
        pg.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
