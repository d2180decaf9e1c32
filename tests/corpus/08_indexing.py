"""Wrong and right answers for lesson 08 (indexing): each wrong one is a real indexing or vectorization mistake
its test must catch, each right one a different way a student could write it from the task text alone."""

ITEMS = {
    "masked_mean": {
        "wrong": [
            # Divides by L, not by the number of True entries.
            '''def masked_mean(x, mask):
    """The mean of x over its last dimension, counting only the entries where mask is True (0 for none)."""
    return torch.where(mask, x, 0).mean(dim=-1)''',
            # 0 / 0 = NaN for a row without a True entry.
            '''def masked_mean(x, mask):
    """The mean of x over its last dimension, counting only the entries where mask is True (0 for none)."""
    return (x * mask).sum(dim=-1) / mask.sum(dim=-1)''',
            # x[mask] flattens every row into one: a single mean.
            '''def masked_mean(x, mask):
    """The mean of x over its last dimension, counting only the entries where mask is True (0 for none)."""
    return x[mask].mean()''',
            # nanmean of a row that is all NaN is NaN, not 0.
            '''def masked_mean(x, mask):
    """The mean of x over its last dimension, counting only the entries where mask is True (0 for none)."""
    return torch.nanmean(torch.where(mask, x, float("nan")), dim=-1)''',
            # A float32 mask promotes float16 to float32: the dtype changes.
            '''def masked_mean(x, mask):
    """The mean of x over its last dimension, counting only the entries where mask is True (0 for none)."""
    weights = mask.float()
    return (x * weights).sum(dim=-1) / weights.sum(dim=-1).clamp(min=1)''',
            # Zeroes the masked-out entries of x in place.
            '''def masked_mean(x, mask):
    """The mean of x over its last dimension, counting only the entries where mask is True (0 for none)."""
    x.masked_fill_(~mask, 0)
    return x.sum(dim=-1) / mask.sum(dim=-1).clamp(min=1)''',
        ],
        "right": [
            '''def masked_mean(x, mask):
    """The mean of x over its last dimension, counting only the entries where mask is True (0 for none)."""
    total = x.masked_fill(~mask, 0).sum(dim=-1)
    count = mask.sum(dim=-1)
    return torch.where(count > 0, total / count, torch.zeros_like(total))''',
            # NaN for the padding, nanmean, then NaN (no entry) to 0.
            '''def masked_mean(x, mask):
    """The mean of x over its last dimension, counting only the entries where mask is True (0 for none)."""
    hidden = torch.where(mask, x, torch.full_like(x, float("nan")))
    return torch.nan_to_num(torch.nanmean(hidden, dim=-1), nan=0.0)''',
            '''def masked_mean(x, mask):
    """The mean of x over its last dimension, counting only the entries where mask is True (0 for none)."""
    weights = mask.to(x.dtype)
    total = torch.einsum("...l,...l->...", x, weights)
    return total / weights.sum(dim=-1).clamp(min=1)''',
            # One row at a time: rows are not what the task asks to vectorize.
            '''import math


def masked_mean(x, mask):
    """The mean of x over its last dimension, counting only the entries where mask is True (0 for none)."""
    n, L = math.prod(x.shape[:-1]), x.shape[-1]
    rows, keep = x.reshape(n, L), mask.reshape(n, L)
    out = torch.zeros(rows.shape[0], dtype=x.dtype, device=x.device)
    for r in range(rows.shape[0]):
        if keep[r].any():
            out[r] = rows[r][keep[r]].mean()
    return out.reshape(x.shape[:-1])''',
            # Defensive: checks the shapes first.
            '''def masked_mean(x, mask):
    """The mean of x over its last dimension, counting only the entries where mask is True (0 for none)."""
    if mask.shape != x.shape or mask.dtype != torch.bool:
        raise ValueError(f"mask must be a bool tensor of shape {tuple(x.shape)}")
    kept = x * mask
    count = mask.sum(dim=-1, keepdim=True).clamp(min=1)
    return (kept / count).sum(dim=-1)''',
            # Through NumPy's masked arrays, back on x's device.
            '''import numpy as np


def masked_mean(x, mask):
    """The mean of x over its last dimension, counting only the entries where mask is True (0 for none)."""
    values = x.detach().cpu().numpy().astype(np.float64)
    keep = mask.cpu().numpy()
    count = keep.sum(axis=-1)
    total = np.where(keep, values, 0.0).sum(axis=-1)
    mean = np.divide(total, count, out=np.zeros_like(total), where=count > 0)
    return torch.from_numpy(np.asarray(mean)).to(dtype=x.dtype, device=x.device)''',
        ],
    },
    "select_by_label": {
        "wrong": [
            # Every row against every label: (N, N).
            '''def select_by_label(scores, labels):
    """(N,) tensor whose entry i is scores[i, labels[i]]."""
    return scores[:, labels]''',
            # gather along dim 0 picks scores[labels[j], j].
            '''def select_by_label(scores, labels):
    """(N,) tensor whose entry i is scores[i, labels[i]]."""
    return scores.gather(0, labels.unsqueeze(0)).squeeze(0)''',
            # The best score, not the label's.
            '''def select_by_label(scores, labels):
    """(N,) tensor whose entry i is scores[i, labels[i]]."""
    return scores.max(dim=1).values''',
            # Casts to float32: float16 and float64 scores come back in the wrong dtype.
            '''def select_by_label(scores, labels):
    """(N,) tensor whose entry i is scores[i, labels[i]]."""
    return scores.float()[torch.arange(len(labels), device=scores.device), labels]''',
            # Stacks one entry per example: torch.stack of an empty list raises for N = 0.
            '''def select_by_label(scores, labels):
    """(N,) tensor whose entry i is scores[i, labels[i]]."""
    return torch.stack([scores[i, labels[i]] for i in range(len(labels))])''',
        ],
        "right": [
            '''def select_by_label(scores, labels):
    """(N,) tensor whose entry i is scores[i, labels[i]]."""
    return scores[torch.arange(scores.shape[0], device=scores.device), labels]''',
            '''def select_by_label(scores, labels):
    """(N,) tensor whose entry i is scores[i, labels[i]]."""
    return torch.gather(scores, dim=1, index=labels[:, None])[:, 0]''',
            # A one-hot mask, summed along the classes.
            '''import torch.nn.functional as F


def select_by_label(scores, labels):
    """(N,) tensor whose entry i is scores[i, labels[i]]."""
    onehot = F.one_hot(labels, num_classes=scores.shape[1]).bool()
    return torch.where(onehot, scores, torch.zeros_like(scores)).sum(dim=1)''',
            # The flat position of each entry in row-major order.
            '''def select_by_label(scores, labels):
    """(N,) tensor whose entry i is scores[i, labels[i]]."""
    rows = torch.arange(scores.shape[0], device=scores.device)
    return torch.take(scores, rows * scores.shape[1] + labels)''',
            # One example at a time, into a result made up front.
            '''def select_by_label(scores, labels):
    """(N,) tensor whose entry i is scores[i, labels[i]]."""
    out = scores.new_empty(scores.shape[0])
    for i in range(scores.shape[0]):
        out[i] = scores[i, labels[i]]
    return out''',
            # The diagonal of the (N, N) table of every example against every label.
            '''def select_by_label(scores, labels):
    """(N,) tensor whose entry i is scores[i, labels[i]]."""
    return torch.diagonal(scores[:, labels])''',
        ],
    },
    "confusion_matrix": {
        "wrong": [
            # Rows are predictions and columns labels: the transpose.
            '''def confusion_matrix(predicted, labels, num_classes):
    """(C, C) int64 counts: entry [t, p] is the number of examples with label t and prediction p."""
    pairs = predicted * num_classes + labels
    return torch.bincount(pairs, minlength=num_classes * num_classes).reshape(num_classes, num_classes)''',
            # Without minlength the counts stop at the largest pair present.
            '''def confusion_matrix(predicted, labels, num_classes):
    """(C, C) int64 counts: entry [t, p] is the number of examples with label t and prediction p."""
    return torch.bincount(labels * num_classes + predicted).reshape(num_classes, num_classes)''',
            # += through an index counts each repeated pair once.
            '''def confusion_matrix(predicted, labels, num_classes):
    """(C, C) int64 counts: entry [t, p] is the number of examples with label t and prediction p."""
    counts = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=labels.device)
    counts[labels, predicted] += 1
    return counts''',
            # A loop over the examples, as plain ints.
            '''def confusion_matrix(predicted, labels, num_classes):
    """(C, C) int64 counts: entry [t, p] is the number of examples with label t and prediction p."""
    counts = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=labels.device)
    for t, p in zip(labels.tolist(), predicted.tolist()):
        counts[t, p] += 1
    return counts''',
            # A float matrix product left as floats: dtype float32, not int64.
            '''import torch.nn.functional as F


def confusion_matrix(predicted, labels, num_classes):
    """(C, C) int64 counts: entry [t, p] is the number of examples with label t and prediction p."""
    return F.one_hot(labels, num_classes).T.float() @ F.one_hot(predicted, num_classes).float()''',
            # A comprehension over the examples builds the pair codes.
            '''def confusion_matrix(predicted, labels, num_classes):
    """(C, C) int64 counts: entry [t, p] is the number of examples with label t and prediction p."""
    codes = torch.tensor([t * num_classes + p for t, p in zip(labels.tolist(), predicted.tolist())],
                         dtype=torch.int64, device=labels.device)
    return torch.bincount(codes, minlength=num_classes * num_classes).reshape(num_classes, num_classes)''',
        ],
        "right": [
            '''def confusion_matrix(predicted, labels, num_classes):
    """(C, C) int64 counts: entry [t, p] is the number of examples with label t and prediction p."""
    counts = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=labels.device)
    return counts.index_put_((labels, predicted), torch.ones_like(labels), accumulate=True)''',
            '''def confusion_matrix(predicted, labels, num_classes):
    """(C, C) int64 counts: entry [t, p] is the number of examples with label t and prediction p."""
    flat = torch.zeros(num_classes * num_classes, dtype=torch.int64, device=labels.device)
    flat.scatter_add_(0, labels * num_classes + predicted, torch.ones_like(labels))
    return flat.view(num_classes, num_classes)''',
            # One-hot rows of the labels against one-hot rows of the predictions.
            '''import torch.nn.functional as F


def confusion_matrix(predicted, labels, num_classes):
    """(C, C) int64 counts: entry [t, p] is the number of examples with label t and prediction p."""
    truth = F.one_hot(labels, num_classes).to(torch.float64)
    guess = F.one_hot(predicted, num_classes).to(torch.float64)
    return (truth.T @ guess).round().to(torch.int64)''',
            # A loop over the classes (not the examples): one row of counts per true class.
            '''def confusion_matrix(predicted, labels, num_classes):
    """(C, C) int64 counts: entry [t, p] is the number of examples with label t and prediction p."""
    rows = [torch.bincount(predicted[labels == t], minlength=num_classes) for t in range(num_classes)]
    return torch.stack(rows)''',
            # index_add_ of one-hot prediction rows into the rows of their labels.
            '''import torch.nn.functional as F


def confusion_matrix(predicted, labels, num_classes):
    """(C, C) int64 counts: entry [t, p] is the number of examples with label t and prediction p."""
    counts = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=labels.device)
    return counts.index_add_(0, labels, F.one_hot(predicted, num_classes))''',
            # NumPy's unbuffered add.at, then back to the inputs' device.
            '''import numpy as np


def confusion_matrix(predicted, labels, num_classes):
    """(C, C) int64 counts: entry [t, p] is the number of examples with label t and prediction p."""
    counts = np.zeros((num_classes, num_classes), dtype=np.int64)
    np.add.at(counts, (labels.cpu().numpy(), predicted.cpu().numpy()), 1)
    return torch.from_numpy(counts).to(labels.device)''',
            # Broadcast every (t, p) pair against every example and sum the matches.
            '''def confusion_matrix(predicted, labels, num_classes):
    """(C, C) int64 counts: entry [t, p] is the number of examples with label t and prediction p."""
    classes = torch.arange(num_classes, device=labels.device)
    truth = labels[None, :] == classes[:, None]       # (C, N)
    guess = predicted[None, :] == classes[:, None]    # (C, N)
    return (truth[:, None, :] & guess[None, :, :]).sum(dim=-1)''',
        ],
    },
    "topk_mask": {
        "wrong": [
            # topk along the wrong dimension: the k largest of each column.
            '''def topk_mask(scores, k):
    """Bool (N, C): True at the k largest entries of each row of scores."""
    mask = torch.zeros(scores.shape, dtype=torch.bool, device=scores.device)
    return mask.scatter_(0, scores.topk(k, dim=0).indices, True)''',
            # Strictly above the k-th largest: only k - 1 entries.
            '''def topk_mask(scores, k):
    """Bool (N, C): True at the k largest entries of each row of scores."""
    if k == 0:
        return torch.zeros(scores.shape, dtype=torch.bool, device=scores.device)
    kth = scores.sort(dim=1, descending=True).values[:, k - 1:k]
    return scores > kth''',
            # The k smallest.
            '''def topk_mask(scores, k):
    """Bool (N, C): True at the k largest entries of each row of scores."""
    mask = torch.zeros(scores.shape, dtype=torch.bool, device=scores.device)
    return mask.scatter_(1, scores.topk(k, dim=1, largest=False).indices, True)''',
            # The indices of a sort are not ranks.
            '''def topk_mask(scores, k):
    """Bool (N, C): True at the k largest entries of each row of scores."""
    return scores.argsort(dim=1, descending=True) < k''',
            # Floats 0/1, not bools.
            '''def topk_mask(scores, k):
    """Bool (N, C): True at the k largest entries of each row of scores."""
    return torch.zeros_like(scores).scatter_(1, scores.topk(k, dim=1).indices, 1.0)''',
            # The threshold trick breaks for k = 0: there is no k-th value.
            '''def topk_mask(scores, k):
    """Bool (N, C): True at the k largest entries of each row of scores."""
    return scores >= scores.topk(k, dim=1).values[:, -1:]''',
        ],
        "right": [
            # The rank of each entry: the argsort of the argsort.
            '''def topk_mask(scores, k):
    """Bool (N, C): True at the k largest entries of each row of scores."""
    ranks = scores.argsort(dim=1, descending=True).argsort(dim=1)
    return ranks < k''',
            # At or above the k-th largest value, with k = 0 handled apart.
            '''def topk_mask(scores, k):
    """Bool (N, C): True at the k largest entries of each row of scores."""
    if k == 0:
        return torch.zeros_like(scores, dtype=torch.bool)
    threshold = scores.kthvalue(scores.shape[1] - k + 1, dim=1, keepdim=True).values
    return scores >= threshold''',
            '''import torch.nn.functional as F


def topk_mask(scores, k):
    """Bool (N, C): True at the k largest entries of each row of scores."""
    picks = scores.topk(k, dim=1).indices                       # (N, k)
    return F.one_hot(picks, scores.shape[1]).sum(dim=1) > 0''',
            # Take the current largest k times (a loop over k, not over the rows).
            '''def topk_mask(scores, k):
    """Bool (N, C): True at the k largest entries of each row of scores."""
    remaining = scores.clone()
    mask = torch.zeros_like(scores, dtype=torch.bool)
    rows = torch.arange(scores.shape[0], device=scores.device)
    for _ in range(k):
        best = remaining.argmax(dim=1)
        mask[rows, best] = True
        remaining[rows, best] = float("-inf")
    return mask''',
            # Sort descending, mark the first k places, and put the marks back where they came from.
            '''def topk_mask(scores, k):
    """Bool (N, C): True at the k largest entries of each row of scores."""
    order = scores.argsort(dim=1, descending=True)
    first = (torch.arange(scores.shape[1], device=scores.device) < k).expand_as(order)
    return torch.zeros_like(first).scatter(1, order, first)''',
            # With NumPy: argpartition puts the k largest last.
            '''import numpy as np


def topk_mask(scores, k):
    """Bool (N, C): True at the k largest entries of each row of scores."""
    values = scores.detach().cpu().numpy()
    mask = np.zeros(values.shape, dtype=bool)
    if k > 0 and values.shape[0] > 0:
        picks = np.argpartition(values, values.shape[1] - k, axis=1)[:, values.shape[1] - k:]
        np.put_along_axis(mask, picks, True, axis=1)
    return torch.from_numpy(mask).to(scores.device)''',
        ],
    },
    "embedding_bag_mean": {
        "wrong": [
            # Averages every position, padding included.
            '''def embedding_bag_mean(table, index, lengths):
    """(B, D): row b is the mean of table[index[b, j]] for j < lengths[b], zeros when lengths[b] is 0."""
    return table[index].mean(dim=1)''',
            # Off by one: position lengths[b] counts too.
            '''def embedding_bag_mean(table, index, lengths):
    """(B, D): row b is the mean of table[index[b, j]] for j < lengths[b], zeros when lengths[b] is 0."""
    real = torch.arange(index.shape[1], device=index.device) <= lengths[:, None]
    total = (table[index] * real[:, :, None]).sum(dim=1)
    return total / lengths.clamp(min=1)[:, None]''',
            # Divides by the length without a guard: NaN for an empty sentence.
            '''def embedding_bag_mean(table, index, lengths):
    """(B, D): row b is the mean of table[index[b, j]] for j < lengths[b], zeros when lengths[b] is 0."""
    real = torch.arange(index.shape[1], device=index.device) < lengths[:, None]
    total = (table[index] * real[:, :, None]).sum(dim=1)
    return total / lengths[:, None]''',
            # One sentence at a time: a Python loop over the batch.
            '''def embedding_bag_mean(table, index, lengths):
    """(B, D): row b is the mean of table[index[b, j]] for j < lengths[b], zeros when lengths[b] is 0."""
    out = torch.zeros(index.shape[0], table.shape[1], dtype=table.dtype, device=table.device)
    for b in range(index.shape[0]):
        n = int(lengths[b])
        if n > 0:
            out[b] = table[index[b, :n]].mean(dim=0)
    return out''',
            # Divides by L, the padded length.
            '''def embedding_bag_mean(table, index, lengths):
    """(B, D): row b is the mean of table[index[b, j]] for j < lengths[b], zeros when lengths[b] is 0."""
    real = torch.arange(index.shape[1], device=index.device) < lengths[:, None]
    return (table[index] * real[:, :, None]).sum(dim=1) / max(index.shape[1], 1)''',
        ],
        "right": [
            # PyTorch's own bag layer, with the real ids of all sentences in one flat row.
            '''import torch.nn.functional as F


def embedding_bag_mean(table, index, lengths):
    """(B, D): row b is the mean of table[index[b, j]] for j < lengths[b], zeros when lengths[b] is 0."""
    real = torch.arange(index.shape[1], device=index.device) < lengths[:, None]
    offsets = torch.cumsum(lengths, dim=0) - lengths
    return F.embedding_bag(index[real], table, offsets, mode="mean")''',
            # Per-position weights 1/length: a weighted sum per sentence.
            '''import torch.nn.functional as F


def embedding_bag_mean(table, index, lengths):
    """(B, D): row b is the mean of table[index[b, j]] for j < lengths[b], zeros when lengths[b] is 0."""
    if index.shape[0] == 0 or index.shape[1] == 0:
        return torch.zeros(index.shape[0], table.shape[1], dtype=table.dtype, device=table.device)
    real = torch.arange(index.shape[1], device=index.device) < lengths[:, None]
    weights = real.to(table.dtype) / lengths.clamp(min=1)[:, None].to(table.dtype)
    return F.embedding_bag(index, table, mode="sum", per_sample_weights=weights)''',
            # A (B, V) matrix of word counts, times the table.
            '''def embedding_bag_mean(table, index, lengths):
    """(B, D): row b is the mean of table[index[b, j]] for j < lengths[b], zeros when lengths[b] is 0."""
    real = torch.arange(index.shape[1], device=index.device) < lengths.unsqueeze(1)
    counts = torch.zeros(index.shape[0], table.shape[0], dtype=table.dtype, device=table.device)
    counts.scatter_add_(1, index, real.to(table.dtype))
    return (counts @ table) / lengths.clamp(min=1).unsqueeze(1)''',
            # index_add_ of every real row into its sentence's row.
            '''def embedding_bag_mean(table, index, lengths):
    """(B, D): row b is the mean of table[index[b, j]] for j < lengths[b], zeros when lengths[b] is 0."""
    B, L = index.shape
    real = torch.arange(L, device=index.device).expand(B, L) < lengths.unsqueeze(1)
    sentence = torch.arange(B, device=index.device).unsqueeze(1).expand(B, L)
    total = torch.zeros(B, table.shape[1], dtype=table.dtype, device=table.device)
    total.index_add_(0, sentence[real], table[index[real]])
    return total / lengths.clamp(min=1).unsqueeze(1)''',
            # A loop over the L positions (not the batch), adding one column of words at a time.
            '''def embedding_bag_mean(table, index, lengths):
    """(B, D): row b is the mean of table[index[b, j]] for j < lengths[b], zeros when lengths[b] is 0."""
    total = torch.zeros(index.shape[0], table.shape[1], dtype=table.dtype, device=table.device)
    for j in range(index.shape[1]):
        total += torch.where((j < lengths).unsqueeze(1), table[index[:, j]], torch.zeros_like(total))
    return total / lengths.clamp(min=1).unsqueeze(1)''',
            # einsum with the mask as weights.
            '''def embedding_bag_mean(table, index, lengths):
    """(B, D): row b is the mean of table[index[b, j]] for j < lengths[b], zeros when lengths[b] is 0."""
    weights = (torch.arange(index.shape[1], device=index.device) < lengths[:, None]).to(table.dtype)
    total = torch.einsum("bl,bld->bd", weights, table[index])
    return torch.where(lengths[:, None] > 0, total / lengths[:, None], torch.zeros_like(total))''',
        ],
    },
    "box_iou": {
        "wrong": [
            # No clamp: boxes apart in both x and y get a positive "intersection".
            '''def box_iou(a, b):
    """(N, M) intersection over union of every box of a (N, 4) with every box of b (M, 4)."""
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    w = torch.minimum(a[:, None, 2], b[None, :, 2]) - torch.maximum(a[:, None, 0], b[None, :, 0])
    h = torch.minimum(a[:, None, 3], b[None, :, 3]) - torch.maximum(a[:, None, 1], b[None, :, 1])
    inter = w * h
    union = area_a[:, None] + area_b[None, :] - inter
    return torch.where(union > 0, inter / union, torch.zeros_like(union))''',
            # The union counts the shared area twice.
            '''def box_iou(a, b):
    """(N, M) intersection over union of every box of a (N, 4) with every box of b (M, 4)."""
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    wh = (torch.minimum(a[:, None, 2:], b[None, :, 2:]) - torch.maximum(a[:, None, :2], b[None, :, :2])).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    union = area_a[:, None] + area_b[None, :]
    return torch.where(union > 0, inter / union, torch.zeros_like(union))''',
            # 0 / 0 = NaN where the union is 0.
            '''def box_iou(a, b):
    """(N, M) intersection over union of every box of a (N, 4) with every box of b (M, 4)."""
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    wh = (torch.minimum(a[:, None, 2:], b[None, :, 2:]) - torch.maximum(a[:, None, :2], b[None, :, :2])).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area_a[:, None] + area_b[None, :] - inter)''',
            # Box i of a against box i of b only: no pairs, and it fails when N != M.
            '''def box_iou(a, b):
    """(N, M) intersection over union of every box of a (N, 4) with every box of b (M, 4)."""
    wh = (torch.minimum(a[:, 2:], b[:, 2:]) - torch.maximum(a[:, :2], b[:, :2])).clamp(min=0)
    inter = wh[:, 0] * wh[:, 1]
    union = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1]) + (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]) - inter
    return torch.where(union > 0, inter / union, torch.zeros_like(union))''',
            # The box around both (max of the right edges) instead of the shared box.
            '''def box_iou(a, b):
    """(N, M) intersection over union of every box of a (N, 4) with every box of b (M, 4)."""
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    wh = (torch.maximum(a[:, None, 2:], b[None, :, 2:]) - torch.maximum(a[:, None, :2], b[None, :, :2])).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    union = area_a[:, None] + area_b[None, :] - inter
    return torch.where(union > 0, inter / union, torch.zeros_like(union))''',
        ],
        "right": [
            # Corners unpacked with unbind, intersection clamped, NaN turned into 0.
            '''def box_iou(a, b):
    """(N, M) intersection over union of every box of a (N, 4) with every box of b (M, 4)."""
    ax1, ay1, ax2, ay2 = a.unsqueeze(1).unbind(dim=-1)   # each (N, 1)
    bx1, by1, bx2, by2 = b.unsqueeze(0).unbind(dim=-1)   # each (1, M)
    w = (torch.minimum(ax2, bx2) - torch.maximum(ax1, bx1)).clamp(min=0)
    h = (torch.minimum(ay2, by2) - torch.maximum(ay1, by1)).clamp(min=0)
    inter = w * h
    union = (ax2 - ax1) * (ay2 - ay1) + (bx2 - bx1) * (by2 - by1) - inter
    return torch.nan_to_num(inter / union, nan=0.0)''',
            # One box of a at a time against all of b (a loop over N is allowed here).
            '''def box_iou(a, b):
    """(N, M) intersection over union of every box of a (N, 4) with every box of b (M, 4)."""
    out = torch.zeros(a.shape[0], b.shape[0], dtype=a.dtype, device=a.device)
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    for i in range(a.shape[0]):
        box = a[i]
        w = (torch.clamp(b[:, 2], max=box[2]) - torch.clamp(b[:, 0], min=box[0])).clamp(min=0)
        h = (torch.clamp(b[:, 3], max=box[3]) - torch.clamp(b[:, 1], min=box[1])).clamp(min=0)
        inter = w * h
        union = (box[2] - box[0]) * (box[3] - box[1]) + area_b - inter
        out[i] = torch.where(union > 0, inter / union, torch.zeros_like(union))
    return out''',
            # With NumPy, back to a's dtype and device.
            '''import numpy as np


def box_iou(a, b):
    """(N, M) intersection over union of every box of a (N, 4) with every box of b (M, 4)."""
    p, q = a.detach().cpu().numpy().astype(np.float64), b.detach().cpu().numpy().astype(np.float64)
    w = np.clip(np.minimum(p[:, None, 2], q[None, :, 2]) - np.maximum(p[:, None, 0], q[None, :, 0]), 0, None)
    h = np.clip(np.minimum(p[:, None, 3], q[None, :, 3]) - np.maximum(p[:, None, 1], q[None, :, 1]), 0, None)
    inter = w * h
    union = ((p[:, 2] - p[:, 0]) * (p[:, 3] - p[:, 1]))[:, None] + ((q[:, 2] - q[:, 0]) * (q[:, 3] - q[:, 1]))[None, :] - inter
    iou = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    return torch.from_numpy(iou).to(dtype=a.dtype, device=a.device)''',
            # Widths from a stacked (N, M, 2) of corners, and a guarded division.
            '''def box_iou(a, b):
    """(N, M) intersection over union of every box of a (N, 4) with every box of b (M, 4)."""
    lower = torch.max(a[:, None, :2], b[None, :, :2])
    upper = torch.min(a[:, None, 2:], b[None, :, 2:])
    inter = (upper - lower).clamp(min=0).prod(dim=-1)
    area = lambda boxes: (boxes[:, 2:] - boxes[:, :2]).prod(dim=-1)
    union = area(a)[:, None] + area(b)[None, :] - inter
    return inter / torch.where(union > 0, union, torch.ones_like(union))''',
            # Defensive: checks the boxes' shape, then computes in float64.
            '''def box_iou(a, b):
    """(N, M) intersection over union of every box of a (N, 4) with every box of b (M, 4)."""
    if a.dim() != 2 or a.shape[1] != 4 or b.dim() != 2 or b.shape[1] != 4:
        raise ValueError("boxes must have shape (N, 4) and (M, 4)")
    x, y = a.double(), b.double()
    w = (torch.min(x[:, 2:3], y[:, 2]) - torch.max(x[:, 0:1], y[:, 0])).clamp(min=0)
    h = (torch.min(x[:, 3:4], y[:, 3]) - torch.max(x[:, 1:2], y[:, 1])).clamp(min=0)
    inter = w * h
    union = ((x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])).unsqueeze(1) + (y[:, 2] - y[:, 0]) * (y[:, 3] - y[:, 1]) - inter
    iou = torch.where(union > 0, inter / union.clamp(min=1e-300), torch.zeros_like(inter))
    return iou.to(a.dtype)''',
        ],
    },
    "answer_advanced_index_copies": {
        "wrong": [
            '''# One upper-case letter as a string, for example "A".
answer_advanced_index_copies = "A"''',
            '''# One upper-case letter as a string, for example "A".
answer_advanced_index_copies = "C"''',
            '''# One upper-case letter as a string, for example "A".
answer_advanced_index_copies = "B"''',
        ],
        "right": [
            '''# One upper-case letter as a string, for example "A".
answer_advanced_index_copies = "D"''',
            '''# One upper-case letter as a string, for example "A".
answer_advanced_index_copies = " d "''',
            """# One upper-case letter as a string, for example "A".
answer_advanced_index_copies = "ABCD"[3]""",
        ],
    },
    "answer_einsum_shape": {
        "wrong": [
            # The attention scores' usual layout, as if the spec ended in ->bhqk.
            """# A tuple of ints, for example (1, 2, 3).
answer_einsum_shape = (2, 4, 5, 7)""",
            # The kept letters in the order the inputs name them, not the order after ->.
            """# A tuple of ints, for example (1, 2, 3).
answer_einsum_shape = (4, 5, 7)""",
            # The summed letters kept as well.
            """# A tuple of ints, for example (1, 2, 3).
answer_einsum_shape = (2, 4, 7, 5, 8)""",
        ],
        "right": [
            """# A tuple of ints, for example (1, 2, 3).
answer_einsum_shape = (4, 7, 5)""",
            """# A tuple of ints, for example (1, 2, 3).
answer_einsum_shape = [4, 7, 5]""",
            """# A tuple of ints, for example (1, 2, 3).
import torch
q = torch.randn(2, 4, 5, 8)
k = torch.randn(2, 4, 7, 8)
answer_einsum_shape = tuple(torch.einsum("bhqd,bhkd->hkq", q, k).shape)""",
            """import torch
answer_einsum_shape = torch.Size([4, 7, 5])""",
            """import numpy as np
answer_einsum_shape = (np.int64(4), np.int64(7), np.int64(5))""",
        ],
    },
    "answer_mask_shape": {
        "wrong": [
            # The number of True cells alone.
            """# A tuple of ints, for example (1, 2, 3).
answer_mask_shape = (7,)""",
            # x's shape, as if the mask kept it.
            """# A tuple of ints, for example (1, 2, 3).
answer_mask_shape = (4, 3, 5)""",
            # Every True cell counted with its whole row of the mask.
            """# A tuple of ints, for example (1, 2, 3).
answer_mask_shape = (4, 5)""",
        ],
        "right": [
            """# A tuple of ints, for example (1, 2, 3).
answer_mask_shape = (7, 5)""",
            """# A tuple of ints, for example (1, 2, 3).
answer_mask_shape = [7, 5]""",
            """# A tuple of ints, for example (1, 2, 3).
x = torch.randn(4, 3, 5)
mask = torch.tensor([[True, False, True], [False, False, False], [True, True, True], [False, True, True]])
answer_mask_shape = x[mask].shape""",
        ],
    },
    "answer_vectorized_speed": {
        "wrong": [
            '''# One upper-case letter as a string, for example "A".
answer_vectorized_speed = "A"''',
            '''# One upper-case letter as a string, for example "A".
answer_vectorized_speed = "C"''',
            '''# One upper-case letter as a string, for example "A".
answer_vectorized_speed = "D"''',
        ],
        "right": [
            '''# One upper-case letter as a string, for example "A".
answer_vectorized_speed = "B"''',
            '''# One upper-case letter as a string, for example "A".
answer_vectorized_speed = "b"''',
            """# One upper-case letter as a string, for example "A".
answer_vectorized_speed = chr(ord("A") + 1)""",
        ],
    },
}

