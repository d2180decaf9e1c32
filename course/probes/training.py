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

import contextlib
import math
from typing import Any, Iterator

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from course.checks import CheckFailed, check_tensor, check_true, fail
from course.data import make_images
from course.probes import EvidenceError, check_built, expect, probe, sealed
from course.probes.core import as_in_training
from course.probes.evidence import Opaque, Snapshots, as_float, same
from course.probes.steps import Step

STALE_GRAD = 3.0  # the value left in every .grad before the call in the "stale gradients" scenarios
FLOATS = ("float", "numpy.float64")  # what "a Python float" may be: NumPy's float64 is a subclass of float


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


def make_model(
    seed: int,
    *,
    in_features: int,
    num_classes: int,
    hidden: int = 0,
    dropout: float = 0.0,
    batch_norm: bool = False,
    device: str = "cpu",
) -> nn.Module:
    """Flatten then Linear (or Linear, [BatchNorm1d,] ReLU, [Dropout,] Linear when `hidden` > 0), weights drawn from `seed` only."""
    if hidden:
        layers: list[nn.Module] = [nn.Flatten(), nn.Linear(in_features, hidden)]
        if batch_norm:
            layers.append(nn.BatchNorm1d(hidden))
        layers.append(nn.ReLU())
        if dropout:
            layers.append(nn.Dropout(dropout))
        model = nn.Sequential(*layers, nn.Linear(hidden, num_classes))
    else:
        model = nn.Sequential(nn.Flatten(), nn.Linear(in_features, num_classes))
    g = torch.Generator().manual_seed(int(seed) + 7919)
    with torch.no_grad():
        for p in (p for layer in model if isinstance(layer, nn.Linear) for p in layer.parameters()):
            fan_in = p.shape[-1] if p.dim() > 1 else in_features
            p.copy_(torch.randn(p.shape, generator=g) / fan_in**0.5)
    return model.to(device)


def make_optimizer(name: str, params: Any, *, lr: float) -> torch.optim.Optimizer:
    """SGD or Adam, by name."""
    if name == "sgd":
        return torch.optim.SGD(params, lr=lr)
    if name == "adam":
        return torch.optim.Adam(params, lr=lr)
    raise ValueError(f"unknown optimizer {name!r}")


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
    model = make_model(
        seed, in_features=channels * size * size, num_classes=num_classes, hidden=hidden, dropout=dropout, device=device
    )
    opt = make_optimizer(optimizer, model.parameters(), lr=lr)
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


@as_in_training()  # the same model whatever the caller switched off: its few updates need a graph
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
    s = training_scenario(
        seed, batch_size=64, size=size, channels=channels, num_classes=num_classes, hidden=hidden, dropout=dropout
    )
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


@contextlib.contextmanager
def _seeded(seed: int, device: str) -> Iterator[None]:
    """The global random generators seeded for one call and put back afterwards.

    Dropout draws from them, so a model left in training mode gives the same (wrong) answer every
    time instead of one that changes from run to run.
    """
    with torch.random.fork_rng(devices=[] if torch.device(device).type != "cuda" else None):
        torch.manual_seed(seed)
        yield


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
    check_built(
        evidence,
        lambda: (
            same(_cpu_values(before["params"]), params) and same(_cpu_values(before["tensors"]), _cpu_values(tensors))
        ),
        "scenario",
    )


@probe
def training_step_probe(step: Any, training_step: Any, seed: int, **kwargs: Any) -> None:
    """Build `training_scenario(seed, **kwargs)`, call `training_step` on it once, and report.

    Returns {"loss_type", "loss" (the returned value as a float, None if it is not a number),
    "loss_requires_grad", "params_before", "params" (after the call), "inputs_unchanged"}.
    """
    s = training_scenario(seed, **kwargs)
    params, batch = list(s["model"].parameters()), [s["images"], s["labels"]]
    step(Step.SEAL, scenario_state, params, batch)
    result = training_step(s["model"], s["images"], s["labels"], s["optimizer"], s["loss_fn"])
    step(Step.SEAL, call_result, result, params, batch)


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
    """Parameters, every layer's training flag and plain settings (dropout's `p`, ...), and the batch."""
    return {
        "params": snaps.snap(params),
        "modes": [snaps.attribute(m, "training") is True for m in modules],
        "settings": [snaps.settings(m) for m in modules],
        "tensors": snaps.snap(tensors),
    }


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
    with as_in_training():
        s = evaluation_scenario(seed, **kwargs)
        model, images, labels = s["model"], s["images"], s["labels"]
        if images_require_grad:
            images.requires_grad_(True)
        params, modules, batch = list(model.parameters()), list(model.modules()), [images, labels]
        step(Step.SEAL, evaluation_state, params, modules, batch)
        step(Step.WITNESS)
        with _seeded(seed, kwargs.get("device", "cpu")):
            result = evaluate(model, images, labels)
        step(Step.SEAL, evaluation_result, result, params, modules, batch)


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
        "requires_grad_changed": [p.requires_grad for p in before["params"]]
        != [p.requires_grad for p in after["params"]],
        "params_changed": not same(_cpu_values(before["params"]), _cpu_values(after["params"])),
        "inputs_unchanged": same(_cpu_values(before["tensors"]), _cpu_values(after["tensors"])),
        "mode_restored": before["modes"] == after["modes"],
        "settings_changed": _settings_changed(before["settings"], after["settings"], own["model"]),
    }


def _settings_changed(before: list, after: list, model: Any) -> list[str]:
    """The layers' settings an evaluation changed, as `Dropout.p`, in the order of `model.modules()`."""
    names = [type(m).__name__ for m in model.modules()]
    changed = []
    for name, old, new in zip(names, before, after):
        old, new = dict(map(tuple, old)), dict(map(tuple, new))
        changed += [f"{name}.{key}" for key in sorted(set(old) | set(new)) if old.get(key) != new.get(key)]
    if len(before) != len(after):
        changed.append("the model's layers")
    return list(dict.fromkeys(changed))


