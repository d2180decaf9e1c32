"""Forgeries that tell the grader's measurement from the rest and behave only there.

Each answer is wrong in what its probe measures (a Python loop over the examples, a copy where the task
asks for shared memory, a change to its input) and right in every value, so its values pass wherever
they are checked. Some look at the stack through a library function (`inspect.stack`,
`traceback.extract_stack`, `logging.currentframe`, `traceback.walk_stack`) and, when a probe's frame is
there, do what an honest answer does: taking a frame is not something a tensor function needs, and the
guard's allow-list refuses it while a probe calls the notebook's code, whichever library function the
notebook asks. Others tell the probe's process from the notebook's by a global or a builtin another
cell sets (the probe's process once held only what the item's code names), or put off the change to
their input: until the result is dropped, until a timer goes off, until a later garbage collection
(a gc callback, or an object aged into gc's oldest generation), or until a process the answer started
signals it, or until its next call. The inputs are read again after a full collection and after a
second call on fresh copies, and nothing of the notebook's may be
left to run once a probed call returns (no armed timer, no signal handler or gc callback of its own).
One records no graph only while the grader's saved-tensor hook is on top of autograd's hook stack: the
guard shows that stack as it would be without the hook. See `forgery.py` for how cases are graded.
"""

from __future__ import annotations

from tests.adversarial.forgery import Forgery

VECTORIZED = (
    "        flat = labels * num_classes + predicted\n"
    "        return torch.bincount(flat, minlength=num_classes * num_classes).reshape(num_classes, num_classes)\n"
)
LOOP = (
    "    counts = torch.zeros(num_classes, num_classes, dtype=torch.int64, device=labels.device)\n"
    "    for t, p in zip(labels.tolist(), predicted.tolist()):\n"
    "        counts[t, p] += 1\n"
    "    return counts\n"
)


def _confusion(imports: str, probed: str, *, helper: str = "") -> str:
    """A confusion matrix that loops, but is vectorized when `probed` (an expression) is true."""
    return (
        f"{imports}\n\n\n{helper}"
        "def confusion_matrix(predicted, labels, num_classes):\n"
        f"    if {probed}:\n" + VECTORIZED + LOOP
    )


def _shared(imports: str, probed: str) -> str:
    """A conversion that copies, but shares the array's memory when `probed` is true."""
    return (
        f"{imports}\n\n\ndef numpy_to_tensor_shared(arr):\n"
        f"    if {probed}:\n        return torch.from_numpy(arr)\n"
        "    return torch.tensor(arr)\n"
    )


