"""Wrong and right answers for lesson 05 (shapes): each wrong one is a real shape mistake its test must catch,
each right one a different way a student could write it from the task text alone."""

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
            '''def flatten_images(x):
    """(B, C, H, W) to (B, C*H*W), row-major, whatever the memory layout of x."""
    return torch.nn.Flatten()(x)''',
            # One channel at a time, side by side.
            '''def flatten_images(x):
    """(B, C, H, W) to (B, C*H*W), row-major, whatever the memory layout of x."""
    B, C, H, W = x.shape
    return torch.cat([x[:, c].reshape(B, H * W) for c in range(C)], dim=1)''',
            '''import math


def flatten_images(x):
    """(B, C, H, W) to (B, C*H*W), row-major, whatever the memory layout of x."""
    return x.clone(memory_format=torch.contiguous_format).view(x.shape[0], math.prod(x.shape[1:]))''',
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
            '''def to_channels_last(x):
    """(B, C, H, W) to (B, H, W, C): out[b, h, w, c] == x[b, c, h, w]."""
    return torch.einsum("bchw->bhwc", x)''',
            # Each channel as a (B, H, W) plane, stacked along a new last dimension.
            '''def to_channels_last(x):
    """(B, C, H, W) to (B, H, W, C): out[b, h, w, c] == x[b, c, h, w]."""
    return torch.stack([x[:, c] for c in range(x.shape[1])], dim=-1)''',
            '''def to_channels_last(x):
    """(B, C, H, W) to (B, H, W, C): out[b, h, w, c] == x[b, c, h, w]."""
    return x.swapaxes(1, 3).swapaxes(1, 2)''',
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
            # One channel at a time.
            '''def normalize_channels(x):
    """(x - mean) / (std + 1e-5) with per-channel mean and population std over dims 0, 2, 3."""
    out = torch.empty_like(x)
    for c in range(x.shape[1]):
        channel = x[:, c]
        out[:, c] = (channel - channel.mean()) / (channel.std(correction=0) + 1e-5)
    return out''',
            '''def normalize_channels(x):
    """(x - mean) / (std + 1e-5) with per-channel mean and population std over dims 0, 2, 3."""
    var, mean = torch.var_mean(x, dim=[0, 2, 3], correction=0)
    shape = (1, -1, 1, 1)
    return (x - mean.reshape(shape)) / (var.sqrt().reshape(shape) + 1e-5)''',
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
            # One row at a time: torch.stack refuses the empty list of a tensor with no rows.
            '''def center_rows(x):
    """Each row of the 2D tensor x minus that row's mean; x is left unchanged."""
    return torch.stack([row - row.mean() for row in x])''',
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
            '''def center_rows(x):
    """Each row of the 2D tensor x minus that row's mean; x is left unchanged."""
    return torch.sub(x, x.mean(dim=1).view(-1, 1))''',
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
            # Right values, one row of a at a time: the Python loop the task rules out.
            '''def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    rows = [(b - a[i]).pow(2).sum(dim=1).sqrt() for i in range(a.shape[0])]
    return torch.stack(rows) if rows else a.new_zeros(0, b.shape[0])''',
            # the numbers are right, but torch.cdist is the call the task rules out
            '''def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    return torch.cdist(a, b)''',
        ],
        "right": [
            '''def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    squared = (a * a).sum(dim=1, keepdim=True) + (b * b).sum(dim=1) - 2 * a @ b.T
    return squared.clamp_min(0).sqrt()''',
            '''def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    return torch.linalg.vector_norm(a.unsqueeze(1) - b.unsqueeze(0), dim=-1)''',
            '''def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    diff = a[:, None, :] - b[None, :, :]
    return torch.sqrt(torch.einsum("nmd,nmd->nm", diff, diff))''',
            '''def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    return torch.nn.functional.pairwise_distance(a[:, None, :], b[None, :, :])''',
        ],
    },
    "image_patches": {
        "wrong": [
            # A plain reshape regroups memory: each "patch" is a run of neighbouring pixels of one row.
            """def image_patches(x, p):
    B, C, H, W = x.shape
    return x.reshape(B, (H // p) * (W // p), C * p * p)""",
            # view after permute: the permuted tensor is not contiguous.
            """def image_patches(x, p):
    B, C, H, W = x.shape
    patches = x.reshape(B, C, H // p, p, W // p, p).permute(0, 2, 4, 1, 3, 5)
    return patches.view(B, (H // p) * (W // p), C * p * p)""",
            # -1 cannot be worked out for an empty batch.
            """def image_patches(x, p):
    B, C, H, W = x.shape
    patches = x.reshape(B, C, H // p, p, W // p, p).permute(0, 2, 4, 1, 3, 5)
    return patches.reshape(B, -1, C * p * p)""",
            # The channel last inside each patch: (row, column, channel) instead of (channel, row, column).
            """def image_patches(x, p):
    B, C, H, W = x.shape
    patches = x.reshape(B, C, H // p, p, W // p, p).permute(0, 2, 4, 3, 5, 1)
    return patches.reshape(B, (H // p) * (W // p), C * p * p)""",
            # Patches numbered column by column.
            """def image_patches(x, p):
    B, C, H, W = x.shape
    patches = x.reshape(B, C, H // p, p, W // p, p).permute(0, 4, 2, 1, 3, 5)
    return patches.reshape(B, (H // p) * (W // p), C * p * p)""",
            # unfold gives (B, C*p*p, L): the two last dimensions are the wrong way round.
            """def image_patches(x, p):
    return torch.nn.functional.unfold(x, kernel_size=p, stride=p)""",
        ],
        "right": [
            """def image_patches(x, p):
    B, C, H, W = x.shape
    blocks = x.unfold(2, p, p).unfold(3, p, p)  # (B, C, H // p, W // p, p, p)
    return blocks.permute(0, 2, 3, 1, 4, 5).reshape(B, (H // p) * (W // p), C * p * p)""",
            """def image_patches(x, p):
    return torch.nn.functional.unfold(x, kernel_size=p, stride=p).transpose(1, 2)""",
            # One patch at a time, stacked along a new dimension 1.
            """def image_patches(x, p):
    B, C, H, W = x.shape
    patches = [x[:, :, i * p:(i + 1) * p, j * p:(j + 1) * p].flatten(1)
               for i in range(H // p) for j in range(W // p)]
    return torch.stack(patches, dim=1)""",
            """def image_patches(x, p):
    B, C, H, W = x.shape
    split = x.contiguous().view(B, C, H // p, p, W // p, p)
    return split.permute(0, 2, 4, 1, 3, 5).contiguous().view(B, (H // p) * (W // p), C * p * p)""",
            # Rows of patches first, then columns.
            """def image_patches(x, p):
    B, C, H, W = x.shape
    rows = x.reshape(B, C, H // p, p, W).permute(0, 2, 1, 3, 4)  # (B, H // p, C, p, W)
    cells = rows.reshape(B, H // p, C, p, W // p, p).permute(0, 1, 4, 2, 3, 5)  # (B, H // p, W // p, C, p, p)
    return cells.reshape(B, (H // p) * (W // p), C * p * p)""",
            """def image_patches(x, p):
    B, C, H, W = x.shape
    split = x.reshape(B, C, H // p, p, W // p, p)
    return torch.einsum("bcipjq->bijcpq", split).reshape(B, (H // p) * (W // p), C * p * p)""",
        ],
    },
    "mean_squared_error": {
        "wrong": [
            # The bug itself: (N, 1) - (N,) broadcasts to (N, N).
            """def mean_squared_error(pred, target):
    return ((pred - target) ** 2).mean()""",
            # mse_loss warns about the sizes, then broadcasts all the same.
            """def mean_squared_error(pred, target):
    return torch.nn.functional.mse_loss(pred, target)""",
            # Fixes pred only: a (N, 1) target still broadcasts.
            """def mean_squared_error(pred, target):
    return ((pred.reshape(-1) - target) ** 2).mean()""",
            # A Python float, not a 0-d tensor.
            """def mean_squared_error(pred, target):
    return ((pred.reshape(-1) - target.reshape(-1)) ** 2).mean().item()""",
            # The sum, not the mean.
            """def mean_squared_error(pred, target):
    return ((pred.reshape(-1) - target.reshape(-1)) ** 2).sum()""",
            # The mean of the errors before squaring.
            """def mean_squared_error(pred, target):
    return (pred.reshape(-1) - target.reshape(-1)).mean() ** 2""",
        ],
        "right": [
            """def mean_squared_error(pred, target):
    return torch.nn.functional.mse_loss(pred.view(-1), target.view(-1))""",
            """def mean_squared_error(pred, target):
    return torch.mean((pred.squeeze() - target.squeeze()) ** 2)""",
            """def mean_squared_error(pred, target):
    diff = pred.flatten() - target.flatten()
    return (diff * diff).sum() / diff.numel()""",
            # Defensive: both must hold one number per example.
            """def mean_squared_error(pred, target):
    if pred.numel() != target.numel():
        raise ValueError(f"pred has {pred.numel()} numbers but target has {target.numel()}")
    diff = pred.reshape(target.shape) - target
    return diff.pow(2).mean()""",
            """def mean_squared_error(pred, target):
    return torch.mean((pred.view(-1, 1) - target.view(-1, 1)) ** 2)""",
        ],
    },
    "answer_broadcast_shape": {
        "wrong": [
            """# A tuple of ints, for example (2, 5).
answer_broadcast_shape = (4, 3)""",
            """# A tuple of ints, for example (2, 5).
answer_broadcast_shape = (1, 4)""",
            """# A tuple of ints, for example (2, 5).
answer_broadcast_shape = (3, 1, 4)""",
        ],
        "right": [
            """# A tuple of ints, for example (2, 5).
answer_broadcast_shape = (3, 4)""",
            """# A tuple of ints, for example (2, 5).
answer_broadcast_shape = [3, 4]""",
            """# A tuple of ints, for example (2, 5).
answer_broadcast_shape = (torch.zeros(3, 1) + torch.zeros(1, 4)).shape""",
            """# A tuple of ints, for example (2, 5).
answer_broadcast_shape = tuple(torch.broadcast_shapes((3, 1), (1, 4)))""",
        ],
    },
    "answer_view_after_transpose": {
        "wrong": [
            '''# One upper-case letter as a string, for example "A".
answer_view_after_transpose = "A"''',
            '''# One upper-case letter as a string, for example "A".
answer_view_after_transpose = "D"''',
            '''# One upper-case letter as a string, for example "A".
answer_view_after_transpose = "B"''',
        ],
        "right": [
            '''# One upper-case letter as a string, for example "A".
answer_view_after_transpose = "C"''',
            """# One upper-case letter as a string, for example "A".
answer_view_after_transpose = "ABCD"[2]""",
            '''# One upper-case letter as a string, for example "A".
answer_view_after_transpose = "c"''',
        ],
    },
}

