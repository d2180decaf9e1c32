"""The Python a probe measures: a stated subset, checked by reading the code before it runs.

A probe takes its evidence in the student's own process, so whatever the measured code can reach, it
can tamper with. Rather than watch for every known trick while it runs, the grader first reads the
code a probe would run (the item's answer and every statement its slice keeps) and runs it under the
probe only when it stays inside this subset: no private or special attribute beyond a short list, no
introspection builtin, imports from a list of modules and names, no subclass of a tensor or of a
class PyTorch does not offer for subclassing, and nothing that turns data into code or memory. Code
outside it is not run under a probe: the item goes to the instructor for review, and the visible
test in the student's kernel says which construct and why before the notebook is handed in.

Every entry of the lists below was needed by a right answer of the course's corpora or an honest
idiom; docs/security.md justifies each. `outside_subset(source)` returns what breaks the rules.
"""

from __future__ import annotations

import ast
import functools
import symtable
from dataclasses import dataclass
from typing import Any

# Special names a class may define and code may read: object construction, containers and calling,
# text, and the names honest helpers read (a function's name in a log line, a wrapper's target).
SPECIAL_NAMES = frozenset(
    {
        "__init__",
        "__len__",
        "__getitem__",
        "__setitem__",
        "__iter__",
        "__next__",
        "__contains__",
        "__call__",
        "__repr__",
        "__str__",
        "__enter__",
        "__exit__",
        "__post_init__",
        "__name__",
        "__qualname__",
        "__version__",
        "__doc__",
        "__wrapped__",
    }
)
# Of those, the ones code may only read, never assign: a class's identity is not the notebook's to change.
READ_ONLY_SPECIAL = frozenset({"__name__", "__qualname__", "__version__", "__wrapped__"})

# Builtins that hand out a namespace, an address, code, a file or raw memory.
FORBIDDEN_BUILTINS = {
    "vars": "hands out an object's namespace",
    "globals": "hands out the module's namespace",
    "locals": "hands out a frame's namespace",
    "dir": "lists names to reach by a computed name",
    "eval": "runs code made from text",
    "exec": "runs code made from text",
    "compile": "makes code from text",
    "__import__": "imports by a computed name",
    "open": "reads and writes files",
    "memoryview": "reads and writes raw memory",
    "breakpoint": "starts a debugger",
    "input": "waits for a person",
    "get_ipython": "reaches the kernel's shell",
    "__build_class__": "makes classes without a class statement",
}
NAME_ATTRIBUTE_BUILTINS = {"getattr", "setattr", "delattr", "hasattr"}