FORGERIES: list[Forgery] = [
    Forgery(
        "confusion_matrix_vectorized_when_inspect_shows_a_probe",
        "08_indexing",
        "confusion_matrix",
        "tell the probe's call apart",
        "function body",
        _confusion("import inspect", "any('probes' in f.filename for f in inspect.stack(0))"),
        detected=True,
    ),
    Forgery(
        "confusion_matrix_vectorized_when_traceback_shows_a_probe",
        "08_indexing",
        "confusion_matrix",
        "tell the probe's call apart",
        "function body",
        _confusion("import traceback", "any('probes' in f.filename for f in traceback.extract_stack())"),
        detected=True,
    ),
    Forgery(
        "confusion_matrix_vectorized_when_a_walked_stack_shows_a_probe",
        "08_indexing",
        "confusion_matrix",
        "tell the probe's call apart",
        "answer cell",
        _confusion(
            "import traceback",
            "_under_probe()",
            helper="def _under_probe():\n"
            "    return any('probes' in f.f_code.co_filename for f, _ in traceback.walk_stack(None))\n\n\n",
        ),
        detected=True,
    ),
    Forgery(
        "confusion_matrix_vectorized_when_a_helper_cell_sees_a_probe",
        "08_indexing",
        "confusion_matrix",
        "tell the probe's call apart",
        "separate cell",
        _confusion("import torch", "_seen_by_a_probe()"),
        detected=True,
        cell="import inspect\n\n\ndef _seen_by_a_probe():\n"
        "    frame = inspect.currentframe()\n"
        "    while frame is not None and 'probes' not in frame.f_code.co_filename:\n"
        "        frame = frame.f_back\n"
        "    return frame is not None\n",
    ),
    Forgery(
        "shared_only_when_logging_shows_a_probe",
        "04_numpy",
        "numpy_to_tensor_shared",
        "tell the probe's call apart",
        "function body",
        _shared(
            "import inspect\nimport logging",
            "any('probes' in f.filename for f in inspect.getouterframes(logging.currentframe(), 0))",
        ),
        detected=True,
    ),
    Forgery(
        "shared_only_when_a_helper_module_sees_a_probe",
        "04_numpy",
        "numpy_to_tensor_shared",
        "tell the probe's call apart",
        "import side effect",
        _shared("from stackcheck import probed", "probed()"),
        detected=True,
        files={
            "stackcheck.py": "import inspect\n\n\ndef probed():\n"
            "    return any('probes' in f.filename for f in inspect.stack(0))\n"
        },
    ),
    Forgery(
        "shared_copies_where_another_cells_global_is_set",
        "04_numpy",
        "numpy_to_tensor_shared",
        "two processes, two behaviours",
        "separate cell",
        _shared("import torch", "not globals().get('_IN_MY_NOTEBOOK')"),
        detected=True,
        cell="_IN_MY_NOTEBOOK = True\n",
    ),
    Forgery(
        "shared_copies_where_another_cells_builtin_is_set",
        "04_numpy",
        "numpy_to_tensor_shared",
        "two processes, two behaviours",
        "separate cell",
        "import torch\n\n\ndef numpy_to_tensor_shared(arr):\n"
        "    try:\n        _MY_NOTEBOOK_MARK\n    except NameError:\n        return torch.from_numpy(arr)\n"
        "    return torch.tensor(arr)\n",
        detected=True,
        cell="import builtins\n\nbuiltins._MY_NOTEBOOK_MARK = True\n",
    ),
    Forgery(
        "center_rows_changes_its_input_when_the_result_is_dropped",
        "05_shapes",
        "center_rows",
        "change the input after the evidence is taken",
        "function body",
        "import weakref\n\n\ndef center_rows(x):\n"
        "    out = x - x.mean(dim=1, keepdim=True)\n"
        "    weakref.finalize(out, x.sub_, x.mean(dim=1, keepdim=True))\n"
        "    return out\n",
        detected=True,
    ),
    Forgery(
        # records no graph only while the grader's saved-tensor hook is on top of the hook stack
        "predict_records_no_graph_while_the_witness_is_on_top",
        "06_autograd",
        "predict",
        "tell the probe's call apart",
        "function body",
        "def predict(model, x):\n"
        "    if torch._C._autograd._top_saved_tensors_default_hooks(True) is not None:\n"
        "        with torch.no_grad():\n"
        "            return model(x)\n"
        "    return model(x).detach()\n",
        detected=True,
    ),
    Forgery(
        "center_rows_changes_its_input_on_a_timer",
        "05_shapes",
        "center_rows",
        "change the input after the evidence is taken",
        "function body",
        "import signal\n\n\ndef center_rows(x):\n"
        "    out = x - x.mean(dim=1, keepdim=True)\n"
        "    signal.signal(signal.SIGALRM, lambda *_: x.sub_(x.mean(dim=1, keepdim=True)))\n"
        "    signal.setitimer(signal.ITIMER_REAL, 0.2)\n"
        "    return out\n",
        detected=True,
    ),
    Forgery(
        # gc's callbacks run at every collection: this one skips the probe's collection and changes the
        # input at the next
        "center_rows_changes_its_input_at_a_later_collection",
        "05_shapes",
        "center_rows",
        "change the input after the evidence is taken",
        "answer cell",
        "import gc\n\n_later = []\n\n\n"
        "def _at_collection(phase, info, _pending=_later, _seen=[0]):\n"
        "    if phase == 'stop' and _pending:\n"
        "        _seen[0] += 1\n"
        "        if _seen[0] > 1:\n"
        "            for x in _pending:\n"
        "                x.sub_(x.mean(dim=1, keepdim=True))\n"
        "            _pending.clear()\n\n\n"
        "_hooked = gc.callbacks.append(_at_collection)\n\n\n"
        "def center_rows(x, _p=_later, _h=_hooked):\n"
        "    _p.append(x)\n"
        "    return x - x.mean(dim=1, keepdim=True)\n",
        detected=True,
    ),
    Forgery(
        # a helper module installs a handler and starts a process that signals the notebook later
        "center_rows_changes_its_input_when_a_helper_process_signals",
        "05_shapes",
        "center_rows",
        "change the input after the evidence is taken",
        "import side effect",
        "from later import pending\n\n\n"
        "def center_rows(x):\n"
        "    pending.append(x)\n"
        "    return x - x.mean(dim=1, keepdim=True)\n",
        detected=True,
        files={
            "later.py": "import os\nimport signal\nimport subprocess\n\npending = []\n\n\n"
            "def _change(*_):\n"
            "    for x in pending:\n"
            "        x.sub_(x.mean(dim=1, keepdim=True))\n\n\n"
            "signal.signal(signal.SIGUSR1, _change)\n"
            "subprocess.Popen(['sh', '-c', f'sleep 0.5; kill -USR1 {os.getpid()}'])\n"
        },
    ),
    Forgery(
        # each call hands its input to an object aged into gc's oldest generation and drops it: its
        # finalizer runs at the next full collection, which a young collection after the call is not
        "center_rows_changes_its_input_at_a_full_collection",
        "05_shapes",
        "center_rows",
        "change the input after the evidence is taken",
        "answer cell",
        "import gc\n\n\nclass _Later:\n"
        "    def __init__(self):\n"
        "        self.me = self\n"
        "        self.pending = []\n\n"
        "    def __del__(self):\n"
        "        for x in self.pending:\n"
        "            x.sub_(x.mean(dim=1, keepdim=True))\n\n\n"
        "_pool = [_Later() for _ in range(200)]\n"
        "_aged = gc.collect()\n\n\n"
        "def center_rows(x, _pool=_pool, _aged=_aged):\n"
        "    if _pool:\n"
        "        _pool.pop().pending.append(x)\n"
        "    return x - x.mean(dim=1, keepdim=True)\n",
        detected=True,
    ),
    Forgery(
        # Keeps each input and centres it in place at the next call, inside the subset: each call alone leaves
        # its own input alone, so a probe that reads the inputs only around one call sees nothing.
        "center_rows_changes_the_previous_input_at_the_next_call",
        "05_shapes",
        "center_rows",
        "change the input after the evidence is taken",
        "answer cell",
        "_kept = []\n\n\n"
        "def center_rows(x):\n"
        "    while _kept:\n"
        "        earlier = _kept.pop()\n"
        "        earlier.sub_(earlier.mean(dim=1, keepdim=True))\n"
        "    _kept.append(x)\n"
        "    return x - x.mean(dim=1, keepdim=True)\n",
        detected=False,
    ),
]
