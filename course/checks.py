"""Checks used by the lessons' test cells.

Each check raises `CheckFailed` with a sentence a student can act on: what was expected, what was
found, in the words the lessons use (shape, dtype, device, shared memory, gradient).

Importing this module in a notebook kernel also makes test cells show what they write to stderr on
stdout (see `show_stderr_on_stdout`): a test's score is its verdict, never its warnings.
"""

from __future__ import annotations

import math
import re
import sys
import traceback
from typing import Any, Callable, Iterable

import numpy as np
import torch


TEST_CELL = re.compile(r"^from course\.(checks|quiz) import", re.M)
"""A test cell imports its helpers from here or from `course.quiz`; no other cell of a lesson does."""


def show_stderr_on_stdout(shell: Any = None) -> bool:
    """In a notebook kernel, route what test cells write to stderr (PyTorch's warnings included) to stdout.

    nbgrader scores a test cell 0 when its outputs hold a stderr stream, so a correct answer whose
    first call happens to print a UserWarning would lose its points. The warning is still shown, as
    plain output; a failing test still fails on its error. The grader's judge applies the same rule
    on its side (`autograder.judge.notebook`). Returns whether the kernel was set up (it is once).
    """
    if shell is None:
        if "ipykernel" not in sys.modules:
            return False  # not a notebook kernel: the grader's processes decide for themselves
        from IPython import get_ipython

        shell = get_ipython()
    if shell is None or getattr(shell, "_course_stderr_routed", False):
        return False
    saved: list[Any] = []

    def route() -> None:
        saved.append(sys.stderr)
        sys.stderr = sys.stdout

    def before(info: Any) -> None:
        if TEST_CELL.search(getattr(info, "raw_cell", None) or ""):
            route()

    def after(result: Any) -> None:
        while saved:
            sys.stdout.flush()
            sys.stderr = saved.pop()

    shell.events.register("pre_run_cell", before)
    shell.events.register("post_run_cell", after)
    shell._course_stderr_routed = True
    route()  # the cell importing this module for the first time is a test cell
    return True


class CheckFailed(AssertionError):
    """A check did not pass; the message is meant for the student."""

    def _render_traceback_(self) -> list[str]:
        """What IPython shows for a failed check: the student's line and the message, no frame of the course.

        IPython calls this instead of printing the traceback (and the exception it was raised while
        handling), so the notebook, nbgrader's Validate and its feedback show at most three lines.
        When the student's own code raised and a check reported it, the line shown is where their code
        raised; otherwise it is the line of the cell that ran the check.
        """
        shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
        raised = self.__context__
        tracebacks = [raised.__traceback__] if raised is not None and not isinstance(raised, CheckFailed) else []
        for tb in [*tracebacks, self.__traceback__]:
            line = _cell_line(shell, tb)
            if line:
                return [*line, f"{type(self).__name__}: {self}"]
        return [f"{type(self).__name__}: {self}"]


def _cell_line(shell: Any, tb: Any) -> list[str]:
    """The last frame of `tb` that runs a notebook cell's code, as IPython names it ("Cell In[3], line 2")."""
    compiler = getattr(shell, "compile", None)
    found: list[str] = []
    for frame in traceback.extract_tb(tb):
        name = compiler.format_code_name(frame.filename) if compiler is not None else None
        if name:
            found = [f"{name[0]} {name[1]}, line {frame.lineno}", f"    {(frame.line or '').strip()}"]
    return found


FAILURES: dict[str, int] = {}
"""How often each fix has been earned in this kernel, by its text: a fix is told at the second failure."""


def fail(message: str, *, fix: str = "") -> None:
    """Raise `CheckFailed(message)`. `fix`, a sentence saying how to repair the mistake, is added only when a
    check with the same fix has failed before in this kernel: a first failure leaves the student to think."""
    if fix:
        FAILURES[fix] = FAILURES.get(fix, 0) + 1
        if FAILURES[fix] > 1:
            message = f"{message} Hint: {fix}"
    raise CheckFailed(message)


def passed(item: str, note: str = "") -> None:
    """Print the line a student sees when the visible checks of `item` pass."""
    print(f"✓ {item}: the visible checks pass." + (f" {note}" if note else ""))