@sealed
def batch_digest(snaps: Any, tensors: list) -> dict:
    digests = [snaps.digest(t) for t in tensors]
    return {"digests": digests, "cpu_s": snaps.cpu_seconds()}


@sealed
def trained_model(snaps: Any, model: Any, params: Any, tensors: list, error: Any) -> dict:
    cpu_s = snaps.cpu_seconds()
    devices = sorted({snaps.device_of(p) or "not a tensor" for p in params}) if type(params) is list else []
    return {
        "type": snaps.type_name(model),
        "is_module": issubclass(type(model), nn.Module),
        "param_devices": devices,
        "digests": [snaps.digest(t) for t in tensors],
        "threads": snaps.num_threads(),
        "error": error,
        "cpu_s": cpu_s,
    }


@sealed
def held_out_logits(snaps: Any, logits: Any, images: Any, error: Any) -> dict:
    return {"logits": snaps.snap(logits), "digest": snaps.digest(images), "error": error}


def _message(error: BaseException) -> str:
    try:
        return f"{type(error).__name__}: {error}"[:500]
    except BaseException:
        return type(error).__name__


def _renamed(data: tuple[torch.Tensor, torch.Tensor], classes: list[int] | None) -> tuple[torch.Tensor, torch.Tensor]:
    """(images, labels) with class k renamed `classes[k]`; unchanged when `classes` is None."""
    images, labels = data
    return (images, labels) if classes is None else (images, torch.tensor(classes, dtype=torch.int64)[labels])


def fresh_classifier_case(num_classes: int = 4, *, tests: int = 2) -> dict[str, Any]:
    """Seeds and a renaming of the classes for `train_classifier_probe`, drawn from the operating system's
    randomness when the test runs (in the judge, when it grades): nothing prepared before the call, a
    model trained on the generator's own labels in particular, can match them. The renaming moves every
    class (no class keeps its number), so such a model is wrong on every held-out image."""
    import secrets

    while True:
        classes = list(range(num_classes))
        for k in range(num_classes - 1, 0, -1):  # Fisher-Yates with the OS's randomness
            j = secrets.randbelow(k + 1)
            classes[k], classes[j] = classes[j], classes[k]
        if all(c != k for k, c in enumerate(classes)):
            break
    seeds = [1000 + secrets.randbelow(1_000_000_000) for _ in range(tests + 1)]
    return {"seed_train": seeds[0], "test_seeds": seeds[1:], "classes": classes}


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
    classes: list[int] | None = None,
) -> None:
    """Train once on `make_images(n_train, seed=seed_train)` with one CPU thread; measure held-out accuracy.

    `classes`, a permutation of the class numbers, renames every label (class k becomes `classes[k]`)
    in the training set and the held-out sets alike: a model trained before the call on the generator's
    own labels cannot match it (`fresh_classifier_case` draws one when the judge grades).
    `device` None calls `train_classifier(images, labels)`, else passes `device=device`. Returns
    {"type", "is_module", "seconds" (the CPU time the call used, all threads of the process: a busy
    grading machine does not inflate it, so an honest answer cannot lose its point to load), "wall_seconds"
    (the call's wall time, measured by the judge between two pieces of evidence; CUDA is started before), "threads", "accuracies" (one per test seed, computed by the
    judge from the model's logits; None when the result is not a module), "model_error" (what the
    model raised on held-out images, or None), "param_devices", "inputs_unchanged"}.
    """
    images, labels = _renamed(make_images(n_train, seed=seed_train), classes)
    if device is not None and torch.device(device).type == "cuda":
        torch.zeros(1, device=device).sum().item()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    step(Step.SEAL, batch_digest, [images, labels])
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
    step(Step.SEAL, trained_model, model, params, [images, labels], error)
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
        step(Step.SEAL, held_out_logits, logits, x, error)
        if error is not None:
            return


def _cpu_seconds(before: dict, after: dict) -> float:
    start, end = before.get("cpu_s"), after.get("cpu_s")
    if type(start) is not float or type(end) is not float or not math.isfinite(end - start) or end < start:
        raise EvidenceError("the probe's CPU clock did not give two readings in order")
    return end - start


@train_classifier_probe.reading
def _(
    evidence: list,
    train_classifier: Any,
    seed_train: int,
    test_seeds: list[int],
    *,
    n_train: int = 512,
    n_test: int = 1000,
    device: str | None = None,
    classes: list[int] | None = None,
) -> dict[str, Any]:
    if len(evidence) < 2:
        raise EvidenceError("the probe sent too little evidence")
    first, trained = evidence[0]["value"], evidence[1]["value"]
    images, labels = _renamed(make_images(n_train, seed=seed_train), classes)
    digests = [Snapshots().digest(images), Snapshots().digest(labels)]
    check_built(evidence, lambda: first["digests"] == digests, "training images")
    report = {
        "type": trained["type"],
        "is_module": trained["is_module"],
        "seconds": _cpu_seconds(first, trained),
        "wall_seconds": evidence[1]["at"] - evidence[0]["at"],
        "threads": 1,
        "accuracies": None,
        "model_error": trained["error"],
        "param_devices": trained["param_devices"],
        "inputs_unchanged": trained["digests"] == digests,
    }
    if not trained["is_module"] or trained["error"] is not None:
        if len(evidence) != 2:
            raise EvidenceError("the probe sent evidence after a model it could not use")
        return report
    held_out = [item["value"] for item in evidence[2:]]
    if (
        not held_out
        or len(held_out) > len(test_seeds)
        or (len(held_out) < len(test_seeds) and held_out[-1]["error"] is None)
    ):
        raise EvidenceError("the probe sent the wrong number of held-out results")
    accuracies = []
    for seed, found in zip(test_seeds, held_out):
        x, y = _renamed(make_images(n_test, seed=seed), classes)
        check_built(evidence, lambda: found["digest"] == Snapshots().digest(x), "held-out images")
        if found["error"] is not None:
            report["model_error"] = found["error"]
            return report
        logits = found["logits"]
        if not isinstance(logits, torch.Tensor) or logits.dim() != 2 or logits.shape[0] != n_test:
            report["model_error"] = (
                f"its output for {n_test} images was {kind_of(logits)}"
                + (f" of shape {tuple(logits.shape)}" if isinstance(logits, torch.Tensor) else "")
                + ", not (N, classes) logits"
            )
            return report
        predicted = logits.detach().to("cpu").float().argmax(dim=1)
        accuracies.append((predicted == y).to(torch.float64).mean().item())
    report["accuracies"] = accuracies
    return report


