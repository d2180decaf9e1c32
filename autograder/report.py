"""What the class understood: item statistics, failure messages and mastery, from the gradebook.

Definitions (also in docs/report.md):
- `mean_score`: the item's mean score over the students who submitted that assignment.
- `discrimination`: Pearson correlation, over those students, between the item's score and the rest
  of the student's total on the same assignment (the total without this item). Empty when either
  side has no spread.
- An item is flagged "too hard" when its mean is below 20% of its points, and "not discriminating"
  when its discrimination is below 0.2 (with at least 5 students).
"""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from autograder import gradebook

CONCEPTS = {
    "01_tensors": "shape",
    "02_dtype": "dtype",
    "03_device": "device",
    "04_numpy": "NumPy interop",
    "05_shapes": "shape",
    "06_autograd": "autograd",
    "07_training": "training",
}
TOO_HARD = 0.2
WEAK_DISCRIMINATION = 0.2
MIN_STUDENTS_FOR_DISCRIMINATION = 5
ITEM_COLUMNS = ["assignment", "item", "max_points", "mean_score", "discrimination", "students", "full_marks_rate", "concept", "flags"]


@dataclass
class ItemStats:
    assignment: str
    item: str
    max_points: float
    scores: dict[str, float]
    discrimination: float | None
    failures: Counter = field(default_factory=Counter)

    @property
    def mean_score(self) -> float:
        return sum(self.scores.values()) / len(self.scores) if self.scores else 0.0

    @property
    def full_marks_rate(self) -> float:
        return sum(s >= self.max_points for s in self.scores.values()) / len(self.scores) if self.scores else 0.0

    @property
    def concept(self) -> str:
        return CONCEPTS.get(self.assignment, self.assignment)

    @property
    def flags(self) -> list[str]:
        flags = []
        if self.max_points and self.mean_score < TOO_HARD * self.max_points:
            flags.append("too hard")
        if (
            len(self.scores) >= MIN_STUDENTS_FOR_DISCRIMINATION
            and (self.discrimination is None or self.discrimination < WEAK_DISCRIMINATION)
        ):
            flags.append("not discriminating")
        return flags


def pearson(xs: list[float], ys: list[float]) -> float | None:
    """Correlation of two equally long lists; None when either has no spread."""
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / math.sqrt(sxx * syy)


def item_stats(course_dir: Path, *, assignments: list[str] | None = None) -> list[ItemStats]:
    rows = gradebook.item_scores(course_dir, assignments=assignments)
    by_item: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    maxima: dict[tuple[str, str], float] = {}
    totals: dict[tuple[str, str], float] = defaultdict(float)
    for row in rows:
        by_item[(row.assignment, row.item)][row.student] = row.score
        maxima[(row.assignment, row.item)] = row.max_score
        totals[(row.assignment, row.student)] += row.score
    failures = failure_messages(course_dir)
    stats = []
    for (assignment, item), scores in by_item.items():
        students = sorted(scores)
        own = [scores[s] for s in students]
        rest = [totals[(assignment, s)] - scores[s] for s in students]
        stats.append(
            ItemStats(assignment, item, maxima[(assignment, item)], scores, pearson(own, rest), failures.get((assignment, item), Counter()))
        )
    return sorted(stats, key=lambda s: (s.assignment, s.item))


def failure_messages(course_dir: Path) -> dict[tuple[str, str], Counter]:
    """Failure messages per (assignment, test grade id), read from the autograded notebooks."""
    found: dict[tuple[str, str], Counter] = defaultdict(Counter)
    autograded = course_dir / "autograded"
    if not autograded.is_dir():
        return found
    from tqdm import tqdm

    for path in tqdm(sorted(autograded.glob("*/*/*.ipynb")), desc="report: failure messages", unit="notebook",
                     disable=None, leave=False):
        assignment = path.parent.name
        try:
            nb = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for cell in nb.get("cells", []):
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if not meta.get("grade"):
                continue
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    message = f"{output.get('ename', 'Error')}: {str(output.get('evalue', '')).splitlines()[0] if output.get('evalue') else ''}"
                    found[(assignment, meta.get("grade_id", "?"))][message[:300]] += 1
    return found