# Modules measured code may import, and for each the names it may use (None: every public name except
# those in FORBIDDEN_ATTRIBUTES). Submodules of torch and numpy are covered by their parent's entry.
ALLOWED_MODULES: dict[str, frozenset[str] | None] = {
    "torch": None,
    "numpy": None,
    "math": None,
    "cmath": None,
    "itertools": None,
    "functools": frozenset(
        {"wraps", "partial", "reduce", "lru_cache", "cache", "cached_property", "total_ordering", "update_wrapper"}
    ),
    "operator": frozenset(
        {
            "add",
            "sub",
            "mul",
            "truediv",
            "floordiv",
            "mod",
            "neg",
            "matmul",
            "eq",
            "ne",
            "lt",
            "le",
            "gt",
            "ge",
            "itemgetter",
        }
    ),
    "collections": frozenset({"Counter", "defaultdict", "deque", "OrderedDict", "namedtuple", "ChainMap"}),
    "dataclasses": frozenset({"dataclass", "field", "replace", "asdict", "astuple"}),
    "typing": frozenset(
        {
            "Any",
            "Callable",
            "Dict",
            "Iterable",
            "Iterator",
            "List",
            "Mapping",
            "NamedTuple",
            "Optional",
            "Sequence",
            "Tuple",
            "Union",
        }
    ),
    "random": None,
    "statistics": None,
    "time": frozenset({"time", "perf_counter", "monotonic", "sleep", "process_time"}),
    "warnings": frozenset({"warn", "catch_warnings", "simplefilter", "filterwarnings"}),
    "copy": frozenset({"copy", "deepcopy"}),
    "io": frozenset({"BytesIO", "StringIO"}),
    "os": frozenset({"environ", "getenv", "cpu_count", "path", "urandom", "getpid", "sep", "linesep"}),
    "logging": frozenset(
        {"getLogger", "basicConfig", "debug", "info", "warning", "error", "DEBUG", "INFO", "WARNING", "ERROR"}
    ),
    "contextlib": frozenset({"contextmanager", "nullcontext", "suppress"}),
    "gc": frozenset({"collect"}),
    "sys": frozenset({"stdout", "stderr"}),  # printing to either is honest; the rest of sys reaches the interpreter
    "enum": frozenset({"Enum", "IntEnum", "auto"}),
    "fractions": frozenset({"Fraction"}),
    "tqdm": None,
    "matplotlib": None,
    "course": None,
    "datetime": None,
    "IPython.display": frozenset({"display", "HTML", "Markdown"}),
    # PyTorch's tree helpers are private by name but public in use: what right answers map over batches with.
    "torch.utils._pytree": frozenset(
        {"tree_map", "tree_map_only", "tree_flatten", "tree_flatten_with_path", "tree_unflatten", "tree_leaves"}
    ),
    "__future__": frozenset({"annotations"}),
}
# Why a module is not in the subset, where a student has an everyday reason to reach for it.
IMPORT_HINTS = {
    "pickle": "unpickling runs code from data: copy with `copy.deepcopy`, or `torch.save` into an `io.BytesIO`",
    "inspect": "it reaches the interpreter's frames",
    "threading": "a thread runs where no probe measures",
    "multiprocessing": "a process runs where no probe measures",
}

# Parts of allowed packages measured code may not import: the course's own probes and the grader's
# instruments, and PyTorch's ways below its public API.
FORBIDDEN_SUBMODULES = ("course.probes", "torch.testing", "torch.hub", "torch.package", "torch.export")

# Attribute names refused on any object: each is a way below the public API or out of the subset
# (native code, raw memory, code made at run time, PyTorch's mode stacks).
FORBIDDEN_ATTRIBUTES = {
    "ctypes": "reads and writes raw memory",
    "ctypeslib": "reads and writes raw memory",
    "stride_tricks": "makes arrays over arbitrary memory (only `sliding_window_view` is allowed)",
    "library": "registers native kernels that replace PyTorch's operators",
    "jit": "compiles code PyTorch runs outside Python",
    "cpp_extension": "builds and loads native code",
    "compile": "compiles code PyTorch runs outside Python",
    "overrides": "holds PyTorch's function modes, which see and rewrite every tensor call",
    "fx": "rewrites code PyTorch runs",
    "load_library": "loads native code",
    "saved_tensors_hooks": "reaches autograd's hook stack, where the grader's instruments sit",
    "disable_saved_tensors_hooks": "reaches autograd's hook stack, where the grader's instruments sit",
    "save_on_cpu": "reaches autograd's hook stack, where the grader's instruments sit",
}
# Attributes that reach the interpreter's frames and code objects: from a frame, any caller's variables.
FRAME_ATTRIBUTES = frozenset(
    {
        "gi_frame",
        "cr_frame",
        "ag_frame",
        "tb_frame",
        "tb_next",
        "f_back",
        "f_globals",
        "f_locals",
        "f_builtins",
        "f_code",
        "f_trace",
        "f_trace_lines",
        "f_trace_opcodes",
        "gi_code",
        "cr_code",
        "ag_code",
        "co_code",
        "co_consts",
        "co_names",
    }
)
for _name in FRAME_ATTRIBUTES:
    FORBIDDEN_ATTRIBUTES[_name] = "reaches the interpreter's frames and code"
del _name
STRIDE_TRICKS_ALLOWED = "sliding_window_view"

