"""Pictures for the indexing lesson: what a boolean mask selects, what `gather` picks, and what a loop costs.

Each function returns a `matplotlib.figure.Figure` that is already closed in pyplot, so a notebook
shows it exactly once: as the value of the cell that calls it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from course.pictures.lazy import patches, plt, ticker

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_PLAIN = "#f2f2f2"
_CHOSEN = "#ffd59e"
_RESULT = "#c9ecc9"
_SERIES = ("#d62728", "#ff7f0e", "#1f77b4", "#2ca02c", "#9467bd")


def _box(ax, x: float, y: float, text: str, colour: str, *, size: float = 10) -> None:
    ax.add_patch(patches.Rectangle((x, y), 0.95, 0.95, facecolor=colour, edgecolor="black", lw=0.8))
    ax.text(x + 0.47, y + 0.47, text, ha="center", va="center", fontsize=size)


def _grid_of(mask: Sequence[Sequence[bool]]) -> list[list[bool]]:
    grid = [[bool(v) for v in row] for row in mask]
    if not grid or not grid[0] or any(len(row) != len(grid[0]) for row in grid):
        raise ValueError("the mask must be a non-empty 2D grid of booleans (a list of equal-length rows)")
    return grid


def selected_positions(mask: Sequence[Sequence[bool]]) -> list[tuple[int, int]]:
    """The (row, column) of every True cell, in the order `x[mask]` returns them: row by row."""
    return [(r, c) for r, row in enumerate(_grid_of(mask)) for c, keep in enumerate(row) if keep]


def mask_selection(mask: Sequence[Sequence[bool]], *, trailing: int = 0) -> Figure:
    """`x[mask]` for a 2D mask over the first two dimensions of `x`.

    Left: the mask's grid, each True cell numbered in the order the result lists it (row by row).
    Right: the result, one row per True cell. With `trailing` > 0, `x` has one more dimension of that
    size, so each selected cell brings its whole row of `trailing` numbers along.
    """
    grid = _grid_of(mask)
    if trailing < 0:
        raise ValueError(f"trailing must be 0 or more, not {trailing}")
    rows, cols = len(grid), len(grid[0])
    order = selected_positions(grid)
    depth = max(trailing, 1)
    gap = 2.5
    height = max(rows, len(order), 1)
    width = max(cols + gap + depth + 0.5, 10.5)
    fig, ax = plt.subplots(figsize=(0.6 * width + 0.6, 0.6 * (height + 1.8)))
    plt.close(fig)
    number = {pos: i for i, pos in enumerate(order)}
    for r in range(rows):
        for c in range(cols):
            keep = (r, c) in number
            _box(ax, c, height - 1 - r, str(number[(r, c)]) if keep else "", _CHOSEN if keep else _PLAIN)
    shape = f"({rows}, {cols}" + (f", {trailing})" if trailing else ")")
    ax.text(0, height + 0.4, f"mask ({rows}, {cols}) over x {shape}", ha="left", va="center", fontsize=10)
    left = cols + gap
    for i, (r, c) in enumerate(order):
        for d in range(depth):
            text = f"x[{r},{c}]" if not trailing else f"x[{r},{c},{d}]"
            _box(ax, left + d, height - 1 - i, text, _RESULT, size=6)
    ax.add_patch(
        patches.FancyArrowPatch(
            (cols + 0.2, height / 2),
            (left - 0.3, height / 2),
            arrowstyle="-|>",
            mutation_scale=14,
            lw=1.4,
            color="#555555",
        )
    )
    result = f"({len(order)},)" if not trailing else f"({len(order)}, {trailing})"
    ax.text(left, height + 0.4, f"x[mask]: {result}", ha="left", va="center", fontsize=10)
    ax.text(
        0,
        -0.5,
        "True cells numbered in the order x[mask] lists them: row by row",
        ha="left",
        va="center",
        fontsize=9,
        style="italic",
    )
    ax.set_xlim(-0.3, width)
    ax.set_ylim(-0.9, height + 0.8)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.tight_layout()
    return fig


def gather_picture(index: Sequence[Sequence[int]], num_cols: int) -> Figure:
    """`out = x.gather(1, index)` for an `x` of shape (len(index), num_cols).

    Left: `x`, with every cell that `index` names marked by the output column it lands in. Right:
    `out`, the shape of `index`, where `out[i][j]` holds `x[i][index[i][j]]`.
    """
    picks = [[int(v) for v in row] for row in index]
    if not picks or any(len(row) != len(picks[0]) for row in picks):
        raise ValueError("index must be a non-empty 2D grid of ints (a list of equal-length rows)")
    if any(not 0 <= v < num_cols for row in picks for v in row):
        raise ValueError(f"every index must lie in [0, {num_cols})")
    rows, k = len(picks), len(picks[0])
    gap = 2.5
    fig, ax = plt.subplots(figsize=(0.65 * (num_cols + gap + k) + 1.2, 0.65 * (rows + 2.2)))
    plt.close(fig)
    for r, row in enumerate(picks):
        y = rows - 1 - r
        for c in range(num_cols):
            landed = [j for j, v in enumerate(row) if v == c]
            label = f"x[{r},{c}]"
            if landed:
                label += "\n→ j=" + ",".join(str(j) for j in landed)
            _box(ax, c, y, label, _CHOSEN if landed else _PLAIN, size=7)
        for j, v in enumerate(row):
            _box(ax, num_cols + gap + j, y, f"x[{r},{v}]", _RESULT, size=7)
    ax.add_patch(
        patches.FancyArrowPatch(
            (num_cols + 0.2, rows / 2),
            (num_cols + gap - 0.3, rows / 2),
            arrowstyle="-|>",
            mutation_scale=14,
            lw=1.4,
            color="#555555",
        )
    )
    ax.text(0, rows + 0.4, f"x: shape ({rows}, {num_cols})", ha="left", va="center", fontsize=10, family="monospace")
    ax.text(
        num_cols + gap,
        rows + 0.4,
        f"x.gather(1, index): shape ({rows}, {k})",
        ha="left",
        va="center",
        fontsize=10,
        family="monospace",
    )
    ax.text(
        0,
        -0.5,
        "out[i][j] = x[i][index[i][j]]: each row picks its own columns",
        ha="left",
        va="center",
        fontsize=9,
        style="italic",
    )
    ax.set_xlim(-0.3, num_cols + gap + k + 0.3)
    ax.set_ylim(-0.9, rows + 0.8)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.tight_layout()
    return fig


def timing_curves(sizes: Sequence[int], seconds: Mapping[str, Sequence[float]], *, title: str = "") -> Figure:
    """Time per call against N, one line per version, both axes logarithmic.

    A loop over N elements grows along the diagonal (10 times the work, 10 times the time); a
    vectorized call stays flat until the work itself, not the overhead, dominates. The ratio between
    the slowest and the fastest version at the largest N is written at the right end.
    """
    sizes = [int(n) for n in sizes]
    if not sizes or any(n <= 0 for n in sizes):
        raise ValueError("sizes must be a non-empty list of positive ints")
    if not seconds:
        raise ValueError("seconds must map at least one name to its timings")
    for name, times in seconds.items():
        if len(times) != len(sizes) or any(not t > 0 for t in times):
            raise ValueError(f"{name!r} needs one positive time per size ({len(sizes)}), not {list(times)!r}")
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    plt.close(fig)
    for (name, times), colour in zip(seconds.items(), _SERIES * (len(seconds) // len(_SERIES) + 1)):
        ax.plot(sizes, [t * 1e6 for t in times], marker="o", color=colour, label=name)
    last = {name: times[-1] for name, times in seconds.items()}
    slowest, fastest = max(last, key=last.get), min(last, key=last.get)
    if slowest != fastest:
        ratio = last[slowest] / last[fastest]
        ax.annotate(
            f"{ratio:,.0f}x the fastest" if ratio >= 10 else f"{ratio:.1f}x the fastest",
            xy=(sizes[-1], last[slowest] * 1e6),
            xytext=(-8, 0),
            textcoords="offset points",
            ha="right",
            va="center",
            fontsize=10,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):  # plain numbers on the ticks: quicker to draw than powers of ten
        axis.set_major_locator(ticker.LogLocator(base=10))
        axis.set_minor_locator(ticker.NullLocator())
        axis.set_major_formatter(ticker.FuncFormatter(lambda value, _: f"{value:g}"))
    ax.set_xlabel("N (elements)")
    ax.set_ylabel("time per call (µs)")
    ax.set_title(title or "Python loop versus one vectorized call")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="upper left", fontsize=9)
    fig.subplots_adjust(left=0.12, right=0.97, bottom=0.13, top=0.91)
    return fig
