# %% [markdown]
# # reshaping, broadcasting and reductions
#
# Many bugs in a training pipeline are shape bugs: a tensor with its dimensions in the wrong order,
# one dimension too many, or a mean taken over the wrong axis. This lesson is about reading and
# changing shapes on purpose.
#
# **You will learn to**
#
# - tell a *view* (new shape, same memory) from a *copy*, and read `stride()` and `is_contiguous()`;
# - choose between `view` and `reshape`, and know why `view` sometimes refuses;
# - reorder dimensions with `permute`, `transpose` and `.t()`, and add or drop size-1 dimensions
#   with `unsqueeze` and `squeeze`;
# - predict the shape of `a + b` with the broadcasting rules;
# - reduce along a chosen dimension with `sum` and `mean`, using `dim` and `keepdim`;
# - multiply matrices with `@`;
# - spot the shape mistakes that run without an error and give wrong numbers.

# %%
import torch

from course.device import describe_setup
from course.pictures.shapes import broadcast_alignment, memory_order, patch_grid

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(describe_setup(device))

# %% [markdown]
# ## What the dimensions mean
#
# A shape is a list of sizes, and each position has a meaning that *you* give it. PyTorch never
# checks that meaning; it only checks sizes. In a vision model the usual meanings are:
#
# | rank | shape | what it holds |
# |---|---|---|
# | 2 | `(batch, features)` | one row of features per example: what `nn.Linear` expects |
# | 3 | `(channels, height, width)` | one colour image |
# | 4 | `(batch, channels, height, width)` | a batch of colour images: what `nn.Conv2d` expects |
#
# Every layer reads its input's dimensions in a fixed order. Feed it a tensor whose sizes fit but
# whose meanings are in another order, and it computes garbage without complaint. So read the shape
# before each step, and say what each dimension means.

# %%
images = torch.randn(16, 3, 8, 8, device=device)        # batch, channels, height, width
layer = torch.nn.Linear(3 * 8 * 8, 2).to(device)         # wants (batch, features)
features = images.reshape(16, -1)                         # one row of 192 numbers per image
scores = layer(features)
print("images  ", tuple(images.shape))
print("features", tuple(features.shape))
print("scores  ", tuple(scores.shape), "-> one score per class, per image")

# %% [markdown]
# ## Memory, strides and views
#
# A tensor is a block of memory plus a recipe for reading it: the shape, and the *stride* of each
# dimension, which says how many elements to skip in memory to move one step along that dimension.
# `x.stride()` shows the recipe. A tensor whose rows sit one after another in memory, in order, is
# *contiguous* (`x.is_contiguous()`).

# %%
x = torch.arange(6, device=device).reshape(2, 3)
print(x)
print("shape", tuple(x.shape), "stride", x.stride(), "contiguous:", x.is_contiguous())

# %% [markdown]
# Many shape operations build a new recipe over the **same memory** instead of copying. Such a
# result is a *view*: writing through it changes the original. `x.t()` (transpose) is a view: it
# only swaps the strides, so reading it row by row jumps around in memory, and it is no longer
# contiguous.

# %%
def same_memory(a, b):
    """Whether a and b read the same block of memory (their storages start at one address)."""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


xt = x.t()
print("x.t() shape", tuple(xt.shape), "stride", xt.stride(), "contiguous:", xt.is_contiguous())
xt[0, 1] = 100                       # a write through the view...
print(x)                             # ...shows in x: same memory
print("same memory:", same_memory(xt, x))
x[0, 1] = 1                          # put the value back

# %% [markdown]
# `same_memory` compares the start of the two *storages*, the blocks of memory the tensors read.
# `t.data_ptr()` is the address of `t`'s own first element instead, and a view that starts further
# in has another one: `x[1]` shares `x`'s memory, yet `x[1].data_ptr() != x.data_ptr()`.

# %%
print("x[1]: data_ptr equal:", x[1].data_ptr() == x.data_ptr(), " same storage:", same_memory(x[1], x))

# %% [markdown]
# The picture shows both recipes over the one strip of memory. Reading `x` row by row visits the
# slots in order; reading `x.t()` row by row jumps.

# %%
memory_order(2, 3)

# %% [markdown]
# `x.contiguous()` returns the tensor itself when it is already contiguous, and otherwise a copy
# laid out in order. `x.clone()` always copies.

# %%
fixed = xt.contiguous()
print("stride", fixed.stride(), "contiguous:", fixed.is_contiguous(), "same memory:", same_memory(fixed, x))

# %% [markdown]
# ## View versus reshape
#
# Both give the same elements, read in row-major order (last dimension fastest), under a new shape.
# One size may be `-1`: PyTorch works it out from the others.
#
# - `x.view(shape)` **never copies**. It only works when the new shape can be described with new
#   strides over the existing memory; otherwise it raises a `RuntimeError`.
# - `x.reshape(shape)` returns a view when it can, and a copy when it must. It works whenever the
#   sizes add up (mind one trap with `-1`, below).

# %%
grid = torch.arange(12, device=device).reshape(3, 4)
flat = grid.view(-1)
print(flat, "view shares memory:", same_memory(flat, grid))
cube = torch.arange(24, device=device).reshape(2, 3, 4)
try:
    cube.transpose(1, 2).view(-1)
except RuntimeError as error:
    print("view after transpose(1, 2) raised RuntimeError:", error)
copied = cube.transpose(1, 2).reshape(-1)
print(copied[:6], "... reshape shares memory:", same_memory(copied, cube))

# %% [markdown]
# So after a `permute` or a transpose, use `reshape` (or call `.contiguous()` first, then `view`).
# Use `view` when you *want* to be sure no copy is made, for example when you write through the
# result.
#
# One more trap: `-1` cannot be worked out when the tensor has no elements and another size is 0,
# because any number would fit. `torch.flatten(x, start_dim=1)` (or `x.flatten(1)`) keeps the first
# dimension and merges all the others, and it handles that case.

# %%
empty_batch = torch.zeros(0, 3, 4, 4, device=device)
try:
    empty_batch.reshape(0, -1)
except RuntimeError as error:
    print("reshape(0, -1) raised RuntimeError:", error)
print(tuple(empty_batch.flatten(1).shape), tuple(empty_batch.reshape(0, 3 * 4 * 4).shape))

# %% [markdown]
# **Try it.** Make `y = torch.arange(24).reshape(2, 3, 4)`. Which of `y.view(6, 4)`, `y.view(4, 6)`,
# `y.permute(2, 0, 1).view(-1)` work? Predict first, then run them, and compare `stride()`s.

# %%
y = torch.arange(24).reshape(2, 3, 4)
print(y.view(6, 4).stride())

# %% [markdown]
# ### Memory formats
#
# A `(B, C, H, W)` batch can keep its shape and its values and still store them in another order.
# `x.to(memory_format=torch.channels_last)` keeps the `C` channel values of each pixel next to each
# other, as a `(B, H, W, C)` tensor would store them, in one dense block with no gaps: its strides
# become `(H*W*C, 1, W*C, C)`. The shape stays `(B, C, H, W)`, and "contiguous" means row-major
# for the tensor's own shape, so `is_contiguous()` is `False` while
# `is_contiguous(memory_format=torch.channels_last)` is `True`. Convolutions on a GPU are often
# faster on that layout. It is a layout, not a shape: lessons {01_tensors} and {04_numpy} say "channels last" for an
# image whose *shape* is `(H, W, C)`, which `to_channels_last` below makes with `permute`.

# %%
nchw = torch.arange(24, device=device).reshape(2, 3, 2, 2)
stored_nhwc = nchw.to(memory_format=torch.channels_last)
print(tuple(stored_nhwc.shape), "stride", stored_nhwc.stride(), "contiguous:", stored_nhwc.is_contiguous(),
      "| channels_last:", stored_nhwc.is_contiguous(memory_format=torch.channels_last),
      "| same values:", torch.equal(stored_nhwc, nchw))

