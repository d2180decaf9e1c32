"""Wrong and right answers for lesson 10 (the GPU pipeline), as students write them.

Each right answer was written from the task text alone, in a style of its own; each wrong answer is
a mistake the lesson warns about, and must lose its item's points on a machine without a GPU, where
the tests use the CPU, `meta`, device names (which need no GPU) and checkpoints that say they were
written on CUDA.
"""

ITEMS = {
    "same_place": {
        "wrong": [
            # torch.device equality: 'cuda' and 'cuda:0' differ.
            """def same_place(a, b):
    da = a.device if isinstance(a, torch.Tensor) else torch.device(a)
    db = b.device if isinstance(b, torch.Tensor) else torch.device(b)
    return da == db
""",
            # Only the type: cuda:0 and cuda:1 look the same.
            """def same_place(a, b):
    da = a.device if isinstance(a, torch.Tensor) else torch.device(a)
    db = b.device if isinstance(b, torch.Tensor) else torch.device(b)
    return da.type == db.type
""",
            # Strings: a tensor prints its values, not its device.
            """def same_place(a, b):
    return str(a) == str(b)
""",
        ],
        "right": [
            """def same_place(a, b):
    def where(x):
        place = torch.device(getattr(x, "device", x))
        index = place.index
        if index is None:
            index = torch.cuda.current_device() if place.type == "cuda" and torch.cuda.is_available() else 0
        return place.type, index
    return where(a) == where(b)
""",
            """def same_place(a, b):
    def key(d):
        if torch.is_tensor(d):
            d = d.device
        d = torch.device(d)
        if d.index is not None:
            return str(d)
        current = torch.cuda.current_device() if (d.type == "cuda" and torch.cuda.is_available()) else 0
        return f"{d.type}:{current}"
    return key(a) == key(b)
""",
            """def _index_of(d):
    if d.index is not None:
        return d.index
    if d.type == "cuda" and torch.cuda.is_available():
        return torch.cuda.current_device()
    return 0


def same_place(a, b):
    da = a.device if isinstance(a, torch.Tensor) else torch.device(a)
    db = b.device if isinstance(b, torch.Tensor) else torch.device(b)
    if da.type != db.type:
        return False
    return _index_of(da) == _index_of(db)
""",
            '''def same_place(a, b):
    """Fill in the index, then let torch.device compare."""
    def full(x):
        d = x.device if isinstance(x, torch.Tensor) else torch.device(x)
        if d.index is None:
            d = torch.device(d.type, torch.cuda.current_device() if d.type == "cuda" and torch.cuda.is_available() else 0)
        return d
    return full(a) == full(b)
''',
        ],
    },
    "synchronize_if_needed": {
        "wrong": [
            # Always synchronises: fails on a machine without CUDA.
            """def synchronize_if_needed(where):
    torch.cuda.synchronize()
    return True
""",
            # No return value: None is not False.
            """def synchronize_if_needed(where):
    place = where.device if isinstance(where, torch.Tensor) else torch.device(where)
    if place.type == "cuda":
        torch.cuda.synchronize(place)
""",
            # Forgets tensors: torch.device(a tensor) raises.
            """def synchronize_if_needed(where):
    place = torch.device(where)
    if place.type == "cuda":
        torch.cuda.synchronize(place)
        return True
    return False
""",
        ],
        "right": [
            """def synchronize_if_needed(where):
    if isinstance(where, torch.Tensor):
        where = where.device
    where = torch.device(where)
    if where.type == "cuda":
        torch.cuda.synchronize(where)
        return True
    return False
""",
            """def synchronize_if_needed(where):
    name = str(where.device if torch.is_tensor(where) else where)
    if name.startswith("cuda"):
        torch.cuda.synchronize(torch.device(name))
        return True
    return False
""",
            """def synchronize_if_needed(where):
    place = getattr(where, "device", where)
    place = torch.device(place)
    needs = place.type == "cuda"
    if needs:
        with torch.cuda.device(place):
            torch.cuda.synchronize()
    return needs
""",
            '''def synchronize_if_needed(where):
    """Only CUDA queues work; CPU and meta finish every call before returning."""
    if torch.is_tensor(where):
        kind = where.device.type
        place = where.device
    else:
        place = torch.device(where)
        kind = place.type
    match kind:
        case "cuda":
            torch.cuda.synchronize(device=place)
            return True
        case _:
            return False
''',
        ],
    },
    "send_batch": {
        "wrong": [
            # non_blocking everywhere: an ordinary tensor is not pinned.
            """def send_batch(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=True)
    if isinstance(batch, dict):
        return {k: send_batch(v, device) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(send_batch(v, device) for v in batch)
    return batch
""",
            # Pins every tensor first: there is nothing to pin with on a CPU-only machine, and it is an extra copy.
            """def send_batch(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.pin_memory().to(device, non_blocking=True)
    if isinstance(batch, dict):
        return {k: send_batch(v, device) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(send_batch(v, device) for v in batch)
    return batch
""",
            # Writes into the caller's containers.
            """def send_batch(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=batch.is_pinned())
    if isinstance(batch, dict):
        for k in batch:
            batch[k] = send_batch(batch[k], device)
        return batch
    if isinstance(batch, list):
        for i in range(len(batch)):
            batch[i] = send_batch(batch[i], device)
        return batch
    if isinstance(batch, tuple):
        return tuple(send_batch(v, device) for v in batch)
    return batch
""",
        ],
        "right": [
            """def send_batch(batch, device):
    if isinstance(batch, torch.Tensor):
        if batch.is_pinned():
            return batch.to(device, non_blocking=True)
        return batch.to(device)
    if isinstance(batch, dict):
        return {key: send_batch(value, device) for key, value in batch.items()}
    if isinstance(batch, list):
        return [send_batch(value, device) for value in batch]
    if isinstance(batch, tuple):
        return tuple(send_batch(value, device) for value in batch)
    return batch
""",
            """from torch.utils._pytree import tree_map


def send_batch(batch, device):
    return tree_map(lambda t: t.to(device, non_blocking=t.is_pinned()) if isinstance(t, torch.Tensor) else t, batch)
""",
            """def send_batch(batch, device):
    match batch:
        case torch.Tensor():
            return batch.to(device=device, non_blocking=bool(batch.is_pinned()))
        case dict():
            out = {}
            for key, value in batch.items():
                out[key] = send_batch(value, device)
            return out
        case list() | tuple():
            return type(batch)([send_batch(v, device) for v in batch])
        case _:
            return batch
""",
            '''def send_batch(batch, device):
    """Allocate on the device, then copy in: non_blocking only from pinned memory."""
    if torch.is_tensor(batch):
        out = torch.empty_like(batch, device=device)
        out.copy_(batch, non_blocking=batch.is_pinned())
        return out
    if isinstance(batch, dict):
        return dict((k, send_batch(v, device)) for k, v in batch.items())
    if type(batch) in (list, tuple):
        return type(batch)(map(lambda v: send_batch(v, device), batch))
    return batch
''',
        ],
    },
    "load_checkpoint": {
        "wrong": [
            # No map_location: a checkpoint written on a GPU will not load without one.
            """def load_checkpoint(data, device):
    state = torch.load(io.BytesIO(data), weights_only=True)
    return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in state.items()}
""",
            # weights_only=False runs whatever the file holds.
            """def load_checkpoint(data, device):
    return torch.load(io.BytesIO(data), map_location=device, weights_only=False)
""",
            # Moves only the top level: a state_dict stored under a key stays on the CPU.
            """def load_checkpoint(data, device):
    state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    return {k: v.to(device) if torch.is_tensor(v) else v for k, v in state.items()}
""",
        ],
        "right": [
            """import io


def load_checkpoint(data, device):
    with io.BytesIO(data) as f:
        return torch.load(f, map_location=torch.device(device), weights_only=True)
""",
            """def load_checkpoint(data, device):
    import io
    obj = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)

    def move(o):
        if isinstance(o, torch.Tensor):
            return o.to(device)
        if isinstance(o, dict):
            return {k: move(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return type(o)(move(v) for v in o)
        return o

    return move(obj)
""",
            """import io
from torch.utils._pytree import tree_map


def load_checkpoint(data, device):
    loaded = torch.load(io.BytesIO(data), map_location=lambda storage, location: storage, weights_only=True)
    return tree_map(lambda v: v.to(device) if torch.is_tensor(v) else v, loaded)
""",
            '''def load_checkpoint(data, device):
    """weights_only is the default since 2.6; say it anyway."""
    from io import BytesIO
    buffer = BytesIO()
    buffer.write(data)
    buffer.seek(0)
    return torch.load(buffer, weights_only=True, map_location=str(torch.device(device)))
''',
        ],
    },
    "repeatable_losses": {
        "wrong": [
            # Nothing seeded.
            """def repeatable_losses(x, y, num_classes, seed, epochs):
    from torch.utils.data import DataLoader, TensorDataset
    model = nn.Linear(x.shape[1], num_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for _ in range(epochs):
        for inputs, labels in DataLoader(TensorDataset(x, y), batch_size=4, shuffle=True):
            optimizer.zero_grad()
            loss = loss_fn(model(inputs), labels)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return losses
""",
            # The weights are seeded, the order comes from Python's unseeded random module.
            """import random


def repeatable_losses(x, y, num_classes, seed, epochs):
    torch.manual_seed(seed)
    model = nn.Linear(x.shape[1], num_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    order = list(range(len(x)))
    losses = []
    for _ in range(epochs):
        random.shuffle(order)
        for start in range(0, len(order), 4):
            idx = torch.tensor(order[start:start + 4])
            optimizer.zero_grad()
            loss = loss_fn(model(x[idx]), y[idx])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return losses
""",
            # The seed is ignored: every seed gives the same run.
            """def repeatable_losses(x, y, num_classes, seed, epochs):
    from torch.utils.data import DataLoader, TensorDataset
    torch.manual_seed(0)
    model = nn.Linear(x.shape[1], num_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(0))
    losses = []
    for _ in range(epochs):
        for inputs, labels in loader:
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(inputs), labels)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return losses
""",
            # Seeded once, when the cell runs: the second call continues the stream.
            """torch.manual_seed(0)


def repeatable_losses(x, y, num_classes, seed, epochs):
    model = nn.Linear(x.shape[1], num_classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(epochs):
        perm = torch.randperm(len(x))
        for start in range(0, len(x), 4):
            idx = perm[start:start + 4]
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return losses
""",
        ],
        "right": [
            """def repeatable_losses(x, y, num_classes, seed, epochs):
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    model = nn.Linear(x.shape[1], num_classes)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    out = []
    n = x.shape[0]
    for epoch in range(epochs):
        perm = torch.randperm(n, generator=g)
        for i in range(0, n, 4):
            idx = perm[i:i + 4]
            opt.zero_grad()
            loss = criterion(model(x[idx]), y[idx])
            loss.backward()
            opt.step()
            out.append(float(loss.item()))
    return out
""",
            """import random

import numpy as np
from torch.utils.data import DataLoader, TensorDataset


def _seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


def repeatable_losses(x, y, num_classes, seed, epochs):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    was = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        model = nn.Linear(x.size(1), num_classes)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=True,
                            worker_init_fn=_seed_worker, generator=torch.Generator().manual_seed(seed))
        losses = []
        for _ in range(epochs):
            for xb, yb in loader:
                optimizer.zero_grad()
                loss = nn.CrossEntropyLoss()(model(xb), yb)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
        return losses
    finally:
        torch.use_deterministic_algorithms(was)
""",
            '''def repeatable_losses(x, y, num_classes, seed, epochs):
    """fork_rng: the caller's random stream is left as it was."""
    from torch.utils.data import DataLoader, TensorDataset
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = nn.Linear(x.shape[1], num_classes)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=True)
        losses = []
        for _ in range(epochs):
            for batch_x, batch_y in loader:
                optimizer.zero_grad()
                loss = nn.CrossEntropyLoss()(model(batch_x), batch_y)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
    return losses
''',
            """def repeatable_losses(x, y, num_classes, seed, epochs):
    from torch.utils.data import DataLoader, TensorDataset
    generator = torch.Generator()
    generator.manual_seed(seed)
    model = nn.Linear(x.shape[1], num_classes)
    with torch.no_grad():
        bound = 1 / x.shape[1] ** 0.5
        model.weight.uniform_(-bound, bound, generator=generator)
        model.bias.uniform_(-bound, bound, generator=generator)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=True, generator=generator)
    history = []
    for epoch in range(epochs):
        for inputs, targets in loader:
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(inputs), targets)
            loss.backward()
            optimizer.step()
            history.append(loss.item())
    return history
""",
        ],
    },
    "predict_bf16": {
        "wrong": [
            # Written out, the bias addition promotes the bfloat16 product back to float32.
            """def predict_bf16(weight, bias, x):
    with torch.inference_mode(), torch.autocast(device_type=x.device.type, dtype=torch.bfloat16):
        return x @ weight.T + bias
""",
            # Autocast only: the result requires grad.
            """def predict_bf16(weight, bias, x):
    with torch.autocast(device_type=x.device.type, dtype=torch.bfloat16):
        return torch.nn.functional.linear(x, weight, bias)
""",
            # Autocast for CUDA on CPU inputs does nothing: float32 comes back.
            """def predict_bf16(weight, bias, x):
    with torch.inference_mode(), torch.autocast(device_type="cuda", dtype=torch.bfloat16):
        return torch.nn.functional.linear(x, weight, bias)
""",
            # float16 is not bfloat16.
            """def predict_bf16(weight, bias, x):
    with torch.inference_mode(), torch.autocast(device_type=x.device.type, dtype=torch.float16):
        return torch.nn.functional.linear(x, weight, bias)
""",
        ],
        "right": [
            """def predict_bf16(weight, bias, x):
    with torch.inference_mode():
        with torch.autocast(x.device.type, dtype=torch.bfloat16):
            return torch.addmm(bias, x, weight.t())
""",
            """def predict_bf16(weight, bias, x):
    with torch.inference_mode():
        return x.bfloat16() @ weight.bfloat16().T + bias.bfloat16()
""",
            """import torch.nn.functional as F


def predict_bf16(weight, bias, x):
    with torch.no_grad(), torch.autocast(device_type=x.device.type, dtype=torch.bfloat16):
        out = F.linear(x, weight, bias)
    return out
""",
            """@torch.inference_mode()
def predict_bf16(weight, bias, x):
    layer = nn.Linear(weight.shape[1], weight.shape[0], device=x.device)
    layer.weight.copy_(weight)
    layer.bias.copy_(bias)
    with torch.autocast(device_type=x.device.type, dtype=torch.bfloat16):
        return layer(x)
""",
        ],
    },
    "answer_cuda_index": {
        "wrong": [
            'answer_cuda_index = "B"\n',
            'answer_cuda_index = "C"\n',
            'answer_cuda_index = "D"\n',
            "answer_cuda_index = None\n",
        ],
        "right": [
            'answer_cuda_index = "A"\n',
            "answer_cuda_index = 'a'\n",
            'answer_cuda_index = " A "\n',
            'answer_cuda_index = "A"  # cuda:0 has an index\n',
        ],
    },
    "answer_unsynced_timing": {
        "wrong": [
            'answer_unsynced_timing = "A"\n',
            'answer_unsynced_timing = "C"\n',
            'answer_unsynced_timing = "D"\n',
            'answer_unsynced_timing = ["B"]\n',
        ],
        "right": [
            'answer_unsynced_timing = "B"\n',
            'answer_unsynced_timing = "b"\n',
            "answer_unsynced_timing = '\\tB'\n",
            '# .item() waits for the GPU\nanswer_unsynced_timing = "B"\n',
        ],
    },
    "answer_inference_tensor": {
        "wrong": [
            'answer_inference_tensor = "A"\n',
            'answer_inference_tensor = "C"\n',
            'answer_inference_tensor = "B"\n',
            'answer_inference_tensor = "RuntimeError"\n',
        ],
        "right": [
            'answer_inference_tensor = "D"\n',
            'answer_inference_tensor = "d"\n',
            "answer_inference_tensor = ' D'\n",
            'answer_inference_tensor = str("D")\n',
        ],
    },
}
