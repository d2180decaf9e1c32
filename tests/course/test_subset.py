"""The measured subset (`course.subset`): what it refuses, what honest answers need, and the kernel's message.

The allow-lists were taken from the course's solutions, every answer of `tests/corpus/` and the honest
idioms: each of them must stay inside. Each refusal below is a route a red team used (or the plain form
of one) to reach the grader's instruments from measured code.
"""

from __future__ import annotations

import linecache
import runpy

import nbformat
import pytest

from course import subset
from course.checks import CheckFailed
from tests.conftest import ROOT, lessons

# What the lessons' own cells import before any answer: an answer checked alone is read with them.
LESSON_IMPORTS = (
    "import torch\nimport numpy as np\nfrom torch import nn\nimport torch.nn.functional as F\n"
    "from torch.utils.data import DataLoader, Dataset, TensorDataset\n"
)

REFUSED = {
    "array interface": (
        "class Window:\n    __array_interface__ = {'data': (0, False), 'shape': (8,), 'typestr': '|u1', 'version': 3}\n",
        "`__array_interface__`",
    ),
    "array interface set by name": ("setattr(box, '__array_interface__', spec)\n", "`__array_interface__`"),
    "dict property": (
        "class Model(nn.Module):\n    @property\n    def __dict__(self):\n        return {}\n",
        "`__dict__`",
    ),
    "torch function": (
        "class Spy:\n    def __torch_function__(self, func, types, args=(), kwargs=None):\n        pass\n",
        "`__torch_function__`",
    ),
    "function mode": ("from torch.overrides import TorchFunctionMode\n", "torch.overrides"),
    "function mode by attribute": ("mode = torch.overrides.TorchFunctionMode\n", "`overrides`"),
    "torch._C": ("stack = torch._C._get_function_stack_at(0)\n", "`_C`"),
    "tensor subclass": (
        "class Clean(torch.Tensor):\n    def as_subclass(self, cls):\n        return self\n",
        "`torch.Tensor`",
    ),
    "tensor subclass imported": ("from torch import Tensor\n\nclass Clean(Tensor):\n    pass\n", "`Tensor`"),
    "tensor subclass by alias": ("T = torch.Tensor\n\nclass Clean(T):\n    pass\n", "`T`"),
    "parameter subclass": ("class P(nn.Parameter):\n    pass\n", "`nn.Parameter`"),
    "computed base": ("class Clean(type(x)):\n    pass\n", "base class"),
    "metaclass": ("class Meta(type):\n    pass\n\nclass A(metaclass=Meta):\n    pass\n", "metaclass"),
    "three-argument type": ("Window = type('Window', (), {})\n", "`type` with three arguments"),
    "computed getattr": ("name = 'x'\nvalue = getattr(obj, name)\n", "computed name"),
    "getattr as a value": ("pick = getattr\n", "`getattr` passed as a value"),
    "format reads an attribute": ("text = '{0.__class__}'.format(x)\n", "field that reads an attribute"),
    "format of a made text": ("template = '{' + '}'\ntext = template.format(x)\n", "made at run time"),
    "globals": ("table = globals()\n", "`globals`"),
    "vars": ("table = vars(model)\n", "`vars`"),
    "eval": ("y = eval('1 + 1')\n", "`eval`"),
    "exec": ("exec('x = 1')\n", "`exec`"),
    "compile builtin": ("code = compile('1', 'f', 'eval')\n", "`compile`"),
    "__import__": ("os = __import__('os')\n", "`__import__`"),
    "open": ("data = open('/etc/passwd').read()\n", "`open`"),
    "memoryview": ("view = memoryview(b'abc')\n", "`memoryview`"),
    "ctypes import": ("import ctypes\n", "`import ctypes`"),
    "numpy ctypes": ("address = arr.ctypes.data\n", "`ctypes`"),
    "ctypeslib": ("arr = np.ctypeslib.as_array(pointer, (8,))\n", "`ctypeslib`"),
    "as_strided over memory": ("from numpy.lib.stride_tricks import as_strided\n", "as_strided"),
    "stride_tricks as a module alias": (
        "import numpy.lib.stride_tricks as tricks\nview = tricks.as_strided(arr, (8,), (0,))\n",
        "`numpy.lib.stride_tricks.as_strided`",
    ),
    "stride_tricks attribute": ("view = np.lib.stride_tricks.as_strided(arr, (8,), (0,))\n", "`stride_tricks`"),
    "pickle": ("import pickle\n", "copy.deepcopy"),
    "marshal": ("import marshal\n", "`import marshal`"),
    "sys": ("import sys\nhook = sys.settrace\n", "`sys.settrace`"),
    "gc": ("import gc\nobjects = gc.get_objects()\n", "`gc.get_objects`"),
    "library patched": ("np.copy = lambda a: a\n", "a change of `np.copy`"),
    "library class patched": ("setattr(torch.Tensor, 'sub_', f)\n", "a change of `torch.Tensor.sub_`"),
    "generator frame": ("caller = gen.gi_frame.f_back\n", "`gi_frame`"),
    "hook stack": ("with torch.autograd.graph.saved_tensors_hooks(f, g):\n    pass\n", "`saved_tensors_hooks`"),
    "inspect": ("import inspect\n", "`import inspect`"),
    "threading": ("import threading\n", "`import threading`"),
    "course probes": ("from course.probes import core\n", "course.probes"),
    "torch.library": ("lib = torch.library.Library('aten', 'IMPL')\n", "`library`"),
    "custom op": ("from torch.library import custom_op\n", "library"),
    "torch.jit": ("scripted = torch.jit.script(f)\n", "`jit`"),
    "torch.compile": ("fast = torch.compile(f)\n", "`compile`"),
    "unpickling load": ("state = torch.load(buffer, weights_only=False)\n", "`weights_only=`"),
    "unpickling load by name": ("flag = False\nstate = torch.load(buffer, weights_only=flag)\n", "`weights_only=`"),
    "numpy unpickling": ("arr = np.load(path, allow_pickle=True)\n", "`allow_pickle=`"),
    "private attribute": ("count = x._version\n", "`_version`"),
    "class of an input changed": ("x.__class__ = Fake\n", "`__class__`"),
    "special name defined": ("def __getattr__(name):\n    return 1\n", "`__getattr__`"),
    "builtins": ("__builtins__['len'] = f\n", "`__builtins__`"),
    "logging record from data": ("import logging\nrecord = logging.makeLogRecord(fields)\n", "`logging.makeLogRecord`"),
    "private keyword": ("thing = Thing(**{'__array_interface__': spec})\n", "`__array_interface__`"),
    "relative import": ("from . import helper\n", "relative import"),
    "star import": ("from math import *\n", "star import"),
    "kernel shell": ("get_ipython().run_line_magic('timeit', 'f()')\n", "`get_ipython`"),
}

