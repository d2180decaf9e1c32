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
            # Gradients by torch.autograd.grad, written into .grad (which replaces the stale ones), then the optimizer.
            '''def training_step(model, images, labels, optimizer, loss_fn):
    """One update of `model` on one batch; returns the loss before the update as a Python float."""
    params = [p for p in model.parameters() if p.requires_grad]
    loss = loss_fn(model(images), labels)
    grads = torch.autograd.grad(loss, params)
    for p, g in zip(params, grads):
        p.grad = g
    optimizer.step()
    return loss.item()
''',
            # A defensive version that checks the batch first and zeroes every .grad in place.
            '''def training_step(model, images, labels, optimizer, loss_fn):
    """One update of `model` on one batch; returns the loss before the update as a Python float."""
    if images.shape[0] != labels.shape[0]:
        raise ValueError(f"{images.shape[0]} images but {labels.shape[0]} labels")
    for group in optimizer.param_groups:
        for p in group["params"]:
            if p.grad is not None:
                p.grad.detach_()
                p.grad.zero_()
    output = model(images)
    loss = loss_fn(output, labels)
    loss.backward()
    optimizer.step()
    return float(loss.item())
''',
        ],
    },
    "evaluate": {
        "wrong": [
            # Returns the number of right predictions, not the fraction.
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, in eval mode, without a graph."""
    with torch.no_grad():
        predicted = model(images).argmax(dim=1)
    return int((predicted == labels).sum())
''',
            # Returns a 0-d tensor instead of a Python float.
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, in eval mode, without a graph."""
    with torch.no_grad():
        predicted = model(images).argmax(dim=1)
    return (predicted == labels).float().mean()
''',
            # Forgets no_grad: a graph is recorded for nothing.
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, in eval mode, without a graph."""
    predicted = model(images).argmax(dim=1)
    return (predicted == labels).float().mean().item()
''',
            # Detaches after the forward pass: the graph was already recorded.
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, in eval mode, without a graph."""
    logits = model(images).detach()
    return (logits.argmax(dim=1) == labels).float().mean().item()
''',
            # Integer division: the accuracy is always 0 (or 1), and an int.
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, in eval mode, without a graph."""
    with torch.no_grad():
        correct = int((model(images).argmax(dim=1) == labels).sum())
    return correct // len(labels)
''',
            # Argmax over the batch dimension instead of the class dimension.
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, in eval mode, without a graph."""
    with torch.no_grad():
        predicted = model(images).argmax(dim=0)
    return (predicted == labels[: len(predicted)]).float().mean().item()
''',
            # Turns off requires_grad on the model's parameters for good, changing the model.
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, in eval mode, without a graph."""
    for p in model.parameters():
        p.requires_grad_(False)
    predicted = model(images.detach()).argmax(dim=1)
    return (predicted == labels).float().mean().item()
''',
            # Forgets model.eval(): dropout still drops while the accuracy is measured.
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, in eval mode, without a graph."""
    with torch.no_grad():
        predicted = model(images).argmax(dim=1)
    return (predicted == labels).float().mean().item()
''',
            # Switches to evaluation mode and leaves the model there.
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, in eval mode, without a graph."""
    model.eval()
    with torch.no_grad():
        predicted = model(images).argmax(dim=1)
    return (predicted == labels).float().mean().item()
''',
            # Always switches back to training mode, even when the model came in evaluation mode.
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, in eval mode, without a graph."""
    model.eval()
    with torch.no_grad():
        predicted = model(images).argmax(dim=1)
    model.train()
    return (predicted == labels).float().mean().item()
''',
        ],
        "right": [
            '''@torch.no_grad()
def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, in eval mode, without a graph."""
    mode = model.training
    model.eval()
    predicted = model(images).argmax(dim=1)
    model.train(mode)
    return (predicted == labels).sum().item() / len(labels)
''',
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, in eval mode, without a graph."""
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            logits = model(images)
    finally:
        model.train(was_training)
    right = (logits.argmax(1) == labels).to(torch.float64)
    return float(right.mean())
''',
            # Every layer's own mode noted and put back one by one.
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, in eval mode, without a graph."""
    modes = {layer: layer.training for layer in model.modules()}
    model.eval()
    with torch.no_grad():
        logits = model(images)
    for layer, mode in modes.items():
        layer.training = mode
    correct = (logits.argmax(1) == labels).sum()
    return correct.item() / labels.numel()
''',
            # NumPy for the counting; model.train(False) is model.eval().
            '''import numpy as np


def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, in eval mode, without a graph."""
    was = model.training
    model.train(False)
    with torch.no_grad():
        scores = model(images).cpu().numpy()
    if was:
        model.train()
    return np.mean(scores.argmax(axis=1) == labels.cpu().numpy())
''',
            # torch.max for the predicted class, torch.eq for the comparison.
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, in eval mode, without a graph."""
    previous = model.training
    model.eval()
    with torch.no_grad():
        _, predicted = torch.max(model(images), 1)
    model.train(previous)
    return torch.eq(predicted, labels).float().mean().item()
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
            # Trains well, then keeps computing: over 10 s of CPU time on the one thread.
            '''import time

import torch
from torch import nn


def train_classifier(images, labels, device=None):
    """A small model trained on (images, labels) on `device`; returns the trained nn.Module."""
    x, y = images, labels
    model = nn.Sequential(nn.Flatten(), nn.Linear(x[0].numel(), int(y.max()) + 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(150):
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()
    busy_until = time.process_time() + 11
    while time.process_time() < busy_until:
        pass
    return model
''',
            # Burns 11 s of CPU after training and makes time.process_time report nothing, to hide it from the limit.
            '''import time

import torch
from torch import nn

_clock = time.process_time
time.process_time = lambda: 0.0


def train_classifier(images, labels, device=None):
    """A small model trained on (images, labels) on `device`; returns the trained nn.Module."""
    x, y = images, labels
    model = nn.Sequential(nn.Flatten(), nn.Linear(x[0].numel(), int(y.max()) + 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(150):
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()
    busy_until = _clock() + 11
    while _clock() < busy_until:
        pass
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
            # Built from the lesson's own pieces: TwoLayerNet, make_loader and train_one_epoch.
            '''import torch
from torch import nn


def train_classifier(images, labels, device=None):
    """A small model trained on (images, labels) on `device`; returns the trained nn.Module."""
    device = torch.device(device if device is not None else ("cuda" if torch.cuda.is_available() else "cpu"))
    torch.manual_seed(0)
    model = TwoLayerNet(num_classes=int(labels.max()) + 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loader = make_loader(images, labels, 32, 0)
    for epoch in range(4):
        train_one_epoch(model, loader, optimizer, nn.CrossEntropyLoss())
    return model.eval()
''',
            # Full-batch L-BFGS with a little weight decay: a few dozen steps on all 512 images at once.
            '''import torch
from torch import nn


def train_classifier(images, labels, device=None):
    """A small model trained on (images, labels) on `device`; returns the trained nn.Module."""
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    x, y = images.to(device), labels.to(device)
    linear = nn.Linear(x[0].numel(), int(y.max()) + 1)
    model = nn.Sequential(nn.Flatten(), linear).to(device)
    optimizer = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=30, history_size=10)
    loss_fn = nn.CrossEntropyLoss()

    def closure():
        optimizer.zero_grad()
        loss = loss_fn(model(x), y) + 1e-3 * linear.weight.pow(2).sum()
        loss.backward()
        return loss

    for _ in range(2):
        optimizer.step(closure)
    return model
''',
        ],
    },
    "make_loader": {
        "wrong": [
            # No shuffling: the batches follow the data's order, whatever the seed.
            '''from torch.utils.data import DataLoader, TensorDataset


def make_loader(images, labels, batch_size, seed):
    """A shuffling DataLoader of (images, labels) batches whose order is fixed by `seed`."""
    return DataLoader(TensorDataset(images, labels), batch_size=batch_size, shuffle=False,
                      generator=torch.Generator().manual_seed(seed))
''',
            # Seeds the global generator: a loader made later reseeds it, so two loaders with one seed disagree.
            '''from torch.utils.data import DataLoader, TensorDataset


def make_loader(images, labels, batch_size, seed):
    """A shuffling DataLoader of (images, labels) batches whose order is fixed by `seed`."""
    torch.manual_seed(seed)
    return DataLoader(TensorDataset(images, labels), batch_size=batch_size, shuffle=True)
''',
            # A generator that is never seeded: every seed gives the same order.
            '''from torch.utils.data import DataLoader, TensorDataset


def make_loader(images, labels, batch_size, seed):
    """A shuffling DataLoader of (images, labels) batches whose order is fixed by `seed`."""
    return DataLoader(TensorDataset(images, labels), batch_size=batch_size, shuffle=True, generator=torch.Generator())
''',
            # drop_last=True: the last, smaller batch never comes.
            '''from torch.utils.data import DataLoader, TensorDataset


def make_loader(images, labels, batch_size, seed):
    """A shuffling DataLoader of (images, labels) batches whose order is fixed by `seed`."""
    return DataLoader(TensorDataset(images, labels), batch_size=batch_size, shuffle=True, drop_last=True,
                      generator=torch.Generator().manual_seed(seed))
''',
            # One fixed permutation as the sampler: every epoch repeats the first one's order.
            '''from torch.utils.data import DataLoader, TensorDataset


def make_loader(images, labels, batch_size, seed):
    """A shuffling DataLoader of (images, labels) batches whose order is fixed by `seed`."""
    order = torch.randperm(len(labels), generator=torch.Generator().manual_seed(seed)).tolist()
    return DataLoader(TensorDataset(images, labels), batch_size=batch_size, sampler=order)
''',
            # The batches as a list, not a DataLoader: no new order in the next epoch.
            '''from torch.utils.data import DataLoader, TensorDataset


def make_loader(images, labels, batch_size, seed):
    """A shuffling DataLoader of (images, labels) batches whose order is fixed by `seed`."""
    order = torch.randperm(len(labels), generator=torch.Generator().manual_seed(seed))
    return [(images[order[i:i + batch_size]], labels[order[i:i + batch_size]]) for i in range(0, len(labels), batch_size)]
''',
            # Two worker processes: they need shared memory, which the grading sandbox does not give.
            '''from torch.utils.data import DataLoader, TensorDataset


def make_loader(images, labels, batch_size, seed):
    """A shuffling DataLoader of (images, labels) batches whose order is fixed by `seed`."""
    return DataLoader(TensorDataset(images, labels), batch_size=batch_size, shuffle=True, num_workers=2,
                      generator=torch.Generator().manual_seed(seed))
''',
        ],
        "right": [
            # A Dataset class of its own, and a RandomSampler that holds the generator.
            '''from torch.utils.data import DataLoader, Dataset, RandomSampler


class Pairs(Dataset):
    def __init__(self, images, labels):
        self.images, self.labels = images, labels

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.images[i], self.labels[i]


def make_loader(images, labels, batch_size, seed):
    """A shuffling DataLoader of (images, labels) batches whose order is fixed by `seed`."""
    data = Pairs(images, labels)
    sampler = RandomSampler(data, generator=torch.Generator().manual_seed(seed))
    return DataLoader(data, batch_size=batch_size, sampler=sampler)
''',
            # A plain list of (image, label) pairs is a dataset too.
            '''from torch.utils.data import DataLoader, TensorDataset


def make_loader(images, labels, batch_size, seed):
    """A shuffling DataLoader of (images, labels) batches whose order is fixed by `seed`."""
    pairs = list(zip(images, labels))
    g = torch.Generator()
    g.manual_seed(seed)
    return DataLoader(pairs, batch_size=batch_size, shuffle=True, generator=g)
''',
            # Batches chosen by a BatchSampler over a seeded RandomSampler.
            '''from torch.utils.data import BatchSampler, DataLoader, RandomSampler, TensorDataset


def make_loader(images, labels, batch_size, seed):
    """A shuffling DataLoader of (images, labels) batches whose order is fixed by `seed`."""
    data = TensorDataset(images, labels)
    order = RandomSampler(data, generator=torch.Generator().manual_seed(seed))
    return DataLoader(data, batch_sampler=BatchSampler(order, batch_size=batch_size, drop_last=False))
''',
            # A defensive version that checks its arguments first.
            '''from torch.utils.data import DataLoader, TensorDataset


def make_loader(images, labels, batch_size, seed):
    """A shuffling DataLoader of (images, labels) batches whose order is fixed by `seed`."""
    if len(images) != len(labels):
        raise ValueError(f"{len(images)} images but {len(labels)} labels")
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    generator = torch.Generator(device="cpu")
    generator.manual_seed(int(seed))
    return DataLoader(TensorDataset(images, labels), batch_size=int(batch_size), shuffle=True, generator=generator,
                      num_workers=0, drop_last=False)
''',
        ],
    },
    "TwoLayerNet": {
        "wrong": [
            # The layers sit in a plain list: the module has no parameters, and nothing trains.
            '''class TwoLayerNet(nn.Module):
    """Logits for (N, 3, 32, 32) images: Flatten, Linear(3072, hidden), ReLU, Linear(hidden, num_classes)."""

    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.layers = [nn.Flatten(), nn.Linear(3 * 32 * 32, hidden), nn.ReLU(), nn.Linear(hidden, num_classes)]

    def forward(self, images):
        x = images
        for layer in self.layers:
            x = layer(x)
        return x
''',
            # A softmax at the end: probabilities, not logits, so the loss can hardly fall.
            '''class TwoLayerNet(nn.Module):
    """Logits for (N, 3, 32, 32) images: Flatten, Linear(3072, hidden), ReLU, Linear(hidden, num_classes)."""

    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.fc1 = nn.Linear(3 * 32 * 32, hidden)
        self.fc2 = nn.Linear(hidden, num_classes)

    def forward(self, images):
        return torch.softmax(self.fc2(torch.relu(self.fc1(images.flatten(1)))), dim=1)
''',
            # No ReLU: two Linear layers in a row are one linear map.
            '''class TwoLayerNet(nn.Module):
    """Logits for (N, 3, 32, 32) images: Flatten, Linear(3072, hidden), ReLU, Linear(hidden, num_classes)."""

    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.fc1 = nn.Linear(3 * 32 * 32, hidden)
        self.fc2 = nn.Linear(hidden, num_classes)

    def forward(self, images):
        return self.fc2(self.fc1(images.flatten(1)))
''',
            # flatten() without start_dim flattens the batch dimension away too.
            '''class TwoLayerNet(nn.Module):
    """Logits for (N, 3, 32, 32) images: Flatten, Linear(3072, hidden), ReLU, Linear(hidden, num_classes)."""

    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.fc1 = nn.Linear(3 * 32 * 32, hidden)
        self.fc2 = nn.Linear(hidden, num_classes)

    def forward(self, images):
        return self.fc2(torch.relu(self.fc1(images.flatten())))
''',
            # The hidden activations are detached: only the last layer learns.
            '''class TwoLayerNet(nn.Module):
    """Logits for (N, 3, 32, 32) images: Flatten, Linear(3072, hidden), ReLU, Linear(hidden, num_classes)."""

    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.fc1 = nn.Linear(3 * 32 * 32, hidden)
        self.fc2 = nn.Linear(hidden, num_classes)

    def forward(self, images):
        return self.fc2(torch.relu(self.fc1(images.flatten(1))).detach())
''',
            # The hidden size is fixed at 32 whatever the argument says.
            '''class TwoLayerNet(nn.Module):
    """Logits for (N, 3, 32, 32) images: Flatten, Linear(3072, hidden), ReLU, Linear(hidden, num_classes)."""

    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.fc1 = nn.Linear(3 * 32 * 32, 32)
        self.fc2 = nn.Linear(32, num_classes)

    def forward(self, images):
        return self.fc2(torch.relu(self.fc1(images.flatten(1))))
''',
            # super().__init__() is never called: assigning the first layer raises.
            '''class TwoLayerNet(nn.Module):
    """Logits for (N, 3, 32, 32) images: Flatten, Linear(3072, hidden), ReLU, Linear(hidden, num_classes)."""

    def __init__(self, hidden=32, num_classes=4):
        self.fc1 = nn.Linear(3 * 32 * 32, hidden)
        self.fc2 = nn.Linear(hidden, num_classes)

    def forward(self, images):
        return self.fc2(torch.relu(self.fc1(images.flatten(1))))
''',
        ],
        "right": [
            # An nn.Sequential inside the class.
            '''class TwoLayerNet(nn.Module):
    """Logits for (N, 3, 32, 32) images: Flatten, Linear(3072, hidden), ReLU, Linear(hidden, num_classes)."""

    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, hidden), nn.ReLU(), nn.Linear(hidden, num_classes))

    def forward(self, images):
        return self.net(images)
''',
            # Layers created output first, functional ReLU, reshape by hand.
            '''import torch.nn.functional as F


class TwoLayerNet(nn.Module):
    """Logits for (N, 3, 32, 32) images: Flatten, Linear(3072, hidden), ReLU, Linear(hidden, num_classes)."""

    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.out = nn.Linear(hidden, num_classes)
        self.hidden = nn.Linear(3 * 32 * 32, hidden)

    def forward(self, images):
        x = images.reshape(images.size(0), -1)
        return self.out(F.relu(self.hidden(x)))
''',
            # Parameters by hand, weights stored as (in, out), matrix products written out.
            '''import math


class TwoLayerNet(nn.Module):
    """Logits for (N, 3, 32, 32) images: Flatten, Linear(3072, hidden), ReLU, Linear(hidden, num_classes)."""

    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(3 * 32 * 32, hidden) / math.sqrt(3 * 32 * 32))
        self.b1 = nn.Parameter(torch.zeros(hidden))
        self.w2 = nn.Parameter(torch.randn(hidden, num_classes) / math.sqrt(hidden))
        self.b2 = nn.Parameter(torch.zeros(num_classes))

    def forward(self, images):
        h = torch.clamp(images.reshape(images.shape[0], -1) @ self.w1 + self.b1, min=0)
        return h @ self.w2 + self.b2
''',
            # An nn.ModuleList walked in forward, with a check of the input's shape.
            '''class TwoLayerNet(nn.Module):
    """Logits for (N, 3, 32, 32) images: Flatten, Linear(3072, hidden), ReLU, Linear(hidden, num_classes)."""

    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(3 * 32 * 32, hidden), nn.ReLU(), nn.Linear(hidden, num_classes)])

    def forward(self, images):
        if tuple(images.shape[1:]) != (3, 32, 32):
            raise ValueError(f"expected images of shape (N, 3, 32, 32), got {tuple(images.shape)}")
        x = torch.flatten(images, start_dim=1)
        for layer in self.layers:
            x = layer(x)
        return x
''',
        ],
    },
    "train_one_epoch": {
        "wrong": [
            # Never switches to training mode: a model that arrives in evaluation mode trains with batch norm frozen.
            '''def train_one_epoch(model, loader, optimizer, loss_fn):
    """One pass over `loader` in training mode, one update per batch; returns the mean batch loss as a Python float."""
    device = next(model.parameters()).device
    losses = []
    for images, labels in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(images.to(device)), labels.to(device))
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)
''',
            # Returns the last batch's loss instead of the epoch's mean.
            '''def train_one_epoch(model, loader, optimizer, loss_fn):
    """One pass over `loader` in training mode, one update per batch; returns the mean batch loss as a Python float."""
    model.train()
    device = next(model.parameters()).device
    for images, labels in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(images.to(device)), labels.to(device))
        loss.backward()
        optimizer.step()
    return loss.item()
''',
            # Switches to evaluation mode, thinking that is what training needs.
            '''def train_one_epoch(model, loader, optimizer, loss_fn):
    """One pass over `loader` in training mode, one update per batch; returns the mean batch loss as a Python float."""
    model.eval()
    device = next(model.parameters()).device
    total = 0.0
    for images, labels in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(images.to(device)), labels.to(device))
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)
''',
            # Never clears the gradients: each step also applies the earlier ones.
            '''def train_one_epoch(model, loader, optimizer, loss_fn):
    """One pass over `loader` in training mode, one update per batch; returns the mean batch loss as a Python float."""
    model.train()
    device = next(model.parameters()).device
    total = 0.0
    for images, labels in loader:
        loss = loss_fn(model(images.to(device)), labels.to(device))
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)
''',
            # Counts the batches by going through the loader first: the real pass then has another order.
            '''def train_one_epoch(model, loader, optimizer, loss_fn):
    """One pass over `loader` in training mode, one update per batch; returns the mean batch loss as a Python float."""
    model.train()
    device = next(model.parameters()).device
    count = len(list(loader))
    total = 0.0
    for images, labels in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(images.to(device)), labels.to(device))
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / count
''',
            # The mean over images rather than over batches: different when the last batch is smaller.
            '''def train_one_epoch(model, loader, optimizer, loss_fn):
    """One pass over `loader` in training mode, one update per batch; returns the mean batch loss as a Python float."""
    model.train()
    device = next(model.parameters()).device
    total, seen = 0.0, 0
    for images, labels in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(images.to(device)), labels.to(device))
        loss.backward()
        optimizer.step()
        total += loss.item() * len(labels)
        seen += len(labels)
    return total / seen
''',
        ],
        "right": [
            # Each batch through training_step.
            '''def train_one_epoch(model, loader, optimizer, loss_fn):
    """One pass over `loader` in training mode, one update per batch; returns the mean batch loss as a Python float."""
    model.train()
    device = next(model.parameters()).device
    losses = [training_step(model, images.to(device), labels.to(device), optimizer, loss_fn) for images, labels in loader]
    return sum(losses) / len(losses)
''',
            # The detached losses stacked, then averaged by PyTorch.
            '''def train_one_epoch(model, loader, optimizer, loss_fn):
    """One pass over `loader` in training mode, one update per batch; returns the mean batch loss as a Python float."""
    model.train(True)
    where = next(model.parameters()).device
    losses = []
    for x, y in loader:
        x, y = x.to(where), y.to(where)
        model.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return torch.stack(losses).mean().item()
''',
            # NumPy's mean of the batch losses; len(loader) is the number of batches.
            '''import numpy as np


def train_one_epoch(model, loader, optimizer, loss_fn):
    """One pass over `loader` in training mode, one update per batch; returns the mean batch loss as a Python float."""
    model.train()
    device = next(iter(model.parameters())).device
    losses = np.zeros(len(loader))
    for i, (images, labels) in enumerate(loader):
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(images.to(device)), labels.to(device))
        loss.backward()
        optimizer.step()
        losses[i] = loss.item()
    return losses.mean()
''',
            # statistics.mean, with the mode restored afterwards.
            '''import statistics


def train_one_epoch(model, loader, optimizer, loss_fn):
    """One pass over `loader` in training mode, one update per batch; returns the mean batch loss as a Python float."""
    was_training = model.training
    model.train()
    device = next(model.parameters()).device
    losses = []
    for images, labels in loader:
        images = images.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)
        optimizer.zero_grad()
        output = model(images)
        loss = loss_fn(output, labels)
        loss.backward()
        optimizer.step()
        losses.append(float(loss))
    model.train(was_training)
    return statistics.mean(losses)
''',
        ],
    },
    "answer_seed_training_bug": {
        "wrong": [
            """# One upper-case letter as a string, for example "A".
answer_seed_training_bug = "A"
""",
            """# One upper-case letter as a string, for example "A".
answer_seed_training_bug = "B"
""",
            """# One upper-case letter as a string, for example "A".
answer_seed_training_bug = "D"
""",
        ],
        "right": [
            """# One upper-case letter as a string, for example "A".
answer_seed_training_bug = "C"
""",
            """# One upper-case letter as a string, for example "A".
answer_seed_training_bug = "ABCD"[2]
""",
            # Lower case and spaces around the letter are read as the letter.
            """# One upper-case letter as a string, for example "A".
answer_seed_training_bug = " c"
""",
            """# One upper-case letter as a string, for example "A".
answer_seed_training_bug = chr(ord("A") + 2)
""",
        ],
    },
}


# More answers, each written from the task text and the contract alone, as a student would.
MORE = {
    "answer_seed_training_bug": {
        "right": [
            """# One upper-case letter as a string, for example "A".
answer_seed_training_bug = None
answer_seed_training_bug = "C"
""",
            """answer_seed_training_bug = "c"
""",
            """answer_seed_training_bug = " C "
""",
            """answer_seed_training_bug = str("C")
""",
            """choice = "C"
answer_seed_training_bug = choice.upper()
""",
        ],
        "wrong": [
            """answer_seed_training_bug = "A"
""",
            """answer_seed_training_bug = "B"
""",
            """answer_seed_training_bug = "D"
""",
        ],
    },
    "training_step": {
        "right": [
            '''def training_step(model, images, labels, optimizer, loss_fn):
    """One update of `model` on one batch; returns the loss before the update as a Python float."""
    optimizer.zero_grad()
    predictions = model(images)
    loss = loss_fn(predictions, labels)
    loss.backward()
    optimizer.step()
    return loss.item()
''',
            """def training_step(model, images, labels, optimizer, loss_fn):
    optimizer.zero_grad(set_to_none=False)
    loss = loss_fn(model(images), labels)
    value = float(loss)
    loss.backward()
    optimizer.step()
    return value
""",
            """def training_step(model, images, labels, optimizer, loss_fn):
    for p in model.parameters():
        p.grad = None
    logits = model(images)
    loss = loss_fn(logits, labels)
    loss.backward()
    optimizer.step()
    return loss.detach().item()
""",
            """def training_step(model, images, labels, optimizer, loss_fn, clear=True):
    if clear:
        model.zero_grad()
        optimizer.zero_grad()
    outputs = model(images)
    loss = loss_fn(outputs, labels)
    before = loss.item()
    loss.backward()
    optimizer.step()
    return before
""",
            """import torch

def training_step(model, images, labels, optimizer, loss_fn):
    with torch.no_grad():
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.grad.zero_()
    loss = loss_fn(model(images), labels)
    loss.backward()
    optimizer.step()
    return float(loss.detach().cpu())
""",
            """def training_step(model, images, labels, optimizer, loss_fn):
    optimizer.zero_grad(set_to_none=True)
    loss = loss_fn(model(images), labels)
    loss.backward()
    optimizer.step()
    return loss.tolist()
""",
        ],
        "wrong": [
            """def training_step(model, images, labels, optimizer, loss_fn):
    loss = loss_fn(model(images), labels)
    loss.backward()
    optimizer.zero_grad()
    optimizer.step()
    return loss.item()
""",
            """def training_step(model, images, labels, optimizer, loss_fn):
    loss = loss_fn(model(images), labels)
    loss.backward()
    optimizer.step()
    return loss.item()
""",
            """def training_step(model, images, labels, optimizer, loss_fn):
    optimizer.zero_grad()
    loss = loss_fn(model(images), labels)
    loss.backward()
    optimizer.step()
    return loss_fn(model(images), labels).item()
""",
            """def training_step(model, images, labels, optimizer, loss_fn):
    optimizer.zero_grad()
    loss = loss_fn(model(images), labels)
    loss.backward()
    optimizer.step()
    return loss
""",
        ],
    },
    "make_loader": {
        "right": [
            '''from torch.utils.data import DataLoader, TensorDataset


def make_loader(images, labels, batch_size, seed):
    """A shuffling DataLoader of (images, labels) batches whose order is fixed by `seed`."""
    generator = torch.Generator().manual_seed(seed)
    return DataLoader(TensorDataset(images, labels), batch_size=batch_size, shuffle=True,
                      generator=generator, num_workers=0)
''',
            """import torch
from torch.utils.data import DataLoader, TensorDataset, RandomSampler


def make_loader(images, labels, batch_size, seed):
    dataset = TensorDataset(images, labels)
    g = torch.Generator()
    g.manual_seed(seed)
    sampler = RandomSampler(dataset, generator=g)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=0)
""",
            """import torch
from torch.utils.data import DataLoader, Dataset


class PairDataset(Dataset):
    def __init__(self, images, labels):
        self.images = images
        self.labels = labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.images[i], self.labels[i]


def make_loader(images, labels, batch_size, seed):
    return DataLoader(PairDataset(images, labels), batch_size=batch_size, shuffle=True,
                      generator=torch.Generator().manual_seed(int(seed)), num_workers=0, drop_last=False)
""",
            """import torch
from torch.utils.data import DataLoader, TensorDataset, RandomSampler, BatchSampler


def make_loader(images, labels, batch_size, seed):
    dataset = TensorDataset(images, labels)
    gen = torch.Generator().manual_seed(seed)
    batches = BatchSampler(RandomSampler(dataset, generator=gen), batch_size=batch_size, drop_last=False)
    return DataLoader(dataset, batch_sampler=batches, num_workers=0)
""",
            """import torch
from torch.utils.data import DataLoader


def make_loader(images, labels, batch_size, seed):
    pairs = list(zip(images, labels))
    return DataLoader(pairs, batch_size=batch_size, shuffle=True,
                      generator=torch.Generator().manual_seed(seed))
""",
            """import torch
from torch.utils.data import DataLoader, TensorDataset, RandomSampler


def make_loader(images, labels, batch_size, seed):
    g = torch.Generator().manual_seed(seed)
    ds = TensorDataset(images, labels)
    return DataLoader(ds, batch_size=batch_size, sampler=RandomSampler(ds, generator=g), generator=g, num_workers=0)
""",
            """import torch
from torch.utils.data import DataLoader, TensorDataset, Sampler


class SeededShuffle(Sampler):
    def __init__(self, n, seed):
        self.n = n
        self.generator = torch.Generator().manual_seed(seed)

    def __len__(self):
        return self.n

    def __iter__(self):
        return iter(torch.randperm(self.n, generator=self.generator).tolist())


def make_loader(images, labels, batch_size, seed):
    return DataLoader(TensorDataset(images, labels), batch_size=batch_size,
                      sampler=SeededShuffle(len(labels), seed), num_workers=0)
""",
        ],
        "wrong": [
            """from torch.utils.data import DataLoader, TensorDataset


def make_loader(images, labels, batch_size, seed):
    torch.manual_seed(seed)
    return DataLoader(TensorDataset(images, labels), batch_size=batch_size, shuffle=True)
""",
            """from torch.utils.data import DataLoader, TensorDataset


def make_loader(images, labels, batch_size, seed):
    return DataLoader(TensorDataset(images, labels), batch_size=batch_size, shuffle=True, drop_last=True,
                      generator=torch.Generator().manual_seed(seed))
""",
            """from torch.utils.data import DataLoader, TensorDataset


def make_loader(images, labels, batch_size, seed):
    return DataLoader(TensorDataset(images, labels), batch_size=batch_size,
                      generator=torch.Generator().manual_seed(seed))
""",
            """import torch
from torch.utils.data import DataLoader, TensorDataset, Sampler


class SameEveryEpoch(Sampler):
    def __init__(self, n, seed):
        self.n, self.seed = n, seed

    def __len__(self):
        return self.n

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed)
        return iter(torch.randperm(self.n, generator=g).tolist())


def make_loader(images, labels, batch_size, seed):
    return DataLoader(TensorDataset(images, labels), batch_size=batch_size, sampler=SameEveryEpoch(len(labels), seed))
""",
        ],
    },
    "TwoLayerNet": {
        "right": [
            '''class TwoLayerNet(nn.Module):
    """Logits for (N, 3, 32, 32) images: Flatten, Linear(3072, hidden), ReLU, Linear(hidden, num_classes)."""

    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Linear(3 * 32 * 32, hidden)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(hidden, num_classes)

    def forward(self, images):
        return self.fc2(self.relu(self.fc1(self.flatten(images))))
''',
            """class TwoLayerNet(nn.Module):
    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.net = nn.Sequential(
            nn.Flatten(),
            nn.Linear(3072, hidden),
            nn.ReLU(),
            nn.Linear(hidden, num_classes),
        )

    def forward(self, images):
        return self.net(images)
""",
            """class TwoLayerNet(nn.Module):
    def __init__(self, hidden=32, num_classes=4):
        super(TwoLayerNet, self).__init__()
        self.hidden = nn.Linear(3 * 32 * 32, hidden)
        self.out = nn.Linear(hidden, num_classes)

    def forward(self, images):
        x = images.reshape(images.shape[0], -1)
        x = torch.relu(self.hidden(x))
        return self.out(x)
""",
            """import torch.nn.functional as F


class TwoLayerNet(nn.Module):
    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.classifier = nn.Linear(hidden, num_classes)
        self.features = nn.Linear(3072, hidden)

    def forward(self, images):
        x = torch.flatten(images, start_dim=1)
        x = F.relu(self.features(x))
        return self.classifier(x)
""",
            """class TwoLayerNet(nn.Module):
    def __init__(self, hidden=32, num_classes=4, in_features=3 * 32 * 32):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(in_features, hidden), nn.Linear(hidden, num_classes)])
        self.act = nn.ReLU(inplace=True)

    def forward(self, images):
        x = images.view(images.size(0), -1)
        x = self.act(self.layers[0](x))
        return self.layers[1](x)
""",
            """class TwoLayerNet(nn.Sequential):
    def __init__(self, hidden=32, num_classes=4):
        super().__init__(
            nn.Flatten(),
            nn.Linear(3072, hidden),
            nn.ReLU(),
            nn.Linear(hidden, num_classes),
        )
""",
            """class TwoLayerNet(nn.Module):
    def __init__(self, hidden: int = 32, num_classes: int = 4) -> None:
        super().__init__()
        self.add_module("first", nn.Linear(3072, hidden))
        self.add_module("second", nn.Linear(hidden, num_classes))
        self.hidden_size = hidden
        self.num_classes = num_classes

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        flat = images.flatten(1)
        return self.second(self.first(flat).clamp(min=0))
""",
            """class TwoLayerNet(nn.Module):
    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.fc1 = nn.Linear(3072, hidden)
        self.fc2 = nn.Linear(hidden, num_classes)
        for layer in (self.fc1, self.fc2):
            nn.init.xavier_uniform_(layer.weight)
            nn.init.zeros_(layer.bias)

    def forward(self, images):
        x = images.view(-1, 3072)
        return self.fc2(nn.functional.relu(self.fc1(x)))
""",
        ],
        "wrong": [
            """class TwoLayerNet(nn.Module):
    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(3072, hidden), nn.ReLU(), nn.Linear(hidden, num_classes), nn.Softmax(dim=1))

    def forward(self, images):
        return self.net(images)
""",
            """class TwoLayerNet(nn.Module):
    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(3072, hidden), nn.Linear(hidden, num_classes))

    def forward(self, images):
        return self.net(images)
""",
            """class TwoLayerNet(nn.Module):
    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.layers = [nn.Linear(3072, hidden), nn.Linear(hidden, num_classes)]

    def forward(self, images):
        x = images.flatten(1)
        return self.layers[1](torch.relu(self.layers[0](x)))
""",
            """class TwoLayerNet(nn.Module):
    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.fc1 = nn.Linear(3072, hidden)
        self.fc2 = nn.Linear(hidden, num_classes)

    def forward(self, images):
        x = images.reshape(images.shape[0], -1)
        return self.fc2(torch.relu(self.fc1(x))).squeeze()
""",
            """class TwoLayerNet(nn.Module):
    def __init__(self, hidden=32, num_classes=4):
        super().__init__()
        self.fc1 = nn.Linear(3072, hidden)
        self.fc2 = nn.Linear(hidden, num_classes)

    def forward(self, images):
        x = images.flatten(1)
        return torch.relu(self.fc2(torch.relu(self.fc1(x))))
""",
        ],
    },
    "evaluate": {
        "right": [
            '''def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, in eval mode, without a graph."""
    was_training = model.training
    model.eval()
    with torch.no_grad():
        predictions = model(images).argmax(dim=1)
        accuracy = (predictions == labels).float().mean().item()
    model.train(was_training)
    return accuracy
''',
            """def evaluate(model, images, labels):
    was_training = model.training
    try:
        model.eval()
        with torch.no_grad():
            logits = model(images)
        correct = (logits.argmax(1) == labels).sum().item()
        return correct / len(labels)
    finally:
        if was_training:
            model.train()
        else:
            model.eval()
""",
            """import torch


@torch.inference_mode()
def _predict(model, images):
    return model(images).argmax(dim=-1)


def evaluate(model, images, labels):
    mode = model.training
    model.eval()
    predicted = _predict(model, images)
    model.train(mode)
    return float(torch.eq(predicted, labels).to(torch.float32).mean())
""",
            """def evaluate(model, images, labels):
    modes = {m: m.training for m in model.modules()}
    model.eval()
    with torch.no_grad():
        hits = model(images).max(dim=1).indices.eq(labels)
    for m, flag in modes.items():
        m.training = flag
    return hits.double().mean().item()
""",
            """@torch.no_grad()
def evaluate(model, images, labels):
    was_training = model.training
    model.train(False)
    device = next(model.parameters()).device
    images, labels = images.to(device), labels.to(device)
    guesses = torch.argmax(model(images), dim=1)
    result = torch.mean((guesses == labels).float()).item()
    if was_training:
        model.train()
    return result
""",
            """def evaluate(model, images, labels):
    was_training = model.training
    model.eval()
    correct = 0
    with torch.no_grad():
        predictions = model(images).argmax(dim=1).tolist()
    for p, y in zip(predictions, labels.tolist()):
        correct += int(p == y)
    model.train(was_training)
    return correct / len(predictions)
""",
            """import numpy as np


def evaluate(model, images, labels):
    previous = model.training
    with torch.no_grad():
        logits = model.eval()(images)
    model.train(mode=previous)
    right = (logits.argmax(dim=1) == labels).cpu().numpy()
    return float(np.mean(right))
""",
        ],
        "wrong": [
            """def evaluate(model, images, labels):
    with torch.no_grad():
        return (model(images).argmax(dim=1) == labels).float().mean().item()
""",
            """def evaluate(model, images, labels):
    model.eval()
    with torch.no_grad():
        acc = (model(images).argmax(dim=1) == labels).float().mean().item()
    model.train()
    return acc
""",
            """def evaluate(model, images, labels):
    model.eval()
    with torch.no_grad():
        return (model(images).argmax(dim=1) == labels).float().mean().item()
""",
            """def evaluate(model, images, labels):
    was = model.training
    model.eval()
    with torch.no_grad():
        acc = (model(images).argmax(dim=1) == labels).float().mean()
    model.train(was)
    return acc
""",
            """def evaluate(model, images, labels):
    was = model.training
    model.eval()
    logits = model(images)
    acc = (logits.detach().argmax(dim=1) == labels).float().mean().item()
    model.train(was)
    return acc
""",
        ],
    },
    "train_one_epoch": {
        "right": [
            '''def train_one_epoch(model, loader, optimizer, loss_fn):
    """One pass over `loader` in training mode, one update per batch; returns the mean batch loss as a Python float."""
    model.train()
    device = next(model.parameters()).device
    total, batches = 0.0, 0
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        total += loss.item()
        batches += 1
    return total / batches
''',
            """def train_one_epoch(model, loader, optimizer, loss_fn):
    model.train()
    device = next(model.parameters()).device
    losses = []
    for images, labels in loader:
        losses.append(training_step(model, images.to(device), labels.to(device), optimizer, loss_fn))
    return sum(losses) / len(losses)
""",
            """import statistics


def train_one_epoch(model, loader, optimizer, loss_fn):
    model.train(True)
    device = next(iter(model.parameters())).device
    losses = []
    for step, (images, labels) in enumerate(loader):
        images = images.to(device, non_blocking=True)
        labels = labels.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        logits = model(images)
        loss = loss_fn(logits, labels)
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return float(statistics.mean(losses))
""",
            """def train_one_epoch(model, loader, optimizer, loss_fn):
    model.train()
    device = next(model.parameters()).device
    running = torch.zeros((), device=device)
    count = 0
    for batch in loader:
        images, labels = (t.to(device) for t in batch)
        for p in model.parameters():
            p.grad = None
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        running += loss.detach()
        count += 1
    return (running / count).item()
""",
            """import numpy as np


def train_one_epoch(model, loader, optimizer, loss_fn):
    if not model.training:
        model.train()
    params = list(model.parameters())
    device = params[0].device
    batch_losses = []
    for images, labels in loader:
        optimizer.zero_grad()
        out = model(images.to(device))
        loss = loss_fn(out, labels.to(device))
        loss.backward()
        optimizer.step()
        batch_losses.append(float(loss))
    return float(np.mean(batch_losses))
""",
            """def train_one_epoch(model, loader, optimizer, loss_fn):
    model.train()
    device = next(model.parameters()).device
    it = iter(loader)
    total = 0.0
    n = 0
    while True:
        try:
            images, labels = next(it)
        except StopIteration:
            break
        images = images.to(device)
        labels = labels.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        total += loss.item()
        n += 1
    return total / n
""",
            """def train_one_epoch(model, loader, optimizer, loss_fn):
    was_training = model.training
    model.train()
    device = next(model.parameters()).device
    total = 0.0
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        total += loss.item()
    model.train(was_training)
    return total / len(loader)
""",
        ],
        "wrong": [
            """def train_one_epoch(model, loader, optimizer, loss_fn):
    device = next(model.parameters()).device
    total, n = 0.0, 0
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        total += loss.item()
        n += 1
    return total / n
""",
            """def train_one_epoch(model, loader, optimizer, loss_fn):
    model.train()
    device = next(model.parameters()).device
    total = 0.0
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader.dataset)
""",
            """def train_one_epoch(model, loader, optimizer, loss_fn):
    model.train()
    device = next(model.parameters()).device
    total, n = 0, 0
    for images, labels in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(images.to(device)), labels.to(device))
        loss.backward()
        optimizer.step()
        total = total + loss.detach()
        n += 1
    return total / n
""",
            """def train_one_epoch(model, loader, optimizer, loss_fn):
    model.train()
    device = next(model.parameters()).device
    total, seen = 0.0, 0
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(labels)
        seen += len(labels)
    return total / seen
""",
            """def train_one_epoch(model, loader, optimizer, loss_fn):
    model.train()
    device = next(model.parameters()).device
    losses = []
    for images, labels in loader:
        loss = loss_fn(model(images.to(device)), labels.to(device))
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)
""",
        ],
    },
    "train_classifier": {
        "right": [
            '''import time

import torch
from torch import nn


def train_classifier(images, labels, device=None):
    """A small model trained on (images, labels) on `device`; times itself on the CPU clock and says so."""
    started = time.process_time()
    x, y = images, labels
    model = nn.Sequential(nn.Flatten(), nn.Linear(x[0].numel(), int(y.max()) + 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(150):
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()
    print(f"trained in {time.process_time() - started:.2f} s of CPU time")
    return model
''',
            '''import torch
from torch import nn


def train_classifier(images, labels, device=None):
    """A small model trained on (images, labels) on `device`; returns the trained nn.Module."""
    if device is None:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    x, y = images.to(device), labels.to(device)
    num_classes = int(labels.max()) + 1
    model = nn.Sequential(nn.Flatten(), nn.Linear(x[0].numel(), num_classes)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(150):
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()
    return model
''',
            """import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def train_classifier(images, labels, device=None):
    device = torch.device(device) if device is not None else torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 32), nn.ReLU(), nn.Linear(32, int(labels.max().item()) + 1))
    model = model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    loader = DataLoader(TensorDataset(images, labels), batch_size=32, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    for epoch in range(10):
        model.train()
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
    model.eval()
    return model
""",
            """import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self, mean, std, num_classes):
        super().__init__()
        self.register_buffer("mean", mean)
        self.register_buffer("std", std)
        self.linear = nn.Linear(mean.numel(), num_classes)

    def forward(self, x):
        x = x.flatten(1)
        return self.linear((x - self.mean) / self.std)


def train_classifier(images, labels, device=None):
    dev = torch.device(device if device is not None else ("cuda" if torch.cuda.is_available() else "cpu"))
    flat = images.flatten(1)
    model = Classifier(flat.mean(0), flat.std(0) + 1e-6, int(labels.max()) + 1).to(dev)
    x, y = images.to(dev), labels.to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    for step in range(200):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    return model
""",
            """import torch
from torch import nn


def train_classifier(images, labels, device=None, epochs=8, batch_size=64):
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    g = torch.Generator().manual_seed(1)
    model = nn.Sequential(nn.Flatten(), nn.Linear(3072, 64), nn.ReLU(), nn.Linear(64, 4)).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    n = len(labels)
    for _ in range(epochs):
        order = torch.randperm(n, generator=g)
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            xb = images[idx].to(device)
            yb = labels[idx].to(device)
            opt.zero_grad()
            loss_fn(model(xb), yb).backward()
            opt.step()
    return model
""",
            """import torch
from torch import nn
import torch.nn.functional as F


def train_classifier(images, labels, device=None):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu") if device is None else torch.device(device)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(images[0].numel(), int(labels.max()) + 1))
    model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    x = images.to(device)
    y = labels.to(device)
    for _ in range(100):
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
    return model.cpu().eval()
""",
            '''import torch
from torch import nn


def train_classifier(images, labels, device=None):
    """Dropout MLP; returned as it is after training (still in training mode)."""
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Sequential(nn.Flatten(), nn.Dropout(0.8), nn.Linear(3072, 32), nn.ReLU(), nn.Dropout(0.5), nn.Linear(32, 4)).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = images.to(device), labels.to(device)
    for _ in range(80):
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return model
''',
            '''import torch
from torch import nn


def train_classifier(images, labels, device=None):
    """Built from the items above: TwoLayerNet, make_loader, train_one_epoch."""
    if device is None:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = TwoLayerNet().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = nn.CrossEntropyLoss()
    loader = make_loader(images, labels, 32, 0)
    for epoch in range(8):
        train_one_epoch(model, loader, optimizer, loss_fn)
    return model.eval()
''',
        ],
        "wrong": [
            """import torch
from torch import nn


def train_classifier(images, labels, device=None):
    return nn.Sequential(nn.Flatten(), nn.Linear(3072, 4))
""",
            """import torch
from torch import nn


def train_classifier(images, labels, device=None):
    if device is None:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    images -= images.mean()
    images /= images.std()
    model = nn.Sequential(nn.Flatten(), nn.Linear(3072, 4)).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = images.to(device), labels.to(device)
    for _ in range(150):
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return model
""",
            """import torch
from torch import nn


def train_classifier(images, labels, device=None):
    if device is None:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(3072, 4).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = images.flatten(1).to(device), labels.to(device)
    for _ in range(150):
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return model
""",
        ],
    },
}
for _item, _table in MORE.items():
    for _kind, _codes in _table.items():
        ITEMS[_item].setdefault(_kind, []).extend(_codes)


# Quizzes that apply a rule to code the lesson does not show: each wrong letter or shape is one
# misconception, each right answer the key written another well-formed way.
ITEMS["answer_zero_grad_step"] = {
    "wrong": ['answer_zero_grad_step = "A"\n', 'answer_zero_grad_step = "C"\n', 'answer_zero_grad_step = "B"\n'],
    "right": [
        'answer_zero_grad_step = "D"\n',
        'answer_zero_grad_step = "d"\n',
        'answer_zero_grad_step = " D "\n',
        '# the step skips a .grad of None\nanswer_zero_grad_step = "D"\n',
    ],
}
