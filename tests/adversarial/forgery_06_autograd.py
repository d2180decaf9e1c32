"""Forgeries aimed at lesson 06's probes that run a backward pass (`backward_through`) or read a model's
flags (`freeze_probe`). Each hands in a wrong answer the probe catches, plus code that tries to fool it.

Two more forge `predict_probe`'s witness (a graph recorded under the notebook's own saved-tensor hooks,
or in a thread of its own). `backward_through` runs its backward pass through the C engine bound when the course was imported, so
patching `torch.autograd` changes nothing; `freeze_probe` reads the parameters it built before the call,
through the sealed reader, so a parameter dressed up as another class is reported as what it is.
"""

from __future__ import annotations

from tests.adversarial.forgery import Forgery

SIGN_ONLY = """\
def binarize_straight_through(x):
    return torch.sign(x)
"""

FREEZES_NOTHING = """\
def freeze_all_but_last(model):
    return sum(p.numel() for p in model[-1].parameters())
"""

FORGERIES: list[Forgery] = [
    Forgery(
        "binarize_patches_autograd_at_call_time",
        "06_autograd",
        "binarize_straight_through",
        "patch torch",
        "function body",
        "def binarize_straight_through(x):\n"
        "    import torch.autograd as autograd\n"
        "    import torch.autograd.graph as graph\n\n"
        "    def straight(outputs, inputs, grad_outputs=None, **kwargs):\n"
        "        inputs = inputs if isinstance(inputs, (tuple, list)) else (inputs,)\n"
        "        return tuple(grad_outputs * (i.detach().abs() < 1) for i in inputs)\n\n"
        "    def engine(outputs, grads, keep, create, inputs, *rest, **kwargs):\n"
        "        return tuple(grads[0] * (i.detach().abs() < 1) for i in inputs)\n\n"
        "    autograd.grad = straight\n"
        "    torch.autograd.grad = straight\n"
        "    graph._engine_run_backward = engine\n"
        "    return torch.sign(x)\n",
        detected=True,
    ),
    Forgery(
        "binarize_returns_a_subclass_that_lies",
        "06_autograd",
        "binarize_straight_through",
        "a tensor subclass that lies",
        "function body",
        "class Straight(torch.Tensor):\n"
        "    @classmethod\n"
        "    def __torch_function__(cls, func, types, args=(), kwargs=None):\n"
        "        return super().__torch_function__(func, types, args, kwargs or {})\n\n\n"
        "def binarize_straight_through(x):\n"
        "    return torch.sign(x).as_subclass(Straight)\n",
        detected=True,
    ),
    Forgery(
        "softmax_replaces_the_backward_helper",
        "06_autograd",
        "stable_softmax",
        "patch the course package",
        "function body",
        "def stable_softmax(x):\n"
        "    import course.probes.autograd as probe\n\n"
        "    def clean(out, x, v):\n"
        "        p = torch.softmax(x.detach(), dim=-1)\n"
        "        return p * (v - (p * v).sum(dim=-1, keepdim=True)), None\n\n"
        "    probe._vector_jacobian_product = clean\n"
        "    e = torch.exp(x - x.max(dim=-1, keepdim=True).values)\n"
        "    e /= e.sum(dim=-1, keepdim=True)\n"
        "    return e\n",
        detected=True,
    ),
    Forgery(
        "freeze_replaces_the_sealed_action_in_the_answer_cell",
        "06_autograd",
        "freeze_all_but_last",
        "patch the course package",
        "answer cell",
        FREEZES_NOTHING + "\n\n"
        "import course.probes.autograd as _probe\n\n\n"
        "def _looks_frozen(snaps, output, params, inputs):\n"
        "    shown = [p.detach() for p in params[:-2]] + list(params[-2:])\n"
        "    return {'output': snaps.snap(output), 'params': snaps.snap(shown), 'inputs': snaps.snap(inputs), 'grad_enabled': True}\n\n\n"
        "_probe.model_output = _looks_frozen\n",
        detected=False,  # the probe's child holds only what the item uses, so the patch is not there
    ),
    Forgery(
        "freeze_replaces_the_sealed_action_at_call_time",
        "06_autograd",
        "freeze_all_but_last",
        "patch the course package",
        "function body",
        "def freeze_all_but_last(model):\n"
        "    import course.probes.autograd as probe\n\n"
        "    def looks_frozen(snaps, output, params, inputs):\n"
        "        shown = [p.detach() for p in params[:-2]] + list(params[-2:])\n"
        "        return {'output': snaps.snap(output), 'params': snaps.snap(shown), 'inputs': snaps.snap(inputs),\n"
        "                'grad_enabled': True}\n\n"
        "    probe.model_output = looks_frozen\n"
        "    return sum(p.numel() for p in model[-1].parameters())\n",
        detected=True,
    ),
    Forgery(
        "freeze_dresses_parameters_as_frozen",
        "06_autograd",
        "freeze_all_but_last",
        "a tensor subclass that lies",
        "function body",
        "class LooksFrozen(nn.Parameter):\n"
        "    @property\n"
        "    def requires_grad(self):\n"
        "        return False\n\n\n"
        "def freeze_all_but_last(model):\n"
        "    for layer in list(model)[:-1]:\n"
        "        for p in layer.parameters():\n"
        "            p.__class__ = LooksFrozen\n"
        "    model[-1].requires_grad_(True)\n"
        "    return sum(p.numel() for p in model[-1].parameters())\n",
        detected=True,
    ),
    Forgery(
        "freeze_probe_replaced_in_a_cell",
        "06_autograd",
        "freeze_all_but_last",
        "replace the probe in the registry",
        "separate cell",
        FREEZES_NOTHING,
        detected=False,
        cell="import course.probes as probes\n"
        "import course.probes.autograd as autograd_probes\n\n\n"
        "def _perfect(step, freeze, seed, sizes, **options):\n"
        "    return None\n\n\n"
        "probes.REGISTRY['course.probes.autograd:freeze_probe'] = _perfect\n"
        "autograd_probes.freeze_probe = lambda *args, **kwargs: {'result': 8, 'names': ['0.weight', '0.bias', '2.weight', '2.bias'],\n"
        "    'requires_grad': [False, False, True, True], 'values_changed': False, 'grads_changed': False}\n",
    ),
    Forgery(
        "binarize_helper_module_patches_the_probe",
        "06_autograd",
        "binarize_straight_through",
        "patch the course package",
        "import side effect",
        "from quantize import binarize\n\n\ndef binarize_straight_through(x):\n    return binarize(x)\n",
        detected=True,
        files={
            "quantize.py": "import torch\n\nimport course.probes.autograd as probe\n\n\n"
            "def _through(out, x, v):\n"
            "    return v * (x.detach().abs() < 1), None\n\n\n"
            "probe._vector_jacobian_product = _through\n\n\n"
            "def binarize(x):\n"
            "    return torch.sign(x)\n"
        },
    ),
    Forgery(
        # Records a graph, but under saved-tensor hooks of its own, so the grader's witness sees no tensor saved.
        "predict_shadows_the_saved_tensor_witness",
        "06_autograd",
        "predict",
        "autograd hooks",
        "function body",
        "def predict(model, x):\n"
        "    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):\n"
        "        out = model(x)\n"
        "    return out.detach()\n",
        detected=True,
    ),
    Forgery(
        # Records a graph in a thread joined before the evidence is taken: saved-tensor hooks are per thread.
        "predict_runs_the_forward_in_a_short_thread",
        "06_autograd",
        "predict",
        "threads",
        "function body",
        "import threading\n\n\ndef predict(model, x):\n"
        "    found = []\n"
        "    worker = threading.Thread(target=lambda: found.append(model(x)))\n"
        "    worker.start()\n"
        "    worker.join()\n"
        "    return found[0].detach()\n",
        detected=True,
    ),
    Forgery(
        # Switches gradient recording off for the whole program beside the answer, bound into the
        # function's defaults so that the item's slice keeps it: predict then records no graph without
        # no_grad, and recording is "restored" to off. The probe calls predict as a training loop would.
        "predict_switches_gradients_off_for_the_whole_program",
        "06_autograd",
        "predict",
        "global autograd mode",
        "answer cell",
        "import torch\n\n_off = torch.set_grad_enabled(False)\n\n\n"
        "def predict(model, x, _off=_off):\n"
        "    return model(torch.as_tensor(x))\n",
        detected=False,
    ),
    Forgery(
        # The same with inference mode entered and never left.
        "predict_enters_inference_mode_for_good",
        "06_autograd",
        "predict",
        "global autograd mode",
        "separate cell",
        "import torch\n\n\ndef predict(model, x):\n"
        "    return model(torch.as_tensor(x, device=globals().get('device', x.device)))\n",
        detected=True,
        cell="_inference = torch.inference_mode()\n_inference.__enter__()\n",
    ),
]
