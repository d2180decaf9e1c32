"""Wrong and right answers for lesson 03 (devices), as students write them.

Every wrong answer is a mistake the lesson warns about; each must lose its item's points on a
machine without a GPU, where the tests use the `meta` device and a simulated `torch.cuda.is_available()`.
"""

ITEMS = {
    "pick_device": {
        "wrong": [
            # A string, not a torch.device (the seed's own snippet does this).
            'def pick_device():\n    return "cuda" if torch.cuda.is_available() else "cpu"\n',
            # is_available without parentheses: a function object is always true.
            'def pick_device():\n    return torch.device("cuda" if torch.cuda.is_available else "cpu")\n',
            # Always the CPU: right on a laptop, wrong on a GPU machine.
            'def pick_device():\n    return torch.device("cpu")\n',
            # "gpu" is not a device type PyTorch knows.
            'def pick_device():\n    return torch.device("gpu" if torch.cuda.is_available() else "cpu")\n',
        ],
        "right": [
            'def pick_device():\n    if torch.cuda.is_available():\n        return torch.device("cuda")\n    return torch.device("cpu")\n',
            'import torch\n\n\ndef pick_device():\n    """The GPU if there is one."""\n    return torch.device("cuda:0") if torch.cuda.is_available() else torch.device("cpu")\n',
            'def pick_device():\n    name = "cuda" if torch.cuda.is_available() else "cpu"\n    return torch.device(name)\n',
            # a bool indexes a list: False is 0, True is 1
            'def pick_device():\n    return torch.device(["cpu", "cuda"][torch.cuda.is_available()])\n',
            # a lookup table keyed by the answer
            "def pick_device():\n"
            "    choices = {True: torch.device('cuda'), False: torch.device('cpu')}\n"
            "    return choices[bool(torch.cuda.is_available())]\n",
        ],
    },
    "move_batch": {
        "wrong": [
            # Only a flat dict: lists, tuples and nesting break.
            "def move_batch(batch, device):\n    return {k: v.to(device) for k, v in batch.items()}\n",
            # Tuples come back as lists.
            "def move_batch(batch, device):\n"
            "    if isinstance(batch, torch.Tensor):\n        return batch.to(device)\n"
            "    if isinstance(batch, dict):\n        return {k: move_batch(v, device) for k, v in batch.items()}\n"
            "    if isinstance(batch, (list, tuple)):\n        return [move_batch(v, device) for v in batch]\n"
            "    return batch\n",
            # Changes the caller's containers in place.
            "def move_batch(batch, device):\n"
            "    if isinstance(batch, torch.Tensor):\n        return batch.to(device)\n"
            "    if isinstance(batch, dict):\n        for k in batch:\n            batch[k] = move_batch(batch[k], device)\n        return batch\n"
            "    if isinstance(batch, list):\n        for i, v in enumerate(batch):\n            batch[i] = move_batch(v, device)\n        return batch\n"
            "    if isinstance(batch, tuple):\n        return tuple(move_batch(v, device) for v in batch)\n"
            "    return batch\n",
            # Keys sorted: the order changes.
            "def move_batch(batch, device):\n"
            "    if isinstance(batch, torch.Tensor):\n        return batch.to(device)\n"
            "    if isinstance(batch, dict):\n        return {k: move_batch(batch[k], device) for k in sorted(batch, key=str)}\n"
            "    if isinstance(batch, (list, tuple)):\n        return type(batch)(move_batch(v, device) for v in batch)\n"
            "    return batch\n",
            # Drops the values that are not tensors.
            "def move_batch(batch, device):\n"
            "    if isinstance(batch, torch.Tensor):\n        return batch.to(device)\n"
            "    if isinstance(batch, dict):\n        return {k: move_batch(v, device) for k, v in batch.items() if not isinstance(v, (int, str, float)) and v is not None}\n"
            "    if isinstance(batch, (list, tuple)):\n        return type(batch)(move_batch(v, device) for v in batch)\n"
            "    return batch\n",
        ],
        "right": [
            "def move_batch(batch, device):\n"
            "    if isinstance(batch, torch.Tensor):\n        return batch.to(device)\n"
            "    if isinstance(batch, dict):\n        return {k: move_batch(v, device) for k, v in batch.items()}\n"
            "    if isinstance(batch, list):\n        return [move_batch(v, device) for v in batch]\n"
            "    if isinstance(batch, tuple):\n        return tuple(move_batch(v, device) for v in batch)\n"
            "    return batch\n",
            "from torch.utils._pytree import tree_map\n\n\n"
            "def move_batch(batch, device):\n"
            "    return tree_map(lambda x: x.to(device) if isinstance(x, torch.Tensor) else x, batch)\n",
            "def move_batch(batch, device):\n"
            "    match batch:\n"
            "        case torch.Tensor():\n            return batch.to(device=device)\n"
            "        case dict():\n            out = {}\n            for key, value in batch.items():\n                out[key] = move_batch(value, device)\n            return out\n"
            "        case list() | tuple():\n            return type(batch)([move_batch(v, device) for v in batch])\n"
            "        case _:\n            return batch\n",
            # a helper with map, one branch per container type
            "def move_batch(batch, device):\n"
            "    def move(x):\n"
            "        if torch.is_tensor(x):\n            return x.to(device)\n"
            "        if isinstance(x, dict):\n            return dict((k, move(v)) for k, v in x.items())\n"
            "        if isinstance(x, tuple):\n            return tuple(map(move, x))\n"
            "        if isinstance(x, list):\n            return list(map(move, x))\n"
            "        return x\n"
            "    return move(batch)\n",
        ],
    },
    "same_device": {
        "wrong": [
            # Only the first two tensors, and a crash for fewer than two.
            "def same_device(*tensors):\n    return tensors[0].device == tensors[1].device\n",
            # cpu and meta are both "not CUDA".
            "def same_device(*tensors):\n    return all(t.is_cuda == tensors[0].is_cuda for t in tensors)\n",
            # Exactly one device: False for no tensors at all.
            "def same_device(*tensors):\n    return len({str(t.device) for t in tensors}) == 1\n",
            # Compares the first with the last only.
            "def same_device(*tensors):\n    if len(tensors) < 2:\n        return True\n    return tensors[0].device == tensors[-1].device\n",
        ],
        "right": [
            "def same_device(*tensors):\n    return all(t.device == tensors[0].device for t in tensors)\n",
            "def same_device(*tensors):\n    devices = [t.device for t in tensors]\n    return len(set(devices)) < 2\n",
            "def same_device(*tensors):\n    if not tensors:\n        return True\n    first = tensors[0].device\n"
            "    for t in tensors[1:]:\n        if t.device != first:\n            return False\n    return True\n",
            # the devices as strings
            "def same_device(*tensors):\n    return len({str(t.device) for t in tensors}) <= 1\n",
            # neighbours compared pairwise
            "def same_device(*tensors):\n    return all(a.device == b.device for a, b in zip(tensors, tensors[1:]))\n",
        ],
    },
    "add_on_device": {
        "wrong": [
            # No move at all: the devices clash.
            "def add_on_device(a, b):\n    return a + b\n",
            # A bare .to: the moved copy is thrown away.
            "def add_on_device(a, b):\n    b.to(a.device)\n    return a + b\n",
            # Computed on b's device instead of a's.
            "def add_on_device(a, b):\n    return a.to(b.device) + b\n",
            # Adds into a in place.
            "def add_on_device(a, b):\n    a += b.to(a.device)\n    return a\n",
            # Brings the result back to the CPU.
            "def add_on_device(a, b):\n    return (a + b.to(a.device)).cpu()\n",
        ],
        "right": [
            "def add_on_device(a, b):\n    b = b.to(a.device)\n    return a + b\n",
            "def add_on_device(a, b):\n    return torch.add(a, b.to(device=a.device))\n",
            "def add_on_device(a, b):\n    if b.device != a.device:\n        b = b.to(a.device)\n    return a + b\n",
            # as_tensor copies b to a's device
            "def add_on_device(a, b):\n    return a + torch.as_tensor(b, device=a.device)\n",
            # the moved b first: addition does not care about the order
            "def add_on_device(a, b):\n    moved = b.to(device=a.device)\n    return moved + a\n",
        ],
    },
    "find_misplaced": {
        "wrong": [
            # compares strings: a torch.device argument never equals a string
            "def find_misplaced(batch, device):\n"
            '    """The paths (tuples of keys and indices) of the tensors in `batch` that are not on `device`."""\n'
            "    found = []\n"
            "    def walk(x, path):\n"
            "        if isinstance(x, torch.Tensor):\n"
            "            if str(x.device) != device:\n                found.append(path)\n"
            "        elif isinstance(x, dict):\n"
            "            for k, v in x.items():\n                walk(v, path + (k,))\n"
            "        elif isinstance(x, (list, tuple)):\n"
            "            for i, v in enumerate(x):\n                walk(v, path + (i,))\n"
            "    walk(batch, ())\n"
            "    return found\n",
            # only looks one level deep
            "def find_misplaced(batch, device):\n"
            "    device = torch.device(device)\n"
            "    if isinstance(batch, torch.Tensor):\n"
            "        return [] if batch.device == device else [()]\n"
            "    items = batch.items() if isinstance(batch, dict) else enumerate(batch)\n"
            "    return [(k,) for k, v in items if isinstance(v, torch.Tensor) and v.device != device]\n",
            # joins the path into a string
            "def find_misplaced(batch, device, prefix=''):\n"
            "    device = torch.device(device)\n"
            "    if isinstance(batch, torch.Tensor):\n"
            "        return [prefix] if batch.device != device else []\n"
            "    out = []\n"
            "    if isinstance(batch, dict):\n"
            "        for k, v in batch.items():\n            out += find_misplaced(v, device, f'{prefix}/{k}')\n"
            "    elif isinstance(batch, (list, tuple)):\n"
            "        for i, v in enumerate(batch):\n            out += find_misplaced(v, device, f'{prefix}/{i}')\n"
            "    return out\n",
            # forgets tuples: the (images, labels) pairs are skipped
            "def find_misplaced(batch, device):\n"
            "    device = torch.device(device)\n"
            "    if isinstance(batch, torch.Tensor):\n"
            "        return [()] if batch.device != device else []\n"
            "    out = []\n"
            "    if isinstance(batch, dict):\n"
            "        for k, v in batch.items():\n            out += [(k,) + p for p in find_misplaced(v, device)]\n"
            "    elif isinstance(batch, list):\n"
            "        for i, v in enumerate(batch):\n            out += [(i,) + p for p in find_misplaced(v, device)]\n"
            "    return out\n",
            # the tensors themselves instead of their paths
            "def find_misplaced(batch, device):\n"
            "    device = torch.device(device)\n"
            "    if isinstance(batch, torch.Tensor):\n"
            "        return [batch] if batch.device != device else []\n"
            "    values = batch.values() if isinstance(batch, dict) else batch if isinstance(batch, (list, tuple)) else []\n"
            "    return [t for v in values for t in find_misplaced(v, device)]\n",
        ],
        "right": [
            # recursion that returns the paths below each level
            "def find_misplaced(batch, device):\n"
            "    device = torch.device(device)\n"
            "    if isinstance(batch, torch.Tensor):\n"
            "        return [()] if batch.device != device else []\n"
            "    if isinstance(batch, dict):\n"
            "        pairs = batch.items()\n"
            "    elif isinstance(batch, (list, tuple)):\n"
            "        pairs = enumerate(batch)\n"
            "    else:\n"
            "        return []\n"
            "    return [(key,) + rest for key, value in pairs for rest in find_misplaced(value, device)]\n",
            # an explicit stack instead of recursion
            "def find_misplaced(batch, device):\n"
            "    target = torch.device(device)\n"
            "    stack = [((), batch)]\n"
            "    misplaced = []\n"
            "    while stack:\n"
            "        path, value = stack.pop()\n"
            "        if torch.is_tensor(value):\n"
            "            if value.device != target:\n                misplaced.append(path)\n"
            "        elif isinstance(value, dict):\n"
            "            stack.extend((path + (k,), v) for k, v in value.items())\n"
            "        elif isinstance(value, (list, tuple)):\n"
            "            stack.extend((path + (i,), v) for i, v in enumerate(value))\n"
            "    return misplaced\n",
            # a generator; the paths are lists until the end, devices compared through an empty tensor
            "def find_misplaced(batch, device):\n"
            "    probe = torch.empty(0, device=device)\n"
            "    def walk(value, path):\n"
            "        if isinstance(value, torch.Tensor):\n"
            "            if value.device != probe.device:\n"
            "                yield tuple(path)\n"
            "        elif isinstance(value, dict):\n"
            "            for key in value:\n                yield from walk(value[key], path + [key])\n"
            "        elif isinstance(value, (list, tuple)):\n"
            "            for index in range(len(value)):\n                yield from walk(value[index], path + [index])\n"
            "    return list(walk(batch, []))\n",
            # PyTorch's own tree walker, which knows every leaf's path
            "from torch.utils._pytree import tree_flatten_with_path\n"
            "\n"
            "def find_misplaced(batch, device):\n"
            "    target = torch.device(device)\n"
            "    leaves, _ = tree_flatten_with_path(batch)\n"
            "    paths = []\n"
            "    for keys, leaf in leaves:\n"
            "        if isinstance(leaf, torch.Tensor) and leaf.device != target:\n"
            "            paths.append(tuple(k.key if hasattr(k, 'key') else k.idx for k in keys))\n"
            "    return paths\n",
        ],
    },
    "linear_on_param_device": {
        "wrong": [
            # nothing moved: x on the CPU meets a weight on meta
            "def linear_on_param_device(params, x):\n"
            '    """`x @ weight.T + bias` for a linear layer\'s state dict, computed on the weight\'s device."""\n'
            "    return x @ params['weight'].T + params['bias']\n",
            # a bare .to: the moved copy of x is thrown away
            "def linear_on_param_device(params, x):\n"
            "    x.to(params['weight'].device)\n"
            "    out = x @ params['weight'].T\n"
            "    return out + params['bias'] if 'bias' in params else out\n",
            # brings the parameters to x instead (and a meta tensor has no data to bring)
            "def linear_on_param_device(params, x):\n"
            "    weight = params['weight'].to(x.device)\n"
            "    out = x @ weight.T\n"
            "    return out + params['bias'].to(x.device) if 'bias' in params else out\n",
            # assumes every layer has a bias
            "def linear_on_param_device(params, x):\n"
            "    weight, bias = params['weight'], params['bias']\n"
            "    return x.to(weight.device) @ weight.T + bias\n",
            # patches a half-moved layer instead of letting the error through
            "def linear_on_param_device(params, x):\n"
            "    weight = params['weight']\n"
            "    out = x.to(weight.device) @ weight.T\n"
            "    if 'bias' in params:\n"
            "        out = out + params['bias'].to(weight.device)\n"
            "    return out\n",
            # x @ weight, not x @ weight.T (the weight is (out, in))
            "def linear_on_param_device(params, x):\n"
            "    weight = params['weight']\n"
            "    out = x.to(weight.device) @ weight\n"
            "    return out + params['bias'] if 'bias' in params else out\n",
        ],
        "right": [
            # F.linear does the product and the bias
            "import torch.nn.functional as F\n"
            "\n"
            "def linear_on_param_device(params, x):\n"
            "    weight = params['weight']\n"
            "    return F.linear(x.to(weight.device), weight, params.get('bias'))\n",
            # defensive: checks the devices itself
            "def linear_on_param_device(params, x):\n"
            "    weight = params['weight']\n"
            "    device = weight.device\n"
            "    bias = params.get('bias')\n"
            "    if bias is not None and bias.device != device:\n"
            "        raise RuntimeError(f'bias on {bias.device} but weight on {device}: the layer was only half moved')\n"
            "    out = torch.matmul(x.to(device), weight.t())\n"
            "    return out if bias is None else out + bias\n",
            # einsum names the dimensions
            "def linear_on_param_device(params, x):\n"
            "    w = params['weight']\n"
            "    y = torch.einsum('ni,oi->no', x.to(w.device), w)\n"
            "    if 'bias' in params:\n"
            "        y = y + params['bias']\n"
            "    return y\n",
            # a loop over the entries of the state dict
            "def linear_on_param_device(params, x):\n"
            "    device = params['weight'].device\n"
            "    x = x.to(device)\n"
            "    out = None\n"
            "    for name, tensor in params.items():\n"
            "        if name == 'weight':\n"
            "            product = x @ tensor.transpose(0, 1)\n"
            "            out = product if out is None else product + out\n"
            "        elif name == 'bias':\n"
            "            out = tensor if out is None else out + tensor\n"
            "    return out\n",
        ],
    },
    "answer_device_mismatch": {
        "wrong": [
            'answer_device_mismatch = "A"\n',
            'answer_device_mismatch = "C"\n',
            'answer_device_mismatch = "B"\n',
            "answer_device_mismatch = ['D']\n",
        ],
        "right": [
            'answer_device_mismatch = "D"\n',
            "# A RuntimeError.\nanswer_device_mismatch = 'D'\n",
            'answer_device_mismatch = "d"\n',
            'answer_device_mismatch = " d "\n',
        ],
    },
    "answer_to_returns_new": {
        "wrong": [
            'answer_to_returns_new = "A"\n',
            'answer_to_returns_new = "C"\n',
            'answer_to_returns_new = "D"\n',
            "answer_to_returns_new = None\n",
        ],
        "right": [
            'answer_to_returns_new = "B"\n',
            'answer_to_returns_new = "B"  # .to returns a new tensor\n',
            'answer_to_returns_new = "b"\n',
            'answer_to_returns_new = "\\tB"\n',
        ],
    },
    "answer_default_device": {
        "wrong": [
            'answer_default_device = "B"\n',
            'answer_default_device = "D"\n',
            'answer_default_device = "cpu"\n',
        ],
        "right": [
            'answer_default_device = "A"\n',
            "answer_default_device = 'A'\n",
            'answer_default_device = "a"\n',
            'answer_default_device = " A"\n',
        ],
    },
    "answer_device_index": {
        "wrong": [
            'answer_device_index = "A"\n',
            'answer_device_index = "C"\n',
            'answer_device_index = "D"\n',
        ],
        "right": [
            'answer_device_index = "B"\n',
            'answer_device_index = "b"\n',
            'answer_device_index = " B "\n',
            'answer_device_index = "ABCD"[1]\n',
        ],
    },
    "answer_zero_d_direction": {
        "wrong": [
            'answer_zero_d_direction = "A"\n',
            'answer_zero_d_direction = "B"\n',
            'answer_zero_d_direction = "D"\n',
        ],
        "right": [
            'answer_zero_d_direction = "C"\n',
            'answer_zero_d_direction = "c"\n',
            "answer_zero_d_direction = 'C'\n",
            'answer_zero_d_direction = "ABCD"[2]\n',
        ],
    },
}