# One more way each to write the same answer.
ITEMS["answer_advanced_index_copies"]["right"] += ['answer_advanced_index_copies = "D\\n"\n']
ITEMS["answer_mask_shape"]["right"] += ["answer_mask_shape = torch.Size([7, 5])\n"]
ITEMS["answer_vectorized_speed"]["right"] += ["answer_vectorized_speed = ' B'\n"]


# More answers, each written from the task text and the contract alone, as a student would.
MORE = {
    "answer_advanced_index_copies": {
        "right": [
            '''answer_advanced_index_copies = "D"''',
            "answer_advanced_index_copies = ' d'",
            '''answer_advanced_index_copies = "d"''',
        ],
        "wrong": [
            '''answer_advanced_index_copies = "A"''',
            '''answer_advanced_index_copies = "B"''',
        ],
    },
    "answer_mask_shape": {
        "right": [
            """answer_mask_shape = (7, 5)""",
            """answer_mask_shape = [7, 5]""",
            """import torch
answer_mask_shape = torch.Size([7, 5])""",
            """import torch
_mask = torch.tensor([[True, False, True],
                      [False, False, False],
                      [True, True, True],
                      [False, True, True]])
answer_mask_shape = torch.randn(4, 3, 5)[_mask].shape""",
            """import numpy as np
answer_mask_shape = (np.int64(7), np.int64(5))""",
        ],
        "wrong": [
            """answer_mask_shape = (7,)""",
            """answer_mask_shape = (4, 5)""",
            """answer_mask_shape = (6, 5)""",
        ],
    },
    "answer_vectorized_speed": {
        "right": [
            '''answer_vectorized_speed = "B"''',
            "answer_vectorized_speed = 'b '",
        ],
        "wrong": [
            '''answer_vectorized_speed = "A"''',
            '''answer_vectorized_speed = "C"''',
        ],
    },
    "select_by_label": {
        "right": [
            """import torch
def select_by_label(scores, labels):
    return scores.gather(dim=1, index=labels[:, None])[:, 0]
""",
            """def select_by_label(scores, labels):
    return scores.gather(1, labels.unsqueeze(1)).squeeze(1)
""",
            """import torch
import torch.nn.functional as F
def select_by_label(scores, labels):
    onehot = F.one_hot(labels, num_classes=scores.shape[1]).bool()
    return torch.where(onehot, scores, torch.zeros((), dtype=scores.dtype, device=scores.device)).sum(dim=1)
""",
            """import torch
def select_by_label(scores, labels):
    return torch.take_along_dim(scores, labels.view(-1, 1), dim=1).view(-1)
""",
            """import torch
def select_by_label(scores, labels):
    if len(labels) == 0:
        return scores.new_zeros(0)
    return torch.stack([scores[i, labels[i]] for i in range(len(labels))])
""",
        ],
        "wrong": [
            """def select_by_label(scores, labels):
    return scores.gather(1, labels.unsqueeze(1)).squeeze()
""",
            """def select_by_label(scores, labels):
    return scores[:, labels].diagonal().float()
""",
            """def select_by_label(scores, labels):
    return scores[labels, torch.arange(len(labels))]
""",
        ],
    },
    "confusion_matrix": {
        "right": [
            """import torch
def confusion_matrix(predicted, labels, num_classes):
    C = num_classes
    counts = torch.bincount(predicted * C + labels, minlength=C * C)
    return counts.reshape(C, C).T
""",
            '''def confusion_matrix(predicted, labels, num_classes):
    """(C, C) int64 counts: entry [t, p] is the number of examples with label t and prediction p."""
    flat = labels * num_classes + predicted
    return torch.bincount(flat, minlength=num_classes * num_classes).reshape(num_classes, num_classes)
''',
            """import torch
import torch.nn.functional as F
def confusion_matrix(predicted, labels, num_classes):
    t = F.one_hot(labels, num_classes).to(torch.float64)
    p = F.one_hot(predicted, num_classes).to(torch.float64)
    return (t.T @ p).round().long()
""",
            """import torch
def confusion_matrix(predicted, labels, num_classes):
    out = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=labels.device)
    out.index_put_((labels, predicted), torch.ones((), dtype=torch.int64, device=labels.device), accumulate=True)
    return out
""",
            """import torch
def confusion_matrix(predicted, labels, num_classes):
    rows = []
    for t in range(num_classes):
        rows.append(torch.bincount(predicted[labels == t], minlength=num_classes))
    return torch.stack(rows).to(torch.int64)
""",
            """import torch
def confusion_matrix(predicted, labels, num_classes):
    C = int(num_classes)
    flat = torch.zeros(C * C, dtype=torch.long, device=predicted.device)
    flat.scatter_add_(0, (labels * C + predicted).reshape(-1), torch.ones_like(labels).reshape(-1))
    return flat.view(C, C)
""",
        ],
        "wrong": [
            """def confusion_matrix(predicted, labels, num_classes):
    flat = predicted * num_classes + labels
    return torch.bincount(flat, minlength=num_classes * num_classes).reshape(num_classes, num_classes)
""",
            """def confusion_matrix(predicted, labels, num_classes):
    out = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=labels.device)
    out[labels, predicted] += 1
    return out
""",
            """def confusion_matrix(predicted, labels, num_classes):
    out = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=labels.device)
    for t, p in zip(labels.tolist(), predicted.tolist()):
        out[t, p] += 1
    return out
""",
        ],
    },
    "masked_mean": {
        "right": [
            '''def masked_mean(x, mask):
    """The mean of x over its last dimension, counting only the entries where mask is True (0 for none)."""
    m = mask.to(x.dtype)
    total = (x * m).sum(dim=-1)
    count = m.sum(dim=-1)
    return torch.where(count > 0, total / count.clamp(min=1), torch.zeros_like(total))
''',
            """import torch
def masked_mean(x, mask):
    total = x.masked_fill(~mask, 0).sum(dim=-1)
    count = mask.sum(dim=-1).clamp(min=1)
    return total / count
""",
            """import torch
def masked_mean(x, mask):
    filled = torch.where(mask, x, torch.full_like(x, float("nan")))
    return torch.nan_to_num(torch.nanmean(filled, dim=-1), nan=0.0)
""",
            """import torch
def masked_mean(x, mask):
    xf = x.to(torch.float64)
    total = torch.where(mask, xf, 0.0).sum(-1)
    count = mask.to(torch.float64).sum(-1)
    out = torch.where(count == 0, torch.zeros_like(total), total / torch.where(count == 0, torch.ones_like(count), count))
    return out.to(x.dtype)
""",
            """import math
import torch
def masked_mean(x, mask):
    lead = x.shape[:-1]
    L = x.shape[-1]
    n = math.prod(lead)
    rows = x.reshape(n, L)
    keep = mask.reshape(n, L)
    out = torch.zeros(rows.shape[0], dtype=x.dtype, device=x.device)
    for i in range(rows.shape[0]):
        chosen = rows[i][keep[i]]
        if chosen.numel() > 0:
            out[i] = chosen.mean()
    return out.reshape(lead)
""",
        ],
        "wrong": [
            """def masked_mean(x, mask):
    return (x * mask).mean(dim=-1)
""",
            """def masked_mean(x, mask):
    return (x * mask).sum(dim=-1) / mask.sum(dim=-1)
""",
            """def masked_mean(x, mask):
    x[~mask] = 0
    return x.sum(dim=-1) / mask.sum(dim=-1).clamp(min=1)
""",
        ],
    },
    "topk_mask": {
        "right": [
            """import torch
def topk_mask(scores, k):
    N, C = scores.shape
    if k == 0 or N == 0:
        return torch.zeros((N, C), dtype=torch.bool, device=scores.device)
    kth = torch.kthvalue(scores, C - k + 1, dim=1, keepdim=True).values
    return torch.ge(scores, kth)
""",
            '''def topk_mask(scores, k):
    """Bool (N, C): True at the k largest entries of each row of scores."""
    idx = scores.topk(k, dim=1).indices
    return torch.zeros_like(scores, dtype=torch.bool).scatter_(1, idx, True)
''',
            """import torch
def topk_mask(scores, k):
    ranks = scores.argsort(dim=1, descending=True).argsort(dim=1)
    return ranks < k
""",
            """import torch
def topk_mask(scores, k):
    if k == 0:
        return torch.zeros(scores.shape, dtype=torch.bool, device=scores.device)
    kth = scores.topk(k, dim=1).values[:, -1:]
    return scores >= kth
""",
            """import torch
import torch.nn.functional as F
def topk_mask(scores, k):
    idx = torch.topk(scores, k, dim=-1, sorted=False).indices
    return F.one_hot(idx, num_classes=scores.shape[1]).sum(dim=1) > 0
""",
            """import torch
def topk_mask(scores, k):
    values, order = scores.sort(dim=1, descending=True)
    out = torch.zeros(scores.shape, dtype=torch.bool, device=scores.device)
    out.scatter_(1, order[:, :k], torch.ones_like(order[:, :k], dtype=torch.bool))
    return out
""",
        ],
        "wrong": [
            """def topk_mask(scores, k):
    idx = scores.topk(k, dim=1, largest=False).indices
    return torch.zeros_like(scores, dtype=torch.bool).scatter_(1, idx, True)
""",
            """def topk_mask(scores, k):
    idx = scores.topk(k, dim=1).indices
    return torch.zeros_like(scores, dtype=torch.long).scatter_(1, idx, 1)
""",
            """def topk_mask(scores, k):
    if k == 0:
        return torch.zeros(scores.shape, dtype=torch.bool, device=scores.device)
    kth = scores.topk(k, dim=1).values[:, -1:]
    return scores > kth
""",
        ],
    },
    "embedding_bag_mean": {
        "right": [
            """import torch
def embedding_bag_mean(table, index, lengths):
    L = index.shape[1]
    real = (torch.arange(L, device=index.device) < lengths[:, None]).unsqueeze(-1)
    work = torch.promote_types(table.dtype, torch.float32)
    picked = table[index].to(work)
    total = torch.where(real, picked, torch.zeros((), dtype=work, device=table.device)).sum(dim=1)
    mean = total / lengths.clamp(min=1).to(work)[:, None]
    return mean.to(table.dtype)
""",
            '''def embedding_bag_mean(table, index, lengths):
    """(B, D): row b is the mean of table[index[b, j]] for j < lengths[b], zeros when lengths[b] is 0."""
    vectors = table[index]
    real = torch.arange(index.shape[1], device=index.device) < lengths.unsqueeze(1)
    total = (vectors * real.unsqueeze(-1).to(table.dtype)).sum(dim=1)
    return total / lengths.clamp(min=1).unsqueeze(1).to(table.dtype)
''',
            """import torch
import torch.nn.functional as F
def embedding_bag_mean(table, index, lengths):
    B, L = index.shape
    real = torch.arange(L, device=index.device).unsqueeze(0) < lengths.unsqueeze(1)
    ids = index[real]
    offsets = torch.cumsum(lengths, 0) - lengths
    if B == 0:
        return table.new_zeros(0, table.shape[1])
    return F.embedding_bag(ids, table, offsets, mode="mean")
""",
            """import torch
def embedding_bag_mean(table, index, lengths):
    B, L = index.shape
    acc = torch.zeros(B, table.shape[1], dtype=table.dtype, device=table.device)
    for j in range(L):
        keep = (lengths > j).to(table.dtype).unsqueeze(1)
        acc = acc + table[index[:, j]] * keep
    return acc / lengths.clamp(min=1).to(table.dtype).unsqueeze(1)
""",
            """import torch
def embedding_bag_mean(table, index, lengths):
    L = index.shape[1]
    weights = (torch.arange(L, device=index.device)[None, :] < lengths[:, None]).to(table.dtype)
    weights = weights / lengths.clamp(min=1)[:, None].to(table.dtype)
    return torch.einsum("bl,bld->bd", weights, table[index])
""",
            """import torch
def embedding_bag_mean(table, index, lengths):
    B, L = index.shape
    real = torch.arange(L, device=index.device).expand(B, L) < lengths.view(-1, 1)
    owner = torch.arange(B, device=index.device).view(-1, 1).expand(B, L)
    out = torch.zeros(B, table.shape[1], dtype=table.dtype, device=table.device)
    out.index_add_(0, owner[real], table[index[real]])
    return out / lengths.clamp(min=1).to(table.dtype).view(-1, 1)
""",
        ],
        "wrong": [
            """def embedding_bag_mean(table, index, lengths):
    return table[index].mean(dim=1)
""",
            """def embedding_bag_mean(table, index, lengths):
    real = torch.arange(index.shape[1]) < lengths.unsqueeze(1)
    return (table[index] * real.unsqueeze(-1)).sum(dim=1) / lengths.unsqueeze(1)
""",
            """def embedding_bag_mean(table, index, lengths):
    rows = []
    for b in range(index.shape[0]):
        n = int(lengths[b])
        rows.append(table[index[b, :n]].mean(dim=0) if n > 0 else torch.zeros(table.shape[1], dtype=table.dtype))
    return torch.stack(rows) if rows else torch.zeros(0, table.shape[1], dtype=table.dtype)
""",
        ],
    },
    "box_iou": {
        "right": [
            """import torch
def box_iou(a, b):
    lt = torch.maximum(a[:, None, :2], b[None, :, :2])
    rb = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(dim=-1)
    area_a = (a[:, 2:] - a[:, :2]).prod(dim=-1)
    area_b = (b[:, 2:] - b[:, :2]).prod(dim=-1)
    union = area_a[:, None] + area_b[None, :] - inter
    return inter / union.clamp(min=torch.finfo(a.dtype).tiny)
""",
            '''def box_iou(a, b):
    """(N, M) intersection over union of every box of a (N, 4) with every box of b (M, 4)."""
    left = torch.maximum(a[:, None, 0], b[None, :, 0])
    top = torch.maximum(a[:, None, 1], b[None, :, 1])
    right = torch.minimum(a[:, None, 2], b[None, :, 2])
    bottom = torch.minimum(a[:, None, 3], b[None, :, 3])
    inter = (right - left).clamp(min=0) * (bottom - top).clamp(min=0)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a[:, None] + area_b[None, :] - inter
    return torch.where(union > 0, inter / union, torch.zeros_like(union))
''',
            """import torch
def box_iou(a, b):
    a32, b32 = a.to(torch.float64), b.to(torch.float64)
    lt = torch.max(a32[:, None, :2], b32[None, :, :2])
    rb = torch.min(a32[:, None, 2:], b32[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    area = lambda t: (t[:, 2] - t[:, 0]) * (t[:, 3] - t[:, 1])
    union = area(a32)[:, None] + area(b32)[None, :] - inter
    return torch.nan_to_num(inter / union, nan=0.0).to(a.dtype)
""",
            """import torch
def box_iou(a, b):
    N, M = a.shape[0], b.shape[0]
    if N == 0 or M == 0:
        return torch.zeros(N, M, dtype=a.dtype, device=a.device)
    rows = []
    for i in range(N):
        x1, y1, x2, y2 = a[i]
        w = (torch.minimum(x2, b[:, 2]) - torch.maximum(x1, b[:, 0])).clamp(min=0)
        h = (torch.minimum(y2, b[:, 3]) - torch.maximum(y1, b[:, 1])).clamp(min=0)
        inter = w * h
        union = (x2 - x1) * (y2 - y1) + (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]) - inter
        rows.append(torch.where(union > 0, inter / union, torch.zeros_like(inter)))
    return torch.stack(rows).to(a.dtype)
""",
            """import torch
def box_iou(a, b):
    ax1, ay1, ax2, ay2 = a.unsqueeze(1).unbind(-1)
    bx1, by1, bx2, by2 = b.unsqueeze(0).unbind(-1)
    iw = (torch.min(ax2, bx2) - torch.max(ax1, bx1)).clamp_min(0)
    ih = (torch.min(ay2, by2) - torch.max(ay1, by1)).clamp_min(0)
    inter = iw * ih
    union = (ax2 - ax1) * (ay2 - ay1) + (bx2 - bx1) * (by2 - by1) - inter
    safe = torch.where(union == 0, torch.ones_like(union), union)
    return (inter / safe).to(a.dtype)
""",
        ],
        "wrong": [
            """def box_iou(a, b):
    left = torch.maximum(a[:, None, 0], b[None, :, 0])
    top = torch.maximum(a[:, None, 1], b[None, :, 1])
    right = torch.minimum(a[:, None, 2], b[None, :, 2])
    bottom = torch.minimum(a[:, None, 3], b[None, :, 3])
    inter = (right - left) * (bottom - top)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a[:, None] + area_b[None, :] - inter
    return torch.where(union > 0, inter / union, torch.zeros_like(union))
""",
            """def box_iou(a, b):
    left = torch.maximum(a[:, None, 0], b[None, :, 0])
    top = torch.maximum(a[:, None, 1], b[None, :, 1])
    right = torch.minimum(a[:, None, 2], b[None, :, 2])
    bottom = torch.minimum(a[:, None, 3], b[None, :, 3])
    inter = (right - left).clamp(min=0) * (bottom - top).clamp(min=0)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / (area_a[:, None] + area_b[None, :] - inter)
""",
            """def box_iou(a, b):
    left = torch.maximum(a[:, None, 0], b[None, :, 0])
    top = torch.maximum(a[:, None, 1], b[None, :, 1])
    right = torch.minimum(a[:, None, 2], b[None, :, 2])
    bottom = torch.minimum(a[:, None, 3], b[None, :, 3])
    inter = (right - left).clamp(min=0) * (bottom - top).clamp(min=0)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a[:, None] + area_b[None, :]
    return torch.where(union > 0, inter / union, torch.zeros_like(union))
""",
        ],
    },
}
for _item, _table in MORE.items():
    for _kind, _codes in _table.items():
        ITEMS[_item].setdefault(_kind, []).extend(_codes)


