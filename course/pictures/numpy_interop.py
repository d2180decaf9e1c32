"""Pictures for lesson 04: `torch.from_numpy` shares one buffer, `torch.tensor` makes a second one."""

from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle

ARRAY_COLOUR = "#dbe7f6"
TENSOR_COLOUR = "#f6dcc8"
BUFFER_COLOUR = "#f2f2f2"
CHANGED_COLOUR = "#ffd966"


def _name_box(ax, x: float, y: float, text: str, colour: str) -> None:
    ax.add_patch(FancyBboxPatch((x - 0.17, y - 0.05), 0.34, 0.1, boxstyle="round,pad=0.01",
                                facecolor=colour, edgecolor="#555555"))
    ax.text(x, y, text, ha="center", va="center", fontsize=9, family="monospace")


def _buffer(ax, x: float, y: float, values: Sequence[float], changed: int | None, label: str) -> tuple[float, float]:
    """A row of memory cells centred on x; returns the point arrows should aim at."""
    width = 0.12
    left = x - width * len(values) / 2
    for i, value in enumerate(values):
        colour = CHANGED_COLOUR if i == changed else BUFFER_COLOUR
        ax.add_patch(Rectangle((left + i * width, y - 0.05), width, 0.1, facecolor=colour, edgecolor="#333333"))
        ax.text(left + (i + 0.5) * width, y, f"{value:g}", ha="center", va="center", fontsize=10)
    ax.text(x, y - 0.09, label, ha="center", va="center", fontsize=8, color="#555555")
    return x, y


def _arrow(ax, start: tuple[float, float], end: tuple[float, float]) -> None:
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=14, linewidth=1.4, color="#444444"))


def shared_and_copied(values: Sequence[float] = (1.0, 2.0, 3.0), write: tuple[int, float] | None = None) -> Figure:
    """Left: `t = torch.from_numpy(a)`, two objects, one buffer. Right: `t = torch.tensor(a)`, two buffers.

    `write=(i, v)` also shows `a[i] = v`: the changed cell is highlighted, and only the objects that
    point at it see the new value.
    """
    values = [float(v) for v in values]
    after = list(values)
    changed = None
    if write is not None:
        changed, value = write
        after[changed] = float(value)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.0))
    titles = ("t = torch.from_numpy(a): one buffer, shared", "t = torch.tensor(a): two buffers, a copy")
    for ax, title in zip(axes, titles):
        ax.set_xlim(0, 1)
        ax.set_ylim(0.18, 0.92)
        ax.axis("off")
        ax.set_title(title, fontsize=11)
    left, right = axes
    _name_box(left, 0.25, 0.8, "a  numpy.ndarray", ARRAY_COLOUR)
    _name_box(left, 0.75, 0.8, "t  torch.Tensor", TENSOR_COLOUR)
    target = _buffer(left, 0.5, 0.35, after, changed, "the one block of memory both read and write")
    _arrow(left, (0.27, 0.74), (target[0] - 0.05, target[1] + 0.06))
    _arrow(left, (0.73, 0.74), (target[0] + 0.05, target[1] + 0.06))

    _name_box(right, 0.25, 0.8, "a  numpy.ndarray", ARRAY_COLOUR)
    _name_box(right, 0.75, 0.8, "t  torch.Tensor", TENSOR_COLOUR)
    mine = _buffer(right, 0.25, 0.35, after, changed, "a's memory")
    theirs = _buffer(right, 0.75, 0.35, values, None, "t's own copy")
    _arrow(right, (0.25, 0.74), (mine[0], mine[1] + 0.06))
    _arrow(right, (0.75, 0.74), (theirs[0], theirs[1] + 0.06))
    if write is not None:
        index, value = write
        fig.text(0.5, 0.02, f"after a[{index}] = {value:g}: the left t sees it, the right t does not",
                 ha="center", fontsize=10)
    plt.close(fig)
    return fig
