"""Check a submitted notebook and restore what a student may not change, from the instructor's version.

Every cell nbgrader knows (answer, test, locked cells) is matched to the instructor's template by
cell id and grade id; its metadata, type and (for locked and test cells) source are restored.
Duplicated cells lose their nbgrader metadata (the last copy keeps it, as nbgrader does), deleted
ones are put back, re-typed and re-pointed ones are restored, the kernelspec is reset. Each repair
is recorded as a sentence. A file that cannot be a notebook (a symlink, too large, not UTF-8, not
JSON, not nbformat 4, malformed cells) raises `SubmissionError` with a one-line reason.
"""

from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from autograder.rules import items

MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024
MAX_CELLS = 5000
HIDDEN_BEGIN = items.BEGIN_HIDDEN.removeprefix("### ")  # nbgrader finds a marker anywhere in a line
HIDDEN_END = items.END_HIDDEN.removeprefix("### ")
HIDDEN_NOTE = "# hidden tests (run by the grader)"


class SubmissionError(ValueError):
    """The submission cannot be graded; the message says why in one line."""


@dataclass
class Repaired:
    notebook: nbformat.NotebookNode
    roles: list[str]  # per cell: "markdown", "student", "answer", "test"
    tests: dict[int, str] = field(default_factory=dict)  # cell index -> full test source (judge only)
    notes: list[str] = field(default_factory=list)


def visible_part(source: str) -> str:
    """A test cell as students may see it: the hidden region replaced by a one-line comment."""
    out: list[str] = []
    hidden = False
    for line in source.splitlines():
        if HIDDEN_BEGIN in line:
            hidden = True
            out.append(HIDDEN_NOTE)
        elif HIDDEN_END in line:
            hidden = False
        elif not hidden:
            out.append(line)
    return "\n".join(out)


def released_part(source: str) -> str:
    """A test cell as nbgrader releases it: the hidden region removed."""
    return "\n".join(line for line in visible_part(source).splitlines() if line != HIDDEN_NOTE)


def read_submission(path: Path) -> dict:
    """The notebook JSON of a submitted file, or SubmissionError."""
    return parse_submission(path.name, read_submission_bytes(path))


def read_submission_bytes(path: Path) -> bytes:
    """The bytes of a submitted file that may be a notebook (a plain file within the size limit), or SubmissionError."""
    if path.is_symlink():
        raise SubmissionError(f"{path.name} is a symbolic link: submissions must be plain files")
    try:
        size = os.stat(path).st_size
    except OSError as exc:
        raise SubmissionError(f"{path.name} cannot be read: {exc.strerror}") from None
    if size > MAX_NOTEBOOK_BYTES:
        raise SubmissionError(
            f"{path.name} is {size / 1e6:.1f} MB, over the {MAX_NOTEBOOK_BYTES / 1e6:.0f} MB limit for a notebook"
        )
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:  # reads of the size found (a buffer of the limit's size for each file is slow), up to one byte past it
        parts, left = [], MAX_NOTEBOOK_BYTES + 1
        while left > 0:
            part = os.read(fd, min(left, max(size + 1, 1 << 16)))
            if not part:
                break
            parts.append(part)
            left -= len(part)
        return b"".join(parts)
    finally:
        os.close(fd)


