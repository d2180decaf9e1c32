# %% [markdown]
# # automatic differentiation
#
# Training a network means asking, for every weight, "if I nudge this number, how does the loss
# change?" That number is a gradient, and PyTorch's **autograd** computes all of them for you.
#
# **You will learn to**
#
# - flag the tensors autograd should watch with `requires_grad`, and tell leaves (`is_leaf`) from results;
# - read the graph autograd records: `grad_fn` and its `next_functions`, drawn as a picture;
# - run `backward()`, read `.grad`, and work a classic example's `weight.grad` out by hand;
# - check a gradient by nudging the input (finite differences);
# - explain why `.grad` adds up, and clear it with `zero_()`;
# - take tensors off the graph with `detach()` and compute gradients without side effects;
# - differentiate a result that holds many numbers with a vector-Jacobian product
#   (`backward(gradient=...)`, `torch.autograd.grad(..., grad_outputs=...)`);
# - differentiate through Python loops and `if`s;
# - stop a gradient inside a computation with `detach()`;
# - recognise the error an in-place change causes in `backward()`, and fix it;
# - run inference under `torch.no_grad()`, and measure the memory a graph keeps alive;
# - freeze parameters so that training leaves them as they are.

# %%
import torch
from torch import nn

from course.device import describe_setup
from course.pictures.autograd import draw_graph, draw_tangent

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(describe_setup(device))

# %% [markdown]
# ## Tensors that require grad
#
# Autograd only watches tensors whose `requires_grad` flag is `True`. The flag is `False` by
# default, which suits data: nobody needs the gradient of the loss with respect to a pixel of an
# input image. Weights are different: we want their gradients, so we ask for them. The layers in
# `torch.nn` flag their parameters for you.

# %%
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
weight = torch.tensor([[0.5], [0.5]], device=device, requires_grad=True)

print("x.requires_grad:     ", x.requires_grad)
print("weight.requires_grad:", weight.requires_grad)
print("nn.Linear(2, 1).weight.requires_grad:", nn.Linear(2, 1).weight.requires_grad)

# %% [markdown]
# Only floating-point (and complex) tensors can require grad: a gradient is a rate of change, and
# integers cannot be nudged by a tiny amount. You can also switch the flag on later, in place, with
# `requires_grad_()` (the trailing underscore marks an in-place method in PyTorch).

# %%
try:
    torch.tensor([1, 2, 3], requires_grad=True)
except RuntimeError as error:
    print("RuntimeError:", error)

bias = torch.zeros(3, device=device)
bias.requires_grad_()
print("bias.requires_grad after requires_grad_():", bias.requires_grad)

# %% [markdown]
# ### Leaves and results
#
# A tensor you make yourself is a **leaf** (`is_leaf` is `True`). A tensor computed from something
# that requires grad is a **result**: it requires grad too, and it is not a leaf. The difference
# matters later: `backward()` stores gradients in `.grad` of leaves only, because leaves are the
# things you update (weights), while results are rebuilt on every forward pass.

# %%
output = x @ weight
print("weight.is_leaf:", weight.is_leaf, "| x.is_leaf:", x.is_leaf, "| output.is_leaf:", output.is_leaf)
print("output.requires_grad:", output.requires_grad)

# %% [markdown]
# **Try it:** make `x` require grad too (`requires_grad=True` in its constructor above) and run the
# two cells again. Which tensors are leaves now?

# %% [markdown]
# ## The graph behind a result
#
# While it computes, autograd writes down how each result was made. A result's `.grad_fn` is the
# node for the operation that produced it; leaves have no `grad_fn` (it is `None`).

# %%
loss = output.sum()
print("output.grad_fn:", output.grad_fn)
print("loss.grad_fn:  ", loss.grad_fn)
print("weight.grad_fn:", weight.grad_fn, "| x.grad_fn:", x.grad_fn)

# %% [markdown]
# Each node lists the nodes that produced its inputs in `next_functions`, a tuple of `(node, index)`
# pairs, one per input. Following them from `loss.grad_fn` walks the whole graph back to the leaves:
#
# - `MmBackward0` (the matrix product) has two inputs. The first, `x`, does not require grad, so its
#   entry is `None`: autograd will not compute a gradient nobody asked for.
# - The second is an `AccumulateGrad` node. It belongs to the leaf `weight` (its `.variable`), and
#   it is where a gradient gets added into `weight.grad`.

# %%
print("loss.grad_fn.next_functions:  ", loss.grad_fn.next_functions)
print("output.grad_fn.next_functions:", output.grad_fn.next_functions)
accumulate = output.grad_fn.next_functions[1][0]
print(type(accumulate).__name__, "belongs to weight:", accumulate.variable is weight)

# %% [markdown]
# The picture below is drawn by exactly that walk: start at `loss.grad_fn`, draw a box, follow
# `next_functions`, repeat. It is the route `backward()` takes.

# %%
draw_graph(loss, {"loss": loss, "weight": weight})

# %% [markdown]
# A small network gives a bigger graph. `nn.Linear` computes `input @ weight.T + bias` in one node
# (`AddmmBackward0`); the transpose of its weight has its own node (`TBackward0`).

# %%
torch.manual_seed(0)
layer = nn.Linear(3, 2).to(device)
score = torch.tanh(layer(torch.randn(4, 3, device=device))).pow(2).mean()
draw_graph(score, {"score": score, "weight": layer.weight, "bias": layer.bias})

# %% [markdown]
# **Try it:** add an operation (for example `* 3` or `.exp()`) to `score` and draw it again. Then
# make the input `torch.randn(4, 3, requires_grad=True)`: where does the `None` box go?

# %% [markdown]
# ## backward() fills .grad
#
# `loss.backward()` walks the graph from `loss` to the leaves and adds the gradient of `loss` into
# `.grad` of every leaf that requires grad. Each `.grad` has the shape of its tensor: entry by entry,
# it says how fast `loss` changes when that entry is nudged.
#
# `backward()` with no argument needs a single number to start from: call it on a 0-d result such
# as a sum or a mean (a loss always is one). Results with many numbers come later, with
# vector-Jacobian products.
#
# ### A classic example by hand
#
# A classic first example of autograd computes `loss = (x @ weight).sum()` with
# `x = [[1, 2], [3, 4]]` and `weight = [[0.5], [0.5]]`, then prints `weight.grad`. Write `w0` and
# `w1` for the two weights. Row `i` of `x @ weight` is `x[i, 0] * w0 + x[i, 1] * w1`, so
#
# `loss = w0 * (x[0, 0] + x[1, 0]) + w1 * (x[0, 1] + x[1, 1])`.
#
# The loss is a straight line in each weight, and its slope in `w0` is what multiplies `w0`: the sum
# of the first column of `x`. Likewise the slope in `w1` is the sum of the second column. The
# values of the weights do not appear at all. Work out the two numbers before you read on.

# %% [markdown]
# ### Quiz: weight.grad in the classic example
#
# With `x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])`,
# `weight = torch.tensor([[0.5], [0.5]], requires_grad=True)`, `loss = (x @ weight).sum()` and
# `loss.backward()`, what is `weight.grad`? Answer with nested lists of floats shaped like `weight`
# (two rows, one column each).

# %% answer answer_seed_weight_grad quiz=recall
# Nested lists of floats shaped like weight, for example [[1.0], [2.0]].
answer_seed_weight_grad = None
### BEGIN SOLUTION
answer_seed_weight_grad = [[4.0], [6.0]]
### END SOLUTION

# %% test answer_seed_weight_grad points=1
from course.quiz import check_nested_floats, form_checked

check_nested_floats(answer_seed_weight_grad, name="answer_seed_weight_grad", shape=(2, 1))
form_checked("answer_seed_weight_grad")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_seed_weight_grad, [[4.0], [6.0]], name="answer_seed_weight_grad",
          why="loss = w0 * (1 + 3) + w1 * (2 + 4): each weight's gradient is the sum of its column of x, so weight.grad is [[4.0], [6.0]], shaped like weight. It does not depend on the weights' values (0.5), and it is not the output x @ weight ([[1.5], [3.5]]).")
### END HIDDEN TESTS

# %% [markdown]
# ### Checking the hand calculation
#
# Now let autograd do it.

# %%
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
weight = torch.tensor([[0.5], [0.5]], device=device, requires_grad=True)
loss = (x @ weight).sum()
print("loss:", loss.item())
print("weight.grad before backward():", weight.grad)
loss.backward()
print("weight.grad after backward():", weight.grad)
print("column sums of x:", x.sum(dim=0))
print("x.grad:", x.grad)

# %% [markdown]
# The columns of `x` sum to `1 + 3 = 4` and `2 + 4 = 6`, so `weight.grad` is `[[4.], [6.]]`,
# shaped like `weight`. Before `backward()` it was `None`; `x.grad` stays `None` because `x` does
# not require grad.
#
# ### Checking a gradient by nudging (finite differences)
#
# A gradient promises: nudge `weight[0, 0]` by a small `eps` and `loss` moves by about
# `4 * eps`. You can test that promise without autograd, by computing the loss twice. (The
# `torch.no_grad()` block keeps this measurement out of the graph; it is explained below.)

# %%
eps = 1e-3
with torch.no_grad():
    nudged = weight.clone()
    nudged[0, 0] += eps
    slope = ((x @ nudged).sum() - (x @ weight).sum()) / eps
print(f"measured slope for weight[0, 0]: {slope.item():.4f}   weight.grad[0, 0]: {weight.grad[0, 0].item():.4f}")

# %% [markdown]
# The two agree up to float32 rounding. Tests in this lesson check your gradients this way too.
#
# **Try it:** measure the slope for `weight[1, 0]`, and change `weight`'s values: does the slope change?

# %% [markdown]
# ## How PyTorch calculates gradients
#
# Every node in the graph knows one small thing: the derivative of its own operation (`SinBackward0`
# knows that the slope of `sin(u)` is `cos(u)`). `backward()` starts at the result with a gradient of
# 1, and at each node on the way down multiplies by that local derivative: the **chain rule**, applied
# in reverse order. For `y = sin(a * b)` that gives `dy/da = cos(a * b) * b`.

# %%
a = torch.tensor(2.0, device=device, requires_grad=True)
b = torch.tensor(3.0, device=device, requires_grad=True)
y = torch.sin(a * b)
y.backward()
print("a.grad from backward():", a.grad.item())
print("cos(a * b) * b by hand: ", (torch.cos(a * b) * b).item())

# %% [markdown]
# When a tensor is used more than once, the gradients from every path are **added**. In
# `z = c * c + c` the leaf `c` feeds the multiplication twice and the addition once, so its gradient
# is `c + c + 1 = 2c + 1`. The picture shows the three arrows that reach `c`.

