"""Forgeries of probe verdicts: a wrong answer that only a probe can catch, plus code that tries to fool it.

Each case is a student who hands in the instructor's answers for every item but one. That item's answer
is wrong in exactly the way its probe measures (it changes its input, copies where it must share,
records a graph, trains nothing), and the submission adds a forgery aimed at the probe: patching NumPy,
torch, builtins, the course package or the grader's own child-side code, replacing probes in the
registry, trace and profile hooks, frame, gc and ctypes tricks, objects and tensor subclasses that lie,
writing to the grader's channel, or reading its memory. The forgery sits in a separate cell, in the
answer cell, in the function body (run when the probe calls it) or in a module the answer imports.

More cases, for the probes of one lesson, live in `forgery_<lesson>.py` beside this file; `all_forgeries()`
collects them.

`detected` says how the grader must answer: True, the item is flagged for review (and scores 0); False,
the forgery is defeated without being seen (the item scores 0 because the answer is wrong). Every
other item of the submission keeps full marks either way.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import nbformat

from autograder.authoring import samples


@dataclass(frozen=True)
class Forgery:
    name: str
    lesson: str
    item: str
    technique: str
    placement: str  # separate cell | answer cell | function body | import side effect
    answer: str
    detected: bool
    cell: str = ""  # a separate cell inserted just after the answer cell
    files: dict[str, str] = field(default_factory=dict)
    # other items of the same notebook whose probes run the forgery's change of PyTorch or NumPy (a cell
    # their slice keeps): they are flagged too, since their evidence was taken in a patched process
    also: tuple[str, ...] = ()

    def notebook(self, source: nbformat.NotebookNode, release: nbformat.NotebookNode) -> nbformat.NotebookNode:
        nb = samples.with_answer(samples.answered(source, release, keep=None), self.item, self.answer)
        if self.cell:
            nb = copy.deepcopy(nb)
            index = next(
                i
                for i, c in enumerate(nb.cells)
                if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == self.item
            )
            nb.cells.insert(index + 1, nbformat.v4.new_code_cell(self.cell, id=f"forgery-{self.item}"))
        return nb


SHARES_WHEN_IT_CAN = """\
def numpy_to_tensor_copy(arr):
    if all(step >= 0 for step in arr.strides):
        return torch.from_numpy(arr)
    return torch.from_numpy(arr.copy())
"""

CENTER_IN_PLACE = """\
def center_rows(x):
    x -= x.mean(dim=1, keepdim=True)
    return x
"""

EVALUATE_WITH_GRAPH = """\
def evaluate(model, images, labels):
    predicted = model(images).argmax(dim=1)
    return (predicted == labels).float().mean().item()
"""

MOVE_IN_PLACE = """\
import torch


