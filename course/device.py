"""Device helpers: the first cell of a lesson describes its device, and hidden tests know where to run.

Lessons pick their device with the idiom they teach, `torch.device("cuda" if
torch.cuda.is_available() else "cpu")`, in their own first cell: the package itself never picks a
device for the student, since that is a graded item (`pick_device`).
"""

from __future__ import annotations

import torch


def cuda_available() -> bool:
    return torch.cuda.is_available()


def test_devices(*, meta: bool = False) -> list[str]:
    """Devices the hidden tests run an item on: the CPU, `meta` if asked, and CUDA when present."""
    devices = ["cpu"]
    if meta:
        devices.append("meta")
    if torch.cuda.is_available():
        devices.append("cuda")
    return devices


def describe_setup(device: torch.device) -> str:
    """One paragraph for the first cell of every lesson: the PyTorch version, the device and what it means."""
    where = torch.device(device)
    lines = [f"PyTorch {torch.__version__}; this lesson will use device '{where}'."]
    if where.type == "cuda":
        lines.append(
            f"GPU: {torch.cuda.get_device_name(where)} (torch.cuda.device_count() = {torch.cuda.device_count()})."
        )
    elif torch.cuda.is_available():
        lines.append("A CUDA GPU is visible, but this lesson was told to run on the CPU.")
    else:
        lines.append(
            "No CUDA GPU is visible (torch.cuda.is_available() is False), so everything runs on the CPU. "
            "That is fine: every example and test works on a laptop CPU."
        )
    return "\n".join(lines)
