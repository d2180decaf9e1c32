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
        ],
    },
    "answer_device_mismatch": {
        "wrong": [
            'answer_device_mismatch = "A"\n',
            'answer_device_mismatch = "C"\n',
            'answer_device_mismatch = "b"\n',
            "answer_device_mismatch = ['B']\n",
        ],
        "right": [
            'answer_device_mismatch = "B"\n',
            "# A RuntimeError.\nanswer_device_mismatch = 'B'\n",
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
        ],
    },
}
