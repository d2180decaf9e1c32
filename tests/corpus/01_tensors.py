"""Wrong and right answers for lesson 01 (tensors, rank and shape), as students write them.

Each wrong answer is a real slip the lesson warns about (a flipped view passed straight to
`from_numpy`, a list where a tuple is due, channels last, `len` for the rank, a torch.device where a
string is due, ...) and must lose its item's points; each right answer is another correct way and
must keep them.
"""

ITEMS = {
    "numpy_to_tensor_shape": {
        "wrong": [
            # from_numpy straight away: negative-stride views are rejected
            "def numpy_to_tensor_shape(arr):\n"
            '    """Make a tensor from the NumPy array `arr` and return its shape as a tuple of ints."""\n'
            "    return tuple(torch.from_numpy(arr).shape)\n",
            # torch.tensor copies, but it rejects negative strides too
            "def numpy_to_tensor_shape(arr):\n"
            "    return tuple(torch.tensor(arr).shape)\n",
            # a list, not a tuple
            "def numpy_to_tensor_shape(arr):\n"
            "    return list(torch.from_numpy(arr.copy()).shape)\n",
            # going through Python lists loses empty dimensions: (0, 3) becomes (0,)
            "def numpy_to_tensor_shape(arr):\n"
            "    return tuple(torch.tensor(arr.tolist()).shape)\n",
            # ascontiguousarray turns a 0-d array into a 1-element vector
            "import numpy as np\n"
            "\n"
            "def numpy_to_tensor_shape(arr):\n"
            "    return tuple(torch.from_numpy(np.ascontiguousarray(arr)).shape)\n",
            # squeeze drops the dimensions of size 1
            "def numpy_to_tensor_shape(arr):\n"
            "    return tuple(torch.from_numpy(arr.copy()).squeeze().shape)\n",
            # flattening to a vector
            "def numpy_to_tensor_shape(arr):\n"
            "    return tuple(torch.from_numpy(arr.copy()).reshape(-1).shape)\n",
        ],
        "right": [
            "def numpy_to_tensor_shape(arr):\n"
            "    return torch.from_numpy(arr.copy()).shape\n",
            "import numpy as np\n"
            "\n"
            "def numpy_to_tensor_shape(arr):\n"
            "    t = torch.tensor(np.array(arr))\n"
            "    return tuple(t.shape)\n",
            "def numpy_to_tensor_shape(arr):\n"
            "    return tuple(torch.as_tensor(arr.copy()).size())\n",
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
        ],
    },
    "tensor_rank": {
        "wrong": [
            # the size of the first dimension, and a TypeError on a scalar
            "def tensor_rank(t):\n"
            "    return len(t)\n",
            # the number of elements
            "def tensor_rank(t):\n"
            "    return t.numel()\n",
            # the shape itself
            "def tensor_rank(t):\n"
            "    return t.shape\n",
            # the first size again
            "def tensor_rank(t):\n"
            "    return t.size(0)\n",
            # a tensor, not an int
            "def tensor_rank(t):\n"
            "    return torch.tensor(t.dim())\n",
        ],
        "right": [
            "def tensor_rank(t):\n"
            "    return len(t.shape)\n",
            "def tensor_rank(t):\n"
            "    return t.ndim\n",
            "def tensor_rank(t):\n"
            "    return t.ndimension()\n",
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
            '    return {\n'
            '        "requires_grad": t.requires_grad,\n'
            '        "device": f"{t.device}",\n'
            '        "dtype": repr(t.dtype).replace("torch.", ""),\n'
            '        "shape": tuple(int(s) for s in t.size()),\n'
            '    }\n',
        ],
    },
    "answer_batch_shape": {
        "wrong": [
            "answer_batch_shape = (32, 224, 224, 3)\n",
            "answer_batch_shape = [32, 3, 224, 224]\n",
            "answer_batch_shape = (3, 224, 224, 32)\n",
            "answer_batch_shape = (32, 3, 224)\n",
        ],
        "right": [
            "answer_batch_shape = (32, 3, 224, 224)\n",
            "answer_batch_shape = tuple([32, 3, 224, 224])\n",
        ],
    },
    "answer_rank_meaning": {
        "wrong": [
            'answer_rank_meaning = "D"\n',
            'answer_rank_meaning = "B"\n',
            'answer_rank_meaning = "c"\n',
        ],
        "right": [
            'answer_rank_meaning = "C"\n',
            'answer_rank_meaning = "c".upper()\n',
        ],
    },
}
