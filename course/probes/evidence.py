"""What a probe may do to objects from the student's process, and how it reads them.

A probe's verdict rests on measurements taken next to the student's code. The grader takes them in a
sealed section (see `autograder.child.guard`), where no student code may run; this module is the small set
of operations allowed there. Every one of them checks exact types first and reads objects only
through C-level accessors (getset descriptors and method descriptors of immutable types, and
`torch._C.TensorBase` methods under `DisableTorchFunction`), all bound here when the module is
imported, before any student code exists. So patching NumPy, torch, builtins or this module later
does not change what they read; and a tensor subclass, an object that lies about itself or a torch
function mode is never asked anything: it is reported as what it is.

Two collectors share these operations. `Snapshots` (in a student's own kernel, under nbval or stock
nbgrader) keeps copies of the values; the grader's collector turns the same values into wire nodes
and sends them out of the process at once.
"""

from __future__ import annotations

import hashlib
import math
import time
from typing import Any

import numpy as np
import torch

TensorBase = torch._C.TensorBase  # the tensor class's own descriptors, out of reach of a subclass's overrides
TENSOR_TYPES = (torch.Tensor, torch.nn.Parameter)
SCALAR_TYPES = (type(None), bool, int, float, complex, str, bytes)
NUMPY_SCALARS = {
    t: np.dtype(t).str
    for t in (
        np.bool_,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.uint8,
        np.uint16,
        np.uint32,
        np.uint64,
        np.float16,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
    )
}
_NP_NEEDS_VIEW = {torch.bfloat16: torch.int16, torch.complex32: torch.int32}
_TYPE_QUALNAME = type.__dict__["__qualname__"].__get__
_TYPE_MODULE = type.__dict__["__module__"].__get__


class Opaque:
    """A value the probe would not read: stands in for it, naming only its type."""

    __slots__ = ("type_name",)

    def __init__(self, type_name: str):
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"<a {self.type_name} from the notebook>"

    def __eq__(self, other: Any) -> bool:
        return self is other

    __hash__ = object.__hash__


def type_name(value: Any, *, _type=type, _str=str, _qualname=_TYPE_QUALNAME, _module=_TYPE_MODULE) -> str:
    """`module.Qualname` of the value's class, read from the class object itself (no metaclass is asked)."""
    cls = _type(value)
    try:
        module, name = _module(cls), _qualname(cls)
    except Exception:
        return "object"
    if _type(module) is not _str or _type(name) is not _str:
        return "object"
    return name if module == "builtins" else f"{module}.{name}"[:300]


def _exact(value: Any, kinds: tuple, *, _type=type) -> bool:
    kind = _type(value)
    for k in kinds:
        if kind is k:
            return True
    return False


def tensor_meta(
    t: Any,
    *,
    _TB=TensorBase,
    _off=torch._C.DisableTorchFunction,
    _type=type,
    _tuple=tuple,
    _int=int,
    _str=torch.device.__str__,
    _dtype_repr=torch.dtype.__repr__,
    _strided=torch.strided,
) -> dict:
    """dtype, shape, device, requires_grad, is_leaf and grad_fn of an exact tensor, without dispatch.

    `layout_ok` says whether its values can be read as strided memory; a nested tensor has no single
    shape, so its shape is reported as ()."""
    with _off():
        nested = _TB.is_nested.__get__(t)
        grad_fn = _TB.grad_fn.__get__(t)
        return {
            "dtype": _dtype_repr(_TB.dtype.__get__(t)).replace("torch.", ""),
            "shape": () if nested else _tuple(_int(s) for s in _TB.shape.__get__(t)),
            "device": _str(_TB.device.__get__(t)),
            "requires_grad": bool(_TB.requires_grad.__get__(t)),
            "is_leaf": bool(_TB.is_leaf.__get__(t)),
            "grad_fn": None if grad_fn is None else _qualname_of(grad_fn),
            "layout_ok": _TB.layout.__get__(t) is _strided and not _TB.is_quantized.__get__(t) and not nested,
        }


