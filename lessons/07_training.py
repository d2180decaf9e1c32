# %% [markdown]
# # a training step, end to end
#
# Every lesson so far prepared one piece: tensors with the right shape, dtype and device, and
# autograd filling `.grad`. Here the pieces meet in the loop that trains a model.
#
# **You will learn to**
#
# - diagnose a training step whose images and labels disagree on the batch size;
# - use the three objects every step needs: a model, a loss (`nn.CrossEntropyLoss`) and an
#   optimizer (`torch.optim.SGD` or `Adam`), and say why the old gradients must be cleared;
# - write one complete training step;
# - feed a model from a `Dataset` through a `DataLoader`: batches, shuffling, and an order you can repeat;
# - write your own model as a subclass of `nn.Module`, and count its parameters;
# - switch a model between training mode and evaluation mode, and measure accuracy without recording a graph;
# - train a small image classifier on the course's toy images and read its loss curve;
# - write the loop once so that it runs on the CPU or a GPU unchanged.

# %%
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, TensorDataset

from course.data import CLASS_NAMES, make_images, train_test_images
from course.device import describe_setup
from course.pictures.training import plot_loss_curve, show_images, training_step_diagram

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(describe_setup(device))

# %% [markdown]
# ## A training step with a bug in it
#
# Here is the kind of training step you find in a quick answer to "what is a tensor for?". It
# makes 16 random RGB images of 224x224 pixels, a label for each, a linear model that maps every
# flattened image to 2 class scores, and the loss:
#
# ```python
# images = torch.randn(16, 3, 224, 224)
# labels = torch.tensor([0, 1, 0, 1])
# model = nn.Linear(3 * 224 * 224, 2)
# predictions = model(images.view(16, -1))
# loss = nn.CrossEntropyLoss()(predictions, labels)
# loss.backward()
# ```
#
# Read the shapes before you run anything: `images` is `(16, 3, 224, 224)`, `images.view(16, -1)`
# is `(16, 150528)`, `predictions` is `(16, 2)`. And `labels`?

# %% [markdown]
# ### Quiz: what goes wrong?
#
# What happens when the six lines above run?
#
# - **A.** Nothing goes wrong: PyTorch repeats the 4 labels to cover the 16 images, as broadcasting would.
# - **B.** `images.view(16, -1)` raises a RuntimeError, because a random tensor is not contiguous.
# - **C.** The loss raises a ValueError: it gets 16 predictions but only 4 labels to score them against.
# - **D.** `nn.Linear(3 * 224 * 224, 2)` raises a RuntimeError: 150,528 input features are too many for one layer.

# %% answer answer_seed_training_bug quiz=recall
# One upper-case letter as a string, for example "A".
answer_seed_training_bug = None
### BEGIN SOLUTION
answer_seed_training_bug = "C"
### END SOLUTION

# %% test answer_seed_training_bug points=1
from course.quiz import check_choice, form_checked

check_choice(answer_seed_training_bug, "ABCD", name="answer_seed_training_bug")
form_checked("answer_seed_training_bug")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_seed_training_bug, "C", name="answer_seed_training_bug",
          why="The first dimension of the predictions and of the labels is the batch: the loss pairs prediction i "
              "with label i, so it needs 16 labels for 16 predictions. CrossEntropyLoss refuses with "
              "'ValueError: Expected input batch_size (16) to match target batch_size (4).' It does not "
              "repeat labels to fill the batch, a fresh tensor from randn is contiguous, and a layer of 150,528 "
              "inputs is merely big.")
### END HIDDEN TESTS

# %% [markdown]
# Now run it. The error is caught so that the notebook keeps going; read the message.

# %%
images = torch.randn(16, 3, 224, 224)
labels = torch.tensor([0, 1, 0, 1])
model = nn.Linear(3 * 224 * 224, 2)
predictions = model(images.view(16, -1))
print("predictions:", tuple(predictions.shape), "  labels:", tuple(labels.shape))
try:
    loss = nn.CrossEntropyLoss()(predictions, labels)
    loss.backward()
except ValueError as error:
    print("ValueError:", error)

# %% [markdown]
# The model is fine; the data is not. A batch is a promise that dimension 0 means "which example"
# in *every* tensor of the batch, and the loss compares prediction `i` with label `i`. Sixteen images
# need sixteen labels. The fix is one label per image:

# %%
labels = torch.randint(0, 2, (16,))
predictions = model(images.view(16, -1))
loss = nn.CrossEntropyLoss()(predictions, labels)
loss.backward()
print("labels:", tuple(labels.shape), " loss:", round(loss.item(), 4))
print("weight.grad:", tuple(model.weight.grad.shape), " bias.grad:", tuple(model.bias.grad.shape))

# %% [markdown]
# It runs, but notice what it does *not* do: nothing changed the model. `backward()` only computed
# gradients. Training also needs someone to apply them (an optimizer), to clear them before the next
# batch, and to do it again and again. The rest of this lesson builds exactly that.

# %%
# Try it: give `labels` 15 entries, or make it a float tensor such as torch.zeros(16),
# and read the error each time.
try:
    nn.CrossEntropyLoss()(predictions, torch.randint(0, 2, (15,)))
except (ValueError, RuntimeError) as error:
    print(f"{type(error).__name__}: {error}")

# %% [markdown]
# ## The pieces: a model, a loss and an optimizer
#
# ### `nn.Linear`: weights, bias and the feature dimension
#
# `nn.Linear(in_features, out_features)` holds a weight of shape `(out_features, in_features)` and a
# bias of shape `(out_features,)`, both with `requires_grad=True`, and computes `x @ weight.T + bias`
# on the **last** dimension of `x`. That is what the dimensions of a network mean: dimension 0
# counts examples, the last dimension holds each example's features, and a layer turns
# `in_features` features into `out_features`.
#
# An image of shape `(3, H, W)` is not a feature vector yet, so it is flattened first. `nn.Flatten()`
# does what `images.view(16, -1)` did (keeping dimension 0 as the batch), and `nn.Sequential` chains
# it with the layer, so the model takes images as they come.

# %%
model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 4))
batch = torch.randn(5, 3, 8, 8)
logits = model(batch)
print("weight:", tuple(model[1].weight.shape), " bias:", tuple(model[1].bias.shape))
print("images:", tuple(batch.shape), "-> flattened:", tuple(model[0](batch).shape), "-> logits:", tuple(logits.shape))

