"""Toy image data for the training lessons: deterministic, made on the spot, nothing to download.

Each image shows one shape (its class) in a random colour, shifted a few pixels at random, on a
background of random brightness with Gaussian noise. The classes are easy enough for a linear model
to learn in a second, and noisy enough that one or two updates are not enough.
"""

from __future__ import annotations

import torch

CLASS_NAMES = ("horizontal bar", "vertical bar", "square", "ring", "diagonal", "anti-diagonal")


def _shape_masks(kind: int, size: int, dy: torch.Tensor, dx: torch.Tensor) -> torch.Tensor:
    """Masks (n, size, size) in {0, 1} of shape `kind`, its centre moved by (dy, dx) per image."""
    coords = torch.arange(size, dtype=torch.float32)
    centre = (size - 1) / 2
    y = coords.view(1, size, 1) - (centre + dy.view(-1, 1, 1))
    x = coords.view(1, 1, size) - (centre + dx.view(-1, 1, 1))
    half = max(size / 10, 1.0)
    if kind == 0:
        mask = (y.abs() <= half).expand(-1, -1, size)
    elif kind == 1:
        mask = (x.abs() <= half).expand(-1, size, -1)
    elif kind == 2:
        mask = torch.maximum(y.abs(), x.abs()) <= size / 5
    elif kind == 3:
        mask = ((y * y + x * x).sqrt() - size / 3.5).abs() <= max(size / 20, 0.75)
    elif kind == 4:
        mask = (y - x).abs() <= half
    else:
        mask = (y + x).abs() <= half
    return mask.to(torch.float32)


def make_images(
    n: int,
    *,
    seed: int,
    num_classes: int = 4,
    size: int = 32,
    channels: int = 3,
    noise: float = 0.8,
) -> tuple[torch.Tensor, torch.Tensor]:
    """`n` labelled images: (images float32 (n, channels, size, size), labels int64 (n,)), on the CPU.

    The same arguments always give the same tensors (only a seeded torch.Generator is used, the global
    random state is left alone). Labels are balanced: each class appears n // num_classes or one more
    times, in random order.
    """
    if n < 0:
        raise ValueError(f"n must be 0 or more, got {n}")
    if not 2 <= num_classes <= len(CLASS_NAMES):
        raise ValueError(f"num_classes must be between 2 and {len(CLASS_NAMES)}, got {num_classes}")
    if size < 4 or channels < 1:
        raise ValueError(f"size must be at least 4 and channels at least 1, got size={size}, channels={channels}")
    g = torch.Generator().manual_seed(int(seed))
    labels = (torch.arange(n) % num_classes)[torch.randperm(n, generator=g)]
    jitter = max(size // 8, 1)
    dy = torch.randint(-jitter, jitter + 1, (n,), generator=g).to(torch.float32)
    dx = torch.randint(-jitter, jitter + 1, (n,), generator=g).to(torch.float32)
    masks = torch.zeros(n, size, size)
    for kind in range(num_classes):
        chosen = labels == kind
        if chosen.any():
            masks[chosen] = _shape_masks(kind, size, dy[chosen], dx[chosen])
    colour = 0.5 + 0.5 * torch.rand(n, channels, 1, 1, generator=g)
    background = 0.4 * torch.rand(n, 1, 1, 1, generator=g) - 0.2
    images = background + colour * masks.unsqueeze(1)
    images = images + noise * torch.randn(n, channels, size, size, generator=g)
    return images.to(torch.float32), labels.to(torch.int64)


def train_test_images(
    n_train: int, n_test: int, *, seed: int = 0, **kwargs
) -> tuple[tuple[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]]:
    """A training set and a held-out set from the same generator with different seeds.

    The held-out images use seed `seed + 1_000_003`, so they never repeat a training image's noise.
    Extra keyword arguments (num_classes, size, channels, noise) go to `make_images`.
    """
    train = make_images(n_train, seed=seed, **kwargs)
    test = make_images(n_test, seed=seed + 1_000_003, **kwargs)
    return train, test
