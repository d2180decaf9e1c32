"""Forgeries of the "no Python loop over N" verdict (`course.probes.loops.count_python_lines`).

Each answer loops over the examples in Python and gets every value right, so only the line count can
tell; the forgery tries to keep its lines out of that count: switching the tracer off, passing its code
off as an installed module's or a frozen one's (compiled under such a name, renamed afterwards,
smuggled in as bytecode), running the loop in another thread or process, or replacing the probe and
the list of library folders it trusts. See `forgery.py` for how cases are graded.
"""

from __future__ import annotations

from tests.adversarial.forgery import Forgery

COUNT_LOOP = """def confusion_matrix(predicted, labels, num_classes):
    counts = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=labels.device)
    for t, p in zip(labels.tolist(), predicted.tolist()):
        counts[t, p] += 1
    return counts
"""

BAG_LOOP = """def embedding_bag_mean(table, index, lengths):
    out = torch.zeros(index.shape[0], table.shape[1], dtype=table.dtype, device=table.device)
    for b in range(index.shape[0]):
        n = int(lengths[b])
        if n:
            out[b] = table[index[b, :n]].mean(dim=0)
    return out
"""

DISTANCE_LOOP = """def pairwise_distances(a, b):
    rows = [(b - a[i]).pow(2).sum(dim=1).sqrt() for i in range(a.shape[0])]
    return torch.stack(rows) if rows else a.new_zeros(0, b.shape[0])
"""


def _smuggled(source: str, fake: str, *, how: str) -> str:
    """An answer cell that compiles `source` under a harmless name of the same length as `fake`, then swaps
    the name in the marshalled bytes; `how` says how the bytes become code again: "marshal" or "pyc"."""
    lines = [
        "import importlib.util",
        "import marshal",
        "import sys",
        "",
        "import torch",
        "",
        f"_SOURCE = {'import torch' + chr(10) + source!r}",
        f"_FAKE = {fake}",
        "_PLAIN = 'x' * len(_FAKE)",
        "_data = marshal.dumps(compile(_SOURCE, _PLAIN, 'exec')).replace(_PLAIN.encode(), _FAKE.encode())",
    ]
    if how == "marshal":
        lines += ["exec(marshal.loads(_data))"]
    else:
        lines += [
            "with open('fastloops.pyc', 'wb') as _handle:",
            "    _handle.write(importlib.util.MAGIC_NUMBER + bytes(12) + _data)",
            "sys.path.insert(0, '.')",
            "sys.modules.pop('fastloops', None)",
            "from fastloops import *",
        ]
    return "\n".join(lines) + "\n"