# A model written as a class: built, called and trained next to the student's code.


@sealed
def built_module(snaps: Any, model: Any, params: Any, images: Any, error: Any) -> dict:
    return {
        "type": snaps.type_name(model),
        "is_module": issubclass(type(model), nn.Module),
        "params": snaps.snap(params) if type(params) is list else None,
        "digest": snaps.digest(images),
        "error": error,
    }


@sealed
def module_output(snaps: Any, logits: Any, params: Any, error: Any) -> dict:
    return {"logits": snaps.snap(logits), "params": snaps.snap(params), "error": error}


@probe
def module_class_probe(
    step: Any,
    cls: Any,
    seed: int,
    *,
    init: dict | None = None,
    num_classes: int = 4,
    n: int = 64,
    steps: int = 10,
    lr: float = 0.1,
    device: str = "cpu",
) -> None:
    """Build `cls(**init)` after `torch.manual_seed(seed)`, call it on `make_images(n, seed=seed)`, train it, and report.

    Training is `steps` steps of SGD (`lr`) with cross-entropy on that same batch. Returns {"type",
    "is_module", "error" and "stage" (what raised, and while doing what), "n", "steps", "lr", "param_shapes", "param_count",
    "params_before", "params_after", "output_type", "output_shape", "logits_before", "logits_after",
    "loss_before", "loss_after"}: counts, shapes and losses are computed by the judge from the
    parameters and logits, never taken from the model's process.
    """
    images, labels = make_images(n, seed=seed, num_classes=num_classes)
    model, params, error = None, None, None
    try:
        with _seeded(seed, "cpu"):
            model = cls(**(init or {}))
        if isinstance(model, nn.Module):
            model.to(device)
            params = list(model.parameters())
    except Exception as exc:
        error = _message(exc)
    step(Step.SEAL, built_module, model, params, images, error)
    if error is not None or not isinstance(model, nn.Module):
        return
    x, y = images.to(device), labels.to(device)
    logits, error = None, None
    try:
        with torch.no_grad():
            logits = model(x)
    except Exception as exc:
        error = _message(exc)
    step(Step.SEAL, module_output, logits, params, error)
    if error is not None:
        return
    logits, error = None, None
    try:
        optimizer = torch.optim.SGD(params, lr=lr)
        for _ in range(steps):
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        with torch.no_grad():
            logits = model(x)
    except Exception as exc:
        error = _message(exc)
    step(Step.SEAL, module_output, logits, params, error)


def _cross_entropy(logits: Any, labels: torch.Tensor, num_classes: int) -> float | None:
    """The mean cross-entropy of logits (N, num_classes) against labels, computed here in float64; None if they are not logits."""
    if (
        not isinstance(logits, torch.Tensor)
        or tuple(logits.shape) != (len(labels), num_classes)
        or not logits.is_floating_point()
    ):
        return None
    return float(nn.functional.cross_entropy(logits.detach().to("cpu", torch.float64), labels))


@module_class_probe.reading
def _(
    evidence: list,
    cls: Any,
    seed: int,
    *,
    init: dict | None = None,
    num_classes: int = 4,
    n: int = 64,
    steps: int = 10,
    lr: float = 0.1,
    device: str = "cpu",
) -> dict[str, Any]:
    if not 1 <= len(evidence) <= 3:
        raise EvidenceError("the probe sent the wrong number of pieces of evidence")
    built = evidence[0]["value"]
    images, labels = make_images(n, seed=seed, num_classes=num_classes)
    check_built(evidence, lambda: built["digest"] == Snapshots().digest(images), "images")
    report: dict[str, Any] = dict.fromkeys(
        (
            "stage",
            "param_shapes",
            "param_count",
            "params_before",
            "params_after",
            "output_type",
            "output_shape",
            "logits_before",
            "logits_after",
            "loss_before",
            "loss_after",
        )
    )
    report.update(type=built["type"], is_module=built["is_module"], error=built["error"], n=n, steps=steps, lr=lr)

    def stop(stage: str, pieces: int) -> dict[str, Any]:
        if len(evidence) != pieces:
            raise EvidenceError("the probe sent evidence after a step that failed")
        report["stage"] = stage if report["error"] is not None else None
        return report

    if built["error"] is not None or not built["is_module"]:
        return stop("building the model", 1)
    params = built["params"]
    if not isinstance(params, list) or not all(isinstance(p, torch.Tensor) for p in params):
        odd = next(p for p in params if not isinstance(p, torch.Tensor)) if isinstance(params, list) else params
        report["error"] = f"model.parameters() gave {_a(kind_of(odd))}, which is not a plain tensor"
        return stop("listing its parameters", len(evidence))
    report["params_before"] = _cpu_values(params)
    report["param_shapes"] = [tuple(p.shape) for p in params]
    report["param_count"] = sum(p.numel() for p in params)
    if len(evidence) < 2:
        raise EvidenceError("the probe stopped sending evidence")
    first = evidence[1]["value"]
    report["error"] = first["error"]
    if first["error"] is not None:
        return stop(f"calling the model on {n} images", 2)
    logits = first["logits"]
    report["output_type"] = kind_of(logits)
    if isinstance(logits, torch.Tensor):
        report["output_shape"] = tuple(logits.shape)
        report["logits_before"] = logits.detach().to("cpu")
    report["loss_before"] = _cross_entropy(logits, labels, num_classes)
    if len(evidence) < 3:
        raise EvidenceError("the probe stopped sending evidence")
    trained = evidence[2]["value"]
    report["error"] = trained["error"]
    if trained["error"] is not None:
        return stop(f"training it for {steps} steps", 3)
    if isinstance(trained["params"], list) and all(isinstance(p, torch.Tensor) for p in trained["params"]):
        report["params_after"] = _cpu_values(trained["params"])
    if isinstance(trained["logits"], torch.Tensor):
        report["logits_after"] = trained["logits"].detach().to("cpu")
    report["loss_after"] = _cross_entropy(trained["logits"], labels, num_classes)
    return report


