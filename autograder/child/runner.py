"""Inside the sandboxed child: run the student's cells in an IPython shell, then answer the judge.

The child owns one channel. It runs cells when asked (recording their outputs like a kernel, with a
size cap) and serves the judge's requests: look a name up, get an attribute, call, index, take a
length, iterate, test truth, run a probe. Results go back as plain data or as handles into this
process's table; nothing from the judge is ever executed here except the course's own probes.
"""

from __future__ import annotations

import io
import os
import sys
import time
from typing import Any

from IPython.core.displayhook import DisplayHook
from IPython.core.displaypub import DisplayPublisher
from IPython.core.interactiveshell import InteractiveShell
from traitlets.config import Config

from autograder.wire import frames, values
from autograder.wire.ops import ChildOp

MAX_HANDLES = 100_000
TRUNCATED = "\n[output truncated: over the grader's output limit]\n"


class Recorder:
    """A cell's outputs in nbformat shape, stopped at `limit` characters in all."""

    def __init__(self, limit: int):
        self.limit = limit
        self.size = 0
        self.outputs: list[dict] = []
        self.truncated = False

    def _append(self, name: str, text: str) -> None:
        last = self.outputs[-1] if self.outputs else None
        if last and last["output_type"] == "stream" and last["name"] == name:
            last["text"] += text
        else:
            self.outputs.append({"output_type": "stream", "name": name, "text": text})

    def _cut_off(self) -> None:
        """The cap is reached: one note, on stdout, and nothing more is kept until the outputs are cleared."""
        self.truncated = True
        self._append("stdout", TRUNCATED)

    def stream(self, name: str, text: str) -> None:
        if self.truncated or not text:
            return
        room = self.limit - self.size
        cut = text[: max(room, 0)]
        self.size += len(cut)
        if cut:
            self._append(name, cut)
        if len(text) > room:
            self._cut_off()

    def _bundle(self, data: dict) -> dict | None:
        if self.truncated:
            return None
        bundle = {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, (str, dict, list))}
        size = sum(len(str(v)) for v in bundle.values())
        if size > self.limit - self.size:
            self._cut_off()
            return None
        self.size += size
        return bundle

    def display(self, data: dict, metadata: dict | None) -> None:
        bundle = self._bundle(data)
        if bundle is not None:
            self.outputs.append({"output_type": "display_data", "data": bundle, "metadata": _plain_meta(metadata)})

    def result(self, data: dict, metadata: dict | None, count: int) -> None:
        bundle = self._bundle(data)
        if bundle is not None:
            self.outputs.append(
                {
                    "output_type": "execute_result",
                    "data": bundle,
                    "metadata": _plain_meta(metadata),
                    "execution_count": count,
                }
            )

    def error(self, ename: str, evalue: str, traceback: list[str]) -> None:
        tb = [str(line)[:4000] for line in traceback[:200]]
        self.outputs.append({"output_type": "error", "ename": ename[:200], "evalue": evalue[:4000], "traceback": tb})

    def clear(self) -> None:
        self.outputs.clear()
        self.size = 0
        self.truncated = False


def _plain_meta(metadata: Any) -> dict:
    return {
        k: v
        for k, v in (metadata or {}).items()
        if isinstance(k, str) and isinstance(v, (str, int, float, bool, dict, list))
    }


class Stream(io.TextIOBase):
    def __init__(self, recorder_of, name: str):
        self._recorder_of = recorder_of
        self.name = name

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._recorder_of().stream(self.name, text)
        return len(text)

    def isatty(self) -> bool:
        return False


class NoInput(io.TextIOBase):
    def readable(self) -> bool:
        return True

    def read(self, *args: Any) -> str:
        raise OSError("the grader gives no input to notebooks: input() is not available")

    readline = read


class Publisher(DisplayPublisher):
    def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **kwargs):
        self.shell.recorder.display(data, metadata)

    def clear_output(self, wait=False):
        self.shell.recorder.clear()


class Hook(DisplayHook):
    def start_displayhook(self):
        pass

    def write_output_prompt(self):
        pass

    def write_format_data(self, format_dict, md_dict=None):
        self.shell.recorder.result(format_dict, md_dict, self.prompt_count)

    def finish_displayhook(self):
        pass


class Shell(InteractiveShell):
    """An IPython shell whose outputs and errors go to a Recorder, as a kernel would send them."""

    display_pub_class = Publisher
    displayhook_class = Hook
    recorder: Recorder = Recorder(1 << 20)

    def _showtraceback(self, etype, evalue, stb):
        try:
            message = str(evalue)
        except BaseException:
            message = "<exception message could not be shown>"
        self.recorder.error(getattr(etype, "__name__", "Error"), message, list(stb))

    def enable_gui(self, gui=None):
        pass


