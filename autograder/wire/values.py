"""Values on the wire: tagged nodes (`{"t": ...}`) built from a fixed set of types, checked on the way in.

Array and tensor data travel as the frame's buffers. Every node is checked against the schema on the
way in; anything else raises `frames.WireError`. No pickle, no eval: a decoder only ever builds the
types listed here, or asks its caller to make a handle for an id.
"""

from __future__ import annotations

import ctypes
import math
import re
import sys
from typing import Any, Callable

import numpy as np

from autograder.wire.frames import DEFAULT_CAPS, Caps, WireError


class RemoteError(Exception):
    """An exception raised on the other side, as plain data: its type name and message."""

    def __init__(self, type_name: str, message: str):
        super().__init__(type_name, message)
        self.type_name = type_name
        self.message = message


class Handle:
    """A reference to an object that stays on the other side: an id in its handle table."""

    __slots__ = ("id", "type_name")

    def __init__(self, id: int, type_name: str = "object"):
        self.id = id
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"<handle {self.id} of {self.type_name}>"


NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]{0,200}$")
DEVICE = re.compile(r"^[a-z_]{1,20}(:[0-9]{1,4})?$")
ARRAY_KINDS = "biufc"


# Every node's keys besides its tag "t", by tag: the schema both encoders write (`Encoder` and the
# guard's sealed evidence) and the decoder checks first. `tests/autograder/wire/test_parity.py` holds both encoders to it.
SCHEMA: dict[str, frozenset[str]] = {
    "none": frozenset(),
    "bool": frozenset({"v"}),
    "int": frozenset({"v"}),
    "float": frozenset({"v"}),
    "complex": frozenset({"v"}),
    "str": frozenset({"v"}),
    "bytes": frozenset({"buf"}),
    "list": frozenset({"v"}),
    "tuple": frozenset({"v"}),
    "dict": frozenset({"k", "v"}),
    "handle": frozenset({"id", "type"}),
    "opaque": frozenset({"type"}),
    "exc": frozenset({"type", "msg"}),
    "npscalar": frozenset({"dtype", "buf"}),
    "ndarray": frozenset({"dtype", "shape", "strides", "offset", "buf"}),
    "size": frozenset({"v"}),
    "dtype": frozenset({"v"}),
    "device": frozenset({"v"}),
    "tensor": frozenset(
        {"dtype", "shape", "stride", "offset", "device", "requires_grad", "is_leaf", "grad_fn", "grad", "buf"}
    ),
}


def _torch():
    import torch

    return torch


def _torch_dtypes() -> dict[str, Any]:
    torch = _torch()
    out = {}
    for name in dir(torch):
        value = getattr(torch, name, None)
        if isinstance(value, torch.dtype):
            out[str(value).removeprefix("torch.")] = value
    return out


_DTYPES: dict[str, Any] | None = None


def torch_dtype(name: str):
    global _DTYPES
    if _DTYPES is None:
        _DTYPES = _torch_dtypes()
    try:
        return _DTYPES[name]
    except KeyError:
        raise WireError(f"unknown torch dtype {name!r}") from None


_PLAIN_DTYPES = None
_NOT_PLAIN = re.compile(r"^(q|bits|u?int[1-7]$)")


def plain_tensor_dtypes() -> set:
    """Dtypes whose storage bytes can cross: numbers and bools; not quantized, packed-bit or sub-byte ones."""
    global _PLAIN_DTYPES
    if _PLAIN_DTYPES is None:
        _PLAIN_DTYPES = {d for name, d in _torch_dtypes().items() if not _NOT_PLAIN.match(name)}
    return _PLAIN_DTYPES


# ndarray's own getters: a subclass cannot make them describe memory the array does not own.
_ARRAY_INTERFACE = np.ndarray.__dict__["__array_interface__"].__get__
_ARRAY_DTYPE = np.ndarray.__dict__["dtype"].__get__
_ARRAY_SHAPE = np.ndarray.__dict__["shape"].__get__
_ARRAY_STRIDES = np.ndarray.__dict__["strides"].__get__


def _array_span(shape, strides, itemsize) -> tuple[int, int]:
    """(lowest, highest + itemsize) byte offsets a strided view touches, relative to its start."""
    if any(s == 0 for s in shape):
        return 0, 0
    low = high = 0
    for size, stride in zip(shape, strides):
        if stride < 0:
            low += stride * (size - 1)
        else:
            high += stride * (size - 1)
    return low, high + itemsize


