"""The trusted core inside a sandboxed child: a tamper watch, and probe evidence sealed as it is taken.

Why it exists: a probe's verdict rests on measurements taken in a process the student's code controls
(memory sharing, inputs changed, a model trained). The guard makes each such measurement either
trustworthy or reported:

- `install()` runs in the zygote before any student code exists. It builds the guard's few functions
  with everything they use bound in their default arguments: reading or changing a function's
  defaults or code raises an audit event, and the audit hook it adds (hooks cannot be removed) reports
  exactly that for the guard's own functions. Its state (the channel, the key, a frame counter) lives
  only there. It also records the trusted modules, classes and builtins, every function, class and
  module of PyTorch and NumPy, and torch's kernels for the
  operations the evidence reader uses.
- `arm()` runs in each forked child after `sandbox.layers.confine()` and before the first student cell, with
  a key the judge sends over the fresh channel. From then on the hook reports, the moment they happen,
  tracing and profiling, ctypes, gc introspection, opening /proc/self/mem, new audit hooks, changes to
  the code or defaults of course, grader, torch or NumPy functions, any touch of the guard's own, code
  passed off as an installed or frozen module's (which the line count would skip), threads started
  while a probe runs, processes started while lines are counted, and saved-tensor hooks pushed over the
  grader's witness. While a probe calls the notebook's code, every other event
  too must be one `autograder.child.allowlist` allows, or the call ends and the event is reported.
- `run_probe()` runs a registered probe. The probe's steps (`course.probes`) call the student's code,
  then take evidence in a sealed section: signals blocked, gc off, torch function handling off, and
  first a check that no other thread, trace or profile function, torch dispatch mode or replaced
  kernel exists, that nothing of the notebook's is set to run later (a timer, a signal handler, a gc
  callback), and that the trusted modules, classes and builtins, and PyTorch's and NumPy's
  behaviour, are as they were. The evidence
  reader (`course.probes.evidence`) only reads exact types through C-level accessors. No frame that
  is live while the student's function runs holds the guard's state, only the steps may take a step,
  and a frame reached for from the notebook's code while a probe runs is reported.
- Every report leaves the process as soon as it is made, as a frame authenticated with the key
  (keyed BLAKE2b) and numbered: what the student's code does afterwards cannot change it; a frame it
  writes itself fails the check; a frame it makes the guard send twice, or keeps from being sent,
  shows as a wrong count. `wire.seal.open_frame` is the judge's side.

What remains (code that reads or writes the process's raw memory without ctypes, for instance through
NumPy's array interface, can reach the key and the guard's state) is said in docs/security.md.
"""

from __future__ import annotations

import _imp
import _signal
import _thread
import gc
import itertools
import operator
import os
import signal
import sys
import threading  # noqa: F401 - THREAD_STARTS reads its table from sys.modules
import types
from importlib.machinery import ModuleSpec
from typing import Any, Callable

import numpy as np
import torch

from autograder.child import allowlist
from autograder.child.allowlist import FRAME_ATTRIBUTES
from autograder.wire.frames import MAGIC, VERSION, PREFIX as FRAME_PREFIX
from autograder.wire.seal import TamperDetected, mac
from course.probes import evidence as _ev

WATCHED_EVENTS = frozenset(
    {
        "sys.settrace",
        "sys.setprofile",
        "sys._current_frames",
        "sys.addaudithook",
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
    }
)
CODE_ATTRIBUTES = frozenset({"__code__", "__defaults__", "__kwdefaults__"})
WATCHED_PACKAGES = frozenset({"course", "autograder", "torch", "numpy"})
PROTECTED_PREFIXES = ("course", "autograder")
LIBRARY_MODULES = ("builtins",)
# PyTorch and NumPy add attributes as they warm up (a submodule imported on first use) and keep state in
# others (counters, flags): their tables may grow and their state change; their behaviour must stay.
GROWING_PACKAGES = ("torch", "numpy")
CLASS_CACHES = frozenset({"__slotnames__"})  # copyreg caches a class's slot names on it when it is first pickled
# `warnings` keeps, in the globals of the module whose code raised a warning, which warnings it has shown
MODULE_CACHES = frozenset({"__warningregistry__"})
SAFE_OPS = (
    "aten::_to_copy",
    "aten::copy_",
    "aten::view.dtype",
    "aten::resolve_conj",
    "aten::resolve_neg",
    "aten::detach",
)
WITNESS_FUNCTIONS = ("_pop_saved_tensors_default_hooks", "_saved_tensors_hooks_disable")
WITNESS_PUSH = "_push_saved_tensors_default_hooks"  # hooks pushed over the witness would take its tensors
WITNESS_TOP = "_top_saved_tensors_default_hooks"  # shows the stack's top: the witness must not show there
# While lines are counted, the count must see every line the notebook's code runs: work handed to another
# thread or process would not be counted, so starting one then is reported.
THREAD_STARTS = (("_thread", "start_new_thread"), ("_thread", "start_new"), ("threading", "_start_new_thread"))
# Nothing of the notebook's may be left to run after a probed call, when the evidence has been taken: no
# timer armed, no signal handler of its own (a process it started can signal later), no gc callback.
SIGNALS = tuple(sorted(_signal.valid_signals()))
TIMERS = (_signal.ITIMER_REAL, _signal.ITIMER_VIRTUAL, _signal.ITIMER_PROF)
PROCESS_EVENTS = frozenset(
    {"os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.exec", "os.system", "subprocess.Popen"}
)


# ---------------------------------------------------------------- evidence as wire nodes


class _Encoded:
    """A snapshot already turned into a wire node, its buffers kept beside it."""

    __slots__ = ("node", "buffers")

    def __init__(self, node: dict, buffers: list):
        self.node = node
        self.buffers = buffers