def fmt_shape(shape: Any) -> str:
    return "(" + ", ".join(str(int(s)) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _dtype_name(dtype: Any) -> str:
    return str(dtype).replace("torch.", "")


def type_name(value: Any) -> str:
    cls = type(value)
    if cls.__module__ in ("builtins",):
        return cls.__name__
    return f"{cls.__module__}.{cls.__qualname__}"


def check_true(condition: Any, message: str, *, fix: str = "") -> None:
    if condition is not True and not (isinstance(condition, (bool, np.bool_)) and bool(condition)):
        fail(message, fix=fix)


def check_type(value: Any, types: type | tuple[type, ...], *, what: str = "the result") -> None:
    if not isinstance(value, types):
        names = types.__name__ if isinstance(types, type) else " or ".join(t.__name__ for t in types)
        fail(f"Expected {what} to be a {names}, but found a {type_name(value)}: {value!r:.200}.")


def check_equal(found: Any, expected: Any, *, what: str = "the result") -> None:
    """Plain values (numbers, strings, tuples, dicts); no tensors."""
    if type(found) in (float,) or type(expected) in (float,):
        ok = (
            isinstance(found, (int, float))
            and not isinstance(found, bool)
            and math.isclose(found, expected, rel_tol=1e-6, abs_tol=1e-9)
        )
    else:
        ok = type(found) is type(expected) and found == expected
        if not ok and isinstance(expected, tuple) and isinstance(found, torch.Size):
            ok = tuple(found) == expected
    if not ok:
        fail(f"Expected {what} to be {expected!r}, but found {found!r:.300}.")


def check_shape(found: Any, expected: Iterable[int], *, what: str = "the shape") -> None:
    """A tuple of ints or a torch.Size equal to `expected`."""
    expected = tuple(expected)
    if not isinstance(found, (tuple, torch.Size)):
        fail(f"Expected {what} to be a tuple of ints like {expected}, but found a {type_name(found)}: {found!r:.200}.")
    if not all(isinstance(s, int) and not isinstance(s, bool) for s in found):
        fail(f"Expected {what} to hold plain ints, but found {found!r:.200}.")
    if tuple(found) != expected:
        fail(f"Expected {what} to be {fmt_shape(expected)}, but found {fmt_shape(found)}.")


def check_tensor(
    found: Any,
    expected: torch.Tensor,
    *,
    what: str = "the result",
    dtype: bool = True,
    device: bool = True,
    requires_grad: bool | None = None,
    atol: float = 1e-6,
    rtol: float = 1e-5,
) -> None:
    """Compare a tensor with an expected one, property by property, in the lessons' words."""
    if not isinstance(found, torch.Tensor):
        fail(f"Expected {what} to be a torch.Tensor, but found a {type_name(found)}: {found!r:.200}.")
    if tuple(found.shape) != tuple(expected.shape):
        fail(f"Expected {what} to have shape {fmt_shape(expected.shape)}, but found shape {fmt_shape(found.shape)}.")
    if dtype and found.dtype != expected.dtype:
        fail(
            f"Expected {what} to have dtype {_dtype_name(expected.dtype)}, but found dtype {_dtype_name(found.dtype)}."
        )
    if device and found.device != expected.device:
        fail(f"Expected {what} to live on device '{expected.device}', but found it on '{found.device}'.")
    if requires_grad is not None and found.requires_grad != requires_grad:
        if requires_grad:
            fail(f"Expected {what} to require grad (requires_grad=True), but it does not.")
        fail(
            f"Expected {what} not to require grad, but found requires_grad=True (detach it, or compute it under torch.no_grad())."
        )
    if found.device.type == "meta" or expected.device.type == "meta":
        return
    a = found.detach().to("cpu")
    b = expected.detach().to("cpu")
    if a.dtype != b.dtype:
        common = torch.promote_types(a.dtype, b.dtype)
        a, b = a.to(common), b.to(common)
    if a.is_floating_point() or a.is_complex():
        close = torch.isclose(a, b, atol=atol, rtol=rtol, equal_nan=True)
    else:
        close = a == b
    if not bool(close.all()):
        bad = (~close).nonzero()
        index = tuple(int(i) for i in bad[0]) if bad.numel() else ()
        where = f" at index {index}" if index else ""
        fail(
            f"Expected {what} to hold the right values, but {int((~close).sum())} of {close.numel()} differ"
            f"; first{where}: expected {b[index].item() if index or b.dim() == 0 else b!r}, "
            f"found {a[index].item() if index or a.dim() == 0 else a!r}."
        )


def check_slip(found: Any, slip: torch.Tensor, *, message: str) -> None:
    """When `found` is exactly what a slip the lesson warns about gives (`slip`), fail with that slip's hint.

    Called before `check_tensor`, so a student who forgot `keepdim` reads about `keepdim`, not "found ...".
    """
    if (
        isinstance(found, torch.Tensor)
        and tuple(found.shape) == tuple(slip.shape)
        and found.device.type != "meta"
        and slip.device.type != "meta"
        and found.dtype == slip.dtype
        and bool(
            torch.isclose(found.detach().cpu(), slip.detach().cpu(), atol=1e-6, rtol=1e-5).all()
            if found.is_floating_point()
            else torch.equal(found.detach().cpu(), slip.detach().cpu())
        )
    ):
        fail(message)


def check_array(found: Any, expected: np.ndarray, *, what: str = "the result", atol: float = 1e-6) -> None:
    """Compare a NumPy array with an expected one: type, shape, dtype, values."""
    if not isinstance(found, np.ndarray):
        fail(f"Expected {what} to be a NumPy array (numpy.ndarray), but found a {type_name(found)}.")
    if found.shape != expected.shape:
        fail(f"Expected {what} to have shape {fmt_shape(expected.shape)}, but found shape {fmt_shape(found.shape)}.")
    if found.dtype != expected.dtype:
        fail(f"Expected {what} to have dtype {expected.dtype}, but found dtype {found.dtype}.")
    if expected.dtype.kind in "fc":
        ok = np.allclose(found, expected, atol=atol, equal_nan=True)
    else:
        ok = np.array_equal(found, expected)
    if not ok:
        fail(
            f"Expected {what} to hold the right values, but they differ: expected {expected!r:.200}, found {found!r:.200}."
        )


def check_device(found: Any, expected: str | torch.device, *, what: str = "the result") -> None:
    if not isinstance(found, torch.Tensor):
        fail(f"Expected {what} to be a torch.Tensor, but found a {type_name(found)}.")
    expected = torch.device(expected)
    same = found.device == expected or (expected.index is None and found.device.type == expected.type)
    if not same:
        fail(f"Expected {what} to live on device '{expected}', but found it on '{found.device}'.")


def check_raises(
    exc_types: type[BaseException] | tuple[type[BaseException], ...],
    func: Callable[..., Any],
    *args: Any,
    what: str,
    **kwargs: Any,
) -> BaseException:
    """`func(*args, **kwargs)` must raise one of `exc_types`; returns the exception."""
    names = exc_types.__name__ if isinstance(exc_types, type) else " or ".join(t.__name__ for t in exc_types)
    try:
        result = func(*args, **kwargs)
    except exc_types as exc:
        return exc
    except Exception as exc:
        fail(f"Expected {what} to raise {names}, but it raised {type(exc).__name__}: {exc}.")
    fail(f"Expected {what} to raise {names}, but it returned {result!r:.200}.")
    raise AssertionError("unreachable")


def check_runs(func: Callable[..., Any], *args: Any, what: str, **kwargs: Any) -> Any:
    """`func(*args, **kwargs)`'s result; if it raises, a failure that names the input it raised on.

    Hidden tests show the student only the failure message, so a bare exception from their code
    would not say which of many inputs broke it.
    """
    try:
        return func(*args, **kwargs)
    except Exception as exc:
        fail(f"Expected {what} to work, but it raised {type(exc).__name__}: {exc}")
    raise AssertionError("unreachable")


def check_float(found: Any, expected: float, *, what: str = "the result", tol: float = 1e-5) -> None:
    """A plain Python float (not a tensor, not a NumPy scalar) close to `expected`."""
    if type(found) is not float:
        hint = (
            " Use .item() to turn a one-element tensor into a Python float." if isinstance(found, torch.Tensor) else ""
        )
        fail(f"Expected {what} to be a Python float, but found a {type_name(found)}.{hint}")
    if not math.isclose(found, expected, rel_tol=tol, abs_tol=tol):
        fail(f"Expected {what} to be about {expected:.6g}, but found {found:.6g}.")


def check_nested(found: Any, expected: Any, *, what: str = "the result", **tensor_checks: Any) -> None:
    """Nested dicts, lists and tuples compared level by level.

    Containers must have the same type (a tuple stays a tuple) and dicts the same keys in the same
    order; tensors are compared with `check_tensor(**tensor_checks)`, arrays with `check_array`, and
    every other leaf must be equal and of the same type.
    """
    if isinstance(expected, torch.Tensor):
        check_tensor(found, expected, what=what, **tensor_checks)
    elif isinstance(expected, np.ndarray):
        check_array(found, expected, what=what)
    elif isinstance(expected, (dict, list, tuple)):
        if type(found) is not type(expected):
            fail(f"Expected {what} to be a {type_name(expected)}, but found a {type_name(found)}: {found!r:.200}.")
        if isinstance(expected, dict):
            if list(found) != list(expected):
                fail(
                    f"Expected {what} to have the keys {list(expected)!r}, in that order, but found {list(found)!r:.200}."
                )
            for key in expected:
                check_nested(found[key], expected[key], what=f"{what}[{key!r}]", **tensor_checks)
        else:
            if len(found) != len(expected):
                fail(f"Expected {what} to hold {len(expected)} items, but found {len(found)}.")
            for index, (f, e) in enumerate(zip(found, expected)):
                check_nested(f, e, what=f"{what}[{index}]", **tensor_checks)
    elif type(found) is not type(expected) or found != expected:
        fail(f"Expected {what} to be {expected!r:.200}, returned as it was, but found {found!r:.200}.")


show_stderr_on_stdout()
