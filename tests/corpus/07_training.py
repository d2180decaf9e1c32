"""Wrong and right answers for lesson 07 (training): each wrong one is a real mistake its test must catch."""

ITEMS = {
    "training_step": {
        "wrong": [
            # The loss is computed again after the update, so the returned value is the new loss.
            '''def training_step(model, images, labels, optimizer, loss_fn):
    """One update of `model` on one batch; returns the loss before the update as a Python float."""
    optimizer.zero_grad()
    loss_fn(model(images), labels).backward()
    optimizer.step()
    return loss_fn(model(images), labels).item()
''',
            # No zero_grad: stale gradients are added to the fresh ones and leak into the update.
            '''def training_step(model, images, labels, optimizer, loss_fn):
    """One update of `model` on one batch; returns the loss before the update as a Python float."""
    loss = loss_fn(model(images), labels)
    loss.backward()
    optimizer.step()
    return loss.item()
''',
            # Returns the loss tensor (with its graph) instead of a Python float.
            '''def training_step(model, images, labels, optimizer, loss_fn):
    """One update of `model` on one batch; returns the loss before the update as a Python float."""
    optimizer.zero_grad()
    loss = loss_fn(model(images), labels)
    loss.backward()
    optimizer.step()
    return loss
''',
            # zero_grad between backward and step: the fresh gradient is thrown away, nothing moves.
            '''def training_step(model, images, labels, optimizer, loss_fn):
    """One update of `model` on one batch; returns the loss before the update as a Python float."""
    loss = loss_fn(model(images), labels)
    loss.backward()
    optimizer.zero_grad()
    optimizer.step()
    return loss.item()
''',
            # Clears the gradients at the end instead of the start: stale ones from before the call leak.
            '''def training_step(model, images, labels, optimizer, loss_fn):
    """One update of `model` on one batch; returns the loss before the update as a Python float."""
    loss = loss_fn(model(images), labels)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss.item()
''',
            # Ignores the loss function it is given and always uses a plain CrossEntropyLoss.
            '''def training_step(model, images, labels, optimizer, loss_fn):
    """One update of `model` on one batch; returns the loss before the update as a Python float."""
    optimizer.zero_grad()
    loss = nn.CrossEntropyLoss()(model(images), labels)
    loss.backward()
    optimizer.step()
    return loss.item()
''',
            # Updates the weights by hand with a fixed learning rate instead of asking the optimizer.
            '''def training_step(model, images, labels, optimizer, loss_fn):
    """One update of `model` on one batch; returns the loss before the update as a Python float."""
    model.zero_grad()
    loss = loss_fn(model(images), labels)
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= 0.1 * p.grad
    return loss.item()
''',
        ],
        "right": [
            '''def training_step(model, images, labels, optimizer, loss_fn):
    """One update of `model` on one batch; returns the loss before the update as a Python float."""
    model.zero_grad()
    loss = loss_fn(model(images), labels)
    loss.backward()
    optimizer.step()
    return float(loss.detach())
''',
            '''def training_step(model, images, labels, optimizer, loss_fn):
    """One update of `model` on one batch; returns the loss before the update as a Python float."""
    logits = model(images)
    loss = loss_fn(logits, labels)
    optimizer.zero_grad(set_to_none=False)
    loss.backward()
    value = loss.detach().item()
    optimizer.step()
    return value
''',
            '''def training_step(model, images, labels, optimizer, loss_fn):
    """One update of `model` on one batch; returns the loss before the update as a Python float."""
    for p in model.parameters():
        p.grad = None
    device = next(model.parameters()).device
    loss = loss_fn(model(images.to(device)), labels.to(device))
    loss.backward()
    optimizer.step()
    return loss.item()
''',
        ],
    },
    "evaluate": {
        "wrong": [
            # Returns the number of right predictions, not the fraction.
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, without a graph."""
    with torch.no_grad():
        predicted = model(images).argmax(dim=1)
    return int((predicted == labels).sum())
''',
            # Returns a 0-d tensor instead of a Python float.
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, without a graph."""
    with torch.no_grad():
        predicted = model(images).argmax(dim=1)
    return (predicted == labels).float().mean()
''',
            # Forgets no_grad: a graph is recorded for nothing.
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, without a graph."""
    predicted = model(images).argmax(dim=1)
    return (predicted == labels).float().mean().item()
''',
            # Detaches after the forward pass: the graph was already recorded.
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, without a graph."""
    logits = model(images).detach()
    return (logits.argmax(dim=1) == labels).float().mean().item()
''',
            # Integer division: the accuracy is always 0 (or 1), and an int.
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, without a graph."""
    with torch.no_grad():
        correct = int((model(images).argmax(dim=1) == labels).sum())
    return correct // len(labels)
''',
            # Argmax over the batch dimension instead of the class dimension.
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, without a graph."""
    with torch.no_grad():
        predicted = model(images).argmax(dim=0)
    return (predicted == labels[: len(predicted)]).float().mean().item()
''',
            # Turns off requires_grad on the model's parameters for good, changing the model.
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, without a graph."""
    for p in model.parameters():
        p.requires_grad_(False)
    predicted = model(images.detach()).argmax(dim=1)
    return (predicted == labels).float().mean().item()
''',
        ],
        "right": [
            '''@torch.no_grad()
def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, without a graph."""
    predicted = model(images).argmax(dim=1)
    return (predicted == labels).sum().item() / len(labels)
''',
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, without a graph."""
    with torch.inference_mode():
        logits = model(images)
    right = (logits.argmax(1) == labels).to(torch.float64)
    return float(right.mean())
''',
        ],
    },
    "train_classifier": {
        "wrong": [
            # Far too few updates: a single small step.
            '''import torch
from torch import nn


def train_classifier(images, labels, device=None):
    """A small model trained on (images, labels) on `device`; returns the trained nn.Module."""
    model = nn.Sequential(nn.Flatten(), nn.Linear(images[0].numel(), 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    optimizer.zero_grad()
    nn.CrossEntropyLoss()(model(images), labels).backward()
    optimizer.step()
    return model
''',
            # Returns the list of losses instead of the model.
            '''import torch
from torch import nn


def train_classifier(images, labels, device=None):
    """A small model trained on (images, labels) on `device`; returns the trained nn.Module."""
    model = nn.Sequential(nn.Flatten(), nn.Linear(images[0].numel(), 4))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    losses = []
    for epoch in range(5):
        for start in range(0, len(labels), 64):
            optimizer.zero_grad()
            loss = nn.CrossEntropyLoss()(model(images[start:start + 64]), labels[start:start + 64])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return losses
''',
            # Two outputs, as in the cats-and-dogs example, for a four-class problem.
            '''import torch
from torch import nn


def train_classifier(images, labels, device=None):
    """A small model trained on (images, labels) on `device`; returns the trained nn.Module."""
    model = nn.Sequential(nn.Flatten(), nn.Linear(images[0].numel(), 2))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    keep = labels < 2
    x, y = images[keep], labels[keep]
    for epoch in range(10):
        for start in range(0, len(y), 64):
            optimizer.zero_grad()
            nn.CrossEntropyLoss()(model(x[start:start + 64]), y[start:start + 64]).backward()
            optimizer.step()
    return model
''',
            # The model only accepts flattened images: it fails on (N, C, H, W) batches.
            '''import torch
from torch import nn


def train_classifier(images, labels, device=None):
    """A small model trained on (images, labels) on `device`; returns the trained nn.Module."""
    flat = images.reshape(len(images), -1)
    model = nn.Linear(flat.shape[1], 4)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(10):
        for start in range(0, len(labels), 64):
            optimizer.zero_grad()
            nn.CrossEntropyLoss()(model(flat[start:start + 64]), labels[start:start + 64]).backward()
            optimizer.step()
    return model
''',
            # Normalises the caller's images in place: the inputs change.
            '''import torch
from torch import nn


def train_classifier(images, labels, device=None):
    """A small model trained on (images, labels) on `device`; returns the trained nn.Module."""
    images -= images.mean()
    model = nn.Sequential(nn.Flatten(), nn.Linear(images[0].numel(), 4))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(10):
        for start in range(0, len(labels), 64):
            optimizer.zero_grad()
            nn.CrossEntropyLoss()(model(images[start:start + 64]), labels[start:start + 64]).backward()
            optimizer.step()
    return model
''',
        ],
        "right": [
            '''import torch
from torch import nn


def train_classifier(images, labels, device=None):
    """A small model trained on (images, labels) on `device`; returns the trained nn.Module."""
    device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    classes = int(labels.max().item()) + 1
    model = nn.Sequential(nn.Flatten(), nn.Linear(images[0].numel(), 32), nn.ReLU(), nn.Linear(32, classes)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = nn.CrossEntropyLoss()
    x, y = images.to(device), labels.to(device)
    for epoch in range(15):
        for start in range(0, len(y), 32):
            optimizer.zero_grad()
            loss_fn(model(x[start:start + 32]), y[start:start + 32]).backward()
            optimizer.step()
    return model
''',
            '''import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def train_classifier(images, labels, device=None):
    """A small model trained on (images, labels) on `device`; returns the trained nn.Module."""
    if device is None:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Sequential(nn.Flatten(), nn.Linear(images[0].numel(), 4)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.CrossEntropyLoss()
    loader = DataLoader(TensorDataset(images, labels), batch_size=128, shuffle=True)
    for epoch in range(8):
        for x, y in loader:
            training_step(model, x.to(device), y.to(device), optimizer, loss_fn)
    return model.eval()
''',
            '''import torch
from torch import nn


def train_classifier(images, labels, device=None):
    """A small model trained on (images, labels) on `device`; returns the trained nn.Module."""
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    x, y = images.to(device), labels.to(device)
    model = nn.Sequential(nn.Flatten(), nn.Linear(x[0].numel(), 4)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(60):
        optimizer.zero_grad()
        nn.CrossEntropyLoss()(model(x), y).backward()
        optimizer.step()
    return model.cpu()
''',
        ],
    },
    "answer_seed_training_bug": {
        "wrong": [
            '''# One upper-case letter as a string, for example "A".
answer_seed_training_bug = "A"
''',
            '''# One upper-case letter as a string, for example "A".
answer_seed_training_bug = "B"
''',
            '''# One upper-case letter as a string, for example "A".
answer_seed_training_bug = "D"
''',
            '''# One upper-case letter as a string, for example "A".
answer_seed_training_bug = "c"
''',
        ],
        "right": [
            '''# One upper-case letter as a string, for example "A".
answer_seed_training_bug = "C"
''',
            '''# One upper-case letter as a string, for example "A".
answer_seed_training_bug = "ABCD"[2]
''',
        ],
    },
}
