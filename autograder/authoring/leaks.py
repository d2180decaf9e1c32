"""Find instructor-only text (solutions, hidden tests, quiz keys) in notebooks meant for students.

A line counts as secret when it sits inside a solution or hidden-test region of a source notebook and
appears nowhere else in that notebook. Release notebooks are scanned whole: cell sources, outputs,
attachments and every metadata field, not just the region markers.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder.rules import items

MARKERS = (*items.DELIMITERS.values(), "BEGIN MARK SCHEME")  # nbgrader's markers, as the course writes them
REGIONS = ((items.BEGIN_SOLUTION, items.END_SOLUTION), (items.BEGIN_HIDDEN, items.END_HIDDEN))


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


GENERIC = re.compile(r"(return \w+|\w+ = (\[\]|\{\}|\(\)|0|0\.0|None|False|True))")


def _meaningful(line: str) -> bool:
    """Skip lines too generic to identify a solution (`pass`, `return out`, `found = []`, brackets)."""
    if GENERIC.fullmatch(line):
        return False
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


def scan_release(
    course_dir: Path, assignments: list[str] | None = None, *, release_dir: Path | None = None
) -> list[Leak]:
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


REFERENCE_NAMES = re.compile(r"^(expected|reference|solution|solve)")


def _normalised_body(func: ast.FunctionDef) -> str:
    """A function's body with names, docstring and argument names abstracted away, for comparing code."""
    body = (
        func.body[1:]
        if func.body
        and isinstance(func.body[0], ast.Expr)
        and isinstance(getattr(func.body[0], "value", None), ast.Constant)
        else func.body
    )
    args = {a.arg: f"_a{i}" for i, a in enumerate(func.args.posonlyargs + func.args.args + func.args.kwonlyargs)}

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return ast.copy_location(ast.Name(id=args.get(node.id, node.id), ctx=node.ctx), node)

    module = ast.Module(body=[Rename().visit(ast.parse(ast.unparse(stmt)).body[0]) for stmt in body], type_ignores=[])
    return ast.dump(module, annotate_fields=False)


def solution_functions(source_nb: nbformat.NotebookNode) -> dict[str, str]:
    """{item: normalised body} of every function an answer cell defines in the instructor's solution."""
    found = {}
    for cell in source_nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if not meta.get("solution") or cell.cell_type != "code":
            continue
        text = "\n".join(
            line
            for line in cell.source.splitlines()
            if items.BEGIN_SOLUTION not in line and items.END_SOLUTION not in line
        )
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == meta.get("grade_id"):
                found[node.name] = _normalised_body(node)
    return found


def scan_package(package: Path, solutions: dict[str, str]) -> list[Leak]:
    """Code in a package shipped to students that looks like a reference answer.

    A function named like one (expected_*, reference*, solution*, solve*), any import of the
    instructor's `instructor` package, and any function whose body is a graded item's solution with
    only its names changed.
    """
    leaks: list[Leak] = []
    bodies = {body: item for item, body in solutions.items()}
    for path in sorted(package.rglob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if REFERENCE_NAMES.match(node.name):
                    leaks.append(
                        Leak(
                            str(path),
                            f"line {node.lineno}",
                            f"def {node.name}: a function named like a reference answer",
                        )
                    )
                if isinstance(node, ast.FunctionDef) and _normalised_body(node) in bodies:
                    leaks.append(
                        Leak(
                            str(path),
                            f"line {node.lineno}",
                            f"def {node.name}: the solution of {bodies[_normalised_body(node)]}",
                        )
                    )
            elif isinstance(node, ast.Import) and any(a.name.split(".")[0] == "instructor" for a in node.names):
                leaks.append(Leak(str(path), f"line {node.lineno}", "imports the instructor's references"))
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "instructor":
                leaks.append(Leak(str(path), f"line {node.lineno}", "imports the instructor's references"))
    return leaks