# %%
c = torch.tensor(2.0, device=device, requires_grad=True)
z = c * c + c
picture = draw_graph(z, {"z": z, "c": c}, title="z = c * c + c: three arrows reach c")
z.backward()
print("c.grad:", c.grad.item(), "(2 * c + 1 =", 2 * 2.0 + 1, ")")
picture

# %% [markdown]
# ## Gradients add up
#
# `backward()` never overwrites the values in `.grad`: it adds the new gradient to them. Run the same
# forward and backward pass three times and the gradient grows.

# %%
weight = torch.tensor([[0.5], [0.5]], device=device, requires_grad=True)
for step in range(3):
    loss = (x @ weight).sum()
    loss.backward()
    print(f"after backward() number {step + 1}: weight.grad = {weight.grad.flatten().tolist()}")

# %% [markdown]
# Adding is deliberate: a loss made of parts can call `backward()` on each part, and a batch too big
# for memory can be processed in pieces whose gradients add up. In an ordinary training loop you clear
# the gradients before each backward pass: `weight.grad.zero_()` fills them with zeros in place, and
# `weight.grad = None` drops them (which is what `optimizer.zero_grad()` and `model.zero_grad()` do
# by default for every parameter).

# %%
weight.grad.zero_()
print("after zero_():", weight.grad.flatten().tolist())
weight.grad = None
print("after setting it to None:", weight.grad)

# %% [markdown]
# ### Calling backward() twice on one graph
#
# Recomputing the forward pass, as in the loop above, builds a new graph each time. Calling
# `backward()` twice on the *same* graph fails instead when the graph saved values for its backward
# pass, as `x @ weight` does (the slope of a product needs the other factor): the first call frees
# them. (`loss.backward(retain_graph=True)` keeps them, when you really need a second pass.) A graph
# that saved no tensor, such as `(weight + 1).sum()`, backs up twice without an error, adding into
# `.grad` each time; so a second `backward()` that runs is no proof that the graph was rebuilt.

# %%
loss = (x @ weight).sum()
loss.backward()
try:
    loss.backward()
except RuntimeError as error:
    print("RuntimeError:", str(error).split(". ")[0] + ".")

weight.grad = None
nothing_saved = (weight + 1).sum()
nothing_saved.backward()
nothing_saved.backward()
print("(weight + 1).sum(), backward() twice:", weight.grad.flatten().tolist())
weight.grad = None

# %% [markdown]
# ### Quiz: backward twice
#
# What does this print?
#
# ```python
# w = torch.tensor(2.0, requires_grad=True)
# for k in (1.0, 3.0):
#     loss = k * w ** 2
#     loss.backward()
# print(w.grad)
# ```
#
# - **A.** `tensor(12.)`
# - **B.** a `RuntimeError`
# - **C.** `tensor(16.)`
# - **D.** `tensor(4.)`

# %% answer answer_backward_twice quiz=rule
# One upper-case letter as a string, for example "A".
answer_backward_twice = None
### BEGIN SOLUTION
answer_backward_twice = "C"
### END SOLUTION

# %% test answer_backward_twice points=1
from course.quiz import check_choice, form_checked

check_choice(answer_backward_twice, "ABCD", name="answer_backward_twice")
form_checked("answer_backward_twice")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_backward_twice, "C", name="answer_backward_twice",
          why="The slope of k * w ** 2 is 2 * k * w: 4 for k = 1 and 12 for k = 3, at w = 2. backward() adds into .grad "
              "and does not overwrite it, so after both passes w.grad is 4 + 12 = 16 (not A, not D). There is no error, "
              "because each pass of the loop builds a new graph (not B); clear .grad (w.grad = None, or "
              "optimizer.zero_grad()) when you want a fresh gradient.")
### END HIDDEN TESTS

# %% [markdown]
# ## Gradients without side effects
#
# `backward()` writes into the `.grad` of the leaves it reaches. A function that only wants to
# *compute* a gradient must not do that to its caller's tensors. Two tools help.
#
# ### detach()
#
# `t.detach()` returns a tensor with the same data that is cut off from the graph: it does not
# require grad and has no `grad_fn`. It shares memory with `t` (an in-place change to one shows in
# the other), so add `.clone()` when you need an independent copy. Detaching is also how a tensor
# leaves the graph for NumPy: `.numpy()` refuses a tensor that requires grad, and
# `.detach().cpu().numpy()` works for a float32 tensor whether it lives on the CPU or on a GPU.

# %%
prediction = x @ weight
try:
    prediction.numpy()
except RuntimeError as error:
    print("RuntimeError:", error)
print(prediction.detach().cpu().numpy())

detached = weight.detach()
print("requires_grad:", detached.requires_grad, "| grad_fn:", detached.grad_fn,
      "| same memory as weight:", detached.data_ptr() == weight.data_ptr())

# %% [markdown]
# ### torch.autograd.grad
#
# `torch.autograd.grad(result, inputs)` returns the gradients as a tuple instead of adding them into
# `.grad`. Together with a detached copy of the input, it computes a gradient and leaves everything
# else as it was.

# %%
weight.grad = None
w_copy = weight.detach().clone().requires_grad_(True)
(gradient,) = torch.autograd.grad((x @ w_copy).sum(), w_copy)
print("gradient:", gradient.flatten().tolist(), "| requires_grad:", gradient.requires_grad)
print("weight.grad is still:", weight.grad, "| w_copy.grad is still:", w_copy.grad)

# %% [markdown]
# ### Your turn: `linear_weight_grad`
#
# **To write:** `linear_weight_grad(x, w)` returns the gradient of `(x @ w).sum()` with respect to
# `w`, leaving `x` and `w` as they were.
#
# Return the gradient of `(x @ w).sum()` with respect to `w`: shaped like `w`, not requiring grad.
# Leave `x` and `w` exactly as they were (values, `requires_grad` and `.grad`), whether or not `w`
# requires grad. `w` may be a matrix or a vector, and `x` may have extra batch dimensions.
#
# Careful: `w.clone()` without `detach()` is still connected to `w`'s graph, so a backward pass
# through the clone reaches `w.grad`.

# %% answer linear_weight_grad
def linear_weight_grad(x, w):
    """The gradient of (x @ w).sum() with respect to w, computed without touching x, w or w.grad."""
    ### BEGIN SOLUTION
    w_copy = w.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        loss = (x.detach() @ w_copy).sum()
    (grad,) = torch.autograd.grad(loss, w_copy)
    return grad
    ### END SOLUTION

# %% test linear_weight_grad points=3
import torch
from course.checks import check_runs, check_tensor, check_true, passed
from course.probes.core import call_watching_inputs

x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
expected = torch.tensor([[4.0], [6.0]])
check_tensor(linear_weight_grad(x, torch.tensor([[0.5], [0.5]])), expected,
             what="the gradient for the classic example's x and weight", requires_grad=False)
w = torch.tensor([[0.5], [0.5]], requires_grad=True)
result, changed = call_watching_inputs(linear_weight_grad, x, w)
check_tensor(result, expected, what="the gradient when w requires grad", requires_grad=False)
check_true(changed == [], "Expected linear_weight_grad to leave x and w as they were (values, requires_grad and .grad; "
           f"measured in your process), but it changed {', '.join(changed).replace('arg 0', 'x').replace('arg 1', 'w')}. "
           "Work on w.detach().clone() instead of w.")
passed("linear_weight_grad")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from instructor.autograd import check_grad_by_finite_differences


def reference_grad(x, w):
    w_ref = w.detach().clone().requires_grad_(True)
    return torch.autograd.grad((x.detach() @ w_ref).sum(), w_ref)[0]


gen = torch.Generator().manual_seed(6)
cases = {
    "x of shape (5, 3) and w of shape (3, 4)": (torch.randn(5, 3, generator=gen), torch.randn(3, 4, generator=gen)),
    "a vector w of shape (3,)": (torch.randn(5, 3, generator=gen), torch.randn(3, generator=gen)),
    "a batch x of shape (2, 5, 3)": (torch.randn(2, 5, 3, generator=gen), torch.randn(3, 2, generator=gen)),
    "two vectors (a dot product)": (torch.randn(4, generator=gen), torch.randn(4, generator=gen)),
    "a vector x and a matrix w": (torch.randn(3, generator=gen), torch.randn(3, 2, generator=gen)),
    "an empty x of shape (0, 3)": (torch.zeros(0, 3), torch.randn(3, 2, generator=gen)),
    "float64 tensors": (torch.randn(4, 3, generator=gen, dtype=torch.float64), torch.randn(3, 2, generator=gen, dtype=torch.float64)),
    "transposed (non-contiguous) x and w": (torch.randn(3, 5, generator=gen).t(), torch.randn(2, 3, generator=gen).t()),
}
for label, (x, w) in cases.items():
    found = check_runs(linear_weight_grad, x, w, what=f"linear_weight_grad for {label}")
    check_tensor(found, reference_grad(x, w), what=f"the gradient for {label}", requires_grad=False, atol=1e-5)

x, w = cases["x of shape (5, 3) and w of shape (3, 4)"]
check_grad_by_finite_differences(check_runs(linear_weight_grad, x, w, what="linear_weight_grad for x (5, 3) and w (3, 4)"),
                                 lambda v: (x.double() @ v).sum(), w,
                                 what="the gradient for x of shape (5, 3) and w of shape (3, 4)")

x_plain = torch.randn(5, 3, generator=gen)
w_with_grad = torch.randn(3, 2, generator=gen, requires_grad=True)
w_with_grad.grad = torch.full((3, 2), 7.0)
x_with_grad = torch.randn(5, 3, generator=gen, requires_grad=True)
x_with_grad.grad = torch.full((5, 3), -1.0)
side_cases = {
    "w that does not require grad": (x_plain, torch.randn(3, 2, generator=gen)),
    "w that requires grad and already holds a .grad": (x_plain, w_with_grad),
    "x and w that both require grad and hold a .grad": (x_with_grad, w_with_grad),
}
for label, (x, w) in side_cases.items():
    result, changed = check_runs(call_watching_inputs, linear_weight_grad, x, w, what=f"linear_weight_grad for {label}")
    check_tensor(result, reference_grad(x, w), what=f"the gradient for {label}", requires_grad=False, atol=1e-5)
    check_true(changed == [], f"Expected linear_weight_grad to leave x and w as they were for {label} (measured in your process), "
               f"but it changed {', '.join(changed).replace('arg 0', 'x').replace('arg 1', 'w')} (values, requires_grad or .grad).")