# %% [markdown]
# ### Your turn: `flatten_images`
#
# **To write:** `flatten_images(x)` turns a batch `(B, C, H, W)` into a matrix `(B, C*H*W)`, one row
# per image.
#
# Turn a batch of images `(B, C, H, W)` into a matrix `(B, C*H*W)`: one row per image, each row the
# image's values in row-major order (all of channel 0, then channel 1, ...), as `nn.Linear` wants.
# It must work when the batch is not contiguous in memory (after a `permute`, or stored as
# `x.to(memory_format=torch.channels_last)`), and for an empty batch (`B = 0`). Keep the dtype.

# %% answer flatten_images
def flatten_images(x):
    """(B, C, H, W) to (B, C*H*W), row-major, whatever the memory layout of x."""
    ### BEGIN SOLUTION
    return x.flatten(1)
    ### END SOLUTION

# %% test flatten_images points=2
import torch
from course.checks import check_tensor, passed

x = torch.arange(24).reshape(2, 3, 2, 2)
check_tensor(flatten_images(x), torch.arange(24).reshape(2, 12), what="flatten_images of a (2, 3, 2, 2) batch")
x_channels_last = x.to(memory_format=torch.channels_last)  # same values and shape, memory in (B, H, W, C) order
check_tensor(flatten_images(x_channels_last), torch.arange(24).reshape(2, 12),
             what="flatten_images of a (2, 3, 2, 2) batch stored channels-last (not contiguous)")
passed("flatten_images")
### BEGIN HIDDEN TESTS
from course.checks import check_runs, check_true
from course.device import test_devices
from course.probes.core import call_watching_inputs

for dev in test_devices():
    g = torch.Generator().manual_seed(5)
    watched = torch.randn(2, 4, 3, 3, generator=g).to(dev).permute(0, 3, 1, 2)
    result, changed = check_runs(call_watching_inputs, flatten_images, watched,
                                 what=f"flatten_images of a (2, 3, 4, 3) batch made by permute on {dev}")
    check_true(changed == [], f"Expected flatten_images to leave its input batch unchanged (measured in your process), but it changed it on {dev}.")
    permuted = torch.randn(3, 5, 7, 2, generator=g).to(dev).permute(0, 3, 1, 2)
    swapped = torch.randn(2, 3, 5, 4, generator=g).to(dev).transpose(2, 3)
    strided = torch.randn(2, 3, 6, 5, generator=g).to(dev)[:, :, ::2, :]
    single = torch.randn(1, 1, 3, 3, generator=g).to(dev)
    pixels = torch.randn(4, 6, 1, 1, generator=g).to(dev)
    counts = torch.arange(60, device=dev).reshape(2, 5, 2, 3).permute(0, 3, 2, 1)
    tracked = torch.randn(2, 3, 4, 4, generator=g).to(dev).requires_grad_()
    cases = [
        ("a (3, 2, 5, 7) batch made by permute (not contiguous)", permuted, permuted.contiguous().view(3, 70)),
        ("a (2, 3, 4, 5) batch made by transpose(2, 3)", swapped, swapped.contiguous().view(2, 60)),
        ("a sliced batch x[:, :, ::2, :] (not contiguous)", strided, strided.contiguous().view(2, 45)),
        ("a (1, 1, 3, 3) batch", single, single.contiguous().view(1, 9)),
        ("a (4, 6, 1, 1) batch", pixels, pixels.contiguous().view(4, 6)),
        ("an empty batch (0, 3, 4, 5)", torch.zeros(0, 3, 4, 5, device=dev), torch.zeros(0, 60, device=dev)),
        ("an int64 batch (dtype kept)", counts, counts.contiguous().view(2, 30)),
        ("a batch that requires grad", tracked, tracked.detach().contiguous().view(2, 48)),
    ]
    for label, batch, expected in cases:
        what = f"flatten_images of {label} on {dev}"
        check_tensor(check_runs(flatten_images, batch, what=what), expected, what=what)
### END HIDDEN TESTS

# %% [markdown]
# ### Quiz: `view` after a transpose
#
# `x = torch.arange(6).reshape(2, 3)`. What does `x.t().view(-1)` do?
#
# - **A.** It returns the six numbers in the transposed order, `0, 3, 1, 4, 2, 5`, as a view of `x`.
# - **B.** It returns `0, 1, 2, 3, 4, 5`: `view` ignores the transpose and reads memory in order.
# - **C.** It raises a `RuntimeError`: `x.t()` is not contiguous, so use `reshape`.
# - **D.** It quietly copies the data, then returns `0, 3, 1, 4, 2, 5`.

# %% answer answer_view_after_transpose quiz=rule
# One upper-case letter as a string, for example "A".
answer_view_after_transpose = None
### BEGIN SOLUTION
answer_view_after_transpose = "C"
### END SOLUTION

# %% test answer_view_after_transpose points=1
from course.quiz import check_choice, form_checked

check_choice(answer_view_after_transpose, "ABCD", name="answer_view_after_transpose")
form_checked("answer_view_after_transpose")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_view_after_transpose, "C", name="answer_view_after_transpose",
          why="x.t() has strides (1, 3): its rows are not laid out one after another in memory, so no single stride "
              "can read it as one flat run. view never copies, so it raises a RuntimeError; reshape (or "
              ".contiguous().view(-1)) makes the copy and returns 0, 3, 1, 4, 2, 5.")
### END HIDDEN TESTS

# %% [markdown]
# ## Reordering dimensions: permute, transpose and t()
#
# `reshape` keeps the row-major order of the elements and only regroups them. To change which
# dimension means what, move the dimensions themselves:
#
# - `x.permute(*dims)` puts the dimensions in the order you list: `x.permute(0, 2, 3, 1)` turns
#   `(B, C, H, W)` into `(B, H, W, C)`, and `out[b, h, w, c]` is `x[b, c, h, w]`.
# - `x.transpose(i, j)` swaps two dimensions; `x.t()` is `transpose(0, 1)` for a matrix (2D at
#   most), and so is `x.T`. With more dimensions `x.T` reverses them all, a use PyTorch warns is
#   deprecated; `x.mT` swaps the last two, whatever comes before them.
#
# All three return views (no copy), which are usually not contiguous.

# %%
batch = torch.arange(2 * 3 * 2 * 4, device=device).reshape(2, 3, 2, 4)  # (B, C, H, W)
last = batch.permute(0, 2, 3, 1)                                         # (B, H, W, C)
print(tuple(last.shape), "stride", last.stride(), "contiguous:", last.is_contiguous())
print("pixel (0, 1, 2) of image 0, all channels:", last[0, 1, 2].tolist(), "=", batch[0, :, 1, 2].tolist())
print("transpose(1, 3):", tuple(batch.transpose(1, 3).shape), " <- (B, W, H, C): height and width swapped too")

# %% [markdown]
# Why does order matter if the sizes fit? `reshape(2, 2, 4, 3)` gives the same shape as the
# `permute` above, but it only regroups the elements in memory order, so each "pixel" now holds
# three numbers that sit next to each other in memory (some from one channel, some straddling two
# channels), not the three channels of one pixel.

# %%
wrong = batch.reshape(2, 2, 4, 3)
print("reshape:", wrong[0, 1, 2].tolist(), " permute:", last[0, 1, 2].tolist())

# %% [markdown]
# ### Your turn: `to_channels_last`
#
# **To write:** `to_channels_last(x)` turns `(B, C, H, W)` into `(B, H, W, C)`.
#
# Turn `(B, C, H, W)` into `(B, H, W, C)` so that `out[b, h, w, c] == x[b, c, h, w]`: each pixel
# ends up holding its channel values together. Images are not always square. It must work for any
# batch size (`B = 0` included), any number of channels, any dtype (which it keeps), batches that
# are not contiguous and batches that require grad, and leave `x` unchanged.

# %% answer to_channels_last
def to_channels_last(x):
    """(B, C, H, W) to (B, H, W, C): out[b, h, w, c] == x[b, c, h, w]."""
    ### BEGIN SOLUTION
    return x.permute(0, 2, 3, 1)
    ### END SOLUTION

# %% test to_channels_last points=2
import torch
from course.checks import check_shape, check_slip, check_tensor, passed

