"""Probes and scenarios for the training lesson.

Models, optimizers and loss functions cannot travel between processes, so each scenario is built
from plain parameters (a seed and a few sizes): the same parameters give the same weights, images and
labels wherever they are built. A probe builds a scenario next to the student's function, calls it
and returns plain data; the test cell builds the same scenario itself to know what to expect, and
reads the report with the `check_*` functions at the end of this module.
"""

from __future__ import annotations

import math
import time
from typing import Any

import torch
from torch import nn

from course.checks import CheckFailed, check_tensor, check_true, fail
from course.data import make_images
from course.probes import probe

STALE_GRAD = 3.0  # the value left in every .grad before the call in the "stale gradients" scenarios


def _type_name(value: Any) -> str:
    cls = type(value)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def _a(name: str) -> str:
    """The type name with its article: "an int", "a torch.Tensor"."""
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


def _as_float(value: Any) -> float | None:
    if isinstance(value, torch.Tensor):
        value = value.detach()
    try:
        return float(value)
    except (TypeError, ValueError, RuntimeError):
        return None


def make_model(seed: int, *, in_features: int, num_classes: int, hidden: int = 0, device: str = "cpu") -> nn.Module:
    """Flatten then Linear (or Linear, ReLU, Linear when `hidden` > 0), weights drawn from `seed` only."""
    if hidden:
        model = nn.Sequential(nn.Flatten(), nn.Linear(in_features, hidden), nn.ReLU(), nn.Linear(hidden, num_classes))
    else:
        model = nn.Sequential(nn.Flatten(), nn.Linear(in_features, num_classes))
    g = torch.Generator().manual_seed(int(seed) + 7919)
    with torch.no_grad():
        for p in model.parameters():
            fan_in = p.shape[-1] if p.dim() > 1 else in_features
            p.copy_(torch.randn(p.shape, generator=g) / fan_in**0.5)
    return model.to(device)


def training_scenario(
    seed: int,
    *,
    batch_size: int = 8,
    size: int = 8,
    channels: int = 3,
    num_classes: int = 4,
    hidden: int = 0,
    optimizer: str = "sgd",
    lr: float = 0.5,
    label_smoothing: float = 0.0,
    device: str = "cpu",
    stale_grads: bool = False,
) -> dict[str, Any]:
    """A model, a batch, an optimizer and a loss function, all determined by the arguments.

    With `stale_grads`, every parameter's .grad holds STALE_GRAD, as if an earlier backward had left
    it there.
    """
    images, labels = make_images(batch_size, seed=seed, size=size, channels=channels, num_classes=num_classes)
    model = make_model(seed, in_features=channels * size * size, num_classes=num_classes, hidden=hidden, device=device)
    if optimizer == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=lr)
    elif optimizer == "adam":
        opt = torch.optim.Adam(model.parameters(), lr=lr)
    else:
        raise ValueError(f"unknown optimizer {optimizer!r}")
    if stale_grads:
        for p in model.parameters():
            p.grad = torch.full_like(p, STALE_GRAD)
    return {
        "model": model,
        "images": images.to(device),
        "labels": labels.to(device),
        "optimizer": opt,
        "loss_fn": nn.CrossEntropyLoss(label_smoothing=label_smoothing),
    }


def _params(model: nn.Module) -> list[torch.Tensor]:
    return [p.detach().to("cpu").clone() for p in model.parameters()]


def expected_training_step(seed: int, **kwargs: Any) -> dict[str, Any]:
    """What one correct update does in the scenario: {"loss": float before the update, "params": [...]}."""
    s = training_scenario(seed, **kwargs)
    model, opt = s["model"], s["optimizer"]
    for p in model.parameters():
        p.grad = None
    loss = s["loss_fn"](model(s["images"]), s["labels"])
    loss.backward()
    opt.step()
    return {"loss": loss.item(), "params": _params(model)}


@probe
def training_step_probe(training_step: Any, seed: int, **kwargs: Any) -> dict[str, Any]:
    """Build `training_scenario(seed, **kwargs)`, call `training_step` on it once, report plain data.

    Returns {"loss_type", "loss" (the returned value as a float, None if it is not a number),
    "loss_requires_grad", "params_before", "params" (after the call), "inputs_unchanged"}.
    """
    s = training_scenario(seed, **kwargs)
    before = _params(s["model"])
    images, labels = s["images"].clone(), s["labels"].clone()
    result = training_step(s["model"], s["images"], s["labels"], s["optimizer"], s["loss_fn"])
    return {
        "loss_type": _type_name(result),
        "loss": _as_float(result),
        "loss_requires_grad": bool(getattr(result, "requires_grad", False)),
        "params_before": before,
        "params": _params(s["model"]),
        "inputs_unchanged": torch.equal(images, s["images"]) and torch.equal(labels, s["labels"]),
    }