class Encoder:
    """Turns a value into a node tree plus buffers; `to_handle` is asked for anything not plain."""

    def __init__(self, to_handle: Callable[[Any], Handle] | None = None, *, caps: Caps = DEFAULT_CAPS):
        self.to_handle = to_handle
        self.caps = caps
        self.buffers: list[bytes] = []
        self.nodes = 0
        self.buffer_bytes = 0

    def _buffer(self, data: bytes) -> int:
        self.buffer_bytes += len(data)
        if self.buffer_bytes > self.caps.buffer_bytes:
            raise WireError("value is over the size cap")
        self.buffers.append(data)
        return len(self.buffers) - 1

    def encode(self, value: Any, depth: int = 0) -> dict:
        self.nodes += 1
        if self.nodes > self.caps.nodes or depth > self.caps.depth:
            raise WireError("value is too large or too deeply nested")
        kind = type(value)
        if value is None:
            return {"t": "none"}
        if kind is bool:
            return {"t": "bool", "v": value}
        if kind is int:
            text = str(value) if abs(value) < 10**self.caps.int_digits else None
            if text is None:
                raise WireError("integer too large")
            return {"t": "int", "v": text}
        if kind is float:
            return {"t": "float", "v": value.hex()}
        if kind is complex:
            return {"t": "complex", "v": [value.real.hex(), value.imag.hex()]}
        if kind is str:
            if len(value) > self.caps.string_chars:
                raise WireError("string too long")
            return {"t": "str", "v": value}
        if kind is bytes:
            return {"t": "bytes", "buf": self._buffer(value)}
        if kind is tuple or kind is list:
            return {"t": kind.__name__, "v": [self.encode(v, depth + 1) for v in value]}
        if kind is dict:
            keys = list(value.keys())
            for key in keys:
                if not _plain_key(key):
                    return self._handle(value)
            return {
                "t": "dict",
                "k": [self.encode(k, depth + 1) for k in keys],
                "v": [self.encode(value[k], depth + 1) for k in keys],
            }
        if isinstance(value, Handle):
            return {"t": "handle", "id": value.id, "type": value.type_name}
        if isinstance(value, np.ndarray) and value.dtype.kind in ARRAY_KINDS and value.dtype.fields is None:
            return self.encode_array(value)
        if isinstance(value, np.generic) and value.dtype.kind in ARRAY_KINDS:
            return {"t": "npscalar", "dtype": value.dtype.str, "buf": self._buffer(np.asarray(value).tobytes())}
        if "torch" in sys.modules:
            node = self._torch(value, depth)
            if node is not None:
                return node
        if isinstance(value, BaseException) and self.to_handle is None:
            return {"t": "exc", "type": type(value).__name__, "msg": _short(str(value))}
        return self._handle(value)

    def _handle(self, value: Any) -> dict:
        if self.to_handle is None:
            raise TypeError(
                f"a {type(value).__name__} cannot cross to the sandbox: pass plain data (numbers, strings, arrays, tensors, lists, dicts)"
            )
        handle = self.to_handle(value)
        return {"t": "handle", "id": handle.id, "type": handle.type_name}

    def encode_array(self, arr: np.ndarray) -> dict:
        """The bytes an array's view spans, read from its real buffer (never from attributes a subclass could fake)."""
        if not isinstance(arr, np.ndarray):
            raise TypeError("not an array")
        dtype, shape, strides = _ARRAY_DTYPE(arr), tuple(_ARRAY_SHAPE(arr)), tuple(_ARRAY_STRIDES(arr))
        low, high = _array_span(shape, strides, dtype.itemsize)
        data = ctypes.string_at(_ARRAY_INTERFACE(arr)["data"][0] + low, high - low) if high - low else b""
        return {
            "t": "ndarray",
            "dtype": dtype.str,
            "shape": list(shape),
            "strides": list(strides),
            "offset": -low,
            "buf": self._buffer(data),
        }

    def _torch(self, value: Any, depth: int) -> dict | None:
        torch = _torch()
        if isinstance(value, torch.Size):
            return {"t": "size", "v": [int(v) for v in value]}
        if isinstance(value, torch.dtype):
            return {"t": "dtype", "v": str(value).removeprefix("torch.")}
        if isinstance(value, torch.device):
            return {"t": "device", "v": str(value)}
        if isinstance(value, torch.Tensor):
            return self._tensor(value, depth)
        return None

    def _tensor(self, value: Any, depth: int) -> dict | None:
        torch = _torch()
        with torch._C.DisableTorchFunctionSubclass():
            # the base class's own method: a subclass's `as_subclass` could answer with a clean copy
            t = torch._C.TensorBase.as_subclass(value, torch.Tensor) if type(value) is not torch.Tensor else value
            if t.layout != torch.strided or t.is_quantized or t.is_nested or t.dtype not in plain_tensor_dtypes():
                return None
            node = {
                "t": "tensor",
                "dtype": str(t.dtype).removeprefix("torch."),
                "shape": list(t.shape),
                "stride": list(t.stride()),
                "offset": int(t.storage_offset()) if t.device.type == "meta" else 0,
                "device": str(t.device),
                "requires_grad": bool(t.requires_grad),
                "is_leaf": bool(t.is_leaf),
                "grad_fn": type(t.grad_fn).__name__ if t.grad_fn is not None else None,
                "grad": None,
                "buf": None,
            }
            if t.is_leaf and t.grad is not None:
                node["grad"] = self.encode(t.grad, depth + 1)
            if t.device.type == "meta":
                return node
            low, high = _array_span(t.shape, t.stride(), 1)
            if high - low:
                flat = torch.as_strided(t.detach(), (high - low,), (1,), t.storage_offset() + low)
                data = flat.cpu().contiguous().view(torch.uint8)
                node["buf"] = self._buffer(data.numpy().tobytes())
            else:
                node["buf"] = self._buffer(b"")
            return node


