"""Wrong and right answers for lesson 09 (memory): each wrong one is a real memory mistake its test must catch,
each right one a different way a student could write it from the task text alone."""

_PERMUTE = '''def strides_after_permute(shape, dims):
    """The strides of a contiguous tensor of `shape` after `.permute(*dims)`, worked out from the numbers."""
'''
_CONTIGUOUS = '''def contiguous_when_needed(x):
    """`x` itself when it is already contiguous; otherwise a contiguous copy with the same values."""
'''
_CHANNELS = '''def to_channels_last_memory(x):
    """`x` (B, C, H, W) stored channels-last: same shape and values; returns (the tensor, its strides)."""
'''
_TILE = '''def tile_rows(row, n):
    """(n, *row.shape): n copies of `row` in memory of their own, so a write to one copy changes no other."""
'''
_WINDOWS = '''def sliding_windows(signal, size, step):
    """Windows of `size` samples, `step` apart, of the 1D `signal`, as a view: (num_windows, size), no copy."""
'''
_SYMMETRIZE = '''def symmetrize_(m):
    """Replace the square matrix `m`, in place, by (m + m.T) / 2, and return `m`."""
'''

ITEMS = {
    "strides_after_permute": {
        "wrong": [
            # The contiguous strides of the permuted shape: what .contiguous() would give, not the permute.
            _PERMUTE
            + """    shape = [shape[d] for d in dims]
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return tuple(strides)""",
            # Allocates the tensor: fails on shapes too large to allocate.
            _PERMUTE + """    return torch.zeros(shape).permute(dims).stride()""",
            # Strides as the product of the sizes *before* each dimension (column-major).
            _PERMUTE
            + """    strides, step = [], 1
    for size in shape:
        strides.append(step)
        step *= size
    return tuple(strides[d] for d in dims)""",
            # permute(*dims) passes no dims at all for the 0-d shape, and raises.
            _PERMUTE + """    return torch.empty(shape, device="meta").permute(*dims).stride()""",
            # Forgets the permutation.
            _PERMUTE
            + """    import math
    return tuple(math.prod(shape[d + 1:]) for d in range(len(shape)))""",
        ],
        "right": [
            _PERMUTE
            + """    import math
    return tuple(math.prod(shape[d + 1:]) for d in dims)""",
            _PERMUTE + """    return torch.empty(shape, device="meta").permute(dims).stride()""",
            # From the last dimension back, then reordered.
            _PERMUTE
            + """    strides = []
    step = 1
    for size in reversed(shape):
        strides.insert(0, step)
        step *= size
    return tuple(strides[d] for d in dims)""",
            """from itertools import accumulate
import operator


"""
            + _PERMUTE
            + """    if not shape:
        return ()
    tail = list(accumulate(reversed(shape[1:]), operator.mul, initial=1))[::-1]
    return [tail[d] for d in dims]""",
            # Recursively: the stride of dimension d is the size of one slice along it.
            _PERMUTE
            + """    def stride_of(d):
        return 1 if d == len(shape) - 1 else shape[d + 1] * stride_of(d + 1)
    return tuple(stride_of(d) for d in dims)""",
        ],
    },
    "contiguous_when_needed": {
        "wrong": [
            # Always copies, also when x is already contiguous.
            _CONTIGUOUS + """    return x.clone()""",
            # reshape to the same shape returns x itself, contiguous or not.
            _CONTIGUOUS + """    return x.reshape(x.shape)""",
            # Last stride 1 is not enough: x[:, :3] is not contiguous.
            _CONTIGUOUS + """    return x if x.dim() == 0 or x.stride(-1) == 1 else x.contiguous()""",
            # reshape(-1) of a column is a strided view, so the result is not contiguous.
            _CONTIGUOUS + """    return x.reshape(-1).view(x.shape)""",
            # Through Python lists: always a copy, and the device is lost.
            _CONTIGUOUS + """    return torch.tensor(x.tolist(), dtype=x.dtype)""",
        ],
        "right": [
            _CONTIGUOUS
            + """    if x.is_contiguous():
        return x
    return x.clone(memory_format=torch.contiguous_format)""",
            _CONTIGUOUS
            + """    if x.is_contiguous():
        return x
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    out.copy_(x)
    return out""",
            _CONTIGUOUS + """    return x.contiguous(memory_format=torch.contiguous_format)""",
            # A flat copy only when needed, then the shape back.
            _CONTIGUOUS
            + """    if x.is_contiguous():
        return x
    return x.flatten().clone().view(x.shape) if x.dim() else x.clone()""",
            _CONTIGUOUS
            + """    return x if x.is_contiguous() else torch.empty_like(x, memory_format=torch.contiguous_format).copy_(x)""",
        ],
    },
    "to_channels_last_memory": {
        "wrong": [
            # Moves the channels: the shape changes to (B, H, W, C).
            _CHANNELS
            + """    y = x.permute(0, 2, 3, 1).contiguous()
    return y, y.stride()""",
            # Row-major is not channels last.
            _CHANNELS
            + """    y = x.contiguous()
    return y, tuple(y.stride())""",
            # Reports the strides x had, not the new ones.
            _CHANNELS + """    return x.to(memory_format=torch.channels_last), tuple(x.stride())""",
            # The shape where the strides belong.
            _CHANNELS
            + """    y = x.contiguous(memory_format=torch.channels_last)
    return y, tuple(y.shape)""",
        ],
        "right": [
            _CHANNELS
            + """    y = x.contiguous(memory_format=torch.channels_last)
    return y, y.stride()""",
            # Lay the pixels out channel-fastest by hand, then put the dimensions back.
            _CHANNELS
            + """    y = x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    return (y, tuple(int(s) for s in y.stride()))""",
            _CHANNELS
            + """    y = torch.empty_like(x, memory_format=torch.channels_last)
    y.copy_(x)
    return y, tuple(y.stride())""",
            _CHANNELS
            + """    y = x.clone(memory_format=torch.channels_last)
    strides = list(y.stride())
    return y, tuple(strides)""",
            _CHANNELS
            + """    B, C, H, W = x.shape
    y = torch.empty_strided((B, C, H, W), (H * W * C, 1, W * C, C), dtype=x.dtype, device=x.device)
    y[...] = x
    return y, y.stride()""",
        ],
    },
    "tile_rows": {
        "wrong": [
            # A view with stride 0: every row is the same cells.
            _TILE + """    return row.expand(n, *row.shape)""",
            # contiguous() of a one-row expand is row's own memory.
            _TILE + """    return row.expand(n, *row.shape).contiguous()""",
            # repeat(n, 1) is right for a vector only: a 0-d row or a (2, 3) row gets the wrong shape.
            _TILE + """    return row.repeat(n, 1)""",
            # torch.stack of an empty list raises for n = 0.
            _TILE + """    return torch.stack([row.clone() for _ in range(n)])""",
        ],
        "right": [
            _TILE + """    return row.repeat(n, *([1] * row.dim()))""",
            _TILE + """    return row.unsqueeze(0).repeat_interleave(n, dim=0)""",
            _TILE
            + """    out = torch.empty((n, *row.shape), dtype=row.dtype, device=row.device)
    out.copy_(row)  # broadcasts row into every entry
    return out""",
            _TILE + """    return torch.tile(row, (n,) + (1,) * row.dim())""",
            _TILE + """    return torch.zeros((n,) + tuple(row.shape), dtype=row.dtype, device=row.device) + row""",
        ],
    },
    "sliding_windows": {
        "wrong": [
            # A copy of every window.
            _WINDOWS
            + """    count = (signal.shape[0] - size) // step + 1
    return torch.stack([signal[i * step:i * step + size] for i in range(count)])""",
            # One window too few: the last one that fits is dropped.
            _WINDOWS
            + """    count = (signal.shape[0] - size) // step
    s = signal.stride(0)
    return signal.as_strided((count, size), (step * s, s))""",
            # Assumes the samples are one cell apart.
            _WINDOWS
            + """    count = (signal.shape[0] - size) // step + 1
    return signal.as_strided((count, size), (step, 1), signal.storage_offset())""",
            # A view, then a copy anyway.
            _WINDOWS + """    return signal.unfold(0, size, step).contiguous()""",
        ],
        "right": [
            _WINDOWS
            + """    count = (len(signal) - size) // step + 1
    s = signal.stride()[0]
    return torch.as_strided(signal, (count, size), (step * s, s), signal.storage_offset())""",
            _WINDOWS + """    return torch.Tensor.unfold(signal, 0, size, step)""",
            # Through a 2D view: rows of the padded-by-nothing signal, one per window start.
            _WINDOWS
            + """    n = signal.numel()
    count = (n - size) // step + 1
    return signal.as_strided(
        size=(count, size),
        stride=(signal.stride(0) * step, signal.stride(0)),
        storage_offset=signal.storage_offset(),
    )""",
            _WINDOWS + """    return signal.unsqueeze(0).unfold(1, size, step)[0]""",
            _WINDOWS
            + """    windows = signal.unfold(dimension=0, size=size, step=step)
    return windows.view(windows.shape)""",
        ],
    },
    "symmetrize_": {
        "wrong": [
            # m and m.t() share cells: PyTorch refuses the partial overlap.
            _SYMMETRIZE
            + """    m += m.t()
    m /= 2
    return m""",
            # A new tensor: m itself is unchanged.
            _SYMMETRIZE + """    return (m + m.t()) / 2""",
            # Rebinds the name only.
            _SYMMETRIZE
            + """    m = (m + m.T) / 2
    return m""",
            # Changes m in place but returns a copy.
            _SYMMETRIZE
            + """    m.copy_((m + m.t()) / 2)
    return m.clone()""",
        ],
        "right": [
            _SYMMETRIZE
            + """    m.copy_((m + m.t()) / 2)
    return m""",
            _SYMMETRIZE
            + """    m[...] = (m + m.T) / 2
    return m""",
            _SYMMETRIZE
            + """    other = m.t().clone()
    m.add_(other).mul_(0.5)
    return m""",
            _SYMMETRIZE
            + """    new = 0.5 * (m + m.transpose(0, 1))
    m[:] = new
    return m""",
            # Only the pairs above the diagonal change, each once.
            _SYMMETRIZE
            + """    n = m.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            mean = (m[i, j] + m[j, i]) / 2
            m[i, j] = mean
            m[j, i] = mean
    return m""",
        ],
    },
    "answer_slice_layout": {
        "wrong": [
            """# A tuple of three ints, for example (0, 1, 1).
answer_slice_layout = (4, 6, 2)""",
            """# A tuple of three ints, for example (0, 1, 1).
answer_slice_layout = (6, 2, 6)""",
            """# A tuple of three ints, for example (0, 1, 1).
answer_slice_layout = (1, 6, 2)""",
            """# A tuple of three ints, for example (0, 1, 1).
answer_slice_layout = (6, 12, 2)""",
        ],
        "right": [
            """# A tuple of three ints, for example (0, 1, 1).
answer_slice_layout = (6, 6, 2)""",
            """# A tuple of three ints, for example (0, 1, 1).
answer_slice_layout = [6, 6, 2]""",
            """# A tuple of three ints, for example (0, 1, 1).
answer_slice_layout = torch.Size([6, 6, 2])""",
            """# A tuple of three ints, for example (0, 1, 1).
answer_slice_layout = (lambda y: (y.storage_offset(), *y.stride()))(torch.arange(24).reshape(4, 6)[1:, ::2])""",
            """# A tuple of three ints, for example (0, 1, 1).
answer_slice_layout = tuple(torch.tensor([6, 6, 2]).tolist())""",
        ],
    },
    "answer_same_storage": {
        "wrong": [
            '''# One upper-case letter as a string, for example "A".
answer_same_storage = "B"''',
            '''# One upper-case letter as a string, for example "A".
answer_same_storage = "C"''',
            '''# One upper-case letter as a string, for example "A".
answer_same_storage = "D"''',
        ],
        "right": [
            '''# One upper-case letter as a string, for example "A".
answer_same_storage = "A"''',
            '''# One upper-case letter as a string, for example "A".
answer_same_storage = " a "''',
            """# One upper-case letter as a string, for example "A".
answer_same_storage = "ABCD"[0]""",
            """# One upper-case letter as a string, for example "A".
answer_same_storage = chr(65)""",
        ],
    },
    "answer_write_expanded": {
        "wrong": [
            '''# One upper-case letter as a string, for example "A".
answer_write_expanded = "A"''',
            '''# One upper-case letter as a string, for example "A".
answer_write_expanded = "B"''',
            '''# One upper-case letter as a string, for example "A".
answer_write_expanded = "D"''',
        ],
        "right": [
            '''# One upper-case letter as a string, for example "A".
answer_write_expanded = "C"''',
            '''# One upper-case letter as a string, for example "A".
answer_write_expanded = "c"''',
            '''# One upper-case letter as a string, for example "A".
answer_write_expanded = "C "''',
            """# One upper-case letter as a string, for example "A".
answer_write_expanded = "ABCD"[2]""",
        ],
    },
}


# Quizzes that apply a rule to code the lesson does not show: each wrong letter or shape is one
# misconception, each right answer the key written another well-formed way.
ITEMS["answer_permute_stride"] = {
    "wrong": [
        "answer_permute_stride = (1, 12)\n",
        "answer_permute_stride = (12, 1)\n",
        "answer_permute_stride = (4, 1)\n",
        "answer_permute_stride = (3, 1)\n",
    ],
    "right": [
        "answer_permute_stride = (1, 4)\n",
        "answer_permute_stride = [1, 4]\n",
        "answer_permute_stride = torch.Size([1, 4])\n",
        "answer_permute_stride = torch.zeros(2, 3, 4).permute(2, 0, 1)[:, 1].stride()\n",
    ],
}
