"""Wrong and right answers for lesson 04 (NumPy interop), as students write them.

The wrong answers copy where memory must be shared and share where it must be copied, trip over
negative strides, 0-d arrays and tensors that require grad, change their input, or get the dtype or
device wrong.
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
        ],
        "right": [
            "def numpy_to_tensor_copy(arr):\n    return torch.tensor(arr.copy())\n",
            "def numpy_to_tensor_copy(arr):\n    return torch.from_numpy(np.array(arr))\n",
            "def numpy_to_tensor_copy(arr):\n    return torch.from_numpy(arr.copy()).clone()\n",
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
        ],
        "right": [
            "def to_model_input(arr, device):\n    return torch.tensor(arr.copy(), dtype=torch.float32, device=device)\n",
            "def to_model_input(arr, device):\n    t = torch.from_numpy(arr.copy())\n    return t.to(device=device, dtype=torch.float32)\n",
            "def to_model_input(arr, device):\n    return torch.as_tensor(np.array(arr, dtype=np.float32), device=device)\n",
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
        ],
    },
    "answer_tensor_copies": {
        "wrong": [
            'answer_tensor_copies = "A"\n',
            'answer_tensor_copies = "D"\n',
            "answer_tensor_copies = False\n",
        ],
        "right": [
            'answer_tensor_copies = "B"\n',
            "answer_tensor_copies = str('B')\n",
        ],
    },
    "answer_cuda_numpy": {
        "wrong": [
            'answer_cuda_numpy = "C"\n',
            'answer_cuda_numpy = "A"\n',
            'answer_cuda_numpy = "B "\n',
        ],
        "right": [
            'answer_cuda_numpy = "B"\n',
            "answer_cuda_numpy = 'B'\n",
        ],
    },
}