def make_shell() -> Shell:
    """Built once in the zygote, before any fork; each child gets its own copy."""
    config = Config()
    config.HistoryManager.enabled = False
    config.InteractiveShell.colors = "nocolor"
    config.InteractiveShell.xmode = "Context"
    return Shell.instance(config=config)


class Server:
    """The child's side of the channel: cells first, then the judge's requests, until told to exit."""

    def __init__(self, channel: frames.Channel, shell: Shell, *, output_chars: int):
        self.channel = channel
        self.shell = shell
        self.output_chars = output_chars
        self.table: dict[int, Any] = {}
        self.next_id = 1
        shell.recorder = Recorder(output_chars)
        self._streams = (Stream(lambda: self.shell.recorder, "stdout"), Stream(lambda: self.shell.recorder, "stderr"))

    def _install_streams(self) -> None:
        sys.stdout, sys.stderr = self._streams
        sys.stdin = NoInput()

    def handle_of(self, value: Any) -> values.Handle:
        if len(self.table) >= MAX_HANDLES:
            raise frames.WireError("too many handles")
        hid = self.next_id
        self.next_id += 1
        self.table[hid] = value
        cls = type(value)
        return values.Handle(hid, f"{getattr(cls, '__module__', '?')}.{getattr(cls, '__qualname__', '?')}"[:300])

    def object_of(self, handle: values.Handle) -> Any:
        try:
            return self.table[handle.id]
        except KeyError:
            raise frames.WireError(f"unknown handle {handle.id}") from None

    def serve(self) -> None:
        while True:
            try:
                header, buffers = self.channel.recv()
            except (frames.ChannelClosed, frames.WireError):
                return
            op = header.get("op")
            if op == ChildOp.EXIT:
                return
            if op == ChildOp.CELL:
                self._cell(header)
            elif op == ChildOp.PROBE:
                self._probe(header, buffers)
            else:
                self._request(op, header, buffers)

    def _cell(self, header: dict) -> None:
        source = header.get("source")
        if not isinstance(source, str):
            self.channel.send({"status": "error", "ename": "WireError", "evalue": "bad cell", "outputs": []})
            return
        self.shell.recorder = Recorder(self.output_chars)
        self._install_streams()
        started = time.perf_counter()
        try:
            result = self.shell.run_cell(source, store_history=True)
            failed = not result.success
            error = result.error_in_exec or result.error_before_exec
        except BaseException as exc:  # the shell itself broken by the cell
            failed, error = True, exc
        finally:
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        reply = {
            "status": "error" if failed else "ok",
            "outputs": self.shell.recorder.outputs,
            "count": int(self.shell.execution_count) - 1,
            "seconds": time.perf_counter() - started,
        }
        if failed:
            reply["ename"] = type(error).__name__ if error is not None else "Error"
            reply["evalue"] = _message(error)
        self._send(reply)

    def _probe(self, header: dict, buffers: list[bytes]) -> None:
        """Run a registered probe on the notebook's function `item`; the guard sends its evidence and outcome."""
        from autograder.child import guard

        self.shell.recorder = Recorder(self.output_chars)
        self._install_streams()
        try:
            name, item, request = header.get("name"), header.get("item"), header.get("req")
            if (
                not isinstance(name, str)
                or not isinstance(item, str)
                or not item.isidentifier()
                or type(request) is not int
            ):
                raise frames.WireError("bad probe request")
            args, kwargs = self._args(header, buffers)
            func = self.shell.user_ns.get(item, _MISSING)
            if func is _MISSING:
                func = _Missing(item)
            guard.run_probe(name, func, tuple(args), kwargs, request)
        finally:
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__

    def _send(self, header: dict, buffers: list[bytes] = ()) -> None:
        try:
            self.channel.send(header, buffers)
        except (frames.WireError, TypeError, ValueError):
            self.channel.send(
                {"status": "error", "ename": "WireError", "evalue": "the reply could not be sent", "outputs": []}
            )

    def _request(self, op: Any, header: dict, buffers: list[bytes]) -> None:
        recorder = Recorder(self.output_chars)
        self.shell.recorder = recorder
        self._install_streams()
        reply: dict
        out_buffers: list[bytes] = []
        started = time.perf_counter()
        try:
            value = self._dispatch(op, header, buffers)
            if op == ChildOp.LOOKUP and value is _MISSING:
                reply = {"missing": True}
            elif op == ChildOp.NEXT and value is _MISSING:
                reply = {"stop": True}
            else:
                encoder = values.Encoder(self.handle_of)
                reply = {"value": encoder.encode(value)}
                out_buffers = encoder.buffers
        except BaseException as exc:
            reply = {"error": {"type": _type_name(exc), "msg": _message(exc)}}
        finally:
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        reply["seconds"] = time.perf_counter() - started
        reply["out"] = "".join(
            o["text"] for o in recorder.outputs if o["output_type"] == "stream" and o["name"] == "stdout"
        )
        reply["err"] = "".join(
            o["text"] for o in recorder.outputs if o["output_type"] == "stream" and o["name"] == "stderr"
        )
        try:
            self.channel.send(reply, out_buffers)
        except frames.WireError as exc:
            self.channel.send({"error": {"type": "SandboxValueTooLarge", "msg": str(exc)}, "out": "", "err": ""})

    def _args(self, header: dict, buffers: list[bytes]) -> tuple[list, dict]:
        decoder = values.Decoder(buffers, self.object_of)
        args = header.get("args", [])
        kwargs = header.get("kwargs", {})
        if not isinstance(args, list) or not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
            raise frames.WireError("bad arguments")
        return [decoder.decode(a) for a in args], {k: decoder.decode(v) for k, v in kwargs.items()}

    def _target(self, header: dict) -> Any:
        hid = header.get("id")
        if type(hid) is not int:
            raise frames.WireError("bad handle id")
        return self.object_of(values.Handle(hid))

    def _dispatch(self, op: Any, header: dict, buffers: list[bytes]) -> Any:
        if op == ChildOp.LOOKUP:
            name = header.get("name")
            if not isinstance(name, str) or not name.isidentifier():
                raise frames.WireError("bad name")
            return self.shell.user_ns.get(name, _MISSING)
        if op == ChildOp.GETATTR:
            name = header.get("name")
            if not isinstance(name, str) or not name.isidentifier():
                raise frames.WireError("bad attribute name")
            return getattr(self._target(header), name)
        if op == ChildOp.CALL:
            args, kwargs = self._args(header, buffers)
            return self._target(header)(*args, **kwargs)
        if op == ChildOp.GETITEM:
            (key,), _ = self._args({"args": [header.get("key")]}, buffers)
            return self._target(header)[key]
        if op == ChildOp.LEN:
            return len(self._target(header))
        if op == ChildOp.BOOL:
            return bool(self._target(header))
        if op == ChildOp.ITER:
            return _Iterator(iter(self._target(header)))
        if op == ChildOp.NEXT:
            target = self._target(header)
            if not isinstance(target, _Iterator):
                raise frames.WireError("next on something that is not an iterator")
            return next(target.it, _MISSING)
        if op == ChildOp.ARM:
            key = header.get("key")
            if not isinstance(key, str) or len(key) != 64:
                raise frames.WireError("bad key")
            from autograder.child import guard

            guard.arm(self.channel.fileno(), bytes.fromhex(key))
            return None
        if op == ChildOp.FILES:
            return self._files(header, buffers)
        if op == ChildOp.RELEASE:
            for hid in header.get("ids", []):
                self.table.pop(hid, None) if type(hid) is int else None
            return None
        raise frames.WireError(f"unknown request {op!r}")

    def _files(self, header: dict, buffers: list[bytes]) -> None:
        """The submission's other files and the assignment's data files, written into the private folder."""
        names = header.get("names")
        if not isinstance(names, list) or len(names) != len(buffers):
            raise frames.WireError("bad file list")
        root = os.path.realpath(os.getcwd())
        for name, data in zip(names, buffers):
            if not isinstance(name, str) or name.startswith("/") or ".." in name.split("/") or not name:
                raise frames.WireError(f"bad file name {name!r}")
            path = os.path.realpath(os.path.join(root, name))
            if not path.startswith(root + os.sep):
                raise frames.WireError(f"bad file name {name!r}")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as fh:
                fh.write(data)
        return None


class _Missing:
    """Stands for a name the notebook never defined: calling it raises NameError, as the notebook would."""

    def __init__(self, name: str):
        self.name = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise NameError(f"name {self.name!r} is not defined")


class _Iterator:
    __slots__ = ("it",)

    def __init__(self, it):
        self.it = it


_MISSING = object()


def _type_name(exc: BaseException) -> str:
    name = getattr(type(exc), "__name__", "Error")
    return name if isinstance(name, str) and values.NAME.match(name) else "Error"


def _message(exc: BaseException | None) -> str:
    if exc is None:
        return ""
    try:
        text = str(exc)
    except BaseException:
        text = "<exception message could not be shown>"
    return text if len(text) <= 4000 else text[:3997] + "..."