# %% [markdown]
# The inputs must have the weights' dtype, float32 here: an int64 batch raises a RuntimeError
# (lesson {02_dtype}), and so does a float64 one. The output has one score per class, called a *logit*: a raw
# number, not a probability.
#
# ### `CrossEntropyLoss`: logits against class indices
#
# `nn.CrossEntropyLoss()` takes the logits, shape `(N, classes)`, and the labels, shape `(N,)`,
# dtype int64, each one a class index between 0 and `classes - 1`. It applies a softmax itself, takes
# minus the log of the probability given to the right class, and averages over the batch. The result
# is a 0-d tensor with a `grad_fn`, ready for `backward()`.

# %%
labels = torch.tensor([0, 3, 1, 1, 2])
loss_fn = nn.CrossEntropyLoss()
loss = loss_fn(logits, labels)
by_hand = -torch.log_softmax(logits, dim=1)[torch.arange(5), labels].mean()
print(loss, by_hand)
print("shape:", tuple(loss.shape), " as a Python float:", loss.item())

# %% [markdown]
# Do not apply a softmax before the loss (it would be applied twice), and keep the labels as int64
# class indices of shape `(N,)`. Float labels mean something else to this loss: a float tensor shaped
# like the logits, `(N, classes)`, is read as a probability for every class of every example (a "soft"
# label), and a float tensor of shape `(N,)` is refused with a RuntimeError.
#
# ### An optimizer, and why old gradients must go
#
# An optimizer is given the model's parameters once, and `optimizer.step()` then moves each of them
# using its `.grad`. Plain SGD (without momentum, its default) does `p -= lr * p.grad`; Adam scales
# each step by running averages of past gradients, which makes it less sensitive to the choice of
# `lr`.
#
# `backward()` *adds* to `.grad`; it never replaces the values there. That lets you sum gradients over several
# batches on purpose, but in an ordinary loop it means the last step's gradient is still there
# unless you clear it with `optimizer.zero_grad()` (which sets every `.grad` to `None`).

# %%
images, labels = make_images(6, seed=0, size=8)
model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
weight = model[1].weight

loss_fn(model(images), labels).backward()
first = weight.grad.clone()
loss_fn(model(images), labels).backward()
print("after two backward calls, .grad is twice the gradient:", torch.allclose(weight.grad, 2 * first))

optimizer.zero_grad()
print("after zero_grad:", weight.grad)

loss_fn(model(images), labels).backward()
expected = weight.detach() - 0.1 * weight.grad
optimizer.step()
print("step() did weight - lr * weight.grad:", torch.allclose(weight.detach(), expected))

# %%
# Try it: Adam's first step is not lr * grad. Change lr here and see how far each weight moves.
adam = torch.optim.Adam(model.parameters(), lr=0.1)
adam.zero_grad()
loss_fn(model(images), labels).backward()
before = weight.detach().clone()
sgd_would_give = before - 0.1 * weight.grad
adam.step()
print("Adam's step equals the SGD step:", torch.allclose(weight.detach(), sgd_would_give))
print("largest move of one weight:", (weight.detach() - before).abs().max().item())

# %% [markdown]
# ## One training step
#
# Training repeats one cycle: take a batch, see how wrong the model is, find out which way each
# parameter should move, move it a little. Everything in it is a tensor: the images, the weights,
# the predictions, the loss and the gradients. In code the cycle is five lines, in this order
# (clearing the gradients may come anywhere before `backward()`; first is the safe place for it):

# %%
training_step_diagram()

# %% [markdown]
# Set beside the usual description of training (store the data, pass it through the layers,
# compute an error, compute gradients, update the parameters), the data is the batch, stages 2 and 3
# are the layers and the error, and stages 4 and 5 are the gradients and the update.
#
# Clearing comes first so that nothing left over from before (the last step, an experiment, a
# backward call in another cell) leaks into this update. The loss is computed from the parameters
# as they were before `step()`, and that is the number to report: turn it into a Python float with
# `loss.item()`, so the caller does not keep the tensor, and the whole graph behind it, alive.
#
# ### Your turn: `training_step`
#
# **To write:** `training_step(model, images, labels, optimizer, loss_fn)` makes one update and
# returns the loss before it as a float.
#
# Write `training_step(model, images, labels, optimizer, loss_fn)`: one update, in the order above.
# Return the loss before the update as a Python float. The parameters may arrive with stale
# gradients in their `.grad`; those must not change the update. Leave `images` and `labels` as they are.

# %% answer training_step
def training_step(model, images, labels, optimizer, loss_fn):
    """One update of `model` on one batch; returns the loss before the update as a Python float."""
    ### BEGIN SOLUTION
    optimizer.zero_grad()
    logits = model(images)
    loss = loss_fn(logits, labels)
    loss.backward()
    optimizer.step()
    return loss.item()
    ### END SOLUTION

# %% test training_step points=3
from course.checks import passed
from course.probes.training import check_training_step, training_step_probe

# What a correct step does in these two scenarios: the loss before the update, and the sum and the
# sum of squares of each parameter after it (weight, then bias).
check_training_step(
    training_step_probe(training_step, 0),
    {"loss": 2.02492, "fingerprint": [[3.169258, 7.781677], [0.155255, 0.03879262]]},
    what="a linear model, SGD with lr=0.5, a batch of 8 images",
)
check_training_step(
    training_step_probe(training_step, 1, stale_grads=True),
    {"loss": 1.409086, "fingerprint": [[-0.9065426, 7.201678], [0.005561404, 0.02680337]]},
    what="the same, with stale gradients left in every .grad before the call",
    stale_grads=True,
)
passed("training_step")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from instructor.training import expected_training_step

hidden_cases = [
    ("a small MLP trained with Adam, stale gradients before the call", dict(hidden=16, optimizer="adam", lr=0.01, stale_grads=True)),
    ("a loss with label_smoothing=0.2: use the loss_fn you are given", dict(label_smoothing=0.2)),
    ("a batch of one image", dict(batch_size=1)),
    ("6 classes, 1-channel images, SGD with lr=0.05", dict(num_classes=6, channels=1, lr=0.05, stale_grads=True)),
]
for seed, (case, settings) in enumerate(hidden_cases, start=2):
    check_training_step(
        training_step_probe(training_step, seed, **settings),
        expected_training_step(seed, **settings),
        what=case,
        stale_grads=settings.get("stale_grads", False),
    )
