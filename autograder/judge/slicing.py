"""The part of a notebook an item needs: the statements that define what its code uses.

A probe runs in a fresh process forked from the warm zygote, holding only the item and what it
depends on, so that code elsewhere in the notebook (a cell that patches NumPy, say) is not there when
the measurement is taken. `needed_code` walks the notebook's successful cells backwards from the item
and keeps each top-level statement that binds or changes a name still needed (imports, definitions,
assignments, stores into a needed object or module, method calls on a needed object that is not a
module, and whole compound statements that do so inside), adding the names it reads in turn.
Calls of a module's functions (`torch.manual_seed(0)`, `torch.randn(3)`) are not changes: demos that
only use PyTorch stay out. What static reading cannot follow comes along: an item that needs a name no
statement binds gets the changes to the builtins (where such a name is looked up), and an item that
reads a namespace by a name computed when it runs (`globals().get("x")`, `eval`, `__main__`) gets every
statement.
"""

from __future__ import annotations

import ast
import builtins
import functools
import symtable
from dataclasses import dataclass
from typing import Iterable

from course import subset

BUILTINS = frozenset(dir(builtins))
# Names through which code reads a namespace by a name computed when it runs (`globals().get("x")`, `eval`,
# the `__main__` module, the builtins, `sys.modules`): a statement that uses one may depend on any
# statement, so an item that needs it gets every statement of the notebook.
NAMESPACE_READERS = frozenset(
    {"globals", "vars", "locals", "dir", "eval", "exec", "__import__", "__main__", "__builtins__", "builtins", "sys"}
)
NAMESPACE_ATTRIBUTES = frozenset({"__globals__", "__dict__", "f_globals", "__builtins__"})
# A name no statement binds is looked up in the builtins: an item that needs one gets what changes them.
BUILTIN_WRITES = frozenset({"builtins", "__builtins__"})


@functools.lru_cache(maxsize=4096)
def _statements(source: str) -> tuple[ast.stmt, ...] | None:
    """A cell's top-level statements, IPython syntax (magics, `!` commands) turned into Python first.

    Cached: every student's notebook repeats most of the lesson's cells, and a judge grades many.
    """
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return tuple(ast.parse(TransformerManager().transform_cell(source)).body)
    except SyntaxError:
        return None


def _targets(node: ast.AST) -> Iterable[ast.AST]:
    if isinstance(node, (ast.Tuple, ast.List)):
        for element in node.elts:
            yield from _targets(element)
    elif isinstance(node, ast.Starred):
        yield from _targets(node.value)
    else:
        yield node


def _root(node: ast.AST) -> str | None:
    """`a` for `a`, `a.b.c`, `a[0].b`, `a.b()`."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


class _Effects(ast.NodeVisitor):
    """Module-level names a statement binds, and the roots of objects it may change, outside nested scopes."""

    def __init__(self) -> None:
        self.bound: set[str] = set()
        self.changed: set[str] = set()
        self.called: set[str] = set()  # roots of method calls, which may change the object
        self.imported: set[str] = set()
        self.star = False

    def _store(self, target: ast.AST) -> None:
        for node in _targets(target):
            if isinstance(node, ast.Name):
                self.bound.add(node.id)
            else:
                root = _root(node)
                if root:
                    self.changed.add(root)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._store(target)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._store(node.target)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._store(node.target)
        self.generic_visit(node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self._store(node.target)
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            self._store(target)

    def visit_For(self, node: ast.For) -> None:
        self._store(node.target)
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def visit_withitem(self, node: ast.withitem) -> None:
        if node.optional_vars is not None:
            self._store(node.optional_vars)
        self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.bound.add(node.name)
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.bound.add(alias.asname or alias.name.split(".")[0])
            self.imported.add(alias.asname or alias.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name == "*":
                self.star = True
            else:
                self.bound.add(alias.asname or alias.name)
                self.imported.add(alias.asname or alias.name)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.bound.add(node.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.bound.add(node.name)

    def visit_Global(self, node: ast.Global) -> None:
        self.bound.update(node.names)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Attribute):
            root = _root(node.func)
            if root:
                self.called.add(root)
        self.generic_visit(node)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        pass


@functools.lru_cache(maxsize=8192)
def _reads_of(code: str) -> frozenset[str]:
    """The module-level names a statement reads: at the top level, and from inside its functions and classes.

    A function's parameters and locals are its own; only the names it looks up globally count.
    """
    try:
        table = symtable.symtable(code, "<cell>", "exec")
    except SyntaxError:
        return frozenset({n.id for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Name)} - BUILTINS)
    names = {s.get_name() for s in table.get_symbols() if s.is_referenced()}

    def walk(scope: symtable.SymbolTable) -> None:
        for child in scope.get_children():
            names.update(s.get_name() for s in child.get_symbols() if s.is_global() and s.is_referenced())
            walk(child)

    walk(table)
    return frozenset(names - BUILTINS)


@dataclass(frozen=True)
class Statement:
    """One top-level statement of a cell: where it is, its code, and the names it touches."""

    position: tuple[int, int]  # (cell, statement) in notebook order
    code: str
    writes: frozenset[str]  # bound or changed
    reads: frozenset[str]


@functools.lru_cache(maxsize=8192)
def _effects(code: str) -> tuple[frozenset[str], frozenset[str], frozenset[str], bool]:
    """(bound and stored-into names, method-call roots, imported names, star import) of one statement's code."""
    effects = _Effects()
    for stmt in ast.parse(code).body:
        effects.visit(stmt)
    return (
        frozenset(effects.bound | effects.changed),
        frozenset(effects.called),
        frozenset(effects.imported),
        effects.star,
    )


