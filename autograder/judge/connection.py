"""The judge's connection to a child: requests over the channel, and `Proxy` objects for the child's values.

A test cell's free names are asked of the child (`verdict.run_test`): each comes back as plain data
or as a `Proxy`. Calling a proxy, reading its attributes, indexing,
iterating or taking its length runs in the child; what comes back is again data or a proxy. A proxy
compares equal only to itself, so an object whose `__eq__` always says True gains nothing. Probes
(`course.probes`) given a proxy run in the child through the dispatcher installed here.
"""

from __future__ import annotations

import builtins
import time
from typing import Any, Callable

from autograder.wire import frames, values
from autograder.wire.ops import ChildOp
from autograder.wire.seal import TamperDetected, is_sealed, open_frame


class StudentError(Exception):
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
    """The judge's own exception for one raised in the child: the builtin of that name, else a StudentError."""
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
        cls = _SANDBOX_TYPES[type_name] = type(type_name, (StudentError,), {"__module__": "sandbox"})
    return cls(message)


class Connection:
    """The judge's side of one child's channel: requests with a deadline, replies decoded into values and proxies.

    The child's guard (`autograder.child.guard`) writes sealed frames on the same channel: tamper reports at
    any moment, and a probe's evidence. `recv` checks each seal and its number, keeps tamper reports
    in `events`, and returns everything else in order.
    """

    def __init__(
        self, channel: frames.Channel, *, on_death: Callable[[], None], deadline: Callable[[], float], key: bytes = b""
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

    def _exchange(self, header: dict | None, buffers: list[bytes]) -> tuple[dict, list[bytes], bool]:
        """Send `header` (unless None), then wait for the next reply. An exception of the test's own that lands
        meanwhile (a signal handler's) leaves a reply unread, which would answer the next request: the child is
        given up instead, and the exception goes on to fail the test."""
        try:
            if header is not None:
                self.channel.send(header, buffers)
            return self.recv(self.deadline())
        except (frames.WireError, frames.ChannelClosed, frames.Timeout):
            raise
        except BaseException:
            self._die("SandboxDied", "a test's call to the notebook's code was interrupted before its answer came")
            raise

    def request(self, op: str, *, args: tuple = (), kwargs: dict | None = None, **fields: Any) -> Any:
        if self.dead is not None:
            raise SandboxDied(self.dead.ename, self.dead.message)
        header = {"op": op, **fields}
        buffers: list[bytes] = []
        if args or kwargs or op in (ChildOp.CALL, ChildOp.PROBE, ChildOp.GETITEM):
            encoder = values.Encoder(self._to_handle)
            if op == "getitem":
                header["key"] = encoder.encode(args[0])
            else:
                header["args"] = [encoder.encode(a) for a in args]
                header["kwargs"] = {str(k): encoder.encode(v) for k, v in (kwargs or {}).items()}
            buffers = encoder.buffers
        try:
            reply, reply_buffers, sealed = self._exchange(header, buffers)
            while sealed:
                self.events.append("the notebook's process sent a probe report where none was asked for")
                reply, reply_buffers, sealed = self._exchange(None, [])
        except frames.Timeout:
            raise self._die(
                "TimeoutError", "the notebook's code ran past the grader's time limit while a test called it"
            ) from None
        except frames.ChannelClosed:
            raise self._die("SandboxDied", "the notebook's process died while a test called its code") from None
        except frames.WireError as exc:
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
                    or not values.NAME.match(error["type"])
                ):
                    raise frames.WireError("bad error reply")
                raise exception_from(error["type"], error["msg"])
            if reply.get("missing") is True:
                return MISSING
            if reply.get("stop") is True:
                return MISSING
            if "value" not in reply:
                raise frames.WireError("reply without a value")
            return values.Decoder(reply_buffers, self._proxy).decode(reply["value"])
        except frames.WireError as exc:
            raise self._die("SandboxDied", f"the notebook's process sent a malformed reply ({exc})") from None

    def _to_handle(self, value: Any) -> values.Handle:
        if isinstance(value, Proxy) and object.__getattribute__(value, "_conn") is self:
            return values.Handle(object.__getattribute__(value, "_id"))
        raise TypeError(f"a {type(value).__name__} cannot be passed to the notebook's code: tests pass plain data only")

    def _proxy(self, handle: values.Handle) -> Proxy:
        return Proxy(self, handle.id, handle.type_name)

    def lookup(self, name: str) -> Any:
        return self.request(ChildOp.LOOKUP, name=name)

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
        encoder = values.Encoder(self._to_handle)
        header = {
            "op": ChildOp.PROBE,
            "name": name,
            "item": item,
            "req": request,
            "args": [encoder.encode(a) for a in args],
            "kwargs": {str(k): encoder.encode(v) for k, v in kwargs.items()},
        }
        evidence: list[dict] = []
        try:
            sending: dict | None = header
            while True:
                payload, data, sealed = self._exchange(sending, encoder.buffers)
                sending = None
                if not sealed:
                    raise TamperDetected("a reply that was not sealed by the grader's code came back from a probe")
                if payload.get("req") != request:
                    raise TamperDetected("a probe report answered another request")
                kind = payload["kind"]
                if kind == "evidence":
                    value = values.Decoder(data, None).decode(payload.get("value"))
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
        except frames.Timeout:
            raise self._die(
                "TimeoutError", "the notebook's code ran past the grader's time limit while a test called it"
            ) from None
        except frames.ChannelClosed:
            raise self._die("SandboxDied", "the notebook's process died while a probe ran its code") from None
        except frames.WireError as exc:
            raise TamperDetected(f"a probe report could not be read ({exc})") from None


MISSING = object()  # a name the notebook does not define


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
        return self._ask(ChildOp.GETATTR, name=name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("the notebook's objects cannot be changed from a test")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("the notebook's objects cannot be changed from a test")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._ask(ChildOp.CALL, args=args, kwargs=kwargs)

    def __getitem__(self, key: Any) -> Any:
        return self._ask(ChildOp.GETITEM, args=(key,))

    def __len__(self) -> int:
        value = self._ask(ChildOp.LEN)
        if type(value) is not int or value < 0:
            raise TypeError("len() of the notebook's object did not give a non-negative int")
        return value

    def __iter__(self):
        iterator = self._ask(ChildOp.ITER)
        while True:
            item = iterator._ask(ChildOp.NEXT)
            if item is MISSING:
                return
            yield item

    def __bool__(self) -> bool:
        value = self._ask(ChildOp.BOOL)
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