for dev in test_devices():
    if dev != "cpu":
        check_training_step(
            training_step_probe(training_step, 9, device=dev, stale_grads=True),
            expected_training_step(9, device=dev, stale_grads=True),
            what=f"model, batch and stale gradients on '{dev}'",
            stale_grads=True,
        )
### END HIDDEN TESTS

# %% [markdown]
# ### Quiz: clearing in the middle
#
# What does this print?
#
# ```python
# w = torch.tensor([1.0], requires_grad=True)
# opt = torch.optim.SGD([w], lr=0.1)
# (3 * w).sum().backward()
# opt.zero_grad()
# opt.step()
# print(w.detach())
# ```
#
# - **A.** `tensor([0.7000])`
# - **B.** `tensor([0.9000])`
# - **C.** a `RuntimeError`
# - **D.** `tensor([1.])`

# %% answer answer_zero_grad_step quiz=rule
# One upper-case letter as a string, for example "A".
answer_zero_grad_step = None
### BEGIN SOLUTION
answer_zero_grad_step = "D"
### END SOLUTION

# %% test answer_zero_grad_step points=1
from course.quiz import check_choice, form_checked

check_choice(answer_zero_grad_step, "ABCD", name="answer_zero_grad_step")
form_checked("answer_zero_grad_step")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_zero_grad_step, "D", name="answer_zero_grad_step",
          why='backward() put 3 into w.grad, and zero_grad() then set it to None (its default) before the step. SGD'
              ' skips every parameter whose .grad is None, without an error, so w stays 1 (not A, not B, not C). '
              "The cycle's order matters: clear first, then forward, loss, backward and step.")
### END HIDDEN TESTS

# %% [markdown]
# ## The course's toy images
#
# Real images need a download; these do not. `make_images(n, seed=...)` draws `n` labelled
# colour images, shape `(n, 3, 32, 32)`, float32, with int64 labels. Each image shows one shape
# (its class) in a random colour, moved a few pixels at random, under noise. The same seed always
# gives the same images, and `train_test_images` gives a training set and a held-out set whose noise
# never repeats.

# %%
images, labels = make_images(8, seed=0)
print("images:", tuple(images.shape), images.dtype, "  labels:", labels.tolist(), labels.dtype)
print("classes:", CLASS_NAMES[:4])
show_images(images, labels)

# %%
# Try it: with less noise the shapes are plain to see; more noise (say 1.5) makes the task harder.
# num_classes=6 adds the two diagonals.
show_images(*make_images(8, seed=1, noise=0.3, num_classes=6))

# %% [markdown]
# ## Datasets and DataLoaders
#
# Picking batches by hand with `train_x[batch]` works for tensors already in memory. PyTorch's data
# tools split the job in two:
#
# - a **Dataset** knows how many examples there are (`len(dataset)`) and gives example `i`
#   (`dataset[i]`), here a pair (image, label). Any object with `__len__` and `__getitem__` can be
#   one; subclassing `torch.utils.data.Dataset` says what it is meant for. Where the data is already a
#   few tensors that share dimension 0, `TensorDataset(images, labels)` is the ready-made one.
# - a **DataLoader** asks the dataset for examples, groups them into batches and stacks each batch
#   along a new dimension 0: `batch_size` images of shape `(3, 32, 32)` become one tensor of shape
#   `(batch_size, 3, 32, 32)`, and their labels one of shape `(batch_size,)`.

# %%
class ToyImages(Dataset):
    """`n` toy images, made once; example i is the pair (image i, label i)."""

    def __init__(self, n, seed):
        self.images, self.labels = make_images(n, seed=seed)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        return self.images[index], self.labels[index]


toy = ToyImages(10, seed=0)
image, label = toy[3]
print("len(toy):", len(toy), "  toy[3]:", tuple(image.shape), "and label", label.item())
for batch_images, batch_labels in DataLoader(toy, batch_size=4):
    print("batch:", tuple(batch_images.shape), tuple(batch_labels.shape), batch_labels.tolist())

# %% [markdown]
# Ten examples in batches of 4 make two full batches and a last one of 2 (`drop_last=True` would
# drop it). Without `shuffle`, the batches follow the dataset's order, the same on every pass.
#
# ### Shuffling, and an order you can repeat
#
# With `shuffle=True` the loader draws a new order at the start of every pass over the data (every
# epoch), so the model never sees the examples in one fixed order. The order comes from a random
# generator: by default the global one, which everything else draws from too (initial weights,
# dropout, `torch.randn`), so the order depends on all the code that ran before. Give the loader a
# `torch.Generator` of its own, seeded once, and the order can be repeated: the same seed gives the
# same sequence of epochs, another seed another one. A `range` is a dataset as well (it has a length
# and an item for every index), which makes the order easy to see:

# %%
def two_epochs(loader):
    """The batches of two passes over `loader`, as lists."""
    return [[batch.tolist() for batch in loader] for epoch in range(2)]


for seed in (0, 0, 1):
    numbers = DataLoader(range(10), batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(seed))
    print(f"seed {seed}:", two_epochs(numbers))

# %% [markdown]
# The two loaders seeded with 0 agree batch for batch, and the one seeded with 1 does not; within
# each loader the second epoch has a new order.
#
# ### Workers
#
# A DataLoader makes its batches in your own process unless you ask otherwise: with `num_workers=4`
# it starts four worker processes, each building whole batches and sending them back through shared
# memory. That pays when making an example is slow (reading and decoding image files, augmenting
# them) and the model would otherwise wait for data; for tensors already in memory it only adds the
# time it takes to start the workers. On Windows and macOS each worker starts a fresh Python that
# imports your script, so in a script the code that uses the loader must sit under
# `if __name__ == "__main__":`. And a sandbox without shared memory, such as the one the course's
# grader runs your code in, cannot run workers at all: graded code here uses `num_workers=0`, the
# default, and makes every batch in its own process.
#
# ### Your turn: `make_loader`
#
# **To write:** `make_loader(images, labels, batch_size, seed)` returns a `DataLoader` of shuffled
# batches whose order comes from `seed`.
#
# Write `make_loader(images, labels, batch_size, seed)`. `images` has shape `(N, C, H, W)` and
# `labels` shape `(N,)`, with `N >= 1`. Return a `DataLoader` over the pairs `(images[i], labels[i])`
# that:
#
# - gives batches `(images_batch, labels_batch)` of `batch_size` examples, in the inputs' dtypes;
#   when `batch_size` does not divide `N` the last batch is smaller (keep it), and when it is larger
#   than `N` there is one batch;
# - shuffles, drawing its order from a `torch.Generator` seeded with `seed` (not from the global
#   generator): two loaders made with the same seed give the same batches, a different seed gives a
#   different order, and every pass over a loader (every epoch) gives a new order;
# - uses `num_workers=0`;
# - leaves `images` and `labels` as they are.

