# %% [markdown]
# # Lesson 1: tensors, rank and shape
#
# **You will learn to** create tensors, read their rank and shape, and recognise the
# `(batch, channels, height, width)` layout that image models expect.

# %%
import numpy as np
import torch

from course.device import describe_setup, default_device

device = default_device()
print(describe_setup())

# %% [markdown]
# ## Rank and shape
#
# A tensor's *rank* is its number of dimensions (`t.dim()`); its *shape* (`t.shape`, a `torch.Size`)
# lists the size of each dimension.

# %%
scalar = torch.tensor(3.0)
vector = torch.tensor([1.0, 2.0, 3.0])
matrix = torch.zeros(2, 3)
print(scalar.dim(), vector.dim(), matrix.dim())
print(matrix.shape, tuple(matrix.shape))

# %% [markdown]
# ### Your turn: `numpy_to_tensor_shape`
#
# Make a tensor from a NumPy array and return its shape. It must work for every rank, for empty
# arrays, and for negative-stride views such as `img[..., ::-1]`, which `torch.from_numpy` rejects:
# copy such an array first (`arr.copy()`).

# %% answer numpy_to_tensor_shape
def numpy_to_tensor_shape(arr):
    """Make a tensor from the NumPy array `arr` and return its shape as a tuple of ints."""
    ### BEGIN SOLUTION
    return tuple(torch.from_numpy(arr.copy()).shape)
    ### END SOLUTION

# %% test numpy_to_tensor_shape points=2
import numpy as np
from course.checks import check_shape, passed

check_shape(numpy_to_tensor_shape(np.zeros((2, 3))), (2, 3), what="the shape of a tensor made from np.zeros((2, 3))")
check_shape(numpy_to_tensor_shape(np.arange(5)), (5,), what="the shape of a tensor made from np.arange(5)")
passed("numpy_to_tensor_shape")
### BEGIN HIDDEN TESTS
from course.checks import check_true
from course.probes.core import call_watching_inputs

check_shape(numpy_to_tensor_shape(np.array(7.0)), (), what="the shape of a 0-d array's tensor")
check_shape(numpy_to_tensor_shape(np.zeros((0, 3))), (0, 3), what="the shape of an empty (0, 3) array's tensor")
check_shape(numpy_to_tensor_shape(np.ones((4, 5, 6), dtype=bool)), (4, 5, 6), what="the shape of a bool array's tensor")
image = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
check_shape(numpy_to_tensor_shape(image[..., ::-1]), (2, 3, 4), what="the shape for a negative-stride view img[..., ::-1]")
check_shape(numpy_to_tensor_shape(image.transpose(2, 0, 1)), (4, 2, 3), what="the shape for a transposed (non-contiguous) view")
result, changed = call_watching_inputs(numpy_to_tensor_shape, image[:, ::-1])
check_true(changed == [], "Expected numpy_to_tensor_shape to leave its input array unchanged (measured in your process), but it changed it.")
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `make_image_batch`
#
# Return a zero tensor (float32, CPU, not requiring grad) of shape `(batch_size, channels, height, width)`.
# Any size below 1 is a mistake: raise `ValueError` with a message that says which one.

# %% answer make_image_batch
def make_image_batch(batch_size, channels=3, height=224, width=224):
    """A float32 zero tensor of shape (batch_size, channels, height, width) on the CPU."""
    ### BEGIN SOLUTION
    sizes = {"batch_size": batch_size, "channels": channels, "height": height, "width": width}
    for name, size in sizes.items():
        if size < 1:
            raise ValueError(f"{name} must be at least 1, got {size}")
    return torch.zeros(batch_size, channels, height, width, dtype=torch.float32)
    ### END SOLUTION

# %% test make_image_batch points=2
import torch
from course.checks import check_tensor, passed

check_tensor(make_image_batch(2, 3, 4, 5), torch.zeros(2, 3, 4, 5), what="make_image_batch(2, 3, 4, 5)", requires_grad=False)
check_tensor(make_image_batch(1), torch.zeros(1, 3, 224, 224), what="make_image_batch(1) with the default sizes")
passed("make_image_batch")
### BEGIN HIDDEN TESTS
from course.checks import check_raises

check_tensor(make_image_batch(4, channels=1, height=2, width=3), torch.zeros(4, 1, 2, 3), what="make_image_batch(4, channels=1, height=2, width=3)", requires_grad=False)
check_raises(ValueError, make_image_batch, 0, what="make_image_batch(0)")
check_raises(ValueError, make_image_batch, 2, 0, 4, 4, what="make_image_batch with channels=0")
check_raises(ValueError, make_image_batch, 2, 3, -1, 4, what="make_image_batch with height=-1")
check_raises(ValueError, make_image_batch, 2, 3, 4, 0, what="make_image_batch with width=0")
### END HIDDEN TESTS