@functools.lru_cache(maxsize=8192)
def _reads_namespaces(code: str) -> bool:
    """Whether a statement reads a namespace by a name computed when it runs (see NAMESPACE_READERS)."""
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name) and node.id in NAMESPACE_READERS:
            return True
        if isinstance(node, ast.Attribute) and node.attr in NAMESPACE_ATTRIBUTES:
            return True
    return False


def every_statement(sources: list[str], *, whole: frozenset[int] = frozenset()) -> list[Statement]:
    """Every top-level statement of `sources` (cells, in order), last first. A cell in `whole` (one that
    raised) is one statement: run again, it stops where it stopped, leaving what it left and no more."""
    parsed = [[ast.unparse(stmt) for stmt in body] if body is not None else None for body in map(_statements, sources)]
    parsed = [["\n".join(body)] if index in whole and body else body for index, body in enumerate(parsed)]
    modules: set[str] = set()
    for body in parsed:
        for code in body or []:
            modules |= _effects(code)[2]
    every: list[Statement] = []
    for cell in range(len(parsed) - 1, -1, -1):
        for index in range(len(parsed[cell] or []) - 1, -1, -1):
            code = parsed[cell][index]
            written, called, _, _ = _effects(code)
            every.append(Statement((cell, index), code, written | (called - modules), _reads_of(code)))
    return every


def needed_statements(sources: list[str], names: set[str], *, whole: frozenset[int] = frozenset()) -> list[Statement]:
    """The statements of `sources` (cells, in order) that `names` depend on, in notebook order: with the
    changes to the builtins when a needed name is bound nowhere else, and every statement once one that is
    kept for what it binds reads a namespace by a computed name. Cells in `whole` are kept whole."""
    every = every_statement(sources, whole=whole)
    bound = set().union(*(s.writes for s in every))

    def walk(needed: set[str]) -> tuple[list[Statement], set[str], bool]:
        kept, dynamic = [], False
        for statement in every:
            star = _effects(statement.code)[3]
            if star or statement.writes & needed:
                dynamic = dynamic or bool(
                    statement.writes & needed - BUILTIN_WRITES and _reads_namespaces(statement.code)
                )
                needed |= statement.reads
                kept.append(statement)
        return kept, needed, dynamic

    kept, needed, dynamic = walk(set(names))
    if needed - bound - set(names):  # looked up in the builtins: what changes them comes along
        kept, needed, dynamic = walk(set(names) | BUILTIN_WRITES)
    return list(reversed(every if dynamic else kept))


def as_cells(statements: list[Statement]) -> list[str]:
    """Statements grouped back into one piece of code per cell, in order."""
    cells: dict[int, list[str]] = {}
    for statement in statements:
        cells.setdefault(statement.position[0], []).append(statement.code)
    return ["\n".join(codes) for _, codes in sorted(cells.items())]


def needed_code(sources: list[str], names: set[str]) -> list[str]:
    """The statements of `sources` (cells, in order) that `names` depend on, as code to run in order."""
    return as_cells(needed_statements(sources, names))


def can_run_after(new: list[Statement], ran: list[Statement]) -> bool:
    """Whether `new` statements can run now, after `ran`, and do what they would have done in notebook order.

    A statement placed before some that already ran must not touch what those later ones wrote, nor
    write what they touched: otherwise running it now would change what either of them sees.
    """
    for statement in new:
        later = [r for r in ran if r.position > statement.position]
        for other in later:
            if statement.writes & (other.writes | other.reads) or statement.reads & other.writes:
                return False
    return True


def outside_subset(statements: list[Statement], sources: list[str], trusted: set[str]) -> list[str]:
    """What the statements of cells not in `trusted` do outside the subset a probe measures (`course.subset`),
    each named with the statement it is in. The trusted cells (the instructor's locked cells) are read too,
    for the names their imports give, but what they do is the lesson's."""
    code, theirs = [], []
    for statement in sorted(statements, key=lambda s: s.position):
        code.append(statement.code)
        theirs += [statement if sources[statement.position[0]] not in trusted else None] * (
            statement.code.count("\n") + 1
        )
    found = []
    for construct in subset.outside_subset("\n".join(code)):
        statement = theirs[construct.line - 1] if 0 < construct.line <= len(theirs) else None
        if statement is not None:
            first = statement.code.splitlines()[0]
            found.append(f"{construct.what}, {construct.why}, in `{first[:80]}`")
    return list(dict.fromkeys(found))