# Quizzes that apply a rule to code the lesson does not show: each wrong letter or shape is one
# misconception, each right answer the key written another well-formed way.
ITEMS["answer_gather_dim0"] = {
    "wrong": ['answer_gather_dim0 = "B"\n', 'answer_gather_dim0 = "C"\n', 'answer_gather_dim0 = "D"\n'],
    "right": [
        'answer_gather_dim0 = "A"\n',
        'answer_gather_dim0 = "a"\n',
        'answer_gather_dim0 = " A "\n',
        '# the index picks the row, the column is j\nanswer_gather_dim0 = "A"\n',
    ],
}
ITEMS["answer_index_broadcast_shape"] = {
    "wrong": [
        "answer_index_broadcast_shape = (3, 7)\n",
        "answer_index_broadcast_shape = (3, 2, 7)\n",
        "answer_index_broadcast_shape = (2, 3)\n",
        "answer_index_broadcast_shape = (6, 7)\n",
    ],
    "right": [
        "answer_index_broadcast_shape = (2, 3, 7)\n",
        "answer_index_broadcast_shape = [2, 3, 7]\n",
        "answer_index_broadcast_shape = torch.Size([2, 3, 7])\n",
        "answer_index_broadcast_shape = tuple(torch.zeros(5, 6, 7)[torch.tensor([0, 2, 4]), torch.tensor([[1], [3]])].shape)\n",
    ],
}