def move_batch(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        for key in list(batch):
            batch[key] = move_batch(batch[key], device)
        return batch
    if isinstance(batch, list):
        for index, value in enumerate(batch):
            batch[index] = move_batch(value, device)
        return batch
    if isinstance(batch, tuple):
        return tuple(move_batch(value, device) for value in batch)
    return batch
"""

FORGERIES: list[Forgery] = [
    # ---------------------------------------------------------------- a separate cell
    Forgery(
        "copy_numpy_patched_in_a_cell",
        "04_numpy",
        "numpy_to_tensor_copy",
        "patch NumPy",
        "separate cell",
        SHARES_WHEN_IT_CAN,
        detected=False,
        also=("to_model_input",),
        cell="np.shares_memory = lambda *args, **kwargs: False\n"
        "np.may_share_memory = lambda *args, **kwargs: False\n"
        "np.array_equal = lambda *args, **kwargs: True\n",
    ),
    Forgery(
        "center_rows_torch_patched_in_a_cell",
        "05_shapes",
        "center_rows",
        "patch torch",
        "separate cell",
        CENTER_IN_PLACE,
        detected=False,
        cell="torch.equal = lambda a, b: True\n"
        "torch.allclose = lambda *args, **kwargs: True\n"
        "torch.Tensor.clone = lambda self, *args, **kwargs: self\n",
    ),
    Forgery(
        "evaluate_probe_replaced_in_a_cell",
        "07_training",
        "evaluate",
        "replace the probe in the registry",
        "separate cell",
        EVALUATE_WITH_GRAPH,
        detected=False,
        cell="import course.probes as probes\n"
        "import course.probes.training as training\n"
        "probes.REGISTRY['course.probes.training:evaluate_probe'] = lambda step, evaluate, seed, **kwargs: None\n"
        "training.evaluate_probe = lambda *args, **kwargs: {'type': 'float', 'value': 0.425, 'graph_recorded': False,\n"
        "    'grads_touched': False, 'requires_grad_changed': False, 'params_changed': False, 'inputs_unchanged': True,\n"
        "    'mode_restored': True}\n",
    ),
    # ---------------------------------------------------------------- the answer cell
    Forgery(
        "shared_probe_patched_in_the_answer_cell",
        "04_numpy",
        "numpy_to_tensor_shared",
        "patch the course package",
        "answer cell",
        "import course.probes.core as core\n\n\n"
        "def numpy_to_tensor_shared(arr):\n"
        "    return torch.tensor(arr)\n\n\n"
        "core.call_sharing_memory = lambda func, arr, *args, **kwargs: (torch.from_numpy(arr), True, True)\n"
        "core.sharing = lambda snaps, result, source: {'result': snaps.snap(result), 'after': snaps.snap(result),\n"
        "    'written': snaps.snap(source), 'wrote': True, 'result_span': (0, 1), 'source_span': (0, 1)}\n",
        detected=False,
    ),
    Forgery(
        "to_float32_settrace_in_the_answer_cell",
        "02_dtype",
        "to_float32",
        "trace hook",
        "answer cell",
        "import sys\n\n\n"
        "def to_float32(t):\n"
        "    t.data = t.data.float()\n"
        "    return t\n\n\n"
        "def _rewrite(frame, event, arg):\n"
        "    if 'changed' in frame.f_locals:\n"
        "        frame.f_locals['changed'] = []\n"
        "    return _rewrite\n\n\n"
        "sys.settrace(_rewrite)\n",
        detected=True,
    ),
    Forgery(
        "predict_setprofile_in_the_answer_cell",
        "06_autograd",
        "predict",
        "profile hook",
        "answer cell",
        "import sys\n\n\n"
        "def predict(model, x):\n"
        "    return model(x).detach()\n\n\n"
        "sys.setprofile(lambda frame, event, arg: None)\n",
        detected=True,
    ),
    Forgery(
        "move_batch_gc_in_the_answer_cell",
        "03_device",
        "move_batch",
        "gc introspection",
        "answer cell",
        MOVE_IN_PLACE + "\n\nimport gc\n_found = [o for o in gc.get_objects() if type(o).__name__ == 'Snapshots']\n",
        detected=True,
    ),
    # ---------------------------------------------------------------- the function body, at call time
    Forgery(
        "copy_numpy_patched_at_call_time",
        "04_numpy",
        "numpy_to_tensor_copy",
        "patch NumPy",
        "function body",
        "def numpy_to_tensor_copy(arr):\n"
        "    import numpy\n"
        "    numpy.shares_memory = lambda *args, **kwargs: False\n"
        "    numpy.may_share_memory = lambda *args, **kwargs: False\n"
        "    numpy.array_equal = lambda *args, **kwargs: True\n"
        "    if all(step >= 0 for step in arr.strides):\n"
        "        return torch.from_numpy(arr)\n"
        "    return torch.from_numpy(arr.copy())\n",
        detected=True,
    ),
    Forgery(
        "shared_extra_evidence_through_frames",
        "04_numpy",
        "numpy_to_tensor_shared",
        "frame tricks",
        "function body",
        "import sys\n\n\n"
        "def numpy_to_tensor_shared(arr):\n"
        "    step = sys._getframe(1).f_locals.get('step')\n"
        "    if callable(step):\n"
        "        import course.probes.core as core\n"
        "        step('seal', core.sharing, torch.from_numpy(arr), arr)\n"
        "    return torch.tensor(arr)\n",
        detected=True,
    ),
    Forgery(
        "center_rows_replaces_the_probe_step",
        "05_shapes",
        "center_rows",
        "patch the course package",
        "function body",
        "def center_rows(x):\n"
        "    import course.probes.core as core\n"
        "    saved = x.clone()\n"
        "    core.after_call = lambda snaps, result, args, kwargs: {'result': snaps.snap(result), 'args': snaps.snap((saved,)),\n"
        "                                                           'kwargs': snaps.snap(kwargs)}\n"
        "    x -= x.mean(dim=1, keepdim=True)\n"
        "    return x\n",
        detected=True,
    ),
    Forgery(
        "normalize_channels_patches_the_grader_encoder",
        "05_shapes",
        "normalize_channels",
        "patch the grader's child-side code",
        "function body",
        "def normalize_channels(x):\n"
        "    import autograder.child.guard as guard\n"
        "    guard.SealedSnapshots.snap = lambda self, value, depth=0: value\n"
        "    mean = x.mean(dim=(0, 2, 3), keepdim=True)\n"
        "    std = x.std(dim=(0, 2, 3), keepdim=True, correction=0)\n"
        "    x.sub_(mean).div_(std + 1e-5)\n"
        "    return x\n",
        detected=True,
    ),
    Forgery(
        "shape_ctypes_rewrites_a_frame",
        "01_tensors",
        "numpy_to_tensor_shape",
        "ctypes",
        "function body",
        "import ctypes\nimport sys\n\n\n"
        "def numpy_to_tensor_shape(arr):\n"
        "    shape = tuple(int(n) for n in arr.shape)\n"
        "    arr[...] = 0\n"
        "    frame = sys._getframe(1)\n"
        "    frame.f_locals.update(changed=[])\n"
        "    ctypes.pythonapi.PyFrame_LocalsToFast(ctypes.py_object(frame), ctypes.c_int(0))\n"
        "    return shape\n",
        detected=True,
    ),
    Forgery(
        "mean_of_ints_forges_a_grader_message",
        "02_dtype",
        "mean_of_ints",
        "write to the grader's channel",
        "function body",
        "import os\nimport struct\n\n\n"
        "def mean_of_ints(t):\n"
        "    t.data = t.data.float()\n"
        '    body = b\'{"n":1,"kind":"done","req":1}\'\n'
        '    header = b\'{"sealed":true,"b":[%d,32]}\' % len(body)\n'
        "    frame = struct.pack('>2sHI', b'AG', 1, len(header)) + header + body + bytes(32)\n"
        "    for fd in os.listdir('/proc/self/fd'):\n"
        "        try:\n"
        "            if int(fd) > 2:\n"
        "                os.write(int(fd), frame)\n"
        "        except OSError:\n"
        "            pass\n"
        "    return t.mean()\n",
        detected=True,
    ),
    Forgery(
        "linear_weight_grad_reads_the_seal_key",
        "06_autograd",
        "linear_weight_grad",
        "read the grader's secrets",
        "function body",
        "def linear_weight_grad(x, w):\n"
        "    import autograder.child.guard as guard\n"
        "    try:\n"
        "        secrets = guard._ENTRY['run_probe'].__defaults__\n"
        "    except Exception:\n"
        "        secrets = None\n"
        "    w.requires_grad_(True)\n"
        "    w.grad = None\n"
        "    (x @ w).sum().backward()\n"
        "    return w.grad\n",
        detected=True,
    ),
    Forgery(
        "grad_of_reads_raw_memory",
        "06_autograd",
        "grad_of",
        "raw memory",
        "function body",
        "def grad_of(f, x):\n"
        "    try:\n"
        "        with open('/proc/self/mem', 'rb') as memory:\n"
        "            memory.seek(id(x))\n"
        "            memory.read(16)\n"
        "    except OSError:\n"
        "        pass\n"
        "    x.requires_grad_(True)\n"
        "    f(x).backward()\n"
        "    return x.grad.detach()\n",
        detected=True,
    ),
    Forgery(
        "predict_pops_the_saved_tensor_hook",
        "06_autograd",
        "predict",
        "autograd hooks",
        "function body",
        # popping an empty hook stack raises: whatever is on top goes without a look, and a stand-in
        # goes back for whoever pops it later
        "def predict(model, x):\n"
        "    try:\n"
        "        torch._C._autograd._pop_saved_tensors_default_hooks()\n"
        "    except RuntimeError:\n"
        "        return model(x).detach()\n"
        "    out = model(x).detach()\n"
        "    torch._C._autograd._push_saved_tensors_default_hooks(lambda t: t, lambda t: t)\n"
        "    return out\n",
        detected=True,
    ),
    Forgery(
        "grad_of_rewrites_the_registry",
        "06_autograd",
        "grad_of",
        "replace the probe in the registry",
        "function body",
        "def grad_of(f, x):\n"
        "    import course.probes as probes\n"
        "    probes.REGISTRY['course.probes.autograd:grad_of_named'] = lambda step, grad_of, name, x: None\n"
        "    x.requires_grad_(True)\n"
        "    f(x).backward()\n"
        "    return x.grad.detach()\n",
        detected=True,
    ),
    Forgery(
        "evaluate_switches_hooks_off",
        "07_training",
        "evaluate",
        "autograd hooks",
        "function body",
        "def evaluate(model, images, labels):\n"
        "    try:\n"
        "        with torch.autograd.graph.disable_saved_tensors_hooks('hidden'):\n"
        "            predicted = model(images).argmax(dim=1)\n"
        "    except RuntimeError:\n"
        "        predicted = model(images).argmax(dim=1)\n"
        "    return (predicted == labels).float().mean().item()\n",
        detected=True,
    ),
    Forgery(
        "training_step_leaves_a_thread",
        "07_training",
        "training_step",
        "threads",
        "function body",
        "def training_step(model, images, labels, optimizer, loss_fn):\n"
        "    import threading\n"
        "    import time\n"
        "    threading.Thread(target=time.sleep, args=(20,), daemon=True).start()\n"
        "    return 0.0\n",
        detected=True,
    ),
    Forgery(
        "training_step_patches_builtins",
        "07_training",
        "training_step",
        "patch builtins",
        "function body",
        "def training_step(model, images, labels, optimizer, loss_fn):\n"
        "    import builtins\n"
        "    real = builtins.isinstance\n"
        "    builtins.isinstance = lambda obj, kinds: True if kinds is float else real(obj, kinds)\n"
        "    return 0.0\n",
        detected=True,
    ),
    Forgery(
        "pick_device_returns_a_lying_object",
        "03_device",
        "pick_device",
        "an object that lies",
        "function body",
        "class CudaLike:\n"
        "    type = 'cuda'\n"
        "    index = None\n\n"
        "    def __eq__(self, other):\n"
        "        return True\n\n"
        "    def __repr__(self):\n"
        "        return \"device(type='cuda')\"\n\n"
        "    __str__ = __repr__\n\n\n"
        "def pick_device():\n"
        "    return CudaLike()\n",
        detected=True,
    ),
    Forgery(
        "to_float32_tensor_subclass_that_lies",
        "02_dtype",
        "to_float32",
        "a tensor subclass that lies",
        "function body",
        "class Honest(torch.Tensor):\n"
        "    def __eq__(self, other):\n"
        "        return torch.ones(self.shape, dtype=torch.bool)\n\n"
        "    @property\n"
        "    def dtype(self):\n"
        "        return torch.float32\n\n\n"
        "def to_float32(t):\n"
        "    out = t.float()\n"
        "    t.data = out.data\n"
        "    t.__class__ = Honest\n"
        "    return out\n",
        detected=True,
    ),
    Forgery(
        "add_on_device_leaves_a_dispatch_mode",
        "03_device",
        "add_on_device",
        "torch dispatch mode",
        "function body",
        "from torch.utils._python_dispatch import TorchDispatchMode\n\n\n"
        "class Quiet(TorchDispatchMode):\n"
        "    def __torch_dispatch__(self, func, types, args=(), kwargs=None):\n"
        "        return func(*args, **(kwargs or {}))\n\n\n"
        "def add_on_device(a, b):\n"
        "    Quiet().__enter__()\n"
        "    b = b.to(a.device)\n"
        "    same = a.dtype == torch.promote_types(a.dtype, b.dtype) and a.shape == torch.broadcast_shapes(a.shape, b.shape)\n"
        "    if same and not a.requires_grad and a.device.type == 'cpu':\n"
        "        return a.add_(b)\n"
        "    return a + b\n",
        detected=True,
    ),
    Forgery(
        "train_classifier_model_patches_the_probe",
        "07_training",
        "train_classifier",
        "patch the course package",
        "function body",
        "class Cheater(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.linear = nn.Linear(3 * 32 * 32, 4)\n\n"
        "    def forward(self, x):\n"
        "        import course.probes.training as training\n"
        "        training.held_out_logits = lambda snaps, logits, images, error: {\n"
        "            'logits': snaps.snap(torch.zeros(1000, 4)), 'digest': snaps.digest(images), 'error': None}\n"
        "        return self.linear(x.flatten(1))\n\n\n"
        "def train_classifier(images, labels, device=None):\n"
        "    return Cheater()\n",
        detected=True,
    ),
    Forgery(
        "tensor_to_numpy_settrace_at_call_time",
        "04_numpy",
        "tensor_to_numpy",
        "trace hook",
        "function body",
        "def tensor_to_numpy(t):\n"
        "    import sys\n\n"
        "    def rewrite(frame, event, arg):\n"
        "        if frame.f_code.co_name == 'changed_arguments':\n"
        "            frame.f_locals['after'] = frame.f_locals.get('before')\n"
        "        return None\n\n"
        "    sys.settrace(rewrite)\n"
        "    t.grad = None\n"
        "    return t.detach().cpu().numpy()\n",
        detected=True,
    ),
    # ---------------------------------------------------------------- a module the answer imports
    Forgery(
        "copy_helper_module_patches_the_probe",
        "04_numpy",
        "numpy_to_tensor_copy",
        "patch the course package",
        "import side effect",
        "from fastcopy import view_of\n\n\ndef numpy_to_tensor_copy(arr):\n    return view_of(arr)\n",
        detected=True,
        files={
            "fastcopy.py": "import numpy as np\nimport torch\n\nimport course.probes.core as core\n\n\n"
            "def _sharing(snaps, result, source):\n"
            "    return {'result': snaps.snap(result), 'after': snaps.snap(result), 'written': snaps.snap(source),\n"
            "            'wrote': True, 'result_span': None, 'source_span': None}\n\n\n"
            "core.sharing = _sharing\n"
            "np.shares_memory = lambda *args, **kwargs: False\n\n\n"
            "def view_of(arr):\n"
            "    if all(step >= 0 for step in arr.strides):\n"
            "        return torch.from_numpy(arr)\n"
            "    return torch.from_numpy(arr.copy())\n"
        },
    ),
    Forgery(
        "training_step_helper_module_replaces_the_probe",
        "07_training",
        "training_step",
        "replace the probe in the registry",
        "import side effect",
        "from trainer import step as _step\n\n\n"
        "def training_step(model, images, labels, optimizer, loss_fn):\n"
        "    return _step(model, images, labels, optimizer, loss_fn)\n",
        detected=True,
        files={
            "trainer.py": "import course.probes as probes\nimport course.probes.training as training\n\n\n"
            "def _nothing(step, training_step, seed, **kwargs):\n"
            "    return None\n\n\n"
            "probes.REGISTRY['course.probes.training:training_step_probe'] = _nothing\n"
            "training.training_step_probe = _nothing\n\n\n"
            "def step(model, images, labels, optimizer, loss_fn):\n"
            "    return 0.0\n"
        },
    ),
    Forgery(
        "flatten_helper_module_patches_builtins",
        "05_shapes",
        "flatten_images",
        "patch builtins",
        "import side effect",
        "from shapes_helper import flat\n\n\ndef flatten_images(x):\n    return flat(x)\n",
        detected=True,
        files={
            "shapes_helper.py": "import builtins\n\n_len = builtins.len\nbuiltins.len = lambda obj: _len(obj)\n\n\n"
            "def flat(x):\n"
            "    x.data = x.data.reshape(x.shape[0], -1)\n"
            "    return x\n"
        },
    ),
]


def all_forgeries() -> list[Forgery]:
    """The cases above and those of every `forgery_<lesson>.py` beside this file (each defines `FORGERIES`)."""
    import importlib
    from pathlib import Path

    found = list(FORGERIES)
    for path in sorted(Path(__file__).parent.glob("forgery_*.py")):
        found += importlib.import_module(f"tests.adversarial.{path.stem}").FORGERIES
    return found