# More answers, each written from the task text and the contract alone, as a student would.
MORE = {
    "answer_default_device": {
        "right": [
            """answer_default_device = " A "
""",
        ],
        "wrong": [
            """answer_default_device = "C"
""",
        ],
    },
    "answer_to_returns_new": {
        "right": [
            """answer_to_returns_new = 'B '
""",
        ],
    },
    "answer_device_mismatch": {
        "right": [
            """answer_device_mismatch = " d"
""",
            """answer_device_mismatch = str('D')
""",
        ],
    },
    "pick_device": {
        "right": [
            '''import torch
def pick_device():
    """The device this machine should compute on: the GPU when CUDA is available, else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")
''',
            '''import torch
def pick_device():
    """The device this machine should compute on: the GPU when CUDA is available, else the CPU."""
    if torch.cuda.is_available():
        return torch.device("cuda", 0)
    return torch.device("cpu")
''',
            '''import torch
def pick_device(prefer_gpu=True):
    """The device this machine should compute on: the GPU when CUDA is available, else the CPU."""
    name = "cpu"
    if prefer_gpu and torch.cuda.is_available() and torch.cuda.device_count() > 0:
        name = "cuda:0"
    return torch.device(name)
''',
        ],
        "wrong": [
            """import torch
def pick_device():
    return "cuda" if torch.cuda.is_available() else "cpu"
""",
            """import torch
def pick_device():
    return torch.device("cuda" if torch.cuda.is_available else "cpu")
""",
        ],
    },
    "move_batch": {
        "right": [
            '''import torch
def move_batch(batch, device):
    """`batch` with every tensor moved to `device`, the containers rebuilt with the same types."""
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {k: move_batch(v, device) for k, v in batch.items()}
    if isinstance(batch, list):
        return [move_batch(v, device) for v in batch]
    if isinstance(batch, tuple):
        return tuple(move_batch(v, device) for v in batch)
    return batch
''',
            '''import torch
from torch.utils._pytree import tree_map
def move_batch(batch, device):
    """`batch` with every tensor moved to `device`, the containers rebuilt with the same types."""
    return tree_map(lambda v: v.to(device) if torch.is_tensor(v) else v, batch)
''',
            '''import torch
def move_batch(batch, device, non_blocking=False):
    """`batch` with every tensor moved to `device`, the containers rebuilt with the same types."""
    device = torch.device(device)
    if torch.is_tensor(batch):
        return batch.to(device=device, non_blocking=non_blocking)
    if isinstance(batch, dict):
        out = type(batch)()
        for key in batch:
            out[key] = move_batch(batch[key], device, non_blocking)
        return out
    if isinstance(batch, (list, tuple)):
        items = []
        for v in batch:
            items.append(move_batch(v, device, non_blocking))
        return type(batch)(items)
    return batch
''',
        ],
        "wrong": [
            """import torch
def move_batch(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        for k in batch:
            batch[k] = move_batch(batch[k], device)
        return batch
    if isinstance(batch, list):
        for i in range(len(batch)):
            batch[i] = move_batch(batch[i], device)
        return batch
    if isinstance(batch, tuple):
        return tuple(move_batch(v, device) for v in batch)
    return batch
""",
            """import torch
def move_batch(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {k: move_batch(v, device) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return [move_batch(v, device) for v in batch]
    return batch
""",
            """import torch
def move_batch(batch, device):
    if isinstance(batch, dict):
        return {k: move_batch(v, device) for k, v in batch.items()}
    if isinstance(batch, list):
        return [move_batch(v, device) for v in batch]
    if isinstance(batch, tuple):
        return tuple(move_batch(v, device) for v in batch)
    return torch.as_tensor(batch).to(device) if isinstance(batch, (int, float, torch.Tensor)) else batch
""",
        ],
    },
    "same_device": {
        "right": [
            '''def same_device(*tensors):
    """True when every tensor given lives on one device (also for zero or one tensor)."""
    return len({t.device for t in tensors}) <= 1
''',
            '''def same_device(*tensors):
    """True when every tensor given lives on one device (also for zero or one tensor)."""
    for t in tensors[1:]:
        if t.device != tensors[0].device:
            return False
    return True
''',
            '''def same_device(*tensors):
    """True when every tensor given lives on one device (also for zero or one tensor)."""
    names = [str(t.device) for t in tensors]
    return all(n == names[0] for n in names)
''',
        ],
        "wrong": [
            """def same_device(*tensors):
    return len({t.device for t in tensors}) == 1
""",
            """def same_device(*tensors):
    if len(tensors) < 2:
        return True
    return tensors[0].device == tensors[1].device
""",
        ],
    },
    "add_on_device": {
        "right": [
            '''def add_on_device(a, b):
    """`a + b` computed on `a`'s device, `b` copied there first when it lives elsewhere."""
    return a + b.to(a.device)
''',
            '''import torch
def add_on_device(a, b):
    """`a + b` computed on `a`'s device, `b` copied there first when it lives elsewhere."""
    if b.device != a.device:
        b = b.to(a.device)
    return torch.add(a, b)
''',
            '''def add_on_device(a, b):
    """`a + b` computed on `a`'s device, `b` copied there first when it lives elsewhere."""
    return a.add(b.to(device=a.device))
''',
        ],
    },
    "find_misplaced": {
        "right": [
            '''import torch
def find_misplaced(batch, device):
    """The paths (tuples of keys and indices) of the tensors in `batch` that are not on `device`."""
    device = torch.device(device)
    found = []
    def walk(node, path):
        if isinstance(node, torch.Tensor):
            if node.device != device:
                found.append(path)
        elif isinstance(node, dict):
            for k, v in node.items():
                walk(v, path + (k,))
        elif isinstance(node, (list, tuple)):
            for i, v in enumerate(node):
                walk(v, path + (i,))
    walk(batch, ())
    return found
''',
            '''import torch
def find_misplaced(batch, device):
    """The paths (tuples of keys and indices) of the tensors in `batch` that are not on `device`."""
    target = str(torch.device(device))
    stack = [((), batch)]
    out = []
    while stack:
        path, node = stack.pop()
        if torch.is_tensor(node):
            if str(node.device) != target:
                out.append(path)
        elif isinstance(node, dict):
            stack.extend((path + (k,), v) for k, v in node.items())
        elif isinstance(node, (list, tuple)):
            stack.extend((path + (i,), v) for i, v in enumerate(node))
    return out
''',
            '''import torch
def find_misplaced(batch, device, _path=None):
    """The paths (tuples of keys and indices) of the tensors in `batch` that are not on `device`."""
    path = [] if _path is None else _path
    if isinstance(batch, torch.Tensor):
        return [list(path)] if batch.device != torch.device(device) else []
    result = []
    if isinstance(batch, dict):
        pairs = list(batch.items())
    elif isinstance(batch, (list, tuple)):
        pairs = list(enumerate(batch))
    else:
        pairs = []
    for key, value in pairs:
        result += find_misplaced(value, device, path + [key])
    return result
''',
        ],
        "wrong": [
            """import torch
def find_misplaced(batch, device):
    device = torch.device(device)
    found = []
    def walk(node, path):
        if isinstance(node, torch.Tensor):
            if node.device != device:
                found.append(path)
        elif isinstance(node, dict):
            for k, v in node.items():
                walk(v, path + (k,))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, path + (i,))
    walk(batch, ())
    return found
""",
            """import torch
def find_misplaced(batch, device):
    device = torch.device(device)
    found = []
    def walk(node, path):
        if isinstance(node, torch.Tensor):
            if node.device != device:
                found.append(path)
        elif isinstance(node, dict):
            for k, v in node.items():
                walk(v, path + (k,))
        elif isinstance(node, (list, tuple)):
            for i, v in enumerate(node):
                walk(v, path + (i,))
    if isinstance(batch, torch.Tensor):
        return [] if batch.device == device else [("",)]
    walk(batch, ())
    return found
""",
            """import torch
def find_misplaced(batch, device):
    found = []
    def walk(node, path):
        if isinstance(node, torch.Tensor):
            if str(node.device) != device:
                found.append(path)
        elif isinstance(node, dict):
            for k, v in node.items():
                walk(v, path + (k,))
        elif isinstance(node, (list, tuple)):
            for i, v in enumerate(node):
                walk(v, path + (i,))
    walk(batch, ())
    return found
""",
        ],
    },
    "linear_on_param_device": {
        "right": [
            '''def linear_on_param_device(params, x):
    """`x @ weight.T + bias` for a linear layer's state dict, computed on the weight's device."""
    weight = params["weight"]
    out = x.to(weight.device) @ weight.T
    if "bias" in params:
        out = out + params["bias"]
    return out
''',
            '''import torch.nn.functional as F
def linear_on_param_device(params, x):
    """`x @ weight.T + bias` for a linear layer's state dict, computed on the weight's device."""
    w = params["weight"]
    return F.linear(x.to(w.device), w, params.get("bias"))
''',
            '''import torch
def linear_on_param_device(params, x):
    """`x @ weight.T + bias` for a linear layer's state dict, computed on the weight's device."""
    w = params["weight"]
    xs = x.to(device=w.device)
    bias = params.get("bias", None)
    if bias is None:
        return torch.einsum("ni,oi->no", xs, w)
    return torch.addmm(bias, xs, w.t())
''',
            '''import torch
from torch import nn
def linear_on_param_device(params, x):
    """`x @ weight.T + bias` for a linear layer's state dict, computed on the weight's device."""
    w = params["weight"]
    layer = nn.Linear(w.shape[1], w.shape[0], bias="bias" in params, device=w.device, dtype=w.dtype)
    layer.load_state_dict(params, assign=True)
    return layer(x.to(w.device))
''',
        ],
        "wrong": [
            """def linear_on_param_device(params, x):
    w = params["weight"].to(x.device)
    out = x @ w.T
    if "bias" in params:
        out = out + params["bias"].to(x.device)
    return out
""",
            """def linear_on_param_device(params, x):
    w = params["weight"]
    out = x.to(w.device) @ w.T
    if "bias" in params:
        out = out + params["bias"].to(w.device)
    return out
""",
        ],
    },
}
for _item, _table in MORE.items():
    for _kind, _codes in _table.items():
        ITEMS[_item].setdefault(_kind, []).extend(_codes)