for dev in test_devices():
    x = torch.randn(4, 3, generator=gen).to(dev)
    w = torch.randn(3, 2, generator=gen).to(dev).requires_grad_(True)
    result, changed = check_runs(call_watching_inputs, linear_weight_grad, x, w, what=f"linear_weight_grad for tensors on {dev}")
    check_tensor(result, reference_grad(x, w), what=f"the gradient for tensors on {dev}", requires_grad=False, atol=1e-5)
    check_true(changed == [], f"Expected linear_weight_grad to leave x and w on {dev} as they were (measured in your process), "
               f"but it changed {', '.join(changed).replace('arg 0', 'x').replace('arg 1', 'w')}.")
### END HIDDEN TESTS

# %% [markdown]
# ### The gradient is a slope
#
# For a function of one number, the gradient is the slope of its curve: the line with that slope
# through the point touches the curve there. Here `f(v) = sin(v) * v` at `v = 1`.

# %%
def wavy(v):
    return torch.sin(v) * v


point = torch.tensor(1.0, requires_grad=True)
(slope,) = torch.autograd.grad(wavy(point), point)
print("slope at 1.0:", slope.item())
draw_tangent(wavy, 1.0, slope.item())

# %% [markdown]
# **Try it:** move the point to `2.0` or `-1.5`, or draw the line with a slope that is slightly
# wrong (`slope.item() + 0.5`): it cuts through the curve instead of touching it.
#
# ### Your turn: `grad_of`
#
# **To write:** `grad_of(f, x)` returns the gradient of a scalar function `f` at `x`, with autograd,
# leaving `x` as it was.
#
# Return the gradient of a scalar-valued function `f` at `x`: a tensor shaped like `x` that does
# not require grad. `f` takes a tensor shaped like `x` and returns a 0-d tensor. Leave `x` as it was
# (values, `requires_grad` and `.grad`), whether or not it requires grad. Use `torch.autograd.grad`
# (or `backward()`): the transforms of `torch.func` (`grad`, `grad_and_value`, `vjp`, `jacrev`,
# `jacfwd`, `hessian`) and the helpers of `torch.autograd.functional` (`jacobian`, `hessian`, `vjp`,
# `jvp`, `vhp`, `hvp`) do the whole job for you and are off limits here; the test notices when `f`
# is called by one.

# %% answer grad_of
def grad_of(f, x):
    """The gradient of the scalar function f at x, shaped like x; x itself is left as it was."""
    ### BEGIN SOLUTION
    x_copy = x.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        value = f(x_copy)
    (grad,) = torch.autograd.grad(value, x_copy)
    return grad
    ### END SOLUTION

# %% test grad_of points=3
import torch
from course.checks import check_runs, check_tensor, check_true, passed
from course.probes.autograd import grad_of_named, grad_of_under_transform

x = torch.tensor([1.0, -2.0, 3.0])
used = check_runs(grad_of_under_transform, grad_of, "sum_of_squares", x, what="grad_of(f, x)")
check_true(not used, f"Expected grad_of to compute the gradient with torch.autograd.grad, but f was called by "
           f"{' and by '.join(used)} (measured in your process). The task rules those out: grad_of is there to "
           "write the mechanism by hand.")
result, x_changed = grad_of_named(grad_of, "sum_of_squares", x)
check_true(not x_changed, "Expected grad_of to leave x as it was (measured in your process), but x changed "
           "(its values, requires_grad or .grad). Work on x.detach().clone() instead of x.")
check_tensor(result, 2 * x, what="grad_of(f, x) for f(x) = (x * x).sum() at x = [1., -2., 3.] (it is 2 * x)", requires_grad=False)
passed("grad_of")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from course.probes.autograd import NAMED_FUNCTIONS
from instructor.autograd import check_grad_by_finite_differences


def reference_grad(name, x):
    x_ref = x.detach().clone().requires_grad_(True)
    return torch.autograd.grad(NAMED_FUNCTIONS[name](x_ref), x_ref)[0]


gen = torch.Generator().manual_seed(16)
x_with_grad = torch.randn(2, 3, generator=gen, requires_grad=True)
x_with_grad.grad = torch.full((2, 3), 5.0)
inputs = {
    "a vector": torch.randn(5, generator=gen),
    "a 0-d tensor": torch.tensor(0.7),
    "an empty tensor of shape (0, 3)": torch.zeros(0, 3),
    "a transposed (non-contiguous) matrix": torch.randn(3, 4, generator=gen).t(),
    "a float64 matrix": torch.randn(2, 3, generator=gen, dtype=torch.float64),
    "a matrix that requires grad and already holds a .grad": x_with_grad,
}
for name in NAMED_FUNCTIONS:
    for label, x in inputs.items():
        result, x_changed = check_runs(grad_of_named, grad_of, name, x, what=f"grad_of for {name} at {label}")
        check_tensor(result, reference_grad(name, x), what=f"the gradient of {name} at {label}", requires_grad=False, atol=1e-5)
        check_true(not x_changed, f"Expected grad_of to leave x as it was for {name} at {label} (measured in your process), "
                   "but x changed (its values, requires_grad or .grad).")
    x = torch.randn(2, 3, generator=gen, dtype=torch.float64)
    found = check_runs(grad_of_named, grad_of, name, x, what=f"grad_of for {name} at a float64 matrix")[0]
    check_grad_by_finite_differences(found, NAMED_FUNCTIONS[name], x,
                                     what=f"the gradient of {name} at a float64 matrix")

for dev in test_devices():
    x = torch.randn(3, 2, generator=gen).to(dev)
    result, x_changed = check_runs(grad_of_named, grad_of, "quadratic_form", x, what=f"grad_of for quadratic_form on {dev}")
    check_tensor(result, reference_grad("quadratic_form", x), what=f"the gradient of quadratic_form on {dev}", requires_grad=False, atol=1e-5)
    check_true(not x_changed, f"Expected grad_of to leave x on {dev} as it was (measured in your process), but x changed.")
### END HIDDEN TESTS

# %% [markdown]
# ## Results with many numbers: vector-Jacobian products
#
# `backward()` with no argument needs a result that is one number. A result `y` with many numbers
# has many gradients: each entry of `y` has its own gradient with respect to `x`, and together they
# form the **Jacobian**, a table with one row per entry of `y` and one column per entry of `x`.
# `backward()` never builds that table. It computes a **vector-Jacobian product** instead: you hand
# it a tensor `v` shaped like `y`, one weight per entry (call it the *output gradient*), and it
# returns the rows of the Jacobian weighted by `v` and added up. That is exactly the gradient of the
# single number `(y * v).sum()`. A loss is the special case: it is one number, and its `v` is `1`.
#
# `y.backward(gradient=v)` adds that product into `x.grad`; without `gradient=` it raises.

# %%
x = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
y = x ** 2  # shape (3,): entry i depends on x[i] only, with slope 2 * x[i]
v = torch.tensor([1.0, 0.5, 0.0], device=device)
try:
    y.backward()
except RuntimeError as error:
    print("RuntimeError:", error)
y.backward(gradient=v)
print("x.grad after y.backward(gradient=v):", x.grad.tolist())
print("2 * x * v, by hand:                  ", (2 * x * v).tolist())

# %% [markdown]
# `torch.autograd.grad` takes the same tensor as `grad_outputs=` and returns the product instead of
# adding it into `.grad`. Passing `v` gives the same numbers as summing `y * v` first and
# differentiating that one number:

# %%
x.grad = None
(with_grad_outputs,) = torch.autograd.grad(x ** 2, x, grad_outputs=v)
(from_the_sum,) = torch.autograd.grad((x ** 2 * v).sum(), x)
print("grad_outputs=v:         ", with_grad_outputs.tolist())
print("gradient of (y * v).sum():", from_the_sum.tolist())

# %% [markdown]
# Why a product and not the whole table? Training needs the gradient of one number, the loss, so one
# backward pass is enough. The full Jacobian of a result with `m` numbers takes `m` backward passes,
# one per row: with `v` one-hot (a 1 at entry `i`, zeros elsewhere) the product *is* row `i`.
# `torch.autograd.functional.jacobian` builds the table for you:

# %%
rows = []
for i in range(3):
    one_hot = torch.zeros(3, device=device)
    one_hot[i] = 1.0
    rows.append(torch.autograd.grad(x ** 2, x, grad_outputs=one_hot)[0])
print("row by row:\n", torch.stack(rows))
print("torch.autograd.functional.jacobian:\n", torch.autograd.functional.jacobian(lambda t: t ** 2, x.detach()))

# %% [markdown]
# ### Quiz: a vector-Jacobian product
#
# What does this print? Every entry of `y` depends on every entry of `x` here, through `total`.
#
# ```python
# x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
# total = x.sum()
# y = x * total
# y.backward(gradient=torch.tensor([1.0, 0.0, -1.0]))
# print(x.grad)
# ```
#
# Answer with a list of three floats.

# %% answer answer_vjp_grad quiz=rule
# A list of three floats, for example [1.0, 2.0, 3.0].
answer_vjp_grad = None
### BEGIN SOLUTION
answer_vjp_grad = [4.0, -2.0, -8.0]
### END SOLUTION

# %% test answer_vjp_grad points=1
from course.quiz import check_nested_floats, form_checked

check_nested_floats(answer_vjp_grad, name="answer_vjp_grad", shape=(3,))
form_checked("answer_vjp_grad")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_vjp_grad, [4.0, -2.0, -8.0], name="answer_vjp_grad",
          why="The product is the gradient of (y * v).sum() = total * (x[0] - x[2]), where total = x[0] + x[1] + x[2] = 6. "
              "Each x[j] reaches it twice: through total (slope x[0] - x[2] = -2, for every j) and directly (slope total * v[j] = 6 * v[j]). "
              "Adding both paths gives [6 - 2, 0 - 2, -6 - 2] = [4, -2, -8]; [6, 0, -6] forgets the path through total.")
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `tanh_layer_vjp`
#
# **To write:** `tanh_layer_vjp(x, w, v)` returns the gradients that
# `torch.tanh(x @ w).backward(gradient=v)` would give `x` and `w`.
#
# A layer computes `y = torch.tanh(x @ w)` from a batch `x` of shape `(N, D)` and weights `w` of
# shape `(D, K)`, so `y` has shape `(N, K)`. Given an output gradient `v` shaped like `y`, return
# the pair `(grad_x, grad_w)` (a tuple of two tensors): what `y.backward(gradient=v)` would add into
# `x.grad` and into `w.grad`, shaped like `x` and like `w`, not requiring grad, with the inputs'
# dtype and device. Leave `x`, `w` and `v` exactly as they were (values, `requires_grad` and
# `.grad`), whether or not they require grad. `N` may be 0: then `grad_x` is empty and `grad_w`
# is all zeros.