ACCEPTED = {
    "module class": "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(2, 2)\n\n    def forward(self, x):\n        return self.fc(x)\n",
    "dataset class": "class Pairs(Dataset):\n    def __len__(self):\n        return 3\n\n    def __getitem__(self, i):\n        return i, i\n",
    "own base class": "class Base:\n    pass\n\nclass Child(Base):\n    pass\n",
    "autograd function": "class Clip(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n        return x.clamp(0, 1)\n\n    @staticmethod\n    def backward(ctx, g):\n        return g\n",
    "getattr with a constant": "size = getattr(model, 'in_features', 3)\n",
    "a function's name": "import logging\nlogging.getLogger('hw').warning('calling %s', f.__name__)\n",
    "wraps": "import functools\n\ndef logged(f):\n    @functools.wraps(f)\n    def g(*a):\n        return f(*a)\n    return g\n",
    "safe load": "state = torch.load(buffer, weights_only=True)\nstate = torch.load(buffer)\n",
    "sliding windows": "from numpy.lib.stride_tricks import sliding_window_view\nw = np.lib.stride_tricks.sliding_window_view(a, 3)\n",
    "pytree": "from torch.utils._pytree import tree_map\n",
    "environment": "import os\nos.environ['CUBLAS_WORKSPACE_CONFIG'] = ':4096:8'\n",
    "a parameter named input": "def forward(self, input):\n    return input * 2\n",
    "a local named id": "def f(rows):\n    id = rows[0]\n    return id\n",
    "id of parameters": "def f(model, last):\n    keep = {id(p) for p in last.parameters()}\n    return [p for p in model.parameters() if id(p) in keep]\n",
    "plain format": "text = '{} of {:.2f}'.format(a, b)\nother = f'{x.shape}'\n",
    "no_grad decorator": "@torch.no_grad()\ndef predict(model, x):\n    return model(x).argmax(1)\n",
    "version read": "print(torch.__version__)\n",
    "dataclass": "from dataclasses import dataclass\n\n@dataclass\nclass Box:\n    x: int\n\n    def __post_init__(self):\n        self.x += 1\n",
    "printing to stderr": "import sys\nprint('converting', file=sys.stderr)\nsys.stdout.write('done')\n",
    "tqdm": "from tqdm.auto import tqdm\nfor _ in tqdm(range(3)):\n    pass\n",
}


