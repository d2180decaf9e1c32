# %% [markdown]
# # Lesson 6: automatic differentiation
#
# Training a network means asking, for every weight, "if I nudge this number, how does the loss
# change?" That number is a gradient, and PyTorch's **autograd** computes all of them for you.
#
# **You will learn to**
#
# - flag the tensors autograd should watch with `requires_grad`, and tell leaves (`is_leaf`) from results;
# - read the graph autograd records: `grad_fn` and its `next_functions`, drawn as a picture;
# - run `backward()`, read `.grad`, and work the first seed's `weight.grad` out by hand;
# - check a gradient by nudging the input (finite differences);
# - explain why `.grad` adds up, and clear it with `zero_()`;
# - take tensors off the graph with `detach()` and compute gradients without side effects;
# - run inference under `torch.no_grad()`, and measure the memory a graph would have kept.

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
# `backward()` needs a single number to start from: call it on a 0-d result such as a sum or a mean
# (a loss always is one).
#
# ### The first seed's example by hand
#
# The first seed computes `loss = (x @ weight).sum()` with `x = [[1, 2], [3, 4]]` and
# `weight = [[0.5], [0.5]]`, then prints `weight.grad`. Write `w0` and `w1` for the two weights.
# Row `i` of `x @ weight` is `x[i, 0] * w0 + x[i, 1] * w1`, so
#
# `loss = w0 * (x[0, 0] + x[1, 0]) + w1 * (x[0, 1] + x[1, 1])`.
#
# The loss is a straight line in each weight, and its slope in `w0` is what multiplies `w0`: the sum
# of the first column of `x`. Likewise the slope in `w1` is the sum of the second column. The
# values of the weights do not appear at all. Work out the two numbers before you read on.

# %% [markdown]
# ### Quiz: the first seed's weight.grad
#
# With `x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])`,
# `weight = torch.tensor([[0.5], [0.5]], requires_grad=True)`, `loss = (x @ weight).sum()` and
# `loss.backward()`, what is `weight.grad`? Answer with nested lists of floats shaped like `weight`
# (two rows, one column each).

# %% answer answer_seed_weight_grad
# Nested lists of floats shaped like weight, for example [[1.0], [2.0]].
answer_seed_weight_grad = None
### BEGIN SOLUTION
answer_seed_weight_grad = [[4.0], [6.0]]
### END SOLUTION

# %% test answer_seed_weight_grad points=1
from course.checks import passed
from course.quiz import check_nested_floats

check_nested_floats(answer_seed_weight_grad, name="answer_seed_weight_grad", shape=(2, 1))
passed("answer_seed_weight_grad", "(Only the form is checked here.)")
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
# `backward()` never overwrites `.grad`: it adds to it. Run the same forward and backward pass
# three times and the gradient grows.

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
# `backward()` twice on the *same* graph fails instead: the first call frees the values the graph
# saved for it. (`loss.backward(retain_graph=True)` keeps them, when you really need a second pass.)

# %%
loss = (x @ weight).sum()
loss.backward()
try:
    loss.backward()
except RuntimeError as error:
    print("RuntimeError:", str(error).split(". ")[0] + ".")

# %% [markdown]
# ### Quiz: backward twice
#
# What does this print?
#
# ```python
# x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
# weight = torch.tensor([[0.5], [0.5]], requires_grad=True)
# for _ in range(2):
#     loss = (x @ weight).sum()
#     loss.backward()
# print(weight.grad)
# ```
#
# - **A.** `tensor([[4.], [6.]])`: the second `backward()` replaces the first result.
# - **B.** a `RuntimeError`: the first `backward()` freed the graph.
# - **C.** `tensor([[8.], [12.]])`: the two gradients are added together.
# - **D.** `None`: `.grad` is cleared when the next `backward()` starts.

# %% answer answer_backward_twice
# One upper-case letter as a string, for example "A".
answer_backward_twice = None
### BEGIN SOLUTION
answer_backward_twice = "C"
### END SOLUTION

# %% test answer_backward_twice points=1
from course.checks import passed
from course.quiz import check_choice

check_choice(answer_backward_twice, "ABCD", name="answer_backward_twice")
passed("answer_backward_twice", "(Only the form is checked here.)")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_backward_twice, "C", name="answer_backward_twice",
          why="backward() adds into .grad and never overwrites it, so two passes give [[4.], [6.]] + [[4.], [6.]] = [[8.], [12.]]. There is no error, because each pass of the loop builds a new graph; clear .grad (zero_() or optimizer.zero_grad()) when you want a fresh gradient.")
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
# `.detach().cpu().numpy()` works whether the tensor lives on the CPU or on a GPU.

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
from course.checks import check_tensor, check_true, passed
from course.probes.core import call_watching_inputs

