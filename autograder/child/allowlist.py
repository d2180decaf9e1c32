"""What the notebook's code may do while a probe calls it: the audit events honest answers raise, nothing else.

A probed call is a tensor function at work. While the notebook's code is on the stack of one, an audit
event passes only if this module allows it; any other ends the call, and the guard reports it, which
scores the item 0 and flags it for review. The list was taken from what the course's solutions, every
right answer of `tests/corpus` and the honest idioms of `tests/adversarial/honest.py` raise while their
items are probed (docs/security.md lists them and says why each is safe):

- anywhere: `id()`, `time.sleep`, setting the process's own environment (`os.environ[...] = ...`, as
  lesson 10 advises for cuBLAS; the probe child is thrown away after), reading an attribute that hands out nothing new (a code object, say);
  setting attributes on the notebook's own classes;
- inside library code only, that is, not raised by the notebook's code nor by the library function it
  called itself: imports (torch loads some modules on first use), reading files (the imports' source
  and bytecode, `linecache`), compiling and running code (`typing`, `dataclasses`, the imports), listing
  a folder (the import system), taking a frame (`logging` finding its caller, `traceback`) or a frame's
  attribute (`traceback` reading a traceback's frames);
- called by the notebook's code itself, taking the caller's frame and compiling is also allowed to the
  few standard modules that do it to learn their caller's module name (`collections.namedtuple`,
  `enum`, `typing`, `dataclasses`).

Refused, then: frames the notebook reaches for itself, gc walks, trace and profile hooks, new audit
hooks, processes, sockets, writing files, imports of modules not already loaded, code compiled or run by
the notebook, and changing what Python audits about a class or module of torch, NumPy, the course, the
grader or the builtins (a class's name, bases or module, a module's class) or the code or defaults of any
function, whoever does it. Python raises no event when an ordinary attribute of a class or module is set;
the guard's check of the trusted tables before evidence is sealed is what sees that. ctypes is refused by
the guard's own rule, which knows the grader's exempt callers.

`refusal_for` binds every constant into the returned function's defaults: student code that rebinds this
module's names changes nothing, and changing a default raises an event the guard reports.
"""

from __future__ import annotations

import os
import types
from typing import Any, Callable

PROTECTED_PACKAGES = frozenset({"torch", "numpy", "course", "autograder", "builtins"})
ALLOWED_ANYWHERE = frozenset({"builtins.id", "time.sleep", "os.putenv", "os.unsetenv"})
ALLOWED_INSIDE_LIBRARY = frozenset(
    {
        "import",
        "open",
        "exec",
        "compile",
        "marshal.loads",
        "code.__new__",
        "sys._getframe",
        "os.listdir",
        "os.scandir",
        "object.__getattr__",
    }
)
# Standard modules whose functions read their caller's frame for its module name, and compile the code of
# the class they make: allowed even when the notebook's code calls them itself.
CALLER_READERS = ("/collections/__init__.py", "/enum.py", "/typing.py", "/dataclasses.py")
CALLER_READER_EVENTS = frozenset({"sys._getframe", "exec", "compile"})
# Attributes that hand out a stack frame.
FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
ATTRIBUTE_EVENTS = frozenset({"object.__getattr__", "object.__setattr__", "object.__delattr__"})
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def refusal_for(library: tuple[str, ...]) -> Callable[[str, tuple, Any, Any], str | None]:
    """The policy for a process whose installed code lives under `library` (file name prefixes)."""

    def refusal(
        event: str,
        args: tuple,
        frame: Any,
        stop: Any,
        _library=library,
        _anywhere=ALLOWED_ANYWHERE,
        _inside=ALLOWED_INSIDE_LIBRARY,
        _readers=CALLER_READERS,
        _reader_events=CALLER_READER_EVENTS,
        _frames=FRAME_ATTRIBUTES,
        _attributes=ATTRIBUTE_EVENTS,
        _protected=PROTECTED_PACKAGES,
        _write=WRITE_FLAGS,
        _type=type,
        _str=str,
        _int=int,
        _func=type(lambda: None),
        _module_of=type.__dict__["__module__"].__get__,
        _len=len,
        _isinstance=isinstance,
        _moduletype=types.ModuleType,
        _module_name=types.ModuleType.__getattribute__,
        _any=any,
    ) -> str | None:
        """Why `event`, raised with `frame` innermost, is refused (None: allowed). `stop` is the probe's frame:
        the walk for the notebook's code ends there."""
        if event in _anywhere or frame is None:
            return None
        notebook = not frame.f_code.co_filename.startswith(_library)
        entry = False  # raised by the library function the notebook's code called itself
        if not notebook:
            caller = frame.f_back
            entry = caller is not None and caller is not stop and not caller.f_code.co_filename.startswith(_library)
            on_stack = entry
            while not on_stack and caller is not None and caller is not stop:
                on_stack = not caller.f_code.co_filename.startswith(_library)
                caller = caller.f_back
            if not on_stack:
                return None
        direct = notebook or entry
        if event in _attributes:
            target, name = (args[0], args[1]) if _len(args) > 1 else (None, "")
            if event == "object.__getattr__":
                if direct and name in _frames:
                    return f"the notebook's code reached for a stack frame ({name}) while a probe called it"
                return None
            if _type(target) is _func:
                return f"the notebook's code replaced the {_str(name)[:20]} of a function while a probe called it"
            if _isinstance(target, _type):
                module = _module_of(target)
            elif _isinstance(target, _moduletype):
                module = _module_name(target, "__name__")
            else:
                return None
            package = module.partition(".")[0] if _type(module) is _str else ""
            if package in _protected:
                return f"the notebook's code changed {module}.{_str(name)[:80]} while a probe called it"
            return None
        if event in _inside and not direct:
            if event == "open" and _len(args) > 2:
                mode, flags = args[1], args[2]
                writes = (
                    _any(c in mode for c in "wax+")
                    if _type(mode) is _str
                    else (_type(flags) is _int and flags & _write)
                )
                if writes:
                    return "the notebook's code wrote a file while a probe called it"
            return None
        if event in _reader_events and entry and frame.f_code.co_filename.endswith(_readers):
            return None
        where = "" if notebook else f" (through {frame.f_code.co_name})"
        return f"the notebook's code raised {event}{where} while a probe called it, which a tensor function never needs"

    return refusal
