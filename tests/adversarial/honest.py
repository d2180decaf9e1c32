"""Honest idioms: answers a careful student writes that do more than the task needs (a progress bar, a
warning, a log line, a figure, a helper, a decorator). Graded beside the forgeries, each must keep full
marks and never be flagged: the grader's watch over probed calls must not mistake them for tampering.

Each idiom is the instructor's solution with some answer cells replaced. The hand-written ones are on
lesson 07, whose probes watch the most (threads, time, gradients); the wrapped ones put every function
answer of every lesson behind an honest helper (`functools.wraps` with logging, or a plain wrapper
that warns and prints), so every probe of the course sees one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder import samples

TRAIN = '''import torch
from torch import nn
{imports}

def train_classifier(images, labels, device=None):
    """A small model trained on (images, labels) on `device`; returns the trained nn.Module."""
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(device)
    num_classes = int(labels.max()) + 1
    model = nn.Sequential(nn.Flatten(), nn.Linear(images[0].numel(), num_classes)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    images, labels = images.to(device), labels.to(device)
    shuffler = torch.Generator().manual_seed(0)
    for epoch in {epochs}:
        order = torch.randperm(len(labels), generator=shuffler).to(device)
        for start in range(0, len(labels), 64):
            batch = order[start:start + 64]
            optimizer.zero_grad()
            loss = loss_fn(model(images[batch]), labels[batch])
            loss.backward()
            optimizer.step()
        {report}
    {finish}return model
'''

EVALUATE = '''import contextlib

import torch


{decorator}def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, in eval mode, without a graph."""
    was_training = model.training
    model.eval()
    try:
        with {context}:
            predicted = model(images).argmax(dim=1)
    finally:
        model.train(was_training)
    return (predicted == labels).float().mean().item()
'''

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
    "logged": '''

import functools
import logging


@functools.wraps({first})
def {name}(*args, **kwargs):
    logging.getLogger("homework").warning("calling {name}")
    return {first}(*args, **kwargs)
''',
    "warned": '''

import warnings


def {name}(*args, **kwargs):
    """My first version, with a word about each call."""
    warnings.warn("{name} is called", UserWarning)
    print("calling {name} with", [type(a).__name__ for a in args])
    result = {first}(*args, **kwargs)
    return result
''',
}


@dataclass(frozen=True)
class Idiom:
    name: str
    lesson: str
    what: str
    answers: dict[str, str] = field(default_factory=dict)  # item -> its answer cell

    def notebook(self, source: nbformat.NotebookNode, release: nbformat.NotebookNode) -> nbformat.NotebookNode:
        nb = samples.answered(source, release, keep=None)
        for item, code in self.answers.items():
            nb = samples.with_answer(nb, item, code)
        return nb


def _train(imports: str = "", epochs: str = "range(10)", report: str = "pass", finish: str = "") -> str:
    return TRAIN.format(imports=imports, epochs=epochs, report=report, finish=finish)


WRITTEN = [
    Idiom("idiom-tqdm", "07_training", "a tqdm progress bar over the epochs",
          {"train_classifier": _train("from tqdm import tqdm", "tqdm(range(10), desc='epochs')")}),
    Idiom("idiom-tqdm-auto", "07_training", "tqdm.auto's bar, as notebooks use it",
          {"train_classifier": _train("from tqdm.auto import tqdm", "tqdm(range(10))")}),
    Idiom("idiom-tqdm-notebook", "07_training", "tqdm.notebook's bar",
          {"train_classifier": _train("from tqdm.notebook import tqdm", "tqdm(range(10), leave=False)")}),
    Idiom("idiom-warn", "07_training", "warnings.warn once an epoch",
          {"train_classifier": _train("import warnings", report="warnings.warn(f'epoch {epoch} done')")}),
    Idiom("idiom-logging", "07_training", "a log line an epoch",
          {"train_classifier": _train("import logging\nlog = logging.getLogger('training')",
                                      report="log.warning('epoch %d: loss %.3f', epoch, loss.item())")}),
    Idiom("idiom-print", "07_training", "printing the loss an epoch",
          {"train_classifier": _train(report="print(f'epoch {epoch}: loss {loss.item():.3f}')")}),
    Idiom("idiom-matplotlib", "07_training", "a matplotlib figure drawn in the answer",
          {"train_classifier": _train("import matplotlib.pyplot as plt", finish="plt.plot([1, 2, 3])\n    plt.close('all')\n    ")}),
    Idiom("idiom-no-grad-decorator", "07_training", "torch.no_grad as a decorator",
          {"evaluate": EVALUATE.format(decorator="@torch.no_grad()\n", context="contextlib.nullcontext()")}),
    Idiom("idiom-inference-mode", "07_training", "torch.inference_mode instead of no_grad",
          {"evaluate": EVALUATE.format(decorator="", context="torch.inference_mode()")}),
    Idiom("idiom-helpers", "07_training", "a helper class and a helper function",
          {"train_one_epoch": ONE_EPOCH}),
    Idiom("idiom-recursion", "01_tensors", "a recursive helper over the shape",
          {"tensor_rank": '''def count_sizes(sizes):
    return 0 if not sizes else 1 + count_sizes(sizes[1:])


def tensor_rank(t):
    """The number of dimensions of `t` as an int (0 for a scalar tensor)."""
    return count_sizes(tuple(t.shape))
'''}),
    Idiom("idiom-lru-cache", "01_tensors", "functools.lru_cache on a helper",
          {"describe": '''import functools


@functools.lru_cache(maxsize=None)
def dtype_name(dtype):
    return str(dtype).removeprefix("torch.")


def describe(t):
    """A dict with exactly the keys "shape", "dtype", "device" and "requires_grad"."""
    return {"shape": tuple(t.shape), "dtype": dtype_name(t.dtype), "device": str(t.device), "requires_grad": t.requires_grad}
'''}),
    Idiom("idiom-comprehension", "08_indexing", "comprehensions and a generator expression",
          {"confusion_matrix": '''import torch


def confusion_matrix(predicted, labels, num_classes):
    """(C, C) int64 counts: entry [t, p] is the number of examples with label t and prediction p."""
    pairs = labels * num_classes + predicted
    counts = torch.bincount(pairs, minlength=num_classes * num_classes)
    rows = [counts[t * num_classes:(t + 1) * num_classes] for t in range(num_classes)]
    assert sum(int(r.sum()) for r in rows) == len(labels)
    return torch.stack(rows) if rows else counts.reshape(0, 0)
'''}),
    Idiom("idiom-lazy-import", "08_indexing", "torch.nn.functional imported inside the function",
          {"select_by_label": '''def select_by_label(scores, labels):
    """(N,) tensor whose entry i is scores[i, labels[i]]."""
    import torch.nn.functional as F

    picked = F.one_hot(labels, scores.shape[1]).bool()
    return scores[picked]
'''}),
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
                answers[item] = re.sub(rf"^def {re.escape(item)}\(", f"def {first}(", cell.source, flags=re.M) + wrapper.format(name=item, first=first)
            if answers:
                out.append(Idiom(f"idiom-{kind}", lesson, f"every function answer behind a {kind} wrapper", answers))
    return out


def all_idioms(root: Path, lessons: list[str]) -> list[Idiom]:
    return WRITTEN + wrapped(root, lessons)