x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
expected = torch.tensor([[4.0], [6.0]])
check_tensor(linear_weight_grad(x, torch.tensor([[0.5], [0.5]])), expected,
             what="the gradient for the first seed's x and weight", requires_grad=False)
w = torch.tensor([[0.5], [0.5]], requires_grad=True)
result, changed = call_watching_inputs(linear_weight_grad, x, w)
check_tensor(result, expected, what="the gradient when w requires grad", requires_grad=False)
check_true(changed == [], "Expected linear_weight_grad to leave x and w as they were (values, requires_grad and .grad; "
           f"measured in your process), but it changed {', '.join(changed).replace('arg 0', 'x').replace('arg 1', 'w')}. "
           "Work on w.detach().clone() instead of w.")
passed("linear_weight_grad")
### BEGIN HIDDEN TESTS
from instructor.autograd import check_grad_by_finite_differences
from course.device import test_devices


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
    check_tensor(linear_weight_grad(x, w), reference_grad(x, w), what=f"the gradient for {label}", requires_grad=False, atol=1e-5)

x, w = cases["x of shape (5, 3) and w of shape (3, 4)"]
check_grad_by_finite_differences(linear_weight_grad(x, w), lambda v: (x.double() @ v).sum(), w,
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
    result, changed = call_watching_inputs(linear_weight_grad, x, w)
    check_tensor(result, reference_grad(x, w), what=f"the gradient for {label}", requires_grad=False, atol=1e-5)
    check_true(changed == [], f"Expected linear_weight_grad to leave x and w as they were for {label} (measured in your process), "
               f"but it changed {', '.join(changed).replace('arg 0', 'x').replace('arg 1', 'w')} (values, requires_grad or .grad).")

for dev in test_devices():
    x = torch.randn(4, 3, generator=gen).to(dev)
    w = torch.randn(3, 2, generator=gen).to(dev).requires_grad_(True)
    result, changed = call_watching_inputs(linear_weight_grad, x, w)
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
# Return the gradient of a scalar-valued function `f` at `x`: a tensor shaped like `x` that does
# not require grad. `f` takes a tensor shaped like `x` and returns a 0-d tensor. Leave `x` as it was
# (values, `requires_grad` and `.grad`), whether or not it requires grad.

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
from course.checks import check_tensor, check_true, passed
from course.probes.autograd import grad_of_named

x = torch.tensor([1.0, -2.0, 3.0])
result, x_changed = grad_of_named(grad_of, "sum_of_squares", x)
check_tensor(result, 2 * x, what="grad_of(f, x) for f(x) = (x * x).sum() at x = [1., -2., 3.] (it is 2 * x)", requires_grad=False)
check_true(not x_changed, "Expected grad_of to leave x as it was (measured in your process), but x changed "
           "(its values, requires_grad or .grad). Work on x.detach().clone() instead of x.")
passed("grad_of")
### BEGIN HIDDEN TESTS
from instructor.autograd import check_grad_by_finite_differences
from course.device import test_devices
from course.probes.autograd import NAMED_FUNCTIONS


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
        result, x_changed = grad_of_named(grad_of, name, x)
        check_tensor(result, reference_grad(name, x), what=f"the gradient of {name} at {label}", requires_grad=False, atol=1e-5)
        check_true(not x_changed, f"Expected grad_of to leave x as it was for {name} at {label} (measured in your process), "
                   "but x changed (its values, requires_grad or .grad).")
    x = torch.randn(2, 3, generator=gen, dtype=torch.float64)
    check_grad_by_finite_differences(grad_of_named(grad_of, name, x)[0], NAMED_FUNCTIONS[name], x,
                                     what=f"the gradient of {name} at a float64 matrix")

for dev in test_devices():
    x = torch.randn(3, 2, generator=gen).to(dev)
    result, x_changed = grad_of_named(grad_of, "quadratic_form", x)
    check_tensor(result, reference_grad("quadratic_form", x), what=f"the gradient of quadratic_form on {dev}", requires_grad=False, atol=1e-5)
    check_true(not x_changed, f"Expected grad_of to leave x on {dev} as it was (measured in your process), but x changed.")
### END HIDDEN TESTS

# %% [markdown]
# ## Inference under torch.no_grad()
#
# To record a graph, every operation saves what its backward step will need (often its input, or
# its output). Those saved tensors stay in memory as long as the result is alive. When you only want
# predictions, no backward pass follows, and all of that is wasted memory and time.
#
# Inside `with torch.no_grad():` autograd records nothing: results do not require grad and have no
# `grad_fn`. The helper below measures how many bytes autograd saves for backward while a piece of
# code runs (it works on the CPU and on a GPU alike).

# %%
def bytes_saved_for_backward(run):
    """Run `run()` and add up the bytes autograd saves for a later backward pass; returns (result, bytes)."""
    total = 0

    def pack(t):
        nonlocal total
        total += t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        result = run()
    return result, total


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10)).to(device)
batch = torch.randn(512, 64, device=device)