# %% answer make_loader
from torch.utils.data import DataLoader, TensorDataset


def make_loader(images, labels, batch_size, seed):
    """A shuffling DataLoader of (images, labels) batches whose order is fixed by `seed`."""
    ### BEGIN SOLUTION
    dataset = TensorDataset(images, labels)
    generator = torch.Generator().manual_seed(seed)
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, generator=generator, num_workers=0)
    ### END SOLUTION

# %% test make_loader points=2
from course.checks import passed
from course.probes.training import check_loader, loader_probe

# 40 toy images of 16x16 pixels in batches of 16; loaders made with seeds 0, 0 and 1.
check_loader(loader_probe(make_loader, 0, 1, n=40, batch_size=16), n=40, batch_size=16, seeds=(0, 1),
             what="40 images, batch_size=16, seeds 0, 0 and 1")
passed("make_loader")
### BEGIN HIDDEN TESTS
hidden_cases = [
    ("12 images, batch_size=1", dict(n=12, batch_size=1, data_seed=1), (5, 6)),
    ("10 images, batch_size=32 (one batch)", dict(n=10, batch_size=32, data_seed=2, size=8), (123, 7)),
    ("48 images, batch_size=16 (no smaller last batch)", dict(n=48, batch_size=16, data_seed=3, size=8), (2, 3)),
    ("30 float64 images, batch_size=7", dict(n=30, batch_size=7, data_seed=4, size=8, dtype="float64"), (11, 10)),
]
for case, settings, (seed, other) in hidden_cases:
    check_loader(loader_probe(make_loader, seed, other, **settings), n=settings["n"], batch_size=settings["batch_size"],
                 seeds=(seed, other), what=f"{case}, seeds {seed}, {seed} and {other}")
### END HIDDEN TESTS

# %% [markdown]
# ## Your own model: a subclass of `nn.Module`
#
# `nn.Sequential` runs its layers one after the other. Most models are written as a class instead,
# which lets `forward` be any Python code: a branch, two inputs, a layer used twice. The recipe has
# three parts:
#
# 1. subclass `nn.Module` and call `super().__init__()` first thing in `__init__`: it sets up the
#    bookkeeping that the next step relies on;
# 2. create each layer in `__init__` and keep it as an attribute (`self.linear = nn.Linear(...)`).
#    Assigning a module, or an `nn.Parameter`, to an attribute registers it, and that is how
#    `model.parameters()`, `model.to(device)`, `model.train()` and `model.eval()` find it;
# 3. write `forward(self, x)`, which computes the output from the input with those layers. Call the
#    model as `model(x)` rather than `model.forward(x)`: `model(x)` runs `forward` and also any hooks
#    registered on the model.

# %%
class TinyNet(nn.Module):
    """A linear classifier for 8x8 colour images, written as a class."""

    def __init__(self, num_classes=4):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear = nn.Linear(3 * 8 * 8, num_classes)

    def forward(self, images):
        return self.linear(self.flatten(images))


tiny = TinyNet()
print(tiny)
print("logits:", tuple(tiny(torch.randn(5, 3, 8, 8)).shape))
for name, p in tiny.named_parameters():
    print(f"{name:14} shape {str(tuple(p.shape)):9} {p.numel():4} numbers")
print("parameters in all:", sum(p.numel() for p in tiny.parameters()))

# %% [markdown]
# `p.numel()` counts the numbers in one tensor, so the sum over `model.parameters()` is the size of the
# model: a `Linear(i, o)` layer holds `i * o` weights and `o` biases, here 192 * 4 + 4 = 772.
#
# Registration is also why two mistakes go unnoticed until training fails. Layers kept in a plain
# Python list are invisible to the module: they have no parameters as far as `parameters()` (and so
# the optimizer) can tell, and `.to(device)` leaves them behind. `nn.ModuleList` is the list that
# registers what it holds. And assigning a layer before `super().__init__()` has run raises an
# AttributeError, because the registry does not exist yet.

# %%
class ListOfLayers(nn.Module):
    def __init__(self, registered):
        super().__init__()
        layers = [nn.Linear(4, 4), nn.Linear(4, 2)]
        self.layers = nn.ModuleList(layers) if registered else layers


print("parameter tensors found, plain list: ", len(list(ListOfLayers(False).parameters())))
print("parameter tensors found, nn.ModuleList:", len(list(ListOfLayers(True).parameters())))


class TooEarly(nn.Module):
    def __init__(self):
        self.linear = nn.Linear(4, 2)
        super().__init__()


try:
    TooEarly()
except AttributeError as error:
    print("AttributeError:", error)

# %% [markdown]
# ### Your turn: `TwoLayerNet`
#
# **To write:** `TwoLayerNet`, an `nn.Module`: flatten, linear, ReLU, linear, from images
# `(N, 3, 32, 32)` to logits.
#
# Write the class `TwoLayerNet`, a subclass of `nn.Module` created as `TwoLayerNet()` or
# `TwoLayerNet(hidden=..., num_classes=...)` (defaults `hidden=32`, `num_classes=4`). Its `forward`
# takes images shaped `(N, 3, 32, 32)`, as `make_images` gives them, and returns logits of shape
# `(N, num_classes)`. The architecture is fixed:
#
# 1. flatten each image into 3 * 32 * 32 = 3072 numbers, keeping dimension 0 as the batch;
# 2. `nn.Linear(3072, hidden)`, then a ReLU;
# 3. `nn.Linear(hidden, num_classes)`, whose output is returned as it is: raw logits, no softmax.
#
# With the defaults that is 3072 * 32 + 32 + 32 * 4 + 4 = 98,468 parameters. The test builds your
# model after `torch.manual_seed(seed)`, counts its parameters, calls it on a batch of 64 toy images,
# and trains it for 10 steps of SGD (`lr=0.1`, cross-entropy) on that batch: the loss must end at most
# half as high as it started. Hidden checks use other values of `hidden` and `num_classes`, a batch of
# one image, and a GPU when there is one, and check that the output is exactly this architecture
# applied to your model's own parameters, and that training moves every one of them.

