"""Wrong and right answers for lesson 05 (shapes): each wrong one is a real shape mistake its test must catch."""

ITEMS = {
    "flatten_images": {
        "wrong": [
            # view refuses a batch that is not contiguous (after permute, or stored channels-last).
            '''def flatten_images(x):
    """(B, C, H, W) to (B, C*H*W), row-major, whatever the memory layout of x."""
    return x.view(x.shape[0], -1)''',
            # -1 cannot be inferred for an empty batch.
            '''def flatten_images(x):
    """(B, C, H, W) to (B, C*H*W), row-major, whatever the memory layout of x."""
    return x.reshape(x.shape[0], -1)''',
            # Moves the channels last before flattening: not the row-major order of (C, H, W).
            '''def flatten_images(x):
    """(B, C, H, W) to (B, C*H*W), row-major, whatever the memory layout of x."""
    return x.permute(0, 2, 3, 1).reshape(x.shape[0], x.shape[1] * x.shape[2] * x.shape[3])''',
            # Flattens the batch dimension too.
            '''def flatten_images(x):
    """(B, C, H, W) to (B, C*H*W), row-major, whatever the memory layout of x."""
    return x.flatten()''',
            # Goes through NumPy: fails on tensors that require grad, and loses the device.
            '''def flatten_images(x):
    """(B, C, H, W) to (B, C*H*W), row-major, whatever the memory layout of x."""
    B, C, H, W = x.shape
    return torch.from_numpy(x.numpy().reshape(B, C * H * W))''',
        ],
        "right": [
            '''def flatten_images(x):
    """(B, C, H, W) to (B, C*H*W), row-major, whatever the memory layout of x."""
    return torch.flatten(x, start_dim=1)''',
            '''def flatten_images(x):
    """(B, C, H, W) to (B, C*H*W), row-major, whatever the memory layout of x."""
    B, C, H, W = x.shape
    return x.reshape(B, C * H * W)''',
            '''def flatten_images(x):
    """(B, C, H, W) to (B, C*H*W), row-major, whatever the memory layout of x."""
    return x.contiguous().view(-1, x.shape[1] * x.shape[2] * x.shape[3])''',
        ],
    },
    "to_channels_last": {
        "wrong": [
            # reshape regroups memory instead of moving the channel dimension.
            '''def to_channels_last(x):
    """(B, C, H, W) to (B, H, W, C): out[b, h, w, c] == x[b, c, h, w]."""
    B, C, H, W = x.shape
    return x.reshape(B, H, W, C)''',
            # Swaps channels with width: (B, W, H, C).
            '''def to_channels_last(x):
    """(B, C, H, W) to (B, H, W, C): out[b, h, w, c] == x[b, c, h, w]."""
    return x.transpose(1, 3)''',
            # The dimensions in the wrong order.
            '''def to_channels_last(x):
    """(B, C, H, W) to (B, H, W, C): out[b, h, w, c] == x[b, c, h, w]."""
    return x.permute(0, 3, 2, 1)''',
            # Through NumPy: breaks on tensors that require grad and on the GPU.
            '''def to_channels_last(x):
    """(B, C, H, W) to (B, H, W, C): out[b, h, w, c] == x[b, c, h, w]."""
    return torch.from_numpy(x.numpy().transpose(0, 2, 3, 1))''',
            # view with the new sizes: the same scrambling as reshape.
            '''def to_channels_last(x):
    """(B, C, H, W) to (B, H, W, C): out[b, h, w, c] == x[b, c, h, w]."""
    return x.view(x.shape[0], x.shape[2], x.shape[3], x.shape[1])''',
        ],
        "right": [
            '''def to_channels_last(x):
    """(B, C, H, W) to (B, H, W, C): out[b, h, w, c] == x[b, c, h, w]."""
    return x.permute(0, 2, 3, 1).contiguous()''',
            '''def to_channels_last(x):
    """(B, C, H, W) to (B, H, W, C): out[b, h, w, c] == x[b, c, h, w]."""
    return x.movedim(1, -1)''',
            '''def to_channels_last(x):
    """(B, C, H, W) to (B, H, W, C): out[b, h, w, c] == x[b, c, h, w]."""
    return x.transpose(1, 2).transpose(2, 3)''',
        ],
    },
    "normalize_channels": {
        "wrong": [
            # The default std divides by n - 1, not n.
            '''def normalize_channels(x):
    """(x - mean) / (std + 1e-5) with per-channel mean and population std over dims 0, 2, 3."""
    mean = x.mean(dim=(0, 2, 3), keepdim=True)
    std = x.std(dim=(0, 2, 3), keepdim=True)
    return (x - mean) / (std + 1e-5)''',
            # Without keepdim the (C,) statistics line up with the width, not the channels.
            '''def normalize_channels(x):
    """(x - mean) / (std + 1e-5) with per-channel mean and population std over dims 0, 2, 3."""
    mean = x.mean(dim=(0, 2, 3))
    std = x.std(dim=(0, 2, 3), correction=0)
    return (x - mean) / (std + 1e-5)''',
            # One mean and std for the whole batch instead of one per channel.
            '''def normalize_channels(x):
    """(x - mean) / (std + 1e-5) with per-channel mean and population std over dims 0, 2, 3."""
    return (x - x.mean()) / (x.std(correction=0) + 1e-5)''',
            # The epsilon inside the square root (as batch norm does), not added to the std.
            '''def normalize_channels(x):
    """(x - mean) / (std + 1e-5) with per-channel mean and population std over dims 0, 2, 3."""
    mean = x.mean(dim=(0, 2, 3), keepdim=True)
    var = x.var(dim=(0, 2, 3), keepdim=True, correction=0)
    return (x - mean) / torch.sqrt(var + 1e-5)''',
            # Changes x in place.
            '''def normalize_channels(x):
    """(x - mean) / (std + 1e-5) with per-channel mean and population std over dims 0, 2, 3."""
    mean = x.mean(dim=(0, 2, 3), keepdim=True)
    std = x.std(dim=(0, 2, 3), keepdim=True, correction=0)
    x -= mean
    x /= std + 1e-5
    return x''',
            # Casts to float32: a float64 batch comes back in the wrong dtype.
            '''def normalize_channels(x):
    """(x - mean) / (std + 1e-5) with per-channel mean and population std over dims 0, 2, 3."""
    x = x.float()
    mean = x.mean(dim=(0, 2, 3), keepdim=True)
    std = x.std(dim=(0, 2, 3), keepdim=True, correction=0)
    return (x - mean) / (std + 1e-5)''',
            # view on the input: fails on a batch that is not contiguous.
            '''def normalize_channels(x):
    """(x - mean) / (std + 1e-5) with per-channel mean and population std over dims 0, 2, 3."""
    B, C = x.shape[0], x.shape[1]
    flat = x.view(B, C, -1)
    mean = flat.mean(dim=(0, 2)).view(1, C, 1, 1)
    std = flat.std(dim=(0, 2), correction=0).view(1, C, 1, 1)
    return (x - mean) / (std + 1e-5)''',
            # Statistics over the channels of each pixel (dim 1) instead of per channel.
            '''def normalize_channels(x):
    """(x - mean) / (std + 1e-5) with per-channel mean and population std over dims 0, 2, 3."""
    mean = x.mean(dim=1, keepdim=True)
    std = x.std(dim=1, keepdim=True, correction=0)
    return (x - mean) / (std + 1e-5)''',
        ],
        "right": [
            '''def normalize_channels(x):
    """(x - mean) / (std + 1e-5) with per-channel mean and population std over dims 0, 2, 3."""
    std, mean = torch.std_mean(x, dim=(0, 2, 3), correction=0, keepdim=True)
    return (x - mean) / (std + 1e-5)''',
            '''def normalize_channels(x):
    """(x - mean) / (std + 1e-5) with per-channel mean and population std over dims 0, 2, 3."""
    mean = x.mean(dim=(0, 2, 3), keepdim=True)
    std = x.var(dim=(0, 2, 3), keepdim=True, unbiased=False).sqrt()
    return (x - mean) / (std + 1e-5)''',
            '''def normalize_channels(x):
    """(x - mean) / (std + 1e-5) with per-channel mean and population std over dims 0, 2, 3."""
    C = x.shape[1]
    per_channel = x.transpose(0, 1).reshape(C, -1)
    mean = per_channel.mean(dim=1)
    std = ((per_channel - mean[:, None]) ** 2).mean(dim=1).sqrt()
    return (x - mean.view(1, C, 1, 1)) / (std.view(1, C, 1, 1) + 1e-5)''',
        ],
    },
    "center_rows": {
        "wrong": [
            # Without keepdim the row means line up with the columns.
            '''def center_rows(x):
    """Each row of the 2D tensor x minus that row's mean; x is left unchanged."""
    return x - x.mean(dim=1)''',
            # Centers the columns instead of the rows.
            '''def center_rows(x):
    """Each row of the 2D tensor x minus that row's mean; x is left unchanged."""
    return x - x.mean(dim=0, keepdim=True)''',
            # Changes x in place.
            '''def center_rows(x):
    """Each row of the 2D tensor x minus that row's mean; x is left unchanged."""
    x -= x.mean(dim=1, keepdim=True)
    return x''',
            # One mean for the whole tensor.
            '''def center_rows(x):
    """Each row of the 2D tensor x minus that row's mean; x is left unchanged."""
    return x - x.mean()''',
        ],
        "right": [
            '''def center_rows(x):
    """Each row of the 2D tensor x minus that row's mean; x is left unchanged."""
    return x - x.mean(dim=1).unsqueeze(1)''',
            '''def center_rows(x):
    """Each row of the 2D tensor x minus that row's mean; x is left unchanged."""
    return x - x.mean(1)[:, None]''',
            '''def center_rows(x):
    """Each row of the 2D tensor x minus that row's mean; x is left unchanged."""
    return (x.T - x.mean(dim=1)).T''',
            '''def center_rows(x):
    """Each row of the 2D tensor x minus that row's mean; x is left unchanged."""
    return x - x.sum(dim=-1, keepdim=True) / x.shape[1]''',
        ],
    },
    "pairwise_distances": {
        "wrong": [
            # Squared distances: the square root is missing.
            '''def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(dim=-1)''',
            # No size-1 dimensions: subtracts row i from row i only (or fails when N != M).
            '''def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    return (a - b).norm(dim=1)''',
            # The matrix-product form without clamping: tiny negative values give NaN for coinciding points.
            '''def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    squared = (a * a).sum(dim=1, keepdim=True) + (b * b).sum(dim=1) - 2 * a @ b.T
    return squared.sqrt()''',
            # Sums over the wrong dimension: (N, D) instead of (N, M).
            '''def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    return ((a[:, None, :] - b[None, :, :]) ** 2).sum(dim=1).sqrt()''',
            # Dot products, not distances.
            '''def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    return a @ b.T''',
            # Casts to float32: float64 points come back in the wrong dtype.
            '''def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    return torch.cdist(a.float(), b.float())''',
        ],
        "right": [
            '''def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    return torch.cdist(a, b)''',
            '''def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    squared = (a * a).sum(dim=1, keepdim=True) + (b * b).sum(dim=1) - 2 * a @ b.T
    return squared.clamp_min(0).sqrt()''',
            '''def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    return torch.linalg.vector_norm(a.unsqueeze(1) - b.unsqueeze(0), dim=-1)''',
        ],
    },
    "answer_broadcast_shape": {
        "wrong": [
            '''# A tuple of ints, for example (2, 5).
answer_broadcast_shape = (4, 3)''',
            '''# A tuple of ints, for example (2, 5).
answer_broadcast_shape = [3, 4]''',
            '''# A tuple of ints, for example (2, 5).
answer_broadcast_shape = (3, 1, 4)''',
        ],
        "right": [
            '''# A tuple of ints, for example (2, 5).
answer_broadcast_shape = (3, 4)''',
            '''# A tuple of ints, for example (2, 5).
answer_broadcast_shape = tuple(torch.broadcast_shapes((3, 1), (1, 4)))''',
        ],
    },
    "answer_view_after_transpose": {
        "wrong": [
            '''# One upper-case letter as a string, for example "A".
answer_view_after_transpose = "A"''',
            '''# One upper-case letter as a string, for example "A".
answer_view_after_transpose = "D"''',
            '''# One upper-case letter as a string, for example "A".
answer_view_after_transpose = "c"''',
        ],
        "right": [
            '''# One upper-case letter as a string, for example "A".
answer_view_after_transpose = "C"''',
            '''# One upper-case letter as a string, for example "A".
answer_view_after_transpose = "ABCD"[2]''',
        ],
    },
}
