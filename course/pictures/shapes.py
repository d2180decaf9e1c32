"""Pictures for lesson 05 (shapes): how broadcasting lines up two shapes, and how a tensor sits in memory.

Each function returns a `matplotlib.figure.Figure` that is already closed in pyplot, so a notebook
shows it exactly once: as the value of the cell that calls it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from course.pictures.lazy import patches, plt

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_PLAIN = "#dbe9f6"
_PADDED = "#f2f2f2"
_STRETCHED = "#ffd59e"
_CLASH = "#f4a6a6"
_RESULT = "#c9ecc9"


def _fmt(shape: Sequence[int]) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def broadcast_result(shape_a: Sequence[int], shape_b: Sequence[int]) -> tuple[tuple[int, ...] | None, list[str]]:
    """The broadcast shape (None if the shapes clash) and, per aligned dimension from the left, what happens.

    Each entry of the list is "same", "stretch a", "stretch b", "pad a", "pad b" or "clash". A
    missing dimension ("pad") counts as size 1, and then stretches like any size-1 dimension.
    """
    sizes, notes = _columns(shape_a, shape_b)
    return (None if "clash" in notes else tuple(sizes)), notes


def _columns(shape_a: Sequence[int], shape_b: Sequence[int]) -> tuple[list[int], list[str]]:
    ndim = max(len(shape_a), len(shape_b))
    a = [None] * (ndim - len(shape_a)) + list(shape_a)
    b = [None] * (ndim - len(shape_b)) + list(shape_b)
    sizes: list[int] = []
    notes: list[str] = []
    for sa, sb in zip(a, b):
        if sa is None:
            sizes.append(sb)
            notes.append("pad a")
        elif sb is None:
            sizes.append(sa)
            notes.append("pad b")
        elif sa == sb:
            sizes.append(sa)
            notes.append("same")
        elif sa == 1:
            sizes.append(sb)
            notes.append("stretch a")
        elif sb == 1:
            sizes.append(sa)
            notes.append("stretch b")
        else:
            sizes.append(max(sa, sb))
            notes.append("clash")
    return sizes, notes


def broadcast_alignment(
    shape_a: Sequence[int], shape_b: Sequence[int], *, names: tuple[str, str] = ("a", "b")
) -> Figure:
    """Two shapes written right-aligned, one box per dimension, and the shape of `a + b` under them.

    Grey dashed boxes are dimensions a shape lacks (they count as 1), orange boxes are size-1
    dimensions that stretch, red boxes are sizes that cannot be matched.
    """
    shape_a, shape_b = tuple(int(s) for s in shape_a), tuple(int(s) for s in shape_b)
    sizes, notes = _columns(shape_a, shape_b)
    ok = "clash" not in notes
    ndim = len(notes)
    fig, ax = plt.subplots(figsize=(1.3 * ndim + 3.2, 2.9))
    plt.close(fig)
    rows = [
        (names[0], [None] * (ndim - len(shape_a)) + list(shape_a), "a"),
        (names[1], [None] * (ndim - len(shape_b)) + list(shape_b), "b"),
    ]
    for r, (label, column_sizes, who) in enumerate(rows):
        y = 2 - r
        ax.text(-0.3, y + 0.4, label, ha="right", va="center", fontsize=12, family="monospace")
        for col, size in enumerate(column_sizes):
            note = notes[col]
            style = "--" if size is None else "-"
            if note == "clash":
                face, text = _CLASH, str(size)
            elif size is None:
                face, text = _PADDED, "1" if sizes[col] == 1 else f"1→{sizes[col]}"
            elif note == f"stretch {who}":
                face, text = _STRETCHED, f"1→{sizes[col]}"
            else:
                face, text = _PLAIN, str(size)
            ax.add_patch(patches.Rectangle((col, y), 0.9, 0.8, facecolor=face, edgecolor="black", linestyle=style))
            ax.text(
                col + 0.45,
                y + 0.4,
                text,
                ha="center",
                va="center",
                fontsize=11,
                color="dimgrey" if size is None else "black",
            )
    ax.plot([-0.1, ndim], [0.9, 0.9], color="black", linewidth=1)
    ax.text(-0.3, 0.4, f"{names[0]} + {names[1]}", ha="right", va="center", fontsize=12, family="monospace")
    for col, note in enumerate(notes):
        if note == "clash":
            ax.add_patch(patches.Rectangle((col, 0), 0.9, 0.8, facecolor="white", edgecolor="red"))
            ax.text(col + 0.45, 0.4, "✗", ha="center", va="center", fontsize=14, color="red")
        else:
            ax.add_patch(patches.Rectangle((col, 0), 0.9, 0.8, facecolor=_RESULT, edgecolor="black"))
            ax.text(col + 0.45, 0.4, str(sizes[col]), ha="center", va="center", fontsize=11)
    if not ok:
        title = f"{_fmt(shape_a)} and {_fmt(shape_b)} do not broadcast: red sizes differ and neither is 1"
    else:
        title = f"{_fmt(shape_a)} + {_fmt(shape_b)} → {_fmt(sizes)}   (lined up from the right)"
    ax.set_title(title, fontsize=11)
    ax.set_xlim(-2.4, ndim + 0.2)
    ax.set_ylim(-0.2, 3.0)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.tight_layout()
    return fig


def memory_order(rows: int = 2, cols: int = 3) -> Figure:
    """`x = torch.arange(rows*cols).reshape(rows, cols)` and `x.t()`: the grids you see, and the memory under them.

    Under each grid, the memory strip (the same one for both) says in which order reading that grid
    row by row visits the slots: in order for `x` (contiguous), jumping around for `x.t()` (not).
    """
    n = rows * cols
    side = max(rows, cols)
    gap = 1.5
    fig, ax = plt.subplots(figsize=(0.75 * (side + gap + n) + 0.6, 0.75 * (2 * side + 4.2)))
    plt.close(fig)
    views = [
        ("x", (rows, cols), (cols, 1), [[r * cols + c for c in range(cols)] for r in range(rows)]),
        ("x.t()", (cols, rows), (1, cols), [[r * cols + c for r in range(rows)] for c in range(cols)]),
    ]
    top = 2 * side + 3.4
    for name, shape, stride, grid in views:
        height = len(grid)
        base = top - height
        visit: dict[int, int] = {}
        for i, line in enumerate(grid):
            for j, value in enumerate(line):
                visit[value] = len(visit)
                ax.add_patch(
                    patches.Rectangle((j, base + height - 1 - i), 0.95, 0.95, facecolor=_PLAIN, edgecolor="black")
                )
                ax.text(j + 0.47, base + height - 1 - i + 0.47, str(value), ha="center", va="center", fontsize=12)
        ax.text(
            0,
            top + 0.35,
            f"{name}: shape {shape}, stride {stride}",
            ha="left",
            va="center",
            fontsize=11,
            family="monospace",
        )
        in_order = all(visit[k] == k for k in range(n))
        left = side + gap
        strip_y = base + height / 2 - 0.5
        for slot in range(n):
            ax.add_patch(
                patches.Rectangle(
                    (left + slot, strip_y), 0.95, 0.95, facecolor=_RESULT if in_order else _STRETCHED, edgecolor="black"
                )
            )
            ax.text(left + slot + 0.47, strip_y + 0.47, str(slot), ha="center", va="center", fontsize=12)
            ax.text(left + slot + 0.47, strip_y - 0.3, f"read #{visit[slot] + 1}", ha="center", va="center", fontsize=8)
        order = sorted(range(n), key=lambda s: visit[s])
        for first, second in zip(order, order[1:]):
            bend = 0.0 if second == first + 1 else (-0.4 if second > first else -0.25)
            ax.add_patch(
                patches.FancyArrowPatch(
                    (left + first + 0.6, strip_y + 1.0),
                    (left + second + 0.35, strip_y + 1.0),
                    arrowstyle="->",
                    connectionstyle=f"arc3,rad={bend}",
                    mutation_scale=10,
                    color="#555555",
                )
            )
        word = (
            "contiguous: reading row by row walks memory in order"
            if in_order
            else ("not contiguous: reading row by row jumps around memory")
        )
        ax.text(left, strip_y - 0.85, word, ha="left", va="center", fontsize=9, style="italic")
        top = base - 1.5
    ax.text(
        side + gap, 2 * side + 3.75, "memory (one strip, shared by x and x.t())", ha="left", va="center", fontsize=11
    )
    ax.set_xlim(-0.2, side + gap + n + 0.2)
    ax.set_ylim(top + 0.3, 2 * side + 4.1)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.tight_layout()
    return fig


_PATCH_COLOURS = ("#dbe9f6", "#ffd59e", "#c9ecc9", "#f4c6e0", "#e3d7f5", "#fff2a8", "#cfeff0", "#f6dcc8")


def patch_grid(height: int = 4, width: int = 6, p: int = 2) -> Figure:
    """A one-channel `height x width` image holding 0, 1, 2, ... in row-major order, cut into `p x p` patches.

    Each patch has its own colour and its number in the corner: patches are numbered row by row, so
    patch `i * (width // p) + j` is the one in patch row `i` and patch column `j`.
    """
    if p < 1 or height % p or width % p:
        raise ValueError(f"p must divide both sides, got a {height}x{width} image and p={p}")
    fig, ax = plt.subplots(figsize=(0.7 * width + 0.6, 0.7 * height + 0.9))
    plt.close(fig)
    per_row = width // p
    for r in range(height):
        for c in range(width):
            patch = (r // p) * per_row + c // p
            y = height - 1 - r
            ax.add_patch(
                patches.Rectangle(
                    (c, y), 1, 1, facecolor=_PATCH_COLOURS[patch % len(_PATCH_COLOURS)], edgecolor="#888888"
                )
            )
            ax.text(c + 0.5, y + 0.45, str(r * width + c), ha="center", va="center", fontsize=11)
    for i in range(height // p):
        for j in range(per_row):
            left, top = j * p, height - i * p
            ax.add_patch(patches.Rectangle((left, top - p), p, p, fill=False, edgecolor="black", linewidth=2))
            ax.text(
                left + 0.08, top - 0.12, f"patch {i * per_row + j}", ha="left", va="top", fontsize=7, color="#333333"
            )
    ax.set_title(f"a {height}x{width} image cut into {p}x{p} patches, numbered row by row", fontsize=11)
    ax.set_xlim(-0.1, width + 0.1)
    ax.set_ylim(-0.1, height + 0.1)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.tight_layout()
    return fig
