"""The probe's evidence readers against PyTorch and NumPy as the oracle, and against what they must refuse. On
honest values (Hypothesis tensors of every dtype with arbitrary bits, as contiguous and strided views,
conjugate views, autograd leaves and results, a Parameter; NumPy arrays, views and scalars) `tensor_meta`,
`tensor_bytes`, `memory_span`, `array_copy`, `array_plain` and `Snapshots` agree with a slow, obvious
element-by-element reference. Things that could lie (a subclass of Tensor or ndarray, an object whose
`__class__`, `__getattr__`, `__array__` or `__torch_function__` lies, a lying torch function mode, a
metaclass) and tensors without plain strided storage are reported as opaque or refused, never asked.
"""

from __future__ import annotations

import itertools
import math
import os
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from torch.overrides import TorchFunctionMode

from autograder.child.guard import SealedSnapshots
from course.probes import evidence as ev

DTYPES = [
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
    torch.complex64,
    torch.complex128,
]
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128]
EXAMPLES = settings(max_examples=60, deadline=None)


# ---------------------------------------------------------------- slow, obvious references


def indices(shape: tuple[int, ...]):
    """Every index of `shape` in C order (the last dimension fastest)."""
    return itertools.product(*(range(n) for n in shape))


def element_bytes(element: torch.Tensor) -> bytes:
    """One element's bytes as PyTorch stores its value (a conjugate view's value resolved first)."""
    return bytes(element.reshape(1).clone().resolve_conj().resolve_neg().view(torch.uint8).tolist())


def reference_bytes(t: torch.Tensor) -> bytes:
    return b"".join(element_bytes(t[index]) for index in indices(tuple(t.shape)))


def reference_span(t: torch.Tensor) -> tuple[int, int] | None:
    """First and last + 1 byte of the elements, from each element's own address."""
    if t.numel() == 0:
        return None
    size = t.element_size()
    addresses = [t.data_ptr() + size * sum(i * s for i, s in zip(index, t.stride())) for index in indices(t.shape)]
    return min(addresses), max(addresses) + size


def reference_meta(t: torch.Tensor) -> dict:
    return {
        "dtype": str(t.dtype).removeprefix("torch."),
        "shape": tuple(t.shape),
        "device": str(t.device),
        "requires_grad": t.requires_grad,
        "is_leaf": t.is_leaf,
        "grad_fn": None if t.grad_fn is None else type(t.grad_fn).__name__,
        "layout_ok": True,
    }


# ---------------------------------------------------------------- strategies


@st.composite
def tensors(draw) -> torch.Tensor:
    """A tensor of any dtype and arbitrary bits (NaNs, infinities, -0.0), often a strided view of a bigger one."""
    dtype = draw(st.sampled_from(DTYPES))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    size = torch.empty((), dtype=dtype).element_size()
    raw = bytearray(draw(st.binary(min_size=math.prod(shape) * size, max_size=math.prod(shape) * size)))
    if dtype is torch.bool:
        raw = bytearray(b & 1 for b in raw)
    t = torch.frombuffer(raw, dtype=dtype).reshape(shape) if raw else torch.empty(shape, dtype=dtype)
    for view in draw(st.lists(st.sampled_from(["permute", "slice", "expand", "conj", "offset"]), max_size=3)):
        if view == "permute" and t.dim() > 1:
            t = t.permute(*draw(st.permutations(range(t.dim()))))
        elif view == "slice" and t.dim() > 0:
            dim = draw(st.integers(0, t.dim() - 1))
            index = [slice(None)] * t.dim()
            index[dim] = slice(draw(st.integers(0, 2)), None, draw(st.integers(1, 3)))
            t = t[tuple(index)]
        elif view == "expand":
            t = t.unsqueeze(0).expand(2, *t.shape)
        elif view == "conj" and t.is_complex():
            t = t.conj()
        elif view == "offset" and t.numel() > 1:
            t = t.flatten()[1:]
    return t


NUMERIC_DTYPES = st.one_of(
    hnp.boolean_dtypes(),
    hnp.integer_dtypes(endianness="="),
    hnp.unsigned_integer_dtypes(endianness="="),
    hnp.floating_dtypes(endianness="="),
    hnp.complex_number_dtypes(endianness="="),
)


