"""Pictures for lesson 04: `torch.from_numpy` shares one buffer, `torch.tensor` makes a second one;
and a row of images drawn from a NumPy array, the way plotting code receives them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from course.pictures.lazy import patches, plt

if TYPE_CHECKING:
    from matplotlib.figure import Figure

ARRAY_COLOUR = "#dbe7f6"
TENSOR_COLOUR = "#f6dcc8"
BUFFER_COLOUR = "#f2f2f2"
CHANGED_COLOUR = "#ffd966"


def _name_box(ax, x: float, y: float, text: str, colour: str) -> None:
    ax.add_patch(
        patches.FancyBboxPatch(
            (x - 0.17, y - 0.05), 0.34, 0.1, boxstyle="round,pad=0.01", facecolor=colour, edgecolor="#555555"
        )
    )
    ax.text(x, y, text, ha="center", va="center", fontsize=9, family="monospace")


def _buffer(ax, x: float, y: float, values: Sequence[float], changed: int | None, label: str) -> tuple[float, float]:
    """A row of memory cells centred on x; returns the point arrows should aim at."""
    width = 0.12
    left = x - width * len(values) / 2
    for i, value in enumerate(values):
        colour = CHANGED_COLOUR if i == changed else BUFFER_COLOUR
        ax.add_patch(patches.Rectangle((left + i * width, y - 0.05), width, 0.1, facecolor=colour, edgecolor="#333333"))
        ax.text(left + (i + 0.5) * width, y, f"{value:g}", ha="center", va="center", fontsize=10)
    ax.text(x, y - 0.09, label, ha="center", va="center", fontsize=8, color="#555555")
    return x, y


def _arrow(ax, start: tuple[float, float], end: tuple[float, float]) -> None:
    ax.add_patch(
        patches.FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=14, linewidth=1.4, color="#444444")
    )


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
        fig.text(
            0.5,
            0.02,
            f"after a[{index}] = {value:g}: the left t sees it, the right t does not",
            ha="center",
            fontsize=10,
        )
    plt.close(fig)
    return fig


def show_channels_last(images: np.ndarray, *, titles: Sequence[str] | None = None) -> Figure:
    """Draw a NumPy batch `(N, H, W, C)` (C is 1 or 3) side by side, as matplotlib's `imshow` wants it.

    Like `imshow`, it takes NumPy arrays only, channels last, as `uint8` (0 to 255) or as floats in
    [0, 1]. Unlike `imshow`, which quietly clips float values outside [0, 1], it refuses them, so a
    forgotten clip shows up as an error instead of as washed-out colours.
    """
    if not isinstance(images, np.ndarray):
        raise TypeError(
            f"expected a NumPy array (N, H, W, C), got a {type(images).__module__}.{type(images).__name__}: "
            "convert tensors with .detach().cpu().numpy() first"
        )
    if images.ndim != 4 or images.shape[-1] not in (1, 3):
        raise ValueError(f"expected shape (N, H, W, C) with C = 1 or 3 (channels last), got {images.shape}")
    if images.dtype == np.uint8:
        pictures = images.astype(np.float32) / 255
    elif images.dtype.kind == "f":
        if images.size and not (np.nanmin(images) >= 0 and np.nanmax(images) <= 1):
            raise ValueError(
                f"float images must lie in [0, 1], found values from {np.nanmin(images):g} to "
                f"{np.nanmax(images):g}: clip them first"
            )
        pictures = images
    else:
        raise ValueError(f"expected uint8 or float images, got dtype {images.dtype}")
    if titles is not None and len(titles) != len(images):
        raise ValueError(f"got {len(titles)} titles for {len(images)} images")
    panels = max(len(images), 1)
    fig, axes = plt.subplots(1, panels, figsize=(1.8 * panels, 2.0), squeeze=False)
    for ax in axes[0]:
        ax.set_axis_off()
    gray = pictures.shape[-1] == 1
    for ax, picture, title in zip(axes[0], pictures, titles or [None] * len(images)):
        ax.imshow(picture[..., 0] if gray else picture, cmap="gray" if gray else None, vmin=0, vmax=1)
        if title is not None:
            ax.set_title(title, fontsize=8)
    fig.tight_layout()
    plt.close(fig)
    return fig