def evaluation_scenario(
    seed: int,
    *,
    n: int = 40,
    size: int = 8,
    channels: int = 3,
    num_classes: int = 4,
    hidden: int = 0,
    train_steps: int = 3,
    device: str = "cpu",
) -> dict[str, Any]:
    """A model made better than chance by a few fixed updates, and a batch to evaluate it on."""
    s = training_scenario(seed, batch_size=64, size=size, channels=channels, num_classes=num_classes, hidden=hidden)
    model = s["model"]
    for _ in range(train_steps):
        s["optimizer"].zero_grad()
        s["loss_fn"](model(s["images"]), s["labels"]).backward()
        s["optimizer"].step()
    for p in model.parameters():
        p.grad = None
    images, labels = make_images(n, seed=seed + 1, size=size, channels=channels, num_classes=num_classes)
    return {"model": model.to(device), "images": images.to(device), "labels": labels.to(device)}


def expected_accuracy(seed: int, **kwargs: Any) -> float:
    """The fraction of correct predictions in `evaluation_scenario(seed, **kwargs)`."""
    s = evaluation_scenario(seed, **kwargs)
    with torch.no_grad():
        predicted = s["model"](s["images"]).argmax(dim=1)
    return (predicted == s["labels"]).to(torch.float64).mean().item()


@probe
def evaluate_probe(evaluate: Any, seed: int, *, images_require_grad: bool = False, **kwargs: Any) -> dict[str, Any]:
    """Build `evaluation_scenario(seed, **kwargs)`, call `evaluate` on it, report plain data.

    Returns {"type", "value" (as a float, None if not a number), "forward_calls" (layer calls seen),
    "graph_recorded" (a layer's output has a grad_fn), "grads_touched" (a parameter's .grad is no
    longer None), "requires_grad_changed", "params_changed", "inputs_unchanged"}.
    """
    s = evaluation_scenario(seed, **kwargs)
    model, images, labels = s["model"], s["images"], s["labels"]
    if images_require_grad:
        images.requires_grad_(True)
    seen = {"calls": 0, "graph": False}

    def hook(module: nn.Module, args: Any, output: Any) -> None:
        seen["calls"] += 1
        if isinstance(output, torch.Tensor) and output.grad_fn is not None:
            seen["graph"] = True

    layers = [m for m in model.modules() if not list(m.children())]
    handles = [m.register_forward_hook(hook) for m in layers]
    before = _params(model)
    flags = [p.requires_grad for p in model.parameters()]
    saved = images.detach().clone(), labels.clone()
    try:
        result = evaluate(model, images, labels)
    finally:
        for h in handles:
            h.remove()
    return {
        "type": _type_name(result),
        "value": _as_float(result),
        "forward_calls": seen["calls"],
        "graph_recorded": seen["graph"],
        "grads_touched": any(p.grad is not None for p in model.parameters()),
        "requires_grad_changed": flags != [p.requires_grad for p in model.parameters()],
        "params_changed": not all(torch.equal(a, b) for a, b in zip(before, _params(model))),
        "inputs_unchanged": torch.equal(saved[0], images.detach()) and torch.equal(saved[1], labels),
    }


@probe
def train_classifier_probe(
    train_classifier: Any,
    seed_train: int,
    test_seeds: list[int],
    *,
    n_train: int = 512,
    n_test: int = 1000,
    device: str | None = None,
) -> dict[str, Any]:
    """Train once on `make_images(n_train, seed=seed_train)` with one CPU thread; measure held-out accuracy.

    `device` None calls `train_classifier(images, labels)`, else passes `device=device`. The wall
    time covers only that call (CUDA is started before the clock, so its start-up is not counted).
    Returns {"type", "is_module", "seconds", "threads", "accuracies" (one per test seed, None when
    the result is not a module), "model_error" (the error the model raised on held-out images, or
    None), "param_devices", "inputs_unchanged"}.
    """
    images, labels = make_images(n_train, seed=seed_train)
    saved = images.clone(), labels.clone()
    if device is not None and torch.device(device).type == "cuda":
        torch.zeros(1, device=device).sum().item()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        start = time.perf_counter()
        model = train_classifier(images, labels) if device is None else train_classifier(images, labels, device=device)
        if device is not None and torch.device(device).type == "cuda":
            torch.cuda.synchronize()
        seconds = time.perf_counter() - start
    finally:
        torch.set_num_threads(threads)
    is_module = isinstance(model, nn.Module)
    accuracies: list[float] | None = None
    devices: list[str] = []
    model_error = None
    if is_module:
        params = list(model.parameters())
        devices = sorted({str(p.device) for p in params})
        where = params[0].device if params else torch.device("cpu")
        model.eval()
        accuracies = []
        try:
            with torch.no_grad():
                for seed in test_seeds:
                    x, y = make_images(n_test, seed=seed)
                    predicted = model(x.to(where)).argmax(dim=1).to("cpu")
                    accuracies.append((predicted == y).to(torch.float64).mean().item())
        except Exception as error:  # the student's model rejects the held-out batch
            model_error = f"{type(error).__name__}: {error}"
    return {
        "type": _type_name(model),
        "is_module": is_module,
        "seconds": seconds,
        "threads": 1,
        "accuracies": accuracies,
        "model_error": model_error,
        "param_devices": devices,
        "inputs_unchanged": torch.equal(saved[0], images) and torch.equal(saved[1], labels),
    }


