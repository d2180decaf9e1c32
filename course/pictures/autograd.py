"""Pictures for lesson 06: the graph autograd records, and the gradient as a slope.

Each function returns a closed `matplotlib.figure.Figure`: a notebook displays it once when it is the
last expression of a cell, and a script can `savefig` it. No Graphviz: the graph is walked through
`grad_fn.next_functions` and laid out here, one row per step away from the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Mapping

import torch

from course.pictures.lazy import patches, plt

if TYPE_CHECKING:
    from matplotlib.figure import Figure

BOX_W, BOX_H = 2.6, 0.9
COL_GAP, ROW_GAP = 0.5, 0.8
COLOURS = {
    "result": "#fff2b3",  # the tensor the walk starts from
    "function": "#cfe2f3",  # a recorded operation (a grad_fn)
    "leaf": "#c9e7c4",  # AccumulateGrad: where a gradient lands in a leaf's .grad
    "none": "#eeeeee",  # an input that does not require grad
}


def _shape(t: torch.Tensor) -> str:
    return "(" + ", ".join(str(s) for s in t.shape) + ("," if t.dim() == 1 else "") + ")"


def _name_of(t: torch.Tensor, names: Mapping[str, torch.Tensor]) -> str | None:
    return next((label for label, tensor in names.items() if tensor is t), None)


def graph_nodes(root: torch.Tensor) -> tuple[list[object], list[tuple[object, object]], dict[int, int]]:
    """Walk `root.grad_fn` through `next_functions`.

    Returns (nodes, edges, depth): nodes in the order found (a None entry of next_functions becomes
    its own node object, a `_NoGrad`), edges as (node, next node), and each node's row, keyed by
    id(node): the longest number of steps from `root`, so every arrow points down.
    """
    nodes: list[object] = []
    edges: list[tuple[object, object]] = []
    depth: dict[int, int] = {}
    if root.grad_fn is None:
        return nodes, edges, depth
    seen: dict[int, object] = {}
    order = [root.grad_fn]
    seen[id(root.grad_fn)] = root.grad_fn
    index = 0
    while index < len(order):
        fn = order[index]
        index += 1
        for child, _ in getattr(fn, "next_functions", ()):
            if child is None:
                child = _NoGrad()
            elif id(child) in seen:
                edges.append((fn, seen[id(child)]))
                continue
            seen[id(child)] = child
            order.append(child)
            edges.append((fn, child))
    nodes = order
    depth = {id(n): 0 for n in nodes}
    for _ in range(len(nodes)):
        changed = False
        for parent, child in edges:
            if depth[id(child)] < depth[id(parent)] + 1:
                depth[id(child)] = depth[id(parent)] + 1
                changed = True
        if not changed:
            break
    return nodes, edges, depth


class _NoGrad:
    """Stands for a None in next_functions: an input that autograd does not track."""


def _label(node: object, names: Mapping[str, torch.Tensor]) -> tuple[str, str]:
    if isinstance(node, _NoGrad):
        return "None\n(input without requires_grad)", "none"
    kind = type(node).__name__
    variable = getattr(node, "variable", None)
    if kind == "AccumulateGrad" and isinstance(variable, torch.Tensor):
        name = _name_of(variable, names) or "leaf"
        return f"AccumulateGrad\n-> {name}.grad, shape {_shape(variable)}", "leaf"
    return kind, "function"


def _box(ax, x: float, y: float, text: str, kind: str) -> None:
    ax.add_patch(
        patches.FancyBboxPatch(
            (x - BOX_W / 2, y - BOX_H / 2),
            BOX_W,
            BOX_H,
            boxstyle="round,pad=0.05",
            facecolor=COLOURS[kind],
            edgecolor="#555555",
            linestyle="--" if kind == "none" else "-",
            lw=1.2,
        )
    )
    ax.text(x, y, text, ha="center", va="center", fontsize=8.5, family="monospace")


class _Waypoint:
    """An invisible stop in a row that a long arrow passes through, so it never crosses a box."""


def _layout(nodes: list[object], edges: list[tuple[object, object]], depth: dict[int, int]):
    """Rows of nodes (waypoints included) in drawing order, and each edge as its chain of stops."""
    rows: dict[int, list[object]] = {}
    for node in nodes:
        rows.setdefault(depth[id(node)], []).append(node)
    chains = []
    for parent, child in edges:
        chain = [parent]
        for row in range(depth[id(parent)] + 1, depth[id(child)]):
            stop = _Waypoint()
            rows[row].append(stop)
            depth[id(stop)] = row
            chain.append(stop)
        chains.append(chain + [child])
    parents: dict[int, list[object]] = {}
    for chain in chains:
        for a, b in zip(chain, chain[1:]):
            parents.setdefault(id(b), []).append(a)
    slot: dict[int, int] = {}
    for row in sorted(rows):
        if row > 0:

            def centre(node: object) -> float:
                above = [slot[id(p)] for p in parents.get(id(node), []) if id(p) in slot]
                return sum(above) / len(above) if above else 0.0

            rows[row].sort(key=centre)
        for i, node in enumerate(rows[row]):
            slot[id(node)] = i
    return rows, chains


def _draw_chain(ax, points: list[tuple[float, float]], shift: float) -> None:
    """A line through `points` (box centres, or waypoints), ending in an arrowhead on the last box."""
    xs = [x + shift for x, _ in points]
    ys = [y for _, y in points]
    ys[0] -= BOX_H / 2 + 0.05
    ys[-1] += BOX_H / 2 + 0.05
    if len(points) > 2:
        ax.plot(xs[:-1], ys[:-1], color="#333333", lw=1.2)
    ax.add_patch(
        patches.FancyArrowPatch(
            (xs[-2], ys[-2]), (xs[-1], ys[-1]), arrowstyle="-|>", mutation_scale=12, lw=1.2, color="#333333"
        )
    )


def draw_graph(
    root: torch.Tensor, names: Mapping[str, torch.Tensor] | None = None, *, title: str | None = None
) -> Figure:
    """The graph that `root.backward()` would walk: one box per node, arrows along next_functions.

    The top box is `root` itself; below it `root.grad_fn`, and below each node the nodes in its
    `next_functions`. Green boxes (AccumulateGrad) are where a gradient is added to a leaf's `.grad`;
    `names` maps a label to a tensor so those boxes can say which leaf ({"weight": weight}); the root
    is labelled by its entry in `names` too. Grey dashed boxes are None entries: inputs that do not
    require grad, which backward() skips. Two arrows between the same boxes mean the node uses that
    input twice (as in a * a): both gradients arrive and add up. A tensor without grad_fn gets one box
    that says so.
    """
    names = dict(names or {})
    root_name = _name_of(root, names) or "result"
    nodes, edges, depth = graph_nodes(root)
    rows, chains = _layout(nodes, edges, depth)
    widest = max((len(r) for r in rows.values()), default=1)
    n_rows = len(rows) + 1
    width = widest * (BOX_W + COL_GAP)
    step = BOX_H + ROW_GAP
    fig, ax = plt.subplots(figsize=(max(5.5, 1.15 * width + 0.6), 0.95 * n_rows * step + 0.6))
    if root.grad_fn is None:
        status = "is a leaf" if root.requires_grad else "has requires_grad=False"
        _box(ax, 0.0, 0.0, f"{root_name}: grad_fn is None\n(it {status}: no graph)", "result")
    else:
        _box(ax, 0.0, 0.0, f"{root_name}, shape {_shape(root)}\n.grad_fn", "result")
    where: dict[int, tuple[float, float]] = {}
    for row, members in rows.items():
        for i, node in enumerate(members):
            where[id(node)] = ((i - (len(members) - 1) / 2) * (BOX_W + COL_GAP), -(row + 1) * step)
            if not isinstance(node, _Waypoint):
                _box(ax, *where[id(node)], *_label(node, names))
    if nodes:
        _draw_chain(ax, [(0.0, 0.0), where[id(nodes[0])]], 0.0)
    pairs: dict[tuple[int, int], int] = {}
    for parent, child in edges:
        pairs[(id(parent), id(child))] = pairs.get((id(parent), id(child)), 0) + 1
    drawn: dict[tuple[int, int], int] = {}
    for chain in chains:
        key = (id(chain[0]), id(chain[-1]))
        k = drawn[key] = drawn.get(key, -1) + 1
        _draw_chain(ax, [where[id(n)] for n in chain], (k - (pairs[key] - 1) / 2) * 0.5)
    half = width / 2
    ax.set_xlim(-half - 0.2, half + 0.2)
    ax.set_ylim(-(n_rows - 1) * step - BOX_H, BOX_H)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title or "The graph backward() walks, from the top down", fontsize=10)
    fig.tight_layout()
    plt.close(fig)
    return fig


def draw_tangent(f: Callable[[torch.Tensor], torch.Tensor], x0: float, slope: float, *, span: float = 2.0) -> Figure:
    """A scalar function of one number near `x0`, with the line through (x0, f(x0)) of the given slope.

    When `slope` is the gradient at x0, the line touches the curve there (a tangent): the gradient
    says how fast f changes when x0 is nudged.
    """
    xs = torch.linspace(x0 - span, x0 + span, 200, dtype=torch.float64)
    with torch.no_grad():
        ys = torch.stack([f(v) for v in xs])
        y0 = float(f(torch.tensor(x0, dtype=torch.float64)))
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    ax.plot(xs.numpy(), ys.numpy(), color="#1f77b4", lw=2, label="f(x)")
    near = torch.linspace(x0 - span / 2, x0 + span / 2, 2, dtype=torch.float64)
    ax.plot(
        near.numpy(),
        (y0 + slope * (near - x0)).numpy(),
        color="#d62728",
        lw=1.5,
        ls="--",
        label=f"line with slope {slope:.4g}",
    )
    ax.plot([x0], [y0], "o", color="black")
    ax.annotate(f"x = {x0:g}", (x0, y0), textcoords="offset points", xytext=(8, -14), fontsize=9)
    ax.set_xlabel("x")
    ax.set_ylabel("f(x)")
    ax.legend(loc="best", fontsize=9)
    ax.set_title("The gradient is the slope of f at x", fontsize=10)
    fig.tight_layout()
    plt.close(fig)
    return fig
