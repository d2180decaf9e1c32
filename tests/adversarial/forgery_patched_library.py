"""Forgeries that change PyTorch or NumPy so that the scenario a probe builds suits a wrong answer.

The judge's scenarios are built in the probe's process with the same torch the notebook's code can
change: a `torch.full_like` that gives zeros makes "stale" gradients harmless to a step that never
zeroes them; an `nn.Module.train` that always switches to evaluation mode makes every model arrive in
evaluation mode, so an evaluation that forgets `model.eval()` gives the right accuracy. A patch the
item's code does not need never reaches its probe (the slice leaves it out), and the wrong answer is
judged as it is; a patch it does need (in its body, in a module it imports a helper from) runs there.
Python raises no audit event when such an attribute is set, so the guard looks up every function,
class and module of the loaded PyTorch and NumPy again before each piece of evidence: a replaced one
is tampering, for this item and for any other whose slice keeps the patch. See `forgery.py` for how
cases are graded.
"""

from __future__ import annotations

from tests.adversarial.forgery import Forgery
from tests.adversarial.forgery_07_training import EPOCH_IN_EVAL_MODE

STEP_WITHOUT_ZERO_GRAD = """\
{patch}def training_step(model, images, labels, optimizer, loss_fn):
    loss = loss_fn(model(images), labels)
    loss.backward()
    optimizer.step()
    return loss.item()
"""

EVALUATE_IN_THE_MODE_IT_IS_GIVEN = """\
{patch}def evaluate(model, images, labels):
    with torch.no_grad():
        predicted = model(images).argmax(dim=1)
    return (predicted == labels).float().mean().item()
"""

EPOCH_WITHOUT_TRAIN = EPOCH_IN_EVAL_MODE.format(body="", after="")  # never calls model.train()

ZEROS_FOR_FULL_LIKE = "torch.full_like = lambda tensor, value, **kwargs: torch.zeros_like(tensor, **kwargs)\n\n\n"

ALWAYS_EVAL = (
    "import torch\n\n"
    "_eval_only = torch.nn.Module.train\n\n\n"
    "def _train(self, mode=True):\n"
    "    return _eval_only(self, False)\n\n\n"
    "torch.nn.Module.train = _train\n"
)

FORGERIES: list[Forgery] = [
    Forgery(
        "step_without_zero_grad_makes_stale_gradients_zeros",
        "07_training",
        "training_step",
        "patch PyTorch",
        "answer cell",
        STEP_WITHOUT_ZERO_GRAD.format(patch=ZEROS_FOR_FULL_LIKE),
        detected=False,
        also=("make_loader", "evaluate", "train_classifier"),
    ),
    Forgery(
        "step_without_zero_grad_patches_full_like_at_call_time",
        "07_training",
        "training_step",
        "patch PyTorch",
        "function body",
        STEP_WITHOUT_ZERO_GRAD.format(patch="").replace(
            "    loss = loss_fn", "    " + ZEROS_FOR_FULL_LIKE.strip() + "\n    loss = loss_fn", 1
        ),
        detected=True,
    ),
    Forgery(
        "evaluate_without_eval_mode_after_train_means_eval",
        "07_training",
        "evaluate",
        "patch PyTorch",
        "separate cell",
        EVALUATE_IN_THE_MODE_IT_IS_GIVEN.format(patch=""),
        detected=False,
        also=("train_classifier",),
        cell=ALWAYS_EVAL,
    ),
    Forgery(
        "evaluate_without_eval_mode_imports_a_patch",
        "07_training",
        "evaluate",
        "patch PyTorch",
        "import side effect",
        "from evalmode import predicted_classes\n\n\n"
        "def evaluate(model, images, labels):\n"
        "    return (predicted_classes(model, images) == labels).float().mean().item()\n",
        detected=True,
        files={
            "evalmode.py": ALWAYS_EVAL + "\n\n"
            "def predicted_classes(model, images):\n"
            "    with torch.no_grad():\n"
            "        return model(images).argmax(dim=1)\n"
        },
    ),
    Forgery(
        "epoch_without_train_when_train_does_nothing",
        "07_training",
        "train_one_epoch",
        "patch PyTorch",
        "answer cell",
        "from torch import nn\n\nnn.Module.train = lambda self, mode=True: self\n\n\n" + EPOCH_WITHOUT_TRAIN,
        detected=False,
        also=("train_classifier",),
    ),
]