def write_items_csv(stats: list[ItemStats], path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(ITEM_COLUMNS)
        for s in stats:
            writer.writerow(
                [
                    s.assignment,
                    s.item,
                    f"{s.max_points:g}",
                    f"{s.mean_score:.4f}",
                    "" if s.discrimination is None else f"{s.discrimination:.4f}",
                    len(s.scores),
                    f"{s.full_marks_rate:.4f}",
                    s.concept,
                    "; ".join(s.flags),
                ]
            )
    return path


def mastery(stats: list[ItemStats]) -> dict[str, float]:
    """Share of available points earned, per concept, over all submitted items."""
    earned: dict[str, float] = defaultdict(float)
    possible: dict[str, float] = defaultdict(float)
    for s in stats:
        earned[s.concept] += sum(s.scores.values())
        possible[s.concept] += s.max_points * len(s.scores)
    return {c: earned[c] / possible[c] for c in possible if possible[c]}


def _png(fig) -> str:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _figures(stats: list[ItemStats], totals: dict[str, float], possible: float, concept_mastery: dict[str, float]) -> dict[str, str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures = {}
    fig, ax = plt.subplots(figsize=(6, 3))
    values = [100 * t / possible for t in totals.values()] if possible else []
    ax.hist(values, bins=[0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100], color="#4878a8", edgecolor="white")
    ax.set_xlabel("total score (% of points)")
    ax.set_ylabel("students")
    ax.set_title("Score distribution")
    figures["distribution"] = _png(fig)

    fig, ax = plt.subplots(figsize=(6, 4))
    xs = [s.mean_score / s.max_points if s.max_points else 0 for s in stats]
    ys = [s.discrimination if s.discrimination is not None else 0 for s in stats]
    colors = ["#c0392b" if s.flags else "#4878a8" for s in stats]
    ax.scatter(xs, ys, c=colors)
    for s, x, y in zip(stats, xs, ys):
        ax.annotate(s.item.removeprefix("test_"), (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.axhline(WEAK_DISCRIMINATION, color="grey", linestyle=":")
    ax.axvline(TOO_HARD, color="grey", linestyle=":")
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-1.05, 1.05)
    ax.set_xlabel("difficulty: mean score (share of points)")
    ax.set_ylabel("discrimination")
    ax.set_title("Items (red: flagged)")
    figures["items"] = _png(fig)

    names = list(concept_mastery)
    fig, ax = plt.subplots(figsize=(6, 1 + 0.45 * len(names)))
    ax.barh(names, [100 * concept_mastery[n] for n in names], color="#55a868")
    ax.set_xlim(0, 100)
    ax.set_xlabel("mastery (% of points earned)")
    ax.set_title("Mastery per concept")
    figures["mastery"] = _png(fig)
    return figures


def grading_times(course_dir: Path) -> list[tuple[str, str]]:
    """Figures from the grader's run records (autograded/**/grading.json), when present."""
    seconds = []
    for path in (course_dir / "autograded").glob("*/*/grading.json") if (course_dir / "autograded").is_dir() else []:
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        value = record.get("wall_s") or record.get("timings", {}).get("total")
        if isinstance(value, (int, float)):
            seconds.append(float(value))
    if not seconds:
        return [("notebooks with timing records", "0 (graded by stock nbgrader, or before timings were recorded)")]
    seconds.sort()
    return [
        ("notebooks graded", str(len(seconds))),
        ("total grading time", f"{sum(seconds):.1f} s"),
        ("median per notebook", f"{seconds[len(seconds) // 2]:.2f} s"),
        ("slowest notebook", f"{seconds[-1]:.2f} s"),
    ]


def write_report(course_dir: Path, *, out: Path, assignments: list[str] | None = None) -> Path:
    """Write out/report.html (self-contained) and out/items.csv; returns the HTML path."""
    out.mkdir(parents=True, exist_ok=True)
    stats = item_stats(course_dir, assignments=assignments)
    if not stats:
        raise LookupError("the gradebook has no grades yet: run `autograder grade` first")
    write_items_csv(stats, out / "items.csv")
    totals: dict[str, float] = defaultdict(float)
    possible_by_assignment: dict[str, float] = {}
    for s in stats:
        possible_by_assignment[s.assignment] = possible_by_assignment.get(s.assignment, 0) + s.max_points
        for student, score in s.scores.items():
            totals[student] += score
    possible = sum(possible_by_assignment.values())
    concept_mastery = mastery(stats)
    figures = _figures(stats, totals, possible, concept_mastery)
    e = html.escape
    rows = []
    for s in stats:
        top = "".join(f"<li>{e(msg)} <span class=n>({n})</span></li>" for msg, n in s.failures.most_common(3))
        rows.append(
            f"<tr class='{'flag' if s.flags else ''}'><td>{e(s.assignment)}</td><td>{e(s.item)}</td>"
            f"<td>{s.max_points:g}</td><td>{s.mean_score:.2f}</td>"
            f"<td>{'' if s.discrimination is None else f'{s.discrimination:.2f}'}</td>"
            f"<td>{len(s.scores)}</td><td>{e(', '.join(s.flags))}</td><td><ul>{top}</ul></td></tr>"
        )
    times = "".join(f"<tr><td>{e(k)}</td><td>{e(v)}</td></tr>" for k, v in grading_times(course_dir))
    flagged = gradebook.tamper_flags(course_dir, assignments=assignments)
    if flagged:
        review = ("<p>The grader found these submissions interfering with its checks. Each item scored 0 and is "
                  "marked as needing manual grading in formgrader; the comment on its answer cell says what was found.</p>"
                  "<table><tr><th>assignment</th><th>student</th><th>item</th><th>what was detected</th></tr>"
                  + "".join(f"<tr class=flag><td>{e(f.assignment)}</td><td>{e(f.student)}</td><td>{e(f.item)}</td>"
                            f"<td>{e(f.detail)}</td></tr>" for f in flagged) + "</table>")
    else:
        review = "<p>No submission was found interfering with the grader's checks.</p>"
    mastery_rows = "".join(f"<tr><td>{e(c)}</td><td>{100 * v:.0f}%</td></tr>" for c, v in concept_mastery.items())
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Class report</title>
<style>
body {{ font-family: sans-serif; margin: 2em; max-width: 70em; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
td, th {{ border: 1px solid #ccc; padding: 0.3em 0.6em; vertical-align: top; text-align: left; }}
tr.flag td {{ background: #fdecea; }}
ul {{ margin: 0; padding-left: 1.2em; }} .n {{ color: #777; }}
img {{ max-width: 100%; }}
</style></head><body>
<h1>What the class understood</h1>
<p>{len(totals)} students, {len({s.assignment for s in stats})} assignments, {len(stats)} graded items.</p>
<h2>Flagged for review</h2>{review}
<h2>Score distribution</h2><img alt="score distribution" src="{figures['distribution']}">
<h2>Items: difficulty and discrimination</h2><img alt="item difficulty and discrimination" src="{figures['items']}">
<p>Discrimination is the correlation between an item's score and the rest of the student's total on
the same assignment. Flagged: mean below {TOO_HARD:.0%} of the points ("too hard"), or discrimination
below {WEAK_DISCRIMINATION} with at least {MIN_STUDENTS_FOR_DISCRIMINATION} students ("not discriminating").</p>
<table><tr><th>assignment</th><th>item</th><th>points</th><th>mean</th><th>discrimination</th><th>students</th><th>flags</th><th>most common failure messages</th></tr>
{''.join(rows)}</table>
<h2>Mastery per concept</h2><img alt="mastery per concept" src="{figures['mastery']}">
<table><tr><th>concept</th><th>points earned</th></tr>{mastery_rows}</table>
<h2>Grading time</h2><table>{times}</table>
</body></html>
"""
    target = out / "report.html"
    target.write_text(page, encoding="utf-8")
    return target


LMS_COLUMNS_DOC = "student_id, then one column per assignment (points earned), then total and max_total"


def write_lms_csv(course_dir: Path, *, to: Path) -> Path:
    """One row per student, one column per assignment: the shape most LMS grade imports take."""
    rows = gradebook.item_scores(course_dir)
    assignments = sorted({r.assignment for r in rows})
    students = sorted({r.student for r in rows})
    earned: dict[tuple[str, str], float] = defaultdict(float)
    maxima: dict[str, dict[str, float]] = defaultdict(dict)
    for r in rows:
        earned[(r.student, r.assignment)] += r.score
        maxima[r.assignment][r.item] = r.max_score
    max_total = sum(sum(m.values()) for m in maxima.values())
    with to.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["student_id", *[f"{a} ({sum(maxima[a].values()):g})" for a in assignments], "total", "max_total"])
        for student in students:
            scores = [earned.get((student, a), 0.0) for a in assignments]
            writer.writerow([student, *[f"{s:g}" for s in scores], f"{sum(scores):g}", f"{max_total:g}"])
    return to