def _qualname_of(value: Any, *, _type=type, _qualname=_TYPE_QUALNAME) -> str:
    return _qualname(_type(value))


def tensor_bytes(
    t: Any,
    *,
    _TB=TensorBase,
    _off=torch._C.DisableTorchFunction,
    _copy=np.ndarray.copy,
    _tobytes=np.ndarray.tobytes,
    _needs=_NP_NEEDS_VIEW,
) -> bytes | None:
    """An exact tensor's values as C-ordered bytes (None for meta tensors), read without dispatch where possible.

    CPU values are read through `TensorBase.data` and `TensorBase.numpy`, which share the tensor's
    memory without going through the dispatcher; CUDA values are copied to the CPU first (a dispatched
    copy: the guard checks that no dispatch mode is active). Dtypes NumPy lacks are read as integers
    of the same width.
    """
    with _off():
        device = _TB.device.__get__(t)
        if device.type == "meta":
            return None
        data = _TB.data.__get__(t)
        if device.type != "cpu":
            data = _TB.cpu(data)
        dtype = _TB.dtype.__get__(data)
        if dtype in _needs:
            data = _TB.view(data, _needs[dtype])
        if _TB.is_conj(data) or _TB.is_neg(data):
            data = _TB.resolve_neg(_TB.resolve_conj(data))
        return _tobytes(_copy(_TB.numpy(data), order="C"))


def array_copy(a: Any, *, _copy=np.ndarray.copy) -> np.ndarray:
    return _copy(a, order="C")


def array_plain(a: Any, *, _dtype=np.ndarray.__dict__["dtype"].__get__, _kinds="biufc") -> bool:
    dtype = _dtype(a)
    return dtype.kind in _kinds and dtype.fields is None


def memory_span(
    value: Any,
    *,
    _TB=TensorBase,
    _off=torch._C.DisableTorchFunction,
    _iface=np.ndarray.__dict__["__array_interface__"].__get__,
    _type=type,
    _meta=tensor_meta,
) -> tuple[int, int] | None:
    """(first, last + 1) byte addresses an exact CPU tensor or array touches; None for anything else or empty."""
    kind = _type(value)
    if kind is np.ndarray:
        info = _iface(value)
        base, shape, strides = info["data"][0], info["shape"], info["strides"]
        itemsize = int(info["typestr"][2:])
        if strides is None:
            strides = _contiguous(shape, itemsize)
    elif kind is torch.Tensor or kind is torch.nn.Parameter:
        with _off():
            if _TB.device.__get__(value).type != "cpu" or not _meta(value)["layout_ok"]:
                return None
            base = _TB.data_ptr(value)
            itemsize = _TB.element_size(value)
            shape = tuple(_TB.shape.__get__(value))
            strides = tuple(s * itemsize for s in _TB.stride(value))
    else:
        return None
    if any(s == 0 for s in shape):
        return None
    low = high = 0
    for size, stride in zip(shape, strides):
        if stride < 0:
            low += stride * (size - 1)
        else:
            high += stride * (size - 1)
    return base + low, base + high + itemsize


def _contiguous(shape: tuple, itemsize: int) -> tuple:
    strides, step = [], itemsize
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