# %% answer tanh_layer_vjp
def tanh_layer_vjp(x, w, v):
    """(grad_x, grad_w): the vector-Jacobian product of y = tanh(x @ w) with v, for x and for w."""
    ### BEGIN SOLUTION
    x_copy = x.detach().clone().requires_grad_(True)
    w_copy = w.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        y = torch.tanh(x_copy @ w_copy)
    grad_x, grad_w = torch.autograd.grad(y, (x_copy, w_copy), grad_outputs=v.detach())
    return grad_x, grad_w
    ### END SOLUTION

# %% test tanh_layer_vjp points=2
import torch
from course.checks import check_runs, check_tensor, check_true, fail, passed
from course.probes.core import call_watching_inputs

x = torch.tensor([[1.0, 0.0], [0.0, -1.0], [0.5, 0.5]])
w = torch.tensor([[0.5, -1.0], [2.0, 0.0]])
v = torch.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, -1.0]])
expected_x = torch.tensor([[0.393224, 1.572895], [-1.0, 0.0], [1.066863, 1.121659]])
expected_w = torch.tensor([[1.066863, -0.393224], [0.280415, -1.393224]])
result = check_runs(tanh_layer_vjp, x, w, v, what="tanh_layer_vjp(x, w, v) for x (3, 2), w (2, 2) and v (3, 2)")
if not isinstance(result, (tuple, list)) or len(result) != 2:
    fail(f"Expected tanh_layer_vjp to return a pair (grad_x, grad_w), but found {type(result).__name__}: {result!r:.200}.")
check_tensor(result[0], expected_x, what="grad_x for x (3, 2), w (2, 2) and v (3, 2)", requires_grad=False, atol=1e-5)
check_tensor(result[1], expected_w, what="grad_w for x (3, 2), w (2, 2) and v (3, 2)", requires_grad=False, atol=1e-5)
watched = (x.clone().requires_grad_(True), w.clone().requires_grad_(True), v)
result, changed = call_watching_inputs(tanh_layer_vjp, *watched)
check_tensor(result[0], expected_x, what="grad_x when x and w require grad", requires_grad=False, atol=1e-5)
names = {"arg 0": "x", "arg 1": "w", "arg 2": "v"}
check_true(changed == [], "Expected tanh_layer_vjp to leave x, w and v as they were (values, requires_grad and .grad; "
           f"measured in your process), but it changed {', '.join(names.get(c, c) for c in changed)}. "
           "Work on x.detach().clone() and w.detach().clone().")
passed("tanh_layer_vjp")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from instructor.autograd import tanh_layer_products

names = {"arg 0": "x", "arg 1": "w", "arg 2": "v"}


def check_pair(found, x, w, v, label):
    if not isinstance(found, (tuple, list)) or len(found) != 2:
        fail(f"Expected tanh_layer_vjp to return a pair (grad_x, grad_w) for {label}, but found {type(found).__name__}: {found!r:.200}.")
    grad_x, grad_w = tanh_layer_products(x, w, v)
    check_tensor(found[0], grad_x, what=f"grad_x for {label}", requires_grad=False, atol=1e-5)
    check_tensor(found[1], grad_w, what=f"grad_w for {label}", requires_grad=False, atol=1e-5)


gen = torch.Generator().manual_seed(61)


def draw(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=gen, dtype=dtype)


cases = {
    "x (5, 3), w (3, 4) and v (5, 4)": (draw(5, 3), draw(3, 4), draw(5, 4)),
    "a single example: x (1, 3), w (3, 2) and v (1, 2)": (draw(1, 3), draw(3, 2), draw(1, 2)),
    "one output: x (4, 3), w (3, 1) and v (4, 1)": (draw(4, 3), draw(3, 1), draw(4, 1)),
    "an empty batch: x (0, 3), w (3, 2) and v (0, 2)": (torch.zeros(0, 3), draw(3, 2), torch.zeros(0, 2)),
    "float64 x, w and v": (draw(4, 3, dtype=torch.float64), draw(3, 2, dtype=torch.float64), draw(4, 2, dtype=torch.float64)),
    "transposed (non-contiguous) x, w and v": (draw(3, 5).t(), draw(2, 3).t(), draw(2, 5).t()),
    "large values, where tanh is flat": (draw(4, 3) * 10, draw(3, 2) * 10, draw(4, 2)),
}
for label, (x, w, v) in cases.items():
    check_pair(check_runs(tanh_layer_vjp, x, w, v, what=f"tanh_layer_vjp for {label}"), x, w, v, label)

x_held = draw(4, 3).requires_grad_(True)
x_held.grad = torch.full((4, 3), 2.0)
w_held = draw(3, 2).requires_grad_(True)
w_held.grad = torch.full((3, 2), -3.0)
side_cases = {
    "x and w that do not require grad": (draw(4, 3), draw(3, 2), draw(4, 2)),
    "x and w that require grad and already hold a .grad": (x_held, w_held, draw(4, 2)),
    "w that requires grad, x that does not": (draw(4, 3), draw(3, 2).requires_grad_(True), draw(4, 2)),
    "a v that requires grad": (draw(4, 3), draw(3, 2), draw(4, 2).requires_grad_(True)),
}
for label, (x, w, v) in side_cases.items():
    found, changed = check_runs(call_watching_inputs, tanh_layer_vjp, x, w, v, what=f"tanh_layer_vjp for {label}")
    check_pair(found, x, w, v, label)
    check_true(changed == [], f"Expected tanh_layer_vjp to leave x, w and v as they were for {label} (measured in your process), "
               f"but it changed {', '.join(names.get(c, c) for c in changed)} (values, requires_grad or .grad).")

for dev in test_devices():
    x, w, v = draw(4, 3).to(dev), draw(3, 2).to(dev).requires_grad_(True), draw(4, 2).to(dev)
    found, changed = check_runs(call_watching_inputs, tanh_layer_vjp, x, w, v, what=f"tanh_layer_vjp on {dev}")
    check_pair(found, x, w, v, f"tensors on {dev}")
    check_true(changed == [], f"Expected tanh_layer_vjp to leave x, w and v on {dev} as they were (measured in your process), "
               f"but it changed {', '.join(names.get(c, c) for c in changed)}.")
### END HIDDEN TESTS

# %% [markdown]
# ## Gradients through Python control flow
#
# Autograd records operations while they run, so a forward pass may be any Python code: loops,
# `if`s, function calls, early returns. The graph holds the operations that actually ran on this
# call; a branch that did not run leaves no trace, and the next call may record a different graph.
# The gradient is the gradient of the path that was taken.
#
# Here a loop doubles `x` until its norm reaches 100. How many times it runs depends on the values,
# and so does the gradient: after `k` doublings, `y = 2**k * x`.

# %%
def grow(x):
    """Double x until its norm is at least 100; returns the result and the number of doublings."""
    y = x * 2
    doublings = 1
    while y.norm() < 100:
        y = y * 2
        doublings += 1
    return y, doublings


for start in ([1.0, 1.0], [20.0, 20.0]):
    x = torch.tensor(start, device=device, requires_grad=True)
    y, doublings = grow(x)
    y.sum().backward()
    print(f"x = {start}: {doublings} doublings, x.grad = {x.grad.tolist()} (2 ** {doublings} = {2 ** doublings})")

# %% [markdown]
# The comparison `y.norm() < 100` is not part of the gradient: it only decided which operations ran.
# The graph of the second call holds one multiplication node per doubling:

# %%
y, _ = grow(torch.tensor([20.0, 20.0], device=device, requires_grad=True))
draw_graph(y, {"y": y}, title="two doublings: two MulBackward0 nodes")

# %% [markdown]
# An `if` on a tensor asks Python for a single true or false, which works for a tensor with one
# element. To choose entry by entry, use `torch.where(condition, a, b)`: it computes both `a` and
# `b`, takes each entry from one of them, and sends each entry's gradient back into the branch that
# entry came from, and a gradient of 0 into the other branch.

# %%
def leaky(t):
    """A leaky ReLU written with an if: slope 1 above zero, 0.1 below."""
    if t > 0:
        return t
    return 0.1 * t


for value in (2.0, -2.0):
    t = torch.tensor(value, device=device, requires_grad=True)
    (slope,) = torch.autograd.grad(leaky(t), t)
    print(f"leaky at {value}: slope {slope.item():.1f}")

t = torch.tensor([2.0, -2.0, 0.5], device=device, requires_grad=True)
(slopes,) = torch.autograd.grad(torch.where(t > 0, t, 0.1 * t).sum(), t)
print("torch.where, entry by entry:", [round(g, 4) for g in slopes.tolist()])

# %% [markdown]
# That 0 still goes through the branch that was not taken, and is multiplied there by its slope. Where
# that slope is infinite, 0 times infinity is NaN: the slope of `sqrt` at 0 is infinite, so
# `torch.where(t > 0, t.sqrt(), 0.0)` has gradient NaN at `t = 0`, although the value there is a
# plain 0. The fix is a second `where` that keeps the unsafe branch's *input* in its safe range:
# `torch.where(t > 0, torch.where(t > 0, t, 1.0).sqrt(), 0.0)`.

# %%
t = torch.tensor([4.0, 0.0], device=device, requires_grad=True)
(unsafe,) = torch.autograd.grad(torch.where(t > 0, t.sqrt(), 0.0).sum(), t)
(safe,) = torch.autograd.grad(torch.where(t > 0, torch.where(t > 0, t, 1.0).sqrt(), 0.0).sum(), t)
print("one where:   ", unsafe.tolist())
print("double where:", safe.tolist())

# %% [markdown]
# ### Quiz: a gradient through a loop
#
# What does this print?
#
# ```python
# x = torch.tensor(3.0, requires_grad=True)
# y = x
# while y < 100:
#     y = y * 3
# y.backward()
# print(x.grad)
# ```
#
# - **A.** `tensor(81.)`
# - **B.** a `RuntimeError`
# - **C.** `tensor(243.)`
# - **D.** `tensor(0.)`

# %% answer answer_loop_grad quiz=rule
# One upper-case letter as a string, for example "A".
answer_loop_grad = None
### BEGIN SOLUTION
answer_loop_grad = "A"
### END SOLUTION

# %% test answer_loop_grad points=1
from course.quiz import check_choice, form_checked

