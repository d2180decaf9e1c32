"""The judge: runs the instructor's test cells in a trusted process that never runs student code.

A test cell's free names (not bound or imported by the cell, not builtins) are asked of the child:
each comes back as plain data or as a `Proxy`. Calling a proxy, reading its attributes, indexing,
iterating or taking its length runs in the child; what comes back is again data or a proxy. A proxy
compares equal only to itself, so an object whose `__eq__` always says True gains nothing. Probes
(`course.probes`) given a proxy run in the child through the dispatcher installed here.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import symtable
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

from autograder import wire
from autograder.guard import TamperDetected, is_sealed, open_frame

BUILTIN_NAMES = frozenset(dir(builtins))


class SandboxError(Exception):
    """An exception raised by the student's code whose type is not a builtin exception."""


class SandboxDied(BaseException):
    """The child died, broke the protocol or ran out of time during a call: the item fails.

    Not an `Exception`, so a test's own `except Exception` cannot count it as a pass.
    """

    def __init__(self, ename: str, message: str):
        super().__init__(message)
        self.ename = ename
        self.message = message


_SANDBOX_TYPES: dict[str, type] = {}


def exception_from(type_name: str, message: str) -> BaseException:
    """The judge's own exception for one raised in the child: the builtin of that name, else a SandboxError."""
    builtin = getattr(builtins, type_name, None)
    if (
        isinstance(builtin, type)
        and issubclass(builtin, Exception)
        and not issubclass(builtin, (StopIteration, StopAsyncIteration))
    ):
        try:
            return builtin(message)
        except TypeError:
            pass
    cls = _SANDBOX_TYPES.get(type_name)
    if cls is None:
        cls = _SANDBOX_TYPES[type_name] = type(type_name, (SandboxError,), {"__module__": "sandbox"})
    return cls(message)


