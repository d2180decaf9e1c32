"""`printable`: nothing a student wrote moves the cursor, colours, reverses or breaks the instructor's line."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from autograder.rules.text import ESCAPED_CATEGORIES, printable


def test_a_forged_summary_line_stays_on_its_own_line():
    forged = "ok\r\x1b[2K  TAMPERING victim/01_tensors: item x\n  done\u202e"
    shown = printable(forged)
    assert shown == "ok\\r\\x1b[2K  TAMPERING victim/01_tensors: item x\\n  done\\u202e"
    assert "\r" not in shown and "\x1b" not in shown and "\n" not in shown


def test_ordinary_text_is_unchanged_and_long_text_is_cut():
    assert printable("numpy_to_tensor_shape: Expected (2, 3), found (3, 2) — ✓ ñ") == (
        "numpy_to_tensor_shape: Expected (2, 3), found (3, 2) — ✓ ñ"
    )
    assert printable("x" * 50, limit=10) == "xxxxxxx..." and printable(7) == "7"


def _slow_reference(text: str) -> str:
    """Character by character, the obvious way."""
    out = []
    for ch in text:
        if unicodedata.category(ch) in ESCAPED_CATEGORIES:
            out.append(ch.encode("unicode_escape").decode("ascii"))
        else:
            out.append(ch)
    return "".join(out)


@given(st.text(alphabet=st.characters(codec=None, blacklist_categories=())))
def test_no_control_or_format_character_survives(text):
    shown = printable(text)
    assert shown == _slow_reference(text)
    assert not any(unicodedata.category(ch) in ESCAPED_CATEGORIES for ch in shown)
