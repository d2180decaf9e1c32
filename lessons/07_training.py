# %% [markdown]
# # Lesson 7: a training step, end to end
#
# Every lesson so far prepared one piece: tensors with the right shape, dtype and device, and
# autograd filling `.grad`. Here the pieces meet in the loop that trains a model.
#
# **You will learn to**
#
# - diagnose a training step whose images and labels disagree on the batch size;
# - use the three objects every step needs: a model (`nn.Linear`), a loss (`nn.CrossEntropyLoss`)
#   and an optimizer (`torch.optim.SGD` or `Adam`), and say why the old gradients must be cleared;
# - write one complete training step, and measure accuracy without recording a graph;
# - train a small image classifier on the course's toy images and read its loss curve;
# - write the loop once so that it runs on the CPU or a GPU unchanged.

# %%
import torch
from torch import nn

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
# - **C.** The loss raises a ValueError: there are 16 predictions but only 4 labels.
# - **D.** `nn.Linear(3 * 224 * 224, 2)` raises a RuntimeError: 150,528 input features are too many for one layer.

# %% answer answer_seed_training_bug
# One upper-case letter as a string, for example "A".
answer_seed_training_bug = None
### BEGIN SOLUTION
answer_seed_training_bug = "C"
### END SOLUTION

# %% test answer_seed_training_bug points=1
from course.quiz import check_choice
from course.checks import passed

check_choice(answer_seed_training_bug, "ABCD", name="answer_seed_training_bug")
passed("answer_seed_training_bug", "(Only the form is checked here.)")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_seed_training_bug, "C", name="answer_seed_training_bug",
          why="The first dimension of the predictions and of the labels is the batch: the loss pairs prediction i "
              "with label i, so it needs 16 labels for 16 predictions. CrossEntropyLoss refuses with "
              "'ValueError: Expected input batch_size (16) to match target batch_size (4).' Losses never "
              "broadcast labels, a fresh tensor from randn is contiguous, and a layer of 150,528 inputs is merely big.")
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
# The inputs must be floating point, like the weights: an int64 batch raises a dtype error (lesson 2).
# The output has one score per class, called a *logit*: a raw number, not a probability.
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
# class indices: a float tensor of labels means "class probabilities" to this loss, a different thing.
#
# ### An optimizer, and why old gradients must go
#
# An optimizer is given the model's parameters once, and `optimizer.step()` then moves each of them
# using its `.grad`. Plain SGD does `p -= lr * p.grad`; Adam scales each step by running averages of
# past gradients, which makes it less sensitive to the choice of `lr`.
#
# `backward()` *adds* to `.grad`; it never replaces it. That lets you sum gradients over several
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
# the predictions, the loss and the gradients. In code the cycle is five lines, always in this order:

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
#
# ### Your turn: `evaluate`
#
# Write `evaluate(model, images, labels)`: the accuracy of `model` on the batch as a Python float in
# `[0, 1]`, with no graph recorded. Do not change the model or the data.

# %% answer evaluate
def evaluate(model, images, labels):
    """The fraction of `images` that `model` classifies as `labels`, as a Python float, without a graph."""
    ### BEGIN SOLUTION
    with torch.no_grad():
        predicted = model(images).argmax(dim=1)
    return (predicted == labels).float().mean().item()
    ### END SOLUTION

# %% test evaluate points=2
from course.checks import passed
from course.probes.training import check_evaluation, evaluate_probe

check_evaluation(evaluate_probe(evaluate, 0), 0.425, what="a linear model on 40 toy images (17 of them right)")
passed("evaluate")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from instructor.training import expected_accuracy

check_evaluation(evaluate_probe(evaluate, 1, hidden=16), expected_accuracy(1, hidden=16), what="a small MLP on 40 toy images")
check_evaluation(evaluate_probe(evaluate, 2, images_require_grad=True), expected_accuracy(2),
                 what="images that require grad")
check_evaluation(evaluate_probe(evaluate, 3, n=1), expected_accuracy(3, n=1), what="a batch of one image")
check_evaluation(evaluate_probe(evaluate, 4, train_steps=0, num_classes=6), expected_accuracy(4, train_steps=0, num_classes=6),
                 what="an untrained model with 6 classes")
check_evaluation(evaluate_probe(evaluate, 5, train_steps=40), expected_accuracy(5, train_steps=40), what="a model after 40 updates")
for dev in test_devices():
    if dev != "cpu":
        check_evaluation(evaluate_probe(evaluate, 6, device=dev), expected_accuracy(6, device=dev),
                         what=f"model and images on '{dev}'")
### END HIDDEN TESTS

# %% [markdown]
# ## A training loop and its loss curve
#
# A loop repeats the step over *epochs* (full passes over the training set), each split into
# shuffled batches. This one uses your `training_step` and `evaluate`, so finish them first. It
# records the loss of every step and the held-out accuracy after each epoch. Note the three
# `.to(device)` calls: they are explained in the next section.