# Keyword arguments whose other values turn data into code (unpickling).
SAFE_KEYWORDS = {"weights_only": True, "allow_pickle": False}

# Bases a class may name besides the notebook's own classes: PyTorch's classes made to be subclassed
# (everything in torch.nn and torch.utils.data, torch.autograd.Function), plain objects and exceptions.
ALLOWED_BASE_PREFIXES = ("torch.nn.", "torch.utils.data.", "torch.autograd.Function", "torch.optim.")
FORBIDDEN_BASES = frozenset(
    {"torch.nn.Parameter", "torch.nn.Buffer", "torch.nn.parameter.Parameter", "torch.nn.parameter.Buffer"}
)
BUILTIN_BASES = frozenset(
    {
        "object",
        "Exception",
        "ValueError",
        "TypeError",
        "RuntimeError",
        "KeyError",
        "IndexError",
        "dict",
        "list",
        "tuple",
    }
)
ALLOWED_QUALIFIED_BASES = frozenset(
    {"typing.NamedTuple", "enum.Enum", "enum.IntEnum", "collections.OrderedDict", "collections.defaultdict"}
)


@dataclass(frozen=True)
class Construct:
    """One thing in the code the subset does not allow: where, what, and why it is not allowed."""

    line: int
    what: str
    why: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.what} ({self.why})"