# %% answer TwoLayerNet
class TwoLayerNet(nn.Module):
    """Logits for (N, 3, 32, 32) images: Flatten, Linear(3072, hidden), ReLU, Linear(hidden, num_classes)."""

    def __init__(self, hidden=32, num_classes=4):
        ### BEGIN SOLUTION
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Linear(3 * 32 * 32, hidden)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(hidden, num_classes)
        ### END SOLUTION

    def forward(self, images):
        ### BEGIN SOLUTION
        return self.fc2(self.relu(self.fc1(self.flatten(images))))
        ### END SOLUTION

# %% test TwoLayerNet points=3
from course.checks import passed
from course.probes.training import check_module_class, module_class_probe

# 3072 * 32 + 32 + 32 * 4 + 4 parameters; logits for 64 images and 4 classes.
check_module_class(module_class_probe(TwoLayerNet, 0), name="TwoLayerNet", param_count=98468, output_shape=(64, 4),
                   what="TwoLayerNet() built after torch.manual_seed(0), 64 toy images")
passed("TwoLayerNet")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from course.probes.training import check_module_follows
from instructor.training import TWO_LAYER_NET, expected_module_class, two_layer_param_count

hidden_cases = [
    ("TwoLayerNet() built after torch.manual_seed(0), 64 toy images", 0, {}, dict()),
    ("TwoLayerNet(hidden=16, num_classes=6), 64 images of 6 classes", 1, {"hidden": 16, "num_classes": 6}, dict(num_classes=6)),
    ("TwoLayerNet(hidden=8, num_classes=2), 64 images of 2 classes", 2, {"hidden": 8, "num_classes": 2}, dict(num_classes=2)),
    ("TwoLayerNet(hidden=64), a batch of one image", 3, {"hidden": 64}, dict(n=1)),
]
hidden_cases += [(f"TwoLayerNet() on '{dev}'", 4, {}, dict(device=dev)) for dev in test_devices() if dev not in ("cpu", "meta")]
for case, seed, init, settings in hidden_cases:
    found = module_class_probe(TwoLayerNet, seed, init=init, **settings)
    classes = settings.get("num_classes", 4)
    margin = 0.5 if settings.get("n", 64) > 1 else 0.9
    check_module_class(found, name="TwoLayerNet", param_count=two_layer_param_count(**init), output_shape=(settings.get("n", 64), classes),
                       what=case, margin=margin)
    check_module_follows(found, expected_module_class(found, seed, init=init, num_classes=classes), architecture=TWO_LAYER_NET, what=case)
### END HIDDEN TESTS

# %% [markdown]
# ## Accuracy, without a graph
#
# The loss is what the optimizer needs; people want accuracy, the fraction of images whose
# predicted class is right. The predicted class is the index of the largest logit along the class
# dimension: `logits.argmax(dim=1)`, shape `(N,)`.
#
# Measuring is not training, so no graph should be recorded. Under `torch.no_grad()` the model's
# outputs do not require grad and autograd keeps nothing for a backward pass: less memory and less
# time. Calling `.detach()` on the output afterwards is too late, because the graph was already built.

# %%
model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 4))
print("outside no_grad:", model(images).requires_grad)
with torch.no_grad():
    logits = model(images)
print("inside no_grad: ", logits.requires_grad)
right = logits.argmax(dim=1) == labels
print("right or wrong:", right.tolist())
print("accuracy of an untrained model:", right.float().mean().item())

# %% [markdown]
# A comparison gives a bool tensor, and `.mean()` refuses bools: convert with `.float()` first. The
# result is a 0-d tensor; `.item()` makes it a Python float.

# %% [markdown]
# ## Training mode and evaluation mode
#
# Some layers behave differently while a model learns and while it is used. Every module carries a
# flag for this, `model.training`: `model.train()` sets it to True for the model and every layer
# inside it, `model.eval()` sets it to False (it is the same as `model.train(False)`), and both return
# the model itself. A new module starts in training mode. Two common layers read the flag:
#
# - **Dropout** (`nn.Dropout(p)`). In training mode it sets each element to zero with probability
#   `p` and multiplies the others by `1 / (1 - p)`, so that on average the output matches the input;
#   the choice is random and new at every call. In evaluation mode it returns its input unchanged.
# - **Batch norm** (`nn.BatchNorm1d`, `nn.BatchNorm2d`). In training mode it normalises each feature
#   with the mean and variance of the current batch, and updates its running averages of them. Those
#   running averages are *buffers*, not parameters: they are saved with the model and moved by
#   `.to(device)`, but the optimizer never touches them. In evaluation mode it normalises with the
#   running averages, so one image's output no longer depends on the other images in its batch.

# %%
torch.manual_seed(4)
drop = nn.Dropout(p=0.5)
ones = torch.ones(10)
print("dropout, training mode:  ", drop(ones).tolist())
print("dropout, evaluation mode:", drop.eval()(ones).tolist())

norm = nn.BatchNorm1d(2)
pair = torch.tensor([[1.0, 10.0], [3.0, 30.0]])
print("parameters:", [name for name, _ in norm.named_parameters()], " buffers:", [name for name, _ in norm.named_buffers()])
print("batch norm, training mode:  ", norm(pair).tolist())
print("running mean after that batch:", norm.running_mean.tolist())
print("batch norm, evaluation mode:", norm.eval()(pair).tolist())

# %% [markdown]
# In training mode the batch norm layer turned each column into about -1 and +1 whatever its scale, and
# its running mean moved a tenth of the way (its `momentum`, 0.1) from 0 towards the batch mean
# `[2, 20]`. In evaluation mode it used the running statistics instead.
#
# `model.eval()` does not switch autograd off (the lesson on autograd): evaluation wants both `model.eval()`, for
# these layers, and `torch.no_grad()`, for the graph. And the mode stays where you leave it. A model
# evaluated in the middle of training must be switched back with `model.train()`, or the rest of the
# training runs without dropout and with batch norm's statistics frozen. So code that evaluates a
# model someone hands it should give the model back in the mode it came in: note `model.training`,
# switch, and restore it with `model.train(was_training)`.

