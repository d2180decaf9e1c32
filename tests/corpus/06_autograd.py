"""Wrong and right answers for lesson 06 (autograd), each a whole answer cell as a student would write it.

The wrong ones are real mistakes: backward() on the caller's tensor (it writes into w.grad), a clone
that stays on the graph, a formula that only fits the classic example's shapes, numerical slopes in
float32, detach() or eval() instead of no_grad(), switching gradients off for good, clearing gradients
that belong to a training run, an output gradient ignored, a straight-through trick that forgets the
clipping, in-place steps that break backward or hide behind .data, freezing by detach().
The right ones are written from the task text alone, each a different way a student might take.
"""

ITEMS = {
    "linear_weight_grad": {
        "wrong": [
            # backward() on the caller's w: switches on its requires_grad and fills its .grad
            '''def linear_weight_grad(x, w):
    """The gradient of (x @ w).sum() with respect to w."""
    w.requires_grad_(True)
    loss = (x @ w).sum()
    loss.backward()
    return w.grad
''',
            # clone() without detach(): still on w's graph, so the clone is no leaf and w.grad fills up
            '''def linear_weight_grad(x, w):
    """The gradient of (x @ w).sum() with respect to w."""
    w_copy = w.clone().requires_grad_(True)
    (x @ w_copy).sum().backward()
    return w_copy.grad
''',
            # the hand-derived formula of the seed's shapes: column sums as a (D, 1) column only
            '''def linear_weight_grad(x, w):
    """The gradient of (x @ w).sum() with respect to w."""
    return x.sum(dim=0, keepdim=True).T
''',
            # tidies w.grad up afterwards, but adds to a .grad that was already there and drops it
            '''def linear_weight_grad(x, w):
    """The gradient of (x @ w).sum() with respect to w."""
    w.requires_grad_(True)
    (x @ w).sum().backward()
    grad = w.grad.clone()
    w.grad = None
    return grad
''',
            # a matrix-only formula: breaks for a vector w, batched x and float64
            '''def linear_weight_grad(x, w):
    """The gradient of (x @ w).sum() with respect to w."""
    return x.T @ torch.ones(x.shape[0], w.shape[1])
''',
        ],
        "right": [
            # detach() alone is enough: backward fills the detached tensor's own .grad
            '''def linear_weight_grad(x, w):
    """The gradient of (x @ w).sum() with respect to w."""
    w_free = w.detach().requires_grad_(True)
    (x.detach() @ w_free).sum().backward()
    return w_free.grad
''',
            # the general formula: each entry of w multiplies one column of x, summed over all rows
            '''def linear_weight_grad(x, w):
    """The gradient of (x @ w).sum() with respect to w."""
    column_sums = x.detach().reshape(-1, w.shape[0]).sum(dim=0)
    if w.dim() == 1:
        return column_sums
    return column_sums.unsqueeze(1).expand(w.shape).clone()
''',
            # torch.func.grad differentiates a function and returns the gradient directly
            '''def linear_weight_grad(x, w):
    """The gradient of (x @ w).sum() with respect to w."""
    return torch.func.grad(lambda v: (x.detach() @ v).sum())(w.detach())
''',
            # NumPy: the column sums of x (all batch rows together), repeated for every column of w
            '''import numpy as np


def linear_weight_grad(x, w):
    """The gradient of (x @ w).sum() with respect to w."""
    rows = x.detach().cpu().numpy().reshape(-1, w.shape[0])
    sums = rows.sum(axis=0)
    grad = sums if w.dim() == 1 else np.repeat(sums[:, None], w.shape[1], axis=1)
    return torch.from_numpy(np.ascontiguousarray(grad)).to(device=w.device, dtype=w.dtype)
''',
            # the gradient does not depend on w's values: differentiate at a fresh zero leaf of w's shape
            '''def linear_weight_grad(x, w):
    """The gradient of (x @ w).sum() with respect to w."""
    if x.shape[-1] != w.shape[0]:
        raise ValueError(f"x has {x.shape[-1]} columns but w has {w.shape[0]} rows")
    fresh = torch.zeros_like(w, requires_grad=True)
    with torch.enable_grad():
        total = (x.detach() @ fresh).sum()
    return torch.autograd.grad(total, fresh)[0]
''',
            # a vector-Jacobian product with torch.func.vjp, the output gradient of a sum being 1
            '''def linear_weight_grad(x, w):
    """The gradient of (x @ w).sum() with respect to w."""
    _, pullback = torch.func.vjp(lambda v: (x.detach() @ v).sum(), w.detach())
    (grad,) = pullback(torch.ones((), dtype=w.dtype, device=w.device))
    return grad
''',
        ],
    },
    "grad_of": {
        "wrong": [
            # backward() on the caller's x
            '''def grad_of(f, x):
    """The gradient of f at x."""
    x.requires_grad_(True)
    f(x).backward()
    return x.grad
''',
            # numerical slopes in float32: close, but not the gradient
            '''def grad_of(f, x):
    """The gradient of f at x."""
    eps = 1e-3
    flat = x.detach().reshape(-1)
    grad = torch.zeros_like(flat)
    for i in range(flat.numel()):
        up = flat.clone()
        up[i] += eps
        down = flat.clone()
        down[i] -= eps
        grad[i] = (f(up.reshape(x.shape)) - f(down.reshape(x.shape))) / (2 * eps)
    return grad.reshape(x.shape)
''',
            # create_graph=True: the gradient itself stays on a graph and requires grad
            '''def grad_of(f, x):
    """The gradient of f at x."""
    x_copy = x.detach().clone().requires_grad_(True)
    return torch.autograd.grad(f(x_copy), x_copy, create_graph=True)[0]
''',
            # clone() without detach(): fine for plain x, but no leaf when x requires grad
            '''def grad_of(f, x):
    """The gradient of f at x."""
    x_copy = x.clone().requires_grad_(True)
    f(x_copy).backward()
    return x_copy.grad
''',
            # puts requires_grad back, but adds to an existing .grad and then throws it away
            '''def grad_of(f, x):
    """The gradient of f at x."""
    x.requires_grad_(True)
    f(x).backward()
    grad = x.grad.clone()
    x.grad = None
    x.requires_grad_(False)
    return grad
''',
            # torch.func.grad does the whole job, which the task rules out
            '''def grad_of(f, x):
    """The gradient of f at x."""
    return torch.func.grad(f)(x.detach())
''',
            # a vector-Jacobian product with torch.func.vjp: a torch.func transform, ruled out
            # a vector-Jacobian product with an output gradient of 1
            '''def grad_of(f, x):
    """The gradient of f at x."""
    value, pullback = torch.func.vjp(f, x.detach())
    return pullback(torch.ones_like(value))[0]
''',
            # torch.autograd.functional.jacobian does the whole job, which the task rules out
            '''def grad_of(f, x):
    """The gradient of f at x."""
    return torch.autograd.functional.jacobian(f, x.detach())
''',
            # the same helper behind a wrapper of one's own
            '''from torch.autograd.functional import jacobian

def grad_of(f, x):
    """The gradient of f at x."""
    return jacobian(lambda t: f(t), x.detach().clone())
''',
            # torch.autograd.functional.vjp with its default output gradient of 1
            '''def grad_of(f, x):
    """The gradient of f at x."""
    _, grad = torch.autograd.functional.vjp(f, x.detach())
    return grad
''',
            # torch.func.jacrev: a torch.func transform, ruled out
            '''def grad_of(f, x):
    """The gradient of f at x."""
    return torch.func.jacrev(f)(x.detach())
''',
        ],
        "right": [
            '''def grad_of(f, x):
    """The gradient of f at x."""
    x_copy = x.detach().clone().requires_grad_(True)
    f(x_copy).backward()
    return x_copy.grad
''',
            # a fresh leaf from detach() alone: detach() shares x's memory, but nothing writes to it
            '''def grad_of(f, x):
    """The gradient of f at x."""
    leaf = x.detach().requires_grad_(True)
    with torch.enable_grad():
        (grad,) = torch.autograd.grad(f(leaf), [leaf])
    return grad
''',
            # defensive: checks what f returns, and switches recording on even inside a no_grad() block
            '''def grad_of(f, x):
    """The gradient of f at x."""
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        raise TypeError("x must be a floating-point tensor")
    leaf = x.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        value = f(leaf)
    if value.dim() != 0:
        raise ValueError(f"f must return a 0-d tensor, not one of shape {tuple(value.shape)}")
    (grad,) = torch.autograd.grad(value, leaf)
    return grad
''',
        ],
    },
    "predict": {
        "wrong": [
            # detach() after the forward pass: the graph was built first
            '''def predict(model, x):
    """model(x) without recording a graph."""
    return model(x).detach()
''',
            # eval() is not no_grad(): the graph is still recorded
            '''def predict(model, x):
    """model(x) without recording a graph."""
    model.eval()
    return model(x)
''',
            # switches gradients off for the rest of the program
            '''def predict(model, x):
    """model(x) without recording a graph."""
    torch.set_grad_enabled(False)
    return model(x)
''',
            # clears gradients that belong to a training run in progress
            '''def predict(model, x):
    """model(x) without recording a graph."""
    model.zero_grad()
    with torch.no_grad():
        return model(x)
''',
        ],
        "right": [
            '''def predict(model, x):
    """model(x) without recording a graph."""
    with torch.inference_mode():
        return model(x)
''',
            '''@torch.no_grad()
def predict(model, x):
    """model(x) without recording a graph."""
    return model(x)
''',
            '''def predict(model, x):
    """model(x) without recording a graph."""
    with torch.set_grad_enabled(False):
        output = model(x)
    return output
''',
            # switches recording off by hand, and puts back whatever it was
            '''def predict(model, x):
    """model(x) without recording a graph."""
    was_enabled = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        return model(x)
    finally:
        torch.set_grad_enabled(was_enabled)
''',
            # nothing requires grad: the model run with detached copies of its parameters and of x
            '''def predict(model, x):
    """model(x) without recording a graph."""
    params = {name: p.detach() for name, p in model.named_parameters()}
    return torch.func.functional_call(model, params, (x.detach(),))
''',
        ],
    },
    "answer_seed_weight_grad": {
        "wrong": [
            "answer_seed_weight_grad = [[1.5], [3.5]]  # the output x @ weight\n",
            "answer_seed_weight_grad = [[3.0], [7.0]]  # row sums instead of column sums\n",
            "answer_seed_weight_grad = [4.0, 6.0]  # flat, not shaped like weight\n",
            "answer_seed_weight_grad = [[0.5], [0.5]]  # the weight itself\n",
        ],
        "right": [
            "answer_seed_weight_grad = [[4.0], [6.0]]\n",
            "answer_seed_weight_grad = [[1.0 + 3.0], [2.0 + 4.0]]  # column sums of x\n",
            "answer_seed_weight_grad = torch.tensor([[4.0], [6.0]])  # a tensor of the right values\n",
            "answer_seed_weight_grad = ((4, ), (6, ))  # ints in tuples mean the same numbers\n",
            """_x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
_w = torch.tensor([[0.5], [0.5]], requires_grad=True)
(_x @ _w).sum().backward()
answer_seed_weight_grad = _w.grad.tolist()
""",
        ],
    },
    "answer_backward_twice": {
        "wrong": [
            'answer_backward_twice = "A"\n',
            'answer_backward_twice = "B"\n',
            'answer_backward_twice = "D"\n',
        ],
        "right": [
            'answer_backward_twice = "C"\n',
            "answer_backward_twice = 'C'  # gradients add up\n",
            'answer_backward_twice = "c"  # lower case is read as the letter\n',
        ],
    },
    "answer_no_grad_purpose": {
        "wrong": [
            'answer_no_grad_purpose = "A"\n',
            'answer_no_grad_purpose = "B"\n',
            'answer_no_grad_purpose = "C"\n',
            'answer_no_grad_purpose = ["D"]\n',
        ],
        "right": [
            'answer_no_grad_purpose = "D"\n',
            "answer_no_grad_purpose = 'D'  # no graph: less memory and time\n",
            'answer_no_grad_purpose = " d"\n',
        ],
    },
    "answer_vjp_grad": {
        "wrong": [
            "answer_vjp_grad = [6.0, 0.0, -6.0]  # forgets the path through total\n",
            "answer_vjp_grad = [2.0, 0.0, -6.0]  # 2 * x * v, as if y were x * x\n",
            "answer_vjp_grad = [-2.0, -2.0, -2.0]  # only the path through total\n",
            "answer_vjp_grad = [[4.0], [-2.0], [-8.0]]  # not a list of three floats\n",
        ],
        "right": [
            "answer_vjp_grad = [4.0, -2.0, -8.0]\n",
            "answer_vjp_grad = (4, -2, -8)\n",
            "answer_vjp_grad = [6 * 1 - 2, 6 * 0 - 2, 6 * -1 - 2]  # total * v[j] + (x[0] - x[2])\n",
            """_x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(_x * _x.sum()).backward(gradient=torch.tensor([1.0, 0.0, -1.0]))
answer_vjp_grad = _x.grad
""",
        ],
    },
    "answer_loop_grad": {
        "wrong": [
            'answer_loop_grad = "B"\n',
            'answer_loop_grad = "C"\n',
            'answer_loop_grad = "D"\n',
            "answer_loop_grad = 81.0  # the value, not the letter\n",
        ],
        "right": [
            'answer_loop_grad = "A"\n',
            "answer_loop_grad = 'a'\n",
            'answer_loop_grad = " A "  # spaces around the letter\n',
        ],
    },
    "tanh_layer_vjp": {
        "wrong": [
            # ignores v: the gradient of y.sum(), as if every output gradient were 1
            '''def tanh_layer_vjp(x, w, v):
    """(grad_x, grad_w) for y = tanh(x @ w) and the output gradient v."""
    x_leaf = x.detach().clone().requires_grad_(True)
    w_leaf = w.detach().clone().requires_grad_(True)
    torch.tanh(x_leaf @ w_leaf).sum().backward()
    return x_leaf.grad, w_leaf.grad
''',
            # forgets the slope of tanh: the product for y = x @ w
            '''def tanh_layer_vjp(x, w, v):
    """(grad_x, grad_w) for y = tanh(x @ w) and the output gradient v."""
    v = v.detach()
    return v @ w.detach().T, x.detach().T @ v
''',
            # backward() on the caller's tensors: switches on their requires_grad and fills their .grad
            '''def tanh_layer_vjp(x, w, v):
    """(grad_x, grad_w) for y = tanh(x @ w) and the output gradient v."""
    x.requires_grad_(True)
    w.requires_grad_(True)
    x.grad = None
    w.grad = None
    torch.tanh(x @ w).backward(gradient=v)
    return x.grad.detach(), w.grad.detach()
''',
            # the pair in the wrong order
            '''def tanh_layer_vjp(x, w, v):
    """(grad_x, grad_w) for y = tanh(x @ w) and the output gradient v."""
    x_leaf = x.detach().clone().requires_grad_(True)
    w_leaf = w.detach().clone().requires_grad_(True)
    grads = torch.autograd.grad(torch.tanh(x_leaf @ w_leaf), [w_leaf, x_leaf], grad_outputs=v)
    return grads[0], grads[1]
''',
            # create_graph=True: the gradients stay on a graph and require grad
            '''def tanh_layer_vjp(x, w, v):
    """(grad_x, grad_w) for y = tanh(x @ w) and the output gradient v."""
    x_leaf = x.detach().clone().requires_grad_(True)
    w_leaf = w.detach().clone().requires_grad_(True)
    return torch.autograd.grad(torch.tanh(x_leaf @ w_leaf), (x_leaf, w_leaf), grad_outputs=v, create_graph=True)
''',
        ],
        "right": [
            # backward(gradient=v) on detached leaves, then their .grad
            '''def tanh_layer_vjp(x, w, v):
    """(grad_x, grad_w) for y = tanh(x @ w) and the output gradient v."""
    x_leaf = x.detach().clone().requires_grad_(True)
    w_leaf = w.detach().clone().requires_grad_(True)
    torch.tanh(x_leaf @ w_leaf).backward(gradient=v.detach())
    return x_leaf.grad, w_leaf.grad
''',
            # the product as the gradient of one number, (y * v).sum()
            '''def tanh_layer_vjp(x, w, v):
    """(grad_x, grad_w) for y = tanh(x @ w) and the output gradient v."""
    x_leaf = x.detach().requires_grad_(True)
    w_leaf = w.detach().requires_grad_(True)
    total = (torch.tanh(x_leaf @ w_leaf) * v.detach()).sum()
    grad_x, grad_w = torch.autograd.grad(total, [x_leaf, w_leaf])
    return (grad_x, grad_w)
''',
            # by hand: the slope of tanh(u) is 1 - tanh(u) ** 2, then the chain rule through x @ w
            '''def tanh_layer_vjp(x, w, v):
    """(grad_x, grad_w) for y = tanh(x @ w) and the output gradient v."""
    x, w, v = x.detach(), w.detach(), v.detach()
    y = torch.tanh(x @ w)
    g = v * (1 - y * y)
    return g @ w.T, x.T @ g
''',
            # torch.func.vjp returns the function's value and a pullback that takes v
            '''def tanh_layer_vjp(x, w, v):
    """(grad_x, grad_w) for y = tanh(x @ w) and the output gradient v."""
    _, pullback = torch.func.vjp(lambda a, b: torch.tanh(a @ b), x.detach(), w.detach())
    return pullback(v.detach())
''',
            # NumPy for the arithmetic, the results put back as tensors of the inputs' dtype and device
            '''import numpy as np


def tanh_layer_vjp(x, w, v):
    """(grad_x, grad_w) for y = tanh(x @ w) and the output gradient v."""
    a, b, c = (t.detach().cpu().numpy() for t in (x, w, v))
    g = c * (1.0 - np.tanh(a @ b) ** 2)
    back = lambda array: torch.from_numpy(np.ascontiguousarray(array)).to(device=x.device, dtype=x.dtype)
    return back(g @ b.T), back(a.T @ g)
''',
            # one example at a time: each row of x gets its own product, and grad_w adds them all up
            '''def tanh_layer_vjp(x, w, v):
    """(grad_x, grad_w) for y = tanh(x @ w) and the output gradient v."""
    x, w, v = x.detach(), w.detach(), v.detach()
    grad_x = torch.zeros_like(x)
    grad_w = torch.zeros_like(w)
    for i in range(x.shape[0]):
        y = torch.tanh(x[i] @ w)
        g = v[i] * (1 - y ** 2)
        grad_x[i] = w @ g
        grad_w += torch.outer(x[i], g)
    return grad_x, grad_w
''',
        ],
    },
    "binarize_straight_through": {
        "wrong": [
            # sign alone: its gradient is zero everywhere
            '''def binarize_straight_through(x):
    """torch.sign(x) forward, the gradient of x.clamp(-1, 1) backward."""
    return torch.sign(x)
''',
            # the rounding trick copied without the clipping: the gradient passes everywhere
            '''def binarize_straight_through(x):
    """torch.sign(x) forward, the gradient of x.clamp(-1, 1) backward."""
    return x + (torch.sign(x) - x).detach()
''',
            # clamp in front, but the detached part subtracts x, not the clamped x: wrong values beyond -1 and 1
            '''def binarize_straight_through(x):
    """torch.sign(x) forward, the gradient of x.clamp(-1, 1) backward."""
    return x.clamp(-1, 1) + (torch.sign(x) - x).detach()
''',
            # detached first: no gradient reaches x at all
            '''def binarize_straight_through(x):
    """torch.sign(x) forward, the gradient of x.clamp(-1, 1) backward."""
    return torch.sign(x.detach())
''',
            # overwrites x's values behind autograd's back
            '''def binarize_straight_through(x):
    """torch.sign(x) forward, the gradient of x.clamp(-1, 1) backward."""
    x.data = torch.sign(x.data)
    return x
''',
        ],
        "right": [
            '''def binarize_straight_through(x):
    """torch.sign(x) forward, the gradient of x.clamp(-1, 1) backward."""
    soft = torch.clamp(x, min=-1.0, max=1.0)
    return (torch.sign(x) - soft).detach() + soft
''',
            # a custom autograd.Function with its own backward
            '''class SignStraightThrough(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x.abs() <= 1).to(grad_output.dtype)


def binarize_straight_through(x):
    """torch.sign(x) forward, the gradient of x.clamp(-1, 1) backward."""
    return SignStraightThrough.apply(x)
''',
            # the value from the detached sign; the gradient from soft - soft.detach(), which is zero in value
            '''def binarize_straight_through(x):
    """torch.sign(x) forward, the gradient of x.clamp(-1, 1) backward."""
    soft = x.clamp(-1, 1)
    return torch.sign(x).detach() + soft - soft.detach()
''',
            # hardtanh is clamp(-1, 1); the offset is computed without recording
            '''import torch.nn.functional as F


def binarize_straight_through(x):
    """torch.sign(x) forward, the gradient of x.clamp(-1, 1) backward."""
    soft = F.hardtanh(x)
    with torch.no_grad():
        offset = torch.sign(x) - soft
    return soft + offset
''',
            # a mask of where the gradient may pass, times a zero-valued term that carries x's gradient
            '''def binarize_straight_through(x):
    """torch.sign(x) forward, the gradient of x.clamp(-1, 1) backward."""
    inside = (x.detach().abs() < 1).to(x.dtype)
    return torch.sign(x.detach()) + (x - x.detach()) * inside
''',
        ],
    },
    "stable_softmax": {
        "wrong": [
            # the maximum subtracted, but the division still in place: backward raises
            '''def stable_softmax(x):
    """Softmax over the last dimension."""
    e = torch.exp(x - x.max(dim=-1, keepdim=True).values)
    e /= e.sum(dim=-1, keepdim=True)
    return e
''',
            # out of place, but no maximum subtracted: inf / inf = nan for large scores
            '''def stable_softmax(x):
    """Softmax over the last dimension."""
    e = torch.exp(x)
    return e / e.sum(dim=-1, keepdim=True)
''',
            # .data hides the in-place division from the version counter: no error, a wrong gradient
            '''def stable_softmax(x):
    """Softmax over the last dimension."""
    e = torch.exp(x - x.max(dim=-1, keepdim=True).values)
    e.data /= e.data.sum(dim=-1, keepdim=True)
    return e
''',
            # subtracts the maximum from x itself, in place
            '''def stable_softmax(x):
    """Softmax over the last dimension."""
    x -= x.max(dim=-1, keepdim=True).values
    e = torch.exp(x)
    return e / e.sum(dim=-1, keepdim=True)
''',
            # divides by the sum of the whole tensor, not of each row
            '''def stable_softmax(x):
    """Softmax over the last dimension."""
    e = torch.exp(x - x.max())
    return e / e.sum()
''',
            # no_grad() around the in-place division: the version counter still moves
            '''def stable_softmax(x):
    """Softmax over the last dimension."""
    e = torch.exp(x - x.max(dim=-1, keepdim=True).values)
    with torch.no_grad():
        e /= e.sum(dim=-1, keepdim=True)
    return e
''',
            # right numbers from torch.softmax, which the task rules out
            '''def stable_softmax(x):
    """Softmax over the last dimension."""
    return torch.softmax(x, dim=-1)
''',
            # F.log_softmax, then back from logs: also ruled out
            # log_softmax, then back from logs
            '''import torch.nn.functional as F


def stable_softmax(x):
    """Softmax over the last dimension."""
    return F.log_softmax(x, dim=-1).exp()
''',
        ],
        "right": [
            # log-sum-exp: log of the row's sum of exponentials, computed without overflow
            '''def stable_softmax(x):
    """Softmax over the last dimension."""
    return torch.exp(x - torch.logsumexp(x, dim=-1, keepdim=True))
''',
            # the shift detached: softmax does not depend on it, so no gradient is lost
            '''def stable_softmax(x):
    """Softmax over the last dimension."""
    shift = x.amax(dim=-1, keepdim=True).detach()
    e = (x - shift).exp()
    total = e.sum(dim=-1, keepdim=True)
    return e / total
''',
            # in place on a clone, which no backward step saved
            '''def stable_softmax(x):
    """Softmax over the last dimension."""
    e = torch.exp(x - x.max(dim=-1, keepdim=True).values).clone()
    e /= e.sum(dim=-1, keepdim=True)
    return e
''',
            # defensive: says what it needs, then the textbook formula
            '''def stable_softmax(x):
    """Softmax over the last dimension."""
    if not isinstance(x, torch.Tensor) or x.dim() == 0:
        raise ValueError("stable_softmax needs a tensor with at least one dimension")
    if x.shape[-1] == 0:
        raise ValueError("the last dimension of x is empty")
    largest, _ = torch.max(x, dim=-1, keepdim=True)
    exps = torch.exp(x - largest)
    return exps / torch.sum(exps, dim=-1, keepdim=True)
''',
        ],
    },
    "freeze_all_but_last": {
        "wrong": [
            # freezes everything, the last layer included
            '''def freeze_all_but_last(model):
    """Freeze all but model[-1]; return the number of trainable entries."""
    for p in model.parameters():
        p.requires_grad = False
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
''',
            # detach() makes new tensors: the model's parameters keep their flags
            '''def freeze_all_but_last(model):
    """Freeze all but model[-1]; return the number of trainable entries."""
    for layer in list(model)[:-1]:
        for p in layer.parameters():
            p.detach()
    return sum(p.numel() for p in model[-1].parameters())
''',
            # freezes the body, but never switches a frozen last layer back on
            '''def freeze_all_but_last(model):
    """Freeze all but model[-1]; return the number of trainable entries."""
    for layer in list(model)[:-1]:
        layer.requires_grad_(False)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
''',
            # keeps the last two parameter tensors: wrong when the last layer has no bias
            '''def freeze_all_but_last(model):
    """Freeze all but model[-1]; return the number of trainable entries."""
    params = list(model.parameters())
    for p in params[:-2]:
        p.requires_grad_(False)
    for p in params[-2:]:
        p.requires_grad_(True)
    return sum(p.numel() for p in params[-2:])
''',
            # counts every entry, the frozen ones too
            '''def freeze_all_but_last(model):
    """Freeze all but model[-1]; return the number of trainable entries."""
    model.requires_grad_(False)
    model[-1].requires_grad_(True)
    return sum(p.numel() for p in model.parameters())
''',
        ],
        "right": [
            '''def freeze_all_but_last(model):
    """Freeze all but model[-1]; return the number of trainable entries."""
    for p in model.parameters():
        p.requires_grad_(False)
    for p in model[-1].parameters():
        p.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
''',
            # by name: the last layer's parameters are named after its index in the Sequential
            '''def freeze_all_but_last(model):
    """Freeze all but model[-1]; return the number of trainable entries."""
    last = str(len(model) - 1)
    trainable = 0
    for name, p in model.named_parameters():
        p.requires_grad = name.split(".")[0] == last
        if p.requires_grad:
            trainable += p.numel()
    return trainable
''',
            # by identity: whatever belongs to model[-1] stays on
            '''def freeze_all_but_last(model):
    """Freeze all but model[-1]; return the number of trainable entries."""
    head = {id(p) for p in model[-1].parameters()}
    for p in model.parameters():
        p.requires_grad_(id(p) in head)
    return int(sum(p.numel() for p in model.parameters() if p.requires_grad))
''',
            # every layer but the last off, the last on, then count through the layer itself
            '''def freeze_all_but_last(model):
    """Freeze all but model[-1]; return the number of trainable entries."""
    *body, head = list(model.children())
    for layer in body:
        layer.requires_grad_(False)
    head.requires_grad_(True)
    return head.weight.numel() + (head.bias.numel() if head.bias is not None else 0)
''',
            # defensive: checks what it was given
            '''from torch import nn


def freeze_all_but_last(model):
    """Freeze all but model[-1]; return the number of trainable entries."""
    if not isinstance(model, nn.Sequential) or not isinstance(model[-1], nn.Linear):
        raise TypeError("expected an nn.Sequential that ends with an nn.Linear")
    model.requires_grad_(False)
    model[-1].requires_grad_(True)
    return sum(p.numel() for p in model[-1].parameters())
''',
        ],
    },
}

