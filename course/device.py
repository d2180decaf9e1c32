"""Device helpers: one line at the top of a lesson picks the device, and tests know where to run."""

from __future__ import annotations

import torch


def default_device() -> torch.device:
    """The device a lesson runs on: the first GPU when CUDA is there, else the CPU."""
    if torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")


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


def describe_setup() -> str:
    """One paragraph for the first cell of every lesson: which device and how to check it."""
    device = default_device()
    lines = [f"PyTorch {torch.__version__}; this lesson will use device '{device}'."]
    if device.type == "cuda":
        lines.append(f"GPU: {torch.cuda.get_device_name(0)} (torch.cuda.device_count() = {torch.cuda.device_count()}).")
    else:
        lines.append(
            "No CUDA GPU is visible (torch.cuda.is_available() is False), so everything runs on the CPU. "
            "That is fine: every example and test works on a laptop CPU."
        )
    return "\n".join(lines)
