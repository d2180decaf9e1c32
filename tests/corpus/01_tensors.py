"""Wrong and right answers for lesson 01 (tensors, rank and shape), as students write them.

Each wrong answer is a real slip the lesson warns about (a flipped view passed straight to
`from_numpy`, a list where a tuple is due, channels last, `len` for the rank, a torch.device where a
string is due, ...) and must lose its item's points; each right answer is another correct way and
must keep them.
"""

# The first and last lines several pad_images answers share: the sizes, and the loop that fills in.
PAD_SIZES = (
    "def pad_images(images):\n"
    "    height = max(image.shape[0] for image in images)\n"
    "    width = max(image.shape[1] for image in images)\n"
)
PAD_FILL = (
    "    for i, image in enumerate(images):\n"
    "        batch[i, 0, : image.shape[0], : image.shape[1]] = image\n"
    "        mask[i, : image.shape[0], : image.shape[1]] = True\n"
    "    return batch, mask\n"
)

ITEMS = {
    "numpy_to_tensor_shape": {
        "wrong": [
            # from_numpy straight away: negative-stride views are rejected
            "def numpy_to_tensor_shape(arr):\n"
            '    """Make a tensor from the NumPy array `arr` and return its shape as a tuple of ints."""\n'
            "    return tuple(torch.from_numpy(arr).shape)\n",
            # torch.tensor copies, but it rejects negative strides too
            "def numpy_to_tensor_shape(arr):\n    return tuple(torch.tensor(arr).shape)\n",
            # a list, not a tuple
            "def numpy_to_tensor_shape(arr):\n    return list(torch.from_numpy(arr.copy()).shape)\n",
            # going through Python lists loses empty dimensions: (0, 3) becomes (0,)
            "def numpy_to_tensor_shape(arr):\n    return tuple(torch.tensor(arr.tolist()).shape)\n",
            # ascontiguousarray turns a 0-d array into a 1-element vector
            "import numpy as np\n"
            "\n"
            "def numpy_to_tensor_shape(arr):\n"
            "    return tuple(torch.from_numpy(np.ascontiguousarray(arr)).shape)\n",
            # squeeze drops the dimensions of size 1
            "def numpy_to_tensor_shape(arr):\n    return tuple(torch.from_numpy(arr.copy()).squeeze().shape)\n",
            # flattening to a vector
            "def numpy_to_tensor_shape(arr):\n    return tuple(torch.from_numpy(arr.copy()).reshape(-1).shape)\n",
        ],
        "right": [
            "def numpy_to_tensor_shape(arr):\n    return torch.from_numpy(arr.copy()).shape\n",
            "import numpy as np\n"
            "\n"
            "def numpy_to_tensor_shape(arr):\n"
            "    t = torch.tensor(np.array(arr))\n"
            "    return tuple(t.shape)\n",
            "def numpy_to_tensor_shape(arr):\n    return tuple(torch.as_tensor(arr.copy()).size())\n",
            # only copies when a stride is negative
            "def numpy_to_tensor_shape(arr):\n"
            "    if any(step < 0 for step in arr.strides):\n"
            "        arr = arr.copy()\n"
            "    return tuple(torch.from_numpy(arr).shape)\n",
            # np.copy, then the sizes one by one
            "import numpy as np\n"
            "\n"
            "def numpy_to_tensor_shape(arr):\n"
            "    tensor = torch.from_numpy(np.copy(arr))\n"
            "    return tuple(tensor.size(d) for d in range(tensor.dim()))\n",
        ],
    },
    "make_image_batch": {
        "wrong": [
            # no check of the sizes at all
            "def make_image_batch(batch_size, channels=3, height=224, width=224):\n"
            "    return torch.zeros(batch_size, channels, height, width)\n",
            # checks only the batch size
            "def make_image_batch(batch_size, channels=3, height=224, width=224):\n"
            "    if batch_size < 1:\n"
            '        raise ValueError("batch_size must be at least 1")\n'
            "    return torch.zeros(batch_size, channels, height, width)\n",
            # an assert raises AssertionError, not ValueError
            "def make_image_batch(batch_size, channels=3, height=224, width=224):\n"
            "    assert min(batch_size, channels, height, width) >= 1, 'sizes must be positive'\n"
            "    return torch.zeros(batch_size, channels, height, width)\n",
            # channels last
            "def make_image_batch(batch_size, channels=3, height=224, width=224):\n"
            "    if min(batch_size, channels, height, width) < 1:\n"
            '        raise ValueError("every size must be at least 1")\n'
            "    return torch.zeros(batch_size, height, width, channels)\n",
            # NumPy's default dtype crosses over: float64
            "import numpy as np\n"
            "\n"
            "def make_image_batch(batch_size, channels=3, height=224, width=224):\n"
            "    if min(batch_size, channels, height, width) < 1:\n"
            '        raise ValueError("every size must be at least 1")\n'
            "    return torch.from_numpy(np.zeros((batch_size, channels, height, width)))\n",
            # requires grad
            "def make_image_batch(batch_size, channels=3, height=224, width=224):\n"
            "    if min(batch_size, channels, height, width) < 1:\n"
            '        raise ValueError("every size must be at least 1")\n'
            "    return torch.zeros(batch_size, channels, height, width, requires_grad=True)\n",
            # ones instead of zeros
            "def make_image_batch(batch_size, channels=3, height=224, width=224):\n"
            "    if min(batch_size, channels, height, width) < 1:\n"
            '        raise ValueError("every size must be at least 1")\n'
            "    return torch.ones(batch_size, channels, height, width)\n",
        ],
        "right": [
            "def make_image_batch(batch_size, channels=3, height=224, width=224):\n"
            "    shape = (batch_size, channels, height, width)\n"
            "    if any(size < 1 for size in shape):\n"
            '        raise ValueError(f"every size must be at least 1, got {shape}")\n'
            "    return torch.zeros(shape, dtype=torch.float32, device='cpu')\n",
            "import numpy as np\n"
            "\n"
            "def make_image_batch(batch_size, channels=3, height=224, width=224):\n"
            "    for name, size in [('batch_size', batch_size), ('channels', channels), ('height', height), ('width', width)]:\n"
            "        if size <= 0:\n"
            "            raise ValueError(name + ' must be positive')\n"
            "    return torch.from_numpy(np.zeros((batch_size, channels, height, width), dtype=np.float32))\n",
            # one check per argument, then torch.full
            "def make_image_batch(batch_size, channels=3, height=224, width=224):\n"
            "    if batch_size < 1:\n"
            "        raise ValueError('batch_size must be at least 1')\n"
            "    if channels < 1:\n"
            "        raise ValueError('channels must be at least 1')\n"
            "    if height < 1 or width < 1:\n"
            "        raise ValueError('height and width must be at least 1')\n"
            "    return torch.full((batch_size, channels, height, width), 0.0)\n",
            # a flat vector of zeros, reshaped into the layout
            "def make_image_batch(batch_size, channels=3, height=224, width=224):\n"
            "    if min(batch_size, channels, height, width) <= 0:\n"
            "        raise ValueError('sizes must be positive')\n"
            "    flat = torch.zeros(batch_size * channels * height * width)\n"
            "    return flat.reshape(batch_size, channels, height, width)\n",
        ],
    },
    "tensor_rank": {
        "wrong": [
            # the size of the first dimension, and a TypeError on a scalar
            "def tensor_rank(t):\n    return len(t)\n",
            # the number of elements
            "def tensor_rank(t):\n    return t.numel()\n",
            # the shape itself
            "def tensor_rank(t):\n    return t.shape\n",
            # the first size again
            "def tensor_rank(t):\n    return t.size(0)\n",
            # a tensor, not an int
            "def tensor_rank(t):\n    return torch.tensor(t.dim())\n",
        ],
        "right": [
            "def tensor_rank(t):\n    return len(t.shape)\n",
            "def tensor_rank(t):\n    return t.ndim\n",
            "def tensor_rank(t):\n    return t.ndimension()\n",
            # counting the sizes one by one
            "def tensor_rank(t):\n    rank = 0\n    for size in t.size():\n        rank += 1\n    return rank\n",
            # the number of entries of the shape, read as a tensor
            "def tensor_rank(t):\n    return torch.tensor(t.shape).numel()\n",
        ],
    },
    "describe": {
        "wrong": [
            # keeps the torch. prefix
            "def describe(t):\n"
            '    return {"shape": tuple(t.shape), "dtype": str(t.dtype), "device": str(t.device), "requires_grad": t.requires_grad}\n',
            # a torch.device object, not a string
            "def describe(t):\n"
            '    return {"shape": tuple(t.shape), "dtype": str(t.dtype)[6:], "device": t.device, "requires_grad": t.requires_grad}\n',
            # a list for the shape
            "def describe(t):\n"
            '    return {"shape": list(t.shape), "dtype": str(t.dtype)[6:], "device": str(t.device), "requires_grad": t.requires_grad}\n',
            # mixes up requires_grad with having a .grad
            "def describe(t):\n"
            '    return {"shape": tuple(t.shape), "dtype": str(t.dtype)[6:], "device": str(t.device), "requires_grad": t.grad is not None}\n',
            # an extra key
            "def describe(t):\n"
            '    return {"shape": tuple(t.shape), "dtype": str(t.dtype)[6:], "device": str(t.device),\n'
            '            "requires_grad": t.requires_grad, "rank": t.dim()}\n',
            # goes through NumPy: fails on tensors that require grad and on meta tensors
            "def describe(t):\n"
            '    return {"shape": t.numpy().shape, "dtype": str(t.dtype)[6:], "device": str(t.device), "requires_grad": t.requires_grad}\n',
        ],
        "right": [
            "def describe(t):\n"
            '    return dict(shape=t.shape, dtype=str(t.dtype).split(".")[-1], device=str(t.device), requires_grad=bool(t.requires_grad))\n',
            "def describe(t):\n"
            "    return {\n"
            '        "requires_grad": t.requires_grad,\n'
            '        "device": f"{t.device}",\n'
            '        "dtype": repr(t.dtype).replace("torch.", ""),\n'
            '        "shape": tuple(int(s) for s in t.size()),\n'
            "    }\n",
            # the device string built from its type and index
            "def describe(t):\n"
            "    device = t.device.type if t.device.index is None else f'{t.device.type}:{t.device.index}'\n"
            "    return {'shape': tuple(t.shape), 'dtype': str(t.dtype).replace('torch.', ''),\n"
            "            'device': device, 'requires_grad': t.requires_grad}\n",
            # filled in key by key
            "def describe(t):\n"
            "    info = {}\n"
            "    info['shape'] = tuple(t.shape[i] for i in range(t.dim()))\n"
            "    info['dtype'] = str(t.dtype).rpartition('.')[2]\n"
            "    info['device'] = t.device.__str__()\n"
            "    info['requires_grad'] = t.requires_grad is True\n"
            "    return info\n",
        ],
    },
    "pad_images": {
        "wrong": [
            # the mask read from the values: a black pixel (0) counts as padding
            "def pad_images(images):\n"
            '    """Zero-pad 2-D images into a float32 (N, 1, H, W) batch, with a bool (N, H, W) mask of real pixels."""\n'
            "    height = max(image.shape[0] for image in images)\n"
            "    width = max(image.shape[1] for image in images)\n"
            "    batch = torch.zeros(len(images), 1, height, width, device=images[0].device)\n"
            "    for i, image in enumerate(images):\n"
            "        batch[i, 0, : image.shape[0], : image.shape[1]] = image\n"
            "    return batch, batch[:, 0] != 0\n",
            # no channel dimension: (N, H, W)
            "def pad_images(images):\n"
            "    height = max(image.shape[0] for image in images)\n"
            "    width = max(image.shape[1] for image in images)\n"
            "    batch = torch.zeros(len(images), height, width, device=images[0].device)\n"
            "    mask = torch.zeros(len(images), height, width, dtype=torch.bool, device=images[0].device)\n"
            "    for i, image in enumerate(images):\n"
            "        batch[i, : image.shape[0], : image.shape[1]] = image\n"
            "        mask[i, : image.shape[0], : image.shape[1]] = True\n"
            "    return batch, mask\n",
            # keeps the images' dtype (uint8 stays uint8)
            PAD_SIZES + "    first = images[0]\n"
            "    batch = torch.zeros(len(images), 1, height, width, dtype=first.dtype, device=first.device)\n"
            "    mask = torch.zeros(len(images), height, width, dtype=torch.bool, device=first.device)\n" + PAD_FILL,
            # always on the CPU: the images' device is ignored
            PAD_SIZES + "    batch = torch.zeros(len(images), 1, height, width)\n"
            "    mask = torch.zeros(len(images), height, width, dtype=torch.bool)\n" + PAD_FILL,
            # a square of the largest size: max over heights and widths together
            "def pad_images(images):\n"
            "    side = max(max(image.shape) for image in images)\n"
            "    batch = torch.zeros(len(images), 1, side, side, device=images[0].device)\n"
            "    mask = torch.zeros(len(images), side, side, dtype=torch.bool, device=images[0].device)\n" + PAD_FILL,
            # each image centred instead of in the top-left corner
            "def pad_images(images):\n"
            "    height = max(image.shape[0] for image in images)\n"
            "    width = max(image.shape[1] for image in images)\n"
            "    batch = torch.zeros(len(images), 1, height, width, device=images[0].device)\n"
            "    mask = torch.zeros(len(images), height, width, dtype=torch.bool, device=images[0].device)\n"
            "    for i, image in enumerate(images):\n"
            "        top = (height - image.shape[0]) // 2\n"
            "        left = (width - image.shape[1]) // 2\n"
            "        batch[i, 0, top : top + image.shape[0], left : left + image.shape[1]] = image\n"
            "        mask[i, top : top + image.shape[0], left : left + image.shape[1]] = True\n"
            "    return batch, mask\n",
        ],
        "right": [
            # F.pad each image to the common size, then stack
            "import torch.nn.functional as F\n"
            "\n"
            "def pad_images(images):\n"
            "    if not images:\n"
            "        raise ValueError('no images to pad')\n"
            "    height = max(image.shape[0] for image in images)\n"
            "    width = max(image.shape[1] for image in images)\n"
            "    padded, masks = [], []\n"
            "    for image in images:\n"
            "        extra = (0, width - image.shape[1], 0, height - image.shape[0])\n"
            "        padded.append(F.pad(image.float(), extra))\n"
            "        masks.append(F.pad(torch.ones_like(image, dtype=torch.bool), extra))\n"
            "    return torch.stack(padded).unsqueeze(1), torch.stack(masks)\n",
            # the mask from the sizes by broadcasting, the batch filled in a loop
            "def pad_images(images):\n"
            "    if len(images) == 0:\n"
            "        raise ValueError('pad_images needs at least one image')\n"
            "    device = images[0].device\n"
            "    heights = torch.tensor([image.shape[0] for image in images], device=device)\n"
            "    widths = torch.tensor([image.shape[1] for image in images], device=device)\n"
            "    H, W = int(max(image.shape[0] for image in images)), int(max(image.shape[1] for image in images))\n"
            "    rows = torch.arange(H, device=device).view(1, H, 1) < heights.view(-1, 1, 1)\n"
            "    cols = torch.arange(W, device=device).view(1, 1, W) < widths.view(-1, 1, 1)\n"
            "    batch = torch.zeros(len(images), 1, H, W, device=device)\n"
            "    for i, image in enumerate(images):\n"
            "        batch[i, 0, : image.shape[0], : image.shape[1]] = image.to(torch.float32)\n"
            "    return batch, rows & cols\n",
            # defensive: checks every image, builds (N, H, W) first and adds the channel at the end
            "def pad_images(images):\n"
            "    images = list(images)\n"
            "    if not images:\n"
            "        raise ValueError('pad_images got an empty list')\n"
            "    for image in images:\n"
            "        if image.dim() != 2:\n"
            "            raise ValueError(f'expected 2-D images, got shape {tuple(image.shape)}')\n"
            "    H = max(h for h, _ in (image.shape for image in images))\n"
            "    W = max(w for _, w in (image.shape for image in images))\n"
            "    first = images[0]\n"
            "    grid = first.new_zeros((len(images), H, W), dtype=torch.float32)\n"
            "    mask = first.new_zeros((len(images), H, W), dtype=torch.bool)\n"
            "    for i, image in enumerate(images):\n"
            "        h, w = image.shape\n"
            "        grid[i, :h, :w] = image\n"
            "        mask[i, :h, :w] = torch.ones(h, w, dtype=torch.bool, device=first.device)\n"
            "    return grid.unsqueeze(1), mask\n",
            # pad_sequence pads the rows; the columns are padded by hand first
            "from torch.nn.utils.rnn import pad_sequence\n"
            "\n"
            "def pad_images(images):\n"
            "    if len(images) == 0:\n"
            "        raise ValueError('empty list')\n"
            "    W = max(image.shape[1] for image in images)\n"
            "    def widen(t):\n"
            "        return torch.cat([t, t.new_zeros((t.shape[0], W - t.shape[1]))], dim=1)\n"
            "    batch = pad_sequence([widen(image.float()) for image in images], batch_first=True)\n"
            "    mask = pad_sequence([widen(torch.ones(image.shape, dtype=torch.bool, device=image.device)) for image in images], batch_first=True)\n"
            "    return (batch[:, None], mask)\n",
        ],
    },
    "answer_batch_shape": {
        "wrong": [
            "answer_batch_shape = (32, 224, 224, 3)\n",
            "answer_batch_shape = (32, 1, 224, 224)\n",
            "answer_batch_shape = (3, 224, 224, 32)\n",
            "answer_batch_shape = (32, 3, 224)\n",
        ],
        "right": [
            "answer_batch_shape = (32, 3, 224, 224)\n",
            "answer_batch_shape = tuple([32, 3, 224, 224])\n",
            "answer_batch_shape = [32, 3, 224, 224]\n",
            "answer_batch_shape = torch.zeros(32, 3, 224, 224).shape\n",
        ],
    },
    "answer_rank_meaning": {
        "wrong": [
            'answer_rank_meaning = "D"\n',
            'answer_rank_meaning = "B"\n',
            'answer_rank_meaning = "A"\n',
        ],
        "right": [
            'answer_rank_meaning = "C"\n',
            'answer_rank_meaning = "c".upper()\n',
            'answer_rank_meaning = "c"\n',
            'answer_rank_meaning = " C "\n',
        ],
    },
    "answer_index_shape": {
        "wrong": [
            "answer_index_shape = (4, 5, 3)\n",
            "answer_index_shape = (4, 3, 7)\n",
            "answer_index_shape = (1, 4, 3, 1)\n",
            "answer_index_shape = (6, 4, 3, 7)\n",
        ],
        "right": [
            "answer_index_shape = (4, 3)\n",
            "answer_index_shape = [4, 3]\n",
            "answer_index_shape = torch.zeros(6, 4, 5, 7)[2, :, 1:4, -1].shape\n",
            "answer_index_shape = tuple(np.array([4, 3]))\n",
        ],
    },
    "answer_slice_view": {
        "wrong": [
            'answer_slice_view = "A"\n',
            'answer_slice_view = "B"\n',
            'answer_slice_view = "C"\n',
        ],
        "right": [
            'answer_slice_view = "D"\n',
            'answer_slice_view = " d "\n',
            'answer_slice_view = "d"\n',
            'answer_slice_view = "ABCD"[3]\n',
        ],
    },
}


