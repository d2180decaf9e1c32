"""The seal on the guard's frames, tested directly: `mac` is keyed BLAKE2b over each part's length and bytes
(so it changes with the key, with any part and with where the parts split), and `open_frame` returns the
payload and data buffers of a frame sealed with the key and raises `TamperDetected`, saying why, for a
forged seal, a header the guard never writes, too few buffers, or a payload that is not a numbered JSON
report; `TamperDetected` is a BaseException so that a notebook's `except Exception` cannot swallow it.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from autograder.wire import seal

KEY = bytes(range(32))
keys = st.binary(min_size=1, max_size=64)
parts_lists = st.lists(st.binary(max_size=40), max_size=6)


def reference_mac(key: bytes, parts: list[bytes]) -> bytes:
    """The seal as the guard and the judge must both compute it, spelled out: length (8 bytes, big-endian), bytes."""
    framed = b"".join(struct.pack(">Q", len(p)) + p for p in parts)
    return hashlib.blake2b(framed, key=key, digest_size=seal.MAC_BYTES).digest()


def sealed(payload: dict | bytes, *data: bytes, key: bytes = KEY) -> tuple[dict, list[bytes]]:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    parts = [body, *data]
    return {"sealed": True}, [*parts, seal.mac(key, parts)]


@settings(deadline=None)
@given(keys, parts_lists)
def test_mac_is_keyed_blake2b_over_lengths_and_parts(key, parts):
    """Fails a mac that hashes the parts without their lengths, unkeyed, or with another digest size."""
    assert seal.mac(key, parts) == reference_mac(key, parts)
    assert len(seal.mac(key, parts)) == seal.MAC_BYTES


@settings(deadline=None)
@given(keys, keys, parts_lists)
def test_mac_changes_with_the_key(key, other, parts):
    """Fails a mac that ignores its key (a notebook could then seal frames itself)."""
    assume(key != other)
    assert seal.mac(key, parts) != seal.mac(other, parts)


@settings(deadline=None)
@given(keys, parts_lists.filter(bool), st.data())
def test_mac_changes_with_any_part(key, parts, data):
    """Fails a mac that reads only some parts (the first, say), or only a prefix of each."""
    index = data.draw(st.integers(0, len(parts) - 1))
    changed = data.draw(st.binary(max_size=40).filter(lambda b: b != parts[index]))
    forged = [*parts[:index], changed, *parts[index + 1 :]]
    assert seal.mac(key, parts) != seal.mac(key, forged)


@settings(deadline=None)
@given(keys, st.binary(max_size=60), st.data())
def test_mac_changes_with_where_the_parts_split(key, joined, data):
    """Fails a mac over the concatenation alone: b"ab" + b"c" must not seal like b"a" + b"bc"."""
    cuts = data.draw(st.lists(st.integers(0, len(joined)), max_size=4).map(sorted))
    other = data.draw(st.lists(st.integers(0, len(joined)), max_size=4).map(sorted))
    assume(cuts != other)

    def split(at: list[int]) -> list[bytes]:
        edges = [0, *at, len(joined)]
        return [joined[a:b] for a, b in zip(edges, edges[1:])]

    assert b"".join(split(cuts)) == b"".join(split(other)) == joined
    assert seal.mac(key, split(cuts)) != seal.mac(key, split(other))


def test_mac_split_examples():
    """The brief's own example, and an empty part that must still count."""
    assert seal.mac(KEY, [b"ab", b"c"]) != seal.mac(KEY, [b"a", b"bc"])
    assert seal.mac(KEY, [b"abc"]) != seal.mac(KEY, [b"abc", b""])
    assert seal.mac(KEY, []) != seal.mac(KEY, [b""])


def test_open_frame_returns_payload_and_data_buffers():
    """Fails an open_frame that drops, reorders or keeps the seal among the data buffers."""
    payload = {"n": 3, "kind": "evidence", "step": "seal"}
    header, buffers = sealed(payload, b"\x00\x01", b"", b"tensor bytes")
    assert seal.is_sealed(header)
    assert seal.open_frame(header, buffers, KEY) == (payload, [b"\x00\x01", b"", b"tensor bytes"])