def _plain_key(key: Any) -> bool:
    kind = type(key)
    if key is None or kind in (bool, int, float, str, bytes):
        return True
    return kind is tuple and all(_plain_key(k) for k in key)


def _short(text: str, limit: int = 4000) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def encode(
    value: Any, *, to_handle: Callable[[Any], Handle] | None = None, caps: Caps = DEFAULT_CAPS
) -> tuple[dict, list[bytes]]:
    enc = Encoder(to_handle, caps=caps)
    node = enc.encode(value)
    return node, enc.buffers


class Decoder:
    """Checks a node tree against the schema and rebuilds the value; handles go to `from_handle`."""

    def __init__(
        self,
        buffers: list[bytes],
        from_handle: Callable[[Handle], Any] | None = None,
        *,
        caps: Caps = DEFAULT_CAPS,
        device_ok: Callable[[str], bool] | None = None,
    ):
        self.buffers = buffers
        self.from_handle = from_handle
        self.caps = caps
        self.nodes = 0
        self.logical_bytes = 0
        self.device_ok = device_ok or _device_available

    def _count(self, shape: tuple[int, ...], itemsize: int) -> None:
        """Add an array's logical size (a view with zero strides can claim far more than it sent) to the call's cap."""
        self.logical_bytes += math.prod(shape) * itemsize
        if self.logical_bytes > self.caps.call_bytes:
            raise WireError(f"the arrays and tensors of one message claim over {self.caps.call_bytes} bytes")

    def _buf(self, index: Any) -> bytes:
        if type(index) is not int or not 0 <= index < len(self.buffers):
            raise WireError("bad buffer index")
        return self.buffers[index]

    def decode(self, node: Any, depth: int = 0) -> Any:
        self.nodes += 1
        if self.nodes > self.caps.nodes or depth > self.caps.depth:
            raise WireError("value is too large or too deeply nested")
        if not isinstance(node, dict) or not isinstance(node.get("t"), str):
            raise WireError("a value node must be an object with a type tag")
        t = node["t"]
        keys = SCHEMA.get(t)
        if keys is None:
            raise WireError(f"unknown value type {t!r}")
        if node.keys() != keys | {"t"}:
            raise WireError(f"node {t!r} has keys {sorted(node)}, expected {sorted(keys | {'t'})}")
        return getattr(self, f"_d_{t}")(node, depth)

    def _d_none(self, node, depth):
        return None

    def _d_bool(self, node, depth):
        if type(node["v"]) is not bool:
            raise WireError("bad bool")
        return node["v"]

    def _d_int(self, node, depth):
        text = node["v"]
        if type(text) is not str or not re.fullmatch(r"-?[0-9]{1,%d}" % self.caps.int_digits, text):
            raise WireError("bad int")
        return int(text)

    def _float(self, text: Any) -> float:
        if type(text) is not str or len(text) > 40:
            raise WireError("bad float")
        try:
            return float.fromhex(text)
        except ValueError:
            raise WireError("bad float") from None

    def _d_float(self, node, depth):
        return self._float(node["v"])

    def _d_complex(self, node, depth):
        v = node["v"]
        if type(v) is not list or len(v) != 2:
            raise WireError("bad complex")
        return complex(self._float(v[0]), self._float(v[1]))

    def _d_str(self, node, depth):
        if type(node["v"]) is not str or len(node["v"]) > self.caps.string_chars:
            raise WireError("bad str")
        return node["v"]

    def _d_bytes(self, node, depth):
        return bytes(self._buf(node["buf"]))

    def _items(self, node, depth) -> list:
        if type(node.get("v")) is not list:
            raise WireError("bad sequence")
        return [self.decode(v, depth + 1) for v in node["v"]]

    def _d_list(self, node, depth):
        return self._items(node, depth)

    def _d_tuple(self, node, depth):
        return tuple(self._items(node, depth))

    def _d_dict(self, node, depth):
        keys, values = node["k"], node["v"]
        if type(keys) is not list or type(values) is not list or len(keys) != len(values):
            raise WireError("bad dict")
        out = {}
        for k, v in zip(keys, values):
            key = self.decode(k, depth + 1)
            if not _plain_key(key):
                raise WireError("bad dict key")
            out[key] = self.decode(v, depth + 1)
        return out

    def _d_handle(self, node, depth):
        if type(node["id"]) is not int or node["id"] < 0 or type(node["type"]) is not str or len(node["type"]) > 300:
            raise WireError("bad handle")
        if self.from_handle is None:
            raise WireError("a handle where only plain data may come")
        return self.from_handle(Handle(node["id"], node["type"]))

    def _d_opaque(self, node, depth):
        if type(node["type"]) is not str or len(node["type"]) > 300:
            raise WireError("bad opaque value")
        from course.probes.evidence import Opaque

        return Opaque(node["type"])

    def _d_exc(self, node, depth):
        if type(node["type"]) is not str or not NAME.match(node["type"]) or type(node["msg"]) is not str:
            raise WireError("bad exception")
        return RemoteError(node["type"], node["msg"])

    def _shape(self, value, *, negative_ok: bool = False) -> tuple[int, ...]:
        if type(value) is not list or len(value) > 64:
            raise WireError("bad shape")
        if not all(type(v) is int and (negative_ok or v >= 0) and abs(v) < 1 << 62 for v in value):
            raise WireError("bad shape")
        return tuple(value)

    def _np_dtype(self, text) -> np.dtype:
        if type(text) is not str or not re.fullmatch(r"[<>|=][biufc][0-9]{1,2}", text):
            raise WireError(f"bad array dtype {text!r}")
        try:
            return np.dtype(text)
        except TypeError:
            raise WireError(f"bad array dtype {text!r}") from None

    def _d_npscalar(self, node, depth):
        dtype = self._np_dtype(node["dtype"])
        data = self._buf(node["buf"])
        if len(data) != dtype.itemsize:
            raise WireError("bad scalar")
        _check_bools(dtype.kind, data)
        return np.frombuffer(data, dtype=dtype)[0]

    def _d_ndarray(self, node, depth):
        dtype = self._np_dtype(node["dtype"])
        shape = self._shape(node["shape"])
        strides = self._shape(node["strides"], negative_ok=True)
        offset = node["offset"]
        data = self._buf(node["buf"])
        if len(strides) != len(shape) or type(offset) is not int:
            raise WireError("bad array layout")
        low, high = _array_span(shape, strides, dtype.itemsize)
        if high - low != len(data) or offset != -low:
            raise WireError("array layout does not match its buffer")
        if math.prod(shape) > self.caps.tensor_elements:
            raise WireError("array too large")
        self._count(shape, dtype.itemsize)
        _check_bools(dtype.kind, data)
        return np.ndarray(shape, dtype=dtype, buffer=bytearray(data), offset=offset, strides=strides)

    def _d_size(self, node, depth):
        return _torch().Size(self._shape(node["v"]))

    def _d_dtype(self, node, depth):
        if type(node["v"]) is not str:
            raise WireError("bad dtype")
        return torch_dtype(node["v"])

    def _device(self, text):
        if type(text) is not str or not DEVICE.match(text):
            raise WireError(f"bad device {text!r}")
        try:
            return _torch().device(text)
        except RuntimeError:
            raise WireError(f"bad device {text!r}") from None

    def _d_device(self, node, depth):
        return self._device(node["v"])

    def _d_tensor(self, node, depth):
        torch = _torch()
        dtype = torch_dtype(node["dtype"]) if type(node["dtype"]) is str else None
        if dtype is None or dtype not in plain_tensor_dtypes():
            raise WireError("bad tensor dtype")
        shape = self._shape(node["shape"])
        stride = self._shape(node["stride"])
        offset = node["offset"]
        device = self._device(node["device"])
        if len(stride) != len(shape) or type(offset) is not int or offset < 0:
            raise WireError("bad tensor layout")
        for key in ("requires_grad", "is_leaf"):
            if type(node[key]) is not bool:
                raise WireError(f"bad {key}")
        grad_fn = node["grad_fn"]
        if grad_fn is not None and (type(grad_fn) is not str or not NAME.match(grad_fn)):
            raise WireError("bad grad_fn")
        _, span = _array_span(shape, stride, 1)
        if device.type != "meta" and (
            offset + span > self.caps.tensor_elements or math.prod(shape) > self.caps.tensor_elements
        ):
            raise WireError("tensor too large")
        itemsize = torch.empty((), dtype=dtype).element_size()
        if device.type == "meta":
            if node["buf"] is not None:
                raise WireError("a meta tensor carries no data")
            storage = torch.empty(offset + span, dtype=dtype, device="meta")
        else:
            # The storage is exactly the bytes that crossed: a view's offset and span must lie inside them.
            data = self._buf(node["buf"])
            if len(data) != (offset + span) * itemsize:
                raise WireError(
                    "tensor layout does not match its buffer (its offset and span claim bytes that were not sent)"
                )
            self._count(shape, itemsize)
            if dtype == torch.bool:
                _check_bools("b", data)
            storage = (
                torch.frombuffer(bytearray(data), dtype=torch.uint8).view(dtype)
                if data
                else torch.empty(0, dtype=dtype)
            )
            if device.type != "cpu" and self.device_ok(str(device)):
                storage = storage.to(device)
        tensor = torch.as_strided(storage, shape, stride, offset)
        if node["requires_grad"]:
            if not (dtype.is_floating_point or dtype.is_complex):
                raise WireError("only floating-point tensors can require grad")
            tensor.requires_grad_(True)
        if node["grad"] is not None:
            grad = self.decode(node["grad"], depth + 1)
            if not isinstance(grad, torch.Tensor):
                raise WireError("a tensor's grad must be a tensor")
            try:
                tensor.grad = grad
            except RuntimeError as exc:
                raise WireError(f"bad grad: {exc}") from None
        if grad_fn is not None or not node["is_leaf"]:
            tensor.__dict__["sandbox_grad_fn"] = grad_fn
            tensor.__dict__["sandbox_is_leaf"] = node["is_leaf"]
        return tensor


def _check_bools(kind: str, data: bytes) -> None:
    if kind == "b" and data and max(data) > 1:
        raise WireError("bool data must be 0 or 1")


def _device_available(text: str) -> bool:
    torch = _torch()
    kind = text.split(":")[0]
    if kind == "cuda":
        return torch.cuda.is_available()
    if kind == "mps":
        return getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available()
    return kind == "cpu"


def decode(
    node: Any, buffers: list[bytes], *, from_handle: Callable[[Handle], Any] | None = None, caps: Caps = DEFAULT_CAPS
) -> Any:
    return Decoder(buffers, from_handle, caps=caps).decode(node)


def grad_fn_name(tensor: Any) -> str | None:
    """The grad_fn name a tensor had in the sandbox (rebuilt tensors are leaves), or its own."""
    if "sandbox_grad_fn" in getattr(tensor, "__dict__", {}):
        return tensor.__dict__["sandbox_grad_fn"]
    return None if tensor.grad_fn is None else type(tensor.grad_fn).__name__
