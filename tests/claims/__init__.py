"""Claims the lessons make about PyTorch and NumPy, each tied to the sentence that makes it.

A lesson's claims live in `tests/claims/lesson_<id>.py`, one function per claim:

    @claim("02_dtype", "`torch.tensor([1, 2, 3])` is an int64 tensor")
    def _():
        assert torch.tensor([1, 2, 3]).dtype == torch.int64

The quoted text must appear in the lesson (`lessons/<id>.py`, markdown and code comments alike,
compared with whitespace collapsed and the leading `# ` of each line removed), so a sentence that
is rewritten or deleted fails its claim until the claim moves with it; the function then runs and
must not raise. `tests/test_lesson_claims.py` runs every claim.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent.parent


@dataclass(frozen=True)
class Claim:
    lesson: str
    sentence: str
    check: Callable[[], None]
    cuda: bool = False  # checked only on a CUDA machine: the test carries the `cuda` mark and skips elsewhere

    @property
    def id(self) -> str:
        return f"{self.lesson}: {self.sentence[:70]}"


CLAIMS: list[Claim] = []


def claim(lesson: str, sentence: str, *, cuda: bool = False) -> Callable[[Callable[[], None]], Callable[[], None]]:
    """Register the decorated function as the check of `sentence` in `lesson` (`cuda`: a claim only a GPU can check)."""

    def register(func: Callable[[], None]) -> Callable[[], None]:
        CLAIMS.append(Claim(lesson, sentence, func, cuda))
        return func

    return register


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def lesson_text(lesson: str, root: Path = ROOT) -> str:
    """The lesson file's words: each line without its leading comment marker, whitespace collapsed."""
    lines = []
    for line in (root / "lessons" / f"{lesson}.py").read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if stripped.startswith("# %%"):
            continue
        lines.append(stripped[1:].strip() if stripped.startswith("#") else stripped)
    return _normalise("\n".join(lines))


class ClaimFailed(AssertionError):
    """The sentence is gone from its lesson, or PyTorch/NumPy no longer behave as it says."""


def still_said(item: Claim, *, root: Path = ROOT) -> bool:
    """Whether the lesson still says the claim's sentence (whitespace aside)."""
    return _normalise(item.sentence) in lesson_text(item.lesson, root)


def run_claim(item: Claim, *, root: Path = ROOT) -> None:
    """Check that the sentence is still in the lesson, then that it is still true."""
    if not still_said(item, root=root):
        raise ClaimFailed(f"lessons/{item.lesson}.py no longer says {item.sentence!r}: move the claim with the text")
    try:
        item.check()
    except Exception as exc:
        raise ClaimFailed(
            f"lessons/{item.lesson}.py says {item.sentence!r}, which is not true: {type(exc).__name__}: {exc}"
        ) from exc


def load_all() -> list[Claim]:
    """Import every `tests/claims/lesson_*.py` once; returns the registered claims."""
    import importlib

    for path in sorted(Path(__file__).parent.glob("lesson_*.py")):
        importlib.import_module(f"tests.claims.{path.stem}")
    return list(CLAIMS)