# One more way each to write the same letter.
ITEMS["answer_backward_twice"]["right"] += ['answer_backward_twice = "ABCD"[2]\n']
ITEMS["answer_no_grad_purpose"]["right"] += ['answer_no_grad_purpose = "d".upper()\n']
ITEMS["answer_loop_grad"]["right"] += ['answer_loop_grad = "".join(["A"])\n']


# More answers, each written from the task text and the contract alone, as a student would.
MORE = {
    "answer_seed_weight_grad": {
        "right": [
            """answer_seed_weight_grad = ((4,), (6,))""",
            """import torch
answer_seed_weight_grad = torch.tensor([[4.0], [6.0]])""",
            """import numpy as np
answer_seed_weight_grad = np.array([[4.0], [6.0]])""",
        ],
        "wrong": [
            """answer_seed_weight_grad = [[3.0], [7.0]]""",
            """answer_seed_weight_grad = [[0.5], [0.5]]""",
        ],
    },
    "answer_backward_twice": {
        "right": [
            '''answer_backward_twice = " c "''',
            """answer_backward_twice = 'C'
""",
        ],
    },
    "answer_vjp_grad": {
        "right": [
            """import torch
_x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
_y = _x * _x.sum()
_y.backward(gradient=torch.tensor([1.0, 0.0, -1.0]))
answer_vjp_grad = _x.grad""",
        ],
        "wrong": [
            """answer_vjp_grad = [6.0, 0.0, -6.0]""",
            """answer_vjp_grad = [2.0, 0.0, -2.0]""",
        ],
    },
    "answer_loop_grad": {
        "right": [
            '''answer_loop_grad = "A "''',
        ],
    },
    "answer_no_grad_purpose": {
        "right": [
            "answer_no_grad_purpose = 'd'",
            """answer_no_grad_purpose = str("D")""",
        ],
    },
    "linear_weight_grad": {
        "right": [
            """import torch
def linear_weight_grad(x, w):
    x = x.detach()
    col = x.reshape(-1, x.shape[-1]).sum(dim=0)
    return col if w.dim() == 1 else col.unsqueeze(-1).expand_as(w)
""",
            """import torch
def linear_weight_grad(x, w):
    wl = w.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        out = x.detach() @ wl
        (g,) = torch.autograd.grad(out, wl, grad_outputs=torch.ones_like(out))
    return g
""",
            '''def linear_weight_grad(x, w):
    """The gradient of (x @ w).sum() with respect to w, computed without touching x, w or w.grad."""
    w_copy = w.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        (g,) = torch.autograd.grad((x.detach() @ w_copy).sum(), w_copy)
    return g
''',
            """def linear_weight_grad(x, w):
    leaf = w.detach().clone()
    leaf.requires_grad = True
    out = torch.matmul(x.detach(), leaf).sum()
    out.backward()
    return leaf.grad
""",
            """import torch
def linear_weight_grad(x, w):
    x = x.detach()
    col = x.reshape(-1, x.shape[-1]).sum(dim=0)  # (D,)
    if w.dim() == 1:
        g = col
    else:
        g = col.unsqueeze(1).expand(w.shape[0], w.shape[1])
    return g.to(dtype=torch.result_type(x, w.detach())).clone().contiguous()
""",
            """import torch
def linear_weight_grad(x, w, **unused):
    xd = x.detach()
    return torch.func.grad(lambda ww: (xd @ ww).sum())(w.detach())
""",
        ],
        "wrong": [
            """def linear_weight_grad(x, w):
    w.requires_grad_(True)
    (x @ w).sum().backward()
    return w.grad
""",
            """def linear_weight_grad(x, w):
    wc = w.clone().requires_grad_(True) if not w.requires_grad else w.clone()
    wc.retain_grad()
    (x @ wc).sum().backward()
    return wc.grad
""",
            """def linear_weight_grad(x, w):
    return x.sum(dim=0, keepdim=True).T
""",
        ],
    },
    "grad_of": {
        "right": [
            '''def grad_of(f, x):
    """The gradient of the scalar function f at x, shaped like x; x itself is left as it was."""
    xc = x.detach().clone().requires_grad_(True)
    (g,) = torch.autograd.grad(f(xc), xc)
    return g
''',
            """import torch
def grad_of(f, x):
    with torch.enable_grad():
        leaf = x.detach().clone()
        leaf.requires_grad_()
        out = f(leaf)
        out.backward()
    return leaf.grad.detach()
""",
            """import torch
def grad_of(f, x):
    leaf = x.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        out = f(leaf)
    if not out.requires_grad:
        return torch.zeros_like(leaf, requires_grad=False)
    (g,) = torch.autograd.grad(out, [leaf], allow_unused=True)
    return torch.zeros_like(x.detach()) if g is None else g
""",
        ],
        "wrong": [
            # torch.autograd.functional.jacobian on a copy: ruled out by the task
            """import torch
def grad_of(f, x):
    return torch.autograd.functional.jacobian(f, x.detach().clone())
""",
            """def grad_of(f, x):
    x.requires_grad_(True)
    f(x).backward()
    return x.grad
""",
            """def grad_of(f, x):
    xc = x.detach().clone().requires_grad_(True)
    (g,) = torch.autograd.grad(f(xc), xc, create_graph=True)
    return g
""",
            # torch.func.grad on a copy: the transform the task rules out
            """import torch
def grad_of(f, x):
    x0 = x.detach().clone()
    return torch.func.grad(f)(x0)
""",
        ],
    },
    "tanh_layer_vjp": {
        "right": [
            """import torch
def tanh_layer_vjp(x, w, v):
    dt = x.dtype
    x64, w64, v64 = (t.detach().to(torch.float64) for t in (x, w, v))
    y = torch.tanh(x64 @ w64)
    g = v64 * (1 - y ** 2)
    gw = x64.T @ g if x.shape[0] > 0 else torch.zeros_like(w64)
    return (g @ w64.T).to(dt), gw.to(dt)
""",
            '''def tanh_layer_vjp(x, w, v):
    """(grad_x, grad_w): the vector-Jacobian product of y = tanh(x @ w) with v, for x and for w."""
    xc = x.detach().clone().requires_grad_(True)
    wc = w.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        y = torch.tanh(xc @ wc)
        gx, gw = torch.autograd.grad(y, (xc, wc), grad_outputs=v.detach())
    return gx, gw
''',
            """import torch
def tanh_layer_vjp(x, w, v):
    with torch.no_grad():
        x, w, v = x.detach(), w.detach(), v.detach()
        y = torch.tanh(x @ w)
        g = v * (1 - y * y)
        return g @ w.T, x.T @ g
""",
            """import torch
def tanh_layer_vjp(x, w, v):
    xl = x.detach().clone()
    wl = w.detach().clone()
    xl.requires_grad = True
    wl.requires_grad = True
    with torch.enable_grad():
        torch.tanh(torch.matmul(xl, wl)).backward(gradient=v.detach().clone())
    gx = xl.grad if xl.grad is not None else torch.zeros_like(xl)
    gw = wl.grad if wl.grad is not None else torch.zeros_like(wl)
    return [gx.detach(), gw.detach()]
""",
            """import torch
def tanh_layer_vjp(x, w, v):
    x, w, v = x.detach(), w.detach(), v.detach()
    y = torch.tanh(torch.einsum("nd,dk->nk", x, w))
    g = v * (1.0 - y.pow(2))
    grad_x = torch.einsum("nk,dk->nd", g, w)
    grad_w = torch.einsum("nd,nk->dk", x, g)
    return (grad_x, grad_w)
""",
        ],
        "wrong": [
            """def tanh_layer_vjp(x, w, v):
    x, w, v = x.detach(), w.detach(), v.detach()
    return v @ w.T, x.T @ v
""",
            """def tanh_layer_vjp(x, w, v):
    x, w, v = x.detach(), w.detach(), v.detach()
    y = torch.tanh(x @ w)
    g = v * (1 - y * y)
    return x.T @ g, g @ w.T
""",
            """def tanh_layer_vjp(x, w, v):
    x.requires_grad_(True)
    w.requires_grad_(True)
    torch.tanh(x @ w).backward(gradient=v)
    return x.grad, w.grad
""",
        ],
    },
    "binarize_straight_through": {
        "right": [
            """import torch
def binarize_straight_through(x):
    inside = (x > -1) & (x < 1)
    t = torch.where(inside, x, x.detach())
    return t - t.detach() + torch.sign(x.detach())
""",
            '''def binarize_straight_through(x):
    """torch.sign(x) in the forward pass; the gradient of x.clamp(-1, 1) in the backward pass."""
    clamped = x.clamp(-1, 1)
    return clamped + (torch.sign(x) - clamped).detach()
''',
            """import torch

class _SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        inside = (x > -1) & (x < 1)
        return grad_output * inside.to(grad_output.dtype)


def binarize_straight_through(x):
    return _SignSTE.apply(x)
""",
            """import torch
import torch.nn.functional as F
def binarize_straight_through(x):
    soft = F.hardtanh(x)
    return torch.sign(x).detach() + (soft - soft.detach())
""",
            """import torch
def binarize_straight_through(x):
    c = torch.clamp(x, min=-1.0, max=1.0)
    return torch.where(torch.ones_like(x, dtype=torch.bool), c - c.detach(), c) + x.sign().detach()
""",
        ],
        "wrong": [
            """def binarize_straight_through(x):
    return torch.sign(x)
""",
            """def binarize_straight_through(x):
    return x + (torch.sign(x) - x).detach()
""",
            """def binarize_straight_through(x):
    return torch.sign(x.clamp(-1, 1))
""",
        ],
    },
    "stable_softmax": {
        "right": [
            """import torch
def stable_softmax(x):
    rows = x.reshape(-1, x.shape[-1])
    if rows.shape[0] == 0:
        return x - x
    out = []
    for r in rows:
        e = (r - r.max()).exp()
        out.append(e / e.sum())
    return torch.stack(out).reshape(x.shape)
""",
            '''def stable_softmax(x):
    """Softmax over the last dimension: finite for large inputs, and autograd can differentiate it."""
    m = x.max(dim=-1, keepdim=True).values
    e = torch.exp(x - m)
    return e / e.sum(dim=-1, keepdim=True)
''',
            """import torch
def stable_softmax(x):
    return torch.exp(x - torch.logsumexp(x, dim=-1, keepdim=True))
""",
            """import torch
def stable_softmax(x):
    shifted = x - x.amax(dim=-1, keepdim=True).detach()
    e = shifted.exp_()
    total = e.sum(dim=-1, keepdim=True)
    return e / total
""",
        ],
        "wrong": [
            """def stable_softmax(x):
    e = torch.exp(x - x.max(dim=-1, keepdim=True).values)
    e /= e.sum(dim=-1, keepdim=True)
    return e
""",
            """def stable_softmax(x):
    e = torch.exp(x)
    return e / e.sum(dim=-1, keepdim=True)
""",
            """def stable_softmax(x):
    e = torch.exp(x - x.max())
    return e / e.sum(dim=0, keepdim=True)
""",
            # torch.softmax, which the task rules out
            """import torch
def stable_softmax(x):
    return torch.softmax(x, dim=-1)
""",
        ],
    },
    "predict": {
        "right": [
            '''def predict(model, x):
    """model(x) without recording a graph: for inference, where no backward pass follows."""
    with torch.no_grad():
        return model(x)
''',
            """import torch
@torch.no_grad()
def predict(model, x):
    return model(x)
""",
            """import torch
def predict(model, x):
    with torch.set_grad_enabled(False):
        out = model(x)
    return out
""",
            """import torch
def predict(model, x):
    previous = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        return model(x)
    finally:
        torch.set_grad_enabled(previous)
""",
            """import torch
def predict(model, x):
    with torch.inference_mode():
        return model(x)
""",
        ],
        "wrong": [
            """def predict(model, x):
    return model(x).detach()
""",
            """def predict(model, x):
    model.eval()
    return model(x)
""",
            """def predict(model, x):
    torch.set_grad_enabled(False)
    return model(x)
""",
        ],
    },
    "freeze_all_but_last": {
        "right": [
            '''def freeze_all_but_last(model):
    """Freeze every parameter but those of model[-1]; returns how many entries stay trainable."""
    for p in model.parameters():
        p.requires_grad_(False)
    for p in model[-1].parameters():
        p.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
''',
            """def freeze_all_but_last(model):
    model.requires_grad_(False)
    model[-1].requires_grad_(True)
    total = 0
    for p in model[-1].parameters():
        total += p.numel()
    return total
""",
            """import numpy as np
def freeze_all_but_last(model):
    last = {id(p) for p in model[-1].parameters()}
    for p in model.parameters():
        p.requires_grad = id(p) in last
    return np.int64(sum(p.numel() for p in model.parameters() if p.requires_grad))
""",
            """def freeze_all_but_last(model):
    *body, head = list(model.children())
    for layer in body:
        for p in layer.parameters():
            p.requires_grad = False
    for p in head.parameters():
        p.requires_grad = True
    n = head.weight.numel()
    if head.bias is not None:
        n += head.bias.numel()
    return int(n)
""",
        ],
        "wrong": [
            """def freeze_all_but_last(model):
    for p in model[:-1].parameters():
        p.requires_grad_(False)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
""",
            """def freeze_all_but_last(model):
    for p in model.parameters():
        p.requires_grad_(False)
    for p in model[-1].parameters():
        p.requires_grad_(True)
    return sum(p.numel() for p in model.parameters())
""",
            """def freeze_all_but_last(model):
    model.requires_grad_(False)
    model[-1].requires_grad_(True)
    return float(sum(p.numel() for p in model[-1].parameters()))
""",
        ],
    },
}
for _item, _table in MORE.items():
    for _kind, _codes in _table.items():
        ITEMS[_item].setdefault(_kind, []).extend(_codes)


# Quizzes that apply a rule to code the lesson does not show: each wrong letter or shape is one
# misconception, each right answer the key written another well-formed way.
ITEMS["answer_where_log_grad"] = {
    "wrong": ['answer_where_log_grad = "A"\n', 'answer_where_log_grad = "C"\n', 'answer_where_log_grad = "D"\n'],
    "right": [
        'answer_where_log_grad = "B"\n',
        'answer_where_log_grad = "b"\n',
        'answer_where_log_grad = " B "\n',
        '# 0 times an infinite slope\nanswer_where_log_grad = "B"\n',
    ],
}
ITEMS["answer_freeze_step"] = {
    "wrong": ['answer_freeze_step = "A"\n', 'answer_freeze_step = "C"\n', 'answer_freeze_step = "D"\n'],
    "right": [
        'answer_freeze_step = "B"\n',
        'answer_freeze_step = "b"\n',
        'answer_freeze_step = " B "\n',
        '# the old .grad still steps\nanswer_freeze_step = "B"\n',
    ],
}
