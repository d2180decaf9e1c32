"""Pictures for lesson 09 (memory): a tensor as a window, with strides, over one row of storage cells.

Each function returns a `matplotlib.figure.Figure` that is already closed in pyplot, so a notebook
shows it exactly once: as the value of the cell that calls it.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Sequence

from course.pictures.lazy import patches, plt

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_UNUSED = "#f2f2f2"
_READ = "#dbe9f6"
_SHARED = "#ffd59e"
_ARROWS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd")
_MOST_CELLS = 48


def positions(shape: Sequence[int], stride: Sequence[int], offset: int = 0) -> dict[int, list[tuple[int, ...]]]:
    """Which tensor indices read each storage cell: `offset + sum(index[d] * stride[d])`, as PyTorch reads it."""
    shape, stride = tuple(int(s) for s in shape), tuple(int(s) for s in stride)
    if len(shape) != len(stride):
        raise ValueError(f"shape {shape} and stride {stride} must have one entry per dimension")
    if any(s < 0 for s in shape + stride) or offset < 0:
        raise ValueError("sizes, strides and the offset of a tensor are never negative")
    cells: dict[int, list[tuple[int, ...]]] = {}
    for index in itertools.product(*(range(s) for s in shape)):
        cells.setdefault(offset + sum(i * s for i, s in zip(index, stride)), []).append(index)
    return cells


def _label(index: tuple[int, ...]) -> str:
    return ",".join(str(i) for i in index) if index else "()"


def storage_window(
    shape: Sequence[int], stride: Sequence[int], offset: int = 0, *, storage_size: int | None = None, name: str = "x"
) -> Figure:
    """The storage as a row of numbered cells, the cells the tensor reads coloured and labelled with its index.

    Blue cells are read by one element, orange ones by several (a stride of 0, as `expand` makes);
    grey ones belong to the storage but not to this window. Above the row, one arrow per dimension
    goes from the first element one stride along it; below, the storage offset is marked.
    """
    shape, stride = tuple(int(s) for s in shape), tuple(int(s) for s in stride)
    cells = positions(shape, stride, offset)
    reach = max(cells, default=offset) + 1
    size = reach if storage_size is None else int(storage_size)
    if size < reach:
        raise ValueError(f"a storage of {size} cells cannot hold a window that reaches cell {reach - 1}")
    if size > _MOST_CELLS:
        raise ValueError(f"at most {_MOST_CELLS} storage cells fit in one picture, not {size}")
    arrows = [d for d, n in enumerate(shape) if n > 1]
    fig, ax = plt.subplots(figsize=(max(4.0, 0.62 * size + 1.2), 2.0 + 0.42 * len(arrows)))
    plt.close(fig)
    for cell in range(size):
        readers = cells.get(cell, [])
        colour = _UNUSED if not readers else (_READ if len(readers) == 1 else _SHARED)
        ax.add_patch(patches.Rectangle((cell, 0), 1, 1, facecolor=colour, edgecolor="#555555"))
        ax.text(cell + 0.5, -0.22, str(cell), ha="center", va="center", fontsize=7, color="#777777")
        if readers:
            text = _label(readers[0]) if len(readers) == 1 else f"×{len(readers)}"
            ax.text(cell + 0.5, 0.5, text, ha="center", va="center", fontsize=7 if len(text) > 3 else 8)
    if cells:
        start = offset + 0.5
        for row, d in enumerate(arrows):
            height = 1.35 + 0.42 * row
            colour = _ARROWS[row % len(_ARROWS)]
            end = start + stride[d]
            if stride[d]:
                ax.annotate(
                    "",
                    xy=(end, 1.02),
                    xytext=(start, height),
                    arrowprops={"arrowstyle": "->", "color": colour, "connectionstyle": "angle,angleA=0,angleB=90"},
                )
            note = f"dim {d}: +{stride[d]}" + (" (expanded: no step)" if stride[d] == 0 else "")
            ax.text(max(start, end) + 0.15, height, note, va="center", fontsize=8, color=colour)
    if offset:
        ax.annotate("", xy=(offset, -0.5), xytext=(0, -0.5), arrowprops={"arrowstyle": "->", "color": "#555555"})
    ax.text(offset + 0.1, -0.62, f"storage_offset = {offset}", va="top", fontsize=8, color="#555555")
    ax.set_title(f"{name}: shape {shape}, stride {stride}, offset {offset}; storage of {size} cells", fontsize=9)
    ax.set_xlim(-0.3, size + 3.2)
    ax.set_ylim(-1.0, 1.6 + 0.42 * len(arrows))
    ax.axis("off")
    fig.tight_layout()
    return fig
