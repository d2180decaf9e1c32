"""Wrong and right answers for lesson 02 (data types), as students write them.

Each wrong answer is a slip the lesson warns about (float64 where float32 is due, a Python float
where a tensor is due, a detour through NumPy or Python lists, a device hard-coded, the input
changed in place, a wrong letter, ...) and must lose its item's points; each right answer is
another correct way and must keep them.
"""

# The head several features_and_labels answers share: the last column, checked for whole numbers.
LABELS_CHECKED = (
    "import numpy as np\n"
    "\n"
    "def features_and_labels(table):\n"
    "    labels = table[:, -1]\n"
    "    if np.any(labels != np.round(labels)):\n"
    "        raise ValueError('labels must be whole numbers')\n"
)

ITEMS = {
    "to_float32": {
        "wrong": [
            # float64, not float32
            "def to_float32(t):\n"
            '    """A float32 tensor with `t`\'s values, shape and device; `t` keeps its dtype."""\n'
            "    return t.double()\n",
            # multiplying by 1.0 makes ints float32, but leaves float16 and float64 as they are
            "def to_float32(t):\n    return t * 1.0\n",
            # only casts what is not a float yet
            "def to_float32(t):\n    return t if t.is_floating_point() else t.float()\n",
            # changes the input's dtype in place
            "def to_float32(t):\n    t.data = t.data.float()\n    return t\n",
            # through NumPy: fails on meta tensors and on tensors that require grad
            "import numpy as np\n\ndef to_float32(t):\n    return torch.from_numpy(t.numpy().astype(np.float32))\n",
            # through a Python list: loses empty dimensions, and needs values a meta tensor lacks
            "def to_float32(t):\n    return torch.tensor(t.tolist(), dtype=torch.float32)\n",
            # hard-codes the CPU
            "def to_float32(t):\n    return t.to('cpu', torch.float32)\n",
            # through int: drops the fractions
            "def to_float32(t):\n    return t.long().float()\n",
        ],
        "right": [
            "def to_float32(t):\n    return t.float()\n",
            "def to_float32(t):\n    return t.to(dtype=torch.float, copy=True)\n",
            "def to_float32(t):\n    return t.type(torch.float32)\n",
            # a new float32 tensor like t, filled by copy_ (which converts)
            "def to_float32(t):\n"
            "    out = torch.empty_like(t, dtype=torch.float32)\n"
            "    out.copy_(t)\n"
            "    return out\n",
            # defensive: a tensor only, dtype and device spelled out
            "def to_float32(t):\n"
            "    if not isinstance(t, torch.Tensor):\n"
            "        raise TypeError(f'expected a tensor, got {type(t).__name__}')\n"
            "    return t.to(device=t.device, dtype=torch.float32)\n",
        ],
    },
    "mean_of_ints": {
        "wrong": [
            # a Python float, not a tensor
            "def mean_of_ints(t):\n"
            '    """The mean of all of `t`\'s elements as a float32 0-d tensor, for int, bool and float tensors."""\n'
            "    return t.float().mean().item()\n",
            # mean raises on ints
            "def mean_of_ints(t):\n    return t.mean()\n",
            # float64, not float32
            "def mean_of_ints(t):\n    return t.double().mean()\n",
            # sum / count keeps float64 inputs as float64
            "def mean_of_ints(t):\n    return t.sum() / t.numel()\n",
            # integer division
            "def mean_of_ints(t):\n    return (t.sum() // t.numel()).float()\n",
            # mean over the first dimension only
            "def mean_of_ints(t):\n    return t.float().mean(dim=0)\n",
            # casts the input in place
            "def mean_of_ints(t):\n    t.data = t.data.float()\n    return t.mean()\n",
        ],
        "right": [
            "def mean_of_ints(t):\n    return torch.mean(t, dtype=torch.float32)\n",
            "def mean_of_ints(t):\n    total = t.to(torch.float32).sum()\n    return total / t.numel()\n",
            "def mean_of_ints(t):\n    t = t.float()\n    return t.mean()\n",
            # the mean in float64, then cast down
            "def mean_of_ints(t):\n    return t.to(torch.float64).mean().to(torch.float32)\n",
            # through NumPy, then back to a 0-d float32 tensor
            "import numpy as np\n"
            "\n"
            "def mean_of_ints(t):\n"
            "    values = t.detach().cpu().numpy().astype(np.float64)\n"
            "    mean = values.mean() if values.size else float('nan')\n"
            "    return torch.tensor(mean, dtype=torch.float32)\n",
        ],
    },
    "features_from_numpy": {
        "wrong": [
            # negative strides are rejected by from_numpy
            "def features_from_numpy(arr):\n"
            '    """A float32 tensor with the values and shape of the NumPy array `arr`."""\n'
            "    return torch.from_numpy(arr).float()\n",
            # keeps NumPy's dtype (int64 or float64)
            "def features_from_numpy(arr):\n    return torch.from_numpy(arr.copy())\n",
            # float64
            "def features_from_numpy(arr):\n    return torch.tensor(arr.copy(), dtype=torch.float64)\n",
            # np.require hands back a float32 array as it is, so a flipped float32 view still reaches from_numpy
            "import numpy as np\n"
            "\n"
            "def features_from_numpy(arr):\n"
            "    return torch.from_numpy(np.require(arr, dtype=np.float32))\n",
            # through Python lists: an empty (0, 4) array becomes (0,)
            "def features_from_numpy(arr):\n    return torch.tensor(arr.tolist(), dtype=torch.float32)\n",
            # the legacy constructor reads a 0-d array as a size, and rejects negative strides
            "def features_from_numpy(arr):\n    return torch.FloatTensor(arr)\n",
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
            "def features_from_numpy(arr):\n    return torch.tensor(arr.copy(), dtype=torch.float32)\n",
            "import numpy as np\n"
            "\n"
            "def features_from_numpy(arr):\n"
            "    return torch.as_tensor(np.array(arr, dtype=np.float32))\n",
            "def features_from_numpy(arr):\n    return torch.from_numpy(arr.copy()).to(torch.float32)\n",
            # an empty float32 tensor of the right shape, filled by copy_
            "def features_from_numpy(arr):\n"
            "    out = torch.empty(arr.shape, dtype=torch.float32)\n"
            "    out.copy_(torch.from_numpy(arr.copy()))\n"
            "    return out\n",
            # defensive: checks the input, then a float32 copy made by NumPy
            "import numpy as np\n"
            "\n"
            "def features_from_numpy(arr):\n"
            "    if not isinstance(arr, np.ndarray):\n"
            "        raise TypeError('features_from_numpy expects a NumPy array')\n"
            "    if arr.dtype.kind not in 'biuf':\n"
            "        raise TypeError(f'cannot use {arr.dtype} values as features')\n"
            "    return torch.tensor(arr.astype(np.float32, copy=True))\n",
        ],
    },
    "abs_pixel_difference": {
        "wrong": [
            # subtracts in uint8: wraps around wherever b is larger
            "def abs_pixel_difference(a, b):\n"
            '    """|a - b| per pixel for two uint8 tensors of one shape, as uint8, without wrap-around."""\n'
            "    return (a - b).abs()\n",
            # right values, but int32, not uint8
            "def abs_pixel_difference(a, b):\n    return (a.int() - b.int()).abs()\n",
            # int8 cannot hold pixels above 127: the cast itself wraps
            "def abs_pixel_difference(a, b):\n    return (a.to(torch.int8) - b.to(torch.int8)).abs().to(torch.uint8)\n",
            # float32, not uint8
            "def abs_pixel_difference(a, b):\n    return (a.float() - b.float()).abs()\n",
            # subtracts in place: a is changed
            "def abs_pixel_difference(a, b):\n"
            "    big = torch.maximum(a, b)\n"
            "    small = torch.minimum(a, b)\n"
            "    a.copy_(big - small)\n"
            "    return a\n",
        ],
        "right": [
            # larger minus smaller never wraps
            "def abs_pixel_difference(a, b):\n    return torch.maximum(a, b) - torch.minimum(a, b)\n",
            # pick the subtraction that does not wrap at each pixel
            "def abs_pixel_difference(a, b):\n    return torch.where(a > b, a - b, b - a)\n",
            # through float32, back to uint8
            "def abs_pixel_difference(a, b):\n    return (a.float() - b.float()).abs().byte()\n",
            # defensive: checks dtypes and shapes, computes in int64
            "def abs_pixel_difference(a, b):\n"
            "    if a.dtype != torch.uint8 or b.dtype != torch.uint8:\n"
            "        raise TypeError('abs_pixel_difference expects uint8 tensors')\n"
            "    if a.shape != b.shape:\n"
            "        raise ValueError(f'shapes differ: {tuple(a.shape)} and {tuple(b.shape)}')\n"
            "    return torch.abs(a.long() - b.long()).to(a.dtype)\n",
        ],
    },
    "features_and_labels": {
        "wrong": [
            # casts without checking: 1.5 silently becomes 1
            "def features_and_labels(table):\n"
            '    """(float32 features (N, D), int64 labels (N,)) from a table whose last column holds class labels."""\n'
            "    data = torch.from_numpy(table.copy())\n"
            "    return data[:, :-1].float(), data[:, -1].long()\n",
            # rounds instead of refusing
            "def features_and_labels(table):\n"
            "    data = torch.tensor(table.copy())\n"
            "    return data[:, :-1].float(), data[:, -1].round().long()\n",
            # labels left as floats: CrossEntropyLoss refuses them
            LABELS_CHECKED
            + "    return torch.tensor(table[:, :-1].copy(), dtype=torch.float32), torch.tensor(labels.copy(), dtype=torch.float32)\n",
            # the last column as a slice: labels of shape (N, 1)
            "import numpy as np\n"
            "\n"
            "def features_and_labels(table):\n"
            "    labels = table[:, -1:]\n"
            "    if np.any(labels != np.round(labels)):\n"
            "        raise ValueError('labels must be whole numbers')\n"
            "    return torch.tensor(table[:, :-1].copy(), dtype=torch.float32), torch.tensor(labels.copy(), dtype=torch.int64)\n",
            # features keep the table's dtype (float64)
            LABELS_CHECKED
            + "    return torch.from_numpy(table[:, :-1].copy()), torch.from_numpy(labels.astype(np.int64))\n",
            # checks the labels after a cast to float32: 2.0000001 passes as whole, 16777217 comes back as 16777216
            "import numpy as np\n"
            "\n"
            "def features_and_labels(table):\n"
            "    labels = table[:, -1].astype(np.float32)\n"
            "    if np.any(labels != np.round(labels)):\n"
            "        raise ValueError('labels must be whole numbers')\n"
            "    return torch.from_numpy(table[:, :-1].astype(np.float32)), torch.from_numpy(labels.astype(np.int64))\n",
            # checks the labels of float64 tables only: a float32 table with the label 2.5 gets through
            "import numpy as np\n"
            "\n"
            "def features_and_labels(table):\n"
            "    labels = table[:, -1]\n"
            "    if labels.dtype == np.float64 and np.any(labels != np.round(labels)):\n"
            "        raise ValueError('labels must be whole numbers')\n"
            "    return torch.from_numpy(table[:, :-1].astype(np.float32)), torch.from_numpy(labels.astype(np.int64))\n",
            # copies float tables only: an integer table with negative strides reaches from_numpy as it is
            "import numpy as np\n"
            "\n"
            "def features_and_labels(table):\n"
            "    if table.dtype.kind == 'f':\n"
            "        labels = table[:, -1]\n"
            "        if np.any(labels != np.round(labels)):\n"
            "            raise ValueError('labels must be whole numbers')\n"
            "        table = table.copy()\n"
            "    data = torch.from_numpy(table)\n"
            "    return data[:, :-1].float(), data[:, -1].long()\n",
            # ascontiguousarray leaves a reversed single row with its negative stride
            "import numpy as np\n"
            "\n"
            "def features_and_labels(table):\n"
            "    data = torch.from_numpy(np.ascontiguousarray(table))\n"
            "    labels = data[:, -1]\n"
            "    if (labels != labels.round()).any():\n"
            "        raise ValueError('labels must be whole numbers')\n"
            "    return data[:, :-1].float(), labels.long()\n",
        ],
        "right": [
            # torch all the way: check with round, then cast
            "def features_and_labels(table):\n"
            "    data = torch.tensor(table.copy())\n"
            "    labels = data[:, -1]\n"
            "    if not torch.equal(labels, labels.round()):\n"
            "        raise ValueError('a label is not a whole number')\n"
            "    return data[:, :-1].to(torch.float32), labels.to(torch.int64)\n",
            # a Python check of every label
            "import numpy as np\n"
            "\n"
            "def features_and_labels(table):\n"
            "    for value in table[:, -1].tolist():\n"
            "        if not float(value).is_integer():\n"
            "            raise ValueError(f'label {value} is not a whole number')\n"
            "    features = torch.tensor(np.array(table[:, :-1], dtype=np.float32))\n"
            "    labels = torch.tensor(np.array(table[:, -1], dtype=np.int64))\n"
            "    return features, labels\n",
            # np.modf splits off the fractions
            "import numpy as np\n"
            "\n"
            "def features_and_labels(table):\n"
            "    table = table.copy()\n"
            "    fractions, whole = np.modf(table[:, -1].astype(np.float64))\n"
            "    if np.any(fractions != 0):\n"
            "        raise ValueError('labels must be whole numbers')\n"
            "    return torch.from_numpy(table[:, :-1]).float(), torch.from_numpy(whole).long()\n",
            # defensive: checks the shape, casts first, then checks the cast kept every label
            "import numpy as np\n"
            "\n"
            "def features_and_labels(table):\n"
            "    if table.ndim != 2 or table.shape[1] < 1:\n"
            "        raise ValueError(f'expected a (N, D + 1) table, got shape {table.shape}')\n"
            "    labels = table[:, -1].astype(np.int64)\n"
            "    if not np.array_equal(labels, table[:, -1]):\n"
            "        raise ValueError('the label column holds values that are not whole numbers')\n"
            "    features = table[:, :-1].astype(np.float32)\n"
            "    return (torch.as_tensor(features), torch.as_tensor(labels))\n",
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
            'answer_int_dtype = "c"\n',
            'answer_int_dtype = " C"\n',
        ],
    },
    "answer_numpy_float_dtype": {
        "wrong": [
            'answer_numpy_float_dtype = "A"\n',
            'answer_numpy_float_dtype = "C"\n',
            'answer_numpy_float_dtype = "B"\n',
        ],
        "right": [
            'answer_numpy_float_dtype = "D"\n',
            'answer_numpy_float_dtype = "ABCD"[3]\n',
            'answer_numpy_float_dtype = "d"\n',
            'answer_numpy_float_dtype = " D "\n',
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
            'answer_linear_int_input = "a"\n',
            'answer_linear_int_input = "A "\n',
        ],
    },
    "answer_cast_values": {
        "wrong": [
            'answer_cast_values = "B"\n',
            'answer_cast_values = "C"\n',
            'answer_cast_values = "D"\n',
        ],
        "right": [
            'answer_cast_values = "A"\n',
            'answer_cast_values = "a"\n',
            'answer_cast_values = " A"\n',
            'answer_cast_values = "ABCD"[0]\n',
        ],
    },
    "answer_zero_d_promotion": {
        "wrong": [
            'answer_zero_d_promotion = "A"\n',
            'answer_zero_d_promotion = "B"\n',
            'answer_zero_d_promotion = "D"\n',
        ],
        "right": [
            'answer_zero_d_promotion = "C"\n',
            'answer_zero_d_promotion = "c"\n',
            'answer_zero_d_promotion = "C "\n',
            'answer_zero_d_promotion = "ABCD"[2]\n',
        ],
    },
    "answer_uint8_wrap": {
        "wrong": [
            'answer_uint8_wrap = "A"\n',
            'answer_uint8_wrap = "C"\n',
            'answer_uint8_wrap = "D"\n',
        ],
        "right": [
            'answer_uint8_wrap = "B"\n',
            'answer_uint8_wrap = "b"\n',
            "answer_uint8_wrap = 'B'\n",
            'answer_uint8_wrap = "ABCD"[1]\n',
        ],
    },
}


