"""Find instructor-only text (solutions, hidden tests, quiz keys) in notebooks meant for students.

A line counts as secret when it sits inside a solution or hidden-test region of a source notebook and
appears nowhere else in that notebook. Release notebooks are scanned whole: cell sources, outputs,
attachments and every metadata field, not just the region markers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import nbformat

MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS", "BEGIN MARK SCHEME")
REGIONS = (("### BEGIN SOLUTION", "### END SOLUTION"), ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"))


@dataclass(frozen=True)
class Leak:
    path: str
    where: str
    text: str

    def __str__(self) -> str:
        return f"{self.path}: {self.where}: {self.text!r}"


HIDDEN_TESTS = (REGIONS[1],)


def secret_lines(source_nb: nbformat.NotebookNode, *, regions: tuple[tuple[str, str], ...] = REGIONS) -> set[str]:
    """Meaningful lines found only inside `regions` (solutions and hidden tests by default)."""
    wanted = {end for _, end in regions}
    inside: set[str] = set()
    outside: set[str] = set()
    for cell in source_nb.cells:
        end = None  # the end marker of the region the line is in
        for raw in cell.source.splitlines():
            line = raw.strip()
            if end is None:
                end = next((e for b, e in REGIONS if line.startswith(b)), None)
                if end is None:
                    outside.add(line)
            elif line.startswith(end):
                end = None
            elif end in wanted:
                inside.add(line)
    return {line for line in inside - outside if _meaningful(line)}


def _meaningful(line: str) -> bool:
    """Skip lines too generic to identify a solution (`pass`, `return x`, closing brackets)."""
    if line.startswith("#"):
        return len(line) > 12
    return len(line) >= 10 or any(ch in line for ch in "\"'") and len(line) >= 6


def _strings(value: object) -> list[str]:
    """Every string inside a JSON value (keys included), decoded."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _texts(nb_json: dict) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = [("notebook metadata", "\n".join(_strings(nb_json.get("metadata", {}))))]
    for index, cell in enumerate(nb_json.get("cells", [])):
        label = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") or f"cell {index}"
        source = cell.get("source", "")
        found.append((f"{label} source", "".join(source) if isinstance(source, list) else source))
        for part in ("metadata", "outputs", "attachments"):
            found.append((f"{label} {part}", "\n".join(_strings(cell.get(part, {})))))
    return found


def scan_notebook(path: Path, secrets: set[str]) -> list[Leak]:
    nb_json = json.loads(path.read_text(encoding="utf-8"))
    leaks = []
    for where, text in _texts(nb_json):
        leaks += [Leak(str(path), where, marker) for marker in MARKERS if marker in text]
        lines = {line.strip() for line in text.splitlines()}
        leaks += [Leak(str(path), where, s) for s in sorted(secrets) if s in lines or s in text]
    return leaks


def scan_release(course_dir: Path, assignments: list[str] | None = None, *, release_dir: Path | None = None) -> list[Leak]:
    """Every leak of every assignment's secrets into its released files (notebooks and others)."""
    release_dir = release_dir or course_dir / "release"
    leaks: list[Leak] = []
    for source_dir in sorted((course_dir / "source").iterdir()):
        if not source_dir.is_dir() or (assignments and source_dir.name not in assignments):
            continue
        secrets: set[str] = set()
        for nb_path in source_dir.glob("*.ipynb"):
            secrets |= secret_lines(nbformat.read(nb_path, as_version=4))
        target = release_dir / source_dir.name
        if not target.exists():
            continue
        for path in sorted(target.rglob("*")):
            if path.suffix == ".ipynb":
                leaks += scan_notebook(path, secrets)
            elif path.is_file():
                text = path.read_bytes().decode("utf-8", errors="replace")
                leaks += [Leak(str(path), "file", s) for s in secrets if s in text]
                leaks += [Leak(str(path), "file", m) for m in MARKERS if m in text]
    return leaks
