"""Every claim a lesson makes about PyTorch or NumPy, run against the installed versions.

The claims themselves live in `tests/claims/lesson_<id>.py`; each names its lesson and quotes the
sentence it checks (see `tests/claims/__init__.py`).
"""

from __future__ import annotations

import pytest
import torch

from tests.claims import Claim, ClaimFailed, load_all, run_claim, still_said
from tests.conftest import lessons

CLAIMS = load_all()


CUDA = [pytest.mark.cuda, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]


@pytest.mark.parametrize("item", [pytest.param(c, id=c.id, marks=CUDA if c.cuda else ()) for c in CLAIMS])
def test_claim(item):
    run_claim(item)


def test_every_claim_still_quotes_its_lesson():
    """Also the claims only a GPU can check: a sentence edited in a lesson is caught on a machine without one."""
    gone = [f"{c.lesson}: {c.sentence[:90]}" for c in CLAIMS if not still_said(c)]
    assert not gone, gone


def test_claims_name_real_lessons():
    known = set(lessons())
    assert {c.lesson for c in CLAIMS} <= known


def test_a_false_claim_fails():
    """The machinery can fail: a true sentence with a wrong check, and a check of a sentence no lesson makes."""
    sentence = next(c.sentence for c in CLAIMS if c.lesson == "02_dtype")

    def wrong() -> None:
        assert torch.tensor([1, 2, 3]).dtype == torch.float32, "torch.tensor([1, 2, 3]) is not float32"

    with pytest.raises(ClaimFailed, match="not true"):
        run_claim(Claim("02_dtype", sentence, wrong))
    with pytest.raises(ClaimFailed, match="no longer says"):
        run_claim(Claim("02_dtype", "NumPy arrays live on the GPU by default.", lambda: None))