def parse_submission(name: str, raw: bytes) -> dict:
    """The notebook JSON in the bytes of the submitted file `name`, or SubmissionError."""
    if len(raw) > MAX_NOTEBOOK_BYTES:
        raise SubmissionError(f"{name} is over the {MAX_NOTEBOOK_BYTES / 1e6:.0f} MB limit for a notebook")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SubmissionError(f"{name} is not UTF-8 text (bad byte at offset {exc.start})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SubmissionError(f"{name} is not valid notebook JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise SubmissionError(f"{name} is nested too deeply to be a notebook") from None
    if not isinstance(data, dict):
        raise SubmissionError(f"{name} is JSON but not a notebook (no top-level object)")
    if data.get("nbformat") != 4:
        raise SubmissionError(f"{name} has nbformat {data.get('nbformat')!r}; only version 4 notebooks can be graded")
    if not isinstance(data.get("cells"), list):
        raise SubmissionError(f"{name} has no list of cells")
    if len(data["cells"]) > MAX_CELLS:
        raise SubmissionError(f"{name} has {len(data['cells'])} cells, over the limit of {MAX_CELLS}")
    return data


def _source(cell: dict, index: int) -> str:
    source = cell.get("source", "")
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        return "".join(source)
    if isinstance(source, str):
        return source
    raise SubmissionError(f"cell {index + 1} has a source that is not text")


def _nbmeta(cell: dict) -> dict | None:
    meta = cell.get("metadata")
    nb = meta.get("nbgrader") if isinstance(meta, dict) else None
    return nb if isinstance(nb, dict) else None


def _grade_id(cell: dict) -> str | None:
    meta = _nbmeta(cell)
    gid = meta.get("grade_id") if meta else None
    return gid if isinstance(gid, str) else None


def _new_cell(cell_type: str, source: str, metadata: dict, cell_id: str) -> nbformat.NotebookNode:
    if cell_type == "code":
        cell = nbformat.v4.new_code_cell(source, metadata=metadata)
    elif cell_type == "markdown":
        cell = nbformat.v4.new_markdown_cell(source, metadata=metadata)
    else:
        cell = nbformat.v4.new_raw_cell(source, metadata=metadata)
    cell["id"] = cell_id
    return cell


def _match(raw_cells: list, tcells: list, by_id: dict, by_gid: dict, notes: list[str]) -> tuple[dict, set]:
    """Which template cell each submitted cell is ({submitted index: template index}), and the template
    cells matched. A cell whose nbgrader metadata was re-pointed or removed is noted."""
    match: dict[int, int] = {}  # submitted cell index -> template index
    taken: set[int] = set()
    # 1. same cell id and same grade id; 2. same grade id, the last copy wins (as nbgrader);
    # 3. same cell id with another grade id (re-pointed) or none (metadata removed).
    for index in reversed(range(len(raw_cells))):
        cell = raw_cells[index]
        t = by_id.get(cell.get("id"))
        if t is not None and t not in taken and _grade_id(cell) == tcells[t]["grade_id"]:
            match[index] = t
            taken.add(t)
    for index in reversed(range(len(raw_cells))):
        t = by_gid.get(_grade_id(raw_cells[index]))
        if index not in match and t is not None and t not in taken:
            match[index] = t
            taken.add(t)
    for index, cell in enumerate(raw_cells):
        t = by_id.get(cell.get("id"))
        if index not in match and t is not None and t not in taken:
            match[index] = t
            taken.add(t)
            was = _grade_id(cell)
            notes.append(
                f"cell {index + 1} ({tcells[t]['grade_id']}) had its nbgrader metadata "
                + (f"pointed at {was!r}" if was else "removed")
                + ": restored"
            )
    return match, taken


def _put_back_missing(
    tcells: list, taken: set, cells: list, roles: list, tests: dict, placed: dict, fresh_id: Any, notes: list[str]
) -> dict:
    """Put each template cell the submission lacks back in `cells` and `roles` (in place), noting it; the
    test sources by their new positions."""
    for t, tc in enumerate(tcells):
        if t in taken:
            continue
        # an answer goes just before the next cell of the template that is there, anything else
        # (a test, a read-only cell) just after the previous one
        before = [placed[p] for p in range(t) if p in placed]
        after = [placed[p] for p in range(t + 1, len(tcells)) if p in placed]
        if tc["nbgrader"].get("solution") and after:
            at = after[0]
        else:
            at = before[-1] + 1 if before else 0
        cell, role, full = _restored(tc, tc.get("stub", ""), None, None, fresh_id(tc.get("id"), len(cells) + 1000 + t))
        cells.insert(at, cell)
        roles.insert(at, role)
        tests = {(k + 1 if k >= at else k): v for k, v in tests.items()}
        placed = {p: (o + 1 if o >= at else o) for p, o in placed.items()}
        placed[t] = at
        if full is not None:
            tests[at] = full
        notes.append(f"{tc['grade_id']} was missing from the submission: the instructor's cell was put back")
    return tests


def _rebuilt(cells: list, data: dict, template: dict, notes: list[str]) -> nbformat.NotebookNode:
    """The graded notebook: the cells, with the template's kernel (a changed kernelspec is noted)."""
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    if meta.get("kernelspec") != template.get("kernelspec"):
        notes.append("the notebook's kernelspec was changed: restored")
    nb.metadata = {
        "kernelspec": copy.deepcopy(template.get("kernelspec") or {}),
        "language_info": copy.deepcopy(template.get("language_info") or {"name": "python"}),
    }
    return nb


def repair(data: dict, template: dict) -> Repaired:
    """The notebook to grade, rebuilt from the submission `data` and the instructor's `template`."""
    tcells = template["cells"]
    by_gid = {t["grade_id"]: i for i, t in enumerate(tcells)}
    by_id = {t["id"]: i for i, t in enumerate(tcells) if t.get("id")}
    raw_cells = data["cells"]
    notes: list[str] = []
    for index, cell in enumerate(raw_cells):
        if not isinstance(cell, dict) or cell.get("cell_type") not in ("code", "markdown", "raw"):
            raise SubmissionError(f"cell {index + 1} is not a notebook cell (missing or unknown cell_type)")
    sources = [_source(c, i) for i, c in enumerate(raw_cells)]

    match, taken = _match(raw_cells, tcells, by_id, by_gid, notes)

    cells: list[nbformat.NotebookNode] = []
    roles: list[str] = []
    tests: dict[int, str] = {}
    placed: dict[int, int] = {}  # template index -> output index

    def emit(cell: nbformat.NotebookNode, role: str, t: int | None, full_test: str | None = None) -> None:
        if t is not None:
            placed[t] = len(cells)
        if full_test is not None:
            tests[len(cells)] = full_test
        cells.append(cell)
        roles.append(role)

    used_ids: set[str] = set()

    def fresh_id(wanted: Any, index: int) -> str:
        cid = (
            wanted
            if isinstance(wanted, str) and wanted and len(wanted) <= 64 and wanted not in used_ids
            else f"cell-{index}"
        )
        while cid in used_ids:
            cid += "-x"
        used_ids.add(cid)
        return cid

    for index, cell in enumerate(raw_cells):
        source = sources[index]
        if index in match:
            t = match[index]
            tc = tcells[t]
            if cell.get("cell_type") != tc["cell_type"]:
                notes.append(
                    f"cell {index + 1} ({tc['grade_id']}) was changed from {tc['cell_type']} to {cell.get('cell_type')}: restored"
                )
            meta = _nbmeta(cell) or {}
            if {k: meta.get(k) for k in ("grade", "solution", "locked", "points", "task")} != {
                k: tc["nbgrader"].get(k) for k in ("grade", "solution", "locked", "points", "task")
            }:
                notes.append(f"cell {index + 1} ({tc['grade_id']}) had its nbgrader metadata changed: restored")
            cell_out, role, full = _restored(tc, source, index, notes, fresh_id(cell.get("id"), index))
            emit(cell_out, role, t, full)
        else:
            if _nbmeta(cell):
                gid = _grade_id(cell)
                why = "a duplicate of" if gid in by_gid else "unknown grade id"
                notes.append(f"cell {index + 1} carried nbgrader metadata ({why} {gid!r}): graded as an ordinary cell")
            ctype = cell["cell_type"]
            emit(
                _new_cell(ctype, source, {}, fresh_id(cell.get("id"), index)),
                "student" if ctype == "code" else "markdown",
                None,
            )

    tests = _put_back_missing(tcells, taken, cells, roles, tests, placed, fresh_id, notes)

    return Repaired(_rebuilt(cells, data, template, notes), roles, tests, notes)


def _restored(tc: dict, submitted_source: str, index: int | None, notes: list[str] | None, cell_id: str):
    """(cell, role, full test source or None) for a template cell, with the student's source where it is theirs."""
    nbmeta = copy.deepcopy(tc["nbgrader"])
    metadata = {"nbgrader": nbmeta}
    if tc.get("locked"):
        metadata.update({"deletable": False, "editable": False})
    is_test = tc["cell_type"] == "code" and nbmeta.get("grade") and not nbmeta.get("solution")
    if is_test:
        shown = visible_part(tc["source"])
        if notes is not None and submitted_source.strip() != released_part(tc["source"]).strip():
            notes.append(
                f"cell {index + 1} ({tc['grade_id']}) is a test cell and was edited: the instructor's tests were used"
            )
        return _new_cell("code", shown, metadata, cell_id), "test", tc["source"]
    if tc.get("locked") and not nbmeta.get("solution"):
        if notes is not None and submitted_source.strip() != tc["source"].strip():
            notes.append(f"cell {index + 1} ({tc['grade_id']}) is read-only and was edited: restored")
        role = "student" if tc["cell_type"] == "code" else "markdown"
        return _new_cell(tc["cell_type"], tc["source"], metadata, cell_id), role, None
    role = ("answer" if nbmeta.get("grade") else "student") if tc["cell_type"] == "code" else "markdown"
    return _new_cell(tc["cell_type"], submitted_source, metadata, cell_id), role, None