# More answers, each written from the task text and the contract alone, as a student would.
MORE = {
    "tensor_rank": {
        "right": [
            '''def tensor_rank(t):
    """The number of dimensions of `t` as an int (0 for a scalar tensor)."""
    return t.dim()
''',
            '''def tensor_rank(t):
    """The number of dimensions of `t` as an int (0 for a scalar tensor)."""
    count = 0
    for _ in t.shape:
        count += 1
    return count
''',
            '''import numpy as np

def tensor_rank(t, as_int=True):
    """The number of dimensions of `t` as an int (0 for a scalar tensor)."""
    return int(len(t.size())) if as_int else t.ndim
''',
            """def tensor_rank(t):
    return int(t.ndim)
""",
            """import numpy as np

def tensor_rank(t):
    return int(np.ndim(t))
""",
        ],
        "wrong": [
            """def tensor_rank(t):
    return len(t.shape) - 1 if len(t.shape) > 2 else len(t.shape)
""",
        ],
    },
    "answer_rank_meaning": {
        "right": [
            """# One upper-case letter as a string, for example "A".
answer_rank_meaning = None
answer_rank_meaning = "C"
""",
        ],
    },
    "describe": {
        "right": [
            '''def describe(t):
    """A dict with exactly the keys "shape", "dtype", "device" and "requires_grad"."""
    return {
        "shape": tuple(t.shape),
        "dtype": str(t.dtype).replace("torch.", ""),
        "device": str(t.device),
        "requires_grad": t.requires_grad,
    }
''',
            """def describe(t):
    result = dict()
    result["shape"] = tuple(int(s) for s in t.size())
    result["dtype"] = str(t.dtype).split(".")[-1]
    result["device"] = f"{t.device}"
    result["requires_grad"] = bool(t.requires_grad)
    return result
""",
            """def describe(t, prefix="torch."):
    # torch.Size is a tuple of ints, so it is kept as it is
    return dict(
        requires_grad=t.requires_grad,
        device=str(t.device),
        dtype=str(t.dtype).removeprefix(prefix),
        shape=t.shape,
    )
""",
            """def describe(t):
    dev = t.device
    name = dev.type if dev.index is None else f"{dev.type}:{dev.index}"
    return {"shape": tuple(t.shape), "dtype": repr(t.dtype)[len("torch."):], "device": name, "requires_grad": t.requires_grad}
""",
        ],
        "wrong": [
            """def describe(t):
    return {"shape": tuple(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "device": t.device, "requires_grad": t.requires_grad}
""",
        ],
    },
    "make_image_batch": {
        "right": [
            '''def make_image_batch(batch_size, channels=3, height=224, width=224):
    """A float32 zero tensor of shape (batch_size, channels, height, width) on the CPU."""
    for name, size in [("batch_size", batch_size), ("channels", channels), ("height", height), ("width", width)]:
        if size < 1:
            raise ValueError(f"{name} must be at least 1, got {size}")
    return torch.zeros(batch_size, channels, height, width)
''',
            """import torch

def make_image_batch(batch_size, channels=3, height=224, width=224):
    sizes = {"batch_size": batch_size, "channels": channels, "height": height, "width": width}
    bad = [name for name, value in sizes.items() if value < 1]
    if bad:
        raise ValueError("sizes below 1: " + ", ".join(bad))
    return torch.full((batch_size, channels, height, width), 0.0, dtype=torch.float32, device="cpu", requires_grad=False)
""",
            """import numpy as np
import torch

def make_image_batch(batch_size, channels=3, height=224, width=224, dtype=torch.float32):
    if batch_size < 1:
        raise ValueError("batch_size below 1")
    if channels < 1:
        raise ValueError("channels below 1")
    if height < 1:
        raise ValueError("height below 1")
    if width < 1:
        raise ValueError("width below 1")
    return torch.from_numpy(np.zeros((batch_size, channels, height, width), dtype=np.float32)).to(dtype)
""",
            """def make_image_batch(batch_size, channels=3, height=224, width=224):
    shape = (batch_size, channels, height, width)
    if min(shape) < 1:
        raise ValueError(f"every size must be at least 1, got {shape}")
    return torch.empty(shape).zero_()
""",
            """import torch

def make_image_batch(batch_size, channels=3, height=224, width=224, *, device="cpu"):
    for name, size in (("batch_size", batch_size), ("channels", channels), ("height", height), ("width", width)):
        if not size >= 1:
            raise ValueError(f"{name}={size} is below 1")
    # channels_last memory layout, as used for fast convolutions; the shape is still (B, C, H, W)
    return torch.zeros(batch_size, channels, height, width, device=device).contiguous(memory_format=torch.channels_last)
""",
        ],
        "wrong": [
            """def make_image_batch(batch_size, channels=3, height=224, width=224):
    if batch_size < 1:
        raise ValueError("batch_size below 1")
    return torch.zeros(batch_size, channels, height, width)
""",
            """def make_image_batch(batch_size, channels=3, height=224, width=224):
    if min(batch_size, channels, height, width) < 1:
        raise ValueError("bad size")
    return torch.zeros(batch_size, height, width, channels)
""",
            """def make_image_batch(batch_size, channels=3, height=224, width=224):
    if min(batch_size, channels, height, width) <= 1:
        raise ValueError("bad size")
    return torch.zeros(batch_size, channels, height, width)
""",
            """def make_image_batch(batch_size, channels=3, height=224, width=224):
    if min(batch_size, channels, height, width) < 1:
        raise ValueError("bad size")
    return torch.zeros(batch_size, channels, height, width, dtype=torch.float64)
""",
        ],
    },
    "answer_batch_shape": {
        "right": [
            """import torch
answer_batch_shape = torch.Size([32, 3, 224, 224])
""",
            """import numpy as np
answer_batch_shape = tuple(np.array([32, 3, 224, 224]))
""",
        ],
        "wrong": [
            """answer_batch_shape = (3, 32, 224, 224)
""",
        ],
    },
    "pad_images": {
        "right": [
            '''def pad_images(images):
    """Zero-pad 2-D images into a float32 (N, 1, H, W) batch, with a bool (N, H, W) mask of real pixels."""
    if len(images) == 0:
        raise ValueError("no images to pad")
    H = max(img.shape[0] for img in images)
    W = max(img.shape[1] for img in images)
    dev = images[0].device
    batch = torch.zeros(len(images), 1, H, W, dtype=torch.float32, device=dev)
    mask = torch.zeros(len(images), H, W, dtype=torch.bool, device=dev)
    for i, img in enumerate(images):
        h, w = img.shape
        batch[i, 0, :h, :w] = img
        mask[i, :h, :w] = True
    return batch, mask
''',
            """import torch
import torch.nn.functional as F

def pad_images(images):
    images = list(images)
    if not images:
        raise ValueError("pad_images needs at least one image")
    H = max(int(im.size(0)) for im in images)
    W = max(int(im.size(1)) for im in images)
    batches, masks = [], []
    for im in images:
        h, w = im.shape
        # F.pad takes (left, right, top, bottom) for the last two dimensions
        batches.append(F.pad(im.to(torch.float32), (0, W - w, 0, H - h), value=0.0))
        ones = torch.ones(h, w, dtype=torch.float32, device=im.device)
        masks.append(F.pad(ones, (0, W - w, 0, H - h), value=0.0) > 0.5)
    return torch.stack(batches).unsqueeze(1), torch.stack(masks)
""",
            """def pad_images(images):
    if len(images) < 1:
        raise ValueError("empty list of images")
    heights = [im.shape[0] for im in images]
    widths = [im.shape[1] for im in images]
    n, H, W = len(images), max(heights), max(widths)
    first = images[0]
    batch = first.new_zeros((n, 1, H, W), dtype=torch.float32)
    rows = torch.arange(H, device=first.device)
    cols = torch.arange(W, device=first.device)
    hs = torch.tensor(heights, device=first.device)
    ws = torch.tensor(widths, device=first.device)
    mask = (rows[None, :, None] < hs[:, None, None]) & (cols[None, None, :] < ws[:, None, None])
    for i, im in enumerate(images):
        batch[i, 0, : heights[i], : widths[i]].copy_(im)
    return [batch, mask]
""",
            """def pad_images(images, pad_value=0.0):
    if not images:
        raise ValueError("no images")
    H = max(im.shape[-2] for im in images)
    W = max(im.shape[-1] for im in images)
    out = []
    real = []
    for im in images:
        canvas = torch.full((H, W), pad_value, dtype=torch.float32, device=im.device)
        flag = torch.zeros((H, W), dtype=torch.bool, device=im.device)
        canvas[: im.shape[0], : im.shape[1]] = im.float()
        flag[: im.shape[0], : im.shape[1]] = True
        out.append(canvas[None])
        real.append(flag)
    return torch.stack(out, dim=0), torch.stack(real, dim=0)
""",
            """import torch
import torch.nn.functional as F

def pad_images(images):
    if len(images) == 0:
        raise ValueError("cannot pad an empty list")
    H = max(im.shape[0] for im in images)
    W = max(im.shape[1] for im in images)
    padded = [F.pad(im, (0, W - im.shape[1], 0, H - im.shape[0])) for im in images]
    masks = [F.pad(torch.ones_like(im, dtype=torch.bool), (0, W - im.shape[1], 0, H - im.shape[0])) for im in images]
    return torch.stack(padded)[:, None].float(), torch.stack(masks)
""",
        ],
        "wrong": [
            """def pad_images(images):
    if not images:
        raise ValueError("no images")
    H = max(im.shape[0] for im in images)
    W = max(im.shape[1] for im in images)
    batch = torch.zeros(len(images), 1, H, W, device=images[0].device)
    for i, im in enumerate(images):
        batch[i, 0, : im.shape[0], : im.shape[1]] = im
    return batch, batch[:, 0] != 0
""",
            """def pad_images(images):
    if not images:
        raise ValueError("no images")
    H = max(im.shape[0] for im in images)
    W = max(im.shape[1] for im in images)
    batch = torch.zeros(len(images), 1, H, W, dtype=images[0].dtype, device=images[0].device)
    mask = torch.zeros(len(images), H, W, dtype=torch.bool, device=images[0].device)
    for i, im in enumerate(images):
        batch[i, 0, : im.shape[0], : im.shape[1]] = im
        mask[i, : im.shape[0], : im.shape[1]] = True
    return batch, mask
""",
            """def pad_images(images):
    if not images:
        raise ValueError("no images")
    H = max(im.shape[0] for im in images)
    W = max(im.shape[0] for im in images)
    W = max(W, max(im.shape[1] for im in images[:1]))
    batch = torch.zeros(len(images), 1, H, W, device=images[0].device)
    mask = torch.zeros(len(images), H, W, dtype=torch.bool, device=images[0].device)
    for i, im in enumerate(images):
        batch[i, 0, : im.shape[0], : im.shape[1]] = im
        mask[i, : im.shape[0], : im.shape[1]] = True
    return batch, mask
""",
            """def pad_images(images):
    if not images:
        raise ValueError("no images")
    H = max(im.shape[0] for im in images)
    W = max(im.shape[1] for im in images)
    batch = torch.zeros(len(images), 1, H, W)
    mask = torch.zeros(len(images), H, W, dtype=torch.bool)
    for i, im in enumerate(images):
        batch[i, 0, : im.shape[0], : im.shape[1]] = im.cpu()
        mask[i, : im.shape[0], : im.shape[1]] = True
    return batch, mask
""",
        ],
    },
    "numpy_to_tensor_shape": {
        "right": [
            '''def numpy_to_tensor_shape(arr):
    """Make a tensor from the NumPy array `arr` and return its shape as a tuple of ints."""
    return tuple(torch.from_numpy(arr.copy()).shape)
''',
            """import numpy as np
import torch

def numpy_to_tensor_shape(arr):
    t = torch.tensor(np.copy(arr))
    return t.shape
""",
            """import numpy as np
import torch

def numpy_to_tensor_shape(arr):
    # only copy when some stride is negative; other views are fine as they are
    if any(s < 0 for s in arr.strides):
        arr = arr.copy()
    t = torch.as_tensor(arr)
    return tuple(int(n) for n in t.size())
""",
            """import numpy as np
import torch

def numpy_to_tensor_shape(arr):
    t = torch.from_numpy(np.array(arr, copy=True, order="C"))
    return torch.Size(t.shape)
""",
            """import torch

def numpy_to_tensor_shape(arr):
    # flip the negative-stride axes in NumPy (a free view with positive strides),
    # wrap without copying, then flip back in PyTorch (torch.flip copies)
    axes = [i for i, s in enumerate(arr.strides) if s < 0]
    view = arr
    for ax in axes:
        view = view.swapaxes(0, ax)[::-1].swapaxes(0, ax)
    t = torch.from_numpy(view)
    if axes:
        t = torch.flip(t, dims=axes)
    return tuple(t.shape)
""",
        ],
        "wrong": [
            """import numpy as np
def numpy_to_tensor_shape(arr):
    return tuple(torch.from_numpy(np.ascontiguousarray(arr)).shape)
""",
        ],
    },
}
for _item, _table in MORE.items():
    for _kind, _codes in _table.items():
        ITEMS[_item].setdefault(_kind, []).extend(_codes)