# A DataLoader made by the student: made twice with one seed and once with another, then read.


@sealed
def loaders_made(snaps: Any, loaders: list) -> dict:
    found = []
    for loader in loaders:
        workers = snaps.attribute(loader, "num_workers")
        found.append(
            {
                "type": snaps.type_name(loader),
                "is_loader": issubclass(type(loader), DataLoader),
                "num_workers": workers if type(workers) is int else None,
            }
        )
    return {"loaders": found}


@sealed
def loader_pass(snaps: Any, batches: list, error: Any) -> dict:
    return {"batches": snaps.snap(batches), "error": error}


LOADER_PASSES = (
    "the first loader",
    "a second loader made with the same seed",
    "a loader made with the other seed",
    "the first loader again (a second epoch)",
)


@probe
def loader_probe(
    step: Any,
    make_loader: Any,
    seed: int,
    other_seed: int,
    *,
    n: int = 40,
    batch_size: int = 16,
    data_seed: int = 0,
    size: int = 16,
    dtype: str = "float32",
) -> None:
    """Call `make_loader(images, labels, batch_size, s)` for s in (seed, seed, other_seed), then go through the loaders.

    The images are `make_images(n, seed=data_seed, size=size)` in `dtype`. The loaders are all made
    before any is read, then read once each in that order, and the first once more (`LOADER_PASSES`).
    Returns {"loaders": [{"type", "is_loader", "num_workers"}] * 3, "passes": [{"error", "problem",
    "sizes", "order"}] * 4 (order: which input image each position holds, decided by the judge),
    "shuffled", "same_seed_same", "other_seed_differs", "reshuffles" (None when the passes cannot
    be compared), "inputs_unchanged"}.
    """
    images, labels = make_images(n, seed=data_seed, size=size)
    images = images.to(getattr(torch, dtype))
    step(Step.SEAL, batch_digest, [images, labels])
    loaders = [make_loader(images, labels, batch_size, s) for s in (seed, seed, other_seed)]
    step(Step.SEAL, loaders_made, loaders)
    for loader in (*loaders, loaders[0]):
        batches: list = []
        error = None
        try:
            for batch in loader:
                batches.append(batch)
                if len(batches) > n:
                    error = f"the loader gave more than {n} batches for {n} images"
                    break
        except Exception as exc:
            error = _message(exc)
        step(Step.SEAL, loader_pass, batches, error)
    step(Step.SEAL, batch_digest, [images, labels])


def _read_pass(found: dict, images: torch.Tensor, labels: torch.Tensor) -> dict[str, Any]:
    """Which input image each position of a pass holds, or what is wrong with its batches."""
    out: dict[str, Any] = {"error": found["error"], "problem": None, "sizes": [], "order": None}
    if found["error"] is not None:
        return out
    where = {row.numpy().tobytes(): i for i, row in enumerate(images)}
    order: list[int] = []
    for b, batch in enumerate(found["batches"]):
        if (
            not isinstance(batch, (list, tuple))
            or len(batch) != 2
            or not all(isinstance(t, torch.Tensor) for t in batch)
        ):
            out["problem"] = (
                f"batch {b} is {kind_of(batch)}"
                + (f" of {len(batch)} items" if isinstance(batch, (list, tuple)) else "")
                + ", not a pair (images, labels) of tensors"
            )
            return out
        x, y = (t.detach().to("cpu") for t in batch)
        if x.dim() != images.dim() or tuple(x.shape[1:]) != tuple(images.shape[1:]) or tuple(y.shape) != (len(x),):
            out["problem"] = (
                f"batch {b} holds images of shape {tuple(x.shape)} and labels of shape {tuple(y.shape)}, "
                f"not (B, {', '.join(map(str, images.shape[1:]))}) and (B,)"
            )
            return out
        if x.dtype != images.dtype or y.dtype != labels.dtype:
            out["problem"] = (
                f"batch {b} holds {x.dtype} images and {y.dtype} labels, but the data is {images.dtype} and {labels.dtype}"
            )
            return out
        out["sizes"].append(len(x))
        for row, label in zip(x, y):
            index = where.get(row.contiguous().numpy().tobytes())
            if index is None:
                out["problem"] = f"batch {b} holds an image that is not one of the inputs (its values changed)"
                return out
            if int(label) != int(labels[index]):
                out["problem"] = (
                    f"batch {b} pairs input image {index} with label {int(label)}, but its label is {int(labels[index])}"
                )
                return out
            order.append(index)
    seen = set(order)
    if len(seen) != len(order):
        out["problem"] = f"one pass gave {len(order)} images, but only {len(seen)} different ones: some came twice"
    elif len(order) != len(images):
        out["problem"] = f"one pass gave {len(order)} of the {len(images)} images: every image must come once per pass"
    else:
        out["order"] = order
    return out


