"""References and inputs for the indexing lesson's hidden tests.

Each reference is the slow, obvious version: a Python loop over plain numbers, computed on the CPU in
float32 for float16 inputs (the lesson's rule: a float16 result is compared with a float32 reference
cast to float16) and in float64 otherwise, then cast to the dtype and device the item promises.
The input builders make values a test can rely on: dyadic numbers (multiples of 1/8) whose sums and
products are exact even in float16, and score rows whose values stay distinct in the dtype under test.
"""

from __future__ import annotations

import torch


def reference_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.float32 if dtype == torch.float16 else torch.float64


def tolerance(dtype: torch.dtype) -> dict[str, float]:
    """The atol and rtol a result in `dtype` is compared with."""
    if dtype == torch.float16:
        return {"atol": 1e-3, "rtol": 1e-3}
    if dtype == torch.float32:
        return {"atol": 1e-5, "rtol": 1e-5}
    return {"atol": 1e-9, "rtol": 1e-9}


def _rows(t: torch.Tensor, dtype: torch.dtype | None = None) -> list:
    t = t.detach().to("cpu")
    return (t.to(dtype) if dtype is not None else t).tolist()


def select_by_label_reference(scores: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    rows, chosen = _rows(scores, reference_dtype(scores.dtype)), _rows(labels)
    out = torch.tensor([row[c] for row, c in zip(rows, chosen)], dtype=reference_dtype(scores.dtype))
    return out.to(scores.dtype).to(scores.device)


def confusion_matrix_reference(predicted: torch.Tensor, labels: torch.Tensor, num_classes: int) -> torch.Tensor:
    counts = [[0] * num_classes for _ in range(num_classes)]
    for p, t in zip(_rows(predicted), _rows(labels)):
        counts[t][p] += 1
    return torch.tensor(counts, dtype=torch.int64).reshape(num_classes, num_classes).to(labels.device)


def masked_mean_reference(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    work = reference_dtype(x.dtype)
    out = torch.zeros(x.shape[:-1], dtype=work)
    if x.numel():
        L = x.shape[-1]
        means = []
        for values, keep in zip(_rows(x.reshape(-1, L), work), _rows(mask.reshape(-1, L))):
            chosen = [v for v, k in zip(values, keep) if k]
            means.append(sum(chosen) / len(chosen) if chosen else 0.0)
        out = torch.tensor(means, dtype=work).reshape(x.shape[:-1])
    return out.to(x.dtype).to(x.device)


def topk_mask_reference(scores: torch.Tensor, k: int) -> torch.Tensor:
    rows = _rows(scores, reference_dtype(scores.dtype))
    out = torch.zeros(tuple(scores.shape), dtype=torch.bool)
    for i, row in enumerate(rows):
        for j in sorted(range(len(row)), key=lambda c: row[c], reverse=True)[:k]:
            out[i, j] = True
    return out.to(scores.device)


def embedding_bag_mean_reference(table: torch.Tensor, index: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    work = reference_dtype(table.dtype)
    rows, D = _rows(table, work), table.shape[1]
    out = torch.zeros(index.shape[0], D, dtype=work)
    for b, (ids, n) in enumerate(zip(_rows(index), _rows(lengths))):
        for j in range(n):
            for d in range(D):
                out[b, d] += rows[ids[j]][d]
        if n:
            out[b] /= n
    return out.to(table.dtype).to(table.device)


def box_iou_reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    work = reference_dtype(a.dtype)
    out = torch.zeros(a.shape[0], b.shape[0], dtype=work)
    for i, (ax1, ay1, ax2, ay2) in enumerate(_rows(a, work)):
        for j, (bx1, by1, bx2, by2) in enumerate(_rows(b, work)):
            w = max(0.0, min(ax2, bx2) - max(ax1, bx1))
            h = max(0.0, min(ay2, by2) - max(ay1, by1))
            inter = w * h
            union = (ax2 - ax1) * (ay2 - ay1) + (bx2 - bx1) * (by2 - by1) - inter
            out[i, j] = inter / union if union > 0 else 0.0
    return out.to(a.dtype).to(a.device)


def dyadic(shape: tuple[int, ...], *, generator: torch.Generator, low: int = -16, high: int = 16) -> torch.Tensor:
    """float64 multiples of 1/8 in [low/8, high/8]: sums and small products stay exact in float16."""
    return torch.randint(low, high + 1, shape, generator=generator).to(torch.float64) / 8


def boxes(n: int, *, generator: torch.Generator, span: int = 32) -> torch.Tensor:
    """(n, 4) float64 boxes x1 <= x2, y1 <= y2 with corners on a 1/8 grid in [0, span/8]."""
    corners = torch.randint(0, span + 1, (n, 2, 2), generator=generator).sort(dim=1).values.to(torch.float64) / 8
    return torch.stack([corners[:, 0, 0], corners[:, 0, 1], corners[:, 1, 0], corners[:, 1, 1]], dim=1)


def distinct_scores(n: int, c: int, *, dtype: torch.dtype, generator: torch.Generator) -> torch.Tensor:
    """(n, c) random scores in `dtype` (on the CPU) whose values are distinct within each row, checked after the cast."""
    scores = torch.randn(n, c, generator=generator, dtype=torch.float64).to(dtype)
    for i in range(n):
        if len(set(scores[i].tolist())) < c:
            scores[i] = (torch.randperm(c, generator=generator).to(torch.float64) / 4 - c / 8).to(dtype)
    if any(len(set(row)) < c for row in scores.tolist()):
        raise ValueError(f"scores with a tie in {dtype}")
    return scores