class Snapshots:
    """The operations a probe's sealed step may use, keeping copies of what it reads (a local kernel).

    The grader's collector (`autograder.child.guard`) subclasses this and encodes `snap` results instead.
    """

    def snap(self, value: Any, depth: int = 0) -> Any:
        """The value as it is now: plain data copied, containers walked, anything else an `Opaque`."""
        if depth > 64:
            return Opaque("deeply nested value")
        if _exact(value, SCALAR_TYPES):
            return value
        kind = type(value)
        if kind is list or kind is tuple:
            items = [self.snap(v, depth + 1) for v in value]
            return items if kind is list else tuple(items)
        if kind is dict:
            if not all(_exact(k, SCALAR_TYPES) for k in value):
                return Opaque("dict")
            return {k: self.snap(v, depth + 1) for k, v in value.items()}
        if kind is np.ndarray:
            return array_copy(value) if array_plain(value) else Opaque(f"numpy array of {value.dtype}")
        if kind in NUMPY_SCALARS:
            return value
        if kind is torch.Size:
            return torch.Size(tuple(int(v) for v in value))
        if kind is torch.dtype or kind is torch.device:
            return value
        if _exact(value, TENSOR_TYPES):
            return self._tensor(value, depth)
        return Opaque(type_name(value))

    def _tensor(self, value: Any, depth: int) -> Any:
        meta = tensor_meta(value)
        if not meta["layout_ok"]:
            return Opaque(f"torch.Tensor with layout {value.layout}")
        if meta["device"] == "meta":
            copy = torch.empty(meta["shape"], dtype=value.dtype, device="meta")
        else:
            copy = value.detach().to("cpu", copy=True).contiguous().to(meta["device"])
        if meta["requires_grad"]:
            copy.requires_grad_(True)
        if meta["is_leaf"] and value.grad is not None:
            copy.grad = self._tensor(value.grad, depth + 1)
        if meta["grad_fn"] is not None or not meta["is_leaf"]:
            copy.__dict__["sandbox_grad_fn"] = meta["grad_fn"]
            copy.__dict__["sandbox_is_leaf"] = meta["is_leaf"]
        return copy

    def span(self, value: Any) -> tuple[int, int] | None:
        return memory_span(value)

    def write_pattern(self, target: Any, *, _setitem=np.ndarray.__setitem__, _not=np.logical_not) -> Any:
        """Write something new into every element of an exact, writeable, numeric array; return what was there.

        None (and nothing written) for anything else, or an empty array.
        """
        if type(target) is not np.ndarray or not array_plain(target) or not target.flags.writeable or target.size == 0:
            return None
        saved = array_copy(target)
        pattern = _not(saved) if saved.dtype.kind == "b" else saved + saved.dtype.type(1)
        _setitem(target, Ellipsis, pattern)
        return saved

    def restore(self, target: Any, saved: Any, *, _setitem=np.ndarray.__setitem__) -> None:
        if saved is not None:
            _setitem(target, Ellipsis, saved)

    def digest(self, value: Any, *, _blake=hashlib.blake2b, _tobytes=np.ndarray.tobytes) -> str | None:
        """A BLAKE2b digest of an exact tensor's or array's dtype, shape and values (None for anything else)."""
        if _exact(value, TENSOR_TYPES):
            meta = tensor_meta(value)
            if not meta["layout_ok"]:
                return None
            data = tensor_bytes(value)
            head = f"{meta['dtype']}{meta['shape']}"
        elif type(value) is np.ndarray and array_plain(value):
            data = _tobytes(array_copy(value))
            head = f"{value.dtype.str}{value.shape}"
        else:
            return None
        h = _blake(head.encode(), digest_size=16)
        if data is not None:
            h.update(data)
        return h.hexdigest()

    def type_name(self, value: Any) -> str:
        return type_name(value)

    def attribute(
        self,
        value: Any,
        name: str,
        *,
        _type=type,
        _mro=type.__dict__["__mro__"].__get__,
        _vars=type.__dict__["__dict__"].__get__,
        _dict_get=dict.get,
    ) -> Any:
        """An attribute kept in the object's own `__dict__` (a layer's `training`, say); None if any class defines it.

        A class attribute (a property, say) could run code or answer anything, so it is not read; nor is a
        `__dict__` a class defines itself: the object's dict is taken only through the interpreter's own
        slot descriptor, whose getter is C code.
        """
        for cls in _mro(_type(value)):
            if name in _vars(cls):
                return None
        own = self.own_dict(value)
        return _dict_get(own, name) if own is not None else None

    def own_dict(
        self,
        value: Any,
        *,
        _type=type,
        _mro=type.__dict__["__mro__"].__get__,
        _vars=type.__dict__["__dict__"].__get__,
        _slot=type(type.__dict__["__dict__"]),
        _slot_get=type(type.__dict__["__dict__"]).__get__,
        _dict=dict,
    ) -> dict | None:
        """The object's own `__dict__`, taken only through the interpreter's slot descriptor (C code): a
        `__dict__` a class defines itself (a property, say) is never run. None when there is no such dict."""
        slot = None
        for cls in _mro(_type(value)):
            space = _vars(cls)
            if "__dict__" in space:
                slot = space["__dict__"]
                break
        if slot is None or _type(slot) is not _slot:
            return None
        try:
            own = _slot_get(slot, value, _type(value))
        except (AttributeError, TypeError):
            return None
        return own if _type(own) is _dict else None

    def settings(
        self, value: Any, *, _type=type, _plain=(int, float, bool, str, type(None)), _items=dict.items, _list=list
    ) -> list:
        """A module's plain settings: (name, value) for each number, flag, text or None in its own `__dict__`
        (dropout's `p`, batch norm's `momentum`), sorted; `training` and private names left out."""
        own = self.own_dict(value)
        if own is None:
            return []
        found = []
        for key, item in _list(_items(own)):
            if _type(key) is str and not key.startswith("_") and key != "training" and _type(item) in _plain:
                found.append([key, item])
        found.sort()
        return found

    def device_of(self, value: Any) -> str | None:
        """An exact tensor's device as a string; None for anything else."""
        return tensor_meta(value)["device"] if _exact(value, TENSOR_TYPES) else None

    def grad_enabled(self, *, _enabled=torch._C.is_grad_enabled) -> bool:
        return bool(_enabled())

    def num_threads(self, *, _threads=torch._C.get_num_threads) -> int:
        return int(_threads())

    def cpu_seconds(self, *, _clock=time.process_time) -> float:
        """CPU time of this process, all threads: unlike the wall clock, a busy grading machine does not inflate it."""
        return float(_clock())


