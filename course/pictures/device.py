"""Pictures for lesson 03: where a tensor's bytes live, and the bus a `.to()` copies them across."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from course.pictures.lazy import patches, plt

if TYPE_CHECKING:
    from matplotlib.figure import Figure

CPU_COLOUR = "#f3e3c3"
GPU_COLOUR = "#cfe8cf"
TENSOR_COLOUR = "#ffffff"


def _side(ax, x: float, title: str, subtitle: str, speed: str, colour: str, names: Sequence[str]) -> None:
    """One memory chip: a box, its title, the tensors that live in it, and how fast it is read."""
    ax.add_patch(
        patches.FancyBboxPatch(
            (x, 0.18),
            0.34,
            0.66,
            boxstyle="round,pad=0.01,rounding_size=0.03",
            facecolor=colour,
            edgecolor="#555555",
            linewidth=1.5,
        )
    )
    ax.text(x + 0.17, 0.79, title, ha="center", va="center", fontsize=12, weight="bold")
    ax.text(x + 0.17, 0.73, subtitle, ha="center", va="center", fontsize=9, color="#333333")
    top = 0.62
    for name in names:
        ax.add_patch(
            patches.FancyBboxPatch(
                (x + 0.03, top - 0.05),
                0.28,
                0.09,
                boxstyle="round,pad=0.005",
                facecolor=TENSOR_COLOUR,
                edgecolor="#777777",
            )
        )
        ax.text(x + 0.17, top - 0.005, name, ha="center", va="center", fontsize=9, family="monospace")
        top -= 0.13
    ax.text(x + 0.17, 0.23, speed, ha="center", va="center", fontsize=8.5, style="italic", color="#333333")


def memory_and_bus(
    cpu_tensors: Sequence[str] = ("x = torch.randn(1000, 1000)",),
    gpu_tensors: Sequence[str] = ("x_gpu = x.to('cuda')",),
) -> Figure:
    """CPU memory and GPU memory as two separate boxes, the PCIe bus between them.

    Each name in `cpu_tensors` / `gpu_tensors` is drawn as a tensor living on that side (three fit
    comfortably on each side).
    """
    fig, ax = plt.subplots(figsize=(10, 4.2))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    _side(
        ax, 0.02, "CPU", "system RAM, on the motherboard", "the CPU reads it at tens of GB/s", CPU_COLOUR, cpu_tensors
    )
    _side(
        ax,
        0.64,
        "GPU",
        "VRAM, soldered onto the graphics card",
        "the GPU reads it at up to several TB/s",
        GPU_COLOUR,
        gpu_tensors,
    )
    for y, label in ((0.56, ".to('cuda')"), (0.44, ".to('cpu')")):
        start, end = (0.37, 0.63) if y > 0.5 else (0.63, 0.37)
        ax.add_patch(
            patches.FancyArrowPatch(
                (start, y), (end, y), arrowstyle="-|>", mutation_scale=18, linewidth=2, color="#aa3333"
            )
        )
        ax.text(0.5, y + 0.035, label, ha="center", va="center", fontsize=9, family="monospace", color="#aa3333")
    ax.text(0.5, 0.355, "PCIe bus", ha="center", va="center", fontsize=11, weight="bold", color="#aa3333")
    ax.text(
        0.5,
        0.26,
        "about 32 GB/s (PCIe 4.0 x16):\nevery crossing is a real copy",
        ha="center",
        va="center",
        fontsize=8.5,
        color="#aa3333",
    )
    ax.text(
        0.5,
        0.07,
        "One operation works on one side only: a CPU tensor plus a GPU tensor raises a RuntimeError.",
        ha="center",
        va="center",
        fontsize=10,
    )
    ax.set_title("Two separate memories, one narrow road between them", fontsize=13)
    plt.close(fig)
    return fig
