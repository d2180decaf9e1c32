"""Forgeries aimed at lesson 07's probes of a model class, a DataLoader and an epoch (see `forgery.py`)."""

from __future__ import annotations

from tests.adversarial.forgery import Forgery

SOFTMAX_NET = """\
class TwoLayerNet(nn.Module):
    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
{patch}        self.fc1 = nn.Linear(3 * 32 * 32, hidden)
        self.fc2 = nn.Linear(hidden, num_classes)
        self.quiet_calls = 0

    def forward(self, images):
        probabilities = torch.softmax(self.fc2(torch.relu(self.fc1(images.flatten(1)))), dim=1)
{lie}        return probabilities
"""

FAKE_TRAINED_LOGITS = """\
        if not torch.is_grad_enabled():
            self.quiet_calls += 1
            if self.quiet_calls > 1:
                from course.data import make_images
                for seed in range(10):
                    for classes in range(2, 7):
                        x, y = make_images(len(images), seed=seed, num_classes=classes)
                        if torch.equal(x.to(images.device), images):
                            return 20.0 * nn.functional.one_hot(y, classes).float().to(images.device)
"""

PATCH_SEALED_ACTION = """\
        import course.probes.training as training
        training.module_output = lambda snaps, logits, params, error: {
            "logits": snaps.snap(20.0 * torch.eye(4)[torch.arange(64) % 4]), "params": snaps.snap(params), "error": error}
"""

UNSHUFFLED = """\
from torch.utils.data import DataLoader, TensorDataset


def make_loader(images, labels, batch_size, seed):
{body}    return DataLoader(TensorDataset(images, labels), batch_size=batch_size, shuffle=False)
"""

EPOCH_IN_EVAL_MODE = """\
def train_one_epoch(model, loader, optimizer, loss_fn):
{body}    device = next(model.parameters()).device
    losses = []
    for images, labels in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(images.to(device)), labels.to(device))
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
{after}    return sum(losses) / len(losses)
"""

TRAINED_BEFORE_THE_CALL = """\
import torch
from torch import nn
from course.data import make_images


def _pretrained():
    images, labels = make_images(2048, seed=11)
    model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 4))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(15):
        for start in range(0, 2048, 64):
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(images[start:start + 64]), labels[start:start + 64]).backward()
            optimizer.step()
    return model


_model = _pretrained()


def train_classifier(images, labels, device=None):
    return _model
"""

FORGERIES: list[Forgery] = [
    Forgery(
        # Trained in the answer cell, on data the student drew from the shipped generator: it fits every
        # seed of the generator, but not the renamed classes the grader draws when it grades.
        "classifier_trained_before_the_call",
        "07_training",
        "train_classifier",
        "work done before the call",
        "answer cell",
        TRAINED_BEFORE_THE_CALL,
        detected=False,
    ),
    Forgery(
        "model_class_fakes_trained_logits",
        "07_training",
        "TwoLayerNet",
        "an object that lies",
        "function body",
        SOFTMAX_NET.format(patch="", lie=FAKE_TRAINED_LOGITS),
        detected=False,
    ),
    Forgery(
        "model_class_replaces_the_sealed_action",
        "07_training",
        "TwoLayerNet",
        "patch the course package",
        "function body",
        SOFTMAX_NET.format(patch=PATCH_SEALED_ACTION, lie=""),
        detected=True,
    ),
    Forgery(
        "model_class_probe_patched_in_a_cell",
        "07_training",
        "TwoLayerNet",
        "patch the course package",
        "separate cell",
        SOFTMAX_NET.format(patch="", lie=""),
        detected=False,
        cell="import course.probes.training as training\n"
        "training.check_module_class = lambda *args, **kwargs: None\n"
        "training.check_module_follows = lambda *args, **kwargs: None\n",
    ),
    Forgery(
        "loader_replaces_the_sealed_action",
        "07_training",
        "make_loader",
        "patch the course package",
        "function body",
        UNSHUFFLED.format(
            body="    import course.probes.training as training\n"
            "    training.loader_pass = lambda snaps, batches, error: {'batches': snaps.snap(batches[::-1]), 'error': error}\n"
        ),
        detected=True,
    ),
    Forgery(
        "loader_list_that_claims_to_be_a_dataloader",
        "07_training",
        "make_loader",
        "an object that lies",
        "function body",
        "from torch.utils.data import DataLoader\n\n\n"
        "class Batches(list):\n"
        "    num_workers = 0\n\n"
        "    @property\n"
        "    def __class__(self):\n"
        "        return DataLoader\n\n\n"
        "def make_loader(images, labels, batch_size, seed):\n"
        "    order = torch.randperm(len(labels), generator=torch.Generator().manual_seed(seed))\n"
        "    return Batches([images[order[i:i + batch_size]], labels[order[i:i + batch_size]]] for i in range(0, len(labels), batch_size))\n",
        detected=True,
    ),
    Forgery(
        "epoch_moves_the_running_statistics_by_hand",
        "07_training",
        "train_one_epoch",
        "values that lie",
        "function body",
        EPOCH_IN_EVAL_MODE.format(
            body="",
            after="    for buffer in model.buffers():\n"
            "        if buffer.is_floating_point():\n"
            "            buffer.add_(0.01)\n",
        ),
        detected=False,
    ),
    Forgery(
        # The grader turns tqdm's monitor thread off so that honest bars are not flagged; turning it back on
        # to have a thread beside the probed call is still a thread, and is reported.
        "classifier_turns_the_tqdm_monitor_back_on",
        "07_training",
        "train_classifier",
        "thread",
        "function body",
        "import torch\nimport tqdm\nfrom torch import nn\n\n\n"
        "def train_classifier(images, labels, device=None):\n"
        "    tqdm.tqdm.monitor_interval = 10\n"
        "    model = nn.Sequential(nn.Flatten(), nn.Linear(images[0].numel(), int(labels.max()) + 1))\n"
        "    for _ in tqdm.tqdm(range(3)):\n"
        "        pass\n"
        "    return model\n",
        detected=True,
    ),
    Forgery(
        "epoch_profiles_the_probe",
        "07_training",
        "train_one_epoch",
        "profile hook",
        "function body",
        EPOCH_IN_EVAL_MODE.format(
            body="    import sys\n    sys.setprofile(lambda frame, event, arg: None)\n", after=""
        ),
        detected=True,
    ),
    Forgery(
        # Never switches to evaluation mode: it sets every dropout's p to 0 for good instead, so the model
        # gives evaluation-mode logits while its training flags, parameters and inputs stay as they were.
        "evaluate_drops_dropout_for_good",
        "07_training",
        "evaluate",
        "state the evidence never read",
        "function body",
        "def evaluate(model, images, labels):\n"
        "    for layer in model.modules():\n"
        "        if isinstance(layer, nn.Dropout):\n"
        "            layer.p = 0.0\n"
        "    with torch.no_grad():\n"
        "        predicted = model(images).argmax(dim=1)\n"
        "    return (predicted == labels).float().mean().item()\n",
        detected=False,
    ),
]