# %%
model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 4))
with torch.no_grad():
    print("training mode, twice:  ", model(images[:4]).argmax(dim=1).tolist(), model(images[:4]).argmax(dim=1).tolist())
    was_training = model.training
    model.eval()
    print("evaluation mode, twice:", model(images[:4]).argmax(dim=1).tolist(), model(images[:4]).argmax(dim=1).tolist())
    model.train(was_training)
print("back in training mode:", model.training, " and every layer too:", all(layer.training for layer in model.modules()))

# %% [markdown]
# In training mode two calls on the same images may disagree (dropout draws again); in evaluation
# mode they always agree.
#
# ### Your turn: `evaluate`
#
# **To write:** `evaluate(model, images, labels)` returns the accuracy of `model` on a batch, in
# evaluation mode, as a float.
#
# Write `evaluate(model, images, labels)`: the accuracy of `model` on the batch as a Python float in
# `[0, 1]`, computed in evaluation mode with no graph recorded. The model may arrive in training mode
# or in evaluation mode, and may contain dropout: give it back in the mode it had. Do not change the
# model's parameters or the data.

# %% answer evaluate
def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, in eval mode, without a graph."""
    ### BEGIN SOLUTION
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            predicted = model(images).argmax(dim=1)
    finally:
        model.train(was_training)
    return (predicted == labels).float().mean().item()
    ### END SOLUTION

# %% test evaluate points=2
from course.checks import passed
from course.probes.training import check_evaluation, evaluate_probe

check_evaluation(evaluate_probe(evaluate, 0), 0.425, what="a linear model on 40 toy images (17 of them right)")
check_evaluation(evaluate_probe(evaluate, 7, hidden=32, dropout=0.5, n=100), 0.45,
                 what="a small MLP with dropout (p=0.5), handed over in training mode, on 100 toy images (45 of them right)")
passed("evaluate")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from instructor.training import expected_accuracy

hidden_cases = [
    ("a small MLP on 40 toy images", 1, dict(hidden=16)),
    ("images that require grad", 2, dict(images_require_grad=True)),
    ("a batch of one image", 3, dict(n=1)),
    ("an untrained model with 6 classes", 4, dict(train_steps=0, num_classes=6)),
    ("a model after 40 updates", 5, dict(train_steps=40)),
    ("a small MLP with dropout (p=0.5), handed over in training mode", 0, dict(hidden=16, dropout=0.5)),
    ("a small MLP with dropout (p=0.5), handed over in training mode, 100 images", 2, dict(hidden=32, dropout=0.5, n=100)),
    ("a small MLP with dropout (p=0.3), handed over in training mode, after 10 updates", 3, dict(hidden=16, dropout=0.3, train_steps=10)),
    ("a small MLP with dropout (p=0.5), handed over in evaluation mode", 5, dict(hidden=16, dropout=0.5, training=False)),
    ("a linear model handed over in evaluation mode", 6, dict(training=False)),
]
hidden_cases += [(f"a model with dropout and images on '{dev}'", 8, dict(hidden=16, dropout=0.5, device=dev))
                 for dev in test_devices() if dev not in ("cpu", "meta")]
for case, seed, settings in hidden_cases:
    scenario = {k: v for k, v in settings.items() if k != "images_require_grad"}
    check_evaluation(evaluate_probe(evaluate, seed, **settings), expected_accuracy(seed, **scenario), what=case)
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `train_one_epoch`
#
# **To write:** `train_one_epoch(model, loader, optimizer, loss_fn)` makes one update per batch of
# `loader` and returns the mean loss.
#
# One pass over a DataLoader is an *epoch*. Write `train_one_epoch(model, loader, optimizer, loss_fn)`:
#
# - switch the model to training mode first: it may arrive in evaluation mode (after `evaluate`, for
#   one), and its dropout and batch norm layers must train as they should. It may stay in training
#   mode when you return;
# - go through the loader once; for every batch `(images, labels)` it gives (on the CPU), move both
#   to the device of the model's parameters and make one training step: clear the gradients, forward,
#   loss, backward, `optimizer.step()`;
# - return the mean of the batch losses as a Python float: the sum of every batch's `loss.item()`
#   (each taken before its update) divided by the number of batches.
#
# Leave the loader's data as it is. You may call your `training_step`.

# %% answer train_one_epoch
def train_one_epoch(model, loader, optimizer, loss_fn):
    """One pass over `loader` in training mode, one update per batch; returns the mean batch loss as a Python float."""
    ### BEGIN SOLUTION
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
    ### END SOLUTION

# %% test train_one_epoch points=2
from course.checks import passed
from course.probes.training import check_epoch, train_one_epoch_probe

# A small MLP with batch norm (Flatten, Linear, BatchNorm1d, ReLU, Linear), SGD with lr=0.1, 48 toy
# images in 3 shuffled batches of 16. Expected: the mean batch loss, and the sum and the sum of squares
# of each parameter and buffer after the epoch.
check_epoch(
    train_one_epoch_probe(train_one_epoch, 0, training=True),
    {"loss": 1.535096, "batches": 3,
     "fingerprint": [[1.100623, 16.30234], [-0.2444564, 0.05248986], [15.91111, 15.82372], [-0.06246893, 0.00157388],
                     [2.682767, 4.695467], [0.1136682, 0.01005994]],
     "buffer_fingerprint": [[0.0836694, 0.03847443], [14.87264, 13.871], [3.0, 9.0]]},
    what="a model with batch norm in training mode, 3 batches of 16 images",
)
check_epoch(
    train_one_epoch_probe(train_one_epoch, 1, training=False),
    {"loss": 1.410418, "batches": 3,
     "fingerprint": [[-6.996187, 16.05063], [0.4436493, 0.1126819], [15.96078, 15.92205], [-0.03292256, 0.0002763663],
                     [-1.968271, 3.336536], [0.232696, 0.05933804]],
     "buffer_fingerprint": [[-0.01052286, 0.103728], [14.78096, 13.6791], [3.0, 9.0]]},
    what="the same, handed over in evaluation mode",
)
passed("train_one_epoch")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from instructor.training import expected_epoch

hidden_cases = [
    ("40 images in batches of 16, 16 and 8, evaluation mode", 2, dict(n=40, training=False)),
    ("Adam with lr=0.01, no batch norm, 4 batches of 12, evaluation mode", 3,
     dict(n=48, batch_size=12, optimizer="adam", lr=0.01, batch_norm=False, training=False)),
    ("batch norm and dropout (p=0.5), handed over in evaluation mode", 4, dict(dropout=0.5, training=False)),
    ("no batch norm, 6 classes, 1-channel images", 5, dict(batch_norm=False, num_classes=6, channels=1)),
    ("a single batch of 20 images", 6, dict(n=20, batch_size=32, training=False)),
]
hidden_cases += [(f"model on '{dev}', batches from the CPU, evaluation mode", 7, dict(device=dev, training=False))
                 for dev in test_devices() if dev not in ("cpu", "meta")]
for case, seed, settings in hidden_cases:
    check_epoch(train_one_epoch_probe(train_one_epoch, seed, **settings), expected_epoch(seed, **settings), what=case)
### END HIDDEN TESTS

# %% [markdown]
# ## A training loop and its loss curve
#
# A loop repeats the step over epochs, each a pass over a shuffled loader. This one puts together
# what you wrote: the model is your `TwoLayerNet`, the batches come from your `make_loader`, each
# update is your `training_step`, and your `evaluate` measures the accuracy on held-out images after
# every epoch, so finish those first. It records the loss of every step, which is why it calls
# `training_step` itself rather than `train_one_epoch`. `model.train()` at the start of each epoch
# costs nothing and puts right an evaluation that forgot to restore the mode. Note the `.to(device)`
# calls: they are explained in the next section.

# %%
losses, accuracies = [], []
torch.manual_seed(0)
(train_x, train_y), (test_x, test_y) = train_test_images(512, 1000, seed=0)
model = TwoLayerNet().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
loss_fn = nn.CrossEntropyLoss()
loader = make_loader(train_x, train_y, 32, 0)
test_x, test_y = test_x.to(device), test_y.to(device)

for epoch in range(6):
    model.train()
    for batch_images, batch_labels in loader:
        losses.append(training_step(model, batch_images.to(device), batch_labels.to(device), optimizer, loss_fn))
    accuracies.append(evaluate(model, test_x, test_y))
    print(f"epoch {epoch + 1}: last loss {losses[-1]:.3f}, held-out accuracy {accuracies[-1]:.3f}")

# %%
from IPython.display import display  # a figure made inside an `if` is shown only when displayed

if accuracies:
    display(plot_loss_curve(losses, accuracies=accuracies, steps_per_epoch=len(losses) // len(accuracies)))
else:
    print("No curve yet: write the items above, then run the loop again.")

# %% [markdown]
# Read the curve from left to right. The loss of single steps jumps around (each batch is
# different), so look at the running mean: it falls fast at first, then flattens. Accuracy on
# images the model never saw rises as the loss falls. A curve that climbs or turns into `nan`
# usually means a learning rate that is too large; a flat one, too small a rate, or no real update
# (a forgotten `step()`, gradients cleared after `backward()`).

# %%
# Try it: rerun the two cells above with lr=0.5, or with lr=0.0001, or with Adam; see the curve change.
if accuracies:  # the loop above trained this model for at least one epoch
    model.eval()
    with torch.no_grad():
        guesses = model(test_x[:8]).argmax(dim=1)
    display(show_images(test_x[:8].cpu(), test_y[:8].cpu(), predicted=guesses.cpu()))
else:
    print("No trained model yet: write the items above, then run the loop again.")

# %% [markdown]
# ### Your turn: `train_classifier`
#
# **To write:** `train_classifier(images, labels, device=None)` builds and trains a model that
# classifies the course's images.
#
# Write `train_classifier(images, labels, device=None)`. It gets a training set from `make_images`
# (images `(N, 3, 32, 32)` float32 on the CPU, labels int64), builds a model, trains it, and returns
# the trained `nn.Module`. The model must take images as `make_images` gives them, `(N, C, H, W)`.
#
# - With 512 training images it must reach at least **0.9 accuracy** on held-out images from the
#   same generator, and train in **under 10 s on one CPU core** (a linear model or a tiny MLP is
#   plenty; a few hundred steps are more than enough).
# - `device=None` means: CUDA when it is available, else the CPU. Train on that device.
# - Do not change `images` or `labels`.
# - Learn from the data you are given: the grader also trains your function on a set it draws when it
#   grades (other seeds, and the classes numbered in another order).
#
# You may write the loop yourself, or build it from what you wrote above (`make_loader`, `TwoLayerNet`,
# `training_step`, `train_one_epoch`).

# %% answer train_classifier
import torch
from torch import nn


def train_classifier(images, labels, device=None):
    """A small model trained on (images, labels) on `device`; returns the trained nn.Module."""
    ### BEGIN SOLUTION
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(device)
    num_classes = int(labels.max()) + 1
    model = nn.Sequential(nn.Flatten(), nn.Linear(images[0].numel(), num_classes)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    images, labels = images.to(device), labels.to(device)
    shuffler = torch.Generator().manual_seed(0)
    for epoch in range(10):
        order = torch.randperm(len(labels), generator=shuffler).to(device)
        for start in range(0, len(labels), 64):
            batch = order[start:start + 64]
            optimizer.zero_grad()
            loss = loss_fn(model(images[batch]), labels[batch])
            loss.backward()
            optimizer.step()
    return model
    ### END SOLUTION

# %% test train_classifier points=3
from course.checks import passed
from course.device import cuda_available
from course.probes.training import check_trained_classifier, train_classifier_probe

classifier_device = "cuda" if cuda_available() else None
classifier_seeds = [101, 202]
classifier_report = train_classifier_probe(train_classifier, 7, classifier_seeds, n_train=512, n_test=1000, device=classifier_device)
classifier_case = "trained on make_images(512, seed=7)" + (", device='cuda'" if classifier_device else ", device left as None")
check_trained_classifier(classifier_report, classifier_seeds[:1], what=classifier_case)
passed("train_classifier", f"(held-out accuracy {classifier_report['accuracies'][0]:.3f}; training used {classifier_report['seconds']:.2f} s of CPU time)")
### BEGIN HIDDEN TESTS
from course.checks import check_true
from course.probes.training import fresh_classifier_case

check_trained_classifier(classifier_report, classifier_seeds, what=classifier_case)
# Data drawn when the grader runs, classes renamed: only a model trained on what the call is given fits it.
fresh = fresh_classifier_case()
fresh_report = train_classifier_probe(train_classifier, fresh["seed_train"], fresh["test_seeds"], n_train=512, n_test=1000,
                                      device=classifier_device, classes=fresh["classes"])
fresh_case = (f"trained on make_images(512, seed={fresh['seed_train']}) with class k renamed {fresh['classes']}[k], "
              "drawn when the grader ran" + (", device='cuda'" if classifier_device else ", device left as None"))
check_trained_classifier(fresh_report, fresh["test_seeds"], what=fresh_case)
for report, case in ((classifier_report, classifier_case), (fresh_report, fresh_case)):
    check_true(report["inputs_unchanged"],
               f"Expected train_classifier to leave its images and labels unchanged ({case}; measured in your process), "
               "but it changed them. Work on a copy, or make new tensors, instead of changing the inputs in place.")
### END HIDDEN TESTS

# %% [markdown]
# ## The same loop on the CPU or a GPU
#
# Nothing moves to a GPU by itself: a new model and a new tensor live on the CPU even when a GPU is
# there (unless some code changed the default with `torch.set_default_device`). The loop above runs
# anywhere because of three habits:
#
# 1. `device = torch.device("cuda" if torch.cuda.is_available() else "cpu")` once, at the top;
# 2. `model.to(device)` once, before the optimizer is made; for a module, `.to` moves its own
#    parameters and buffers and returns the same module (a tensor's `.to` leaves the tensor where it
#    was and returns a copy on the new device, or the tensor itself if it is already there, hence
#    `x = x.to(device)`);
# 3. every batch `.to(device)` just before it is used (a DataLoader over CPU tensors gives CPU
#    batches), and data that is used again and again (the held-out set) moved once and kept there,
#    since every move between CPU and GPU memory is a copy, across the PCIe bus on most machines.

# %%
fresh = nn.Linear(4, 2)
print("a fresh model lives on:", next(fresh.parameters()).device)
moved = fresh.to(device)
print("after .to(device):", next(fresh.parameters()).device, " same module:", moved is fresh)

# %% [markdown]
# Forget one of the moves and the step fails on the first batch. On a GPU machine the next cell
# shows the real error: model on `cuda`, batch on the CPU. Without a GPU it shows the same rule
# with the `meta` device (tensors with a shape and dtype but no data) standing in for the GPU: the
# message is worded differently, but the rule is the one that bites on a GPU.

# %%
batch = torch.randn(5, 3, 8, 8)
if torch.cuda.is_available():
    on_gpu = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 4)).to(device)
    try:
        on_gpu(batch)
    except RuntimeError as error:
        print("RuntimeError:", str(error).splitlines()[0])
    print("fixed:", on_gpu(batch.to(device)).device)
else:
    elsewhere = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 4)).to("meta")
    try:
        elsewhere(batch)
    except RuntimeError as error:
        print("RuntimeError:", error)
    print("fixed:", elsewhere(batch.to("meta")).device, "(no GPU here, so 'meta' stood in for it)")


# %% [markdown]
# ## Common mistakes
#
# - **Shapes that disagree.** Images and labels must share the batch dimension; the logits must be
#   `(N, classes)` and the labels `(N,)` int64. Print `.shape` before you connect things.
# - **Forgetting `zero_grad()`.** Gradients add up, so every step also applies all earlier ones. Clear
#   them at the start of each step.
# - **Clearing in the wrong place.** `zero_grad()` between `backward()` and `step()` throws the fresh
#   gradient away. With its default, which sets each `.grad` to `None`, the optimizer then skips every
#   parameter: the model never changes and the loss curve stays flat. (With `zero_grad(set_to_none=False)`
#   the gradients are zeros instead, and an optimizer with weight decay still moves the weights,
#   towards zero rather than towards a lower loss.)
# - **Keeping loss tensors.** `losses.append(loss)` keeps each step's graph alive; append `loss.item()`.
# - **Forgetting `super().__init__()`, or keeping layers in a plain list.** The first raises an
#   AttributeError as soon as a layer is assigned; the second hides the layers from `parameters()`, so
#   the optimizer never trains them (use `nn.ModuleList`).
# - **Evaluating in training mode.** Dropout keeps dropping and batch norm uses (and updates) the
#   statistics of the batch: predictions change from call to call. Use `model.eval()` and
#   `torch.no_grad()` together whenever you only want predictions, and `model.train()` before
#   training again.
# - **Shuffling from the global generator when you want to repeat a run.** Any other random draw moves
#   the order; give the DataLoader a seeded `torch.Generator`.
# - **A softmax before `CrossEntropyLoss`.** The loss takes raw logits.
# - **Ignoring the device.** Model on the GPU, batch on the CPU: a RuntimeError. And a GPU is used only
#   when you ask for it (`.to(device)`, or a default device set with `torch.set_default_device`): if you
#   did not move the model, it trains on the CPU.

# %% [markdown]
# ## Recap
#
# - A batch is a promise: dimension 0 indexes the same examples in the images, the logits and the labels.
# - `nn.Linear` works on the last dimension (flatten images first), `nn.CrossEntropyLoss` takes logits
#   `(N, classes)` and int64 labels `(N,)`, and an optimizer moves the parameters it was given.
# - One step: `zero_grad`, forward, loss, `backward`, `step`; report `loss.item()`.
# - A model is a subclass of `nn.Module`: `super().__init__()`, layers as attributes in `__init__`,
#   the computation in `forward`; `sum(p.numel() for p in model.parameters())` is its size.
# - A `Dataset` gives examples, a `DataLoader` stacks them into batches; `shuffle=True` with a seeded
#   `torch.Generator` gives a new order each epoch and the same orders on every run.
# - `model.train()` and `model.eval()` switch dropout and batch norm; evaluation wants `model.eval()`
#   and `torch.no_grad()`, and gives the model back in the mode it came in.
# - Accuracy: `argmax(dim=1)`, compare, `.float().mean().item()`.
# - Pick `device` once, move the model once, move each batch: the same loop then runs on any machine.

# %%
# Try it: train your train_classifier on 6 classes and check it with your evaluate.
(six_x, six_y), (six_test_x, six_test_y) = train_test_images(512, 500, seed=3, num_classes=6)
six_model = train_classifier(six_x, six_y)
where = next(six_model.parameters()).device
print("held-out accuracy on 6 classes:", evaluate(six_model, six_test_x.to(where), six_test_y.to(where)))