x = torch.arange(12).reshape(1, 3, 2, 2)  # one image, 3 channels, 2x2 pixels
expected = torch.tensor([[[[0, 4, 8], [1, 5, 9]],
                          [[2, 6, 10], [3, 7, 11]]]])  # each pixel holds its 3 channel values
found = to_channels_last(x)
check_slip(found, x.reshape(1, 2, 2, 3),
           message="to_channels_last of torch.arange(12).reshape(1, 3, 2, 2) gave x.reshape(1, 2, 2, 3): reshape regroups "
                   "the elements in memory order, so each 'pixel' holds three numbers that sit side by side in memory "
                   "(3, 4, 5 straddle channels 0 and 1), not its three channel values. Move the channel dimension with "
                   "permute instead.")
check_tensor(found, expected, what="to_channels_last of torch.arange(12).reshape(1, 3, 2, 2)")
check_shape(tuple(to_channels_last(torch.zeros(2, 3, 4, 5)).shape), (2, 4, 5, 3),
            what="the shape of to_channels_last for a (2, 3, 4, 5) batch (H=4, W=5)")
passed("to_channels_last")
### BEGIN HIDDEN TESTS
from course.checks import check_runs, check_true
from course.device import test_devices
from course.probes.core import call_watching_inputs

for dev in test_devices():
    g = torch.Generator().manual_seed(7)
    watched = torch.randn(2, 3, 4, 5, generator=g).to(dev)
    result, changed = check_runs(call_watching_inputs, to_channels_last, watched,
                                 what=f"to_channels_last of a (2, 3, 4, 5) batch on {dev}")
    check_true(changed == [], f"Expected to_channels_last to leave its input batch unchanged (measured in your process), but it changed it on {dev}.")
    x = torch.randn(2, 3, 4, 5, generator=g).to(dev)
    odd = torch.randn(3, 2, 7, 5, generator=g).to(dev)
    stored_last = torch.randn(2, 5, 3, 4, generator=g).to(dev).permute(0, 3, 1, 2)
    gray = torch.randn(4, 1, 3, 2, generator=g).to(dev)
    empty = torch.zeros(0, 3, 2, 5, device=dev)
    counts = torch.arange(60, device=dev).reshape(1, 3, 4, 5)
    tracked = torch.randn(2, 3, 2, 3, generator=g).to(dev).requires_grad_()
    cases = [
        ("a (2, 3, 4, 5) batch", x),
        ("a (3, 2, 7, 5) batch", odd),
        ("a (2, 4, 5, 3) batch made by permute (not contiguous)", stored_last),
        ("a one-channel (4, 1, 3, 2) batch", gray),
        ("an empty batch (0, 3, 2, 5)", empty),
        ("an int64 batch (dtype kept)", counts),
        ("a batch that requires grad", tracked),
    ]
    for label, batch in cases:
        expected = batch.detach().permute(0, 2, 3, 1).clone()
        what = f"to_channels_last of {label} on {dev}"
        check_tensor(check_runs(to_channels_last, batch, what=what), expected, what=what)
### END HIDDEN TESTS

# %% [markdown]
# ## Practice: cutting images into patches
#
# A vision transformer reads an image as a sequence of small square patches, each flattened into one
# row of numbers. Getting there takes the moves of this lesson one after another:
#
# 1. **split** each spatial dimension in two with `reshape`: the height `H` becomes `H // p` patch
#    rows of `p` pixels each, and the width likewise;
# 2. **move** dimensions with `permute`, so that the two patch indices come right after the batch,
#    and everything that belongs to one patch (its channel, row and column inside the patch) comes
#    last, in that order;
# 3. **merge** with `reshape` again: the two patch indices into one, the rest into one row.
#
# The picture numbers the pixels of a 4x6 one-channel image and its 2x2 patches. Patch 1, for
# example, should become the row `2, 3, 8, 9`.

# %%
patch_grid(4, 6, 2)

# %%
img = torch.arange(24, device=device).reshape(1, 1, 4, 6)    # (B, C, H, W) = (1, 1, 4, 6); patches of p = 2
split = img.reshape(1, 1, 2, 2, 3, 2)                        # (B, C, H // p, p, W // p, p)
print(split[0, 0, 0, :, 1, :].tolist(), "<- patch row 0, patch column 1: patch 1")
print(img.reshape(1, 6, 4)[0, 1].tolist(), "<- a plain reshape to (1, 6, 4) gives row 1 = the wrong pixels")

# %% [markdown]
# **Try it.** In which order must `permute` put the six dimensions of `split`? After it, why does the
# last step need `reshape` rather than `view`?
#
# ### Your turn: `image_patches`
#
# **To write:** `image_patches(x, p)` cuts each image of a batch into `p` by `p` patches, one row
# per patch: `(B, L, C*p*p)`.
#
# For a batch `x` of shape `(B, C, H, W)` and a patch size `p` that divides both `H` and `W`, return
# the tensor of shape `(B, L, C*p*p)` with `L = (H // p) * (W // p)`. Patches are numbered row by
# row: patch `i * (W // p) + j` of image `b` is the block in patch row `i` and patch column `j`,
# `x[b, :, i*p:(i+1)*p, j*p:(j+1)*p]`, and its row holds that block's values in row-major order (all
# of channel 0, then channel 1, ...). It must work for float32 and float64 batches (the dtype is
# kept) on any device, for batches that are not contiguous and batches that require grad, for
# `p = 1` and for `p` equal to both `H` and `W`, for images that are not square, and for an empty
# batch (`B = 0`); `x` stays unchanged.