class Connection:
    """The judge's side of one child's channel: requests with a deadline, replies decoded into values and proxies.

    The child's guard (`autograder.guard`) writes sealed frames on the same channel: tamper reports at
    any moment, and a probe's evidence. `recv` checks each seal and its number, keeps tamper reports
    in `events`, and returns everything else in order.
    """

    def __init__(
        self, channel: wire.Channel, *, on_death: Callable[[], None], deadline: Callable[[], float], key: bytes = b""
    ):
        self.channel = channel
        self.on_death = on_death
        self.deadline = deadline
        self.key = key
        self.sealed_count = 0
        self.events: list[str] = []  # tamper reports not yet attributed by the caller
        self.dead: SandboxDied | None = None
        self.busy = 0.0  # seconds the child reported spending on requests (the student's code, mostly)
        self.echo: Callable[[str, str], None] = lambda name, text: None
        self.requests = 0

    def _die(self, ename: str, message: str) -> SandboxDied:
        if self.dead is None:
            self.dead = SandboxDied(ename, message)
            self.on_death()
        return self.dead

    def take_events(self) -> list[str]:
        events, self.events = self.events, []
        return events

    def recv(self, deadline: float) -> tuple[dict, list[bytes], bool]:
        """The next frame that is not a tamper report: (header or sealed payload, buffers, sealed)."""
        while True:
            header, buffers = self.channel.recv(deadline=deadline)
            if not is_sealed(header):
                return header, buffers, False
            try:
                payload, data = open_frame(header, buffers, self.key)
            except TamperDetected as exc:
                self.events.append(exc.detail)
                continue
            self.sealed_count += 1
            if payload["n"] != self.sealed_count:
                self.events.append("a report from the grader's code in the notebook's process was lost or repeated")
                self.sealed_count = payload["n"]
            if payload["kind"] == "tamper":
                self.events.append(str(payload.get("detail", payload.get("event", "tampering")))[:1000])
                continue
            return payload, data, True

    def request(self, op: str, *, args: tuple = (), kwargs: dict | None = None, **fields: Any) -> Any:
        if self.dead is not None:
            raise SandboxDied(self.dead.ename, self.dead.message)
        header = {"op": op, **fields}
        buffers: list[bytes] = []
        if args or kwargs or op in ("call", "probe", "getitem"):
            encoder = wire.Encoder(self._to_handle)
            if op == "getitem":
                header["key"] = encoder.encode(args[0])
            else:
                header["args"] = [encoder.encode(a) for a in args]
                header["kwargs"] = {str(k): encoder.encode(v) for k, v in (kwargs or {}).items()}
            buffers = encoder.buffers
        try:
            self.channel.send(header, buffers)
            while True:
                reply, reply_buffers, sealed = self.recv(self.deadline())
                if not sealed:
                    break
                self.events.append("the notebook's process sent a probe report where none was asked for")
        except wire.Timeout:
            raise self._die(
                "TimeoutError", "the notebook's code ran past the grader's time limit while a test called it"
            ) from None
        except wire.ChannelClosed:
            raise self._die("SandboxDied", "the notebook's process died while a test called its code") from None
        except wire.WireError as exc:
            self.events.append(
                f"the notebook's process wrote something that is not a grader message on its channel ({exc})"
            )
            raise self._die("SandboxDied", f"the notebook's process sent a malformed reply ({exc})") from None
        if type(reply.get("seconds")) is float and 0 <= reply["seconds"] < 1e6:
            self.busy += reply["seconds"]
        for name in ("out", "err"):
            text = reply.get(name)
            if isinstance(text, str) and text:
                self.echo("stdout" if name == "out" else "stderr", text)
        try:
            if "error" in reply:
                error = reply["error"]
                if (
                    not isinstance(error, dict)
                    or not isinstance(error.get("type"), str)
                    or not isinstance(error.get("msg"), str)
                    or not wire.NAME.match(error["type"])
                ):
                    raise wire.WireError("bad error reply")
                raise exception_from(error["type"], error["msg"])
            if reply.get("missing") is True:
                return _MISSING
            if reply.get("stop") is True:
                return _MISSING
            if "value" not in reply:
                raise wire.WireError("reply without a value")
            return wire.Decoder(reply_buffers, self._proxy).decode(reply["value"])
        except wire.WireError as exc:
            raise self._die("SandboxDied", f"the notebook's process sent a malformed reply ({exc})") from None

    def _to_handle(self, value: Any) -> wire.Handle:
        if isinstance(value, Proxy) and object.__getattribute__(value, "_conn") is self:
            return wire.Handle(object.__getattribute__(value, "_id"))
        raise TypeError(f"a {type(value).__name__} cannot be passed to the notebook's code: tests pass plain data only")

    def _proxy(self, handle: wire.Handle) -> Proxy:
        return Proxy(self, handle.id, handle.type_name)

    def lookup(self, name: str) -> Any:
        return self.request("lookup", name=name)

    def probe(self, name: str, item: str, args: tuple, kwargs: dict) -> list[dict]:
        """Run probe `name` on the notebook's `item` in this child: its evidence, as the probe's reading takes it.

        Each piece of evidence is {"value", "at" (when it arrived, by the judge's clock), and
        "saved_tensors" where the probe counts them}. The student's exception is raised as ours;
        anything a probe's own steps cannot have sent raises TamperDetected.
        """
        if self.dead is not None:
            raise SandboxDied(self.dead.ename, self.dead.message)
        self.requests += 1
        request = self.requests
        encoder = wire.Encoder(self._to_handle)
        header = {
            "op": "probe",
            "name": name,
            "item": item,
            "req": request,
            "args": [encoder.encode(a) for a in args],
            "kwargs": {str(k): encoder.encode(v) for k, v in kwargs.items()},
        }
        evidence: list[dict] = []
        try:
            self.channel.send(header, encoder.buffers)
            while True:
                payload, data, sealed = self.recv(self.deadline())
                if not sealed:
                    raise TamperDetected("a reply that was not sealed by the grader's code came back from a probe")
                if payload.get("req") != request:
                    raise TamperDetected("a probe report answered another request")
                kind = payload["kind"]
                if kind == "evidence":
                    value = wire.Decoder(data, None).decode(payload.get("value"))
                    item_ = {"value": value, "at": time.perf_counter()}
                    if type(payload.get("saved_tensors")) is int:
                        item_["saved_tensors"] = payload["saved_tensors"]
                    evidence.append(item_)
                elif kind == "done":
                    return evidence
                elif kind == "error":
                    raise exception_from(str(payload.get("type", "Error")), str(payload.get("msg", "")))
                elif kind == "aborted":
                    raise TamperDetected(
                        "; ".join(self.take_events()) or "the probe stopped because the grader's checks failed"
                    )
                else:
                    raise TamperDetected(f"a probe report of an unknown kind ({kind!r})")
        except wire.Timeout:
            raise self._die(
                "TimeoutError", "the notebook's code ran past the grader's time limit while a test called it"
            ) from None
        except wire.ChannelClosed:
            raise self._die("SandboxDied", "the notebook's process died while a probe ran its code") from None
        except wire.WireError as exc:
            raise TamperDetected(f"a probe report could not be read ({exc})") from None