# %%
torch.manual_seed(0)
(train_x, train_y), (test_x, test_y) = train_test_images(512, 1000, seed=0)
model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 4)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = nn.CrossEntropyLoss()
test_x, test_y = test_x.to(device), test_y.to(device)

losses, accuracies = [], []
for epoch in range(6):
    order = torch.randperm(len(train_y))
    for start in range(0, len(order), 32):
        batch = order[start:start + 32]
        losses.append(training_step(model, train_x[batch].to(device), train_y[batch].to(device), optimizer, loss_fn))
    accuracies.append(evaluate(model, test_x, test_y))
    print(f"epoch {epoch + 1}: last loss {losses[-1]:.3f}, held-out accuracy {accuracies[-1]:.3f}")

# %%
if accuracies:
    plot_loss_curve(losses, accuracies=accuracies, steps_per_epoch=len(losses) // len(accuracies))
else:
    print("No curve yet: write training_step and evaluate above, then run the loop again.")

# %% [markdown]
# Read the curve from left to right. The loss of single steps jumps around (each batch is
# different), so look at the running mean: it falls fast at first, then flattens. Accuracy on
# images the model never saw rises as the loss falls. A curve that climbs or turns into `nan`
# usually means a learning rate that is too large; a flat one, too small a rate, or no real update
# (a forgotten `step()`, gradients cleared after `backward()`).

# %%
# Try it: rerun the two cells above with lr=0.5, or with lr=0.0001, or with Adam; see the curve change.
with torch.no_grad():
    guesses = model(test_x[:8]).argmax(dim=1)
show_images(test_x[:8], test_y[:8], predicted=guesses)

# %% [markdown]
# ### Your turn: `train_classifier`
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
#
# You may write the loop yourself or call your `training_step`.

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
passed("train_classifier", f"(held-out accuracy {classifier_report['accuracies'][0]:.3f}; training took {classifier_report['seconds']:.2f} s)")
### BEGIN HIDDEN TESTS
from course.checks import check_true

check_trained_classifier(classifier_report, classifier_seeds, what=classifier_case)
check_true(classifier_report["inputs_unchanged"],
           f"Expected train_classifier to leave its images and labels unchanged ({classifier_case}; measured in your process), "
           "but it changed them. Work on a copy, or make new tensors, instead of changing the inputs in place.")
### END HIDDEN TESTS

# %% [markdown]
# ## The same loop on the CPU or a GPU
#
# Nothing moves to a GPU by itself: a new model and a new tensor live on the CPU even when a GPU is
# there. The loop above runs anywhere because of three habits:
#
# 1. `device = torch.device("cuda" if torch.cuda.is_available() else "cpu")` once, at the top;
# 2. `model.to(device)` once, before the optimizer is made; for a module, `.to` moves its own
#    parameters and returns the same module (a tensor's `.to` leaves the tensor where it was and
#    returns a moved copy, hence `x = x.to(device)`);
# 3. every batch `.to(device)` just before it is used, and data that is used again and again (the
#    held-out set) moved once and kept there, since every move is a copy across the PCIe bus.

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
#   gradient away: the model never changes and the loss curve stays flat.
# - **Keeping loss tensors.** `losses.append(loss)` keeps each step's graph alive; append `loss.item()`.
# - **Evaluating with the graph on.** Use `torch.no_grad()` whenever you only want predictions.
# - **A softmax before `CrossEntropyLoss`.** The loss takes raw logits.
# - **Ignoring the device.** Model on the GPU, batch on the CPU: a RuntimeError. And a GPU is never used
#   automatically: if you did not move the model, it trains on the CPU.

# %% [markdown]
# ## Recap
#
# - A batch is a promise: dimension 0 indexes the same examples in the images, the logits and the labels.
# - `nn.Linear` works on the last dimension (flatten images first), `nn.CrossEntropyLoss` takes logits
#   `(N, classes)` and int64 labels `(N,)`, and an optimizer moves the parameters it was given.
# - One step: `zero_grad`, forward, loss, `backward`, `step`; report `loss.item()`.
# - Accuracy: `argmax(dim=1)`, compare, `.float().mean().item()`, all under `torch.no_grad()`.
# - Pick `device` once, move the model once, move each batch: the same loop then runs on any machine.

# %%
# Try it: train your train_classifier on 6 classes and check it with your evaluate.
(six_x, six_y), (six_test_x, six_test_y) = train_test_images(512, 500, seed=3, num_classes=6)
six_model = train_classifier(six_x, six_y)
where = next(six_model.parameters()).device
print("held-out accuracy on 6 classes:", evaluate(six_model.eval(), six_test_x.to(where), six_test_y.to(where)))