check_choice(answer_loop_grad, "ABCD", name="answer_loop_grad")
form_checked("answer_loop_grad")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_loop_grad, "A", name="answer_loop_grad",
          why="The loop runs four times (3, 9, 27, 81, then 243 stops it), so the graph records y = x * 3 * 3 * 3 * 3 = 81 * x and x.grad is 81. "
              "Autograd follows whatever operations ran, loops included (not B); 243 is the value of y, not its slope (not C); "
              "the comparison only chose how many multiplications ran, and their slopes are what the gradient is made of (not D).")
### END HIDDEN TESTS

# %% [markdown]
# ### Quiz: a gradient through torch.where
#
# What does this print?
#
# ```python
# x = torch.tensor([0.0, 4.0], requires_grad=True)
# y = torch.where(x > 0, x.log(), 0.0).sum()
# y.backward()
# print(x.grad)
# ```
#
# - **A.** `tensor([0.0000, 0.2500])`
# - **B.** `tensor([nan, 0.2500])`
# - **C.** `tensor([inf, 0.2500])`
# - **D.** a `RuntimeError`

# %% answer answer_where_log_grad quiz=rule
# One upper-case letter as a string, for example "A".
answer_where_log_grad = None
### BEGIN SOLUTION
answer_where_log_grad = "B"
### END SOLUTION

# %% test answer_where_log_grad points=1
from course.quiz import check_choice, form_checked

check_choice(answer_where_log_grad, "ABCD", name="answer_where_log_grad")
form_checked("answer_where_log_grad")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_where_log_grad, "B", name="answer_where_log_grad",
          why='torch.where runs both branches on every entry. log(0) is -inf, which where does not pick, but '
              "backward still sends entry 0's gradient through the log branch as 0, and 0 times log's slope there, "
              '1 / 0 = inf, is nan. Entry 1 gets 1 / 4 = 0.25. Nothing raises: log(0) is -inf, not an error. The '
              'double where (log of torch.where(x > 0, x, 1.0)) keeps the branch that is not picked finite, and '
              'gives [0., 0.25].')
### END HIDDEN TESTS

# %% [markdown]
# ## detach() inside a computation: stopping a gradient
#
# Inside a formula, `detach()` turns a part into a constant: its value is used, but no gradient
# flows back through it. Two classic uses:
#
# - **A target that must not move.** Sometimes the target of a loss is computed from the very
#   parameters being trained (in reinforcement learning, a value estimate is trained toward a target
#   built from the estimate of the next state). The gradient should pull the prediction toward the
#   target, not drag the target along. Detaching the target does that.
# - **The straight-through estimator.** Rounding is flat between its jumps, so its gradient is zero
#   and a network that rounds (to save memory, say) would learn nothing through it. The expression
#   `x + (torch.round(x) - x).detach()` has the *value* of `torch.round(x)` (the two `x` cancel), but
#   autograd only sees the first `x`, so the gradient passes straight through, as if there were no
#   rounding.

# %%
w = torch.tensor(2.0, device=device, requires_grad=True)


def squared_error(hold_target):
    prediction = w * 3.0
    target = w * 2.0 + 1.0  # built from the same parameter
    if hold_target:
        target = target.detach()
    return (prediction - target) ** 2


(moving,) = torch.autograd.grad(squared_error(hold_target=False), w)
(held,) = torch.autograd.grad(squared_error(hold_target=True), w)
print("gradient with the target moving too:", moving.item(), "| with the target detached:", held.item())

x = torch.tensor([0.2, 1.7, -0.6], device=device, requires_grad=True)
(through_round,) = torch.autograd.grad(torch.round(x).sum(), x)
straight = x + (torch.round(x) - x).detach()
(through_trick,) = torch.autograd.grad(straight.sum(), x)
print("values:", straight.tolist(), "| gradient through round:", through_round.tolist(),
      "| through the trick:", through_trick.tolist())

# %% [markdown]
# ### Your turn: `binarize_straight_through`
#
# **To write:** `binarize_straight_through(x)` returns `sign(x)` with the gradient of
# `x.clamp(-1, 1)`.
#
# Networks with binary weights keep only the sign of each number in the forward pass. To train
# them, the backward pass pretends the forward pass was `x.clamp(-1, 1)`: the gradient passes through
# unchanged where `-1 < x < 1`, and is zero where `x` is beyond that range.
#
# Write `binarize_straight_through(x)`: return a tensor with the values of `torch.sign(x)` (x's
# shape, dtype and device) whose gradient with respect to `x` is the gradient of `x.clamp(-1, 1)`.
# Backward through it with an output gradient `v` must give `v` where `-1 < x < 1` and zero where
# `x < -1` or `x > 1`. The result requires grad exactly when `x` does. Leave `x` as it was (values,
# `requires_grad` and `.grad`). `x` may have any shape, 0-d and empty included.

# %% answer binarize_straight_through
def binarize_straight_through(x):
    """torch.sign(x) in the forward pass; the gradient of x.clamp(-1, 1) in the backward pass."""
    ### BEGIN SOLUTION
    soft = x.clamp(-1, 1)
    return soft + (torch.sign(x) - soft).detach()
    ### END SOLUTION

# %% test binarize_straight_through points=2
import torch
from course.checks import check_runs, check_tensor, check_true, fail, passed
from course.probes.autograd import backward_through

x = torch.tensor([-2.5, -0.5, 0.25, 0.75, 3.0], requires_grad=True)
v = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
report = check_runs(backward_through, binarize_straight_through, x, v, what="binarize_straight_through(x) and a backward pass from it")
check_tensor(report["output"], torch.tensor([-1.0, -1.0, 1.0, 1.0, 1.0]), what="binarize_straight_through(x) for x = [-2.5, -0.5, 0.25, 0.75, 3.0]",
             requires_grad=True)
if report["error"] is not None:
    fail(f"Expected a backward pass from binarize_straight_through(x) to reach x, but it gave none: {report['error']}")
check_tensor(report["grad"], torch.tensor([0.0, 2.0, 3.0, 4.0, 0.0]), what="the gradient that reaches x for the output gradient "
             "v = [1, 2, 3, 4, 5] (v where -1 < x < 1, else 0)", requires_grad=False)
check_true(not report["x_changed"], "Expected binarize_straight_through to leave x as it was (values, requires_grad and .grad; measured in "
           "your process), but x changed.")
passed("binarize_straight_through")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from instructor.autograd import check_backward_report

gen = torch.Generator().manual_seed(62)


def draw(*shape, dtype=torch.float32):
    values = torch.randn(*shape, generator=gen, dtype=dtype) * 2
    return torch.where((values.abs() - 1).abs() < 1e-3, values + 0.01, values)  # keep away from the corners at -1 and 1


def check_binarize(x, v, label):
    report = check_runs(backward_through, binarize_straight_through, x, v, what=f"binarize_straight_through for {label}")
    inside = (x.detach() > -1) & (x.detach() < 1)
    check_backward_report(report, x, torch.sign(x.detach()), torch.where(inside, v, torch.zeros_like(v)), item="binarize_straight_through",
                          label=label, grad_note=" (the output gradient where -1 < x < 1, else 0)")


held = draw(3, 4).requires_grad_(True)
held.grad = torch.full((3, 4), 9.0)
cases = {
    "a (3, 4) matrix": draw(3, 4).requires_grad_(True),
    "a matrix that already holds a .grad": held,
    "a 0-d tensor inside (-1, 1)": torch.tensor(0.3, requires_grad=True),
    "a 0-d tensor beyond 1": torch.tensor(-1.7, requires_grad=True),
    "zeros (torch.sign(0) is 0)": torch.zeros(4, requires_grad=True),
    "an empty tensor of shape (0, 3)": torch.zeros(0, 3, requires_grad=True),
    "a float64 tensor": draw(2, 5, dtype=torch.float64).requires_grad_(True),
    "a transposed (non-contiguous) matrix": draw(4, 3).t().detach().requires_grad_(True),
    "a batch of shape (2, 3, 4)": draw(2, 3, 4).requires_grad_(True),
    "x that does not require grad": draw(5),
    "a float64 x that does not require grad": draw(2, 3, dtype=torch.float64),
}
for label, x in cases.items():
    check_binarize(x, torch.randn(x.shape, generator=gen, dtype=x.dtype), label)

for dev in test_devices():
    x = draw(3, 4).to(dev).requires_grad_(True)
    check_binarize(x, torch.randn(3, 4, generator=gen).to(dev), f"a (3, 4) matrix on {dev}")
### END HIDDEN TESTS

# %% [markdown]
# ## In-place changes that break backward
#
# Many backward steps need values from the forward pass: `torch.exp` saves its output (the slope of
# `exp(u)` is `exp(u)` itself), `torch.sigmoid` saves its output too, a product saves its factors.
# If a saved tensor were changed in place before `backward()`, the gradient would be computed from
# the wrong numbers. PyTorch catches that with a **version counter**: every tensor counts the
# in-place changes made to it (`t._version`), each saved tensor remembers the count it had when it
# was saved, and `backward()` raises a `RuntimeError` when the two differ.

# %%
z = torch.tensor([0.5, -1.0, 2.0], device=device, requires_grad=True)
s = torch.sigmoid(z)  # sigmoid's backward needs s itself: its slope is s * (1 - s)
print("version of s after sigmoid:", s._version)
s *= 2  # in place: changes the tensor sigmoid saved
print("version of s after s *= 2: ", s._version)
try:
    s.sum().backward()
except RuntimeError as error:
    print("RuntimeError:", str(error).split(". Hint")[0] + ".")

# %% [markdown]
# The error names the tensor (`output 0 of Sigmoid`) and the two versions. Two fixes:
#
# - Write the step out of place: `s = s * 2` makes a new tensor and leaves the saved one alone.
#   This is the usual fix; it costs memory for one more tensor.
# - Or change a copy: `s = torch.sigmoid(z).clone()`, then `s *= 2` changes the clone, which no
#   backward step saved.
#
# Two things that look like fixes but are not. `with torch.no_grad(): s *= 2` still counts as a
# change: the counter moves whether or not a graph is being recorded. And `s.data *= 2` changes the
# values behind the counter's back: `backward()` runs without an error and silently uses the
# changed values, so the gradient is wrong.

# %%
s = torch.sigmoid(z)
s = s * 2
(right,) = torch.autograd.grad(s.sum(), z)

s = torch.sigmoid(z)
with torch.no_grad():
    s *= 2
try:
    torch.autograd.grad(s.sum(), z)
except RuntimeError:
    print("under no_grad(): the same RuntimeError")

s = torch.sigmoid(z)
s.data *= 2
(silent,) = torch.autograd.grad(s.sum(), z)
print("out of place:", [round(g, 4) for g in right.tolist()])
print("with .data:  ", [round(g, 4) for g in silent.tolist()], "(no error, and wrong)")