_MISSING = object()


class Proxy:
    """An object that lives in the child. Equal only to itself; everything else is a request."""

    __slots__ = ("_conn", "_id", "_type", "__weakref__")

    def __init__(self, conn: Connection, hid: int, type_name: str):
        object.__setattr__(self, "_conn", conn)
        object.__setattr__(self, "_id", hid)
        object.__setattr__(self, "_type", type_name)

    @property
    def __sandbox_handle__(self) -> int:
        return object.__getattribute__(self, "_id")

    def _ask(self, op: str, **fields: Any) -> Any:
        conn = object.__getattribute__(self, "_conn")
        return conn.request(op, id=object.__getattribute__(self, "_id"), **fields)

    def __getattr__(self, name: str) -> Any:
        if name in Proxy.__slots__:
            raise AttributeError(name)
        return self._ask("getattr", name=name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("the notebook's objects cannot be changed from a test")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("the notebook's objects cannot be changed from a test")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._ask("call", args=args, kwargs=kwargs)

    def __getitem__(self, key: Any) -> Any:
        return self._ask("getitem", args=(key,))

    def __len__(self) -> int:
        value = self._ask("len")
        if type(value) is not int or value < 0:
            raise TypeError("len() of the notebook's object did not give a non-negative int")
        return value

    def __iter__(self):
        iterator = self._ask("iter")
        while True:
            item = iterator._ask("next")
            if item is _MISSING:
                return
            yield item

    def __bool__(self) -> bool:
        value = self._ask("bool")
        if type(value) is not bool:
            raise TypeError("bool() of the notebook's object did not give a bool")
        return value

    def __eq__(self, other: Any) -> bool:
        return self is other

    def __ne__(self, other: Any) -> bool:
        return self is not other

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"<{object.__getattribute__(self, '_type')} object from the notebook>"

    __str__ = __repr__


@functools.lru_cache(maxsize=1024)
def _free_names(source: str) -> tuple[str, ...]:
    return tuple(_find_free_names(source))


def free_names(source: str) -> list[str]:
    """Names a test cell reads but neither binds nor imports, builtins excepted, in first-use order."""
    return list(_free_names(source))


@functools.lru_cache(maxsize=1024)
def _compiled(source: str) -> tuple[Any, Any]:
    """A test cell compiled once per judge (every student's copy of it is the same): (body, last expression)."""
    tree = ast.parse(source, "<test>", "exec")
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    body = compile(tree, "<test>", "exec")
    return body, (compile(ast.Expression(last.value), "<test>", "eval") if last is not None else None)


def _find_free_names(source: str) -> list[str]:
    table = symtable.symtable(source, "<test>", "exec")
    bound = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace()}
    names: list[str] = []

    def add(name: str) -> None:
        if name not in bound and name not in BUILTIN_NAMES and name not in names:
            names.append(name)

    for symbol in table.get_symbols():
        if symbol.is_referenced():
            add(symbol.get_name())

    def walk(tab: symtable.SymbolTable) -> None:
        for child in tab.get_children():
            for symbol in child.get_symbols():
                if symbol.is_global() and not symbol.is_local():
                    add(symbol.get_name())
            walk(child)

    walk(table)
    return names