class SealedSnapshots(_ev.Snapshots):
    """`Snapshots` whose `snap` encodes at once: the value as it is at that instant, in the wire's schema."""

    def snap(self, value: Any, depth: int = 0) -> Any:
        buffers: list = []
        return _Encoded(self.node(value, buffers, depth), buffers)

    def node(
        self,
        value: Any,
        buffers: list,
        depth: int = 0,
        *,
        _type=type,
        _hex=float.hex,
        _str=str,
        _len=len,
        _list=list,
        _int=int,
        _tobytes=np.ndarray.tobytes,
        _generic_tobytes=np.generic.tobytes,
        _scalars=_ev.NUMPY_SCALARS,
        _dtype_repr=torch.dtype.__repr__,
        _device_str=torch.device.__str__,
    ) -> dict:
        if depth > 64:
            return {"t": "opaque", "type": "deeply nested value"}
        kind = _type(value)
        if value is None:
            return {"t": "none"}
        if kind is bool:
            return {"t": "bool", "v": value}
        if kind is int:
            return {"t": "int", "v": _str(value)} if -(10**4000) < value < 10**4000 else {"t": "opaque", "type": "int"}
        if kind is float:
            return {"t": "float", "v": _hex(value)}
        if kind is complex:
            return {"t": "complex", "v": [_hex(value.real), _hex(value.imag)]}
        if kind is str:
            return {"t": "str", "v": value[: 1 << 20]}
        if kind is bytes:
            buffers.append(value)
            return {"t": "bytes", "buf": _len(buffers) - 1}
        if kind is list or kind is tuple:
            return {"t": "list" if kind is list else "tuple", "v": [self.node(v, buffers, depth + 1) for v in value]}
        if kind is dict:
            keys = _list(value)
            if not all(_type(k) in (str, int, bool, float, type(None)) for k in keys):
                return {"t": "opaque", "type": "dict"}
            return {
                "t": "dict",
                "k": [self.node(k, buffers, depth + 1) for k in keys],
                "v": [self.node(value[k], buffers, depth + 1) for k in keys],
            }
        if kind is _Encoded:
            base = _len(buffers)
            buffers.extend(value.buffers)
            return _renumber(value.node, base) if base else value.node
        if kind is np.ndarray:
            if not _ev.array_plain(value):
                return {"t": "opaque", "type": "numpy.ndarray"}
            data = _ev.array_copy(value)
            buffers.append(_tobytes(data))
            return {
                "t": "ndarray",
                "dtype": data.dtype.str,
                "shape": _list(data.shape),
                "strides": _list(data.strides),
                "offset": 0,
                "buf": _len(buffers) - 1,
            }
        if kind in _scalars:
            buffers.append(_generic_tobytes(value))
            return {"t": "npscalar", "dtype": _scalars[kind], "buf": _len(buffers) - 1}
        if kind is torch.Size:
            return {"t": "size", "v": [_int(v) for v in value]}
        if kind is torch.dtype:
            return {"t": "dtype", "v": _dtype_repr(value).replace("torch.", "")}
        if kind is torch.device:
            return {"t": "device", "v": _device_str(value)}
        if kind is torch.Tensor or kind is torch.nn.Parameter:
            return self._tensor_node(value, buffers, depth)
        return {"t": "opaque", "type": _ev.type_name(value)}

    def _tensor_node(
        self,
        value: Any,
        buffers: list,
        depth: int,
        *,
        _tobytes=np.ndarray.tobytes,
        _TB=_ev.TensorBase,
        _off=torch._C.DisableTorchFunction,
        _type=type,
        _list=list,
        _len=len,
    ) -> dict:
        meta = _ev.tensor_meta(value)
        if not meta["layout_ok"]:
            return {"t": "opaque", "type": "torch.Tensor (not strided)"}
        data = _ev.tensor_bytes(value)
        strides, step = [], 1
        for size in reversed(meta["shape"]):
            strides.append(step)
            step *= max(size, 1)
        strides.reverse()
        node = {
            "t": "tensor",
            "dtype": meta["dtype"],
            "shape": _list(meta["shape"]),
            "stride": strides,
            "offset": 0,
            "device": meta["device"],
            "requires_grad": meta["requires_grad"],
            "is_leaf": meta["is_leaf"],
            "grad_fn": meta["grad_fn"],
            "grad": None,
            "buf": None,
        }
        if data is not None:
            buffers.append(data)
            node["buf"] = _len(buffers) - 1
        if meta["is_leaf"]:
            with _off():
                grad = _TB.grad.__get__(value)
            if grad is not None:
                node["grad"] = (
                    self._tensor_node(grad, buffers, depth + 1)
                    if _type(grad) is torch.Tensor
                    else {"t": "opaque", "type": "grad"}
                )
        return node


def _renumber(node: Any, base: int, *, _type=type) -> Any:
    if _type(node) is dict:
        out = {k: _renumber(v, base) for k, v in node.items()}
        if _type(out.get("buf")) is int and out.get("t") in ("bytes", "ndarray", "npscalar", "tensor"):
            out["buf"] += base
        return out
    if _type(node) is list:
        return [_renumber(v, base) for v in node]
    return node


# ---------------------------------------------------------------- what must not change


def _protected_tables() -> tuple[tuple, tuple]:
    """(entries, sizes): (dict, key, value) triples whose identity must hold, and (dict, size, is a
    package) for dicts that must not grow: a package may gain submodules as they are imported, and
    nothing else (a new name in a module's table would shadow the builtin its functions look up).

    The course's and the grader's modules and classes must stay exactly as loaded, and so must builtins,
    which their code looks up by name. PyTorch and NumPy are watched by `_library_tables`, which lets
    them grow and keep state.
    """
    entries: list = []
    sizes: list = []
    for name, module in sorted(sys.modules.items()):
        if not isinstance(module, types.ModuleType):
            continue
        ours = name.split(".")[0] in PROTECTED_PREFIXES
        if not ours and name not in LIBRARY_MODULES:
            continue
        table = vars(module)
        entries += [(table, key, value) for key, value in list(table.items())]
        if ours:
            sizes.append((table, len(table), hasattr(module, "__path__")))
            for value in list(table.values()):
                if isinstance(value, type) and value.__module__ == name:
                    entries += [(value.__dict__, k, v) for k, v in value.__dict__.items()]
                    sizes.append((value.__dict__, len(value.__dict__), False))
        entries.append((sys.modules, name, module))
    return tuple(entries), tuple(sizes)