@loader_probe.reading
def _(
    evidence: list,
    make_loader: Any,
    seed: int,
    other_seed: int,
    *,
    n: int = 40,
    batch_size: int = 16,
    data_seed: int = 0,
    size: int = 16,
    dtype: str = "float32",
) -> dict[str, Any]:
    first, made, *passes, last = expect(evidence, 7)
    images, labels = make_images(n, seed=data_seed, size=size)
    images = images.to(getattr(torch, dtype))
    digests = [Snapshots().digest(images), Snapshots().digest(labels)]
    check_built(evidence, lambda: first["digests"] == digests, "images")
    read = [_read_pass(p, images, labels) for p in passes]
    orders = [r["order"] for r in read]
    comparable = all(o is not None for o in orders)
    return {
        "loaders": made["loaders"],
        "passes": read,
        "shuffled": orders[0] != list(range(n)) if orders[0] is not None else None,
        "same_seed_same": same(passes[0]["batches"], passes[1]["batches"]) if comparable else None,
        "other_seed_differs": orders[0] != orders[2] if comparable else None,
        "reshuffles": orders[0] != orders[3] if comparable else None,
        "inputs_unchanged": last["digests"] == digests,
    }


# One epoch over a DataLoader, with batch norm: the mode the model trains in shows in its results.


def epoch_scenario(
    seed: int,
    *,
    n: int = 48,
    batch_size: int = 16,
    size: int = 8,
    channels: int = 3,
    num_classes: int = 4,
    hidden: int = 16,
    batch_norm: bool = True,
    dropout: float = 0.0,
    optimizer: str = "sgd",
    lr: float = 0.1,
    training: bool = True,
    device: str = "cpu",
) -> dict[str, Any]:
    """A model (Flatten, Linear, [BatchNorm1d,] ReLU, [Dropout,] Linear) in training or evaluation mode, a seeded
    shuffling DataLoader over toy images (on the CPU), an optimizer and a loss function, all fixed by the arguments."""
    images, labels = make_images(n, seed=seed, size=size, channels=channels, num_classes=num_classes)
    model = make_model(
        seed,
        in_features=channels * size * size,
        num_classes=num_classes,
        hidden=hidden,
        dropout=dropout,
        batch_norm=batch_norm,
        device=device,
    ).train(training)
    opt = make_optimizer(optimizer, model.parameters(), lr=lr)
    loader = DataLoader(
        TensorDataset(images, labels),
        batch_size=batch_size,
        shuffle=True,
        generator=torch.Generator().manual_seed(int(seed)),
    )
    return {
        "model": model,
        "loader": loader,
        "optimizer": opt,
        "loss_fn": nn.CrossEntropyLoss(),
        "images": images,
        "labels": labels,
    }


@sealed
def epoch_state(snaps: Any, params: list, buffers: list, modules: list, tensors: list) -> dict:
    """Parameters, buffers (batch norm's running statistics), every layer's training flag, and digests of the data."""
    return {
        "params": snaps.snap(params),
        "buffers": snaps.snap(buffers),
        "modes": [snaps.attribute(m, "training") is True for m in modules],
        "digests": [snaps.digest(t) for t in tensors],
    }


@sealed
def epoch_result(snaps: Any, result: Any, params: list, buffers: list, modules: list, tensors: list) -> dict:
    return {"result": snaps.snap(result), **epoch_state(snaps, params, buffers, modules, tensors)}


@probe
def train_one_epoch_probe(step: Any, train_one_epoch: Any, seed: int, **kwargs: Any) -> None:
    """Build `epoch_scenario(seed, **kwargs)`, call `train_one_epoch(model, loader, optimizer, loss_fn)` once, and report.

    The global random generators are seeded with `seed` for the call (dropout draws from them).
    Returns {"loss_type", "loss" (the returned value as a float, None if it is not a number),
    "params_before", "params", "buffers_before", "buffers", "modes_before", "modes_after",
    "inputs_unchanged"}.
    """
    s = epoch_scenario(seed, **kwargs)
    model = s["model"]
    params, buffers, modules, data = (
        list(model.parameters()),
        list(model.buffers()),
        list(model.modules()),
        [s["images"], s["labels"]],
    )
    step(Step.SEAL, epoch_state, params, buffers, modules, data)
    with _seeded(seed, kwargs.get("device", "cpu")):
        result = train_one_epoch(model, s["loader"], s["optimizer"], s["loss_fn"])
    step(Step.SEAL, epoch_result, result, params, buffers, modules, data)


@train_one_epoch_probe.reading
def _(evidence: list, train_one_epoch: Any, seed: int, **kwargs: Any) -> dict[str, Any]:
    before, after = expect(evidence, 2)
    own = epoch_scenario(seed, **kwargs)
    model = own["model"]
    digests = [Snapshots().digest(own["images"]), Snapshots().digest(own["labels"])]
    check_built(
        evidence,
        lambda: (
            same(_cpu_values(before["params"]), _params_of(model))
            and same(_cpu_values(before["buffers"]), _cpu_values(list(model.buffers())))
            and before["digests"] == digests
        ),
        "scenario",
    )
    result = after["result"]
    return {
        "loss_type": kind_of(result),
        "loss": as_float(result),
        "params_before": _cpu_values(before["params"]),
        "params": _cpu_values(after["params"]),
        "buffers_before": _cpu_values(before["buffers"]),
        "buffers": _cpu_values(after["buffers"]),
        "modes_before": before["modes"],
        "modes_after": after["modes"],
        "inputs_unchanged": after["digests"] == digests,
    }


# Checks for test cells: they read a probe's report and compare it with what the test expects.