# %% [markdown]
# An in-place change is fine when no backward step needs the old values: in `y = x * 1.5` followed
# by `y.add_(1.0)`, the multiplication by a number does not save its output, so `backward()` works.
# The version counter checks exactly the tensors that were saved, and it counts only the changes
# PyTorch makes through a tensor. Two roads get past it: `.data`, as above, and a write through
# memory that a NumPy array shares with the tensor (`.detach().numpy()`, lesson {04_numpy}), which PyTorch
# never sees. Both leave the gradient silently wrong, so when `backward()` does not raise, no saved
# value was changed in place *by a PyTorch operation*; for the rest, do not write into memory that a
# graph may have saved.

# %%
z_cpu = z.detach().cpu().requires_grad_(True)  # .numpy() shares memory only with a CPU tensor
s = torch.sigmoid(z_cpu)
s.detach().numpy()[:] *= 2  # NumPy writes into the memory the graph saved; the counter does not move
(through_numpy,) = torch.autograd.grad(s.sum(), z_cpu)
print("through NumPy:", [round(g, 4) for g in through_numpy.tolist()], "(no error, and wrong)")

# %% [markdown]
#
# ### Your turn: `stable_softmax`
#
# **To write:** `stable_softmax(x)` is the softmax below with its two bugs fixed, written out (no
# `torch.softmax`).
#
# Softmax turns each row of scores into probabilities: the exponential of every entry, divided by
# the sum of the exponentials in that row. This first attempt gives the right numbers for small
# inputs, yet it has two bugs:
#
# ```python
# def softmax_draft(x):
#     e = torch.exp(x)
#     e /= e.sum(dim=-1, keepdim=True)
#     return e
# ```
#
# - A backward pass through it raises the version-counter error: `torch.exp` saved `e`, and `/=`
#   changed it.
# - For large inputs `torch.exp` overflows to `inf` (in float32, past about 88.7), and the result
#   holds `nan`. Softmax does not change when the same number is subtracted from a whole row, so
#   subtract each row's largest entry first: every exponent is then at most 0.
#
# Write `stable_softmax(x)`: the softmax over the last dimension of `x`, with x's shape, dtype and
# device, finite for large inputs, and differentiable: a backward pass through it must give
# softmax's gradient. `x` has at least one dimension, and its last dimension is not empty; other
# dimensions may be, so an empty batch of shape `(0, C)` gives an empty result. `x` may require
# grad (the result then requires grad too); leave it as it was: no in-place change to `x`.
# Write the computation out: `torch.softmax`, `torch.log_softmax` and their other spellings
# (`F.softmax`, `Tensor.softmax`, `nn.Softmax`, ...) are off limits here, and the test notices
# when one of them runs.

# %% answer stable_softmax
def stable_softmax(x):
    """Softmax over the last dimension: finite for large inputs, and autograd can differentiate it."""
    ### BEGIN SOLUTION
    shifted = x - x.max(dim=-1, keepdim=True).values
    e = torch.exp(shifted)
    return e / e.sum(dim=-1, keepdim=True)
    ### END SOLUTION

# %% test stable_softmax points=2
import math

import torch
from course.checks import check_runs, check_tensor, check_true, fail, passed
from course.probes.autograd import backward_through
from course.probes.ops import SOFTMAX_CALLS, call_watching_ops, check_no_library_call

x = torch.tensor([[0.0, math.log(2.0), math.log(5.0)], [1000.0, 1000.0, 998.0]], requires_grad=True)
check_no_library_call(check_runs(call_watching_ops, stable_softmax, SOFTMAX_CALLS, x, what="stable_softmax(x)")[1],
                      item="stable_softmax", what="for rows [0, log 2, log 5] and [1000, 1000, 998]")
v = torch.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
report = check_runs(backward_through, stable_softmax, x, v, what="stable_softmax(x) and a backward pass from it")
e = math.exp(-2.0)
check_tensor(report["output"], torch.tensor([[0.125, 0.25, 0.625], [1 / (2 + e), 1 / (2 + e), e / (2 + e)]]),
             what="stable_softmax(x) for rows [0, log 2, log 5] and [1000, 1000, 998]", requires_grad=True, atol=1e-4)
if report["error"] is not None:
    fail(f"Expected a backward pass through stable_softmax(x) to work, but it gave no gradient: {report['error']}")
p = e / (2 + e)
check_tensor(report["grad"], torch.tensor([[0.109375, -0.03125, -0.078125], [-p / (2 + e), -p / (2 + e), p * (1 - p)]]),
             what="the gradient that reaches x for the output gradient v = [[1, 0, 0], [0, 0, 1]]", requires_grad=False, atol=1e-4)
check_true(not report["x_changed"], "Expected stable_softmax to leave x as it was (values, requires_grad and .grad; measured in your "
           "process), but x changed. Subtract the maximum out of place: x - m, not x -= m.")
passed("stable_softmax")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from instructor.autograd import check_backward_report, softmax_and_vjp

gen = torch.Generator().manual_seed(63)


def check_softmax(x, v, label):
    report = check_runs(backward_through, stable_softmax, x, v, what=f"stable_softmax for {label}")
    output, grad = softmax_and_vjp(x, v)
    check_backward_report(report, x, output, grad, item="stable_softmax", label=label, atol=1e-4,
                          hint=" Subtract the maximum out of place: x - m, not x -= m.")


held = torch.randn(3, 4, generator=gen).requires_grad_(True)
held.grad = torch.full((3, 4), 4.0)
cases = {
    "a (4, 5) matrix": torch.randn(4, 5, generator=gen).requires_grad_(True),
    "a matrix that already holds a .grad": held,
    "a vector of shape (6,)": torch.randn(6, generator=gen).requires_grad_(True),
    "a batch of shape (2, 3, 4)": torch.randn(2, 3, 4, generator=gen).requires_grad_(True),
    "rows of one entry, shape (3, 1)": torch.randn(3, 1, generator=gen).requires_grad_(True),
    "large scores around 500 (exp overflows)": (torch.randn(3, 4, generator=gen) * 100 + 500).requires_grad_(True),
    "large negative scores around -500": (torch.randn(3, 4, generator=gen) * 100 - 500).requires_grad_(True),
    "a float64 matrix with scores around 1000": (torch.randn(2, 5, generator=gen, dtype=torch.float64) * 5 + 1000).requires_grad_(True),
    "a transposed (non-contiguous) matrix": torch.randn(5, 3, generator=gen).t().detach().requires_grad_(True),
    "an empty batch of shape (0, 4)": torch.zeros(0, 4, requires_grad=True),
    "x that does not require grad": torch.randn(3, 4, generator=gen),
    "large scores that do not require grad": torch.randn(3, 4, generator=gen) * 100 + 500,
}
for label, x in cases.items():
    check_softmax(x, torch.randn(x.shape, generator=gen, dtype=x.dtype), label)

for dev in test_devices():
    x = (torch.randn(3, 4, generator=gen) * 100).to(dev).requires_grad_(True)
    check_softmax(x, torch.randn(3, 4, generator=gen).to(dev), f"a (3, 4) matrix on {dev}")
for dev in test_devices():
    batch = torch.randn(2, 3, 5, generator=gen, dtype=torch.float64).to(dev).requires_grad_(True)
    check_no_library_call(check_runs(call_watching_ops, stable_softmax, SOFTMAX_CALLS, batch, what=f"stable_softmax of a (2, 3, 5) float64 batch on {dev}")[1],
                          item="stable_softmax", what=f"for a (2, 3, 5) float64 batch on {dev}")
### END HIDDEN TESTS

# %% [markdown]
# ## Inference under torch.no_grad()
#
# To record a graph, operations save what their backward steps will need. Some of it is in memory
# anyway: the input batch, and the weights (or views of them, such as a weight's transpose). The rest
# are intermediate results, such as a hidden layer's activations: without a graph they would be freed
# as soon as the next layer had used them, but the graph keeps them alive for as long as the result
# is alive. When you only want predictions, no backward pass follows, and that memory (and the time
# spent recording) is wasted.
#
# Here is what autograd saves for a small network. `torch.autograd.graph.saved_tensors_hooks` calls
# its first function with every tensor saved for backward while the block runs, and the graph keeps
# whatever that function returns. (It returns `t.detach()`, as PyTorch's documentation asks: a
# result that the graph held with its own `grad_fn` would form a cycle that is never freed.)

# %%
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10)).to(device)
batch = torch.randn(512, 64, device=device)


def storage_of(t):
    """Where a tensor's memory starts: a view and the tensor it views share it."""
    return t.untyped_storage().data_ptr()


saved = []


def keep(t):
    saved.append(t)
    return t.detach()  # what the graph stores: the same memory, without a link back to the graph


with torch.autograd.graph.saved_tensors_hooks(keep, lambda t: t):
    output = model(batch)
weights = {storage_of(p) for p in model.parameters()}
for t in saved:
    kind = "the input batch" if storage_of(t) == storage_of(batch) else "a weight" if storage_of(t) in weights else "an intermediate result"
    print(f"saved a tensor of shape {tuple(t.shape)}: {kind}")
saved.clear()

# %% [markdown]
# The hidden activations `(512, 256)` are saved twice (by the ReLU and by the second layer), but
# they are one block of memory. The helper below adds up the memory that only the graph keeps
# alive: each block once, leaving out the tensors you name as alive anyway. It works on the CPU and
# on a GPU alike.
#
# Inside `with torch.no_grad():` autograd records nothing: results do not require grad and have no
# `grad_fn`, and nothing is saved.

# %%
def memory_kept_by_graph(run, *alive):
    """Run `run()`; returns (its result, the bytes of saved tensors that are not part of `alive`).

    Each block of memory counts once, however many operations save it, and a view counts as the
    tensor it views.
    """
    skip = {storage_of(t) for t in alive}
    kept = {}

    def pack(t):
        if storage_of(t) not in skip:
            kept[storage_of(t)] = t.untyped_storage().nbytes()
        return t.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        result = run()
    return result, sum(kept.values())


def forward_without_graph():
    with torch.no_grad():
        return model(batch)


alive = (batch, *model.parameters())
plain, kept_plain = memory_kept_by_graph(lambda: model(batch), *alive)
quiet, kept_quiet = memory_kept_by_graph(forward_without_graph, *alive)
print(f"model(batch):                 requires_grad={plain.requires_grad}, kept alive by the graph: {kept_plain:,} bytes")
print(f"model(batch) under no_grad(): requires_grad={quiet.requires_grad}, kept alive by the graph: {kept_quiet:,} bytes")
print(f"the hidden activations, 512 * 256 float32 numbers: {512 * 256 * 4:,} bytes")
print("same values:", torch.allclose(plain, quiet))