@dataclass
class Verdict:
    passed: bool
    outputs: list[dict] = field(default_factory=list)
    ename: str = ""
    evalue: str = ""
    died: bool = False
    seconds: float = 0.0
    tampering: list[str] = field(default_factory=list)


class _Capture:
    """stdout/stderr of a test cell as nbformat stream outputs."""

    def __init__(self, limit: int):
        from autograder.runner import Recorder, Stream

        self.recorder = Recorder(limit)
        self.stdout = Stream(lambda: self.recorder, "stdout")
        self.stderr = Stream(lambda: self.recorder, "stderr")


ProbeRunner = Callable[[str, str, tuple, dict], list]


def run_test(
    source: str, conn: Connection, *, output_chars: int = 1 << 20, run_probe: ProbeRunner | None = None
) -> Verdict:
    """Run one test cell against the child behind `conn`; pass = it finished without an exception.

    Probes the cell calls with a name from the notebook go to `run_probe(probe, item, args, kwargs)`
    (a fresh child holding that item, see `grading.Session.run_probe`); without it, to `conn` itself.
    Tampering reported while the cell runs, or evidence a probe's steps cannot have produced, fails
    the cell and is listed in the verdict's `tampering`.
    """
    from course import probes

    started = time.perf_counter()
    capture = _Capture(output_chars)
    conn.echo = capture.recorder.stream
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
    items: dict[int, str] = {}
    runner = run_probe or conn.probe

    def dispatch(name: str, target: Any, args: tuple, kwargs: dict) -> list:
        item = items.get(id(target))
        if item is None or not isinstance(target, Proxy):
            raise TypeError("a probe needs a name from the notebook under test")
        return runner(name, item, args, kwargs)

    probes.set_dispatcher(dispatch)
    tampering: list[str] = []
    try:
        with contextlib.redirect_stdout(capture.stdout), contextlib.redirect_stderr(capture.stderr):
            try:
                body, last = _compiled(source)
                for name in free_names(source):
                    value = conn.lookup(name)
                    if value is not _MISSING:
                        namespace[name] = value
                        if isinstance(value, Proxy):
                            items[id(value)] = name
                exec(body, namespace)
                if last is not None:
                    value = eval(last, namespace)
                    if value is not None:
                        capture.recorder.result({"text/plain": _safe_repr(value)}, {}, 0)
                if conn.dead is not None:
                    raise conn.dead
            except (TamperDetected, probes.EvidenceError) as exc:
                tampering.append(getattr(exc, "detail", None) or _safe_str(exc))
            except SandboxDied as died:
                return _failed(capture, died.ename, died.message, started, died=True, tampering=conn.take_events())
            except Exception as exc:
                return _failed(capture, type(exc).__name__, _safe_str(exc), started, tampering=conn.take_events())
    finally:
        probes.set_dispatcher(None)
        conn.echo = lambda name, text: None
    tampering += conn.take_events()
    if tampering:
        return _failed(
            capture, "TamperingDetected", "; ".join(dict.fromkeys(tampering))[:2000], started, tampering=tampering
        )
    return Verdict(True, capture.recorder.outputs, seconds=time.perf_counter() - started)


def _failed(
    capture: _Capture, ename: str, evalue: str, started: float, *, died: bool = False, tampering: list[str] = ()
) -> Verdict:
    capture.recorder.error(ename, evalue, [f"{ename}: {evalue}"])
    return Verdict(False, capture.recorder.outputs, ename, evalue, died, time.perf_counter() - started, list(tampering))


def _safe_str(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:
        return "<no message>"


def _safe_repr(value: Any) -> str:
    try:
        return repr(value)[:10000]
    except Exception:
        return f"<{type(value).__name__}>"


@contextlib.contextmanager
def notebook_scope():
    """One notebook's judging: each warning shown once per notebook, as in a fresh kernel."""
    with warnings.catch_warnings():
        yield