def fingerprint(params: list[torch.Tensor]) -> list[list[float]]:
    """[sum, sum of squares] of each parameter: a short stand-in for a model's values in a visible test."""
    return [[float(p.detach().double().sum()), float((p.detach().double() ** 2).sum())] for p in params]


def check_training_step(
    found: dict[str, Any], expected: dict[str, Any], *, what: str, stale_grads: bool = False
) -> None:
    """Compare a `training_step_probe` report with the update a correct step makes in the same scenario.

    `expected` holds "loss" and either "params" (every parameter after the update) or "fingerprint"
    (`fingerprint` of them, for visible tests, which carry their expected values with them).
    """
    where = f"({what}; measured in your process)"
    if found["loss_type"] not in FLOATS:
        fail(
            f"Expected training_step to return the loss as a Python float, but it returned {_a(found['loss_type'])} {where}.",
            fix="Return loss.item(), which turns the 0-d loss tensor into a Python float."
            if found["loss"] is not None
            else "",
        )
    if not math.isclose(found["loss"], expected["loss"], rel_tol=1e-5, abs_tol=1e-6):
        fail(
            f"Expected training_step to return the loss before the update, about {expected['loss']:.6g}, but it returned "
            f"{found['loss']:.6g} {where}.",
            fix="Compute the loss once, from this batch, before optimizer.step(), and return that value.",
        )
    if all(torch.equal(a, b) for a, b in zip(found["params_before"], found["params"])):
        fail(
            f"Expected training_step to change the model's parameters, but they are exactly as before {where}.",
            fix="Order matters: zero_grad, forward, loss, backward, then optimizer.step().",
        )
    hint = ""
    if stale_grads:
        hint = (
            "Every parameter came in with an old gradient in its .grad: clear it (optimizer.zero_grad()) before "
            "loss.backward(), or the old gradient is added to the new one and leaks into the update."
        )
    if "params" in expected:
        for index, (got, want) in enumerate(zip(found["params"], expected["params"])):
            mismatch = ""
            try:
                check_tensor(
                    got, want, what=f"parameter {index} of the model after the update {where}", atol=1e-5, rtol=1e-4
                )
            except CheckFailed as error:
                mismatch = str(error)
            if mismatch:
                fail(mismatch, fix=hint)
    else:
        for index, (got, want) in enumerate(zip(fingerprint(found["params"]), expected["fingerprint"])):
            if not all(math.isclose(g, w, rel_tol=1e-4, abs_tol=1e-4) for g, w in zip(got, want)):
                fail(
                    f"Expected parameter {index} of the model after the update to sum to {want[0]:.6g} (squares: {want[1]:.6g}), "
                    f"but it sums to {got[0]:.6g} (squares: {got[1]:.6g}) {where}: the update is not the one a correct step makes.",
                    fix=hint,
                )
    check_true(
        found["inputs_unchanged"],
        f"Expected training_step to leave the images and labels unchanged {where}, but it changed them.",
    )


def check_evaluation(found: dict[str, Any], expected: float, *, what: str) -> None:
    """Compare an `evaluate_probe` report with the accuracy of the same scenario's model in evaluation mode."""
    where = f"({what}; measured in your process)"
    if found["type"] not in FLOATS:
        if found["type"] == "int":
            hint = " Divide the number of correct predictions by the number of images, as floats."
        elif found["value"] is not None:
            hint = " Use .item() to turn a one-element tensor into a Python float."
        else:
            hint = ""
        fail(
            f"Expected evaluate to return the accuracy as a Python float, but it returned {_a(found['type'])} {where}.{hint}"
        )
    value = found["value"]
    if not 0.0 <= value <= 1.0:
        fail(
            f"Expected an accuracy between 0 and 1 (the fraction of images predicted right), but found {value:.6g} {where}. "
            "A count of correct predictions must be divided by the number of images."
        )
    if not math.isclose(value, expected, rel_tol=1e-5, abs_tol=1e-6):
        fail(
            f"Expected the accuracy to be {expected:.6g}, but found {value:.6g} {where}. The predicted class of each image "
            "is the index of its largest logit along the class dimension (dim=1), predicted with the model in evaluation mode "
            "(model.eval(): dropout must not drop while you measure)."
        )
    check_true(
        not found["graph_recorded"],
        f"Expected evaluate to record no graph, but autograd saved tensors for a backward pass during the call {where}. "
        "Run the model inside `with torch.no_grad():` (detaching afterwards is too late: the graph was already built).",
    )
    check_true(
        not found.get("settings_changed"),
        f"Expected evaluate to leave the model's layers as they were, but it changed {', '.join(found.get('settings_changed') or [])} "
        f"{where}. Evaluation mode is model.eval(): it switches dropout and batch norm without changing their settings.",
    )
    check_true(
        found["mode_restored"],
        f"Expected evaluate to give the model back in the mode it had (training or evaluation) {where}, but its mode changed. "
        "Note model.training before switching to model.eval(), and call model.train(was_training) before returning.",
    )
    check_true(
        not found["grads_touched"],
        f"Expected evaluate to leave every parameter's .grad as None {where}, but some .grad was set.",
    )
    check_true(
        not found["requires_grad_changed"] and not found["params_changed"],
        f"Expected evaluate to leave the model's parameters as they were (values and requires_grad) {where}, but it changed them.",
    )
    check_true(
        found["inputs_unchanged"],
        f"Expected evaluate to leave the images and labels unchanged {where}, but it changed them.",
    )


def check_trained_classifier(found: dict[str, Any], test_seeds: list[int], *, what: str, limit_s: float = 10.0) -> None:
    """Read a `train_classifier_probe` report: a module, accurate enough on each held-out set, fast enough."""
    where = f"({what}; measured in your process)"
    if not found["is_module"]:
        fail(
            f"Expected train_classifier to return the trained model (an nn.Module), but it returned {_a(found['type'])} {where}."
        )
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
        fail(
            f"Expected training to take under {limit_s:g} s of CPU time with one CPU thread, but it used {found['seconds']:.1f} s {where}."
        )


