"""Sealed frames: the guard's reports and probe evidence, authenticated with a key the judge chose.

The judge sends each child a fresh key before any student code runs; the child's guard
(`child.guard`) seals every frame it sends with it (keyed BLAKE2b over the frame's parts, lengths
included) and numbers it. `open_frame` is the judge's check: a frame the student's code wrote itself
fails it, and a frame it made the guard send twice, or kept from being sent, shows as a wrong count.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import struct

MAC_BYTES = 32


class TamperDetected(BaseException):
    """The student's process interfered with the grader: the item earns nothing and needs a person's review.

    A BaseException, so that a test's own `except Exception` cannot swallow it.
    """

    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


def mac(key: bytes, parts: list, *, _blake=hashlib.blake2b, _pack=struct.Struct(">Q").pack, _len=len) -> bytes:
    """The seal of a frame's parts: what the guard appends and the judge recomputes."""
    h = _blake(key=key, digest_size=MAC_BYTES)
    for part in parts:
        h.update(_pack(_len(part)))
        h.update(part)
    return h.digest()


def open_frame(header: dict, buffers: list[bytes], key: bytes) -> tuple[dict, list[bytes]]:
    """The judge's side: check a frame's seal; return (payload, data buffers) or raise TamperDetected."""
    if header != {"sealed": True} or len(buffers) < 2:
        raise TamperDetected("a message on the grader's channel did not come from the grader's own code")
    *parts, seal = buffers
    if not hmac.compare_digest(mac(key, parts), seal):
        raise TamperDetected("a message on the grader's channel carried a forged seal")
    try:
        payload = json.loads(parts[0].decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise TamperDetected("a sealed message could not be read") from None
    if not isinstance(payload, dict) or type(payload.get("n")) is not int or not isinstance(payload.get("kind"), str):
        raise TamperDetected("a sealed message could not be read")
    return payload, parts[1:]


def is_sealed(header: dict) -> bool:
    return header.get("sealed") is True
