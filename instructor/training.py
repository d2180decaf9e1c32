"""Expected results of the training lesson's scenarios, for hidden tests (see `course.probes.training`)."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from course.data import make_images
from course.probes.training import epoch_scenario, evaluation_scenario, training_scenario


def expected_training_step(seed: int, **kwargs: Any) -> dict[str, Any]:
    """What one correct update does in the scenario: {"loss": float before the update, "params": [...]}."""
    s = training_scenario(seed, **kwargs)
    model, opt = s["model"], s["optimizer"]
    for p in model.parameters():
        p.grad = None
    loss = s["loss_fn"](model(s["images"]), s["labels"])
    loss.backward()
    opt.step()
    return {"loss": loss.item(), "params": [p.detach().to("cpu").clone() for p in model.parameters()]}


def expected_accuracy(seed: int, **kwargs: Any) -> float:
    """The fraction of correct predictions in `evaluation_scenario(seed, **kwargs)`, in evaluation mode."""
    s = evaluation_scenario(seed, **kwargs)
    model = s["model"].eval()
    with torch.no_grad():
        predicted = model(s["images"]).argmax(dim=1)
    return (predicted == s["labels"]).to(torch.float64).mean().item()


def expected_epoch(seed: int, **kwargs: Any) -> dict[str, Any]:
    """What one correct epoch does in `epoch_scenario(seed, **kwargs)`: {"loss" (mean of the batch losses), "batches",
    "losses", "params", "buffers"}; the global random generators are seeded with `seed`, as the probe does."""
    s = epoch_scenario(seed, **kwargs)
    model, optimizer, loss_fn = s["model"], s["optimizer"], s["loss_fn"]
    device = torch.device(kwargs.get("device", "cpu"))
    losses = []
    with torch.random.fork_rng(devices=[] if device.type != "cuda" else None):
        torch.manual_seed(seed)
        model.train()
        for images, labels in s["loader"]:
            images, labels = images.to(device), labels.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(images), labels)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return {
        "loss": sum(losses) / len(losses),
        "batches": len(losses),
        "losses": losses,
        "params": [p.detach().to("cpu").clone() for p in model.parameters()],
        "buffers": [b.detach().to("cpu").clone() for b in model.buffers()],
    }


TWO_LAYER_NET = "Flatten, Linear(3*32*32, hidden), ReLU, Linear(hidden, num_classes)"
TWO_LAYER_DEFAULTS = {"hidden": 32, "num_classes": 4}
IN_FEATURES = 3 * 32 * 32


def two_layer_param_count(hidden: int = 32, num_classes: int = 4) -> int:
    return IN_FEATURES * hidden + hidden + hidden * num_classes + num_classes


def _roles(shapes: list[tuple], hidden: int, num_classes: int) -> list[tuple[str, bool]] | None:
    """For each parameter (by shape): which of w1, b1, w2, b2 it is and whether it is stored transposed; None if not exactly those four."""
    table = {
        (hidden, IN_FEATURES): ("w1", False),
        (IN_FEATURES, hidden): ("w1", True),
        (hidden,): ("b1", False),
        (num_classes, hidden): ("w2", False),
        (hidden, num_classes): ("w2", True),
        (num_classes,): ("b2", False),
    }
    roles = [table.get(tuple(shape)) for shape in shapes]
    if None in roles or sorted(r for r, _ in roles) != ["b1", "b2", "w1", "w2"]:
        return None
    return roles


def expected_module_class(
    found: dict[str, Any], seed: int, *, init: dict | None = None, num_classes: int = 4
) -> dict[str, Any] | None:
    """The fixed architecture run on the parameters a `module_class_probe` report holds: its logits before training,
    its parameters after the same SGD steps (in the model's own order and layout) and its logits after them.

    None when the parameters are not the four tensors of `TWO_LAYER_NET` (matched by shape, weights in either layout).
    """
    settings = dict(TWO_LAYER_DEFAULTS, **(init or {}))
    hidden = settings["hidden"]
    roles = _roles(found["param_shapes"] or [], hidden, num_classes)
    if roles is None or found["params_before"] is None:
        return None
    images, labels = make_images(found["n"], seed=seed, num_classes=num_classes)
    params: dict[str, torch.Tensor] = {}
    for (role, transposed), value in zip(roles, found["params_before"]):
        value = value.detach().to("cpu", torch.float32)
        params[role] = (value.t() if transposed else value).clone().requires_grad_(True)

    def forward() -> torch.Tensor:
        h = torch.relu(nn.functional.linear(images.flatten(1), params["w1"], params["b1"]))
        return nn.functional.linear(h, params["w2"], params["b2"])

    with torch.no_grad():
        before = forward()
    optimizer = torch.optim.SGD(list(params.values()), lr=found["lr"])
    for _ in range(found["steps"]):
        optimizer.zero_grad()
        nn.functional.cross_entropy(forward(), labels).backward()
        optimizer.step()
    with torch.no_grad():
        after = forward()
    moved = [(params[role].t() if transposed else params[role]).detach().clone() for role, transposed in roles]
    return {"logits_before": before, "params_after": moved, "logits_after": after}