# %% answer tensor_rank
def tensor_rank(t):
    """The number of dimensions of `t` as an int (0 for a scalar tensor)."""
    ### BEGIN SOLUTION
    return t.dim()
    ### END SOLUTION

# %% test tensor_rank points=1
import torch
from course.checks import check_equal, passed

check_equal(tensor_rank(torch.zeros(2, 3)), 2, what="tensor_rank(torch.zeros(2, 3))")
passed("tensor_rank")
### BEGIN HIDDEN TESTS
check_equal(tensor_rank(torch.tensor(5.0)), 0, what="the rank of a scalar tensor")
check_equal(tensor_rank(torch.zeros(0, 3)), 2, what="the rank of an empty (0, 3) tensor")
check_equal(tensor_rank(torch.zeros(1, 1, 1, 1, 1)), 5, what="the rank of a (1, 1, 1, 1, 1) tensor")
check_equal(tensor_rank(torch.ones(3, requires_grad=True)), 1, what="the rank of a vector that requires grad")
### END HIDDEN TESTS

# %% answer describe
def describe(t):
    """A dict with exactly the keys "shape", "dtype", "device" and "requires_grad"."""
    ### BEGIN SOLUTION
    return {
        "shape": tuple(t.shape),
        "dtype": str(t.dtype).removeprefix("torch."),
        "device": str(t.device),
        "requires_grad": t.requires_grad,
    }
    ### END SOLUTION

# %% test describe points=2
import torch
from course.checks import check_equal, passed

check_equal(
    describe(torch.zeros(2, 3)),
    {"shape": (2, 3), "dtype": "float32", "device": "cpu", "requires_grad": False},
    what="describe(torch.zeros(2, 3))",
)
passed("describe")
### BEGIN HIDDEN TESTS
from course.device import test_devices

check_equal(
    describe(torch.ones(4, dtype=torch.int64, requires_grad=False)),
    {"shape": (4,), "dtype": "int64", "device": "cpu", "requires_grad": False},
    what="describe of an int64 vector",
)
check_equal(
    describe(torch.tensor(1.5, dtype=torch.float64, requires_grad=True)),
    {"shape": (), "dtype": "float64", "device": "cpu", "requires_grad": True},
    what="describe of a 0-d float64 tensor that requires grad",
)
for dev in test_devices(meta=True):
    t = torch.zeros(3, 1, dtype=torch.float16, device=dev)
    check_equal(
        describe(t),
        {"shape": (3, 1), "dtype": "float16", "device": str(t.device), "requires_grad": False},
        what=f"describe of a tensor on {t.device}",
    )
### END HIDDEN TESTS

# %% [markdown]
# ### Quiz: the shape of a batch
#
# What is the shape of a batch of 32 RGB images of 224x224 pixels, in PyTorch's layout?
# Answer with a tuple of ints.

# %% answer answer_batch_shape
# A tuple of ints, for example (1, 2, 3).
answer_batch_shape = None
### BEGIN SOLUTION
answer_batch_shape = (32, 3, 224, 224)
### END SOLUTION

# %% test answer_batch_shape points=1
from course.quiz import check_int_tuple
from course.checks import passed

check_int_tuple(answer_batch_shape, name="answer_batch_shape", length=4)
passed("answer_batch_shape", "(Only the form is checked here.)")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_batch_shape, (32, 3, 224, 224), name="answer_batch_shape",
          why="PyTorch puts the batch first, then channels, then height and width: (32, 3, 224, 224).")
### END HIDDEN TESTS

# %% [markdown]
# ### Quiz: what a 3D tensor holds
#
# Which of these does a 3D tensor most naturally hold?
#
# - **A.** a single number
# - **B.** a table of numbers, such as a spreadsheet
# - **C.** a single colour image (channels, height, width)
# - **D.** a batch of colour images

# %% answer answer_rank_meaning
# One upper-case letter as a string, for example "A".
answer_rank_meaning = None
### BEGIN SOLUTION
answer_rank_meaning = "C"
### END SOLUTION

# %% test answer_rank_meaning points=1
from course.quiz import check_choice
from course.checks import passed

check_choice(answer_rank_meaning, "ABCD", name="answer_rank_meaning")
passed("answer_rank_meaning", "(Only the form is checked here.)")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_rank_meaning, "C", name="answer_rank_meaning",
          why="A single number is rank 0, a table rank 2, one colour image rank 3 (channels, height, width), and a batch of images rank 4.")
### END HIDDEN TESTS
