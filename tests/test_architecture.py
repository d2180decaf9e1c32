"""The packages' shape: no import cycle, and no module reaching into another's private names.

Read from the source with `ast`, imports inside functions included, so a lazy import cannot hide a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("autograder", "course", "course_exchange", "instructor")


def modules(root: Path = ROOT) -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            name = ".".join(path.relative_to(root).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def imports(mods: dict[str, Path]) -> tuple[dict[str, set[str]], list[tuple[str, str, str]]]:
    """Each module's imports of other project modules, and every private name one takes from another."""
    edges: dict[str, set[str]] = {name: set() for name in mods}
    private: list[tuple[str, str, str]] = []
    for name, path in mods.items():
        aliases: dict[str, str] = {}
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = _package_of(name, path).split(".")
                    base = ".".join(parent[: len(parent) - node.level + 1] + ([base] if base else []))
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    if full in mods:
                        edges[name].add(full)
                        aliases[alias.asname or alias.name] = full
                    elif base in mods:
                        edges[name].add(base)
                        if alias.name.startswith("_") and not alias.name.startswith("__"):
                            private.append((name, base, alias.name))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in mods:
                        edges[name].add(alias.name)
                        if alias.asname:
                            aliases[alias.asname] = alias.name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and aliases[node.value.id] != name
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                private.append((name, aliases[node.value.id], node.attr))
    for name in edges:
        edges[name].discard(name)
    return edges, sorted(set(private))


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The import graph's cycles, one per strongly connected group of two or more modules (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


def test_no_import_cycle():
    edges, _ = imports(modules())
    assert cycles(edges) == []


def test_no_private_name_crosses_a_module():
    _, private = imports(modules())
    assert private == [], [f"{who} uses {whose}.{what}" for who, whose, what in private]


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    "files, expected",
    [
        (
            {"autograder/a.py": "def f():\n    from autograder import b\n", "autograder/b.py": "import autograder.a\n"},
            [["autograder.a", "autograder.b"]],
        ),
        ({"autograder/a.py": "from autograder.b import x\n", "autograder/b.py": "x = 1\n"}, []),
    ],
)
def test_the_cycle_check_sees_lazy_imports(tmp_path, files, expected):
    _write(tmp_path, {"autograder/__init__.py": "", **files})
    edges, _ = imports(modules(tmp_path))
    assert cycles(edges) == expected


def test_the_private_name_check_sees_imports_and_attributes(tmp_path):
    _write(
        tmp_path,
        {
            "autograder/__init__.py": "",
            "autograder/a.py": "_secret = 1\n",
            "autograder/b.py": "from autograder.a import _secret\n",
            "autograder/c.py": "from autograder import a\nvalue = a._secret\n",
        },
    )
    _, private = imports(modules(tmp_path))
    assert private == [("autograder.b", "autograder.a", "_secret"), ("autograder.c", "autograder.a", "_secret")]


# The grader's packages and the packages each may import (besides itself, the standard library and
# third-party ones): the process and trust boundaries as code. The child side, which runs beside
# student code, holds nothing of the judge's or the coordinator's; the wire and the rules depend on
# no other part of the grader; nothing the coordinator uses reaches back into it.
PACKAGE_IMPORTS = {
    "autograder.rules": set(),
    "autograder.config": {"autograder.rules"},
    "autograder.wire": {"course"},
    "autograder.sandbox": {"autograder.config"},
    "autograder.child": {"autograder.config", "autograder.sandbox", "autograder.wire", "course"},
    "autograder.judge": {
        "autograder.child",
        "autograder.config",
        "autograder.rules",
        "autograder.sandbox",
        "autograder.wire",
        "course",
        "instructor",
    },
    "autograder.cluster": {"autograder.config", "autograder.judge", "autograder.sandbox"},
    "autograder.grades": {"autograder.config", "autograder.rules"},
    "autograder.coordinator": {
        "autograder.cluster",
        "autograder.config",
        "autograder.grades",
        "autograder.judge",
        "autograder.rules",
    },
    "autograder.authoring": {"autograder.rules"},
}


def package_of(module: str, mods: dict[str, Path]) -> str:
    """A module's package as PACKAGE_IMPORTS names it: `autograder.judge` for `autograder.judge.pool` and for
    `autograder.judge` itself; `autograder` for the modules at the top (`autograder.cli`); the top-level
    name for everything else (`course` for `course.probes.core`)."""
    parts = module.split(".")
    if parts[0] != "autograder" or len(parts) == 1:
        return parts[0]
    if len(parts) > 2 or mods[module].name == "__init__.py":
        return ".".join(parts[:2])
    return "autograder"


