"""Wrong and right answers for lesson 04 (NumPy interop), as students write them.

The wrong answers copy where memory must be shared and share where it must be copied, trip over
negative strides, 0-d and empty arrays, bfloat16 and tensors that require grad, change their input,
move dimensions with reshape, or get the dtype or device wrong. The right ones are written from the
task text alone, each a different way to get there.
"""

ITEMS = {
    "numpy_to_tensor_shared": {
        "wrong": [
            # torch.tensor copies.
            "def numpy_to_tensor_shared(arr):\n    return torch.tensor(arr)\n",
            # The defensive copy breaks the sharing.
            "def numpy_to_tensor_shared(arr):\n    return torch.from_numpy(arr.copy())\n",
            # Shares for contiguous arrays only: a transposed view gets copied.
            "def numpy_to_tensor_shared(arr):\n    return torch.from_numpy(np.ascontiguousarray(arr))\n",
            # Converting to float32 makes a copy (and changes the dtype).
            "def numpy_to_tensor_shared(arr):\n    return torch.from_numpy(arr).float()\n",
            # clone() copies.
            "def numpy_to_tensor_shared(arr):\n    return torch.from_numpy(arr).clone()\n",
            # torch.asarray copies a 0-d array, even with copy=False.
            "def numpy_to_tensor_shared(arr):\n    return torch.asarray(arr, copy=False)\n",
        ],
        "right": [
            "def numpy_to_tensor_shared(arr):\n    return torch.as_tensor(arr)\n",
            "from torch import from_numpy\n\n\ndef numpy_to_tensor_shared(arr):\n    return from_numpy(arr)\n",
            "import torch\n\n\ndef numpy_to_tensor_shared(arr):\n    t = torch.from_numpy(arr)\n    return t\n",
            # DLPack: the tensor protocol NumPy and PyTorch both speak; it shares memory.
            "def numpy_to_tensor_shared(arr):\n    return torch.from_dlpack(arr)\n",
            # Defensive: checks the input and that the result really shares.
            """def numpy_to_tensor_shared(arr):
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected a NumPy array, got {type(arr).__name__}")
    t = torch.from_numpy(arr)
    if arr.size and not np.shares_memory(t.numpy(), arr):
        raise RuntimeError("the tensor does not share memory with the array")
    return t
""",
        ],
    },
    "numpy_to_tensor_copy": {
        "wrong": [
            # Shares memory.
            "def numpy_to_tensor_copy(arr):\n    return torch.from_numpy(arr)\n",
            # Copies, but refuses negative strides.
            "def numpy_to_tensor_copy(arr):\n    return torch.tensor(arr)\n",
            # ascontiguousarray returns arr itself when it is already contiguous (and 0-d becomes 1-d).
            "def numpy_to_tensor_copy(arr):\n    return torch.from_numpy(np.ascontiguousarray(arr))\n",
            # as_tensor shares when it can.
            "def numpy_to_tensor_copy(arr):\n    return torch.as_tensor(arr.copy() if arr.strides and min(arr.strides) < 0 else arr)\n",
            # A copy, but always float32.
            "def numpy_to_tensor_copy(arr):\n    return torch.tensor(arr.copy(), dtype=torch.float32)\n",
            # torch.tensor copies, but ascontiguousarray keeps a negative stride along a size-1 dimension.
            "def numpy_to_tensor_copy(arr):\n    return torch.tensor(np.ascontiguousarray(arr))\n",
        ],
        "right": [
            "def numpy_to_tensor_copy(arr):\n    return torch.tensor(arr.copy())\n",
            "def numpy_to_tensor_copy(arr):\n    return torch.from_numpy(np.array(arr))\n",
            "def numpy_to_tensor_copy(arr):\n    return torch.from_numpy(arr.copy()).clone()\n",
            # astype copies by default, into an array with positive strides.
            "def numpy_to_tensor_copy(arr):\n    return torch.from_numpy(arr.astype(arr.dtype))\n",
            # Defensive: a C-ordered copy, checked.
            """def numpy_to_tensor_copy(arr):
    fresh = np.copy(arr, order="C")
    t = torch.from_numpy(fresh)
    if arr.size and np.shares_memory(t.numpy(), arr):
        raise RuntimeError("the tensor still shares memory with the array")
    return t
""",
        ],
    },
    "tensor_to_numpy": {
        "wrong": [
            # Refuses tensors that require grad.
            "def tensor_to_numpy(t):\n    return t.numpy()\n",
            # A list, not an array.
            "def tensor_to_numpy(t):\n    return t.detach().cpu().tolist()\n",
            # Switches requires_grad off on the caller's tensor (and fails for non-leaf tensors).
            "def tensor_to_numpy(t):\n    return t.requires_grad_(False).numpy()\n",
            # Always float32.
            "def tensor_to_numpy(t):\n    return t.detach().cpu().float().numpy()\n",
            # np.array goes through .numpy(), which refuses tensors that require grad.
            "def tensor_to_numpy(t):\n    return np.array(t.cpu())\n",
        ],
        "right": [
            "def tensor_to_numpy(t):\n    return t.cpu().detach().numpy()\n",
            "def tensor_to_numpy(t):\n    return t.detach().to(device='cpu').numpy()\n",
            "def tensor_to_numpy(t):\n    return t.detach().cpu().numpy().copy()\n",
            # numpy(force=True) detaches and copies to the CPU itself.
            "def tensor_to_numpy(t):\n    return t.numpy(force=True)\n",
            # np.asarray over a detached CPU tensor.
            "def tensor_to_numpy(t):\n    return np.asarray(t.detach().cpu())\n",
            # Inside no_grad, .numpy() accepts a tensor that requires grad.
            "def tensor_to_numpy(t):\n    with torch.no_grad():\n        return t.cpu().numpy()\n",
            # Step by step, only what is needed.
            """def tensor_to_numpy(t):
    if t.requires_grad:
        t = t.detach()
    if t.device.type != "cpu":
        t = t.to("cpu")
    return t.numpy()
""",
        ],
    },
    "to_model_input": {
        "wrong": [
            # Keeps NumPy's dtype.
            "def to_model_input(arr, device):\n    return torch.tensor(arr.copy(), device=device)\n",
            # Right dtype and device, but negative strides are refused.
            "def to_model_input(arr, device):\n    return torch.from_numpy(arr).float().to(device)\n",
            # Forgets the device.
            "def to_model_input(arr, device):\n    return torch.tensor(arr.copy(), dtype=torch.float32)\n",
            # ascontiguousarray turns a 0-d array into a 1-d one.
            "def to_model_input(arr, device):\n    return torch.from_numpy(np.ascontiguousarray(arr, dtype=np.float32)).to(device)\n",
            # float64, not float32.
            "def to_model_input(arr, device):\n    return torch.from_numpy(arr.astype(float)).to(device)\n",
            # Through a list: an empty (0, 3) array comes back with shape (0,).
            "def to_model_input(arr, device):\n    return torch.tensor(arr.tolist(), dtype=torch.float32, device=device)\n",
        ],
        "right": [
            "def to_model_input(arr, device):\n    return torch.tensor(arr.copy(), dtype=torch.float32, device=device)\n",
            "def to_model_input(arr, device):\n    t = torch.from_numpy(arr.copy())\n    return t.to(device=device, dtype=torch.float32)\n",
            "def to_model_input(arr, device):\n    return torch.as_tensor(np.array(arr, dtype=np.float32), device=device)\n",
            "def to_model_input(arr, device):\n    return torch.from_numpy(arr.copy()).float().to(device)\n",
            # Defensive: integers or floats only, device named explicitly.
            """def to_model_input(arr, device):
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"expected integers or floats, got {arr.dtype}")
    return torch.tensor(arr.astype(np.float32), device=torch.device(device))
""",
        ],
    },
    "images_to_batch": {
        "wrong": [
            # torch.from_numpy refuses the negative strides of photos[..., ::-1].
            """def images_to_batch(images, device):
    return torch.from_numpy(images).permute(0, 3, 1, 2).float().div(255).to(device)
""",
            # reshape gives the right shape and scrambles the pixels.
            """def images_to_batch(images, device):
    n, h, w, c = images.shape
    return torch.tensor(images.copy(), dtype=torch.float32, device=device).reshape(n, c, h, w) / 255
""",
            # Forgets to divide by 255: values from 0 to 255.
            """def images_to_batch(images, device):
    return torch.tensor(images.copy(), dtype=torch.float32, device=device).permute(0, 3, 1, 2)
""",
            # (N, C, W, H): height and width swapped.
            """def images_to_batch(images, device):
    return torch.from_numpy(images.copy()).permute(0, 3, 2, 1).float().div(255).to(device)
""",
            # float64: NumPy divides into float64.
            """def images_to_batch(images, device):
    return torch.from_numpy(images / 255.0).permute(0, 3, 1, 2).to(device)
""",
            # ascontiguousarray keeps a negative stride along a dimension of size 1.
            """def images_to_batch(images, device):
    return torch.from_numpy(np.ascontiguousarray(images)).permute(0, 3, 1, 2).float().div(255).to(device)
""",
            # Forgets the device.
            """def images_to_batch(images, device):
    return torch.from_numpy(images.astype(np.float32) / 255).permute(0, 3, 1, 2)
""",
        ],
        "right": [
            """def images_to_batch(images, device):
    return torch.tensor(images.copy(), device=device).permute(0, 3, 1, 2).float() / 255
""",
            # Everything on the NumPy side first.
            """def images_to_batch(images, device):
    return torch.from_numpy(images.transpose(0, 3, 1, 2).astype(np.float32) / 255).to(device)
""",
            # float64 division in NumPy, then float32 on the way in.
            """def images_to_batch(images, device):
    return torch.as_tensor(np.moveaxis(images, -1, 1) / 255.0, dtype=torch.float32, device=device)
""",
            # One image at a time, with the empty batch handled.
            """def images_to_batch(images, device):
    n, h, w, c = images.shape
    if n == 0:
        return torch.zeros(0, c, h, w, dtype=torch.float32, device=device)
    planes = [torch.tensor(img.copy(), dtype=torch.float32).permute(2, 0, 1) for img in images]
    return (torch.stack(planes) / 255).to(device)
""",
            # Dividing a uint8 tensor with / already gives float32.
            """def images_to_batch(images, device):
    x = torch.from_numpy(images.copy()).to(device)
    return x.permute(0, 3, 1, 2) / 255
""",
            """def images_to_batch(images, device):
    x = torch.from_numpy(images.copy()).float()
    return torch.einsum("nhwc->nchw", x).div(255).to(device)
""",
        ],
    },
    "batch_for_plotting": {
        "wrong": [
            # NumPy has no bfloat16, and float64 or float16 images keep their dtype.
            """def batch_for_plotting(x):
    return x.detach().cpu().numpy().transpose(0, 2, 3, 1).clip(0, 1)
""",
            # No clipping.
            """def batch_for_plotting(x):
    return x.detach().cpu().float().permute(0, 2, 3, 1).numpy()
""",
            # .numpy() refuses a tensor that requires grad.
            """def batch_for_plotting(x):
    return x.float().permute(0, 2, 3, 1).clamp(0, 1).cpu().numpy()
""",
            # reshape scrambles the pixels.
            """def batch_for_plotting(x):
    n, c, h, w = x.shape
    return x.detach().cpu().float().clamp(0, 1).reshape(n, h, w, c).numpy()
""",
            # clamp_ on a detached tensor changes x itself.
            """def batch_for_plotting(x):
    return x.detach().clamp_(0, 1).cpu().float().permute(0, 2, 3, 1).numpy()
""",
            # A tensor, not a NumPy array.
            """def batch_for_plotting(x):
    return x.detach().cpu().float().permute(0, 2, 3, 1).clamp(0, 1)
""",
        ],
        "right": [
            """def batch_for_plotting(x):
    return np.clip(x.detach().to("cpu", torch.float32).numpy().transpose(0, 2, 3, 1), 0.0, 1.0)
""",
            """def batch_for_plotting(x):
    return x.detach().float().clamp(0, 1).permute(0, 2, 3, 1).cpu().numpy().copy()
""",
            """def batch_for_plotting(x):
    with torch.no_grad():
        y = torch.clamp(x.to(torch.float32), min=0.0, max=1.0).movedim(1, -1).cpu()
    return y.numpy()
""",
            """def batch_for_plotting(x):
    return x.float().numpy(force=True).transpose(0, 2, 3, 1).clip(0, 1)
""",
            # One image at a time into a preallocated array.
            """def batch_for_plotting(x):
    n, c, h, w = x.shape
    out = np.empty((n, h, w, c), dtype=np.float32)
    source = x.detach().to("cpu", torch.float32)
    for i in range(n):
        out[i] = source[i].permute(1, 2, 0).clamp(0, 1).numpy()
    return out
""",
        ],
    },
    "answer_shared_after_mutation": {
        "wrong": [
            'answer_shared_after_mutation = "A"\n',
            'answer_shared_after_mutation = "D"\n',
            "answer_shared_after_mutation = 5\n",
        ],
        "right": [
            'answer_shared_after_mutation = "B"\n',
            "answer_shared_after_mutation = 'B'  # one buffer\n",
            'answer_shared_after_mutation = " b"\n',
        ],
    },
    "answer_tensor_copies": {
        "wrong": [
            'answer_tensor_copies = "A"\n',
            'answer_tensor_copies = "D"\n',
            "answer_tensor_copies = False\n",
        ],
        "right": [
            'answer_tensor_copies = "C"\n',
            "answer_tensor_copies = str('C')\n",
        ],
    },
    "answer_cuda_numpy": {
        "wrong": [
            'answer_cuda_numpy = "C"\n',
            'answer_cuda_numpy = "A"\n',
            'answer_cuda_numpy = "D"\n',
        ],
        "right": [
            'answer_cuda_numpy = "B"\n',
            "answer_cuda_numpy = 'B'\n",
            'answer_cuda_numpy = "B "\n',
        ],
    },
    "answer_numpy_after_rebind": {
        "wrong": [
            'answer_numpy_after_rebind = "B"\n',
            'answer_numpy_after_rebind = "C"\n',
            'answer_numpy_after_rebind = "D"\n',
        ],
        "right": [
            'answer_numpy_after_rebind = "A"\n',
            'answer_numpy_after_rebind = "a"\n',
            'answer_numpy_after_rebind = " A"\n',
            'answer_numpy_after_rebind = "ABCD"[0]\n',
        ],
    },
    "answer_as_tensor_dtype": {
        "wrong": [
            'answer_as_tensor_dtype = "A"\n',
            'answer_as_tensor_dtype = "C"\n',
            'answer_as_tensor_dtype = "B"\n',
        ],
        "right": [
            'answer_as_tensor_dtype = "D"\n',
            'answer_as_tensor_dtype = "d"\n',
            "answer_as_tensor_dtype = 'D'\n",
            'answer_as_tensor_dtype = "ABCD"[3]\n',
        ],
    },
}