CODE_TYPES = (
    type,
    types.ModuleType,
    property,
    classmethod,
    staticmethod,
    types.MemberDescriptorType,
    types.GetSetDescriptorType,
)


def _is_code(value: Any) -> bool:
    """Whether a library attribute is behaviour (a function, a class, a module, a descriptor) rather than
    state: PyTorch keeps counters, flags and caches in module and class attributes and changes them as
    it runs (`RemovableHandle.next_id` with every hook), so only behaviour must stay as loaded. Asks the
    value's type only: reading an attribute of the value itself can warn or import."""
    return callable(value) or issubclass(type(value), CODE_TYPES)


def _identical(a: tuple, b: tuple, _len=len, _all=all, _map=map, _is=operator.is_) -> bool:
    """The same objects in the same order, compared by identity: no `__eq__` of the notebook's runs."""
    return _len(a) == _len(b) and _all(_map(_is, a, b))


def _is_module_value(value: Any, _type=type, _sub=issubclass, _module=types.ModuleType) -> bool:
    """By the value's type alone (isinstance would ask the value's own `__class__`, which can be code)."""
    return _sub(_type(value), _module)


def _library_tables() -> tuple:
    """(table, lookup, keys, code keys, code values, is a class, name) of every loaded PyTorch and NumPy
    module and of every class they define: what the judge's scenarios and the course's references run.
    Patching `torch.nn.Module.train` or `torch.full_like` raises no audit event, so before each piece
    of evidence every name must still be there in its place, every name that held behaviour must hold
    the same object, a class must gain no name but copyreg's cache (a new one would shadow a base
    class's) and a module only submodules (any other name could shadow a builtin its functions use)."""
    tables: list = []
    seen: set = set()
    for name, module in sorted(sys.modules.items()):
        if not isinstance(module, types.ModuleType) or name.split(".")[0] not in GROWING_PACKAGES:
            continue
        found = [(vars(module), False, name)]
        for value in tuple(vars(module).values()):
            # the class's own table, by type's descriptor: an attribute of the value could warn or import
            if not issubclass(type(value), type) or id(value) in seen:
                continue
            owned = type.__dict__["__dict__"].__get__(value)
            if owned.get("__module__") == name:
                seen.add(id(value))
                found.append((owned, True, f"{name}.{value.__name__}"))
        for table, is_class, owner in found:
            kept = [(key, value) for key, value in tuple(table.items()) if _is_code(value)]
            keys, values = zip(*kept) if kept else ((), ())
            tables.append((table, table.__getitem__, tuple(table), keys, values, is_class, owner))
    return tuple(tables)


def _library_change(table: Any, keys: tuple, code_keys: tuple, values: tuple, is_class: bool) -> str:
    """What changed in a library table (only called once a change is seen, to say it)."""
    now = list(table)
    for k, key in enumerate(keys):
        if k >= len(now) or now[k] is not key:
            return f"{key} was removed"
    for key, value in zip(code_keys, values):
        if table.get(key, table) is not value:
            return f"{key} was replaced"
    added = [
        key
        for key in now[len(keys) :]
        if (key not in CLASS_CACHES if is_class else not _harmless_module_addition(table, key))
    ]
    return f"{added[0] if added else '?'} was added"


DICT_VERSION_OFFSET = 24  # CPython 3.11's PyDictObject: refcount, type, ma_used, then ma_version_tag


def _dict_versions(tables: tuple) -> tuple | None:
    """A reader of each library table's dict version (PEP 509: CPython gives a dict a new version
    whenever it is changed, and no Python code can set one), or None where this CPython's layout is not
    the one checked here. Reading a version writes nothing: a forked child then checks PyTorch's and
    NumPy's tables without copying their memory (touching every attribute costs a child 40 ms and 40 MB).
    """
    import ctypes

    if sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11):
        return None

    def reader(table: dict) -> Any:
        return ctypes.c_uint64.from_address(id(table) + DICT_VERSION_OFFSET)

    probe: dict = {}
    before = reader(probe).value
    probe["changed"] = True
    if reader(probe).value == before:
        return None
    readers = []
    for entry in tables:
        table = entry[0]
        if not isinstance(table, dict):  # a class's mappingproxy: the dict it shows
            table = next(d for d in gc.get_referents(table) if type(d) is dict)
        readers.append(reader(table))
    return tuple(readers)


def _harmless_module_addition(
    table: Any,
    key: Any,
    submodules: bool = True,
    _type=type,
    _str=str,
    _is_module=_is_module_value,
    _caches=MODULE_CACHES,
) -> bool:
    """A name a module may gain: a submodule as it is imported (a package's), or the warnings registry (a
    warning raised from its code); the key's type is checked first, so no object of the notebook's is compared."""
    return (submodules and _is_module(table[key])) or (_type(key) is _str and key in _caches)


def _harmless_module_additions(
    table: Any, start: int, submodules: bool = True, _islice=itertools.islice, _ok=_harmless_module_addition
) -> bool:
    """Whether every name a module gained after its first `start` names is harmless."""
    for key in _islice(table, start, None):
        if not _ok(table, key, submodules):
            return False
    return True