def _building_hint(error: Any) -> str:
    """What to fix when building the model raised: the missing super().__init__() only when the error says so."""
    text = str(error)
    if "Module.__init__() call" in text or "'_modules'" in text or "'_parameters'" in text:
        return "Call super().__init__() first in __init__, then create the layers."
    return (
        "The line the error names is in your __init__: check each layer's arguments there "
        "(nn.Linear(in_features, out_features) takes two ints)."
    )


def check_module_class(
    found: dict[str, Any], *, name: str, param_count: int, output_shape: tuple, what: str, margin: float = 0.5
) -> None:
    """Read a `module_class_probe` report: an nn.Module with `param_count` parameters, logits of `output_shape`,
    and a loss that training brings down to at most `margin` times where it started."""
    where = f"({what}; measured in your process)"
    if found["error"] is not None and found["stage"] == "building the model":
        fail(
            f"Expected {name}(...) to build a model, but building it raised {found['error']} {where}. {_building_hint(found['error'])}"
        )
    if not found["is_module"]:
        fail(
            f"Expected {name} to be a subclass of nn.Module (class {name}(nn.Module): ...), but its objects are {_a(found['type'])} {where}."
        )
    if found["error"] is not None and found["param_count"] is None:
        fail(
            f"Expected model.parameters() to list the model's weights and biases, but {found['error']} {where}. "
            "Give every layer its sizes when you create it: nn.Linear(3072, hidden), not a lazy layer."
        )
    if found["param_count"] != param_count:
        fail(
            f"Expected the model to have {param_count:,} parameters (every weight and bias, counted with p.numel()), but it has "
            f"{found['param_count']:,} in {len(found['param_shapes'])} tensors of shapes {found['param_shapes']} {where}. "
            "Create each layer once, in __init__, as an attribute (self.name = nn.Linear(...)): that is how the module finds its parameters."
        )
    if (
        found["error"] is not None
        and found["output_shape"] is None
        and found["stage"] != f"training it for {found['steps']} steps"
    ):
        fail(
            f"Expected the model to take a batch of images shaped (N, 3, 32, 32), but calling it on {found['n']} of them raised "
            f"{found['error']} {where}. Flatten each image in forward (nn.Flatten(), or x.flatten(1)), keeping dimension 0 as the batch."
        )
    if found["output_shape"] != tuple(output_shape):
        shape = f" of shape {found['output_shape']}" if found["output_shape"] is not None else ""
        fail(
            f"Expected the model to return logits of shape {tuple(output_shape)} (one row per image, one score per class), "
            f"but it returned {_a(found['output_type'])}{shape} {where}."
        )
    if found["error"] is not None:
        fail(
            f"Expected the model to train with SGD and cross-entropy, but {found['stage']} raised {found['error']} {where}. "
            "forward must compute its output from the layers' parameters with autograd on (no torch.no_grad(), no .detach())."
        )
    before, after = found["loss_before"], found["loss_after"]
    if before is None or after is None or not after <= margin * before:
        went = (
            f"went from {before:.4g} to {after:.4g}"
            if after is not None
            else f"was {before:.4g} before and no loss could be computed after"
        )
        fail(
            f"Expected {found['steps']} steps of SGD (lr={found['lr']:g}) on these {found['n']} images to bring the loss down to at most "
            f"{margin:g} times its first value, but it {went} {where}. forward must use the layers made in "
            "__init__ (not new ones), keep the graph (no .detach()), and return raw logits (no softmax: the loss applies it)."
        )


def check_module_follows(
    found: dict[str, Any], expected: dict[str, Any] | None, *, architecture: str, what: str
) -> None:
    """Compare a `module_class_probe` report with the fixed architecture run on the model's own parameters.

    `expected` (from the instructor's references) holds "logits_before", "params_after" (in the
    model's own order) and "logits_after"; None when the parameters cannot be those of the architecture.
    """
    where = f"({what}; measured in your process)"
    if expected is None:
        fail(
            f"Expected the parameters of {architecture}, but the model's parameters have shapes {found['param_shapes']} {where}."
        )
    gap = (
        float((found["logits_before"].double() - expected["logits_before"].double()).abs().max())
        if found["logits_before"].numel()
        else 0.0
    )
    if not torch.allclose(found["logits_before"].double(), expected["logits_before"].double(), rtol=1e-4, atol=1e-4):
        fail(
            f"Expected the model's output to be {architecture} applied to its own parameters, but it differs by up to {gap:.3g} {where}. "
            "Check the order of the layers, the ReLU between the two Linear layers, and that forward returns the last layer's output as it is."
        )
    for index, (got, want) in enumerate(zip(found["params_after"], expected["params_after"])):
        if not torch.allclose(got.double(), want.double(), rtol=1e-3, atol=1e-4):
            fail(
                f"Expected training to move parameter {index} (shape {tuple(got.shape)}) as the gradients of {architecture} do, but it "
                f"moved differently {where}. Every layer must take part in forward with autograd on: no .detach(), no torch.no_grad(), "
                "no copies of the weights."
            )
    if found["logits_after"] is None or not torch.allclose(
        found["logits_after"].double(), expected["logits_after"].double(), rtol=1e-3, atol=1e-3
    ):
        fail(
            f"Expected the trained model's output to be {architecture} applied to its trained parameters, but it is not {where}. "
            "forward must compute the same thing on every call."
        )


