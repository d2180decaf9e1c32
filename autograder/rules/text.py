"""Text from a submission, made safe to print: what a student's code wrote never drives the instructor's terminal.

A file name, an error message or a tamper detail can hold a carriage return, an escape sequence or a
right-to-left override that would rewrite the line around it (a forged "TAMPERING victim/..." line in
`autograder grade`'s summary, say). `printable` shows every such character as its escape instead.
"""

from __future__ import annotations

import unicodedata

# Control, format (bidirectional overrides, zero-width characters), line and paragraph separators, and
# the surrogates and unassigned code points a terminal may draw as anything.
ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def printable(text: object, *, limit: int | None = None) -> str:
    """`text` as one line a terminal shows as written: each control or format character as its escape
    (`\\x1b`, `\\r`, `\\u202e`), cut to `limit` characters (then ending in "...") when one is given."""
    text = text if isinstance(text, str) else str(text)
    out = "".join(
        ch if unicodedata.category(ch) not in ESCAPED_CATEGORIES else ch.encode("unicode_escape").decode("ascii")
        for ch in text
    )
    if limit is not None and len(out) > limit:
        out = out[: max(0, limit - 3)] + "..."
    return out
