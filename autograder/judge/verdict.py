"""The judge: runs the instructor's test cells in a trusted process that never runs student code.

A test cell's free names (not bound or imported by the cell, not builtins) are asked of the child:
each comes back as plain data or as a `connection.Proxy`. Probes (`course.probes`) given a proxy run
in the child through the dispatcher installed here. Pass = the cell finished without an exception
(`rules.scoring` states the whole rule).
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import io
import signal
import symtable
import time
import tokenize
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

from autograder.judge.connection import MISSING, Connection, Proxy, SandboxDied
from autograder.wire.seal import TamperDetected

BUILTIN_NAMES = frozenset(dir(builtins))


@functools.lru_cache(maxsize=1024)
def _free_names(source: str) -> tuple[str, ...]:
    return tuple(_find_free_names(source))


def probing_test(source: str) -> bool:
    """Whether a test cell uses the course's probes (it imports from `course.probes`): such a test runs all
    its calls in the probe child, so values and probed properties come from the same process."""
    return "course.probes" in source


def free_names(source: str) -> list[str]:
    """Names a test cell reads but neither binds nor imports, builtins excepted, in first-use order."""
    return list(_free_names(source))


@functools.lru_cache(maxsize=1024)
def _compiled(source: str) -> tuple[Any, Any, bool]:
    """A test cell compiled once per notebook: (body, last expression, whether its value is shown)."""
    tree = ast.parse(source, "<test>", "exec")
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    body = compile(tree, "<test>", "exec")
    shown = last is not None and not ends_with_semicolon(source)
    return body, (compile(ast.Expression(last.value), "<test>", "eval") if last is not None else None), shown


def ends_with_semicolon(source: str) -> bool:
    """IPython's rule: a cell whose last token (comments and blank lines aside) is `;` shows no value."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return False
    skipped = (tokenize.ENDMARKER, tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT)
    last = next((token for token in reversed(tokens) if token.type not in skipped), None)
    return last is not None and last.type == tokenize.OP and last.string == ";"


# Signals a test cell may catch; what it set is undone after the cell (`_restore_signals`), so an alarm
# it left cannot land later inside the judge's own talk with the sandbox.
_CATCHABLE = tuple(s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP))
_TIMERS = (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF)


def _signal_handlers() -> dict:
    return {sig: signal.getsignal(sig) for sig in _CATCHABLE}


def _restore_signals(saved: dict) -> None:
    for timer in _TIMERS:
        signal.setitimer(timer, 0)
    for sig, handler in saved.items():
        if handler is not None and signal.getsignal(sig) is not handler:
            signal.signal(sig, handler)


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
        from autograder.child.runner import Recorder, Stream

        self.recorder = Recorder(limit)
        self.stdout = Stream(lambda: self.recorder, "stdout")
        self.stderr = Stream(lambda: self.recorder, "stderr")


ProbeRunner = Callable[[str, str, tuple, dict], list]


def run_test(
    source: str, conn: Connection, *, output_chars: int = 1 << 20, run_probe: ProbeRunner | None = None
) -> Verdict:
    """Run one test cell against the child behind `conn`; pass = it finished without an exception.

    Probes the cell calls with a name from the notebook go to `run_probe(probe, item, args, kwargs)`
    (a fresh child holding that item, see `session.Session.run_probe`); without it, to `conn` itself.
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
    handlers = _signal_handlers()
    try:
        with contextlib.redirect_stdout(capture.stdout), contextlib.redirect_stderr(capture.stderr):
            try:
                body, last, shown = _compiled(source)
                for name in free_names(source):
                    value = conn.lookup(name)
                    if value is not MISSING:
                        namespace[name] = value
                        if isinstance(value, Proxy):
                            items[id(value)] = name
                exec(body, namespace)
                if last is not None:
                    value = eval(last, namespace)
                    if value is not None and shown:
                        capture.recorder.result({"text/plain": _safe_repr(value)}, {}, 0)
                if conn.dead is not None:
                    raise conn.dead
            except (TamperDetected, probes.EvidenceError) as exc:
                tampering.append(getattr(exc, "detail", None) or _safe_str(exc))
            except SandboxDied as died:
                return _failed(capture, died.ename, died.message, started, died=True, tampering=conn.take_events())
            except BaseException as exc:  # noqa: BLE001 - pytest's Failed, SystemExit, KeyboardInterrupt: the cell fails
                return _failed(capture, type(exc).__name__, _safe_str(exc), started, tampering=conn.take_events())
    finally:
        _restore_signals(handlers)
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