def test_open_frame_refuses_a_frame_sealed_with_another_key():
    """Fails an open_frame that checks the seal's form rather than recomputing it with the judge's key."""
    header, buffers = sealed({"n": 1, "kind": "done"}, key=os.urandom(32))
    with pytest.raises(seal.TamperDetected, match="forged seal"):
        seal.open_frame(header, buffers, KEY)


@pytest.mark.parametrize(
    "forge",
    [
        pytest.param(lambda b: [*b[:-1], bytes(seal.MAC_BYTES)], id="zero seal"),
        pytest.param(lambda b: [*b[:-1], b[-1][:-1]], id="short seal"),
        pytest.param(lambda b: [b[0].replace(b'"n": 1', b'"n": 2'), *b[1:]], id="renumbered payload"),
        pytest.param(lambda b: [b[0], b"other data", b[-1]], id="changed data"),
        pytest.param(lambda b: [b[0], b[-1]], id="data buffer dropped"),
        pytest.param(lambda b: [b[0], b[1], b"extra", b[-1]], id="data buffer added"),
    ],
)
def test_open_frame_refuses_a_forged_seal(forge):
    """Fails an open_frame whose seal does not cover the payload, every data buffer and their number."""
    header, buffers = sealed({"n": 1, "kind": "done"}, b"data")
    with pytest.raises(seal.TamperDetected, match="forged seal"):
        seal.open_frame(header, forge(buffers), KEY)


@pytest.mark.parametrize(
    "header",
    [{}, {"sealed": False}, {"sealed": "true"}, {"sealed": True, "b": [1, 32]}],
    ids=["empty", "false", "string", "extra key"],
)
def test_open_frame_refuses_a_wrong_header(header):
    """Fails an open_frame that accepts any truthy `sealed`, or a header with more in it than the guard writes."""
    _, buffers = sealed({"n": 1, "kind": "done"})
    with pytest.raises(seal.TamperDetected, match="did not come from the grader's own code"):
        seal.open_frame(header, buffers, KEY)


def test_is_sealed_wants_exactly_true():
    assert seal.is_sealed({"sealed": True})
    assert not seal.is_sealed({"sealed": 1}) and not seal.is_sealed({}) and not seal.is_sealed({"sealed": "yes"})


@pytest.mark.parametrize("buffers", [[], [seal.mac(KEY, [])]], ids=["none", "seal only"])
def test_open_frame_refuses_too_few_buffers(buffers):
    """Fails an open_frame that unpacks a frame without a payload (an IndexError, or a payload of b"")."""
    with pytest.raises(seal.TamperDetected, match="did not come from the grader's own code"):
        seal.open_frame({"sealed": True}, buffers, KEY)


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param(b"not json", id="not json"),
        pytest.param(b"\xff\xfe", id="not utf-8"),
        pytest.param(b"[1, 2]", id="a list"),
        pytest.param(b'"done"', id="a string"),
        pytest.param(b'{"kind": "done"}', id="no n"),
        pytest.param(b'{"n": 1}', id="no kind"),
        pytest.param(b'{"n": "1", "kind": "done"}', id="n a string"),
        pytest.param(b'{"n": true, "kind": "done"}', id="n a bool"),
        pytest.param(b'{"n": 1.0, "kind": "done"}', id="n a float"),
        pytest.param(b'{"n": 1, "kind": 7}', id="kind a number"),
    ],
)
def test_open_frame_refuses_a_payload_it_cannot_read(payload):
    """Fails an open_frame that lets a malformed report through (or crashes on it) once the seal checks out."""
    header, buffers = sealed(payload)
    with pytest.raises(seal.TamperDetected, match="could not be read"):
        seal.open_frame(header, buffers, KEY)


def test_tamper_detected_is_not_an_exception():
    """A test cell's `except Exception` must not swallow the verdict; fails if it subclasses Exception."""
    assert issubclass(seal.TamperDetected, BaseException)
    assert not issubclass(seal.TamperDetected, Exception)
    header, buffers = sealed({"n": 1, "kind": "done"}, key=b"wrong key")
    swallowed = False
    with pytest.raises(seal.TamperDetected) as caught:
        try:
            seal.open_frame(header, buffers, KEY)
        except Exception:
            swallowed = True
    assert not swallowed
    assert caught.value.detail == str(caught.value) and "forged seal" in caught.value.detail
