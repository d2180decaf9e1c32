"""Probes and scenarios for the training lesson.

Models, optimizers and loss functions cannot travel between processes, so each scenario is built
from plain parameters (a seed and a few sizes): the same parameters give the same weights, images and
labels wherever they are built. A probe builds a scenario next to the student's function, calls it
and takes evidence (parameters, outputs, digests of the inputs); its reading, in the judge, rebuilds
the same scenario to check that the probe worked on exactly that, and turns the evidence into a report.
Test cells compare reports with expected values using the `check_*` functions at the end of this
module; the expected values come from the test cell itself (visible tests) or from the instructor's
references (hidden tests), never from this package.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn

from course.checks import CheckFailed, check_tensor, check_true, fail
from course.data import make_images
from course.probes import EvidenceError, check_built, expect, probe, sealed
from course.probes.evidence import Opaque, as_float, same

STALE_GRAD = 3.0  # the value left in every .grad before the call in the "stale gradients" scenarios


def _a(name: str) -> str:
    """The type name with its article: "an int", "a torch.Tensor"."""
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


def kind_of(snapshot: Any) -> str:
    """The type name of the value a snapshot stands for ("float", "torch.Tensor", ...)."""
    if isinstance(snapshot, Opaque):
        return snapshot.type_name
    if isinstance(snapshot, torch.Tensor):
        return "torch.Tensor"
    cls = type(snapshot)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def make_model(seed: int, *, in_features: int, num_classes: int, hidden: int = 0, dropout: float = 0.0, device: str = "cpu") -> nn.Module:
    """Flatten then Linear (or Linear, ReLU, [Dropout,] Linear when `hidden` > 0), weights drawn from `seed` only."""
    if hidden:
        layers: list[nn.Module] = [nn.Flatten(), nn.Linear(in_features, hidden), nn.ReLU()]
        if dropout:
            layers.append(nn.Dropout(dropout))
        model = nn.Sequential(*layers, nn.Linear(hidden, num_classes))
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
    dropout: float = 0.0,
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
    model = make_model(seed, in_features=channels * size * size, num_classes=num_classes, hidden=hidden, dropout=dropout, device=device)
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


def evaluation_scenario(
    seed: int,
    *,
    n: int = 40,
    size: int = 8,
    channels: int = 3,
    num_classes: int = 4,
    hidden: int = 0,
    dropout: float = 0.0,
    train_steps: int = 3,
    training: bool = True,
    device: str = "cpu",
) -> dict[str, Any]:
    """A model made better than chance by a few fixed updates, and a batch to evaluate it on.

    The model is left in training mode (`training`) or evaluation mode; with `dropout` (and a hidden
    layer) its outputs depend on the mode, so an evaluation that forgets `model.eval()` shows.
    """
    s = training_scenario(seed, batch_size=64, size=size, channels=channels, num_classes=num_classes, hidden=hidden, dropout=dropout)
    model = s["model"]
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        for _ in range(train_steps):
            s["optimizer"].zero_grad()
            s["loss_fn"](model(s["images"]), s["labels"]).backward()
            s["optimizer"].step()
    for p in model.parameters():
        p.grad = None
    images, labels = make_images(n, seed=seed + 1, size=size, channels=channels, num_classes=num_classes)
    model.train(training)
    return {"model": model.to(device), "images": images.to(device), "labels": labels.to(device)}


@sealed
def scenario_state(snaps: Any, params: list, tensors: list) -> dict:
    """Parameters (values and .grad) and the batch, before or after the student's call."""
    return {"params": snaps.snap(params), "tensors": snaps.snap(tensors)}


@sealed
def call_result(snaps: Any, result: Any, params: list, tensors: list) -> dict:
    return {"result": snaps.snap(result), **scenario_state(snaps, params, tensors)}


def _params_of(model: nn.Module) -> list[torch.Tensor]:
    return [p.detach().to("cpu") for p in model.parameters()]


