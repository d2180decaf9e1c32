"""The scoring rule, in one place: what a test cell's verdict scores, what tampering does to an item, and
when a notebook's cached result no longer holds.

- A test cell passes when the judge's run of it raises nothing (`judge.run_test`). Its outputs in the
  autograded notebook are the judge's verdict alone, never what student code printed: nothing when it
  passed, an error output when it failed.
- A grade cell scores what nbgrader's own `determine_grade` gives those outputs (`summarise`): its points
  without an error output, zero with one. The judge works the values out beside the notebook it graded;
  the coordinator only records them.
- An item where tampering was detected while it was graded (`flagged_items`) scores 0 and needs manual
  grading: its test cell shows `tampered_output`, its answer cell's comment starts with `TAMPER_COMMENT`.
- A notebook's record is reused while its `record_key` is unchanged: the submission, the template, the
  limits, the course code, the other files handed in, and where the tests ran.
"""

from __future__ import annotations

import hashlib
import json

from autograder.rules import items

TAMPER_COMMENT = "Tampering detected by the grader"
UNTIL_REVIEWED = "This item scores nothing until an instructor has reviewed it."


def record_key(
    *, content: str, template_hash: str, limits: dict, code_hash: str, files_hash: str, tests_in_sandbox: bool
) -> str:
    """The key a notebook's record is kept under: a change to any input grades the notebook again."""
    inputs = [content, template_hash, limits, code_hash, files_hash, tests_in_sandbox]
    return hashlib.sha256(json.dumps(inputs).encode()).hexdigest()


def tampered_output(detail: str) -> dict:
    """What a flagged item's test cell shows in the autograded notebook (and so in the feedback)."""
    import nbformat

    evalue = f"the grader found the notebook interfering with its checks: {detail[:2000]}. {UNTIL_REVIEWED}"
    return nbformat.v4.new_output(
        "error", ename="TamperingDetected", evalue=evalue, traceback=[f"TamperingDetected: {evalue}"]
    )


def flagged_items(tampering: list[dict]) -> dict[str, str]:
    """{item: what was detected there} from a grading result's tampering entries (those outside any
    item are left out: they flag no cell)."""
    return {t["item"]: "; ".join(t["details"])[:1500] for t in tampering or [] if t.get("item")}


def summary_of(result: dict) -> dict:
    """`summarise`'s values for a graded notebook's result: the judge's (it works them out beside
    the notebook), or worked out here for a record that lacks them."""
    if isinstance(result.get("summary"), dict):
        return result["summary"]
    return summarise(result["notebook_json"], flagged_items(result.get("tampering", [])))


def summarise(nb, flagged: dict[str, str] | None = None, notes: dict[str, str] | None = None) -> dict:
    """What nbgrader's autograde records for an autograded notebook (JSON text, a dict or nbformat's
    node), by cell name: {"grades": {name: (auto_score, needs_manual_grade or None)}, "comments":
    {name: auto_comment}}. A needs_manual_grade of None is nbgrader's rule (a manual score, or no
    automatic one). `flagged` maps an item to what the grader detected there: that item's test
    cell scores zero and needs manual grading, and its answer cell's comment says why. `notes` maps
    an item to a line its answer cell's comment says when nothing else is to be said (how many
    attempts grading on receipt took), which formgrader shows beside the answer."""
    import nbformat
    from nbgrader import utils

    cells = json.loads(nb)["cells"] if isinstance(nb, str) else nb["cells"]
    ours = nbformat.from_dict({"cells": [_rule_view(c) for c in cells if c.get("metadata", {}).get("nbgrader")]})
    flagged = flagged or {}
    notes = notes or {}
    grades: dict[str, tuple] = {}
    comments: dict[str, str | None] = {}
    for cell in ours.cells:
        meta = cell.metadata.nbgrader
        grade_id = meta.get("grade_id", "")
        item = items.item_of(grade_id) if utils.is_grade(cell) and not utils.is_solution(cell) else grade_id
        if utils.is_grade(cell):
            score, _ = utils.determine_grade(cell)
            grades[grade_id] = (0.0, True) if item in flagged else (score, None)
        if utils.is_solution(cell) or utils.is_task(cell):
            if item in flagged:
                comments[grade_id] = f"{TAMPER_COMMENT}: {flagged[item]} {UNTIL_REVIEWED}"
            elif meta.get("checksum", None) == utils.compute_checksum(cell) and not utils.is_task(cell):
                comments[grade_id] = "No response."
            else:
                comments[grade_id] = notes.get(item)
    return {"grades": grades, "comments": comments}


def _rule_view(cell: dict) -> dict:
    """What nbgrader's grading rules (`determine_grade`, `compute_checksum`) read of a cell: its type,
    source and nbgrader metadata, and each output's kind, stream and result text (not images, not
    tracebacks, which make most of a notebook's size)."""

    def joined(text):  # nbformat joins a text kept as a list of lines when it reads a notebook
        return "".join(text) if isinstance(text, list) else text

    view = {
        "cell_type": cell.get("cell_type"),
        "source": joined(cell.get("source", "")),
        "metadata": {"nbgrader": cell["metadata"]["nbgrader"]},
    }
    if "outputs" in cell:
        view["outputs"] = []
        for output in cell["outputs"]:
            kept = {key: output[key] for key in ("output_type", "name") if key in output}
            if output.get("output_type") == "execute_result":
                data = output.get("data", {})
                kept["data"] = {"text/plain": joined(data["text/plain"])} if "text/plain" in data else {}
            view["outputs"].append(kept)
    return view