FORGERIES: list[Forgery] = [
    Forgery(
        # Vectorized (and wrong) only while a tracer is set, a loop (and right) otherwise: the call that is
        # counted is checked against the reference too.
        "confusion_matrix_behaves_only_while_counted",
        "08_indexing",
        "confusion_matrix",
        "behave only while counted",
        "function body",
        "import sys\n\n\n"
        + COUNT_LOOP.replace(
            "    counts = torch.zeros",
            "    if sys.gettrace() is not None:\n"
            "        return torch.zeros(num_classes, num_classes, dtype=torch.int64, device=labels.device)\n"
            "    counts = torch.zeros",
        ),
        detected=True,
    ),
    Forgery(
        # The loop is driven from C (map, a deque that keeps nothing): no line of the notebook runs per
        # example, but each example is a tensor operation.
        "confusion_matrix_loop_driven_from_c",
        "08_indexing",
        "confusion_matrix",
        "loop without Python lines",
        "function body",
        "import collections\nimport itertools\n\n\n"
        "def confusion_matrix(predicted, labels, num_classes):\n"
        "    counts = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=labels.device)\n"
        "    one = torch.ones((), dtype=torch.int64, device=labels.device)\n"
        "    collections.deque(map(counts.index_put_, zip(labels, predicted), itertools.repeat(one), itertools.repeat(True)), maxlen=0)\n"
        "    return counts\n",
        detected=False,
    ),
    Forgery(
        "confusion_matrix_turns_the_tracer_off",
        "08_indexing",
        "confusion_matrix",
        "trace hook",
        "function body",
        "import sys\n\n\n"
        + COUNT_LOOP.replace("    counts = torch.zeros", "    sys.settrace(None)\n    counts = torch.zeros"),
        detected=True,
    ),
    Forgery(
        "confusion_matrix_compiled_under_an_installed_name",
        "08_indexing",
        "confusion_matrix",
        "code under a library name",
        "answer cell",
        f"_SOURCE = {COUNT_LOOP!r}\nexec(compile(_SOURCE, torch.__file__, 'exec'))\n",
        detected=True,
    ),
    Forgery(
        "confusion_matrix_compiled_as_a_frozen_module",
        "08_indexing",
        "confusion_matrix",
        "code under a library name",
        "answer cell",
        f"_SOURCE = {COUNT_LOOP!r}\nexec(compile(_SOURCE, '<frozen counting>', 'exec'))\n",
        detected=True,
    ),
    Forgery(
        "embedding_bag_code_renamed_to_numpy",
        "08_indexing",
        "embedding_bag_mean",
        "code under a library name",
        "answer cell",
        "import types\n\nimport numpy as np\n\n\n"
        + BAG_LOOP.replace("def embedding_bag_mean", "def _looped")
        + "\n\nembedding_bag_mean = types.FunctionType(_looped.__code__.replace(co_filename=np.__file__), globals())\n",
        detected=True,
    ),
    Forgery(
        "pairwise_distances_bytecode_through_marshal",
        "05_shapes",
        "pairwise_distances",
        "code under a library name",
        "answer cell",
        _smuggled(DISTANCE_LOOP, "'<frozen distances>'", how="marshal"),
        detected=True,
    ),
    Forgery(
        "confusion_matrix_sourceless_bytecode",
        "08_indexing",
        "confusion_matrix",
        "code under a library name",
        "answer cell",
        _smuggled(COUNT_LOOP, "torch.__file__", how="pyc"),
        detected=True,
        # the star import is kept in every probed item's slice, and it is outside the measured subset
        also=("topk_mask", "embedding_bag_mean", "box_iou"),
    ),
    Forgery(
        "embedding_bag_loop_in_a_thread",
        "08_indexing",
        "embedding_bag_mean",
        "threads",
        "function body",
        "import threading\n\n\n"
        "def embedding_bag_mean(table, index, lengths):\n"
        "    out = torch.zeros(index.shape[0], table.shape[1], dtype=table.dtype, device=table.device)\n\n"
        "    def work():\n"
        "        for b in range(index.shape[0]):\n"
        "            n = int(lengths[b])\n"
        "            if n:\n"
        "                out[b] = table[index[b, :n]].mean(dim=0)\n\n"
        "    worker = threading.Thread(target=work)\n"
        "    worker.start()\n"
        "    worker.join()\n"
        "    return out\n",
        detected=True,
    ),
    Forgery(
        "confusion_matrix_loop_in_a_thread_pool",
        "08_indexing",
        "confusion_matrix",
        "threads",
        "function body",
        "from concurrent.futures import ThreadPoolExecutor\n\n\n"
        "def confusion_matrix(predicted, labels, num_classes):\n"
        "    counts = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=labels.device)\n\n"
        "    def one(pair):\n"
        "        counts[pair[0], pair[1]] += 1\n\n"
        "    with ThreadPoolExecutor(max_workers=1) as pool:\n"
        "        list(pool.map(one, zip(labels.tolist(), predicted.tolist())))\n"
        "    return counts\n",
        detected=True,
    ),
    Forgery(
        "confusion_matrix_loop_in_a_forked_process",
        "08_indexing",
        "confusion_matrix",
        "processes",
        "function body",
        "import os\nimport pickle\n\n\n"
        "def confusion_matrix(predicted, labels, num_classes):\n"
        "    pairs = list(zip(labels.tolist(), predicted.tolist()))\n"
        "    read, write = os.pipe()\n"
        "    if os.fork() == 0:\n"
        "        counts = [[0] * num_classes for _ in range(num_classes)]\n"
        "        for t, p in pairs:\n"
        "            counts[t][p] += 1\n"
        "        os.write(write, pickle.dumps(counts))\n"
        "        os._exit(0)\n"
        "    os.close(write)\n"
        "    data = b''\n"
        "    while chunk := os.read(read, 65536):\n"
        "        data += chunk\n"
        "    os.close(read)\n"
        "    os.wait()\n"
        "    counts = torch.tensor(pickle.loads(data), dtype=torch.int64).reshape(num_classes, num_classes)\n"
        "    return counts.to(labels.device)\n",
        detected=True,
    ),
    Forgery(
        "embedding_bag_loop_in_a_process_started_earlier",
        "08_indexing",
        "embedding_bag_mean",
        "processes",
        "answer cell",
        "import os\nimport pickle\nimport struct\n\n"
        "_jobs, _results = os.pipe(), os.pipe()\n"
        "if (_server := os.fork()) == 0:\n"
        "    def _read(fd, n):\n"
        "        data = b''\n"
        "        while len(data) < n:\n"
        "            data += os.read(fd, n - len(data))\n"
        "        return data\n"
        "    while True:\n"
        "        table, index, lengths = pickle.loads(_read(_jobs[0], struct.unpack('>Q', _read(_jobs[0], 8))[0]))\n"
        "        out = []\n"
        "        for ids, n in zip(index, lengths):\n"
        "            rows = [table[i] for i in ids[:n]]\n"
        "            out.append([sum(column) / n for column in zip(*rows)] if n else [0.0] * len(table[0]))\n"
        "        reply = pickle.dumps(out)\n"
        "        os.write(_results[1], struct.pack('>Q', len(reply)) + reply)\n\n\n"
        "def embedding_bag_mean(table, index, lengths):\n"
        "    assert _server > 0, 'the loop runs in the process started with the notebook'\n"
        "    job = pickle.dumps((table.tolist(), index.tolist(), lengths.tolist()))\n"
        "    os.write(_jobs[1], struct.pack('>Q', len(job)) + job)\n"
        "    size = struct.unpack('>Q', os.read(_results[0], 8))[0]\n"
        "    data = b''\n"
        "    while len(data) < size:\n"
        "        data += os.read(_results[0], size - len(data))\n"
        "    rows = pickle.loads(data)\n"
        "    out = torch.tensor(rows, dtype=torch.float64).reshape(index.shape[0], table.shape[1])\n"
        "    return out.to(dtype=table.dtype, device=table.device)\n",
        detected=True,
    ),
    Forgery(
        "confusion_matrix_count_probe_replaced_in_a_cell",
        "08_indexing",
        "confusion_matrix",
        "replace the probe in the registry",
        "separate cell",
        COUNT_LOOP,
        detected=False,
        cell="import course.probes as probes\n"
        "import course.probes.loops as loops\n"
        "probes.REGISTRY['course.probes.loops:count_python_lines'] = lambda step, func, *args, **kwargs: None\n"
        "loops.count_python_lines = lambda func, *args, **kwargs: (func(*args, **kwargs), 0)\n",
    ),
    Forgery(
        "embedding_bag_widens_the_library_folders",
        "08_indexing",
        "embedding_bag_mean",
        "patch the course package",
        "function body",
        BAG_LOOP.replace(
            "    out = torch.zeros",
            "    import course.probes.evidence as evidence\n"
            "    evidence.library_prefixes = lambda: ('/',)\n    out = torch.zeros",
        ),
        detected=True,
    ),
]