def _cpu_values(tensors: list) -> list[torch.Tensor]:
    return [t.detach().to("cpu") for t in tensors]


def _check_scenario(evidence: list, params: list[torch.Tensor], tensors: list[torch.Tensor]) -> None:
    before = evidence[0]["value"]
    check_built(evidence, lambda: same(_cpu_values(before["params"]), params) and same(_cpu_values(before["tensors"]), _cpu_values(tensors)),
                "scenario")


@probe
def training_step_probe(step: Any, training_step: Any, seed: int, **kwargs: Any) -> None:
    """Build `training_scenario(seed, **kwargs)`, call `training_step` on it once, and report.

    Returns {"loss_type", "loss" (the returned value as a float, None if it is not a number),
    "loss_requires_grad", "params_before", "params" (after the call), "inputs_unchanged"}.
    """
    s = training_scenario(seed, **kwargs)
    params, batch = list(s["model"].parameters()), [s["images"], s["labels"]]
    step("seal", scenario_state, params, batch)
    result = training_step(s["model"], s["images"], s["labels"], s["optimizer"], s["loss_fn"])
    step("seal", call_result, result, params, batch)


@training_step_probe.reading
def _(evidence: list, training_step: Any, seed: int, **kwargs: Any) -> dict[str, Any]:
    before, after = expect(evidence, 2)
    own = training_scenario(seed, **kwargs)
    _check_scenario(evidence, _params_of(own["model"]), [own["images"], own["labels"]])
    result = after["result"]
    return {
        "loss_type": kind_of(result),
        "loss": as_float(result),
        "loss_requires_grad": bool(getattr(result, "requires_grad", False)),
        "params_before": _cpu_values(before["params"]),
        "params": _cpu_values(after["params"]),
        "inputs_unchanged": same(before["tensors"], after["tensors"]),
    }


@sealed
def evaluation_state(snaps: Any, params: list, modules: list, tensors: list) -> dict:
    """Parameters, every layer's training flag and the batch."""
    return {"params": snaps.snap(params), "modes": [snaps.attribute(m, "training") is True for m in modules],
            "tensors": snaps.snap(tensors)}


@sealed
def evaluation_result(snaps: Any, result: Any, params: list, modules: list, tensors: list) -> dict:
    return {"result": snaps.snap(result), **evaluation_state(snaps, params, modules, tensors)}


@probe
def evaluate_probe(step: Any, evaluate: Any, seed: int, *, images_require_grad: bool = False, **kwargs: Any) -> None:
    """Build `evaluation_scenario(seed, **kwargs)`, call `evaluate` on it, and report.

    Returns {"type", "value" (as a float, None if not a number), "graph_recorded" (a tensor was saved
    for a backward pass during the call), "grads_touched" (a parameter's .grad is no longer None),
    "requires_grad_changed", "params_changed", "inputs_unchanged", "mode_restored" (every layer is
    back in the mode, training or evaluation, it had before the call)}.
    """
    s = evaluation_scenario(seed, **kwargs)
    model, images, labels = s["model"], s["images"], s["labels"]
    if images_require_grad:
        images.requires_grad_(True)
    params, modules, batch = list(model.parameters()), list(model.modules()), [images, labels]
    step("seal", evaluation_state, params, modules, batch)
    step("witness")
    result = evaluate(model, images, labels)
    step("seal", evaluation_result, result, params, modules, batch)


@evaluate_probe.reading
def _(evidence: list, evaluate: Any, seed: int, *, images_require_grad: bool = False, **kwargs: Any) -> dict[str, Any]:
    before, after = expect(evidence, 2)
    own = evaluation_scenario(seed, **kwargs)
    _check_scenario(evidence, _params_of(own["model"]), [own["images"], own["labels"]])
    result = after["result"]
    return {
        "type": kind_of(result),
        "value": as_float(result),
        "graph_recorded": bool(evidence[1].get("saved_tensors", 0)),
        "grads_touched": any(p.grad is not None for p in after["params"]),
        "requires_grad_changed": [p.requires_grad for p in before["params"]] != [p.requires_grad for p in after["params"]],
        "params_changed": not same(_cpu_values(before["params"]), _cpu_values(after["params"])),
        "inputs_unchanged": same(_cpu_values(before["tensors"]), _cpu_values(after["tensors"])),
        "mode_restored": before["modes"] == after["modes"],
    }