@pytest.mark.parametrize("name", REFUSED)
def test_each_way_out_is_refused_and_named(name):
    code, named = REFUSED[name]
    found = subset.outside_subset(LESSON_IMPORTS + code)
    assert found, f"{name} was let through"
    assert any(named in str(c) for c in found), [str(c) for c in found]
    assert all(c.line > LESSON_IMPORTS.count("\n") for c in found), "the lesson's imports are in the subset"


@pytest.mark.parametrize("name", ACCEPTED)
def test_honest_constructs_are_inside(name):
    assert subset.outside_subset(LESSON_IMPORTS + ACCEPTED[name]) == []


def _answers() -> list[tuple[str, str]]:
    found = []
    for path in sorted((ROOT / "tests" / "corpus").glob("[0-9]*.py")):
        for item, kinds in runpy.run_path(str(path))["ITEMS"].items():
            for j, code in enumerate(kinds.get("right", [])):
                found.append((f"{path.stem}:{item}:right{j}", code))
    return found


@pytest.mark.parametrize("label,code", _answers(), ids=[label for label, _ in _answers()])
def test_every_right_answer_of_the_corpus_is_inside(label, code):
    assert subset.outside_subset(LESSON_IMPORTS + code) == []


@pytest.mark.parametrize("lesson", lessons())
def test_every_solution_is_inside(lesson):
    nb = nbformat.read(ROOT / "source" / lesson / f"{lesson}.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("solution"):
            assert subset.outside_subset(LESSON_IMPORTS + cell.source) == [], cell.source


def _cell_function(source: str, name: str, filename: str):
    """A function defined as a notebook kernel defines it: its code named after the kernel's cell file."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    space = {"torch": __import__("torch")}
    exec(compile(source, filename, "exec"), space)
    return space[name]


def test_the_kernel_names_the_construct_before_a_probe_runs():
    import torch

    from course.probes.core import call_watching_inputs

    outside = _cell_function(
        "import pickle\n\ndef center_rows(x):\n    return pickle.loads(pickle.dumps(x)) - x.mean(dim=1, keepdim=True)\n",
        "center_rows",
        "/tmp/ipykernel_1/101.py",
    )
    with pytest.raises(CheckFailed) as raised:
        call_watching_inputs(outside, torch.ones(2, 3))
    message = str(raised.value)
    assert "`import pickle`" in message and "center_rows" in message and "by hand" in message
    inside = _cell_function(
        "def center_rows(x):\n    return x - x.mean(dim=1, keepdim=True)\n", "center_rows", "/tmp/ipykernel_1/102.py"
    )
    result, _ = call_watching_inputs(inside, torch.ones(2, 3))
    assert torch.equal(result, torch.zeros(2, 3))


def test_code_outside_a_notebook_is_not_read():
    """Test files and installed modules are not notebook cells: only a cell's code is checked in the kernel."""
    import torch

    from course.probes.core import call_watching_inputs

    outside = _cell_function(
        "import pickle\n\ndef center_rows(x):\n    return x - x.mean(dim=1, keepdim=True)\n",
        "center_rows",
        "/tmp/helper.py",
    )
    result, _ = call_watching_inputs(outside, torch.ones(2, 3))
    assert torch.equal(result, torch.zeros(2, 3))
