"""The page a student gets back when a submission is graded on receipt: verdicts, never the grader's secrets.

It is built from the instructor's source notebook (to know which checks are hidden and which are
quizzes), the autograded notebook (each test cell's verdict, as the judge wrote it) and the scores
the gradebook gave; nothing of a test cell's source is copied. What it shows follows the
assignment's policy (`Policy.shows`, `Policy.score`):

- "visible": the verdict and message of each check the student can run; checks with a hidden part
  are listed as graded later.
- "verdicts": every check's verdict and its message; a quiz says right or wrong only, since its
  message explains the key.

A quiz whose tries are used up (`Policy.quiz_attempts`, counted by `autograder.attempts`) shows no
verdict and no points: it is graded when the instructor grades.

A message is dropped whole when it holds a line of a hidden test or a solution (`leaks.secret_lines`).
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import nbformat

from autograder.rules import items
from autograder.authoring import leaks
from course_exchange.policy import Policy

HIDDEN_MARK = "BEGIN HIDDEN TESTS"
QUIZ_MARK = "check_key("
MESSAGE_CHARS = 600
RIGHT, WRONG = "right", "not right"
PASSED, FAILED = "passed", "failed"
LATER = "has hidden checks: its verdict comes when the instructor grades"
WITHHELD = "verdict withheld: {tries} already told you this quiz missed; it is graded when the instructor grades"


@dataclass(frozen=True)
class Check:
    """One test cell as the feedback reports it."""

    grade_id: str
    kind: str  # "visible", "hidden" (the cell has a hidden part) or "quiz"
    passed: bool
    score: float
    max_score: float
    message: str  # "" when nothing is said beyond the verdict
    withheld: bool = False  # a quiz whose tries are used up: nothing about it is shown


def test_cells(source: nbformat.NotebookNode) -> dict[str, str]:
    """grade_id -> kind of every autograded test cell of the instructor's notebook."""
    out = {}
    for cell in source.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution") and meta.get("grade_id"):
            out[meta["grade_id"]] = (
                "quiz" if QUIZ_MARK in cell.source else "hidden" if HIDDEN_MARK in cell.source else "visible"
            )
    return out


def _message(cell: nbformat.NotebookNode, secrets: set[str]) -> str:
    errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    if not errors:
        return ""
    text = f"{errors[0].get('ename', 'Error')}: {errors[0].get('evalue', '')}"
    if any(secret in text for secret in secrets):
        return "(the message quoted the grader's hidden checks, so it is not shown)"
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS] + " ..."


def checks(
    source: nbformat.NotebookNode, graded: nbformat.NotebookNode, scores: dict[str, tuple[float, float]]
) -> list[Check]:
    """The verdict of every test cell, in notebook order; `scores` maps grade_id to (score, max) from the gradebook."""
    kinds = test_cells(source)
    secrets = leaks.secret_lines(source)
    by_id = {c.get("metadata", {}).get("nbgrader", {}).get("grade_id"): c for c in graded.cells}
    out = []
    for grade_id, kind in kinds.items():
        score, maximum = scores.get(grade_id, (0.0, 0.0))
        passed = maximum > 0 and score >= maximum
        cell = by_id.get(grade_id)
        message = "" if passed or cell is None or kind == "quiz" else _message(cell, secrets)
        out.append(Check(grade_id, kind, passed, score, maximum, message))
    return out


def _points(value: float) -> str:
    return f"{value:g}"


def page(
    *,
    assignment: str,
    notebook: str,
    student: str,
    received: str,
    attempt: int | None,
    rules: Policy,
    found: list[Check],
    reason: str | None = None,
) -> str:
    """The feedback page (HTML) of one notebook of one graded attempt."""
    of = f" of {rules.attempts}" if rules.attempts else ""
    rows = []
    shown_score = shown_max = 0.0
    for check in found:
        name = html.escape(items.item_of(check.grade_id))
        if check.withheld:
            tries = f"{rules.quiz_attempts} earlier attempt{'s' if rules.quiz_attempts != 1 else ''}"
            verdict, message, points = WITHHELD.format(tries=tries), "", ""
        elif rules.shows == "visible" and check.kind != "visible":
            verdict, message, points = LATER, "", ""
        else:
            if check.kind == "quiz":
                verdict = RIGHT if check.passed else WRONG
            else:
                verdict = PASSED if check.passed else FAILED
            message = html.escape(check.message) if rules.shows == "verdicts" or check.kind == "visible" else ""
            shown_score += check.score
            shown_max += check.max_score
            points = f"{_points(check.score)} / {_points(check.max_score)}" if rules.score else ""
        css = "later" if verdict == LATER or check.withheld else "pass" if check.passed else "fail"
        rows.append(
            f'<tr class="check {css}" data-item="{name}"><td>{name}</td><td class="verdict">{verdict}</td>'
            f'<td class="points">{points}</td><td class="message">{message}</td></tr>'
        )
    total = ""
    if rules.score and found:
        total = f'<p class="total">Score of the checks shown: {_points(shown_score)} / {_points(shown_max)}</p>'
    problem = f'<p class="problem">This submission could not be graded: {html.escape(reason)}</p>' if reason else ""
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Feedback: {html.escape(notebook)}</title></head><body>\n'
        f"<h1>Feedback on {html.escape(assignment)} / {html.escape(notebook)}</h1>\n"
        f'<p class="about">{html.escape(student)}, attempt {attempt or "?"}{of}, received {html.escape(received)} (exchange server time). '
        f"Graded by the course's grader as soon as it arrived; the instructor's grading after the deadline decides the grade.</p>\n"
        f"{problem}{total}\n<table><tr><th>check</th><th>verdict</th><th>points</th><th>message</th></tr>\n"
        + "\n".join(rows)
        + "\n</table>\n</body></html>\n"
    )