def _special(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _private(name: str) -> bool:
    return name.startswith("_") and not _special(name)


def _dotted(node: ast.AST) -> str | None:
    """`a.b.c` for an attribute chain over a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _module_allowed(module: str) -> tuple[bool, frozenset[str] | None]:
    """Whether `module` may be imported, and the names it may give (None: its public names)."""
    if any(module == bad or module.startswith(bad + ".") for bad in FORBIDDEN_SUBMODULES):
        return False, None
    parts = module.split(".")
    if module in ALLOWED_MODULES:
        return True, ALLOWED_MODULES[module]
    if any(_private(p) or _special(p) or p in FORBIDDEN_ATTRIBUTES for p in parts[1:]):
        return parts[-2:] == ["lib", "stride_tricks"], frozenset({STRIDE_TRICKS_ALLOWED})
    if module in ALLOWED_MODULES:
        return True, ALLOWED_MODULES[module]
    if parts[0] in ALLOWED_MODULES and ALLOWED_MODULES[parts[0]] is None:
        return True, None
    return False, None


class _Reader(ast.NodeVisitor):
    def __init__(self) -> None:
        self.found: list[Construct] = []
        self.modules: dict[str, str] = {}  # local name -> module it stands for
        self.imported: dict[str, str] = {}  # local name -> qualified name of an imported object
        self.classes: set[str] = set()
        self.parents: dict[int, ast.AST] = {}
        self.builtins: set[str] = set()  # names some scope looks up in the builtins

    def refuse(self, node: ast.AST, what: str, why: str) -> None:
        self.found.append(Construct(getattr(node, "lineno", 0), what, why))

    def read(self, tree: ast.Module, source: str) -> list[Construct]:
        self.builtins = _builtin_lookups(source)
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[id(child)] = parent
            if isinstance(parent, ast.ClassDef):
                self.classes.add(parent.name)
            elif isinstance(parent, ast.Import):
                for alias in parent.names:
                    if alias.asname:
                        self.modules[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        self.modules[top] = top
            elif isinstance(parent, ast.ImportFrom) and parent.module and not parent.level:
                for alias in parent.names:
                    qualified = f"{parent.module}.{alias.name}"
                    self.imported[alias.asname or alias.name] = qualified
        self.visit(tree)
        return sorted(set(self.found), key=lambda c: (c.line, c.what))

    def qualified(self, node: ast.AST) -> str | None:
        """The qualified name an expression stands for through the imports (`torch.nn.Module` for `nn.Module`)."""
        dotted = _dotted(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        if head in self.modules:
            base = self.modules[head]
        elif head in self.imported:
            base = self.imported[head]
        else:
            return dotted
        return f"{base}.{rest}" if rest else base

    # imports

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            allowed, _ = _module_allowed(alias.name)
            if not allowed:
                self.refuse(node, f"`import {alias.name}`", _import_why(alias.name))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level:
            self.refuse(node, f"`from {'.' * node.level}{module} import ...`", "a relative import")
            return
        allowed, names = _module_allowed(module)
        if not allowed:
            self.refuse(node, f"`from {module} import ...`", _import_why(module))
            return
        for alias in node.names:
            name = alias.name
            if name == "*":
                self.refuse(node, f"`from {module} import *`", "a star import hides what the code uses")
            elif names is not None and name not in names and not _module_allowed(f"{module}.{name}")[0]:
                self.refuse(node, f"`{name}` from `{module}`", "not a name measured code may import from it")
            elif names is None and (_private(name) or _special(name) or name in FORBIDDEN_ATTRIBUTES):
                self.refuse(node, f"`{name}` from `{module}`", FORBIDDEN_ATTRIBUTES.get(name, "a private name"))
            elif _module_allowed(f"{module}.{name}")[0] is False and f"{module}.{name}" in FORBIDDEN_SUBMODULES:
                self.refuse(node, f"`{module}.{name}`", "not a module measured code may import")

    # names and attributes

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if name in FORBIDDEN_BUILTINS and name in self.builtins:
            self.refuse(node, f"`{name}`", FORBIDDEN_BUILTINS[name])
        elif _special(name) and name not in SPECIAL_NAMES:
            self.refuse(node, f"`{name}`", "a special name of the interpreter")
        elif name in NAME_ATTRIBUTE_BUILTINS and not isinstance(self.parents.get(id(node)), ast.Call):
            self.refuse(node, f"`{name}` passed as a value", "reaches attributes by a name computed when it runs")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        store = not isinstance(node.ctx, ast.Load)
        self.attribute(node, node.attr, store=store)
        if store:
            self.library_store(node, _dotted(node))
        if isinstance(node.value, ast.Name) and node.value.id in self.modules:  # a name read from a module
            module = self.modules[node.value.id]
            names = _module_allowed(module)[1]
            if names is not None and node.attr not in names:
                self.refuse(node, f"`{module}.{node.attr}`", f"not a name measured code may use from `{module}`")
        qualified = self.qualified(node)
        if qualified is not None:
            root = _dotted(node).split(".")[0]
            if any(qualified == bad or qualified.startswith(bad + ".") for bad in FORBIDDEN_SUBMODULES):
                if root in self.modules or root in self.imported:
                    self.refuse(node, f"`{qualified}`", "not a module measured code may use")
        self.generic_visit(node)

    def attribute(self, node: ast.AST, name: str, *, store: bool) -> None:
        if _special(name):
            if name not in SPECIAL_NAMES or (store and name in READ_ONLY_SPECIAL):
                self.refuse(node, f"the attribute `{name}`", "a special attribute of the interpreter")
        elif _private(name):
            self.refuse(node, f"the attribute `{name}`", "a private attribute, below the public API")
        elif name in FORBIDDEN_ATTRIBUTES:
            parent = self.parents.get(id(node))
            allowed = (
                name == "stride_tricks" and isinstance(parent, ast.Attribute) and parent.attr == STRIDE_TRICKS_ALLOWED
            )
            if not allowed:
                self.refuse(node, f"the attribute `{name}`", FORBIDDEN_ATTRIBUTES[name])

    def library_store(self, node: ast.AST, dotted: str | None) -> None:
        """Refuse changing what a module or an imported object holds: that changes the library for the grader too."""
        root = dotted.split(".")[0] if dotted else None
        if root in self.modules or root in self.imported:
            self.refuse(
                node, f"a change of `{dotted}`", "changes a library's module or class, which the grader uses too"
            )

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id in NAME_ATTRIBUTE_BUILTINS:
            name = node.args[1] if len(node.args) > 1 else None
            if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                self.refuse(
                    node, f"`{func.id}` with a computed name", "reaches attributes by a name computed when it runs"
                )
            else:
                store = func.id in ("setattr", "delattr")
                self.attribute(node, name.value, store=store)
                if store and node.args:
                    target = _dotted(node.args[0])
                    self.library_store(node, f"{target}.{name.value}" if target else None)
        if isinstance(func, ast.Name) and func.id == "type" and len(node.args) != 1:
            self.refuse(node, "`type` with three arguments", "makes a class from data")
        if isinstance(func, ast.Attribute) and func.attr in ("format", "format_map"):
            if not (isinstance(func.value, ast.Constant) and isinstance(func.value.value, str)):
                self.refuse(node, f"`.{func.attr}` of a text made at run time", "its fields can read any attribute")
            elif _reads_attributes(func.value.value):
                self.refuse(
                    node, f"`.{func.attr}` with a field that reads an attribute", "its fields can read any attribute"
                )
        for keyword in node.keywords:
            if keyword.arg in SAFE_KEYWORDS:
                value = keyword.value
                if not (isinstance(value, ast.Constant) and value.value is SAFE_KEYWORDS[keyword.arg]):
                    self.refuse(
                        keyword.value,
                        f"`{keyword.arg}=` other than {SAFE_KEYWORDS[keyword.arg]}",
                        "unpickling runs code from data",
                    )
            elif keyword.arg is None and isinstance(keyword.value, ast.Dict):
                for key in keyword.value.keys:
                    if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.startswith("_"):
                        self.refuse(key, f"the keyword `{key.value}`", "a private or special name")
        self.generic_visit(node)

    # definitions

    def define(self, node: ast.AST, name: str) -> None:
        if _special(name) and (name not in SPECIAL_NAMES or name in READ_ONLY_SPECIAL):
            self.refuse(
                node,
                f"a definition of `{name}`",
                "a special name that changes how the interpreter or a library treats the object",
            )

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.define(node, node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.define(node, node.name)
        for keyword in node.keywords:
            self.refuse(
                node, f"the class keyword `{keyword.arg}=`", "a metaclass or class hook changes how classes behave"
            )
        for base in node.bases:
            self.base(node, base)
        for statement in node.body:
            targets = statement.targets if isinstance(statement, ast.Assign) else []
            if isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
                targets = [statement.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    self.define(statement, target.id)
        self.generic_visit(node)

    def base(self, node: ast.ClassDef, base: ast.AST) -> None:
        dotted = _dotted(base)
        qualified = self.qualified(base)
        if dotted is None or qualified is None:
            self.refuse(node, f"the base class `{ast.unparse(base)}`", "a base must be named where it is defined")
            return
        if dotted in self.classes or dotted in BUILTIN_BASES or qualified in ALLOWED_QUALIFIED_BASES:
            return
        if qualified in FORBIDDEN_BASES or not qualified.startswith(ALLOWED_BASE_PREFIXES):
            self.refuse(
                node,
                f"the base class `{dotted}`",
                "only the notebook's own classes, torch.nn, torch.utils.data, torch.autograd.Function and plain objects may be subclassed",
            )

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name) and _special(name.id):
                    self.define(node, name.id)
        self.generic_visit(node)


def _import_why(module: str) -> str:
    return IMPORT_HINTS.get(module.split(".")[0], "not a module measured code may import")


def _builtin_lookups(source: str) -> set[str]:
    """The names some scope of `source` looks up in the builtins: bound neither in that scope nor at the top."""
    table = symtable.symtable(source, "<measured>", "exec")
    top = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace()}
    found = {s.get_name() for s in table.get_symbols() if s.is_referenced()} - top

    def walk(scope: symtable.SymbolTable) -> None:
        for child in scope.get_children():
            found.update(s.get_name() for s in child.get_symbols() if s.is_global() and s.get_name() not in top)
            walk(child)

    walk(table)
    return found


def _reads_attributes(template: str) -> bool:
    """Whether a format template has a field that reads an attribute or an item (`{0.x}`, `{a[k]}`)."""
    import string

    try:
        fields = [field for _, field, _, _ in string.Formatter().parse(template) if field]
    except ValueError:
        return True
    return any("." in field or "[" in field for field in fields)


def outside_subset(source: str, *, known: dict[str, str] | None = None) -> list[Construct]:
    """What in `source` (Python code, one or more cells joined) lies outside the measured subset; [] when none.

    `known` names what names bound elsewhere stand for: `{"nn": "module:torch.nn", "Module":
    "torch.nn.Module", "Helper": ""}` (a module, an object by qualified name, a class of the notebook's own).
    """
    return list(_outside(source, tuple(sorted((known or {}).items()))))


@functools.lru_cache(maxsize=4096)
def _outside(source: str, known: tuple) -> tuple[Construct, ...]:
    """`outside_subset`, cached: a judge reads the same slices for many students of a class."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return (Construct(exc.lineno or 0, "code that does not parse", str(exc.msg)),)
    reader = _Reader()
    for name, qualified in known:
        kind, _, qualified = qualified.rpartition(":")
        if kind == "module":
            reader.modules[name] = qualified
        elif qualified:
            reader.imported[name] = qualified
        else:
            reader.classes.add(name)
    return tuple(reader.read(tree, source))


def check_measured(target: Any) -> None:
    """In the student's kernel, before a probe measures `target`: fail with a message naming the construct
    when the cell that defines it is outside the subset, since the grader will not run it under a probe."""
    cell = _defining_cell(target)
    if cell is None:
        return
    filename, lines = cell
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        source = TransformerManager().transform_cell("".join(lines))
    except Exception:
        source = "".join(lines)
    space = getattr(target, "__globals__", None) or getattr(getattr(target, "__init__", None), "__globals__", {})
    found = outside_subset(source, known=_known_names(space))
    if found:
        from course.checks import fail

        name = getattr(target, "__name__", "your answer")
        fail(
            f"`{name}` uses {found[0].what} ({found[0].why}, cell line {found[0].line}). The grader measures "
            "answers written in the subset of Python described in lesson 01 and docs/students.md, and sends "
            "this one to your instructor to grade by hand instead: rewrite it without that."
        )


def _defining_cell(target: Any) -> tuple[str, list[str]] | None:
    """The file name and lines of the notebook cell (or file) that defines a function or a class."""
    import linecache

    functions = [target] if hasattr(target, "__code__") else []
    if isinstance(target, type):
        functions = [v for v in target.__dict__.values() if hasattr(v, "__code__")]
    for function in functions:
        filename = function.__code__.co_filename
        lines = linecache.getlines(filename)
        if lines and _notebook_cell(filename):
            return filename, lines
    return None


def _notebook_cell(filename: str) -> bool:
    """Whether code came from a notebook cell (IPython names each cell's code after the kernel)."""
    return "ipykernel_" in filename or filename.startswith("<ipython-input")


def _known_names(space: dict) -> dict[str, str]:
    """What the names of a kernel's namespace stand for: modules and imported objects by qualified name,
    the notebook's own classes as ""."""
    import types

    known: dict[str, str] = {}
    for name, value in list(space.items()):
        if isinstance(value, types.ModuleType):
            known[name] = f"module:{value.__name__}"
        elif isinstance(value, type) or callable(value):
            module = getattr(value, "__module__", None)
            qualified = getattr(value, "__qualname__", None)
            if module == "__main__" and isinstance(value, type):
                known[name] = ""
            elif isinstance(module, str) and isinstance(qualified, str) and module != "__main__":
                known[name] = f"{module}.{qualified}"
    return known


def describe(constructs: list[Construct], *, limit: int = 3) -> str:
    """One line naming the first constructs found."""
    shown = "; ".join(str(c) for c in constructs[:limit])
    more = len(constructs) - limit
    return shown + (f"; and {more} more" if more > 0 else "")