# Judge-side checks: they read what a probe measured and compare it with a rebuilt scenario.


def check_training_step(found: dict[str, Any], expected: dict[str, Any], *, what: str, stale_grads: bool = False) -> None:
    """Compare a `training_step_probe` report with `expected_training_step` for the same scenario."""
    where = f"({what}; measured in your process)"
    if found["loss_type"] != "float":
        hint = " Return loss.item(), which turns the 0-d loss tensor into a Python float." if found["loss"] is not None else ""
        fail(f"Expected training_step to return the loss as a Python float, but it returned {_a(found['loss_type'])} {where}.{hint}")
    if not math.isclose(found["loss"], expected["loss"], rel_tol=1e-5, abs_tol=1e-6):
        fail(
            f"Expected training_step to return the loss before the update, about {expected['loss']:.6g}, but it returned "
            f"{found['loss']:.6g} {where}. Compute the loss once, from this batch, before optimizer.step(), and return that value."
        )
    if all(torch.equal(a, b) for a, b in zip(found["params_before"], found["params"])):
        fail(
            f"Expected training_step to change the model's parameters, but they are exactly as before {where}. "
            "Order matters: zero_grad, forward, loss, backward, then optimizer.step()."
        )
    hint = ""
    if stale_grads:
        hint = (
            " Every parameter came in with an old gradient in its .grad: clear it (optimizer.zero_grad()) before "
            "loss.backward(), or the old gradient is added to the new one and leaks into the update."
        )
    for index, (got, want) in enumerate(zip(found["params"], expected["params"])):
        try:
            check_tensor(got, want, what=f"parameter {index} of the model after the update {where}", atol=1e-5, rtol=1e-4)
        except CheckFailed as error:
            raise CheckFailed(f"{error}{hint}") from None
    check_true(found["inputs_unchanged"], f"Expected training_step to leave the images and labels unchanged {where}, but it changed them.")


def check_evaluation(found: dict[str, Any], expected: float, *, what: str) -> None:
    """Compare an `evaluate_probe` report with `expected_accuracy` for the same scenario."""
    where = f"({what}; measured in your process)"
    if found["type"] != "float":
        if found["type"] == "int":
            hint = " Divide the number of correct predictions by the number of images, as floats."
        elif found["value"] is not None:
            hint = " Use .item() to turn a one-element tensor into a Python float."
        else:
            hint = ""
        fail(f"Expected evaluate to return the accuracy as a Python float, but it returned {_a(found['type'])} {where}.{hint}")
    value = found["value"]
    if not 0.0 <= value <= 1.0:
        fail(
            f"Expected an accuracy between 0 and 1 (the fraction of images predicted right), but found {value:.6g} {where}. "
            "A count of correct predictions must be divided by the number of images."
        )
    if not math.isclose(value, expected, rel_tol=1e-5, abs_tol=1e-6):
        fail(
            f"Expected the accuracy to be {expected:.6g}, but found {value:.6g} {where}. The predicted class of each image "
            "is the index of its largest logit along the class dimension (dim=1)."
        )
    check_true(
        not found["graph_recorded"],
        f"Expected evaluate to record no graph, but a layer's output was recorded in a graph (it has a grad_fn) {where}. "
        "Run the model inside `with torch.no_grad():` (detaching afterwards is too late: the graph was already built).",
    )
    check_true(not found["grads_touched"], f"Expected evaluate to leave every parameter's .grad as None {where}, but some .grad was set.")
    check_true(
        not found["requires_grad_changed"] and not found["params_changed"],
        f"Expected evaluate to leave the model's parameters as they were (values and requires_grad) {where}, but it changed them.",
    )
    check_true(found["inputs_unchanged"], f"Expected evaluate to leave the images and labels unchanged {where}, but it changed them.")


def check_trained_classifier(found: dict[str, Any], test_seeds: list[int], *, what: str, limit_s: float = 10.0) -> None:
    """Read a `train_classifier_probe` report: a module, accurate enough on each held-out set, fast enough."""
    where = f"({what}; measured in your process)"
    if not found["is_module"]:
        fail(f"Expected train_classifier to return the trained model (an nn.Module), but it returned {_a(found['type'])} {where}.")
    if found["model_error"] is not None:
        fail(
            f"Expected the trained model to take a batch of images shaped (N, C, H, W), as make_images gives them, but on "
            f"1000 held-out images it raised {found['model_error']} {where}. Put nn.Flatten() in the model itself."
        )
    for seed, accuracy in zip(test_seeds, found["accuracies"]):
        if accuracy < 0.9:
            fail(
                f"Expected the trained model to reach at least 0.9 accuracy on held-out images (make_images seed {seed}), "
                f"but it reached {accuracy:.3f} {where}. Train for more steps (several passes over the data), or check "
                "that the model has one output per class and that each step clears the old gradients."
            )
    if found["seconds"] >= limit_s:
        fail(f"Expected training to take under {limit_s:g} s with one CPU thread, but it took {found['seconds']:.1f} s {where}.")