# %% [markdown]
# The outputs are equal; only the bookkeeping differs. The picture of the result computed under
# `no_grad()` has nothing to walk:

# %%
draw_graph(quiet, {"prediction": quiet})

# %% [markdown]
# Three things that look similar but are not the same:
#
# - `model(x).detach()` gives the same numbers, but the graph *was* built during the forward pass
#   (and its memory used) before being dropped.
# - `model.eval()` switches layers such as dropout and batch norm to their evaluation behaviour. It
#   does not stop autograd; for evaluation you usually want both `model.eval()` and `no_grad()`.
# - `torch.inference_mode()` is a stricter, slightly faster cousin of `no_grad()`: its results are
#   marked as inference tensors, which autograd refuses to save for a backward pass later.
#   `@torch.no_grad()` also works as a decorator on a whole function.

# %%
_, kept_detach = memory_kept_by_graph(lambda: model(batch).detach(), *alive)
print(f"model(batch).detach(): kept alive by the graph while it ran: {kept_detach:,} bytes")
model.eval()
still_recording = model(batch).requires_grad
model.train()
print("after model.eval() alone, model(batch).requires_grad is", still_recording)

# %% [markdown]
# ### Your turn: `predict`
#
# **To write:** `predict(model, x)` returns `model(x)` without recording a graph.
#
# Return `model(x)` computed without recording a graph: equal to `model(x)`, not requiring grad,
# and without touching any parameter's `.grad`. Predicting must not disturb a training run in
# progress: do not clear the gradients (`zero_grad()`), and do not switch gradients off for the rest
# of the program (`torch.set_grad_enabled(False)` on its own line would).

# %% answer predict
def predict(model, x):
    """model(x) without recording a graph: for inference, where no backward pass follows."""
    ### BEGIN SOLUTION
    with torch.no_grad():
        return model(x)
    ### END SOLUTION

# %% test predict points=2
import torch
from course.checks import check_runs, check_tensor, check_true, passed
from course.probes.autograd import build_model, predict_probe

x = torch.randn(4, 3, generator=torch.Generator().manual_seed(0))
report = predict_probe(predict, 0, 3, 2, x)
with torch.no_grad():
    expected = build_model(0, 3, 2)(x)
check_tensor(report["output"], expected, what="predict(model, x) for nn.Linear(3, 2) and a batch of 4", requires_grad=False)
check_true(not report["graph_recorded"], "Expected predict to record no graph (run the model inside `with torch.no_grad():`), "
           "but autograd saved tensors for a backward pass during the call (measured in your process).")
passed("predict")
### BEGIN HIDDEN TESTS
from course.device import test_devices

gen = torch.Generator().manual_seed(26)


def check_report(report, expected, label):
    check_tensor(report["output"], expected, what=f"predict(model, x) for {label}", requires_grad=False, atol=1e-5)
    check_true(not report["graph_recorded"], f"Expected predict to record no graph for {label}, but autograd saved tensors "
               "for a backward pass during the call (measured in your process). detach() after the forward pass is too late.")
    check_true(not report["grads_touched"], f"Expected predict to leave every parameter's .grad as it was for {label} "
               "(measured in your process), but a .grad changed. Predicting must not clear or add to gradients.")
    check_true(not report["weights_changed"], f"Expected predict to leave the model's weights as they were for {label}, but they changed.")
    check_true(not report["x_changed"], f"Expected predict to leave x as it was for {label}, but x changed.")
    check_true(report["grad_mode_restored"], f"Expected gradient recording to be switched on again after predict returns ({label}), "
               "but it stayed off: use `with torch.no_grad():`, which restores it, not torch.set_grad_enabled(False).")


cases = {
    "a network with a hidden layer, parameters holding a .grad": (dict(seed=1, in_features=5, out_features=3, hidden=8), torch.randn(6, 5, generator=gen), True),
    "a single sample of shape (3,)": (dict(seed=2, in_features=3, out_features=2), torch.randn(3, generator=gen), False),
    "an empty batch of shape (0, 3)": (dict(seed=3, in_features=3, out_features=2), torch.zeros(0, 3), True),
    "an input that requires grad": (dict(seed=4, in_features=3, out_features=2, hidden=4), torch.randn(2, 3, generator=gen).requires_grad_(True), False),
    "a float64 model and input": (dict(seed=5, in_features=3, out_features=2), torch.randn(2, 3, generator=gen, dtype=torch.float64), True),
}
for label, (sizes, x, preset) in cases.items():
    report = check_runs(predict_probe, predict, sizes["seed"], sizes["in_features"], sizes["out_features"], x,
                        hidden=sizes.get("hidden", 0), preset_grads=preset, what=f"predict for {label}")
    with torch.no_grad():
        expected = build_model(sizes["seed"], sizes["in_features"], sizes["out_features"], sizes.get("hidden", 0), dtype=x.dtype)(x)
    check_report(report, expected, label)

for dev in test_devices():
    x = torch.randn(4, 3, generator=gen).to(dev)
    report = check_runs(predict_probe, predict, 7, 3, 2, x, hidden=5, preset_grads=True, what=f"predict for a model and input on {dev}")
    with torch.no_grad():
        expected = build_model(7, 3, 2, 5, device=dev)(x)
    check_report(report, expected, f"a model and input on {dev}")
### END HIDDEN TESTS

# %% [markdown]
# ### Quiz: why no_grad() at inference
#
# Why does inference code usually run inside `with torch.no_grad():`?
#
# - **A.** Without it the model's outputs would be computed wrongly.
# - **B.** It switches dropout and batch norm layers to their evaluation behaviour.
# - **C.** It sets every parameter's `.grad` to zero before the forward pass.
# - **D.** Autograd records no graph inside it and so saves memory and time.

# %% answer answer_no_grad_purpose quiz=recall
# One upper-case letter as a string, for example "A".
answer_no_grad_purpose = None
### BEGIN SOLUTION
answer_no_grad_purpose = "D"
### END SOLUTION

# %% test answer_no_grad_purpose points=1
from course.quiz import check_choice, form_checked

check_choice(answer_no_grad_purpose, "ABCD", name="answer_no_grad_purpose")
form_checked("answer_no_grad_purpose")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_no_grad_purpose, "D", name="answer_no_grad_purpose",
          why="Under no_grad() autograd builds no graph, so it saves nothing for backward: the forward pass needs less memory and time. The outputs are the same values either way (not A); switching dropout and batch norm is model.eval() (not B); clearing gradients is zero_grad() (not C).")
### END HIDDEN TESTS

# %% [markdown]
# ## Freezing parameters
#
# Sometimes only part of a model should learn. To adapt a trained network to a new task, a common
# recipe keeps its body (the layers that turn an input into features) as it is and trains only a new
# last layer, the head. That is **freezing**: switch a parameter's flag off with
# `p.requires_grad_(False)`, or `module.requires_grad_(False)` for every parameter of a module.
# `backward()` then computes no gradient for it: its `.grad` stays as it was, `None` if it never had
# one. The optimizers in `torch.optim` skip parameters whose `.grad` is `None`, so then a step leaves
# it as it was. The update below does what `torch.optim.SGD`'s step does, written out.

# %%
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)).to(device)
net[0].requires_grad_(False)  # freeze the body: the first layer's weight and bias
before = [p.detach().clone() for p in net.parameters()]
net(torch.randn(16, 4, device=device)).pow(2).mean().backward()
with torch.no_grad():
    for p in net.parameters():
        if p.grad is not None:  # skipped: the frozen parameters, which got no .grad
            p -= 0.1 * p.grad
for (name, p), old in zip(net.named_parameters(), before):
    print(f"{name:8}  requires_grad={p.requires_grad!s:5}  .grad is None: {p.grad is None!s:5}  changed by the step: {not torch.equal(p, old)}")

trainable = sum(p.numel() for p in net.parameters() if p.requires_grad)
print("trainable entries:", trainable, "of", sum(p.numel() for p in net.parameters()))

# %% [markdown]
# Freezing stops *new* gradients; it does not clear an old one. A parameter frozen after a
# `backward()` and before `zero_grad()` keeps that `.grad`, and `opt.step()` still moves it with
# it. So freeze before the first `backward()`, or clear `.grad` as you freeze (`p.grad = None`;
# `optimizer.zero_grad()` does that by default).

# %% [markdown]
# ### Quiz: frozen between backward and step
#
# What does this print?
#
# ```python
# w = torch.tensor([1.0, 1.0], requires_grad=True)
# opt = torch.optim.SGD([w], lr=0.5)
# (w * torch.tensor([2.0, 4.0])).sum().backward()
# w.requires_grad_(False)
# opt.step()
# print(w)
# ```
#
# - **A.** `tensor([1., 1.])`
# - **B.** `tensor([ 0., -1.])`
# - **C.** a `RuntimeError` from `opt.step()`
# - **D.** `tensor([2., 3.])`

# %% answer answer_freeze_step quiz=rule
# One upper-case letter as a string, for example "A".
answer_freeze_step = None
### BEGIN SOLUTION
answer_freeze_step = "B"
### END SOLUTION

# %% test answer_freeze_step points=1
from course.quiz import check_choice, form_checked

check_choice(answer_freeze_step, "ABCD", name="answer_freeze_step")
form_checked("answer_freeze_step")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_freeze_step, "B", name="answer_freeze_step",
          why='backward() filled w.grad with [2., 4.] before w was frozen, and freezing does not clear it. SGD '
              'steps every parameter that has a .grad, whatever its flag: w - 0.5 * [2., 4.] = [0., -1.]. It does '
              'not raise (not C), and it steps against the gradient, down the slope (not D). Freeze before '
              'backward(), or clear .grad as you freeze.')
### END HIDDEN TESTS

# %%
torch.manual_seed(0)
late = nn.Linear(4, 2).to(device)
opt = torch.optim.SGD(late.parameters(), lr=0.1)
late(torch.randn(8, 4, device=device)).sum().backward()
late.requires_grad_(False)  # frozen too late: .grad already holds a gradient
old = late.weight.detach().clone()
opt.step()
print("frozen after backward(), changed by opt.step():", not torch.equal(late.weight, old))

# %% [markdown]
# The count of trainable entries is worth printing whenever you freeze: it shows at a glance that
# you froze what you meant to. Many people also give the optimizer only the trainable parameters,
# `torch.optim.SGD([p for p in net.parameters() if p.requires_grad], lr=0.1)`, which says the same
# thing in a second place.
#
# Three things that do **not** freeze a parameter:
#
# - `p.detach()` returns a new tensor and leaves `p`, and its flag, as they were;
# - `with torch.no_grad():` affects only the code inside the block, not the model;
# - `model.eval()` changes how layers such as dropout and batch norm behave, not which parameters learn.

