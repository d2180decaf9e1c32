"""References and inputs for the memory lesson's hidden tests.

`internal_overlap` decides from the shape and strides alone whether two elements of a tensor read one
storage cell (what `expand` does, and what an answer with rows of their own must avoid). `dyadic`
makes values whose sums and halves are exact in every floating dtype, so an in-place answer and the
reference agree to the last bit whatever order they add in.
"""

from __future__ import annotations

import itertools
import math

import torch


def internal_overlap(shape, stride) -> bool:
    """True when two distinct indices of a tensor with this shape and these strides reach the same cell."""
    shape, stride = tuple(int(s) for s in shape), tuple(int(s) for s in stride)
    if math.prod(shape) <= 1:
        return False
    if any(n > 1 and s == 0 for n, s in zip(shape, stride)):
        return True
    seen = set()
    for index in itertools.product(*(range(n) for n in shape)):
        cell = sum(i * s for i, s in zip(index, stride))
        if cell in seen:
            return True
        seen.add(cell)
    return False


def dyadic(shape, *, generator: torch.Generator, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Multiples of 1/8 between -4 and 4: exact in float16, their pairwise sums and halves too."""
    return (torch.randint(-32, 33, tuple(shape), generator=generator) / 8).to(dtype)


def symmetrized(m: torch.Tensor) -> torch.Tensor:
    """(m + m.T) / 2 computed in float64 on the CPU, in `m`'s dtype and on its device."""
    work = m.detach().to("cpu", torch.float64)
    return ((work + work.t()) / 2).to(dtype=m.dtype, device=m.device)
