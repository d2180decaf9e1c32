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
            'answer_device_mismatch = "D"\n',
            "answer_device_mismatch = ['B']\n",
        ],
        "right": [
            'answer_device_mismatch = "B"\n',
            "# A RuntimeError.\nanswer_device_mismatch = 'B'\n",
            'answer_device_mismatch = "b"\n',
            'answer_device_mismatch = " b "\n',
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
}
