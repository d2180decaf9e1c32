"""Honest idioms: answers a careful student writes that do more than the task needs (a progress bar, a
warning, a log line, a figure, a helper, a decorator). Graded beside the forgeries, each must keep full
marks and never be flagged: the grader's watch over probed calls must not mistake them for tampering.

Each idiom is the instructor's solution with some answer cells replaced or edited. The hand-written ones are on
lesson 07, whose probes watch the most (threads, time, gradients); the wrapped ones put every function
answer of every lesson behind an honest helper (`functools.wraps` with logging, or a plain wrapper
that warns and prints), so every probe of the course sees one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder.authoring import samples

ONE_EPOCH = '''class RunningMean:
    """The mean of the values added so far."""

    def __init__(self):
        self.total, self.count = 0.0, 0

    def add(self, value):
        self.total += value
        self.count += 1

    @property
    def value(self):
        return self.total / self.count


def one_step(model, images, labels, optimizer, loss_fn):
    optimizer.zero_grad()
    loss = loss_fn(model(images), labels)
    loss.backward()
    optimizer.step()
    return loss.item()


def train_one_epoch(model, loader, optimizer, loss_fn):
    """One pass over `loader` in training mode, one update per batch; returns the mean batch loss as a Python float."""
    model.train()
    device = next(model.parameters()).device
    mean = RunningMean()
    for images, labels in loader:
        mean.add(one_step(model, images.to(device), labels.to(device), optimizer, loss_fn))
    return mean.value
'''

WRAPPERS = {
    "logged": """

import functools
import logging


@functools.wraps({first})
def {name}(*args, **kwargs):
    logging.getLogger("homework").warning("calling {name}")
    return {first}(*args, **kwargs)
""",
    "warned": '''

import warnings


def {name}(*args, **kwargs):
    """My first version, with a word about each call."""
    warnings.warn("{name} is called", UserWarning)
    print("calling {name} with", [type(a).__name__ for a in args])
    result = {first}(*args, **kwargs)
    return result
''',
    "timed": """

import time
from dataclasses import dataclass
from typing import Any


@dataclass
class {name}_call:
    seconds: float
    shapes: list


{name}_calls: list = []


def {name}(*args: Any, **kwargs: Any) -> Any:
    started = time.perf_counter()
    result = {first}(*args, **kwargs)
    {name}_calls.append({name}_call(time.perf_counter() - started, [tuple(getattr(a, "shape", ())) for a in args]))
    print(f"{name} took {{{name}_calls[-1].seconds:.4f}} s")
    return result