# %% answer image_patches
def image_patches(x, p):
    """(B, C, H, W) to (B, (H//p)*(W//p), C*p*p): each image's p x p patches, row by row, each flattened."""
    ### BEGIN SOLUTION
    B, C, H, W = x.shape
    patches = x.reshape(B, C, H // p, p, W // p, p).permute(0, 2, 4, 1, 3, 5)
    return patches.reshape(B, (H // p) * (W // p), C * p * p)
    ### END SOLUTION

# %% test image_patches points=2
import torch
from course.checks import check_tensor, passed

x = torch.arange(24.0).reshape(1, 1, 4, 6)  # the image in the picture
expected = torch.tensor([[[0.0, 1, 6, 7], [2, 3, 8, 9], [4, 5, 10, 11],
                          [12, 13, 18, 19], [14, 15, 20, 21], [16, 17, 22, 23]]])  # (1, 6, 4): one row per patch
check_tensor(image_patches(x, 2), expected, what="image_patches of the 4x6 image in the picture, p=2")
two = torch.arange(8.0).reshape(1, 2, 2, 2)  # two channels, 2x2 pixels: one patch when p=2
check_tensor(image_patches(two, 2), torch.arange(8.0).reshape(1, 1, 8),
             what="image_patches of a two-channel 2x2 image, p=2 (one patch: all of channel 0, then channel 1)")
passed("image_patches")
### BEGIN HIDDEN TESTS
from course.checks import check_runs, check_true
from course.device import test_devices
from course.probes.core import call_watching_inputs


def patches_by_loop(x, p):
    B, C, H, W = x.shape
    out = torch.zeros(B, (H // p) * (W // p), C * p * p, dtype=x.dtype, device=x.device)
    for b in range(B):
        for i in range(H // p):
            for j in range(W // p):
                out[b, i * (W // p) + j] = x[b, :, i * p:(i + 1) * p, j * p:(j + 1) * p].reshape(-1)
    return out


for dev in test_devices():
    g = torch.Generator().manual_seed(17)
    watched = torch.randn(2, 3, 4, 6, generator=g).to(dev)
    result, changed = check_runs(call_watching_inputs, image_patches, watched, 2, what=f"image_patches of a (2, 3, 4, 6) batch, p=2, on {dev}")
    check_true(changed == [], f"Expected image_patches to leave x unchanged (measured in your process), but it changed it on {dev}.")
    cases = [
        ("a (2, 3, 8, 12) batch, p=4", torch.randn(2, 3, 8, 12, generator=g).to(dev), 4),
        ("a (3, 2, 6, 4) batch, p=2", torch.randn(3, 2, 6, 4, generator=g).to(dev), 2),
        ("a (2, 3, 3, 5) batch, p=1 (every pixel a patch)", torch.randn(2, 3, 3, 5, generator=g).to(dev), 1),
        ("a (2, 3, 4, 4) batch, p=4 (the whole image one patch)", torch.randn(2, 3, 4, 4, generator=g).to(dev), 4),
        ("a (2, 3, 8, 6) batch made by permute (not contiguous), p=2",
         torch.randn(2, 8, 6, 3, generator=g).to(dev).permute(0, 3, 1, 2), 2),
        ("a (2, 3, 4, 6) batch stored channels-last (not contiguous), p=2",
         torch.randn(2, 3, 4, 6, generator=g).to(dev).to(memory_format=torch.channels_last), 2),
        ("a float64 (1, 2, 6, 6) batch, p=3 (dtype kept)", torch.randn(1, 2, 6, 6, generator=g, dtype=torch.float64).to(dev), 3),
        ("an empty batch (0, 3, 4, 4), p=2", torch.zeros(0, 3, 4, 4, device=dev), 2),
        ("a (2, 3, 4, 4) batch that requires grad, p=2", torch.randn(2, 3, 4, 4, generator=g).to(dev).requires_grad_(), 2),
    ]
    for label, x, p in cases:
        what = f"image_patches of {label} on {dev}"
        check_tensor(check_runs(image_patches, x, p, what=what), patches_by_loop(x.detach(), p), what=what)
### END HIDDEN TESTS

# %% [markdown]
# ## Adding and removing size-1 dimensions: squeeze and unsqueeze
#
# A dimension of size 1 holds no extra data, but it changes how a tensor lines up with others.
#
# - `x.unsqueeze(d)` inserts a size-1 dimension at position `d`: a single image `(C, H, W)`
#   becomes a batch of one, `(1, C, H, W)`, with `unsqueeze(0)`. Indexing with `None` does the
#   same: `x[None]`, `v[:, None]`.
# - `x.squeeze(d)` removes dimension `d` if its size is 1 (and does nothing otherwise).
#   `x.squeeze()` with no argument removes **every** size-1 dimension, which is risky.

# %%
image = torch.randn(3, 8, 8, device=device)
one_batch = image.unsqueeze(0)
print(tuple(image.shape), "->", tuple(one_batch.shape))
row = torch.tensor([1.0, 2.0, 3.0], device=device)
print(tuple(row.unsqueeze(0).shape), tuple(row.unsqueeze(1).shape), tuple(row[:, None].shape))
scores = torch.randn(1, 10, 1, device=device)     # one example, ten scores, a stray size-1 dimension
print(tuple(scores.squeeze(2).shape), "<- only dim 2 removed;", tuple(scores.squeeze().shape), "<- the batch dimension went too")

# %% [markdown]
# **Try it.** Make a batch of one grayscale image, `torch.zeros(1, 1, 28, 28)`, and call
# `.squeeze()` on it. What shape is left, and what would a layer expecting `(B, C, H, W)` think it is?

# %%
print(tuple(torch.zeros(1, 1, 28, 28).squeeze().shape))

# %% [markdown]
# ## Broadcasting
#
# Element-wise operations (`+`, `-`, `*`, `/`, comparisons) accept tensors of different shapes
# when the shapes are *compatible*. To check, PyTorch (like NumPy):
#
# 1. writes the two shapes one above the other, **lined up from the right**;
# 2. treats a missing dimension on the left as size 1;
# 3. compares each column: the sizes must be equal, or one of them must be 1. A size 1 is
#    *stretched* to the other size (the same values reused, nothing copied).
#
# The result has, in each column, the common size when the two are equal, and otherwise the size
# that is not 1: usually the larger one, but a 0 against a 1 gives 0 (an empty batch stays empty).
# If some column has two different sizes and neither is 1, the operation raises a `RuntimeError`.
#
# An in-place operation such as `a.add_(b)` writes its result into `a`, so broadcasting may stretch
# `b` but never `a`: the result must have `a`'s shape. `torch.zeros(2, 3).add_(torch.ones(3))` works,
# and `torch.zeros(3).add_(torch.ones(2, 3))` raises a `RuntimeError`, although
# `torch.zeros(3) + torch.ones(2, 3)` is fine.
#
# Subtracting a per-channel mean of shape `(1, 3, 1, 1)` from a batch `(4, 3, 2, 2)` works: the
# channel sizes match, and every other size of the mean is 1 and stretches. In these pictures,
# orange boxes are size-1 dimensions that stretch, dashed grey boxes are missing dimensions
# (counted as 1), and red boxes are sizes that clash.

# %%
broadcast_alignment((4, 3, 2, 2), (1, 3, 1, 1), names=("batch", "mean"))

# %% [markdown]
# A mean of shape `(3,)` is lined up with the **last** dimension, the width, not with the channels.
# Here the width is 2, so the shapes clash. (Had the width been 3, it would have run and subtracted
# the wrong numbers: the rules compare sizes, not meanings.)

# %%
broadcast_alignment((4, 3, 2, 2), (3,), names=("batch", "mean"))

# %%
batch = torch.randn(4, 3, 2, 2, device=device)
channel_mean = torch.tensor([0.5, 0.4, 0.3], device=device)
print(tuple((batch - channel_mean.view(1, 3, 1, 1)).shape))
try:
    batch - channel_mean
except RuntimeError as error:
    print("RuntimeError:", error)

# %% [markdown]
# Stretching costs no memory: `expand` shows what broadcasting does under the hood, a view whose
# stride is 0 along the stretched dimension, so every step reads the same element again.

# %%
column = torch.tensor([[1.0], [2.0], [3.0]], device=device)   # (3, 1)
stretched = column.expand(3, 5)
print(tuple(stretched.shape), "stride", stretched.stride())

# %% [markdown]
# **Try it.** Draw your own: `broadcast_alignment((8, 1, 6, 1), (7, 1, 5))`. Predict the result
# shape first, then check it with `torch.zeros(8, 1, 6, 1) + torch.zeros(7, 1, 5)`.

# %%
broadcast_alignment((8, 1, 6, 1), (7, 1, 5))

# %% [markdown]
# ### Quiz: a broadcast shape
#
# What is the shape of `torch.zeros(3, 1) + torch.zeros(1, 4)`? Answer with a tuple of ints.

# %% answer answer_broadcast_shape quiz=rule
# A tuple of ints, for example (2, 5).
answer_broadcast_shape = None
### BEGIN SOLUTION
answer_broadcast_shape = (3, 4)
### END SOLUTION

# %% test answer_broadcast_shape points=1
from course.quiz import check_int_tuple, form_checked

check_int_tuple(answer_broadcast_shape, name="answer_broadcast_shape")
form_checked("answer_broadcast_shape")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_broadcast_shape, (3, 4), name="answer_broadcast_shape",
          why="Lined up from the right, the last column pairs 1 with 4 and the first pairs 3 with 1: in each a "
              "size 1 stretches to the other size, so the result is (3, 4), every row value paired with every "
              "column value.")
### END HIDDEN TESTS

# %% [markdown]
# ### Quiz: broadcasting an empty batch, in place
#
# ```python
# a = torch.zeros(1, 3)
# b = torch.ones(0, 1)
# print((a + b).shape)
# a.add_(b)
# ```
#
# What happens?
#
# - **A.** It prints `torch.Size([0, 3])` and then `a.add_(b)` raises a `RuntimeError`.
# - **B.** It prints `torch.Size([1, 3])` and then `a.add_(b)` leaves `a` as it was.
# - **C.** `a + b` raises a `RuntimeError` before anything is printed.
# - **D.** It prints `torch.Size([1, 3])` and then `a.add_(b)` raises a `RuntimeError`.

# %% answer answer_broadcast_empty quiz=rule
# One upper-case letter as a string, for example "A".
answer_broadcast_empty = None
### BEGIN SOLUTION
answer_broadcast_empty = "A"
### END SOLUTION

# %% test answer_broadcast_empty points=1
from course.quiz import check_choice, form_checked

check_choice(answer_broadcast_empty, "ABCD", name="answer_broadcast_empty")
form_checked("answer_broadcast_empty")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_broadcast_empty, "A", name="answer_broadcast_empty",
          why='Lined up from the right, the columns pair 3 with 1 (the 1 stretches to 3) and 1 with 0: the size '
              'that is not 1 wins, even when it is 0, so a + b is an empty (0, 3) tensor. add_ writes into a, which'
              " broadcasting may not stretch or shrink; the broadcast shape (0, 3) is not a's (1, 3), so it raises "
              'a RuntimeError.')
### END HIDDEN TESTS

# %% [markdown]
# ## Reductions with dim and keepdim
#
# A *reduction* combines many numbers into fewer: `sum`, `mean`, `std`, `max`, ... With no
# argument it reduces everything to a 0-d tensor. With `dim=d` it reduces **along** dimension `d`:
# that dimension disappears from the shape, and everything else stays. `sum` and `mean` (and `amax`,
# `amin`) also take a tuple of dimensions; `max` and `min` with a `dim` take one, because they also
# return where each extreme was.

# %%
table = torch.tensor([[1.0, 2.0, 3.0],
                      [4.0, 5.0, 6.0]], device=device)   # 2 rows, 3 columns
print(table.sum(), table.mean())
print("sum(dim=0):", table.sum(dim=0), "<- shape (3,): one total per column, the rows were added up")
print("sum(dim=1):", table.sum(dim=1), "<- shape (2,): one total per row")
print("mean(dim=(0, 1)):", table.mean(dim=(0, 1)))

# %% [markdown]
# `keepdim=True` keeps the reduced dimension as size 1 instead of dropping it. That is what you
# want when you combine the result with the original tensor: a `(2, 1)` row mean lines up with
# `(2, 3)` row by row, while a `(2,)` row mean would be lined up with the columns (and here clash).

# %%
print(tuple(table.mean(dim=1).shape), tuple(table.mean(dim=1, keepdim=True).shape))
print(table / table.sum(dim=1, keepdim=True))     # each row divided by its own total
try:
    table / table.sum(dim=1)
except RuntimeError as error:
    print("without keepdim:", error)

# %% [markdown]
# A few more details you will need:
#
# - `mean` needs a floating-point tensor (convert integers with `.float()` first).
# - `std` and `var` divide by `n - 1` by default (the *sample* estimate). The *population* value
#   divides by `n`: pass `correction=0`.
# - `max(dim=d)` returns two tensors, the values and their positions (`.values`, `.indices`).

# %%
pair = torch.tensor([1.0, 3.0], device=device)
print("std:", pair.std().item(), " std(correction=0):", pair.std(correction=0).item())
best = table.max(dim=1)
print(best.values, best.indices)

# %% [markdown]
# **Try it.** For `table`, compute the share of each column in its column total (each column should
# add up to 1). Which `dim`, and do you need `keepdim`?

# %%
print(table.sum(dim=0, keepdim=True))

# %% [markdown]
# ### Quiz: the shape after a reduction
#
# `t = torch.zeros(4, 5, 6)`. What is the shape of `t.sum(dim=(0, 2), keepdim=True)`? (`dim` takes a
# tuple of dimensions too, and reduces along each.) Answer with a tuple of ints.

# %% answer answer_reduce_shape quiz=rule
# A tuple of ints, for example (2, 5).
answer_reduce_shape = None
### BEGIN SOLUTION
answer_reduce_shape = (1, 5, 1)
### END SOLUTION

# %% test answer_reduce_shape points=1
from course.quiz import check_int_tuple, form_checked

check_int_tuple(answer_reduce_shape, name="answer_reduce_shape")
form_checked("answer_reduce_shape")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_reduce_shape, (1, 5, 1), name="answer_reduce_shape",
          why='Summing along dimensions 0 and 2 leaves one number per index of dimension 1 (5 of them). '
              'keepdim=True keeps each reduced dimension as size 1 instead of dropping it, so the result is (1, 5, '
              '1), which broadcasts against t; without keepdim it would be (5,).')
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `center_rows`
#
# **To write:** `center_rows(x)` subtracts from each row of a 2-D tensor that row's mean.
#
# For a 2D float tensor, subtract from each row that row's own mean, so that every row of the result
# has mean 0. It must work for any number of rows and columns, a tensor with no rows (`(0, D)`)
# included, for float32 and float64, and for a tensor that is not contiguous. Do not change `x`
# itself (no in-place `-=`).

# %% answer center_rows
def center_rows(x):
    """Each row of the 2D tensor x minus that row's mean; x is left unchanged."""
    ### BEGIN SOLUTION
    return x - x.mean(dim=1, keepdim=True)
    ### END SOLUTION

# %% test center_rows points=2
import torch
from course.checks import check_slip, check_tensor, passed

square = torch.tensor([[1.0, 2.0], [10.0, 30.0]])
check_slip(center_rows(square), square - square.mean(dim=1),
           message="center_rows of [[1, 2], [10, 30]] gave x - x.mean(dim=1): without keepdim=True the row means (shape (2,)) "
                   "line up with the columns, so column j had row j's mean taken off, whatever row it is in. Keep the reduced "
                   "dimension: x.mean(dim=1, keepdim=True).")
check_tensor(center_rows(square), torch.tensor([[-0.5, 0.5], [-10.0, 10.0]]),
             what="center_rows of [[1, 2], [10, 30]] (row means 1.5 and 20)")
wide = torch.tensor([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])
check_tensor(center_rows(wide), torch.tensor([[-1.0, 0.0, 1.0], [-10.0, 0.0, 10.0]]),
             what="center_rows of [[1, 2, 3], [10, 20, 30]] (row means 2 and 20)")
passed("center_rows")
### BEGIN HIDDEN TESTS
from course.checks import check_runs, check_true
from course.device import test_devices
from course.probes.core import call_watching_inputs

for dev in test_devices():
    g = torch.Generator().manual_seed(11)
    watched = (torch.randn(4, 6, generator=g) * 3 + 2).to(dev)
    result, changed = check_runs(call_watching_inputs, center_rows, watched, what=f"center_rows of a (4, 6) tensor on {dev}")
    check_true(changed == [], f"Expected center_rows to leave x unchanged (measured in your process), but it changed x on {dev}: "
                              "compute a new tensor instead of subtracting in place.")
    cases = [
        ("a (5, 7) tensor", (torch.randn(5, 7, generator=g) * 3 + 2).to(dev)),
        ("a (7, 5) tensor", (torch.randn(7, 5, generator=g) + 4).to(dev)),
        ("a (5, 7) tensor made by .t() (not contiguous)", torch.randn(7, 5, generator=g).to(dev).t()),
        ("a single row", torch.tensor([[2.0, 4.0, 9.0]], device=dev)),
        ("a (3, 1) tensor (each row is one number, so all zeros)", torch.tensor([[2.0], [4.0], [9.0]], device=dev)),
        ("an empty (0, 4) tensor", torch.zeros(0, 4, device=dev)),
        ("a float64 (3, 4) tensor", (torch.randn(3, 4, generator=g, dtype=torch.float64) * 1e3).to(dev)),
        ("a tensor that requires grad", torch.randn(3, 3, generator=g).to(dev).requires_grad_()),
    ]
    for label, x in cases:
        exact = x.detach().double()
        expected = (exact - exact.mean(dim=1, keepdim=True)).to(x.dtype)
        what = f"center_rows of {label} on {dev}"
        check_tensor(check_runs(center_rows, x, what=what), expected, what=what, dtype=False,
                     atol=1e-9 if x.dtype == torch.float64 else 1e-5)
### END HIDDEN TESTS

# %% [markdown]
# ### Your turn: `normalize_channels`
#
# **To write:** `normalize_channels(x)` gives each channel of a batch `(B, C, H, W)` mean 0 and
# standard deviation 1.
#
# A batch-normalisation layer (`nn.BatchNorm2d`, in training mode) starts by giving every channel
# mean 0 and standard deviation 1 over the batch; here you write that step yourself. (Input images
# are usually normalised differently: with fixed per-channel statistics of the whole training set.)
# For a batch `(B, C, H, W)`, compute for each channel the mean and the **population** standard
# deviation (`correction=0`) over dims 0, 2 and 3 (every image, every pixel), and return
# `(x - mean) / (std + 1e-5)`. The result has the shape and the dtype of `x` (float64 stays
# float64); `x` itself is unchanged. Batches may arrive in any memory layout.

# %% answer normalize_channels
def normalize_channels(x):
    """(x - mean) / (std + 1e-5) with per-channel mean and population std over dims 0, 2, 3."""
    ### BEGIN SOLUTION
    mean = x.mean(dim=(0, 2, 3), keepdim=True)
    std = x.std(dim=(0, 2, 3), keepdim=True, correction=0)
    return (x - mean) / (std + 1e-5)
    ### END SOLUTION

# %% test normalize_channels points=3
import torch
from course.checks import check_slip, check_tensor, passed

x = torch.tensor([[[[1.0, 3.0]], [[10.0, 30.0]]]])  # (1, 2, 1, 2): channel 0 holds 1 and 3, channel 1 holds 10 and 30
expected = torch.tensor([[[[-1.0, 1.0]], [[-1.0, 1.0]]]])  # channel 0: mean 2, std 1; channel 1: mean 20, std 10
check_slip(normalize_channels(x), (x - x.mean(dim=(0, 2, 3), keepdim=True)) / x.std(dim=(0, 2, 3), keepdim=True),
           message="normalize_channels of a (1, 2, 1, 2) batch divided by std() with its default correction=1, which "
                   "divides by n - 1. The population standard deviation divides by n: pass correction=0.")
check_tensor(normalize_channels(x), expected, what="normalize_channels of a (1, 2, 1, 2) batch", atol=1e-4)
check_tensor(normalize_channels(x.double()), expected.double(), what="normalize_channels of the same batch in float64 (dtype kept)", atol=1e-4)
passed("normalize_channels")
### BEGIN HIDDEN TESTS
from course.checks import check_runs, check_true
from course.device import test_devices
from course.probes.core import call_watching_inputs

for dev in test_devices():
    g = torch.Generator().manual_seed(3)
    watched = (torch.randn(2, 3, 4, 4, generator=g) * 2 + 1).to(dev)
    result, changed = check_runs(call_watching_inputs, normalize_channels, watched,
                                 what=f"normalize_channels of a (2, 3, 4, 4) batch on {dev}")
    check_true(changed == [], f"Expected normalize_channels to leave x unchanged (measured in your process), but it changed x on {dev}: "
                              "compute a new tensor instead of subtracting or dividing in place.")
    scale = torch.tensor([1.0, 5.0, 1e-3]).view(1, 3, 1, 1)
    shift = torch.tensor([0.5, 10.0, 0.0]).view(1, 3, 1, 1)
    cases = [
        ("a (5, 3, 7, 11) batch (one channel with a tiny spread)", (torch.randn(5, 3, 7, 11, generator=g) * scale + shift).to(dev)),
        ("a (4, 3, 5, 6) batch made by permute (not contiguous)", (torch.randn(4, 5, 6, 3, generator=g) * 2 - 1).to(dev).permute(0, 3, 1, 2)),
        ("a (4, 3, 5, 6) batch made by transpose(2, 3) (not contiguous)", (torch.randn(4, 3, 6, 5, generator=g) * 3 + 2).to(dev).transpose(2, 3)),
        ("a (2, 3, 4, 3) batch (width equals channels)", (torch.randn(2, 3, 4, 3, generator=g) * scale + shift * 0.1).to(dev)),
        ("a float64 batch (dtype kept)", (torch.randn(3, 2, 5, 7, generator=g, dtype=torch.float64) * 4 + 1).to(dev)),
        ("a (1, 4, 1, 1) batch (one value per channel, std 0, so all zeros)", torch.tensor([3.0, -1.0, 7.0, 0.5], device=dev).view(1, 4, 1, 1)),
        ("a constant batch (std 0, so all zeros)", torch.full((2, 2, 3, 3), 4.0, device=dev)),
        ("a batch that requires grad", torch.randn(2, 3, 2, 2, generator=g).to(dev).requires_grad_()),
    ]
    for label, x in cases:
        exact = x.detach().double()
        mean = exact.mean(dim=(0, 2, 3), keepdim=True)
        std = exact.std(dim=(0, 2, 3), keepdim=True, correction=0)
        expected = ((exact - mean) / (std + 1e-5)).to(x.dtype)
        tolerance = 1e-9 if x.dtype == torch.float64 else 1e-4
        what = f"normalize_channels of {label} on {dev}"
        check_tensor(check_runs(normalize_channels, x, what=what), expected, what=what, atol=tolerance, rtol=tolerance)
### END HIDDEN TESTS

# %% [markdown]
# ## Matrix multiply with @
#
# `a @ b` (or `torch.matmul(a, b)`) is the matrix product: for `a` of shape `(n, k)` and `b` of
# shape `(k, m)` it gives `(n, m)`, each entry the dot product of a row of `a` with a column of
# `b`. The inner sizes (`k`) must match. This is what a linear layer computes. `*` is something
# else: element-wise multiplication, with broadcasting.

# %%
inputs = torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)   # (2, 2): two examples, two features
weight = torch.tensor([[0.5], [0.5]], device=device)             # (2, 1): one output
print((inputs @ weight).tolist(), "<- (2, 2) @ (2, 1) = (2, 1)")
print((inputs * weight).tolist(), "<- element-wise: weight broadcast to (2, 2)")
try:
    inputs @ torch.ones(3, 1, device=device)
except RuntimeError as error:
    print("RuntimeError:", error)

# %% [markdown]
# With more than two dimensions, `@` multiplies the last two and broadcasts the ones in front, so a
# whole batch goes through in one call. Two 1D tensors give their dot product.

# %%
stack = torch.randn(8, 4, 3, device=device)
print(tuple((stack @ torch.randn(3, 5, device=device)).shape), "<- 8 products of (4, 3) @ (3, 5)")
print((torch.tensor([1.0, 2.0]) @ torch.tensor([3.0, 4.0])).item())

# %% [markdown]
# ### Quiz: a batched product
#
# What is the shape of `torch.zeros(5, 1, 4, 3) @ torch.zeros(2, 3, 6)`? Answer with a tuple of
# ints.

# %% answer answer_matmul_batch_shape quiz=rule
# A tuple of ints, for example (2, 5).
answer_matmul_batch_shape = None
### BEGIN SOLUTION
answer_matmul_batch_shape = (5, 2, 4, 6)
### END SOLUTION

# %% test answer_matmul_batch_shape points=1
from course.quiz import check_int_tuple, form_checked

check_int_tuple(answer_matmul_batch_shape, name="answer_matmul_batch_shape")
form_checked("answer_matmul_batch_shape")
### BEGIN HIDDEN TESTS
from course.quiz import check_key

check_key(answer_matmul_batch_shape, (5, 2, 4, 6), name="answer_matmul_batch_shape",
          why='@ multiplies the last two dimensions, (4, 3) @ (3, 6) = (4, 6), and broadcasts the ones in front: '
              '(5, 1) against (2,), lined up from the right, gives (5, 2). So the result is (5, 2, 4, 6): ten '
              'products of one (4, 3) matrix with one (3, 6) matrix.')
### END HIDDEN TESTS

# %% [markdown]
# Broadcasting and `@` together replace loops. To compare every row of `a` with every row of `b`,
# give them different size-1 dimensions: `a[:, None, :]` is `(N, 1, D)` and `b[None, :, :]` is
# `(1, M, D)`, so their difference is `(N, M, D)`, every pair at once. (The squared distance can
# also be written with `@`: `|a|² + |b|² - 2 a·b`. Rounding can then make it slightly negative when
# two points coincide, so clamp it at 0 with `.clamp_min(0)` before taking a square root. Even
# clamped, that form is less exact: for 50 float32 points about 40 from the origin, a point's distance
# to itself can come out as 0.03 instead of 0. `torch.cdist` switches to it by itself for more than 25
# points, unless you pass `compute_mode="donot_use_mm_for_euclid_dist"`.)

# %%
a = torch.tensor([[0.0, 0.0], [1.0, 1.0]], device=device)
b = torch.tensor([[1.0, 0.0], [2.0, 2.0], [0.0, 0.0]], device=device)
difference = a[:, None, :] - b[None, :, :]
print(tuple(difference.shape))
print((difference * difference).sum(dim=-1))            # squared distances, (2, 3)

# %% [markdown]
# ### Your turn: `pairwise_distances`
#
# **To write:** `pairwise_distances(a, b)` returns the `(N, M)` Euclidean distances between the rows
# of `a` and of `b`, with no Python loop.
#
# For `a` of shape `(N, D)` and `b` of shape `(M, D)`, return the `(N, M)` tensor whose entry
# `[i, j]` is the Euclidean distance between `a[i]` and `b[j]`. Use tensor operations, not Python
# loops. Your result must agree with the exact distances, `torch.cdist(a, b,
# compute_mode="donot_use_mm_for_euclid_dist")`, to within 1e-4, for `N` and `M` that may
# differ, be 1, or be 0, for points that coincide (distance exactly 0), for inputs that are not
# contiguous, and for float32 and float64 points (the result keeps their dtype and device). Build it
# from broadcasting: `torch.cdist` does the whole job and is off limits here (the test notices when
# it runs).

# %% answer pairwise_distances
def pairwise_distances(a, b):
    """The (N, M) Euclidean distances between the rows of a (N, D) and the rows of b (M, D)."""
    ### BEGIN SOLUTION
    return (a[:, None, :] - b[None, :, :]).pow(2).sum(dim=-1).sqrt()
    ### END SOLUTION

# %% test pairwise_distances points=3
import torch
from course.checks import check_tensor, passed

a = torch.tensor([[0.0, 0.0], [3.0, 4.0]])
b = torch.tensor([[0.0, 0.0], [6.0, 8.0], [3.0, 0.0]])
check_tensor(pairwise_distances(a, b), torch.tensor([[0.0, 10.0, 3.0], [5.0, 5.0, 4.0]]),
             what="pairwise_distances of 2 points and 3 points in 2D", atol=1e-4)
from course.checks import check_runs
from course.probes.ops import CDIST_CALLS, call_watching_ops, check_no_library_call

check_no_library_call(check_runs(call_watching_ops, pairwise_distances, CDIST_CALLS, a, b, what="pairwise_distances(a, b)")[1],
                      item="pairwise_distances", what="for 2 points and 3 points in 2D")
passed("pairwise_distances")
### BEGIN HIDDEN TESTS
from course.checks import check_runs, check_true
from course.device import test_devices
from course.probes.core import call_watching_inputs
from course.probes.loops import check_constant_work, count_python_lines

for dev in test_devices():
    g = torch.Generator().manual_seed(13)
    watched_a = torch.randn(5, 3, generator=g).to(dev)
    watched_b = torch.randn(4, 3, generator=g).to(dev)
    result, changed = check_runs(call_watching_inputs, pairwise_distances, watched_a, watched_b,
                                 what=f"pairwise_distances of 5 and 4 points in 3D on {dev}")
    check_true(changed == [], f"Expected pairwise_distances to leave a and b unchanged (measured in your process), but it changed {changed} on {dev}.")
    counted = []
    for n in (20, 160):
        a, b = torch.randn(n, 3, generator=g).to(dev), torch.randn(n, 3, generator=g).to(dev)
        what = f"pairwise_distances of {n} and {n} points on {dev}, counted"
        counted.append(check_runs(count_python_lines, pairwise_distances, a, b, what=what))
        exact = torch.cdist(a.cpu().double(), b.cpu().double(), compute_mode="donot_use_mm_for_euclid_dist")
        check_tensor(counted[-1][0], exact.to(dtype=a.dtype, device=a.device), what=what, atol=1e-4, rtol=0)
    check_constant_work(*counted, item=f"pairwise_distances on {dev}", sizes=(20, 160), unit="points")
    points = (torch.randn(30, 5, generator=g, dtype=torch.float64) * 10).to(dev)
    cases = [
        ("300 and 200 points in 16D", torch.randn(300, 16, generator=g).to(dev), (torch.randn(200, 16, generator=g) * 2).to(dev)),
        ("6 and 6 points (a (6, 6) result, every pair)", torch.randn(6, 3, generator=g).to(dev), torch.randn(6, 3, generator=g).to(dev)),
        ("(7, 5) and (3, 5) inputs made by .t() (not contiguous)", torch.randn(5, 7, generator=g).to(dev).t(), torch.randn(5, 3, generator=g).to(dev).t()),
        ("30 float64 points with themselves (zeros on the diagonal, no NaN)", points, points),
        ("1 point and 3 points in 1D", torch.tensor([[2.5]], device=dev), torch.tensor([[-1.0], [2.5], [4.0]], device=dev)),
        ("0 points and 3 points (an empty (0, 3) result)", torch.zeros(0, 4, device=dev), torch.randn(3, 4, generator=g).to(dev)),
        ("4 points that require grad and 2 points", torch.randn(4, 3, generator=g).to(dev).requires_grad_(), torch.randn(2, 3, generator=g).to(dev)),
    ]
    for label, a, b in cases:
        exact = torch.cdist(a.detach().cpu().double(), b.detach().cpu().double(), compute_mode="donot_use_mm_for_euclid_dist")
        expected = exact.to(dtype=a.dtype, device=a.device)
        what = f"pairwise_distances of {label} on {dev}"
        check_tensor(check_runs(pairwise_distances, a, b, what=what), expected, what=what, atol=1e-4, rtol=0)
    _, many_a, many_b = cases[0]
    check_no_library_call(check_runs(call_watching_ops, pairwise_distances, CDIST_CALLS, many_a, many_b,
                                     what=f"pairwise_distances of 300 and 200 points on {dev}")[1],
                          item="pairwise_distances", what=f"for 300 and 200 points on {dev}")
### END HIDDEN TESTS

# %% [markdown]
# ## Practice: a silent broadcasting bug
#
# A layer with one output, such as `x @ w` with `w` of shape `(D, 1)`, gives one prediction per
# example as a column: shape `(N, 1)`. Targets usually arrive as a plain vector: shape `(N,)`.
# Subtract them, and broadcasting lines the shapes up from the right: `(N, 1)` against `(N,)` gives
# `(N, N)`, every prediction minus every target. Nothing raises, the mean of that matrix is a
# number, and a model trained on it learns the wrong thing.

# %%
features = torch.tensor([[1.0], [2.0], [3.0]], device=device)   # (3, 1): three examples, one feature
w = torch.tensor([[2.0]], device=device)                          # (1, 1)
pred = features @ w                                               # (3, 1): 2, 4, 6
target = torch.tensor([2.0, 4.0, 6.0], device=device)             # (3,): every prediction is exact
print(tuple((pred - target).shape), "<- (3, 1) - (3,) broadcasts to (3, 3)")
print("buggy loss:", ((pred - target) ** 2).mean().item(), "<- should be 0: every prediction is exact")
print("with equal shapes:", ((pred.reshape(-1) - target) ** 2).mean().item())

# %% [markdown]
# `torch.nn.functional.mse_loss(pred, target)` does no better: it warns that the two sizes differ,
# then broadcasts anyway. The cure is to give both tensors the same shape before subtracting, and to
# print `tuple(diff.shape)` whenever a loss looks odd.
#
# ### Your turn: `mean_squared_error`
#
# **To write:** `mean_squared_error(pred, target)` is the loss shown below with its broadcasting bug
# fixed.
#
# This loss has the bug above:
#
# ```python
# def mean_squared_error(pred, target):
#     return ((pred - target) ** 2).mean()
# ```
#
# Fix it. `pred` and `target` hold one number per example for the same `N >= 1` examples, and each
# of them may come as `(N,)` or as `(N, 1)`, in any of the four combinations. Return the mean over
# the examples of `(pred[i] - target[i]) ** 2` as a 0-d tensor (not a Python float: a loss stays a
# tensor so that `.backward()` can run on it), in the dtype of `pred` and `target` (float32 or
# float64, the same for both) and on their device. Leave both unchanged; `pred` may require grad
# and may be a column sliced out of a wider tensor (not contiguous).

# %% answer mean_squared_error
def mean_squared_error(pred, target):
    """The mean over N examples of (pred[i] - target[i]) ** 2, whether each input is (N,) or (N, 1)."""
    ### BEGIN SOLUTION
    return ((pred.reshape(-1) - target.reshape(-1)) ** 2).mean()
    ### END SOLUTION

# %% test mean_squared_error points=2
import torch
from course.checks import check_tensor, passed

pred = torch.tensor([[2.0], [4.0], [6.0]])  # (3, 1), as a layer with one output gives it
target = torch.tensor([1.0, 4.0, 8.0])      # (3,): squared errors 1, 0, 4
check_tensor(mean_squared_error(pred, target), torch.tensor(5 / 3),
             what="mean_squared_error of pred (3, 1) [[2], [4], [6]] and target (3,) [1, 4, 8]")
check_tensor(mean_squared_error(pred.reshape(3), target), torch.tensor(5 / 3),
             what="mean_squared_error of pred (3,) [2, 4, 6] and target (3,) [1, 4, 8]")
passed("mean_squared_error")
### BEGIN HIDDEN TESTS
from course.checks import check_runs, check_true
from course.device import test_devices
from course.probes.core import call_watching_inputs

for dev in test_devices():
    g = torch.Generator().manual_seed(19)
    column = torch.randn(5, 1, generator=g).to(dev)
    vector = torch.randn(5, generator=g).to(dev)
    watched = (torch.randn(4, 1, generator=g).to(dev), torch.randn(4, generator=g).to(dev))
    result, changed = check_runs(call_watching_inputs, mean_squared_error, *watched,
                                 what=f"mean_squared_error of pred (4, 1) and target (4,) on {dev}")
    check_true(changed == [], f"Expected mean_squared_error to leave pred and target unchanged (measured in your process), but it changed {changed} on {dev}.")
    wide = torch.randn(6, 3, generator=g).to(dev)
    leaf = torch.randn(4, 1, generator=g).to(dev).requires_grad_()
    cases = [
        ("pred (5, 1) and target (5,)", column, vector),
        ("pred (5,) and target (5, 1)", vector, column),
        ("pred (5,) and target (5,)", column.reshape(5), vector),
        ("pred (5, 1) and target (5, 1)", column, vector.reshape(5, 1)),
        ("one example: pred (1, 1) and target (1,)", torch.tensor([[3.0]], device=dev), torch.tensor([1.0], device=dev)),
        ("one example: pred (1,) and target (1, 1)", torch.tensor([3.0], device=dev), torch.tensor([[1.5]], device=dev)),
        ("pred (6, 1) sliced out of a (6, 3) tensor (not contiguous) and target (6,)", wide[:, 1:2], wide[:, 0]),
        ("float64 pred (7, 1) and target (7,)", torch.randn(7, 1, generator=g, dtype=torch.float64).to(dev),
         torch.randn(7, generator=g, dtype=torch.float64).to(dev)),
        ("pred (4, 1) computed from a tensor that requires grad, and target (4,)", leaf * 2, torch.randn(4, generator=g).to(dev)),
        ("pred (100, 1) and target (100,)", torch.randn(100, 1, generator=g).to(dev), torch.randn(100, generator=g).to(dev)),
    ]
    for label, p, t in cases:
        exact = ((p.detach().double().reshape(-1) - t.double().reshape(-1)) ** 2).mean()
        what = f"mean_squared_error of {label} on {dev}"
        check_tensor(check_runs(mean_squared_error, p, t, what=what), exact.to(p.dtype), what=what, atol=1e-5,
                     requires_grad=True if p.requires_grad else None)  # a loss that backward() can run on
### END HIDDEN TESTS

# %% [markdown]
# ## Common mistakes
#
# A classic list of beginner mistakes puts *misunderstanding dimensions* near the top: treating
# shapes casually. Most of the mistakes below raise no error at all; they quietly compute the
# wrong thing, which is why they are worth knowing by sight.
#
# **1. Reshaping when you meant to move a dimension.** `reshape` regroups elements in memory
# order; it never moves the channel dimension. Use `permute` (see the section on reordering).

# %%
chw = torch.arange(12, device=device).reshape(3, 2, 2)                # one image, 3 channels, 2x2
print("reshape first pixel:", chw.reshape(2, 2, 3)[0, 0].tolist(), " permute first pixel:", chw.permute(1, 2, 0)[0, 0].tolist())

# %% [markdown]
# **2. `view` after `permute` or a transpose.** It usually raises a `RuntimeError` about size and
# stride, whenever it has to merge dimensions that are no longer next to each other in memory (it
# works when they still are: `torch.zeros(2, 3, 4).permute(0, 2, 1).view(2, 2, 2, 3)` only splits a
# dimension). Use `reshape`, or `.contiguous().view(...)`.
#
# **3. Forgetting `keepdim`.** A reduced tensor lines up with the *last* dimensions of the original.
# If the sizes happen to match, you get numbers without an error:

# %%
square = torch.tensor([[1.0, 2.0], [10.0, 30.0]], device=device)
print("without keepdim:", (square - square.mean(dim=1)).tolist())
print("with keepdim:   ", (square - square.mean(dim=1, keepdim=True)).tolist())

# %% [markdown]
# **4. Reducing along the wrong `dim`.** `dim` names the dimension that disappears: `dim=0`
# combines the rows (one result per column), `dim=1` combines the columns (one result per row).
#
# **5. `squeeze()` with no argument.** With a batch of one, it removes the batch dimension too.
# Name the dimension: `squeeze(1)`.
#
# **6. `*` where you meant `@`.** With a `(2, 2)` input and a `(2, 1)` weight both run, and only
# `@` computes the linear layer.
#
# **7. The default `std`.** `x.std()` divides by `n - 1`; `correction=0` divides by `n`.

# %%
values = torch.tensor([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0], device=device)
print(values.std().item(), values.std(correction=0).item())

# %% [markdown]
# **8. A column minus a vector.** Predictions of shape `(N, 1)` minus targets of shape `(N,)` give
# `(N, N)`, not `(N,)`, and the loss computed from them is a wrong number without any error. Give
# both the same shape first.
#
# The habit that prevents all of these: print `tuple(t.shape)` (and, when a copy matters,
# `t.stride()`) before and after each step, and say out loud what each dimension means.
#
# **Try it.** A model wants `(B, 3, 32, 32)` and you have one image of shape `(32, 32, 3)` (height,
# width, channels), as image libraries often store it. Turn it into a batch of one with `permute`
# and `unsqueeze`, and check the shape.

# %%
picture = torch.rand(32, 32, 3, device=device)
print(tuple(picture.shape))

# %% [markdown]
# ## Recap
#
# - A tensor is memory plus a shape and strides. `view`, `permute`, `transpose`, `.t()`, `expand`
#   and `unsqueeze`/`squeeze` make *views* over the same memory; `clone`, `contiguous` (when needed)
#   and `reshape` (when needed) copy.
# - `view` never copies, so it refuses a new shape that the memory layout cannot give without a copy
#   (typically after `permute` or a transpose); `reshape` copies when it must. `flatten(1)` turns
#   `(B, C, H, W)` into `(B, C*H*W)`, also for an empty batch.
# - `permute` moves dimensions; `reshape` only regroups them.
# - Broadcasting lines shapes up from the right; missing dimensions count as 1; each column must
#   match or have a 1, which stretches.
# - `dim` says which dimension a reduction removes; `keepdim=True` keeps it as size 1 so the result
#   broadcasts back against the input.
# - `@` is the matrix product (`(n, k) @ (k, m) = (n, m)`); `*` is element-wise.
# - Cutting images into patches is split (`reshape`), move (`permute`), merge (`reshape`).
# - A `(N, 1)` column and a `(N,)` vector broadcast to `(N, N)`: reshape one before subtracting.
# - Read shapes before you trust numbers: most dimension mistakes raise no error.