@st.composite
def array_views(draw) -> np.ndarray:
    """A numeric array of any values, often a view with negative steps, an offset or transposed axes."""
    a = draw(hnp.arrays(NUMERIC_DTYPES, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)))
    view = a[draw(hnp.basic_indices(a.shape, allow_newaxis=True))]
    if type(view) is not np.ndarray:
        return a
    return view.T if draw(st.booleans()) else view


# ---------------------------------------------------------------- honest tensors


@EXAMPLES
@given(tensors())
def test_tensor_meta_agrees_with_torch(t):
    """Fails if a field is read from the wrong place or spelled otherwise than torch does (`float32`, `(2, 3)`)."""
    assert ev.tensor_meta(t) == reference_meta(t)


@EXAMPLES
@given(tensors())
def test_tensor_bytes_are_the_values_in_c_order(t):
    """Fails bytes read from storage order (a transposed or strided view), or a conjugate view read unresolved."""
    assert ev.tensor_bytes(t) == reference_bytes(t)


@EXAMPLES
@given(tensors())
def test_memory_span_covers_exactly_the_elements(t):
    """Fails a span that ignores the storage offset, stride 0 of an expanded view, or the last element's width."""
    assert ev.memory_span(t) == reference_span(t)


@EXAMPLES
@given(tensors())
def test_snapshot_of_a_tensor_is_an_equal_independent_copy(t):
    """The snapshot must hold today's values even if the student's tensor changes after it is taken."""
    copy = ev.Snapshots().snap(t)
    assert type(copy) is torch.Tensor and copy.dtype == t.dtype and copy.shape == t.shape
    assert copy.is_contiguous() and not copy.is_conj()
    assert reference_bytes(copy) == reference_bytes(t)
    if t.numel():
        assert copy.untyped_storage().data_ptr() != t.untyped_storage().data_ptr()


def rebuilt(t: torch.Tensor, raw: bytes) -> torch.Tensor:
    """A fresh contiguous tensor of t's dtype and shape holding the C-ordered bytes `raw`."""
    if not raw:
        return torch.empty(t.shape, dtype=t.dtype)
    return torch.frombuffer(bytearray(raw), dtype=t.dtype).reshape(t.shape)


def other_shape(value):
    """The same elements under another shape: flattened, or a row if already flat."""
    return value.reshape(-1) if value.ndim != 1 else value[None]


@EXAMPLES
@given(tensors(), st.data())
def test_digest_follows_dtype_shape_and_values(t, data):
    """Equal for a contiguous copy; changes with one flipped bit or another shape (fails a digest of metadata alone)."""
    snaps = ev.Snapshots()
    raw = reference_bytes(t)
    assert snaps.digest(t) == snaps.digest(rebuilt(t, raw))
    if raw:
        changed = bytearray(raw)
        changed[data.draw(st.integers(0, len(raw) - 1))] ^= 1 << data.draw(st.integers(0, 7))
        assert snaps.digest(rebuilt(t, bytes(changed))) != snaps.digest(t)
    assert snaps.digest(t) != snaps.digest(other_shape(t))