def package_edges(mods: dict[str, Path]) -> dict[str, set[str]]:
    """{package: the other packages its modules import}."""
    edges, _ = imports(mods)
    found: dict[str, set[str]] = {}
    for name, targets in edges.items():
        for target in targets:
            here, there = package_of(name, mods), package_of(target, mods)
            if here != there:
                found.setdefault(here, set()).add(there)
    return found


def test_no_cycle_between_packages():
    assert cycles(package_edges(modules())) == []


def test_each_package_imports_only_what_its_boundary_allows():
    found = package_edges(modules())
    wrong = {
        package: sorted(found.get(package, set()) - allowed)
        for package, allowed in PACKAGE_IMPORTS.items()
        if found.get(package, set()) - allowed
    }
    assert wrong == {}


def test_every_package_is_in_the_table_and_says_what_it_is_for():
    packages = sorted(p.parent for p in (ROOT / "autograder").glob("*/__init__.py"))
    assert sorted(f"autograder.{p.name}" for p in packages) == sorted(PACKAGE_IMPORTS)
    for package in packages:
        tree = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
        purpose = ast.get_docstring(tree) or ""
        assert purpose and len(tree.body) == 1, f"{package.name}/__init__.py: a purpose and nothing else"
        assert len(purpose.splitlines()) == 1, f"{package.name}: one line"


def test_the_boundary_check_sees_a_forbidden_import(tmp_path):
    _write(
        tmp_path,
        {
            "autograder/__init__.py": "",
            "autograder/child/__init__.py": '"""x"""',
            "autograder/child/runner.py": "def f():\n    from autograder.judge import verdict\n",
            "autograder/judge/__init__.py": '"""x"""',
            "autograder/judge/verdict.py": "from autograder.child import runner\n",
        },
    )
    edges = package_edges(modules(tmp_path))
    assert edges == {"autograder.child": {"autograder.judge"}, "autograder.judge": {"autograder.child"}}
    assert cycles(edges) == [["autograder.child", "autograder.judge"]]


CLOCKS = ("time.monotonic", "time.time", "time.perf_counter")


def bare_timeouts(mods: dict[str, Path]) -> list[str]:
    """Timeouts written as numbers where they are used (`time.monotonic() + 5`, `timeout=10`, a parameter's
    default of `30.0`): each belongs in `settings.Autograder` or in a named constant that says what it waits for."""
    found = []
    for name, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            number = None
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(node.left, ast.Call):
                if ast.unparse(node.left.func) in CLOCKS:
                    number = node.right
            elif isinstance(node, ast.keyword) and node.arg in ("timeout", "deadline"):
                number = node.value
            elif isinstance(node, ast.arguments):
                named = node.posonlyargs + node.args
                pairs = list(zip(named[len(named) - len(node.defaults) :], node.defaults))
                pairs += [(a, d) for a, d in zip(node.kwonlyargs, node.kw_defaults) if d is not None]
                found += [
                    f"{name}:{d.lineno} {a.arg}={ast.unparse(d)}"
                    for a, d in pairs
                    if a.arg in ("timeout", "deadline")
                    and isinstance(d, ast.Constant)
                    and isinstance(d.value, int | float)
                ]
            if isinstance(number, ast.Constant) and isinstance(number.value, int | float):
                found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    return found


def test_no_timeout_is_a_bare_number():
    grader = {name: path for name, path in modules().items() if name.startswith("autograder")}
    assert bare_timeouts(grader) == []


def test_the_timeout_check_sees_each_form(tmp_path):
    _write(
        tmp_path,
        {
            "autograder/__init__.py": "",
            "autograder/a.py": "import time\nWAIT_S = 5.0\n"
            "def f(timeout=30.0, *, deadline=None):\n    return time.monotonic() + 5, g(timeout=10), time.monotonic() + WAIT_S\n",
        },
    )
    assert sorted(bare_timeouts(modules(tmp_path))) == [
        "autograder.a:3 timeout=30.0",
        "autograder.a:4 time.monotonic() + 5",
        "autograder.a:4 timeout=10",
    ]


def long_functions(mods: dict[str, Path], limit: int = 80) -> list[str]:
    """Functions (nested ones too) over `limit` lines whose docstring does not say why ("Long because ...")."""
    found = []
    for name, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > limit and "long because" not in (ast.get_docstring(node) or "").lower():
                    found.append(f"{name}.{node.name}: {lines} lines")
    return found


def test_no_function_is_long_without_a_reason():
    assert long_functions(modules()) == []


def test_the_length_check_counts_lines_and_reads_the_reason(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(80))
    _write(
        tmp_path,
        {
            "autograder/__init__.py": "",
            "autograder/a.py": f"def short():\n{body[:-13]}\n"
            f"def long():\n{body}\n"
            f'def explained():\n    """Long because it is a table."""\n{body}',
        },
    )
    assert long_functions(modules(tmp_path)) == ["autograder.a.long: 81 lines"]
