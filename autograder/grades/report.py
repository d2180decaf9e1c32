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
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from autograder.grades import attempts, gradebook
from autograder.rules import items
from autograder.grades import records

LESSON_NUMBER = re.compile(r"^\s*lesson\s+\d+\s*[:.-]\s*", re.IGNORECASE)
TOO_HARD = 0.2
WEAK_DISCRIMINATION = 0.2
MIN_STUDENTS_FOR_DISCRIMINATION = 5
ITEM_COLUMNS = [
    "assignment",
    "item",
    "max_points",
    "mean_score",
    "discrimination",
    "students",
    "full_marks_rate",
    "concept",
    "flags",
]


@dataclass
class ItemStats:
    assignment: str
    item: str
    max_points: float
    scores: dict[str, float]
    discrimination: float | None
    failures: Counter = field(default_factory=Counter)
    concept: str = ""

    @property
    def mean_score(self) -> float:
        return sum(self.scores.values()) / len(self.scores) if self.scores else 0.0

    @property
    def full_marks_rate(self) -> float:
        return sum(s >= self.max_points for s in self.scores.values()) / len(self.scores) if self.scores else 0.0

    @property
    def name(self) -> str:
        """The item as students see it: the function, class or quiz variable, not its test cell."""
        return items.item_of(self.item)

    @property
    def flags(self) -> list[str]:
        flags = []
        if self.max_points and self.mean_score < TOO_HARD * self.max_points:
            flags.append("too hard")
        if len(self.scores) >= MIN_STUDENTS_FOR_DISCRIMINATION and (
            self.discrimination is None or self.discrimination < WEAK_DISCRIMINATION
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
    concepts = {a: lesson_concept(course_dir, a) for a, _ in by_item}
    stats = []
    for (assignment, item), scores in by_item.items():
        students = sorted(scores)
        own = [scores[s] for s in students]
        rest = [totals[(assignment, s)] - scores[s] for s in students]
        stats.append(
            ItemStats(
                assignment,
                item,
                maxima[(assignment, item)],
                scores,
                pearson(own, rest),
                failures.get((assignment, item), Counter()),
                concepts[assignment],
            )
        )
    return sorted(stats, key=lambda s: (s.assignment, s.name))


def lesson_concept(course_dir: Path, assignment: str) -> str:
    """What a lesson teaches, as the lesson itself declares it: the title of its source notebook
    (without "Lesson N:"); the assignment id when there is no source notebook or title."""
    folder = course_dir / "source" / assignment
    for path in sorted(folder.glob("*.ipynb")) if folder.is_dir() else []:
        try:
            cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        except (OSError, ValueError):
            continue
        for cell in cells:
            if cell.get("cell_type") != "markdown":
                continue
            text = "".join(cell.get("source", [])) if isinstance(cell.get("source"), list) else cell.get("source", "")
            for line in text.splitlines():
                if line.startswith("# "):
                    title = LESSON_NUMBER.sub("", line[2:].strip()).strip()
                    if title:
                        return title[0].upper() + title[1:]
            break
    return assignment


def failure_messages(course_dir: Path) -> dict[tuple[str, str], Counter]:
    """Failure messages per (assignment, test grade id), read from the autograded notebooks."""
    found: dict[tuple[str, str], Counter] = defaultdict(Counter)
    autograded = course_dir / "autograded"
    if not autograded.is_dir():
        return found
    from tqdm import tqdm

    for path in tqdm(
        sorted(autograded.glob("*/*/*.ipynb")),
        desc="report: failure messages",
        unit="notebook",
        disable=None,
        leave=False,
    ):
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
                    s.name,
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


def _figures(
    stats: list[ItemStats], totals: dict[str, float], possible: float, concept_mastery: dict[str, float]
) -> dict[str, str]:
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

    figures["items"] = _png(item_figure(stats)[0])

    names = list(concept_mastery)
    fig, ax = plt.subplots(figsize=(6, 1 + 0.45 * len(names)))
    ax.barh(names, [100 * concept_mastery[n] for n in names], color="#55a868")
    ax.set_xlim(0, 100)
    ax.set_xlabel("mastery (% of points earned)")
    ax.set_title("Mastery per concept")
    figures["mastery"] = _png(fig)
    return figures


MAX_LABELS = 16


def item_figure(stats: list[ItemStats]):
    """Difficulty against discrimination, one point per item; returns the figure and the names drawn.

    Only some points are named: the flagged items first, then the hardest and the least
    discriminating, skipping any name that would cover one already drawn (the table below the plot
    names every item), so the plot stays readable at hundreds of items.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    xs = [s.mean_score / s.max_points if s.max_points else 0 for s in stats]
    ys = [s.discrimination if s.discrimination is not None else 0 for s in stats]
    colors = ["#c0392b" if s.flags else "#4878a8" for s in stats]
    ax.scatter(xs, ys, c=colors, s=18, alpha=0.8)
    ax.axhline(WEAK_DISCRIMINATION, color="grey", linestyle=":")
    ax.axvline(TOO_HARD, color="grey", linestyle=":")
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-1.05, 1.05)
    ax.set_xlabel("difficulty: mean score (share of points)")
    ax.set_ylabel("discrimination")
    ax.set_title("Items (red: flagged)")
    order = sorted(range(len(stats)), key=lambda i: (not stats[i].flags, xs[i], ys[i]))
    renderer = fig.canvas.get_renderer()
    placed, names = [], []
    for i in order:
        if len(placed) >= MAX_LABELS:
            break
        text = ax.annotate(stats[i].name, (xs[i], ys[i]), fontsize=7, xytext=(4, 3), textcoords="offset points")
        box = text.get_window_extent(renderer).expanded(1.05, 1.15)
        if any(box.overlaps(other) for other in placed) or not ax.bbox.contains(box.x1, box.y1):
            text.remove()
        else:
            placed.append(box)
            names.append(stats[i].name)
    return fig, names


def grading_times(course_dir: Path) -> list[tuple[str, str, str, str]]:
    """Per assignment: notebooks, total and slowest, from the engine's records (.autograder/results/)."""
    seconds: dict[str, list[float]] = defaultdict(list)
    for record in records.all_records(course_dir / ".autograder"):
        value = (record.get("timings") or {}).get("total_s")
        if isinstance(value, (int, float)):
            seconds[str(record.get("assignment", "?"))].append(float(value))
    if not seconds:
        return [("no timing records", "graded by stock nbgrader, or not graded yet", "", "")]
    rows = [(a, str(len(v)), f"{sum(v):.1f} s", f"{max(v):.2f} s") for a, v in sorted(seconds.items())]
    every = [t for v in seconds.values() for t in v]
    rows.append(("all", str(len(every)), f"{sum(every):.1f} s", f"{max(every):.2f} s"))
    return rows


def _review_section(course_dir: Path, assignments: list[str] | None) -> str:
    """The report's list of submissions flagged for tampering, as HTML."""
    e = html.escape
    flagged = gradebook.tamper_flags(course_dir, assignments=assignments)
    if flagged:
        return (
            "<p>The grader found these submissions interfering with its checks. Each item scored 0 and is "
            "marked as needing manual grading in formgrader; the comment on its answer cell says what was found.</p>"
            "<table><tr><th>assignment</th><th>student</th><th>item</th><th>what was detected</th></tr>"
            + "".join(
                f"<tr class=flag><td>{e(f.assignment)}</td><td>{e(f.student)}</td><td>{e(f.item)}</td>"
                f"<td>{e(f.detail)}</td></tr>"
                for f in flagged
            )
            + "</table>"
        )
    return "<p>No submission was found interfering with the grader's checks.</p>"


def _receipt_section(course_dir: Path, assignments: list[str] | None) -> str:
    """The report's table of attempts graded on receipt, as HTML."""
    e = html.escape
    tries = attempts.per_item(course_dir, assignments=assignments)
    if tries:
        tries_rows = "".join(
            f"<tr><td>{e(a)}</td><td>{e(i.removeprefix('test_'))}</td><td>{t['students']}</td><td>{t['attempts']}</td>"
            f"<td>{t['mean_to_full']:.1f}</td><td>{t['never_full']}</td></tr>"
            for (a, i), t in tries.items()
        )
        return (
            "<p>Attempts graded as they were submitted (<code>c.AssignmentPolicy.on_receipt</code>): how many tries "
            "students needed before an item had its full points.</p><table><tr><th>assignment</th><th>item</th><th>students</th>"
            "<th>graded attempts</th><th>mean attempts to full points</th><th>students never at full points</th></tr>"
            + tries_rows
            + "</table>"
        )
    return "<p>No assignment was graded on receipt.</p>"


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
            f"<tr class='{'flag' if s.flags else ''}'><td>{e(s.assignment)}</td><td>{e(s.name)}</td>"
            f"<td>{s.max_points:g}</td><td>{s.mean_score:.2f}</td>"
            f"<td>{'' if s.discrimination is None else f'{s.discrimination:.2f}'}</td>"
            f"<td>{len(s.scores)}</td><td>{e(', '.join(s.flags))}</td><td><ul>{top}</ul></td></tr>"
        )
    times = "".join("<tr>" + "".join(f"<td>{e(v)}</td>" for v in row) + "</tr>" for row in grading_times(course_dir))
    review = _review_section(course_dir, assignments)
    receipt = _receipt_section(course_dir, assignments)
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
<h2>Score distribution</h2><img alt="score distribution" src="{figures["distribution"]}">
<h2>Items: difficulty and discrimination</h2><img alt="item difficulty and discrimination" src="{figures["items"]}">
<p>Named on the plot: flagged items first, then the hardest, where a name has room; the table names every item.</p>
<p>Discrimination is the correlation between an item's score and the rest of the student's total on
the same assignment. Flagged: mean below {TOO_HARD:.0%} of the points ("too hard"), or discrimination
below {WEAK_DISCRIMINATION} with at least {MIN_STUDENTS_FOR_DISCRIMINATION} students ("not discriminating").</p>
<table><tr><th>assignment</th><th>item</th><th>points</th><th>mean</th><th>discrimination</th><th>students</th><th>flags</th><th>most common failure messages</th></tr>
{"".join(rows)}</table>
<h2>Mastery per concept</h2><img alt="mastery per concept" src="{figures["mastery"]}">
<table><tr><th>concept</th><th>points earned</th></tr>{mastery_rows}</table>
<h2>Grading time</h2><p>Wall-clock time per notebook in <code>autograder grade</code>, from its records.</p>
<table><tr><th>assignment</th><th>notebooks</th><th>total</th><th>slowest</th></tr>{times}</table>
<h2>Attempts on receipt</h2>{receipt}
</body></html>
"""
    target = out / "report.html"
    target.write_text(page, encoding="utf-8")
    return target


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
        writer.writerow(
            ["student_id", *[f"{a} ({sum(maxima[a].values()):g})" for a in assignments], "total", "max_total"]
        )
        for student in students:
            scores = [earned.get((student, a), 0.0) for a in assignments]
            writer.writerow([student, *[f"{s:g}" for s in scores], f"{sum(scores):g}", f"{max_total:g}"])
    return to