@sealed
def batch_digest(snaps: Any, tensors: list) -> dict:
    return {"digests": [snaps.digest(t) for t in tensors]}


@sealed
def trained_model(snaps: Any, model: Any, params: Any, tensors: list, error: Any) -> dict:
    devices = sorted({snaps.device_of(p) or "not a tensor" for p in params}) if type(params) is list else []
    return {"type": snaps.type_name(model), "is_module": issubclass(type(model), nn.Module), "param_devices": devices,
            "digests": [snaps.digest(t) for t in tensors], "threads": snaps.num_threads(), "error": error}


@sealed
def held_out_logits(snaps: Any, logits: Any, images: Any, error: Any) -> dict:
    return {"logits": snaps.snap(logits), "digest": snaps.digest(images), "error": error}


def _message(error: BaseException) -> str:
    try:
        return f"{type(error).__name__}: {error}"[:500]
    except BaseException:
        return type(error).__name__


@probe
def train_classifier_probe(
    step: Any,
    train_classifier: Any,
    seed_train: int,
    test_seeds: list[int],
    *,
    n_train: int = 512,
    n_test: int = 1000,
    device: str | None = None,
) -> None:
    """Train once on `make_images(n_train, seed=seed_train)` with one CPU thread; measure held-out accuracy.

    `device` None calls `train_classifier(images, labels)`, else passes `device=device`. Returns
    {"type", "is_module", "seconds" (the call's wall time, measured by the judge between two pieces of
    evidence; CUDA is started before), "threads", "accuracies" (one per test seed, computed by the
    judge from the model's logits; None when the result is not a module), "model_error" (what the
    model raised on held-out images, or None), "param_devices", "inputs_unchanged"}.
    """
    images, labels = make_images(n_train, seed=seed_train)
    if device is not None and torch.device(device).type == "cuda":
        torch.zeros(1, device=device).sum().item()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    step("seal", batch_digest, [images, labels])
    try:
        model = train_classifier(images, labels) if device is None else train_classifier(images, labels, device=device)
        if device is not None and torch.device(device).type == "cuda":
            torch.cuda.synchronize()
    finally:
        torch.set_num_threads(threads)
    is_module = isinstance(model, nn.Module)
    params: Any = None
    error = None
    if is_module:
        try:
            params = list(model.parameters())
        except Exception as exc:
            error = _message(exc)
    step("seal", trained_model, model, params, [images, labels], error)
    if not is_module:
        return
    where = params[0].device if params else torch.device("cpu")
    model.eval()
    for seed in test_seeds:
        x, _ = make_images(n_test, seed=seed)
        logits, error = None, None
        try:
            with torch.no_grad():
                logits = model(x.to(where))
        except Exception as exc:
            error = _message(exc)
        step("seal", held_out_logits, logits, x, error)
        if error is not None:
            return