# One more way to write the same letter: spaces around it.
ITEMS["answer_view_after_transpose"]["right"] += ['answer_view_after_transpose = "  C\\n"\n']


# More answers, each written from the task text and the contract alone, as a student would.
MORE = {
    "flatten_images": {
        "right": [
            '''def flatten_images(x):
    """(B, C, H, W) to (B, C*H*W), row-major, whatever the memory layout of x."""
    return x.flatten(1)
''',
            '''def flatten_images(x):
    """(B, C, H, W) to (B, C*H*W), row-major, whatever the memory layout of x."""
    b, c, h, w = x.shape
    return x.reshape(b, c * h * w)
''',
            '''import torch
def flatten_images(x):
    """(B, C, H, W) to (B, C*H*W), row-major, whatever the memory layout of x."""
    b, c, h, w = x.shape
    return x.contiguous().view(b, c * h * w).clone()
''',
        ],
        "wrong": [
            """def flatten_images(x):
    return x.view(x.shape[0], -1)
""",
            """def flatten_images(x):
    return x.permute(0, 2, 3, 1).reshape(x.shape[0], -1)
""",
            """def flatten_images(x):
    return x.reshape(x.shape[0], -1)
""",
        ],
    },
    "answer_view_after_transpose": {
        "right": [
            """answer_view_after_transpose = "C"
""",
            """answer_view_after_transpose = "c"
""",
            """answer_view_after_transpose = " C "
""",
        ],
        "wrong": [
            """answer_view_after_transpose = "A"
""",
            """answer_view_after_transpose = "D"
""",
        ],
    },
    "answer_broadcast_shape": {
        "right": [
            """answer_broadcast_shape = (3, 4)
""",
            """answer_broadcast_shape = [3, 4]
""",
            """import torch
answer_broadcast_shape = torch.Size([3, 4])
""",
            """import numpy as np
answer_broadcast_shape = (np.int64(3), np.int64(4))
""",
            """import torch
answer_broadcast_shape = tuple((torch.zeros(3, 1) + torch.zeros(1, 4)).shape)
""",
        ],
        "wrong": [
            """answer_broadcast_shape = (4, 3)
""",
            """answer_broadcast_shape = (3, 1, 4)
""",
            """answer_broadcast_shape = (3.0, 4.0)
""",
        ],
    },
    "to_channels_last": {
        "right": [
            '''def to_channels_last(x):
    """(B, C, H, W) to (B, H, W, C): out[b, h, w, c] == x[b, c, h, w]."""
    return x.permute(0, 2, 3, 1)
''',
            '''import torch
def to_channels_last(x):
    """(B, C, H, W) to (B, H, W, C): out[b, h, w, c] == x[b, c, h, w]."""
    return torch.movedim(x, 1, -1).contiguous()
''',
            '''def to_channels_last(x):
    """(B, C, H, W) to (B, H, W, C): out[b, h, w, c] == x[b, c, h, w]."""
    return x.transpose(1, 3).transpose(1, 2).clone()
''',
        ],
        "wrong": [
            """def to_channels_last(x):
    b, c, h, w = x.shape
    return x.reshape(b, h, w, c)
""",
            """def to_channels_last(x):
    return x.permute(0, 3, 2, 1)
""",
        ],
    },
    "image_patches": {
        "right": [
            '''def image_patches(x, p):
    """(B, C, H, W) to (B, (H//p)*(W//p), C*p*p): each image's p x p patches, row by row, each flattened."""
    B, C, H, W = x.shape
    split = x.reshape(B, C, H // p, p, W // p, p)
    moved = split.permute(0, 2, 4, 1, 3, 5)
    return moved.reshape(B, (H // p) * (W // p), C * p * p)
''',
            '''import torch.nn.functional as F
def image_patches(x, p):
    """(B, C, H, W) to (B, (H//p)*(W//p), C*p*p): each image's p x p patches, row by row, each flattened."""
    return F.unfold(x, kernel_size=p, stride=p).transpose(1, 2)
''',
            '''import torch
def image_patches(x, p):
    """(B, C, H, W) to (B, (H//p)*(W//p), C*p*p): each image's p x p patches, row by row, each flattened."""
    B, C, H, W = x.shape
    rows = []
    for i in range(H // p):
        for j in range(W // p):
            block = x[:, :, i * p:(i + 1) * p, j * p:(j + 1) * p]
            rows.append(block.reshape(B, C * p * p))
    return torch.stack(rows, dim=1)
''',
            '''def image_patches(x, p):
    """(B, C, H, W) to (B, (H//p)*(W//p), C*p*p): each image's p x p patches, row by row, each flattened."""
    B, C, H, W = x.shape
    t = x.unfold(2, p, p).unfold(3, p, p)          # (B, C, H//p, W//p, p, p)
    t = t.permute(0, 2, 3, 1, 4, 5)
    return t.reshape(B, (H // p) * (W // p), C * p * p).contiguous()
''',
            '''import torch.nn.functional as F
def image_patches(x, p):
    """(B, C, H, W) to (B, (H//p)*(W//p), C*p*p): each image's p x p patches, row by row, each flattened."""
    B, C, H, W = x.shape
    # pixel_unshuffle returns an empty batch unchanged in shape, so give the shape explicitly.
    return F.pixel_unshuffle(x, p).reshape(B, C * p * p, (H // p) * (W // p)).transpose(1, 2)
''',
        ],
        "wrong": [
            """def image_patches(x, p):
    B, C, H, W = x.shape
    split = x.reshape(B, C, H // p, p, W // p, p)
    moved = split.permute(0, 2, 4, 3, 5, 1)
    return moved.reshape(B, (H // p) * (W // p), C * p * p)
""",
            """def image_patches(x, p):
    B, C, H, W = x.shape
    split = x.reshape(B, C, H // p, p, W // p, p)
    moved = split.permute(0, 4, 2, 1, 3, 5)
    return moved.reshape(B, (H // p) * (W // p), C * p * p)
""",
            """def image_patches(x, p):
    B, C, H, W = x.shape
    split = x.reshape(B, C, H // p, p, W // p, p)
    moved = split.permute(0, 2, 4, 1, 3, 5)
    return moved.reshape(B, -1, C * p * p)
""",
        ],
    },
    "center_rows": {
        "right": [
            '''def center_rows(x):
    """Each row of the 2D tensor x minus that row's mean; x is left unchanged."""
    return x - x.mean(dim=1, keepdim=True)
''',
            '''import torch
def center_rows(x):
    """Each row of the 2D tensor x minus that row's mean; x is left unchanged."""
    return torch.sub(x, x.mean(-1).unsqueeze(-1))
''',
            '''def center_rows(x):
    """Each row of the 2D tensor x minus that row's mean; x is left unchanged."""
    out = x.clone()
    out -= x.sum(dim=1, keepdim=True) / x.shape[1]
    return out
''',
        ],
        "wrong": [
            """def center_rows(x):
    return x - x.mean(dim=1)
""",
            """def center_rows(x):
    x -= x.mean(dim=1, keepdim=True)
    return x
""",
            """def center_rows(x):
    return x - x.mean()
""",
        ],
    },
    "normalize_channels": {
        "right": [
            '''def normalize_channels(x):
    """(x - mean) / (std + 1e-5) with per-channel mean and population std over dims 0, 2, 3."""
    mean = x.mean(dim=(0, 2, 3), keepdim=True)
    std = x.std(dim=(0, 2, 3), correction=0, keepdim=True)
    return (x - mean) / (std + 1e-5)
''',
            '''import torch
def normalize_channels(x):
    """(x - mean) / (std + 1e-5) with per-channel mean and population std over dims 0, 2, 3."""
    C = x.shape[1]
    flat = x.transpose(0, 1).reshape(C, -1)
    var, mean = torch.var_mean(flat, dim=1, unbiased=False)
    std = var.sqrt()
    return (x - mean.view(1, C, 1, 1)) / (std.view(1, C, 1, 1) + 1e-5)
''',
            '''import torch
def normalize_channels(x):
    """(x - mean) / (std + 1e-5) with per-channel mean and population std over dims 0, 2, 3."""
    x64 = x.double()
    mean = x64.mean(dim=(0, 2, 3), keepdim=True)
    std = ((x64 - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True).sqrt()
    return ((x64 - mean) / (std + 1e-5)).to(x.dtype)
''',
            '''import torch
def normalize_channels(x):
    """(x - mean) / (std + 1e-5) with per-channel mean and population std over dims 0, 2, 3."""
    std, mean = torch.std_mean(x, dim=(0, 2, 3), correction=0, keepdim=True)
    return (x - mean).div(std.add(1e-5))
''',
        ],
        "wrong": [
            """def normalize_channels(x):
    mean = x.mean(dim=(0, 2, 3), keepdim=True)
    std = x.std(dim=(0, 2, 3), keepdim=True)
    return (x - mean) / (std + 1e-5)
""",
            """def normalize_channels(x):
    mean = x.mean(dim=(2, 3), keepdim=True)
    std = x.std(dim=(2, 3), correction=0, keepdim=True)
    return (x - mean) / (std + 1e-5)
""",
            """def normalize_channels(x):
    mean = x.mean(dim=(0, 2, 3), keepdim=True)
    std = x.std(dim=(0, 2, 3), correction=0, keepdim=True)
    return (x - mean) / std + 1e-5
""",
            """def normalize_channels(x):
    mean = x.mean(dim=(0, 2, 3), keepdim=True)
    var = x.var(dim=(0, 2, 3), correction=0, keepdim=True)
    return (x - mean) / (var + 1e-5).sqrt()
""",
        ],
    },
    "pairwise_distances": {
        "right": [
            '''def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    diff = a[:, None, :] - b[None, :, :]
    return (diff * diff).sum(dim=-1).sqrt()
''',
            '''def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    sq = (a * a).sum(dim=1, keepdim=True) + (b * b).sum(dim=1)[None, :] - 2 * a @ b.T
    return sq.clamp_min(0).sqrt()
''',
            '''import torch
def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    return torch.linalg.vector_norm(a.unsqueeze(1) - b.unsqueeze(0), dim=2)
''',
            '''import torch
def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    diff = a.unsqueeze(1) - b.unsqueeze(0)
    return torch.sqrt(torch.einsum("nmd,nmd->nm", diff, diff))
''',
        ],
        "wrong": [
            """import torch
def pairwise_distances(a, b):
    rows = [((a[i] - b) ** 2).sum(dim=-1).sqrt() for i in range(a.shape[0])]
    if not rows:
        return a.new_zeros(0, b.shape[0])
    return torch.stack(rows)
""",
            """def pairwise_distances(a, b):
    diff = a[:, None, :] - b[None, :, :]
    return (diff * diff).sum(dim=-1)
""",
            """import torch
def pairwise_distances(a, b):
    return torch.cdist(a.float(), b.float())
""",
            # the numbers are right, but torch.cdist is the call the task rules out
            '''import torch
def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    return torch.cdist(a, b)
''',
        ],
    },
    "mean_squared_error": {
        "right": [
            '''def mean_squared_error(pred, target):
    """The mean over N examples of (pred[i] - target[i]) ** 2, whether each input is (N,) or (N, 1)."""
    return ((pred.reshape(-1) - target.reshape(-1)) ** 2).mean()
''',
            '''import torch.nn.functional as F
def mean_squared_error(pred, target):
    """The mean over N examples of (pred[i] - target[i]) ** 2, whether each input is (N,) or (N, 1)."""
    return F.mse_loss(pred.flatten(), target.flatten())
''',
            '''def mean_squared_error(pred, target):
    """The mean over N examples of (pred[i] - target[i]) ** 2, whether each input is (N,) or (N, 1)."""
    diff = pred.squeeze(-1) - target.squeeze(-1)
    return (diff * diff).sum() / diff.numel()
''',
            '''def mean_squared_error(pred, target):
    """The mean over N examples of (pred[i] - target[i]) ** 2, whether each input is (N,) or (N, 1)."""
    if pred.dim() == 1:
        pred = pred.unsqueeze(1)
    if target.dim() == 1:
        target = target[:, None]
    return (pred - target).pow(2).mean()
''',
            '''import torch
def mean_squared_error(pred, target):
    """The mean over N examples of (pred[i] - target[i]) ** 2, whether each input is (N,) or (N, 1)."""
    return torch.mean(torch.square(pred.view(-1) - target.view(-1)))
''',
        ],
        "wrong": [
            """def mean_squared_error(pred, target):
    return ((pred.detach().reshape(-1) - target.reshape(-1)) ** 2).mean()
""",
            """def mean_squared_error(pred, target):
    return ((pred.reshape(-1).float() - target.reshape(-1).float()) ** 2).mean()
""",
        ],
    },
}
for _item, _table in MORE.items():
    for _kind, _codes in _table.items():
        ITEMS[_item].setdefault(_kind, []).extend(_codes)


