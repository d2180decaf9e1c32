"""The wire's schema is declared once (`wire.values.SCHEMA`, which the decoder checks first) and written by
two encoders: `wire.values.Encoder` (the judge's and the child's values) and `guard.SealedSnapshots.node`
(a probe's evidence, encoded inside the sandbox by code that must not call back into patchable modules).
Both must keep to the schema and say the same: the same nodes and buffers for the same value, and the
same value once `wire.values.Decoder` reads them; a view of a larger buffer is sealed as a compact copy."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from autograder.child import guard
from autograder.wire import frames
from autograder.wire.values import SCHEMA, Decoder, encode

DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.int64, np.float16, np.float32, np.float64, np.complex64]
TORCH_DTYPES = [
    torch.bool,
    torch.uint8,
    torch.int16,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.complex_numbers(allow_nan=False),
    st.text(max_size=20),
    st.binary(max_size=20),
)
arrays = st.sampled_from(DTYPES).flatmap(
    lambda dtype: hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=3, max_side=4))
)
views = arrays.filter(lambda a: a.ndim >= 1 and a.shape[0] >= 2).map(lambda a: a[::2])
tensors = st.builds(
    lambda data, dtype, grad: torch.tensor(data, dtype=dtype).requires_grad_(grad and dtype.is_floating_point),
    st.lists(st.integers(0, 5), min_size=0, max_size=6),
    st.sampled_from(TORCH_DTYPES),
    st.booleans(),
)
torch_values = st.one_of(
    tensors,
    st.sampled_from(TORCH_DTYPES),
    st.sampled_from([torch.device("cpu"), torch.device("meta")]),
    st.lists(st.integers(0, 9), max_size=4).map(torch.Size),
    st.sampled_from([np.float64(2.5), np.int16(-3), np.bool_(True), np.complex128(1 - 2j)]),
)
leaves = st.one_of(scalars, arrays, torch_values)
values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.one_of(st.text(max_size=5), st.integers(-5, 5)), inner, max_size=4),
    ),
    max_leaves=12,
)


def sealed(value):
    buffers: list = []
    return guard.SealedSnapshots().node(value, buffers), [bytes(b) for b in buffers]


def off_schema(node) -> list[str]:
    """Every node under `node` whose keys are not its tag's in `SCHEMA`."""
    if isinstance(node, list):
        return [bad for item in node for bad in off_schema(item)]
    if not isinstance(node, dict):
        return []
    found = [] if node.keys() == SCHEMA.get(node.get("t"), set()) | {"t"} else [json.dumps(node)[:200]]
    return found + [bad for key, value in node.items() if key != "t" for bad in off_schema(value)]


def same(a, b) -> bool:
    """Equal values of exactly the same types, dtypes, shapes and flags (NaN equal to NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    if isinstance(a, torch.Tensor):
        if (a.dtype, a.shape, a.device, a.requires_grad) != (b.dtype, b.shape, b.device, b.requires_grad):
            return False
        return a.device.type == "meta" or torch.equal(a.detach(), b.detach())
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, complex):
        return same(a.real, b.real) and same(a.imag, b.imag)
    return a == b


@settings(max_examples=300, deadline=None)
@given(values)
def test_sealed_evidence_and_the_wire_encode_a_value_alike(value):
    node, buffers = sealed(value)
    theirs, their_buffers = encode(value)
    assert off_schema(node) == off_schema(theirs) == []
    assert json.dumps(node, sort_keys=True) == json.dumps(theirs, sort_keys=True)
    assert buffers == [bytes(b) for b in their_buffers]
    assert same(Decoder(buffers).decode(node), value)


def test_every_tag_of_the_schema_is_written_and_read():
    """Each tag the schema declares has a decoder, and a node with a key too many or too few is refused."""
    assert all(callable(getattr(Decoder, f"_d_{tag}", None)) for tag in SCHEMA)
    node, _ = encode(1.5)
    for wrong in (dict(node, extra=1), {"t": "float"}):
        with pytest.raises(frames.WireError, match="has keys"):
            Decoder([]).decode(wrong)


@settings(max_examples=100, deadline=None)
@given(views)
def test_a_view_is_sealed_as_a_compact_copy_that_decodes_to_the_same_array(view):
    node, buffers = sealed(view)
    theirs, their_buffers = encode(view)
    mine, decoded = Decoder(buffers).decode(node), Decoder(list(their_buffers)).decode(theirs)
    assert same(mine, view) and same(decoded, view)
    assert len(buffers[node["buf"]]) == view.nbytes


def test_a_strided_tensor_is_sealed_as_a_compact_copy():
    view = torch.arange(12.0).reshape(3, 4)[:, ::2]
    node, buffers = sealed(view)
    assert node["stride"] == [2, 1] and same(Decoder(buffers).decode(node), view)
    assert encode(view)[0]["stride"] == [4, 2]