# More answers, each written from the task text and the contract alone, as a student would.
MORE = {
    "answer_int_dtype": {
        "right": [
            """# One upper-case letter as a string, for example "A".
answer_int_dtype = None
answer_int_dtype = "C"
""",
            """answer_int_dtype = "C\\n"
""",
        ],
    },
    "answer_numpy_float_dtype": {
        "right": [
            """answer_numpy_float_dtype = 'd'
""",
            """answer_numpy_float_dtype = " D"
""",
        ],
    },
    "answer_linear_int_input": {
        "right": [
            """answer_linear_int_input = "  A  "
""",
        ],
        "wrong": [
            """answer_linear_int_input = "D"
""",
        ],
    },
    "to_float32": {
        "right": [
            '''def to_float32(t):
    """A float32 tensor with `t`'s values, shape and device; `t` keeps its dtype."""
    return t.float()
''',
            """import torch

def to_float32(t):
    return t.to(dtype=torch.float32, copy=True)
""",
            """import torch

def to_float32(t, dtype=torch.float32):
    out = torch.zeros_like(t, dtype=dtype)
    out.copy_(t)
    return out
""",
            """import torch

def to_float32(t):
    return torch.as_tensor(t, dtype=torch.float32)
""",
        ],
        "wrong": [
            """def to_float32(t):
    return t.half()
""",
            """def to_float32(t):
    return t.cpu().float()
""",
        ],
    },
    "features_from_numpy": {
        "right": [
            '''def features_from_numpy(arr):
    """A float32 tensor with the values and shape of the NumPy array `arr`."""
    return torch.from_numpy(arr.copy()).float()
''',
            """import numpy as np
import torch

def features_from_numpy(arr):
    return torch.from_numpy(arr.astype(np.float32))
""",
            """import numpy as np
import torch

def features_from_numpy(arr, dtype=torch.float32):
    return torch.tensor(np.array(arr, dtype=np.float64), dtype=dtype)
""",
            """import numpy as np
import torch

def features_from_numpy(arr):
    if any(s < 0 for s in arr.strides):
        arr = np.copy(arr)
    return torch.as_tensor(arr).to(torch.float32)
""",
            """import numpy as np
import torch

def features_from_numpy(arr):
    return torch.from_numpy(np.array(arr, dtype=np.float32, copy=True))
""",
        ],
        "wrong": [
            """def features_from_numpy(arr):
    return torch.from_numpy(arr).float()
""",
            """def features_from_numpy(arr):
    return torch.tensor(arr.copy())
""",
            """import numpy as np
def features_from_numpy(arr):
    return torch.from_numpy(np.ascontiguousarray(arr, dtype=np.float32))
""",
            """import numpy as np
def features_from_numpy(arr):
    return torch.from_numpy(np.require(arr, dtype=np.float32))
""",
        ],
    },
    "abs_pixel_difference": {
        "right": [
            '''def abs_pixel_difference(a, b):
    """|a - b| per pixel for two uint8 tensors of one shape, as uint8, without wrap-around."""
    return (a.to(torch.int16) - b.to(torch.int16)).abs().to(torch.uint8)
''',
            """import torch

def abs_pixel_difference(a, b):
    # larger minus smaller never wraps around in uint8
    return torch.maximum(a, b) - torch.minimum(a, b)
""",
            """import torch

def abs_pixel_difference(a, b):
    return torch.where(a >= b, a - b, b - a)
""",
            """def abs_pixel_difference(a, b, work_dtype=torch.float32):
    return torch.abs(a.to(work_dtype) - b.to(work_dtype)).byte()
""",
        ],
        "wrong": [
            """def abs_pixel_difference(a, b):
    return (a - b).abs()
""",
            """def abs_pixel_difference(a, b):
    return (a.int() - b.int()).to(torch.uint8)
""",
        ],
    },
    "mean_of_ints": {
        "right": [
            '''def mean_of_ints(t):
    """The mean of all of `t`'s elements as a float32 0-d tensor, for int, bool and float tensors."""
    return t.float().mean()
''',
            """import torch

def mean_of_ints(t):
    return torch.mean(t.to(torch.float32))
""",
            """import torch

def mean_of_ints(t):
    # accumulate in float64 for large ints, then come back to float32
    return (t.double().sum() / t.numel()).float()
""",
            """def mean_of_ints(t):
    return t.to(torch.float64).mean().to(torch.float32).reshape(())
""",
            """import torch

def mean_of_ints(t):
    return torch.mean(t, dtype=torch.float32)
""",
            """import torch

def mean_of_ints(t):
    total = t.to(torch.float32).sum()
    return total / max(t.numel(), 1) if t.numel() else total / 0
""",
        ],
        "wrong": [
            """def mean_of_ints(t):
    return t.float().mean().item()
""",
        ],
    },
    "features_and_labels": {
        "right": [
            '''def features_and_labels(table):
    """(float32 features (N, D), int64 labels (N,)) from a table whose last column holds class labels."""
    labels = table[:, -1]
    if not np.all(labels == np.round(labels)):
        raise ValueError("the last column holds labels that are not whole numbers")
    features = torch.from_numpy(table[:, :-1].astype(np.float32))
    return features, torch.from_numpy(labels.astype(np.int64))
''',
            """import torch

def features_and_labels(table):
    t = torch.from_numpy(table.copy())
    last = t[:, -1]
    if t.is_floating_point() and bool((last != torch.round(last)).any()):
        raise ValueError("labels must be whole numbers")
    return t[:, :-1].to(torch.float32), last.to(torch.int64)
""",
            """import numpy as np
import torch

def features_and_labels(table):
    D = table.shape[1] - 1
    labels = []
    for value in table[:, D].tolist():
        if not float(value).is_integer():
            raise ValueError(f"label {value} is not a whole number")
        labels.append(int(value))
    features = torch.tensor(np.array(table[:, :D], dtype=np.float32))
    return [features, torch.tensor(labels, dtype=torch.int64).reshape(len(labels))]
""",
            """import numpy as np
import torch

def features_and_labels(table):
    table = np.asarray(table)
    col = table[:, -1].astype(np.float64)
    if np.any(np.mod(col, 1) != 0):
        raise ValueError("non-integer label")
    x = torch.tensor(table[:, :-1].copy(), dtype=torch.float32)
    y = torch.tensor(table[:, -1].copy()).long()
    return x, y
""",
            """import numpy as np
import torch

def features_and_labels(table):
    labels = table[:, -1].astype(np.int64)
    if np.any(labels != table[:, -1]):
        raise ValueError("labels must be whole numbers")
    features = np.empty((table.shape[0], table.shape[1] - 1), dtype=np.float32)
    features[...] = table[:, :-1]
    return (torch.from_numpy(features), torch.from_numpy(labels))
""",
        ],
        "wrong": [
            """def features_and_labels(table):
    labels = table[:, -1]
    if not np.all(labels == np.round(labels)):
        raise ValueError("not whole")
    return torch.from_numpy(table[:, :-1]).float(), torch.from_numpy(labels).long()
""",
            """def features_and_labels(table):
    labels = table[:, -1]
    if not np.all(labels == np.round(labels)):
        raise ValueError("not whole")
    return torch.tensor(table[:, :-1].copy(), dtype=torch.float32), torch.tensor(labels.copy(), dtype=torch.float32)
""",
            """def features_and_labels(table):
    labels = table[:, -1].astype(np.float32)
    if not np.all(labels == np.round(labels)):
        raise ValueError("not whole")
    return torch.tensor(table[:, :-1].copy(), dtype=torch.float32), torch.from_numpy(labels.astype(np.int64))
""",
            """def features_and_labels(table):
    labels = table[:, -1]
    if not np.all(labels == np.round(labels)):
        raise ValueError("not whole")
    table[:, -1] = 0
    return torch.tensor(table[:, :-1].copy(), dtype=torch.float32), torch.tensor(labels.copy()).long()
""",
        ],
    },
}
for _item, _table in MORE.items():
    for _kind, _codes in _table.items():
        ITEMS[_item].setdefault(_kind, []).extend(_codes)
