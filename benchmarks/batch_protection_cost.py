"""What protecting the batch costs: the same class graded by the engine before those protections and by this one.

    python benchmarks/batch_protection_cost.py [--students 6] [--workers 2] [--lessons ID ...] [--before c7d5a40] [--rounds 2]

The protections of one notebook against the batch (the environment allow-list, a tmpfs and memory
cgroups per notebook, caps on files and outputs, the bounded wire decoder, cleanup off the zygote's
loop) have no setting that turns them off, so the comparison is with the engine as it was before
them: `--before` names that commit (c7d5a40, the last one without them). Its `autograder/` package
is taken out of git into a temporary folder beside this tree's `course/` and `instructor/`, so both
sides grade the same lessons with the same hidden tests and references; only the engine differs.

One synthetic class (`grading_speed.build_class`) is released once; each side grades a fresh copy of
it with `autograder grade --force`, in a process of its own whose PYTHONPATH starts with that side's
tree. Both first grade one notebook untimed (the disk cache), then the sides alternate for `--rounds`
rounds, so a load that drifts on a shared machine reaches both. It prints every time, each side's
best, and the ratio of the bests, in wall-clock seconds and in CPU seconds (user and system time of
the grading process and of every process that was reaped below it, as `getrusage` counts them: less
swayed by other work on a shared machine); every item's score must agree between the sides.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from autograder import commands  # noqa: E402
from grading_speed import copy_of, differences, print_differences, released_class  # noqa: E402

DRIVER = """
import json, resource, sys, time
from pathlib import Path
import autograder
from autograder import commands
try:
    from autograder.grades import gradebook
except ImportError:  # a tree from before the grader's packages
    from autograder import gradebook
def cpu():
    return sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN) for f in ("ru_utime", "ru_stime"))
root, course, workers = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
assert Path(autograder.__file__).resolve().is_relative_to(root), autograder.__file__
started, cpu_before = time.perf_counter(), cpu()
results = commands.grade(course, workers=workers, progress=False, force=True)
seconds, cpu_s = time.perf_counter() - started, cpu() - cpu_before
table = {f"{a}|{s}": scores for (a, s), scores in gradebook.score_table(course).items()}
print("RESULT " + json.dumps({"seconds": seconds, "cpu": cpu_s, "ok": sum(v == "ok" for v in results.values()), "of": len(results), "table": table}))
"""


def before_tree(commit: str, into: Path) -> Path:
    """`autograder/` at `commit`, beside this tree's `course/` and `instructor/`."""
    into.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit, "autograder"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    for package in ("course", "instructor"):
        shutil.copytree(ROOT / package, into / package, ignore=shutil.ignore_patterns("__pycache__"))
    return into


def grade_with(tree: Path, course: Path, workers: int) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, str(tree), str(course), str(workers)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"grading with {tree} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    out = json.loads(lines[-1][len("RESULT ") :])
    out["table"] = {tuple(key.split("|")): scores for key, scores in out["table"].items()}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=6, help="students in the synthetic class")
    parser.add_argument("--workers", type=int, default=None, help="engine workers (default: the number of cores)")
    parser.add_argument("--lessons", nargs="*", default=None, help="lesson ids (default: all in source/)")
    parser.add_argument("--before", default="c7d5a40", help="the commit whose engine has none of the protections")
    parser.add_argument("--rounds", type=int, default=2, help="timed runs of each side, alternating")
    parser.add_argument("--keep", default=None, help="work in this folder and keep it")
    args = parser.parse_args(argv)

    lessons = args.lessons or commands.source_assignments(ROOT)
    work = Path(args.keep).resolve() if args.keep else Path(tempfile.mkdtemp(prefix="batch-cost-"))
    base = released_class(work, lessons, args.students)
    notebooks = args.students * len(lessons)
    workers = min(args.workers or os.cpu_count() or 1, notebooks)
    sides = {"before": before_tree(args.before, work / "before-tree"), "now": ROOT}

    print("warming up (one notebook with each side, untimed) ...", flush=True)
    for name, tree in sides.items():
        warm = copy_of(base, work / f"warm-{name}")
        for student in sorted(p.name for p in (warm / "submitted").iterdir())[1:]:
            shutil.rmtree(warm / "submitted" / student)
        grade_with(tree, warm, 1)

    times: dict[str, list[float]] = {name: [] for name in sides}
    cpu: dict[str, list[float]] = {name: [] for name in sides}
    tables: dict[str, dict] = {}
    for round_ in range(args.rounds):
        for name, tree in sides.items() if round_ % 2 == 0 else reversed(sides.items()):
            out = grade_with(tree, copy_of(base, work / name), workers)
            times[name].append(out["seconds"])
            cpu[name].append(out["cpu"])
            tables[name] = out["table"]
            print(
                f"  round {round_ + 1}: {name:6s} {out['seconds']:7.1f} s wall, {out['cpu']:7.1f} s CPU  ({out['ok']}/{out['of']} ok)",
                flush=True,
            )

    before, now = min(times["before"]), min(times["now"])
    cpu_before, cpu_now = min(cpu["before"]), min(cpu["now"])
    diff = differences(tables["before"], tables["now"])
    items = sum(len(v) for v in tables["now"].values())
    print()
    print(
        f"lessons: {', '.join(lessons)}; students: {args.students}; notebooks: {notebooks}; workers: {workers}; rounds: {args.rounds}"
    )
    print(
        f"before the protections ({args.before}): {before:7.1f} s  (runs: {', '.join(f'{t:.1f}' for t in times['before'])})"
    )
    print(f"with the protections (this tree):  {now:7.1f} s  (runs: {', '.join(f'{t:.1f}' for t in times['now'])})")
    print(f"ratio with / before:               {now / before:7.3f}  ({(now / before - 1) * 100:+.1f}%)")
    print(
        f"CPU (user + system, the grader and what it reaped) before: {cpu_before:.1f} s, with: {cpu_now:.1f} s, "
        f"ratio {cpu_now / cpu_before:.3f} ({(cpu_now / cpu_before - 1) * 100:+.1f}%)"
    )
    print_differences(diff, items, "before", "now")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
