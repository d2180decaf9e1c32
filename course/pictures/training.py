"""Pictures for lesson 07: the toy images, the cycle of one training step, and a loss curve.

Each function returns a closed `matplotlib.figure.Figure`: a notebook displays it once when it is the
last expression of a cell, and a script can `savefig` it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import torch

from course.data import CLASS_NAMES
from course.pictures.lazy import patches, plt

if TYPE_CHECKING:
    from matplotlib.figure import Figure

STAGES = (
    ("optimizer.zero_grad()", "forget the gradients\nof the last step"),
    ("logits = model(images)", "forward: (N, C, H, W)\nto (N, classes)"),
    ("loss = loss_fn(logits, labels)", "one number: how wrong\nthe predictions are"),
    ("loss.backward()", "fill every parameter's\n.grad"),
    ("optimizer.step()", "move the parameters\nagainst their .grad"),
)


def show_images(
    images: torch.Tensor,
    labels: torch.Tensor,
    *,
    count: int = 8,
    class_names: Sequence[str] = CLASS_NAMES,
    predicted: torch.Tensor | None = None,
) -> Figure:
    """The first `count` images of a (N, C, H, W) batch, each titled with its label (and prediction).

    Each image is stretched to the full colour range on its own, so the noise and the shape show.
    """
    images = images.detach().to("cpu", torch.float32)[:count]
    labels = labels.detach().to("cpu")[:count]
    n = len(images)
    fig, axes = plt.subplots(1, max(n, 1), figsize=(1.6 * max(n, 1), 2.0), squeeze=False)
    for i, ax in enumerate(axes[0]):
        ax.set_axis_off()
        if i >= n:
            continue
        picture = images[i]
        low, high = picture.min(), picture.max()
        picture = (picture - low) / (high - low + 1e-8)
        if picture.shape[0] == 1:
            ax.imshow(picture[0].numpy(), cmap="gray", vmin=0, vmax=1)
        else:
            ax.imshow(picture[:3].permute(1, 2, 0).numpy())
        title = class_names[int(labels[i])]
        colour = "black"
        if predicted is not None:
            guess = int(predicted[i])
            colour = "tab:green" if guess == int(labels[i]) else "tab:red"
            title += f"\nguess: {class_names[guess]}"
        ax.set_title(title, fontsize=8, color=colour)
    fig.tight_layout()
    plt.close(fig)
    return fig


def training_step_diagram() -> Figure:
    """The five stages of one training step, in order, as a row of boxes joined by arrows."""
    fig, ax = plt.subplots(figsize=(12, 2.4))
    width, gap = 2.3, 0.35
    for index, (code, meaning) in enumerate(STAGES):
        x = index * (width + gap)
        ax.add_patch(
            patches.FancyBboxPatch(
                (x, 0.9), width, 0.8, boxstyle="round,pad=0.05", facecolor="#cfe2f3", edgecolor="#3d6a99"
            )
        )
        ax.text(x + width / 2, 1.3, code, ha="center", va="center", fontsize=7, family="monospace")
        ax.text(x + width / 2, 0.45, meaning, ha="center", va="center", fontsize=8)
        ax.text(x + 0.08, 1.62, str(index + 1), ha="left", va="center", fontsize=8, color="#3d6a99", weight="bold")
        if index < len(STAGES) - 1:
            ax.add_patch(
                patches.FancyArrowPatch(
                    (x + width + 0.04, 1.3), (x + width + gap - 0.04, 1.3), arrowstyle="-|>", mutation_scale=12
                )
            )
    total = len(STAGES) * width + (len(STAGES) - 1) * gap
    ax.add_patch(
        patches.FancyArrowPatch(
            (total - width / 2, 1.75),
            (width / 2, 1.75),
            connectionstyle="arc3,rad=0.12",
            arrowstyle="-|>",
            mutation_scale=12,
            color="gray",
        )
    )
    ax.text(total / 2, 2.25, "next batch", ha="center", va="center", fontsize=8, color="gray")
    ax.set_xlim(-0.2, total + 0.2)
    ax.set_ylim(0.1, 2.45)
    ax.set_axis_off()
    fig.tight_layout()
    plt.close(fig)
    return fig


def plot_loss_curve(
    losses: Sequence[float],
    *,
    accuracies: Sequence[float] | None = None,
    steps_per_epoch: int | None = None,
    title: str = "Training loss",
) -> Figure:
    """The loss of each step (thin), its running mean (thick) and, if given, accuracy per epoch.

    `accuracies` holds one value per epoch, drawn on a second axis at the end of each epoch
    (`steps_per_epoch` steps apart; by default the steps are split evenly between the epochs).
    """
    losses = [float(v) for v in losses]
    fig, ax = plt.subplots(figsize=(7, 3.2))
    steps = range(1, len(losses) + 1)
    ax.plot(steps, losses, color="tab:blue", alpha=0.35, linewidth=1, label="loss of each step")
    window = max(1, len(losses) // 20)
    if len(losses) >= window > 1:
        smooth = torch.tensor(losses).unfold(0, window, 1).mean(dim=1).tolist()
        ax.plot(
            range(window, len(losses) + 1), smooth, color="tab:blue", linewidth=2.2, label=f"mean of {window} steps"
        )
    ax.set_xlabel("step (one batch, one update)")
    ax.set_ylabel("loss", color="tab:blue")
    ax.set_ylim(bottom=0)
    ax.set_title(title)
    handles, names = ax.get_legend_handles_labels()
    if accuracies:
        per_epoch = steps_per_epoch or max(1, len(losses) // len(accuracies))
        where = [per_epoch * (i + 1) for i in range(len(accuracies))]
        right = ax.twinx()
        right.plot(where, [float(a) for a in accuracies], "o-", color="tab:orange", label="held-out accuracy")
        right.set_ylim(0, 1.02)
        right.set_ylabel("accuracy", color="tab:orange")
        more_handles, more_names = right.get_legend_handles_labels()
        handles, names = handles + more_handles, names + more_names
    ax.legend(handles, names, loc="center right", fontsize=8)
    fig.tight_layout()
    plt.close(fig)
    return fig
