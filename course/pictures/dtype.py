"""Pictures for lesson 02: a table of the common dtypes, with numbers read from torch itself.

Bytes, ranges and precision come from `element_size()`, `torch.iinfo` and `torch.finfo`, so the
table cannot drift from the installed PyTorch. The function returns a closed figure.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import torch

from course.pictures.lazy import plt

if TYPE_CHECKING:
    from matplotlib.figure import Figure

TYPICAL_USE = {
    torch.bool: "masks, yes/no flags",
    torch.uint8: "raw image pixels (0 to 255)",
    torch.int32: "compact indices and counts",
    torch.int64: "default for Python ints; class labels, indices",
    torch.float16: "mixed-precision training and inference on GPUs",
    torch.bfloat16: "mixed-precision training on recent GPUs",
    torch.float32: "default for Python floats; weights, inputs, activations",
    torch.float64: "NumPy's default float; scientific code, rarely models",
}
DEFAULTS = (torch.float32, torch.int64)


def _number(value: float) -> str:
    if abs(value) < 1e6:
        return f"{int(value):,}"
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def range_and_precision(dtype: torch.dtype) -> str:
    """One cell of the table: the values a dtype can hold and how finely."""
    if dtype == torch.bool:
        return "False or True"
    if dtype.is_floating_point:
        info = torch.finfo(dtype)
        digits = round(-math.log10(info.resolution))
        return f"±{_number(info.max)}, about {digits} significant digits"
    info = torch.iinfo(dtype)
    return f"{_number(info.min)} to {_number(info.max)}, whole numbers"


def dtype_rows(dtypes=tuple(TYPICAL_USE)) -> list[list[str]]:
    """The table's rows: dtype name, bytes per element, range and precision, typical use."""
    rows = []
    for dtype in dtypes:
        size = torch.empty((), dtype=dtype).element_size()
        rows.append(
            [str(dtype).removeprefix("torch."), str(size), range_and_precision(dtype), TYPICAL_USE.get(dtype, "")]
        )
    return rows


def dtype_table(dtypes=tuple(TYPICAL_USE)) -> Figure:
    """The common dtypes as a table; the two defaults (float32 and int64) are highlighted."""
    rows = dtype_rows(dtypes)
    header = ["dtype", "bytes per element", "range and precision", "typical use"]
    fig, ax = plt.subplots(figsize=(12.5, 0.36 * (len(rows) + 1) + 0.5))
    ax.axis("off")
    table = ax.table(cellText=rows, colLabels=header, colWidths=[0.12, 0.13, 0.37, 0.38], loc="center", cellLoc="left")
    table.auto_set_font_size(False)
    table.set_fontsize(10.5)
    table.scale(1, 1.5)
    for (row, col), cell in table.get_celld().items():
        cell.PAD = 0.03
        if row == 0:
            cell.set_facecolor("#37474f")
            cell.set_text_props(color="white", weight="bold")
        elif dtypes[row - 1] in DEFAULTS:
            cell.set_facecolor("#fff3c4")
            if col == 0:
                cell.set_text_props(weight="bold")
    ax.set_title("Common dtypes (highlighted: the defaults for Python floats and ints)", fontsize=12, pad=6)
    fig.tight_layout()
    plt.close(fig)
    return fig
