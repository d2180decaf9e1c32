"""Pictures for lesson 01: what each rank holds, and the boxes of a (batch, channels, height, width) tensor.

Each function returns a closed `matplotlib.figure.Figure`: a notebook displays it once when it is the
last expression of a cell, and a script can `savefig` it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from course.pictures.lazy import patches, plt

if TYPE_CHECKING:
    from matplotlib.figure import Figure

CHANNEL_COLOURS = ("#f3a49b", "#a5d6a7", "#9cc3ef")
CHANNEL_NAMES = ("red", "green", "blue")
PLANE_SHIFT = (0.8, 0.65)  # how far each deeper channel plane is drawn up and to the right


def _colour(channel: int, channels: int) -> str:
    if channels == 3:
        return CHANNEL_COLOURS[channel]
    if channels == 1:
        return "#d0d0d0"
    return plt.get_cmap("Pastel1")(channel % 9)


def _plane(ax, x0: float, y0: float, height: int, width: int, colour, *, mark=None) -> None:
    """One matrix drawn as height x width boxes; its top-left corner at (x0, y0), rows going down."""
    for h in range(height):
        for w in range(width):
            face, lw = ("#ffd400", 2.2) if mark == (h, w) else (colour, 0.8)
            ax.add_patch(patches.Rectangle((x0 + w, y0 - h - 1), 1, 1, facecolor=face, edgecolor="black", lw=lw))


def _stack(ax, x0: float, y0: float, channels: int, height: int, width: int, *, mark=None) -> None:
    """A 3D tensor (channels, height, width): channel planes, channel 0 in front."""
    dx, dy = PLANE_SHIFT
    for c in reversed(range(channels)):
        plane_mark = mark[1:] if mark is not None and mark[0] == c else None
        _plane(ax, x0 + c * dx, y0 + c * dy, height, width, _colour(c, channels), mark=plane_mark)


def _arrow(ax, start, end, text: str, *, text_at, ha: str = "center", colour: str = "black") -> None:
    ax.add_patch(patches.FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=12, lw=1.4, color=colour))
    ax.text(*text_at, text, ha=ha, va="center", fontsize=10, color=colour)


def batch_layout(batch: int = 2, channels: int = 3, height: int = 4, width: int = 5, *, mark=(1, 0, 2, 3)) -> Figure:
    """The boxes of a (batch, channels, height, width) tensor, one box per number.

    Each image of the batch is a stack of channel planes (channel 0 in front); each plane is a
    height x width grid. The box at index `mark` (a 4-tuple with channel 0, or None) is highlighted so
    the picture can be matched with indexing.
    """
    dx, dy = PLANE_SHIFT
    gap = 4.0
    image_w = width + (channels - 1) * dx
    depth = (channels - 1) * dy
    right = batch * (image_w + gap) - gap
    fig, ax = plt.subplots(figsize=(1.2 + 0.42 * (right + 8), 5.2))
    for b in range(batch):
        x0 = b * (image_w + gap)
        _stack(ax, x0, 0.0, channels, height, width, mark=mark[1:] if mark is not None and mark[0] == b else None)
        ax.text(x0 + image_w / 2, -height - 2.3, f"x[{b}]: image {b}", ha="center", va="top", fontsize=10)
    _arrow(ax, (-0.5, 0), (-0.5, -height), f"dim 2\nheight\n= {height}", text_at=(-0.8, -height / 2), ha="right")
    _arrow(
        ax, (0, -height - 0.5), (width, -height - 0.5), f"dim 3: width = {width}", text_at=(width / 2, -height - 1.2)
    )
    if channels > 1:
        start = (width + 0.25, -height + 0.1)
        end = (width + 0.25 + (channels - 1) * dx, -height + 0.1 + depth)
        _arrow(ax, start, end, f"dim 1\nchannels = {channels}", text_at=(end[0] + 0.3, end[1] - 0.9), ha="left")
    brace_y = -height - 3.4
    ax.plot([0, 0, right, right], [brace_y + 0.3, brace_y, brace_y, brace_y + 0.3], color="black", lw=1.2)
    ax.text(right / 2, brace_y - 0.4, f"dim 0: batch = {batch}", ha="center", va="top", fontsize=11, weight="bold")
    title = (
        f"A tensor of shape ({batch}, {channels}, {height}, {width}) holds {batch * channels * height * width} numbers"
    )
    if channels == 3:
        title += "\nchannel planes, front to back: 0 = red, 1 = green, 2 = blue"
    if mark is not None:
        title += f"\nthe yellow box is x[{mark[0]}, {mark[1]}, {mark[2]}, {mark[3]}]"
    ax.set_title(title, fontsize=11.5)
    ax.set_xlim(-3.0, right + 4.0)
    ax.set_ylim(brace_y - 1.6, depth + 0.6)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.tight_layout()
    plt.close(fig)
    return fig


def rank_ladder() -> Figure:
    """Ranks 0 to 4 side by side, drawn to one scale: a number, a vector, a matrix, one colour image, a batch."""
    dx, dy = PLANE_SHIFT
    grey = "#d0d0d0"
    fig, ax = plt.subplots(figsize=(15, 3.4))
    panels = [
        (0.0, 1, "rank 0: a scalar", "shape ()\none number,\nsuch as a loss", lambda x: _plane(ax, x, 0, 1, 1, grey)),
        (4.0, 4, "rank 1: a vector", "shape (4,)\nthe features of one sample", lambda x: _plane(ax, x, 0, 1, 4, grey)),
        (
            11.0,
            4,
            "rank 2: a matrix",
            "shape (3, 4)\na grey image, or a batch\nof feature vectors",
            lambda x: _plane(ax, x, 0, 3, 4, grey),
        ),
        (
            18.0,
            4 + 2 * dx,
            "rank 3: one colour image",
            "shape (3, 3, 4)\n(channels, height, width)",
            lambda x: _stack(ax, x, 0, 3, 3, 4),
        ),
        (
            26.0,
            2 * (4 + 2 * dx) + 1.5,
            "rank 4: a batch of images",
            "shape (2, 3, 3, 4)\n(batch, channels, height, width)",
            lambda x: (_stack(ax, x, 0, 3, 3, 4), _stack(ax, x + 4 + 2 * dx + 1.5, 0, 3, 3, 4)),
        ),
    ]
    for x, w, title, caption, draw in panels:
        draw(x)
        ax.text(x + w / 2, 2 * dy + 0.5, title, ha="center", va="bottom", fontsize=11, weight="bold")
        ax.text(x + w / 2, -3.4, caption, ha="center", va="top", fontsize=9.5)
    ax.set_xlim(-1.5, 26.0 + 2 * (4 + 2 * dx) + 2.0)
    ax.set_ylim(-5.6, 2 * dy + 1.4)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.tight_layout()
    plt.close(fig)
    return fig