def _library_problems(
    tables: tuple,
    _len=len,
    _all=all,
    _map=map,
    _is=operator.is_,
    _islice=itertools.islice,
    _is_module=_is_module_value,
    _is_cache=CLASS_CACHES.__contains__,
    _module_ok=_harmless_module_additions,
    _change=_library_change,
) -> list:
    """What changed in the library tables `_library_tables` recorded, name by name (about 11 ms for all
    4,400 tables of PyTorch and NumPy; `_changed_tables` asks it only about those whose dict version
    moved). Its primitives are bound here, as the guard's are."""
    problems = []
    for table, lookup, keys, code_keys, values, is_class, name in tables:
        try:
            same = (
                _len(table) >= _len(keys)
                and _all(_map(_is, table, keys))
                and _all(_map(_is, _map(lookup, code_keys), values))
            )
        except (KeyError, RuntimeError):
            same = False
        if same and _len(table) > _len(keys):
            if is_class:
                same = _all(_map(_is_cache, _islice(table, _len(keys), None)))
            else:
                same = _module_ok(table, _len(keys))
        if not same:
            problems.append(f"{name}.{_change(table, keys, code_keys, values, is_class)}")
            if _len(problems) > 8:
                break
    return problems


def _changed_tables(
    tables: tuple,
    versions: tuple | None,
    seen: list,
    _len=len,
    _range=range,
    _problems=_library_problems,
) -> list:
    """What changed in the library tables: only those whose dict version moved since the last look are
    checked name by name (a table whose state changed, and nothing else, takes its new version)."""
    if versions is None:
        return _problems(tables)
    now = [reader.value for reader in versions]
    if now == seen:
        return []
    problems: list = []
    for k in _range(_len(now)):
        if now[k] != seen[k]:
            found = _problems((tables[k],))
            if found:
                problems += found
            else:
                seen[k] = now[k]
    return problems


def _owner(table: Any) -> str:
    if table is sys.modules:
        return "sys.modules"
    name = table.get("__name__") if isinstance(table, dict) else None
    if isinstance(name, str):
        return name
    qualname = table.get("__qualname__") if hasattr(table, "get") else None
    return qualname if isinstance(qualname, str) else "a class"


# ---------------------------------------------------------------- install, arm, run


_ENTRY: dict[str, Any] = {}