def _autograd_cases() -> list[tuple[str, torch.Tensor]]:
    leaf = torch.linspace(-1, 1, 6).reshape(2, 3).requires_grad_()
    cases = [
        ("leaf", leaf),
        ("plain", torch.arange(6.0).reshape(2, 3)),
        ("product", leaf * 2),
        ("sum", (leaf * leaf).sum()),
        ("view of a result", (leaf + 1).T[1:]),
        ("detached", (leaf * 3).detach()),
        ("parameter", torch.nn.Parameter(torch.ones(2, 2))),
        ("layer weight", torch.nn.Linear(3, 2).weight),
        ("integer", torch.arange(4)),
    ]
    with_grad = torch.ones(3, requires_grad=True)
    (with_grad * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    cases.append(("leaf with .grad", with_grad))
    return cases


@pytest.mark.parametrize("t", [t for _, t in _autograd_cases()], ids=[name for name, _ in _autograd_cases()])
def test_autograd_metadata_agrees_with_torch(t):
    """requires_grad, is_leaf and grad_fn as torch says, for leaves, results, views, detached tensors, a Parameter."""
    assert ev.tensor_meta(t) == reference_meta(t)
    assert ev.tensor_bytes(t) == reference_bytes(t.detach())
    assert ev.memory_span(t) == reference_span(t)


@pytest.mark.parametrize("t", [t for _, t in _autograd_cases()], ids=[name for name, _ in _autograd_cases()])
def test_snapshot_keeps_autograd_state(t):
    """The copy keeps requires_grad, a leaf's .grad, and a result's grad_fn name, but no link to the live graph."""
    copy = ev.Snapshots().snap(t)
    assert type(copy) is torch.Tensor and copy.requires_grad == t.requires_grad and copy.is_leaf
    assert ev.same(copy.detach(), t.detach())
    if t.is_leaf and t.grad is not None:
        assert torch.equal(copy.grad, t.grad) and copy.grad is not t.grad
    else:
        assert copy.grad is None
    if not t.is_leaf:
        assert copy.__dict__["sandbox_grad_fn"] == type(t.grad_fn).__name__
        assert copy.__dict__["sandbox_is_leaf"] is False
    else:
        assert "sandbox_grad_fn" not in copy.__dict__


def test_device_of_and_meta_tensors():
    """A meta tensor has a shape and dtype but no values: bytes and span are None, the digest still differs by shape."""
    t = torch.empty(2, 3, device="meta")
    snaps = ev.Snapshots()
    assert ev.tensor_meta(t)["device"] == "meta" and ev.tensor_meta(t)["shape"] == (2, 3)
    assert ev.tensor_bytes(t) is None and ev.memory_span(t) is None
    assert snaps.digest(t) != snaps.digest(torch.empty(3, 2, device="meta"))
    assert snaps.device_of(t) == "meta" and snaps.device_of(torch.ones(1)) == "cpu"
    copy = snaps.snap(t)
    assert copy.device.type == "meta" and copy.shape == t.shape


# ---------------------------------------------------------------- honest arrays and scalars


def reference_plain(dtype: np.dtype) -> bool:
    """Numbers or booleans, one per element: what a probe may copy and compare."""
    if dtype.fields is not None or dtype.subdtype is not None:
        return False
    if np.issubdtype(dtype, np.timedelta64):
        return False
    return any(np.issubdtype(dtype, kind) for kind in (np.bool_, np.integer, np.floating, np.complexfloating))


ANY_DTYPE = st.one_of(
    NUMERIC_DTYPES,
    hnp.floating_dtypes(endianness=">"),
    hnp.datetime64_dtypes(),
    hnp.timedelta64_dtypes(),
    hnp.unicode_string_dtypes(),
    hnp.byte_string_dtypes(),
    hnp.array_dtypes(),
    st.just(np.dtype(object)),
    st.just(np.dtype("V8")),
)


@EXAMPLES
@given(ANY_DTYPE)
def test_array_plain_is_numbers_and_booleans(dtype):
    """Fails if strings, objects, records, dates or raw bytes count as plain (a probe would copy and compare them)."""
    assert ev.array_plain(np.zeros(2, dtype=dtype)) == reference_plain(dtype)


@EXAMPLES
@given(array_views())
def test_array_copy_is_an_independent_c_ordered_copy(a):
    """Same dtype, shape and bytes in C order (NumPy's `tobytes`), its own memory: fails a view or a raw copy."""
    copy = ev.array_copy(a)
    assert type(copy) is np.ndarray and copy.dtype == a.dtype and copy.shape == a.shape
    assert copy.flags.c_contiguous and copy.flags.owndata and not np.shares_memory(copy, a)
    assert copy.tobytes() == a.tobytes()
    assert ev.array_plain(a)


@EXAMPLES
@given(array_views())
def test_memory_span_of_an_array_agrees_with_numpy(a):
    """Against NumPy's own byte_bounds: negative steps, offsets and transposes included."""
    expected = None if a.size == 0 else np.lib.array_utils.byte_bounds(a)
    assert ev.memory_span(a) == expected


@EXAMPLES
@given(array_views())
def test_snapshot_and_digest_of_an_array(a):
    snaps = ev.Snapshots()
    copy = snaps.snap(a)
    assert type(copy) is np.ndarray and copy.tobytes() == a.tobytes() and not np.shares_memory(copy, a)
    assert snaps.digest(a) == snaps.digest(a.copy(order="C"))
    assert snaps.digest(a) != snaps.digest(other_shape(a))


@EXAMPLES
@given(array_views().filter(lambda a: a.size > 0 and a.flags.writeable))
def test_write_pattern_changes_every_element_and_restore_puts_it_back(a):
    """The sharing probe's real write: every element of a modest array changes, and `restore` undoes it exactly."""
    if a.dtype.kind in "fc":
        np.nan_to_num(a, copy=False, nan=1.0, posinf=2.0, neginf=-2.0)
        for part in (a.real, a.imag) if a.dtype.kind == "c" else (a,):
            np.clip(part, -1000, 1000, out=part)
    before = a.copy()
    snaps = ev.Snapshots()
    saved = snaps.write_pattern(a)
    assert saved.tobytes() == before.tobytes()
    assert np.all(a != before)
    snaps.restore(a, saved)
    assert a.tobytes() == before.tobytes()


def test_write_pattern_refuses_what_it_may_not_write():
    snaps = ev.Snapshots()
    frozen = np.arange(3)
    frozen.flags.writeable = False
    for target in (frozen, np.zeros(0), np.array(["a"]), [1, 2], torch.ones(2)):
        assert snaps.write_pattern(target) is None
    assert frozen.tolist() == [0, 1, 2]


@pytest.mark.parametrize("kind", list(ev.NUMPY_SCALARS), ids=lambda k: k.__name__)
def test_numpy_scalars_are_kept_with_numpys_dtype(kind):
    """The table's dtype strings are NumPy's own; a scalar snapshot is the scalar itself, not converted."""
    value = kind(1)
    assert ev.NUMPY_SCALARS[kind] == np.array(value).dtype.str
    copy = ev.Snapshots().snap(value)
    assert type(copy) is kind and copy == value
    node = SealedSnapshots().node(value, buffers := [])
    assert node["t"] == "npscalar" and node["dtype"] == np.dtype(kind).str and buffers == [value.tobytes()]


# ---------------------------------------------------------------- what must not be trusted


class TensorSubclass(torch.Tensor):
    pass


class LyingTensor(torch.Tensor):
    """Answers every torch function with a tidy, wrong tensor."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return torch.zeros(2, 2)


class ArraySubclass(np.ndarray):
    pass


class ClassLiar:
    """Claims to be a tensor to isinstance."""

    @property
    def __class__(self):
        return torch.Tensor


class ArrayClassLiar:
    @property
    def __class__(self):
        return np.ndarray


class AttributeLiar:
    """Answers any attribute a naive reader would ask for."""

    def __getattr__(self, name):
        return {"shape": (2, 3), "dtype": torch.float32, "device": torch.device("cpu"), "training": True}.get(name, 0)


class ArrayLiar:
    def __array__(self, dtype=None, copy=None):
        return np.arange(3)


class TorchFunctionLiar:
    """Not a tensor, but torch treats it as one through `__torch_function__`."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return torch.ones(3)


class LyingFloat(np.float64):
    def __eq__(self, other):
        return True


def untrusted() -> list[tuple[str, object, str]]:
    base = torch.arange(6.0).reshape(2, 3)
    return [
        ("tensor subclass", base.as_subclass(TensorSubclass), f"{__name__}.TensorSubclass"),
        ("lying __torch_function__", base.as_subclass(LyingTensor), f"{__name__}.LyingTensor"),
        ("ndarray subclass", np.arange(6).view(ArraySubclass), f"{__name__}.ArraySubclass"),
        ("np.matrix", np.eye(2).view(np.matrix), "numpy.matrix"),
        ("lying __class__ (tensor)", ClassLiar(), f"{__name__}.ClassLiar"),
        ("lying __class__ (array)", ArrayClassLiar(), f"{__name__}.ArrayClassLiar"),
        ("lying __getattr__", AttributeLiar(), f"{__name__}.AttributeLiar"),
        ("lying __array__", ArrayLiar(), f"{__name__}.ArrayLiar"),
        ("__torch_function__ on a non-tensor", TorchFunctionLiar(), f"{__name__}.TorchFunctionLiar"),
        ("numpy scalar subclass", LyingFloat(1.0), f"{__name__}.LyingFloat"),
    ]


@pytest.mark.parametrize("value, name", [(v, n) for _, v, n in untrusted()], ids=[i for i, _, _ in untrusted()])
def test_untrusted_values_are_opaque_and_never_read(value, name):
    """Fails a reader that checks isinstance, calls np.asarray, or reads attributes: each of these would be fooled."""
    snaps = ev.Snapshots()
    opaque = snaps.snap(value)
    assert type(opaque) is ev.Opaque and opaque.type_name == name
    assert snaps.snap([1, value])[1].type_name == name
    assert snaps.digest(value) is None
    assert snaps.device_of(value) is None
    assert ev.memory_span(value) is None
    assert snaps.write_pattern(value) is None
    assert ev.type_name(value) == name
    assert SealedSnapshots().node(value, []) == {"t": "opaque", "type": name}


def test_the_liars_do_fool_a_naive_reader():
    """The untrusted values above are real lies: isinstance, getattr, np.asarray and torch are taken in."""
    assert isinstance(ClassLiar(), torch.Tensor) and isinstance(ArrayClassLiar(), np.ndarray)
    assert AttributeLiar().shape == (2, 3) and AttributeLiar().training is True
    assert np.asarray(ArrayLiar()).tolist() == [0, 1, 2]
    assert torch.overrides.is_tensor_like(TorchFunctionLiar())
    assert torch.equal(torch.arange(6.0).reshape(2, 3).as_subclass(LyingTensor).sum(), torch.zeros(2, 2))
    assert LyingFloat(1.0) == 2.0


def test_attribute_reads_only_the_objects_own_dict():
    """A layer's `training` is read from its own __dict__; a `__getattr__` or a class property is never asked."""
    snaps = ev.Snapshots()
    layer = torch.nn.Linear(2, 2)
    layer.eval()
    assert snaps.attribute(layer, "training") is False
    assert snaps.attribute(AttributeLiar(), "training") is None

    class WithProperty:
        def __init__(self):
            self.__dict__["training"] = "from the dict"

        @property
        def training(self):
            return "from the property"

    assert WithProperty().training == "from the property"
    assert snaps.attribute(WithProperty(), "training") is None


def test_attribute_never_runs_a_dict_the_class_defines():
    """A model whose class defines `__dict__` as a property would run the student's code while evidence is
    taken; the reader takes the object's dict only through the interpreter's own slot, or not at all."""
    ran = []

    class DictProperty(torch.nn.Module):
        @property
        def __dict__(self):
            ran.append(True)
            return {"training": False}

    model = DictProperty()
    assert ev.Snapshots().attribute(model, "training") is None and ran == []
    plain = torch.nn.Sequential(torch.nn.Linear(2, 2))
    assert ev.Snapshots().attribute(plain, "training") is True


class LyingMode(TorchFunctionMode):
    """A torch function mode that answers every property read with a wrong size, dtype or flag."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        if isinstance(result, torch.Size):
            return torch.Size([99])
        if isinstance(result, torch.dtype):
            return torch.int8
        if isinstance(result, bool):
            return not result
        if isinstance(result, np.ndarray):
            return np.zeros_like(result)
        return result


def test_a_torch_function_mode_is_not_asked():
    """Under a mode that lies, the readers still see the truth (they read with torch functions disabled)."""
    t = torch.arange(6.0).reshape(2, 3).requires_grad_()
    truth = (reference_meta(t), reference_bytes(t.detach()), reference_span(t))
    with LyingMode():
        assert t.shape == (99,) and t.dtype is torch.int8 and t.requires_grad is False
        assert (ev.tensor_meta(t), ev.tensor_bytes(t), ev.memory_span(t)) == truth


class LyingMeta(type):
    def __getattribute__(cls, name):
        if name == "__qualname__":
            return "Tensor"
        if name == "__module__":
            return "torch"
        return super().__getattribute__(name)


class Disguised(metaclass=LyingMeta):
    pass


def test_type_name_reads_the_class_itself():
    """A metaclass cannot make an object look like a torch.Tensor by name; honest names are module.qualname."""
    assert type(Disguised()).__qualname__ == "Tensor" and type(Disguised()).__module__ == "torch"
    assert ev.type_name(Disguised()) == f"{__name__}.Disguised"
    assert ev.type_name(ClassLiar()) == f"{__name__}.ClassLiar"
    assert [ev.type_name(v) for v in (1, None, "s", torch.ones(1), np.float32(1), np.zeros(1), torch.float32)] == [
        "int",
        "NoneType",
        "str",
        "torch.Tensor",
        "numpy.float32",
        "numpy.ndarray",
        "torch.dtype",
    ]

    class NotAString:
        pass

    NotAString.__module__ = 5
    assert ev.type_name(NotAString()) == "object"


def non_strided() -> list[tuple[str, object]]:
    """Tensors of the exact class whose values do not sit in plain strided memory."""
    dense = torch.arange(1.0, 10.0).reshape(3, 3)
    made = [("sparse_coo", lambda: dense.to_sparse()), ("sparse_csr", lambda: dense.to_sparse_csr())]
    made.append(("quantized", lambda: torch.quantize_per_tensor(dense, 0.5, 0, torch.quint8)))
    made.append(("nested", lambda: torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])))
    if torch.backends.mkldnn.is_available():
        made.append(("mkldnn", lambda: dense.to_mkldnn()))
    return made


def _make(maker):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = maker()
    assert type(t) is torch.Tensor
    return t


@pytest.mark.parametrize("maker", [m for _, m in non_strided()], ids=[n for n, _ in non_strided()])
def test_tensor_meta_reports_a_layout_it_cannot_read(maker):
    """`layout_ok` is how callers know not to read values: it must be False, not an exception."""
    assert ev.tensor_meta(_make(maker))["layout_ok"] is False


@pytest.mark.parametrize("maker", [m for _, m in non_strided()], ids=[n for n, _ in non_strided()])
def test_a_tensor_without_strided_layout_is_opaque(maker):
    t = _make(maker)
    assert type(ev.Snapshots().snap(t)) is ev.Opaque
    assert SealedSnapshots().node(t, [])["t"] == "opaque"


@pytest.mark.parametrize("maker", [m for _, m in non_strided()], ids=[n for n, _ in non_strided()])
def test_digest_refuses_a_tensor_without_strided_layout(maker):
    """The docstring's promise (None for what it cannot digest) rather than an exception out of the sealed step."""
    assert ev.Snapshots().digest(_make(maker)) is None


@pytest.mark.parametrize(
    "maker", [m for n, m in non_strided() if n != "quantized"], ids=[n for n, _ in non_strided() if n != "quantized"]
)
def test_memory_span_refuses_a_tensor_without_storage(maker):
    assert ev.memory_span(_make(maker)) is None


# ---------------------------------------------------------------- where library code lives


def test_library_prefixes_cover_installed_code_and_not_the_notebook(tmp_path):
    """Lines of torch, NumPy, the stdlib, the course and the grader are not the student's; a notebook's are."""
    import json

    import autograder

    prefixes = ev.library_prefixes()
    assert prefixes[-1] == "<frozen " and list(prefixes[:-1]) == sorted(prefixes[:-1], key=len, reverse=True)
    for path in (torch.__file__, np.__file__, json.__file__, ev.__file__, autograder.__file__):
        assert os.path.realpath(path).startswith(prefixes) and path.startswith(prefixes), path
    assert "<frozen importlib._bootstrap>".startswith(prefixes)
    notebook = tmp_path / "ipykernel_123" / "cell.py"
    assert not str(notebook).startswith(prefixes) and not os.path.realpath(notebook).startswith(prefixes)
    assert not str(Path.cwd() / "tests" / "test_lesson_01_tensors.py").startswith(prefixes)