def forward_without_graph():
    with torch.no_grad():
        return model(batch)


plain, kept_plain = bytes_saved_for_backward(lambda: model(batch))
quiet, kept_quiet = bytes_saved_for_backward(forward_without_graph)
print(f"model(batch):                 requires_grad={plain.requires_grad}, saved for backward: {kept_plain:,} bytes")
print(f"model(batch) under no_grad(): requires_grad={quiet.requires_grad}, saved for backward: {kept_quiet:,} bytes")
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
_, kept_detach = bytes_saved_for_backward(lambda: model(batch).detach())
print(f"model(batch).detach(): saved for backward while it ran: {kept_detach:,} bytes")
model.eval()
still_recording = model(batch).requires_grad
model.train()
print("after model.eval() alone, model(batch).requires_grad is", still_recording)

# %% [markdown]
# ### Your turn: `predict`
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
from course.checks import check_tensor, check_true, passed
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
    report = predict_probe(predict, sizes["seed"], sizes["in_features"], sizes["out_features"], x,
                           hidden=sizes.get("hidden", 0), preset_grads=preset)
    with torch.no_grad():
        expected = build_model(sizes["seed"], sizes["in_features"], sizes["out_features"], sizes.get("hidden", 0), dtype=x.dtype)(x)
    check_report(report, expected, label)

for dev in test_devices():
    x = torch.randn(4, 3, generator=gen).to(dev)
    report = predict_probe(predict, 7, 3, 2, x, hidden=5, preset_grads=True)
    with torch.no_grad():
        expected = build_model(7, 3, 2, 5, device=dev)(x)
    check_report(report, expected, f"a model and input on {dev}")
### END HIDDEN TESTS

# %% [markdown]
# ### Quiz: why no_grad() at inference
#
# Why does inference code usually run inside `with torch.no_grad():`?
#
# - **A.** Without it, the model's outputs would be computed wrongly.
# - **B.** It switches dropout and batch norm layers to their evaluation behaviour.
# - **C.** It sets every parameter's `.grad` to zero before the forward pass.
# - **D.** Autograd records no graph inside it, so no tensors are saved for a backward pass: less memory and less time.

# %% answer answer_no_grad_purpose
# One upper-case letter as a string, for example "A".
answer_no_grad_purpose = None
### BEGIN SOLUTION
answer_no_grad_purpose = "D"
### END SOLUTION

# %% test answer_no_grad_purpose points=1
from course.checks import passed
from course.quiz import check_choice

check_choice(answer_no_grad_purpose, "ABCD", name="answer_no_grad_purpose")
passed("answer_no_grad_purpose", "(Only the form is checked here.)")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_no_grad_purpose, "D", name="answer_no_grad_purpose",
          why="Under no_grad() autograd builds no graph, so it saves nothing for backward: the forward pass needs less memory and time. The outputs are the same values either way (not A); switching dropout and batch norm is model.eval() (not B); clearing gradients is zero_grad() (not C).")
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
    out, kept = bytes_saved_for_backward(lambda: model(batch))
    kept_outputs.append(out)
    total_plain += kept
print(f"5 batches without no_grad(): {total_plain:,} bytes held by graphs while the outputs are kept")

kept_outputs, total_quiet = [], 0
for _ in range(5):
    out, kept = bytes_saved_for_backward(forward_without_graph)
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
# Here is gradient descent on the first seed's loss. The weights are updated inside `no_grad()` (an
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
#   a sum or a mean), or pass a gradient of the result's shape.
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
#   every leaf that requires grad. In the first seed's example, `weight.grad` is the column sums of
#   `x`: `[[4.], [6.]]`.
# - Clear gradients before each backward pass: `.grad.zero_()`, `.grad = None`, or
#   `optimizer.zero_grad()`.
# - `detach()` takes a tensor off the graph (sharing memory); `torch.autograd.grad` returns a
#   gradient without writing `.grad`.
# - Run inference inside `torch.no_grad()`: no graph, nothing saved, the same outputs.