""",
}


@dataclass(frozen=True)
class Idiom:
    name: str
    lesson: str
    what: str
    answers: dict[str, str] = field(default_factory=dict)  # item -> its whole answer cell
    edits: dict[str, tuple[tuple[str, str], ...]] = field(
        default_factory=dict
    )  # item -> (old, new) in the instructor's answer

    def notebook(self, source: nbformat.NotebookNode, release: nbformat.NotebookNode) -> nbformat.NotebookNode:
        nb = samples.answered(source, release, keep=None)
        for item, code in self.answers.items():
            nb = samples.with_answer(nb, item, code)
        for item, changes in self.edits.items():
            code = next(c.source for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == item)
            for old, new in changes:
                if old not in code:
                    raise ValueError(f"{self.name}: the instructor's answer to {item} no longer holds {old!r}")
                code = code.replace(old, new, 1)
            nb = samples.with_answer(nb, item, code)
        return nb


LOOP = "    for epoch in range(10):\n"
END = "            optimizer.step()\n    return model"


def _train(imports: str = "", epochs: str = "range(10)", report: str = "", finish: str = "") -> dict:
    """Edits of the instructor's train_classifier: lines on top, another epoch loop, a line after each epoch
    and before the return."""
    changes = [
        ("import torch\n", f"{imports}\nimport torch\n" if imports else "import torch\n"),
        (LOOP, f"    for epoch in {epochs}:\n"),
        (
            END,
            "            optimizer.step()\n" + (f"        {report}\n" if report else "") + f"    {finish}return model",
        ),
    ]
    return {"train_classifier": tuple(changes)}


WRITTEN = [
    Idiom(
        "idiom-tqdm",
        "07_training",
        "a tqdm progress bar over the epochs",
        edits=_train("from tqdm import tqdm", "tqdm(range(10), desc='epochs')"),
    ),
    Idiom(
        "idiom-tqdm-auto",
        "07_training",
        "tqdm.auto's bar, as notebooks use it",
        edits=_train("from tqdm.auto import tqdm", "tqdm(range(10))"),
    ),
    Idiom(
        "idiom-tqdm-notebook",
        "07_training",
        "tqdm.notebook's bar",
        edits=_train("from tqdm.notebook import tqdm", "tqdm(range(10), leave=False)"),
    ),
    Idiom(
        "idiom-warn",
        "07_training",
        "warnings.warn once an epoch",
        edits=_train("import warnings", report="warnings.warn(f'epoch {epoch} done')"),
    ),
    Idiom(
        "idiom-logging",
        "07_training",
        "a log line an epoch",
        edits=_train(
            "import logging\nlog = logging.getLogger('training')",
            report="log.warning('epoch %d: loss %.3f', epoch, loss.item())",
        ),
    ),
    Idiom(
        "idiom-print",
        "07_training",
        "printing the loss an epoch",
        edits=_train(report="print(f'epoch {epoch}: loss {loss.item():.3f}')"),
    ),
    Idiom(
        "idiom-matplotlib",
        "07_training",
        "a matplotlib figure drawn in the answer",
        edits=_train("import matplotlib.pyplot as plt", finish="plt.plot([1, 2, 3])\n    plt.close('all')\n    "),
    ),
    Idiom(
        "idiom-no-grad-decorator",
        "07_training",
        "torch.no_grad as a decorator",
        edits={
            "evaluate": (
                ("def evaluate(", "import contextlib\n\n\n@torch.no_grad()\ndef evaluate("),
                ("with torch.no_grad():", "with contextlib.nullcontext():"),
            )
        },
    ),
    Idiom(
        "idiom-inference-mode",
        "07_training",
        "torch.inference_mode instead of no_grad",
        edits={"evaluate": (("with torch.no_grad():", "with torch.inference_mode():"),)},
    ),
    Idiom(
        "idiom-gc-collect",
        "05_shapes",
        "gc.collect() to free memory, in the answer cell and in the function",
        {
            "center_rows": '''import gc

gc.collect()


def center_rows(x):
    """Each row of the 2D tensor x minus that row's mean; x is left unchanged."""
    out = x - x.mean(dim=1, keepdim=True)
    gc.collect()
    return out
'''
        },
    ),
    Idiom(
        "idiom-library-warning",
        "05_shapes",
        "a call PyTorch warns about from its own code (torch.meshgrid without indexing=), inside the probed function",
        {
            "center_rows": '''def center_rows(x):
    """Each row of the 2D tensor x minus that row's mean; x is left unchanged."""
    rows, cols = torch.meshgrid(torch.arange(x.shape[0]), torch.arange(x.shape[1]))
    return x - x.mean(dim=1, keepdim=True) + 0 * rows
'''
        },
    ),
    Idiom(
        "idiom-environment",
        "05_shapes",
        "os.environ set inside the function, as lesson 10 advises for cuBLAS",
        {
            "center_rows": '''import os


def center_rows(x):
    """Each row of the 2D tensor x minus that row's mean; x is left unchanged."""
    os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
    return x - x.mean(dim=1, keepdim=True)
'''
        },
    ),
    Idiom(
        "idiom-pinned-loader",
        "07_training",
        "a DataLoader with pin_memory=True (PyTorch warns from its own code when no accelerator is there)",
        edits={"make_loader": (("num_workers=0)", "num_workers=0, pin_memory=True)"),)},
    ),
    Idiom(
        "idiom-type-hints",
        "01_tensors",
        "postponed annotations and type hints on the answer",
        {
            "tensor_rank": '''from __future__ import annotations

from typing import Union

import torch