def install(*, exempt: dict[str, tuple] | None = None) -> None:
    """In the zygote, once every trusted module is imported: build the guard and add its audit hook.

    `exempt` maps an audit event prefix ("ctypes") to grader functions allowed to raise it (the wire's
    array copy reads memory with ctypes, for instance).

    Long because the guard's parts are closures defined here, each taking the shared state, the original
    functions it calls and the other parts as default arguments, bound once before any student code runs;
    as module functions they would look up globals that student code can rebind.
    """
    if _ENTRY:
        return
    from json.encoder import c_make_encoder, encode_basestring_ascii

    from torch.utils._python_dispatch import TorchDispatchMode

    from course import probes
    from course.probes.opwatch import OpWatch
    from course.probes.steps import Step

    def refuse(value: Any) -> Any:
        raise TypeError("not plain data")

    encode = c_make_encoder(None, refuse, encode_basestring_ascii, None, ":", ",", False, False, False)
    autograd_c = torch._C._autograd
    real_top = autograd_c._top_saved_tensors_default_hooks
    library = _ev.library_prefixes()
    steps_prefixes = tuple({os.path.join(p, "") for d in probes.__path__ for p in (d, os.path.realpath(d))})

    class State:
        """What the guard's parts share, each part holding it as a default argument (a local class: no
        module global names it, and no frame that is live while student code runs holds it)."""

        __slots__ = (
            "fd", "key", "sent", "armed", "busy", "counting", "channel", "witness", "senders", "own", "watch",
            "probing", "probe_frame", "request", "saved", "lines", "calls", "returns", "lines_off", "tally", "ops",
            "below", "later",
        )  # fmt: skip

        def __init__(self) -> None:
            self.fd = -1  # the channel's file descriptor, once armed
            self.key = b""  # the MAC key evidence is sealed with
            self.sent = 0  # frames sent: each frame's number
            self.armed = False
            self.busy = 0  # depth of the guard's own work, whose events are not the student's
            self.counting = None  # the tracer, while a probe counts Python lines
            self.channel = None  # (st_dev, st_ino) of the channel, to notice it replaced
            self.witness = None  # the saved-tensor hooks (pack, unpack) a probe pushed
            self.senders = frozenset()  # code objects allowed to send frames
            self.own = frozenset()  # ids of the guard's own functions
            self.watch = None  # the operation watch a probe entered
            self.probing = False  # while a probe's steps run
            self.probe_frame = None  # run_probe's frame then: a step is only taken by the probe's own steps
            self.request = 0  # the probe's request number
            self.saved = 0  # tensors autograd saved while the witness was on
            self.lines = 0  # Python lines counted
            self.calls = 0  # frames of the notebook's code entered while counting, and left
            self.returns = 0
            self.lines_off = False  # a counted frame turned its own line events off
            self.tally = None  # the dispatch mode counting a call's operations, while a probe counts its work
            self.ops = 0  # operations that reached the dispatcher while it was on
            self.below = None  # the saved-tensor hooks on top when the witness was pushed over them
            self.later = ((), ())  # `later()` when the guard was armed, before any student code

    S = State()

    class Tally(TorchDispatchMode):
        """Counts every operation that reaches the dispatcher while a probe counts a call's work. The count
        is kept in the guard's state, not on the mode, which the notebook's code can reach on the stack."""

        def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None, _S=S):
            _S.ops += 1
            return func(*args, **(kwargs or {}))

    def frame(
        payload: dict,
        buffers: list,
        _S=S,
        _write=os.write,
        _encode=encode,
        _join="".join,
        _pack=FRAME_PREFIX.pack,
        _mac=mac,
        _len=len,
        _getframe=sys._getframe,
        _dict=dict,
        _str=str,
        _memoryview=memoryview,
        _tamper=TamperDetected,
    ) -> None:
        if _getframe(1).f_code not in _S.senders:
            raise _tamper("the notebook's code tried to send a report in the grader's name")
        _S.sent += 1
        payload = _dict(payload, n=_S.sent)
        body = _join(_encode(payload, 0)).encode("utf-8")
        parts = [body, *buffers]
        seal = _mac(_S.key, parts)
        header = ('{"sealed":true,"b":[' + ",".join(_str(_len(p)) for p in [*parts, seal]) + "]}").encode("ascii")
        view = _memoryview(b"".join([_pack(MAGIC, VERSION, _len(header)), header, *parts, seal]))
        while view:
            view = view[_write(_S.fd, view) :]

    def emit(event: str, detail: str, _S=S, _frame=frame, _str=str) -> None:
        if not _S.armed or _S.fd < 0:
            return
        _S.busy += 1
        try:
            _frame({"kind": "tamper", "event": _str(event)[:100], "detail": _str(detail)[:500]}, [])
        except OSError:
            pass
        finally:
            _S.busy -= 1

    def guarded(name: str, original: Callable, _S=S, _emit=emit, _top=real_top) -> Callable:
        def wrapper(*args: Any, _original=original, _S=_S, _emit=_emit, _top=_top, _name=name) -> Any:
            if _S.armed and not _S.busy and _S.witness is not None:
                top = _top(True)
                if top is not None and top[0] is _S.witness[0]:
                    _emit(f"torch._C._autograd.{_name}", "the notebook's code removed the grader's saved-tensor hook")
            return _original(*args)

        wrapper.__name__ = wrapper.__qualname__ = name
        return wrapper

    def pushing(original: Callable, _S=S, _emit=emit) -> Callable:
        def _push_saved_tensors_default_hooks(*args: Any, _original=original, _S=_S, _emit=_emit) -> Any:
            if _S.armed and not _S.busy and _S.witness is not None:
                _emit(
                    "torch._C._autograd._push_saved_tensors_default_hooks",
                    "the notebook's code put saved-tensor hooks of its own over the grader's",
                )
            return _original(*args)

        return _push_saved_tensors_default_hooks

    def _top_saved_tensors_default_hooks(*args: Any, _original=real_top, _S=S) -> Any:
        """The stack's top as it would be without the witness: a function that behaved only while the
        grader's hook is on top would otherwise tell a probed call from any other."""
        top = _original(*args)
        witness = _S.witness
        if witness is not None and top is not None and top[0] is witness[0]:
            return _S.below
        return top

    push_hooks = autograd_c._push_saved_tensors_default_hooks
    wrappers = {name: guarded(name, getattr(autograd_c, name)) for name in WITNESS_FUNCTIONS}
    wrappers[WITNESS_PUSH] = pushing(push_hooks)
    wrappers[WITNESS_TOP] = _top_saved_tensors_default_hooks
    for name, wrapper in wrappers.items():
        setattr(autograd_c, name, wrapper)

    def starting(where: str, original: Callable, _S=S, _emit=emit) -> Callable:
        def wrapper(*args: Any, _original=original, _S=_S, _emit=_emit, _where=where, **kwargs: Any) -> Any:
            if _S.armed and not _S.busy and (_S.probing or _S.counting is not None):
                _emit(_where, "the notebook's code started a thread while a probe called it")
            return _original(*args, **kwargs)

        wrapper.__name__ = wrapper.__qualname__ = where.rpartition(".")[2]
        return wrapper

    def create_builtin(
        spec: Any,
        _original=_imp.create_builtin,
        _S=S,
        _emit=emit,
        _type=type,
        _str=str,
        _spec_type=ModuleSpec,
        _modules=sys.modules,
    ) -> Any:
        """`_imp.create_builtin`, reporting a second copy of a built-in module (a `_thread` without the wrappers)."""
        if _S.armed and not _S.busy:
            if _type(spec) is not _spec_type:
                _emit("_imp.create_builtin", "the notebook's code made a built-in module from a spec of its own")
                raise TypeError("create_builtin() expects a ModuleSpec")
            name = spec.name
            if _type(name) is _str and name in _modules:
                _emit("_imp.create_builtin", f"the notebook's code made a second copy of the built-in module {name}")
        return _original(spec)

    replaced: list = [(vars(_imp), "create_builtin", create_builtin)]
    for module, name in THREAD_STARTS:
        table = vars(sys.modules[module])
        if name in table:
            replaced.append((table, name, starting(f"{module}.{name}", table[name])))
    for table, name, wrapper in replaced:
        table[name] = wrapper

    entries, sizes = _protected_tables()
    entries += tuple(replaced)
    library_tables = _library_tables()
    library_versions = _dict_versions(library_tables)
    library_seen = [reader.value for reader in library_versions] if library_versions else []

    def library_check(
        _tables=library_tables,
        _versions=library_versions,
        _seen=library_seen,
        _changed=_changed_tables,
    ) -> list:
        return _changed(_tables, _versions, _seen)

    dispatch = tuple((op, torch._C._dispatch_dump(op)) for op in SAFE_OPS)
    actions = tuple(probes.SEALED_ACTIONS)
    action_ids = frozenset(id(a) for a in actions)
    registry = types.MappingProxyType(dict(probes.REGISTRY))
    refusal = allowlist.refusal_for(library)
    exempt_codes = {event: frozenset(f.__code__ for f in funcs) for event, funcs in (exempt or {}).items()}

    def hook(
        event: str,
        args: tuple,
        _S=S,
        _emit=emit,
        _type=type,
        _func=types.FunctionType,
        _str=str,
        _bytes=bytes,
        _getframe=sys._getframe,
        _watched=WATCHED_EVENTS,
        _code_attrs=CODE_ATTRIBUTES,
        _packages=WATCHED_PACKAGES,
        _exempt=exempt_codes,
        _library=library,
        _id=id,
        _processes=PROCESS_EVENTS,
        _frames=FRAME_ATTRIBUTES,
        _refusal=refusal,
        _tamper=TamperDetected,
    ) -> None:
        """The audit hook: the allow-list while a probe calls the notebook's code, then the deny rules.
        Long because every name it uses is bound in its defaults, one line each, and an audit hook, once
        added, cannot be replaced by a smaller one."""
        if not _S.armed or _S.busy:
            return
        _S.busy += 1
        try:
            if _S.probing and not event.startswith("ctypes."):
                reason = _refusal(event, args, _getframe(1), _S.probe_frame)
                if reason is not None:
                    _emit(event, reason)
                    raise _tamper(reason)
            if event in _watched:
                _emit(event, f"the notebook's code called {event}")
            elif event.startswith("ctypes."):
                caller = _getframe(1)
                while caller is not None and "/ctypes/" in caller.f_code.co_filename:
                    caller = caller.f_back
                if caller is None or caller.f_code not in _exempt.get("ctypes", ()):
                    _emit(event, "the notebook's code used ctypes, which can rewrite the process's memory")
            elif event == "open" and args:
                path = args[0]
                if _type(path) is _bytes:
                    path = path.decode("utf-8", "replace")
                if _type(path) is _str and path.rstrip("/").rpartition("/")[2] == "mem":
                    _emit(event, f"the notebook's code opened {path}, the process's raw memory")
            elif event == "compile" and len(args) > 1 and _type(args[1]) is _str and args[1].startswith(_library):
                caller = _getframe(1)
                if caller is not None and not caller.f_code.co_filename.startswith(_library):
                    _emit(event, f"the notebook's code compiled code under the name of an installed file ({args[1]})")
            elif event == "code.__new__" and len(args) > 1 and _type(args[1]) is _str and args[1].startswith(_library):
                caller = _getframe(1)
                if caller is None or not caller.f_code.co_filename.startswith(_library):
                    _emit(
                        event, f"the notebook's code made a code object under the name of an installed file ({args[1]})"
                    )
            elif event == "marshal.loads":
                caller = _getframe(1)
                code = caller.f_code if caller is not None else None
                where = code.co_filename if code is not None else ""
                if not where.startswith(_library):
                    _emit(event, "the notebook's code turned bytes into code with marshal")
                elif where.startswith("<frozen importlib") and code.co_name == "_compile_bytecode":
                    found = caller.f_locals
                    path = found.get("bytecode_path")
                    if found.get("source_path") is None and not (_type(path) is _str and path.startswith(_library)):
                        _emit(event, f"the notebook's code imported bytecode without its source ({path})")
                elif where.startswith("<frozen zipimport"):
                    path = caller.f_locals.get("pathname")
                    if not (_type(path) is _str and path.startswith(_library)):
                        _emit(event, f"the notebook's code imported bytecode from a zip archive ({path})")
            elif _S.probing and (event == "sys._getframe" or (event == "object.__getattr__" and args[1] in _frames)):
                caller = _getframe(1)
                if caller is not None and not caller.f_code.co_filename.startswith(_library):
                    _emit(event, "the notebook's code reached for a stack frame while a probe ran")
            elif event in _processes and _S.counting is not None:
                _emit(event, "the notebook's code started a process while its Python lines were counted")
            elif (
                event in ("object.__setattr__", "object.__delattr__", "object.__getattr__") and _type(args[0]) is _func
            ):
                target, name = args[0], args[1]
                if _id(target) in _S.own:
                    _emit(event, f"the notebook's code touched the grader's own function ({name})")
                elif event != "object.__getattr__" and name in _code_attrs:
                    module = target.__module__
                    if _type(module) is _str and module.split(".")[0] in _packages:
                        _emit(event, f"the notebook's code replaced {name} of {module}.{target.__qualname__}")
        finally:
            _S.busy -= 1

    def later(_getsignal=_signal.getsignal, _signals=SIGNALS, _callbacks=gc.callbacks, _tuple=tuple, _map=map) -> tuple:
        """(every signal's handler, gc's callbacks): what of the notebook's could run once evidence is taken."""
        return _tuple(_map(_getsignal, _signals)), _tuple(_callbacks)

    def verify(
        _S=S,
        _entries=entries,
        _sizes=sizes,
        _library_check=library_check,
        _dispatch=dispatch,
        _gettrace=sys.gettrace,
        _getprofile=sys.getprofile,
        _threads=_thread._count,
        _dispatch_len=torch._C._len_torch_dispatch_stack,
        _dump=torch._C._dispatch_dump,
        _fstat=os.fstat,
        _hooks_enabled=autograd_c._saved_tensors_hooks_is_enabled,
        _top=real_top,
        _owner=_owner,
        _len=len,
        _all=all,
        _map=map,
        _module_ok=_harmless_module_additions,
        _getitimer=_signal.getitimer,
        _timers=TIMERS,
        _later=later,
        _identical=_identical,
    ) -> list:
        problems = []
        if _gettrace() is not _S.counting or _getprofile() is not None:
            problems.append("a trace or profile function is installed")
        if not _all(_getitimer(timer) == (0.0, 0.0) for timer in _timers):
            problems.append("the notebook's code set a timer")
        (handlers, callbacks), (armed_handlers, armed_callbacks) = _later(), _S.later
        if not _identical(handlers, armed_handlers):
            problems.append("the notebook's code changed a signal's handler")
        if not _identical(callbacks, armed_callbacks):
            problems.append("the notebook's code changed gc's callbacks")
        if _threads() != 0:
            problems.append("the notebook's code started a thread")
        if _dispatch_len() != 0:
            problems.append("a torch dispatch mode is active")
        if not _hooks_enabled():
            problems.append("autograd's saved-tensor hooks were switched off")
        if _S.witness is not None:
            top = _top(True)
            if top is None or top[0] is not _S.witness[0]:
                problems.append("the grader's saved-tensor hook was removed")
        for op, dump in _dispatch:
            if _dump(op) != dump:
                problems.append(f"a kernel of {op} was replaced")
        for table, key, value in _entries:
            if table.get(key, table) is not value:
                problems.append(f"{_owner(table)}.{key} was replaced or removed")
                if _len(problems) > 8:
                    break
        for table, size, package in _sizes:
            now = _len(table)
            if now != size and not (now > size and _module_ok(table, size, package)):
                problems.append(f"{_owner(table)} gained or lost names")
        problems += _library_check()
        try:
            stat = _fstat(_S.fd)
            if (stat.st_dev, stat.st_ino) != _S.channel:
                problems.append("the grader's channel was replaced")
        except OSError:
            problems.append("the grader's channel was closed")
        return problems

    def sealed(
        action: Callable,
        objects: tuple,
        _S=S,
        _verify=verify,
        _actions=action_ids,
        _mask=signal.pthread_sigmask,
        _block=signal.SIG_BLOCK,
        _setmask=signal.SIG_SETMASK,
        _all=signal.valid_signals,
        _gc_off=gc.disable,
        _gc_on=gc.enable,
        _gc_enabled=gc.isenabled,
        _off=torch._C.DisableTorchFunction,
        _snapshots=SealedSnapshots,
        _id=id,
    ) -> tuple:
        old_mask = _mask(_block, _all())
        was_enabled = _gc_enabled()
        _gc_off()
        _S.busy += 1
        try:
            problems = _verify()
            if _id(action) not in _actions:
                problems.append("a probe step that is not the grader's own was asked to run")
            if problems:
                return None, problems
            with _off():
                snaps = _snapshots()
                result = action(snaps, *objects)
                buffers: list = []
                return (snaps.node(result, buffers), buffers), []
        finally:
            _S.busy -= 1
            if was_enabled:
                _gc_on()
            _mask(_setmask, old_mask)

    def clean(
        _S=S,
        _settrace=sys.settrace,
        _pop=wrappers["_pop_saved_tensors_default_hooks"],
        _top=real_top,
        _modes=torch._C._len_torch_dispatch_stack,
        _mode_at=torch._C._get_dispatch_stack_at,
        _pop_mode=torch._C._pop_torch_dispatch_stack,
    ) -> None:
        """Undo what a probe set up (line counting, the saved-tensor witness, the operation watch and tally)."""
        _S.busy += 1
        try:
            for mode in (_S.watch, _S.tally):
                if mode is not None and _modes() and _mode_at(_modes() - 1) is mode:
                    _pop_mode(None)
            _S.watch = _S.tally = None
            if _S.counting is not None:
                _settrace(None)
                _S.counting = None
            if _S.witness is not None:
                current = _top(True)
                if current is not None and current[0] is _S.witness[0]:
                    _pop()
                _S.witness = _S.below = None
        finally:
            _S.busy -= 1

    def pack(tensor: Any, _S=S, _detach=torch._C.TensorBase.detach) -> Any:
        _S.saved += 1
        return _detach(tensor)  # the tensor itself would make a reference cycle through its grad_fn

    def unpack(tensor: Any) -> Any:
        return tensor

    def local(frame_: Any, event: str, arg: Any, _S=S) -> Any:
        if event == "line":
            _S.lines += 1
        elif event == "return":
            _S.returns += 1
            if not frame_.f_trace_lines:
                _S.lines_off = True
        return local

    def tracer(frame_: Any, event: str, arg: Any, _S=S, _local=local, _library=library) -> Any:
        if event != "call" or frame_.f_code.co_filename.startswith(_library):
            return None
        _S.calls += 1
        return _local

    def refused(what: str, detail: str, _S=S, _frame=frame, _tamper=TamperDetected) -> BaseException:
        _frame({"kind": "tamper", "event": what, "detail": detail, "req": _S.request}, [])
        return _tamper(detail)

    def sealer(
        command: str,
        *rest: Any,
        _S=S,
        _sealed=sealed,
        _frame=frame,
        _refused=refused,
        _settrace=sys.settrace,
        _push=push_hooks,
        _top=real_top,
        _hooks=(pack, unpack),
        _tracer=tracer,
        _steps=steps_prefixes,
        _getframe=sys._getframe,
        _tuple=tuple,
        _waitid=os.waitid,
        _P_ALL=os.P_ALL,
        _WAIT_FLAGS=os.WEXITED | os.WNOHANG | os.WNOWAIT,
        _watch=OpWatch,
        _tally=Tally,
        _step=Step,
        _push_mode=torch._C._push_on_torch_dispatch_stack,
        _pop_mode=torch._C._pop_torch_dispatch_stack,
        _modes=torch._C._len_torch_dispatch_stack,
        _mode_at=torch._C._get_dispatch_stack_at,
        _list=list,
        _type=type,
        _str=str,
    ) -> Any:
        """A probe's step: seal evidence, or start or stop a witness, a line count or an operation watch.
        Only the running probe's own steps may take one (code in `course/probes` called by `run_probe`).

        Long because each command is one branch over the same bound names (see `install`)."""
        _S.busy += 1
        try:
            caller = _getframe(1)
            while caller is not None and caller.f_code.co_filename.startswith(_steps):
                caller = caller.f_back
            if not _S.probing or caller is None or caller is not _S.probe_frame:
                raise _refused("step", "the notebook's code took one of a probe's steps itself")
            if command == _step.SEAL:
                encoded, problems = _sealed(rest[0], _tuple(rest[1:]))
                if problems:
                    raise _refused("check", "; ".join(problems)[:1000])
                node, buffers = encoded
                extra = {"saved_tensors": _S.saved} if _S.witness is not None else {}
                _frame({"kind": "evidence", "req": _S.request, "value": node, **extra}, buffers)
            elif command == _step.WITNESS:
                _S.saved = 0
                _S.below = _top(True)
                _push(*_hooks)
                _S.witness = _hooks
            elif command == _step.COUNT:
                try:
                    _waitid(_P_ALL, 0, _WAIT_FLAGS)
                except ChildProcessError:
                    pass
                else:
                    raise _refused(
                        "count", "a process the notebook's code started was running when its Python lines were counted"
                    )
                if _modes() != 0:
                    raise _refused("count", "a torch dispatch mode was active when the grader started counting")
                _S.lines = _S.calls = _S.returns = _S.ops = 0
                _S.lines_off = False
                _S.tally = _tally()
                _push_mode(_S.tally)
                _S.counting = _tracer
                _settrace(_tracer)
            elif command == _step.LINES:
                _settrace(None)
                counting, _S.counting = _S.counting, None
                tally, _S.tally = _S.tally, None
                if counting is None:
                    return [0, 0]
                if _S.calls != _S.returns or _S.lines_off:
                    raise _refused("count", "the notebook's code stopped its own lines from being counted")
                if _modes() != 1 or _mode_at(0) is not tally:
                    raise _refused("count", "the notebook's code removed or covered the grader's count of operations")
                _pop_mode(None)
                return [_S.lines, _S.ops]
            elif command == _step.OPS:
                if _modes() != 0:
                    raise _refused(
                        "ops", "a torch dispatch mode was active when the grader started watching operations"
                    )
                mode = _watch([name for name in rest[0] if _type(name) is _str])
                _push_mode(mode)
                _S.watch = mode
            elif command == _step.OPS_SEEN:
                mode = _S.watch
                _S.watch = None
                if mode is None:
                    return []
                if _modes() != 1 or _mode_at(0) is not mode:
                    raise _refused("ops", "the notebook's code removed or covered the grader's operation watch")
                _pop_mode(None)
                return _list(mode.seen)
            else:
                raise ValueError(f"unknown probe command {command!r}")
        finally:
            _S.busy -= 1
        return None

    def begin(request: int, _S=S, _getframe=sys._getframe) -> None:
        _S.busy += 1
        try:
            _S.request, _S.probe_frame, _S.probing = request, _getframe(1), True
        finally:
            _S.busy -= 1

    def end(_S=S, _clean=clean) -> None:
        _S.probing, _S.probe_frame = False, None
        _clean()

    def finish(
        outcome: dict,
        _S=S,
        _frame=frame,
        _emit=emit,
        _library_check=library_check,
    ) -> None:
        _S.busy += 1
        try:
            for problem in _library_check():
                _emit("library", problem)
            _frame(outcome, [])
        finally:
            _S.busy -= 1

    def run_probe(
        name: str,
        func: Any,
        args: tuple,
        kwargs: dict,
        request: int,
        _registry=registry,
        _sealer=sealer,
        _begin=begin,
        _end=end,
        _finish=finish,
        _str=str,
        _type_name=_ev.type_name,
        _tamper=TamperDetected,
    ) -> None:
        """Run the probe `name` on the student's `func`: its steps send their evidence, then "done" or "error".
        Its frame, live while the student's code runs, holds nothing secret: the state is in its parts'
        defaults, and reading those is reported."""
        child = _registry.get(name)
        outcome: dict = {"kind": "done", "req": request}
        try:
            _begin(request)
            try:
                if child is None:
                    raise LookupError(f"no such probe: {name!r}")
                child(_sealer, func, *args, **kwargs)
            finally:
                _end()
        except _tamper:
            outcome = {"kind": "aborted", "req": request}
        except BaseException as exc:
            try:
                message = _str(exc)[:4000]
            except BaseException:
                message = "<the error message could not be shown>"
            outcome = {
                "kind": "error",
                "req": request,
                "type": _type_name(exc).rpartition(".")[2][:200],
                "msg": message,
            }
        _finish(outcome)

    def arm(fd: int, key: bytes, _S=S, _fstat=os.fstat, _bytes=bytes, _later=later) -> None:
        if _S.armed:
            raise RuntimeError("the guard is armed already")
        stat = _fstat(fd)
        _S.fd, _S.key, _S.sent, _S.channel = fd, _bytes(key), 0, (stat.st_dev, stat.st_ino)
        _S.later = _later()
        _S.armed = True

    S.senders = frozenset({emit.__code__, sealer.__code__, refused.__code__, finish.__code__})
    own = (
        frame,
        emit,
        hook,
        later,
        refusal,
        verify,
        sealed,
        clean,
        run_probe,
        library_check,
        sealer,
        refused,
        begin,
        end,
        finish,
        pack,
        unpack,
        local,
        tracer,
        Tally.__torch_dispatch__,
        arm,
        guarded,
        starting,
        *wrappers.values(),
        *(wrapper for _, _, wrapper in replaced),
    )
    S.own = frozenset(id(f) for f in own)
    _ENTRY.update(arm=arm, run_probe=run_probe, keep=(own, actions))
    sys.addaudithook(hook)


def arm(fd: int, key: bytes) -> None:
    """In the child, before any student code: report on `fd`, sealing every frame with `key`."""
    if "arm" not in _ENTRY:
        raise RuntimeError("the guard is not installed (autograder.child.guard.install runs in the zygote)")
    _ENTRY["arm"](fd, key)


def run_probe(name: str, func: Any, args: tuple, kwargs: dict, request: int) -> None:
    """Run a registered probe next to the student's `func`; its evidence goes straight to the judge."""
    _ENTRY["run_probe"](name, func, args, kwargs, request)