# Quizzes that apply a rule to code the lesson does not show: each wrong letter or shape is one
# misconception, each right answer the key written another well-formed way.
ITEMS["answer_broadcast_empty"] = {
    "wrong": ['answer_broadcast_empty = "B"\n', 'answer_broadcast_empty = "C"\n', 'answer_broadcast_empty = "D"\n'],
    "right": [
        'answer_broadcast_empty = "A"\n',
        'answer_broadcast_empty = "a"\n',
        'answer_broadcast_empty = " A "\n',
        '# a 0 against a 1 gives 0; add_ keeps a\'s shape\nanswer_broadcast_empty = "A"\n',
    ],
}
ITEMS["answer_reduce_shape"] = {
    "wrong": [
        "answer_reduce_shape = (5,)\n",
        "answer_reduce_shape = (4, 6)\n",
        "answer_reduce_shape = (1, 1, 1)\n",
        "answer_reduce_shape = (4, 1, 6)\n",
    ],
    "right": [
        "answer_reduce_shape = (1, 5, 1)\n",
        "answer_reduce_shape = [1, 5, 1]\n",
        "answer_reduce_shape = torch.Size([1, 5, 1])\n",
        "answer_reduce_shape = tuple(torch.zeros(4, 5, 6).sum(dim=(0, 2), keepdim=True).shape)\n",
    ],
}
ITEMS["answer_matmul_batch_shape"] = {
    "wrong": [
        "answer_matmul_batch_shape = (5, 1, 4, 6)\n",
        "answer_matmul_batch_shape = (2, 5, 4, 6)\n",
        "answer_matmul_batch_shape = (5, 2, 3, 3)\n",
        "answer_matmul_batch_shape = (10, 4, 6)\n",
    ],
    "right": [
        "answer_matmul_batch_shape = (5, 2, 4, 6)\n",
        "answer_matmul_batch_shape = [5, 2, 4, 6]\n",
        "answer_matmul_batch_shape = torch.Size([5, 2, 4, 6])\n",
        "answer_matmul_batch_shape = tuple((torch.zeros(5, 1, 4, 3) @ torch.zeros(2, 3, 6)).shape)\n",
    ],
}
