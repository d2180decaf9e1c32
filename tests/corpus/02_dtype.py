"""Wrong and right answers for lesson 02 (data types), as students write them.

Each wrong answer is a slip the lesson warns about (float64 where float32 is due, a Python float
where a tensor is due, a detour through NumPy or Python lists, a device hard-coded, the input
changed in place, a wrong letter, ...) and must lose its item's points; each right answer is
another correct way and must keep them.
"""

ITEMS = {
    "to_float32": {
        "wrong": [
            # float64, not float32
            "def to_float32(t):\n"
            '    """A float32 tensor with `t`\'s values, shape and device; `t` keeps its dtype."""\n'
            "    return t.double()\n",
            # multiplying by 1.0 makes ints float32, but leaves float16 and float64 as they are
            "def to_float32(t):\n"
            "    return t * 1.0\n",
            # only casts what is not a float yet
            "def to_float32(t):\n"
            "    return t if t.is_floating_point() else t.float()\n",
            # changes the input's dtype in place
            "def to_float32(t):\n"
            "    t.data = t.data.float()\n"
            "    return t\n",
            # through NumPy: fails on meta tensors and on tensors that require grad
            "import numpy as np\n"
            "\n"
            "def to_float32(t):\n"
            "    return torch.from_numpy(t.numpy().astype(np.float32))\n",
            # through a Python list: loses empty dimensions, and needs values a meta tensor lacks
            "def to_float32(t):\n"
            "    return torch.tensor(t.tolist(), dtype=torch.float32)\n",
            # hard-codes the CPU
            "def to_float32(t):\n"
            "    return t.to('cpu', torch.float32)\n",
            # through int: drops the fractions
            "def to_float32(t):\n"
            "    return t.long().float()\n",
        ],
        "right": [
            "def to_float32(t):\n"
            "    return t.float()\n",
            "def to_float32(t):\n"
            "    return t.to(dtype=torch.float, copy=True)\n",
            "def to_float32(t):\n"
            "    return t.type(torch.float32)\n",
        ],
    },
    "mean_of_ints": {
        "wrong": [
            # a Python float, not a tensor
            "def mean_of_ints(t):\n"
            '    """The mean of all of `t`\'s elements as a float32 0-d tensor, for int, bool and float tensors."""\n'
            "    return t.float().mean().item()\n",
            # mean raises on ints
            "def mean_of_ints(t):\n"
            "    return t.mean()\n",
            # float64, not float32
            "def mean_of_ints(t):\n"
            "    return t.double().mean()\n",
            # sum / count keeps float64 inputs as float64
            "def mean_of_ints(t):\n"
            "    return t.sum() / t.numel()\n",
            # integer division
            "def mean_of_ints(t):\n"
            "    return (t.sum() // t.numel()).float()\n",
            # mean over the first dimension only
            "def mean_of_ints(t):\n"
            "    return t.float().mean(dim=0)\n",
            # casts the input in place
            "def mean_of_ints(t):\n"
            "    t.data = t.data.float()\n"
            "    return t.mean()\n",
        ],
        "right": [
            "def mean_of_ints(t):\n"
            "    return torch.mean(t, dtype=torch.float32)\n",
            "def mean_of_ints(t):\n"
            "    total = t.to(torch.float32).sum()\n"
            "    return total / t.numel()\n",
            "def mean_of_ints(t):\n"
            "    t = t.float()\n"
            "    return t.mean()\n",
        ],
    },
    "features_from_numpy": {
        "wrong": [
            # negative strides are rejected by from_numpy
            "def features_from_numpy(arr):\n"
            '    """A float32 tensor with the values and shape of the NumPy array `arr`."""\n'
            "    return torch.from_numpy(arr).float()\n",
            # keeps NumPy's dtype (int64 or float64)
            "def features_from_numpy(arr):\n"
            "    return torch.from_numpy(arr.copy())\n",
            # float64
            "def features_from_numpy(arr):\n"
            "    return torch.tensor(arr.copy(), dtype=torch.float64)\n",
            # through Python lists: an empty (0, 4) array becomes (0,)
            "def features_from_numpy(arr):\n"
            "    return torch.tensor(arr.tolist(), dtype=torch.float32)\n",
            # the legacy constructor reads a 0-d array as a size, and rejects negative strides
            "def features_from_numpy(arr):\n"
            "    return torch.FloatTensor(arr)\n",
            # ascontiguousarray turns a 0-d array into a 1-element vector
            "import numpy as np\n"
            "\n"
            "def features_from_numpy(arr):\n"
            "    return torch.from_numpy(np.ascontiguousarray(arr)).float()\n",
            # setting .dtype reinterprets the bytes in place instead of converting
            "import numpy as np\n"
            "\n"
            "def features_from_numpy(arr):\n"
            "    arr.dtype = np.float32\n"
            "    return torch.from_numpy(arr)\n",
        ],
        "right": [
            "def features_from_numpy(arr):\n"
            "    return torch.tensor(arr.copy(), dtype=torch.float32)\n",
            "import numpy as np\n"
            "\n"
            "def features_from_numpy(arr):\n"
            "    return torch.as_tensor(np.array(arr, dtype=np.float32))\n",
            "def features_from_numpy(arr):\n"
            "    return torch.from_numpy(arr.copy()).to(torch.float32)\n",
        ],
    },
    "answer_int_dtype": {
        "wrong": [
            'answer_int_dtype = "A"\n',
            'answer_int_dtype = "B"\n',
            'answer_int_dtype = "int64"\n',
        ],
        "right": [
            'answer_int_dtype = "C"\n',
            "answer_int_dtype = 'C'  # Python ints become int64\n",
        ],
    },
    "answer_numpy_float_dtype": {
        "wrong": [
            'answer_numpy_float_dtype = "A"\n',
            'answer_numpy_float_dtype = "C"\n',
            'answer_numpy_float_dtype = "d"\n',
        ],
        "right": [
            'answer_numpy_float_dtype = "D"\n',
            'answer_numpy_float_dtype = "ABCD"[3]\n',
        ],
    },
    "answer_linear_int_input": {
        "wrong": [
            'answer_linear_int_input = "B"\n',
            'answer_linear_int_input = "C"\n',
            'answer_linear_int_input = ["A"]\n',
        ],
        "right": [
            'answer_linear_int_input = "A"\n',
            'answer_linear_int_input = "a".upper()\n',
        ],
    },
}