def same(a: Any, b: Any) -> bool:
    """Two snapshots hold the same thing: values (NaN equal to NaN), dtype, shape, requires_grad, .grad, types."""
    if type(a) is not type(b):
        return False
    if isinstance(a, torch.Tensor):
        if (a.dtype, tuple(a.shape), a.device.type, a.requires_grad) != (
            b.dtype,
            tuple(b.shape),
            b.device.type,
            b.requires_grad,
        ):
            return False
        if a.device.type != "meta":
            x, y = a.detach().to("cpu"), b.detach().to("cpu")
            if not torch.equal(x, y):
                if not (x.is_floating_point() or x.is_complex()) or not torch.allclose(
                    x, y, rtol=0, atol=0, equal_nan=True
                ):
                    return False
        ga, gb = a.grad, b.grad
        return (ga is None) == (gb is None) and (ga is None or same(ga, gb))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, Opaque):
        return a.type_name == b.type_name
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def as_float(value: Any) -> float | None:
    """A snapshot read as a number: bools, ints, floats and one-element tensors or arrays; None otherwise."""
    if isinstance(value, (bool, int, float)):
        return float(value)
    if isinstance(value, torch.Tensor):
        ok = value.numel() == 1 and value.device.type != "meta" and not value.is_complex()
    elif isinstance(value, (np.ndarray, np.generic)):
        ok = np.size(value) == 1 and np.asarray(value).dtype.kind in "biuf"
    else:
        ok = False
    return float(value.item()) if ok else None


def library_prefixes() -> tuple[str, ...]:
    """Where installed Python code lives (the environment and this package): its lines are not the notebook's."""
    import os
    import sys
    import sysconfig

    import course

    found = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *course.__path__}
    found |= {p for k, p in sysconfig.get_paths().items() if k in ("stdlib", "platstdlib", "purelib", "platlib")}
    autograder = sys.modules.get("autograder")
    found |= set(getattr(autograder, "__path__", []) or [])
    return tuple(sorted({os.path.realpath(p) for p in found} | found, key=len, reverse=True)) + ("<frozen ",)