# %%
head = net[2]
head.weight.detach()
print("after head.weight.detach(): requires_grad =", head.weight.requires_grad)
net.eval()
flag_in_eval_mode = head.weight.requires_grad
net.train()
print("after net.eval():           requires_grad =", flag_in_eval_mode)

# %% [markdown]
# ### Your turn: `freeze_all_but_last`
#
# **To write:** `freeze_all_but_last(model)` leaves only the last layer of an `nn.Sequential`
# trainable and returns its number of trainable entries.
#
# `model` is an `nn.Sequential` whose last layer, `model[-1]`, is an `nn.Linear` (with or without a
# bias). Freeze every parameter of the model except those of its last layer, and make sure the last
# layer's parameters are trainable (`requires_grad` True), whatever the flags were before: some
# parameters, the last layer's included, may already be frozen when the model is handed to you.
# Change the flags of the parameters the model holds (do not replace them), and leave their values
# as they were. Return the number of trainable entries left, as an int: the sum of `numel()` over
# the parameters that require grad. A model with a single layer keeps all of it trainable.

# %% answer freeze_all_but_last
def freeze_all_but_last(model):
    """Freeze every parameter but those of model[-1]; returns how many entries stay trainable."""
    ### BEGIN SOLUTION
    model.requires_grad_(False)
    model[-1].requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
    ### END SOLUTION

# %% test freeze_all_but_last points=2
import numpy as np
import torch
from course.checks import check_equal, check_runs, check_true, passed
from course.probes.autograd import freeze_probe

report = check_runs(freeze_probe, freeze_all_but_last, 0, [4, 3, 2],
                    what="freeze_all_but_last on nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2))")
flags = dict(zip(report["names"], report["requires_grad"]))
check_equal(flags, {"0.weight": False, "0.bias": False, "2.weight": True, "2.bias": True},
            what="each parameter's requires_grad after freeze_all_but_last (by name) for "
                 "nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2))")
count = report["result"]
check_true(isinstance(count, (int, np.integer)) and not isinstance(count, bool) and count == 8,
           "Expected freeze_all_but_last to return the number of trainable entries as an int, 8 (the last layer's 3 * 2 weights and "
           f"2 biases), but found {type(count).__name__} {count!r:.100}.")
check_true(not report["values_changed"], "Expected freeze_all_but_last to leave the parameters' values as they were (measured in your "
           "process), but some changed.")
passed("freeze_all_but_last")
### BEGIN HIDDEN TESTS
from course.device import test_devices
from course.probes.autograd import build_stack


def seen(flag):
    return "a parameter that is no longer a plain tensor" if flag is None else flag


def check_frozen(label, seed, sizes, **options):
    report = check_runs(freeze_probe, freeze_all_but_last, seed, sizes, **options, what=f"freeze_all_but_last on {label}")
    model = build_stack(seed, sizes, **{k: v for k, v in options.items() if k not in ("device", "dtype")})
    last = f"{len(model) - 1}."
    wanted = {name: name.startswith(last) for name, _ in model.named_parameters()}
    found = dict(zip(report["names"], report["requires_grad"]))
    wrong = [name for name in wanted if found.get(name) != wanted[name]]
    check_true(not wrong, f"Expected exactly the last layer's parameters to require grad after freeze_all_but_last on {label}, "
               "but these are wrong: " + ", ".join(f"{n} (expected requires_grad={wanted[n]}, found {seen(found.get(n))})" for n in wrong) + ".")
    count, expected = report["result"], sum(p.numel() for p in model[-1].parameters())
    check_true(isinstance(count, (int, np.integer)) and not isinstance(count, bool),
               f"Expected freeze_all_but_last to return the number of trainable entries as an int for {label}, "
               f"but found {type(count).__name__}: {count!r:.100}." + (" Use .item() to turn a tensor into an int." if torch.is_tensor(count) else ""))
    check_equal(int(count), expected, what=f"the number of trainable entries returned for {label} (the last layer's)")
    check_true(not report["values_changed"], f"Expected freeze_all_but_last to leave the parameters' values as they were for {label} "
               "(measured in your process), but some changed.")


check_frozen("a network with two hidden layers and LayerNorm", 1, [5, 8, 6, 3], layer_norm=True)
check_frozen("a last layer without a bias", 2, [4, 6, 3], head_bias=False)
check_frozen("a model whose parameters were all frozen before the call", 3, [4, 5, 2], frozen_before="all")
check_frozen("a model whose last layer was frozen before the call", 4, [3, 7, 7, 2], frozen_before="head")
check_frozen("a model whose first layer was frozen before the call", 5, [3, 4, 2], frozen_before="first")
check_frozen("a model with a single nn.Linear layer", 6, [5, 3])
check_frozen("a single layer without a bias, frozen before the call", 7, [4, 2], head_bias=False, frozen_before="all")
check_frozen("a float64 model", 8, [4, 5, 3], dtype=torch.float64)
for dev in test_devices():
    check_frozen(f"a model on {dev}", 9, [4, 6, 2], device=dev)
### END HIDDEN TESTS

# %% [markdown]
# ## Common mistakes
#
# ### Forgetting torch.no_grad() at inference
#
# Without `no_grad()`, every output you keep also keeps its graph, and with it the tensors saved for
# backward. Collecting predictions over many batches in a list then holds all of those graphs at
# once; on a GPU this is a classic way to run out of memory during evaluation.

# %%
kept_outputs, total_plain = [], 0
for _ in range(5):
    out, kept = memory_kept_by_graph(lambda: model(batch), *alive)
    kept_outputs.append(out)
    total_plain += kept
print(f"5 batches without no_grad(): {total_plain:,} bytes held by graphs while the outputs are kept")

kept_outputs, total_quiet = [], 0
for _ in range(5):
    out, kept = memory_kept_by_graph(forward_without_graph, *alive)
    kept_outputs.append(out)
    total_quiet += kept
print(f"5 batches under no_grad():   {total_quiet:,} bytes")

if torch.cuda.is_available():
    kept_outputs = []
    before = torch.cuda.memory_allocated()
    kept_outputs = [model(batch) for _ in range(5)]
    print(f"GPU memory held by 5 outputs with their graphs: {torch.cuda.memory_allocated() - before:,} bytes")
    kept_outputs = []
    before = torch.cuda.memory_allocated()
    kept_outputs = [forward_without_graph() for _ in range(5)]
    print(f"GPU memory held by 5 outputs under no_grad():   {torch.cuda.memory_allocated() - before:,} bytes")

# %% [markdown]
# ### Forgetting to zero the gradients
#
# Here is gradient descent on the classic example's loss. The weights are updated inside `no_grad()` (an
# update is not part of the model, so it must not be recorded). Without clearing `.grad`, each step
# uses the sum of all gradients so far, and the steps grow.

# %%
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)


def descend(steps, clear):
    """Gradient descent on (x @ w).sum(); returns the gradient used at each step."""
    w = torch.tensor([[0.5], [0.5]], device=device, requires_grad=True)
    used = []
    for _ in range(steps):
        if clear:
            w.grad = None
        (x @ w).sum().backward()
        used.append(w.grad.flatten().tolist())
        with torch.no_grad():
            w -= 0.1 * w.grad
    return used


print("gradients used, clearing each step:", descend(3, clear=True))
print("gradients used, never clearing:    ", descend(3, clear=False))

# %% [markdown]
# ### Updating a weight outside torch.no_grad()
#
# An in-place change to a leaf that requires grad would have to be part of the graph, which makes no
# sense for an update; PyTorch refuses it.

# %%
w = torch.tensor([[0.5], [0.5]], device=device, requires_grad=True)
(x @ w).sum().backward()
try:
    w -= 0.1 * w.grad
except RuntimeError as error:
    print("RuntimeError:", error)

# %% [markdown]
# ### More slips
#
# - `backward()` on a result with more than one number fails: reduce it to a scalar first (a loss is
#   a sum or a mean), or pass an output gradient of the result's shape (`backward(gradient=v)`).
# - `.grad` of a result (not a leaf) stays `None`: gradients are kept for leaves only. Call
#   `result.retain_grad()` before `backward()` if you really need one.
# - `model.eval()` does not switch autograd off; `torch.no_grad()` does.

# %%
w = torch.tensor([[0.5], [0.5]], device=device, requires_grad=True)
out = x @ w
try:
    out.backward()
except RuntimeError as error:
    print("RuntimeError:", error)

out.retain_grad()
out.sum().backward()
print("out.grad after retain_grad():", out.grad.flatten().tolist())

# %% [markdown]
# **Try it:** in `descend`, replace `w.grad = None` with `w.grad.zero_()`. What goes wrong on the
# first step, and why? (Hint: what is `.grad` before the first `backward()`?)

# %% [markdown]
# ## Recap
#
# - `requires_grad=True` asks autograd to watch a tensor; weights need it, data does not. Tensors you
#   make are leaves; results of watched operations are not.
# - Each result's `grad_fn` is a node of the graph, and `next_functions` links it to the nodes before
#   it, down to `AccumulateGrad` nodes that write into leaves' `.grad`.
# - `backward()` walks that graph in reverse, applying the chain rule, and **adds** into `.grad` of
#   every leaf that requires grad. In the classic example, `weight.grad` is the column sums of `x`:
#   `[[4.], [6.]]`.
# - Clear gradients before each backward pass: `.grad.zero_()`, `.grad = None`, or
#   `optimizer.zero_grad()`.
# - `detach()` takes a tensor off the graph (sharing memory); `torch.autograd.grad` returns a
#   gradient without writing `.grad`.
# - For a result with many numbers, autograd computes a vector-Jacobian product: the gradient of
#   `(y * v).sum()`, with `v` given as `backward(gradient=v)` or `grad_outputs=v`.
# - The graph records the operations that ran, so loops and `if`s are differentiated along the path
#   taken.
# - Inside a formula, `detach()` makes a part a constant: a target that must not move, or a
#   straight-through gradient.
# - An in-place change to a tensor that a backward step saved makes `backward()` raise (the version
#   counter). Write the step out of place, or change a clone; `.data` only hides the error.
# - Run inference inside `torch.no_grad()`: no graph, no intermediate results kept alive, the same
#   outputs.
# - Freeze a parameter with `requires_grad_(False)`: it gets no `.grad`, and the optimizer leaves it
#   as it was. `detach()`, `no_grad()` and `eval()` do not freeze.