def tensor_rank(t: torch.Tensor) -> int:
    """The number of dimensions of `t` as an int (0 for a scalar tensor)."""
    rank: Union[int, None] = t.dim()
    return int(rank)
'''
        },
    ),
    Idiom(
        "idiom-asserts",
        "05_shapes",
        "assert statements that check the input before the work",
        {
            "center_rows": '''def center_rows(x):
    """Each row of the 2D tensor x minus that row's mean; x is left unchanged."""
    assert x.dim() == 2, f"expected a 2D tensor, got shape {tuple(x.shape)}"
    assert x.is_floating_point(), "rows of integers have no mean"
    return x - x.mean(dim=1, keepdim=True)
'''
        },
    ),
    Idiom("idiom-helpers", "07_training", "a helper class and a helper function", {"train_one_epoch": ONE_EPOCH}),
    Idiom(
        "idiom-recursion",
        "01_tensors",
        "a recursive helper over the shape",
        {
            "tensor_rank": '''def count_sizes(sizes):
    return 0 if not sizes else 1 + count_sizes(sizes[1:])


def tensor_rank(t):
    """The number of dimensions of `t` as an int (0 for a scalar tensor)."""
    return count_sizes(tuple(t.shape))
'''
        },
    ),
    Idiom(
        "idiom-lru-cache",
        "01_tensors",
        "functools.lru_cache on a helper",
        {
            "describe": '''import functools


@functools.lru_cache(maxsize=None)
def dtype_name(dtype):
    return str(dtype).removeprefix("torch.")


def describe(t):
    """A dict with exactly the keys "shape", "dtype", "device" and "requires_grad"."""
    return {"shape": tuple(t.shape), "dtype": dtype_name(t.dtype), "device": str(t.device), "requires_grad": t.requires_grad}
'''
        },
    ),
    Idiom(
        "idiom-comprehension",
        "08_indexing",
        "comprehensions and a generator expression",
        {
            "confusion_matrix": '''import torch


def confusion_matrix(predicted, labels, num_classes):
    """(C, C) int64 counts: entry [t, p] is the number of examples with label t and prediction p."""
    pairs = labels * num_classes + predicted
    counts = torch.bincount(pairs, minlength=num_classes * num_classes)
    rows = [counts[t * num_classes:(t + 1) * num_classes] for t in range(num_classes)]
    assert sum(int(r.sum()) for r in rows) == len(labels)
    return torch.stack(rows) if rows else counts.reshape(0, 0)
'''
        },
    ),
    Idiom(
        "idiom-lazy-import",
        "08_indexing",
        "torch.nn.functional imported inside the function",
        {
            "select_by_label": '''def select_by_label(scores, labels):
    """(N,) tensor whose entry i is scores[i, labels[i]]."""
    import torch.nn.functional as F

    picked = F.one_hot(labels, scores.shape[1]).bool()
    return scores[picked]
'''
        },
    ),
]


def wrapped(root: Path, lessons: list[str]) -> list[Idiom]:
    """For each lesson and each wrapper, every function answer renamed and called through the wrapper."""
    out = []
    for lesson in lessons:
        source = nbformat.read(root / "source" / lesson / f"{lesson}.ipynb", as_version=4)
        release = nbformat.read(root / "release" / lesson / f"{lesson}.ipynb", as_version=4)
        solution = samples.answered(source, release, keep=None)
        for kind, wrapper in WRAPPERS.items():
            answers = {}
            for cell in solution.cells:
                meta = cell.get("metadata", {}).get("nbgrader", {})
                item = meta.get("grade_id")
                if not (meta.get("solution") and item and re.search(rf"^def {re.escape(item)}\(", cell.source, re.M)):
                    continue
                first = f"{item}_first_version"
                answers[item] = re.sub(
                    rf"^def {re.escape(item)}\(", f"def {first}(", cell.source, flags=re.M
                ) + wrapper.format(name=item, first=first)
            if answers:
                out.append(Idiom(f"idiom-{kind}", lesson, f"every function answer behind a {kind} wrapper", answers))
    return out


def all_idioms(root: Path, lessons: list[str]) -> list[Idiom]:
    return WRITTEN + wrapped(root, lessons)
