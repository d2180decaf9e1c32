"""Expected results of the training lesson's scenarios, for hidden tests (see `course.probes.training`)."""

from __future__ import annotations

from typing import Any

import torch

from course.probes.training import evaluation_scenario, training_scenario


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
