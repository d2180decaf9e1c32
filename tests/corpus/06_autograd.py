"""Wrong and right answers for lesson 06 (autograd), each a whole answer cell as a student would write it.

The wrong ones are real mistakes: backward() on the caller's tensor (it writes into w.grad), a clone
that stays on the graph, a formula that only fits the seed's shapes, numerical slopes in float32,
detach() or eval() instead of no_grad(), switching gradients off for good, clearing gradients that
belong to a training run.
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
        ],
        "right": [
            '''def grad_of(f, x):
    """The gradient of f at x."""
    return torch.func.grad(f)(x.detach())
''',
            '''def grad_of(f, x):
    """The gradient of f at x."""
    x_copy = x.detach().clone().requires_grad_(True)
    f(x_copy).backward()
    return x_copy.grad
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
        ],
    },
    "answer_seed_weight_grad": {
        "wrong": [
            "answer_seed_weight_grad = [[1.5], [3.5]]  # the output x @ weight\n",
            "answer_seed_weight_grad = [[3.0], [7.0]]  # row sums instead of column sums\n",
            "answer_seed_weight_grad = [4.0, 6.0]  # flat, not shaped like weight\n",
            "answer_seed_weight_grad = torch.tensor([[4.0], [6.0]])  # a tensor, not nested lists\n",
            "answer_seed_weight_grad = [[0.5], [0.5]]  # the weight itself\n",
        ],
        "right": [
            "answer_seed_weight_grad = [[4.0], [6.0]]\n",
            "answer_seed_weight_grad = [[1.0 + 3.0], [2.0 + 4.0]]  # column sums of x\n",
            '''_x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
_w = torch.tensor([[0.5], [0.5]], requires_grad=True)
(_x @ _w).sum().backward()
answer_seed_weight_grad = _w.grad.tolist()
''',
        ],
    },
    "answer_backward_twice": {
        "wrong": [
            'answer_backward_twice = "A"\n',
            'answer_backward_twice = "B"\n',
            'answer_backward_twice = "D"\n',
            'answer_backward_twice = "c"\n',
        ],
        "right": [
            'answer_backward_twice = "C"\n',
            "answer_backward_twice = 'C'  # gradients add up\n",
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
        ],
    },
}