# More ways a student writes the same letter: lower case, spaces, a computed string.
ITEMS["answer_shared_after_mutation"]["right"] += ['answer_shared_after_mutation = "ABCD"[1]\n']
ITEMS["answer_tensor_copies"]["right"] += ['answer_tensor_copies = "c"\n', 'answer_tensor_copies = "\\tC\\n"\n']
ITEMS["answer_cuda_numpy"]["right"] += ['answer_cuda_numpy = chr(ord("A") + 1)\n']


# More answers, each written from the task text and the contract alone, as a student would.
MORE = {
    "answer_shared_after_mutation": {
        "right": [
            """answer_shared_after_mutation = "b"
""",
            """answer_shared_after_mutation = "  B\\n"
""",
        ],
    },
    "answer_tensor_copies": {
        "right": [
            """answer_tensor_copies = 'c'
""",
            """answer_tensor_copies = " C"
""",
        ],
    },
    "answer_cuda_numpy": {
        "right": [
            """answer_cuda_numpy = "b "
""",
            """answer_cuda_numpy = "ABCD"[1]
""",
        ],
    },
    "numpy_to_tensor_shared": {
        "right": [
            '''import torch
def numpy_to_tensor_shared(arr):
    """A tensor over `arr`'s own memory, so that changes to either show in both."""
    return torch.from_numpy(arr)
''',
            '''import torch
def numpy_to_tensor_shared(arr):
    """A tensor over `arr`'s own memory, so that changes to either show in both."""
    return torch.as_tensor(arr)
''',
            '''import torch
def numpy_to_tensor_shared(arr):
    """A tensor over `arr`'s own memory, so that changes to either show in both."""
    return torch.from_dlpack(arr)
''',
        ],
        "wrong": [
            """import torch
def numpy_to_tensor_shared(arr):
    return torch.tensor(arr)
""",
            """import torch
def numpy_to_tensor_shared(arr):
    return torch.asarray(arr)
""",
        ],
    },
    "numpy_to_tensor_copy": {
        "right": [
            '''import torch
def numpy_to_tensor_copy(arr):
    """A tensor with `arr`'s values in memory of its own, so later changes to `arr` do not reach it."""
    return torch.from_numpy(arr.copy())
''',
            '''import numpy as np
import torch
def numpy_to_tensor_copy(arr):
    """A tensor with `arr`'s values in memory of its own, so later changes to `arr` do not reach it."""
    return torch.tensor(np.array(arr, copy=True))
''',
            '''import numpy as np
import torch
def numpy_to_tensor_copy(arr):
    """A tensor with `arr`'s values in memory of its own, so later changes to `arr` do not reach it."""
    dtype = torch.from_numpy(np.empty(0, dtype=arr.dtype)).dtype
    return torch.tensor(arr.tolist(), dtype=dtype).reshape(arr.shape)
''',
        ],
        "wrong": [
            """import torch
def numpy_to_tensor_copy(arr):
    return torch.from_numpy(arr)
""",
            """import numpy as np
import torch
def numpy_to_tensor_copy(arr):
    return torch.tensor(np.ascontiguousarray(arr))
""",
            """import torch
def numpy_to_tensor_copy(arr):
    return torch.tensor(arr)
""",
        ],
    },
    "tensor_to_numpy": {
        "right": [
            '''def tensor_to_numpy(t):
    """`t` as a NumPy array: off the graph and in CPU memory first, because NumPy knows neither."""
    return t.detach().cpu().numpy()
''',
            '''def tensor_to_numpy(t):
    """`t` as a NumPy array: off the graph and in CPU memory first, because NumPy knows neither."""
    return t.numpy(force=True)
''',
            '''import numpy as np
import torch
def tensor_to_numpy(t, copy=True):
    """`t` as a NumPy array: off the graph and in CPU memory first, because NumPy knows neither."""
    with torch.no_grad():
        out = t.to("cpu").numpy()
    return np.array(out, copy=True) if copy else out
''',
        ],
        "wrong": [
            """def tensor_to_numpy(t):
    t.requires_grad_(False)
    return t.cpu().numpy()
""",
        ],
    },
    "to_model_input": {
        "right": [
            '''import numpy as np
import torch
def to_model_input(arr, device):
    """`arr` as the float32 tensor on `device` that a model's layers expect."""
    return torch.tensor(arr.astype(np.float32), device=device)
''',
            '''import torch
def to_model_input(arr, device):
    """`arr` as the float32 tensor on `device` that a model's layers expect."""
    return torch.from_numpy(arr.copy()).float().to(device)
''',
            '''import numpy as np
import torch
def to_model_input(arr, device):
    """`arr` as the float32 tensor on `device` that a model's layers expect."""
    out = torch.empty(arr.shape, dtype=torch.float32, device=device)
    out.copy_(torch.from_numpy(np.array(arr, dtype=np.float32, copy=True)))
    return out
''',
            '''import torch
def to_model_input(arr, device):
    """`arr` as the float32 tensor on `device` that a model's layers expect."""
    return torch.tensor(arr.tolist(), dtype=torch.float32, device=device).reshape(arr.shape)
''',
        ],
        "wrong": [
            """import numpy as np
import torch
def to_model_input(arr, device):
    return torch.from_numpy(np.asarray(arr, dtype=np.float32)).to(device)
""",
            """import torch
def to_model_input(arr, device):
    return torch.from_numpy(arr).float().to(device)
""",
            """import numpy as np
import torch
def to_model_input(arr, device):
    return torch.from_numpy(np.ascontiguousarray(arr, dtype=np.float32)).to(device)
""",
        ],
    },
    "images_to_batch": {
        "right": [
            '''import torch
def images_to_batch(images, device):
    """uint8 images (N, H, W, C), 0 to 255, as a float32 batch (N, C, H, W) in [0, 1] on `device`."""
    return torch.from_numpy(images.copy()).float().div(255).permute(0, 3, 1, 2).to(device)
''',
            '''import numpy as np
import torch
def images_to_batch(images, device):
    """uint8 images (N, H, W, C), 0 to 255, as a float32 batch (N, C, H, W) in [0, 1] on `device`."""
    arr = images.astype(np.float32).transpose(0, 3, 1, 2) / 255
    return torch.from_numpy(arr).to(torch.device(device))
''',
            '''import torch
def images_to_batch(images, device):
    """uint8 images (N, H, W, C), 0 to 255, as a float32 batch (N, C, H, W) in [0, 1] on `device`."""
    t = torch.tensor(images.copy(), device=device)
    planes = [t[..., c].to(torch.float32) / 255.0 for c in range(images.shape[-1])]
    return torch.stack(planes, dim=1).contiguous()
''',
            '''import torch
def images_to_batch(images, device):
    """uint8 images (N, H, W, C), 0 to 255, as a float32 batch (N, C, H, W) in [0, 1] on `device`."""
    x = torch.from_numpy(images.copy()).to(device).movedim(-1, 1)
    return x.float() * (1.0 / 255.0)
''',
            '''import numpy as np
import torch
def images_to_batch(images, device):
    """uint8 images (N, H, W, C), 0 to 255, as a float32 batch (N, C, H, W) in [0, 1] on `device`."""
    chw = np.array(images.transpose(0, 3, 1, 2), copy=True)
    return torch.as_tensor(chw, device=device).float() / 255
''',
        ],
        "wrong": [
            """import torch
def images_to_batch(images, device):
    n, h, w, c = images.shape
    return torch.from_numpy(images.copy()).float().div(255).reshape(n, c, h, w).to(device)
""",
            """import numpy as np
import torch
def images_to_batch(images, device):
    return torch.from_numpy(np.ascontiguousarray(images)).float().div(255).permute(0, 3, 1, 2).to(device)
""",
            """import torch
def images_to_batch(images, device):
    return torch.from_numpy(images / 255.0).permute(0, 3, 1, 2).to(device)
""",
        ],
    },
    "batch_for_plotting": {
        "right": [
            '''def batch_for_plotting(x):
    """A (N, C, H, W) float tensor as the float32 NumPy array (N, H, W, C), clipped to [0, 1], for imshow."""
    return x.detach().cpu().float().permute(0, 2, 3, 1).clamp(0, 1).numpy()
''',
            '''import numpy as np
import torch
def batch_for_plotting(x):
    """A (N, C, H, W) float tensor as the float32 NumPy array (N, H, W, C), clipped to [0, 1], for imshow."""
    arr = x.detach().to("cpu", torch.float32).numpy()
    return np.clip(arr.transpose(0, 2, 3, 1), 0.0, 1.0)
''',
            '''import torch
def batch_for_plotting(x):
    """A (N, C, H, W) float tensor as the float32 NumPy array (N, H, W, C), clipped to [0, 1], for imshow."""
    with torch.no_grad():
        y = torch.clip(x.float(), min=0.0, max=1.0).movedim(1, -1).contiguous()
    return y.numpy(force=True).copy()
''',
            '''import numpy as np
import torch
def batch_for_plotting(x):
    """A (N, C, H, W) float tensor as the float32 NumPy array (N, H, W, C), clipped to [0, 1], for imshow."""
    y = x.detach().clamp(0, 1).to(device="cpu", dtype=torch.float32)
    return np.ascontiguousarray(y.permute(0, 2, 3, 1).numpy())
''',
        ],
        "wrong": [
            """def batch_for_plotting(x):
    n, c, h, w = x.shape
    return x.detach().cpu().float().reshape(n, h, w, c).clamp(0, 1).numpy()
""",
            """def batch_for_plotting(x):
    return x.detach().cpu().float().permute(0, 2, 3, 1).clamp_(0, 1).numpy()
""",
            """import numpy as np
def batch_for_plotting(x):
    return x.detach().cpu().permute(0, 2, 3, 1).clamp(0, 1).numpy().astype(np.float32)
""",
        ],
    },
}
for _item, _table in MORE.items():
    for _kind, _codes in _table.items():
        ITEMS[_item].setdefault(_kind, []).extend(_codes)