@train_classifier_probe.reading
def _(evidence: list, train_classifier: Any, seed_train: int, test_seeds: list[int], *, n_train: int = 512, n_test: int = 1000,
      device: str | None = None) -> dict[str, Any]:
    if len(evidence) < 2:
        raise EvidenceError("the probe sent too little evidence")
    first, trained = evidence[0]["value"], evidence[1]["value"]
    images, labels = make_images(n_train, seed=seed_train)
    from course.probes.evidence import Snapshots

    digests = [Snapshots().digest(images), Snapshots().digest(labels)]
    check_built(evidence, lambda: first["digests"] == digests, "training images")
    report = {
        "type": trained["type"], "is_module": trained["is_module"], "seconds": evidence[1]["at"] - evidence[0]["at"],
        "threads": 1, "accuracies": None, "model_error": trained["error"], "param_devices": trained["param_devices"],
        "inputs_unchanged": trained["digests"] == digests,
    }
    if not trained["is_module"] or trained["error"] is not None:
        if len(evidence) != 2:
            raise EvidenceError("the probe sent evidence after a model it could not use")
        return report
    held_out = [item["value"] for item in evidence[2:]]
    if not held_out or len(held_out) > len(test_seeds) or (len(held_out) < len(test_seeds) and held_out[-1]["error"] is None):
        raise EvidenceError("the probe sent the wrong number of held-out results")
    accuracies = []
    for seed, found in zip(test_seeds, held_out):
        x, y = make_images(n_test, seed=seed)
        check_built(evidence, lambda: found["digest"] == Snapshots().digest(x), "held-out images")
        if found["error"] is not None:
            report["model_error"] = found["error"]
            return report
        logits = found["logits"]
        if not isinstance(logits, torch.Tensor) or logits.dim() != 2 or logits.shape[0] != n_test:
            report["model_error"] = f"its output for {n_test} images was {kind_of(logits)}" + (
                f" of shape {tuple(logits.shape)}" if isinstance(logits, torch.Tensor) else "") + ", not (N, classes) logits"
            return report
        predicted = logits.detach().to("cpu").float().argmax(dim=1)
        accuracies.append((predicted == y).to(torch.float64).mean().item())
    report["accuracies"] = accuracies
    return report


# Checks for test cells: they read a probe's report and compare it with what the test expects.


def fingerprint(params: list[torch.Tensor]) -> list[list[float]]:
    """[sum, sum of squares] of each parameter: a short stand-in for a model's values in a visible test."""
    return [[float(p.detach().double().sum()), float((p.detach().double() ** 2).sum())] for p in params]


def check_training_step(found: dict[str, Any], expected: dict[str, Any], *, what: str, stale_grads: bool = False) -> None:
    """Compare a `training_step_probe` report with the update a correct step makes in the same scenario.

    `expected` holds "loss" and either "params" (every parameter after the update) or "fingerprint"
    (`fingerprint` of them, for visible tests, which carry their expected values with them).
    """
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
    if "params" in expected:
        for index, (got, want) in enumerate(zip(found["params"], expected["params"])):
            try:
                check_tensor(got, want, what=f"parameter {index} of the model after the update {where}", atol=1e-5, rtol=1e-4)
            except CheckFailed as error:
                raise CheckFailed(f"{error}{hint}") from None
    else:
        for index, (got, want) in enumerate(zip(fingerprint(found["params"]), expected["fingerprint"])):
            if not all(math.isclose(g, w, rel_tol=1e-4, abs_tol=1e-4) for g, w in zip(got, want)):
                fail(f"Expected parameter {index} of the model after the update to sum to {want[0]:.6g} (squares: {want[1]:.6g}), "
                     f"but it sums to {got[0]:.6g} (squares: {got[1]:.6g}) {where}: the update is not the one a correct step makes.{hint}")
    check_true(found["inputs_unchanged"], f"Expected training_step to leave the images and labels unchanged {where}, but it changed them.")


def check_evaluation(found: dict[str, Any], expected: float, *, what: str) -> None:
    """Compare an `evaluate_probe` report with the accuracy of the same scenario's model in evaluation mode."""
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
        f"Expected evaluate to record no graph, but autograd saved tensors for a backward pass during the call {where}. "
        "Run the model inside `with torch.no_grad():` (detaching afterwards is too late: the graph was already built).",
    )
    check_true(
        found["mode_restored"],
        f"Expected evaluate to give the model back in the mode it had (training or evaluation) {where}, but its mode changed. "
        "Note model.training before switching to model.eval(), and call model.train(was_training) before returning.",
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