def check_loader(found: dict[str, Any], *, n: int, batch_size: int, seeds: tuple[int, int], what: str) -> None:
    """Read a `loader_probe` report for `n` images: DataLoaders without workers, batches of `batch_size` covering every image
    once per pass, shuffled, the same for one seed, different for another, and a new order each epoch."""
    where = f"({what}; measured in your process)"
    for loader in found["loaders"]:
        if not loader["is_loader"]:
            fail(
                f"Expected make_loader to return a torch.utils.data.DataLoader, but it returned {_a(loader['type'])} {where}."
            )
        if loader["num_workers"] != 0:
            fail(
                f"Expected a DataLoader with num_workers=0 (batches made in this process), but found num_workers={loader['num_workers']} "
                f"{where}. Worker processes need shared memory, which the grading sandbox does not give."
            )
    for label, read in zip(LOADER_PASSES, found["passes"]):
        if read["error"] is not None:
            fail(f"Expected to go through {label}, but it raised {read['error']} {where}.")
        if read["problem"] is not None:
            fail(
                f"Expected every batch to be a pair (images, labels) of the inputs' own rows, but {read['problem']} ({label}) {where}."
            )
        wanted = [batch_size] * (n // batch_size) + ([n % batch_size] if n % batch_size else [])
        if read["sizes"] != wanted:
            fail(
                f"Expected {n} images in batches of sizes {wanted} (batch_size={batch_size}, the last batch smaller and kept), but "
                f"{label} gave batches of sizes {read['sizes']} {where}."
            )
    if not found["shuffled"]:
        fail(
            f"Expected the loader to shuffle the images, but the first pass gave them in their original order {where}. Pass shuffle=True."
        )
    if not found["same_seed_same"]:
        fail(
            f"Expected two loaders made with the same seed ({seeds[0]}) to give the same batches, but they differ {where}. Give the "
            "DataLoader its own generator, torch.Generator().manual_seed(seed): torch.manual_seed changes the global generator, "
            "which everything else draws from too."
        )
    if not found["other_seed_differs"]:
        fail(
            f"Expected seeds {seeds[0]} and {seeds[1]} to give different orders, but they gave the same one {where}. "
            "Seed the generator with the seed argument."
        )
    if not found["reshuffles"]:
        fail(
            f"Expected a new order in each pass over the loader (each epoch), but the second pass repeated the first {where}. "
            "Let shuffle=True draw from the loader's generator each epoch, rather than fixing one list of indices."
        )
    check_true(
        found["inputs_unchanged"],
        f"Expected make_loader and its batches to leave the images and labels unchanged {where}, but they changed.",
    )


def check_epoch(found: dict[str, Any], expected: dict[str, Any], *, what: str) -> None:
    """Compare a `train_one_epoch_probe` report with a correct epoch in the same scenario.

    `expected` holds "loss" and "batches", and either "params" and "buffers" (every tensor after
    the epoch) or "fingerprint" and "buffer_fingerprint" (`fingerprint` of them, for visible tests).
    """
    where = f"({what}; measured in your process)"
    if found["loss_type"] not in FLOATS:
        fail(
            f"Expected train_one_epoch to return the mean loss as a Python float, but it returned {_a(found['loss_type'])} {where}.",
            fix="Add up loss.item() of each batch, and divide by the number of batches."
            if found["loss"] is not None
            else "",
        )
    if all(torch.equal(a, b) for a, b in zip(found["params_before"], found["params"])):
        fail(
            f"Expected train_one_epoch to change the model's parameters, but they are exactly as before {where}.",
            fix="Each batch needs zero_grad, forward, loss, backward and optimizer.step().",
        )
    running = [i for i, b in enumerate(found["buffers_before"]) if b.is_floating_point()]
    if running and all(torch.equal(found["buffers_before"][i], found["buffers"][i]) for i in running):
        fail(
            f"Expected the batch-norm layer's running statistics to be updated during the epoch, but they did not change {where}: "
            "the model trained in evaluation mode.",
            fix="It may arrive in evaluation mode (after evaluate, for instance): call model.train() before the first batch.",
        )
    if not math.isclose(found["loss"], expected["loss"], rel_tol=1e-4, abs_tol=1e-5):
        fail(
            f"Expected the mean of the {expected['batches']} batch losses of the epoch, about {expected['loss']:.6g}, but found "
            f"{found['loss']:.6g} {where}.",
            fix="Give every batch one clean step (zero_grad, forward, loss, backward, optimizer.step()), add up "
            "each batch's loss.item() and divide by the number of batches.",
        )
    if "params" in expected:
        pairs = [("parameter", i, got, want) for i, (got, want) in enumerate(zip(found["params"], expected["params"]))]
        pairs += [("buffer", i, got, want) for i, (got, want) in enumerate(zip(found["buffers"], expected["buffers"]))]
        for kind, index, got, want in pairs:
            check_tensor(got, want, what=f"{kind} {index} of the model after the epoch {where}", atol=1e-4, rtol=1e-3)
    else:
        groups = (
            ("parameter", found["params"], expected["fingerprint"]),
            ("buffer", found["buffers"], expected["buffer_fingerprint"]),
        )
        for kind, tensors, prints in groups:
            for index, (got, want) in enumerate(zip(fingerprint(tensors), prints)):
                if not all(math.isclose(g, w, rel_tol=1e-3, abs_tol=1e-4) for g, w in zip(got, want)):
                    fail(
                        f"Expected {kind} {index} of the model after the epoch to sum to {want[0]:.6g} (squares: {want[1]:.6g}), but it sums "
                        f"to {got[0]:.6g} (squares: {got[1]:.6g}) {where}: the epoch did not make the updates a correct one makes.",
                        fix="Go through every batch once, moving it to the model's device, with one optimizer step per batch.",
                    )
    check_true(
        found["inputs_unchanged"],
        f"Expected train_one_epoch to leave the loader's images and labels unchanged {where}, but they changed.",
    )
