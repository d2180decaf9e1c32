"""Unit tests for lesson 08 (indexing): its pictures, and the instructor's references its hidden tests trust."""

import matplotlib.pyplot as plt
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure

from course.pictures.indexing import gather_picture, mask_selection, selected_positions, timing_curves
from instructor.indexing import (
    box_iou_reference,
    boxes,
    confusion_matrix_reference,
    distinct_scores,
    dyadic,
    embedding_bag_mean_reference,
    masked_mean_reference,
    select_by_label_reference,
    tolerance,
    topk_mask_reference,
)
from tests.quiz_keys import key_of, outcome, the_true_choice


def _drawn(fig, tmp_path, before) -> None:
    assert isinstance(fig, Figure)
    assert set(plt.get_fignums()) == before, "the figure is closed in pyplot, so a notebook shows it once"
    fig.savefig(tmp_path / "picture.png")
    assert (tmp_path / "picture.png").stat().st_size > 0


masks = st.integers(1, 5).flatmap(
    lambda cols: st.lists(st.lists(st.booleans(), min_size=cols, max_size=cols), min_size=1, max_size=5)
)


@settings(max_examples=50, deadline=None)
@given(masks)
def test_selected_positions_are_the_order_of_x_mask(mask):
    rows, cols = len(mask), len(mask[0])
    x = torch.arange(rows * cols).reshape(rows, cols)
    assert [r * cols + c for r, c in selected_positions(mask)] == x[torch.tensor(mask)].tolist()


@pytest.mark.parametrize("trailing", [0, 2])
def test_mask_selection_numbers_the_true_cells_and_shows_the_result_shape(trailing, tmp_path):
    before = set(plt.get_fignums())
    mask = [[True, False, True], [False, True, True]]
    fig = mask_selection(mask, trailing=trailing)
    _drawn(fig, tmp_path, before)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert [t for t in texts if t.isdigit()] == ["0", "1", "2", "3"]
    expected = tuple(torch.zeros(2, 3, trailing)[torch.tensor(mask)].shape) if trailing else (4,)
    assert any(f"x[mask]: ({expected[0]}," in t and (str(trailing) in t if trailing else True) for t in texts)


@pytest.mark.parametrize("mask", [[], [[]], [[True], [True, False]]])
def test_mask_selection_refuses_a_ragged_or_empty_mask(mask):
    with pytest.raises(ValueError, match="2D grid"):
        mask_selection(mask)


def test_gather_picture_shows_what_gather_picks(tmp_path):
    before = set(plt.get_fignums())
    index = [[2, 0], [1, 1], [3, 2]]
    fig = gather_picture(index, num_cols=4)
    _drawn(fig, tmp_path, before)
    x = torch.arange(12).reshape(3, 4)
    picked = x.gather(1, torch.tensor(index))
    texts = [t.get_text() for t in fig.axes[0].texts]
    for r in range(3):
        for j in range(2):
            assert f"x[{r},{int(picked[r, j]) - 4 * r}]" in texts
    assert "x[1,1]\n→ j=0,1" in texts, "a column picked twice names both output positions"


@pytest.mark.parametrize("index, cols", [([[0, 4]], 4), ([[-1]], 3), ([[0], [0, 1]], 2), ([], 2)])
def test_gather_picture_refuses_bad_indices(index, cols):
    with pytest.raises(ValueError):
        gather_picture(index, num_cols=cols)


def test_timing_curves_plots_every_version_and_the_ratio(tmp_path):
    before = set(plt.get_fignums())
    seconds = {"loop": [1e-4, 1e-3, 1e-2], "vectorized": [1e-5, 1e-5, 2e-5]}
    fig = timing_curves([10, 100, 1000], seconds, title="t")
    _drawn(fig, tmp_path, before)
    ax = fig.axes[0]
    assert [line.get_label() for line in ax.get_lines()] == ["loop", "vectorized"]
    assert list(ax.get_lines()[0].get_ydata()) == pytest.approx([100.0, 1000.0, 10000.0])
    assert any(t.get_text().startswith("500x") for t in ax.texts)
    assert ax.get_xscale() == ax.get_yscale() == "log"


@pytest.mark.parametrize(
    "sizes, seconds",
    [([], {"a": []}), ([10, 0], {"a": [1.0, 1.0]}), ([10], {}), ([10, 20], {"a": [1.0]}), ([10], {"a": [0.0]})],
)
def test_timing_curves_refuses_mismatched_timings(sizes, seconds):
    with pytest.raises(ValueError):
        timing_curves(sizes, seconds)


# ---------------------------------------------------------------- the references, against PyTorch itself


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 12), st.integers(1, 6), st.integers(0, 2**16))
def test_select_and_confusion_references_agree_with_pytorch(n, c, seed):
    g = torch.Generator().manual_seed(seed)
    scores, labels, predicted = (
        torch.randn(n, c, generator=g),
        torch.randint(0, c, (n,), generator=g),
        torch.randint(0, c, (n,), generator=g),
    )
    assert torch.equal(select_by_label_reference(scores, labels), scores[torch.arange(n), labels])
    expected = torch.bincount(labels * c + predicted, minlength=c * c).reshape(c, c)
    assert torch.equal(confusion_matrix_reference(predicted, labels, c), expected)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.integers(0, 4), min_size=0, max_size=3),
    st.integers(0, 6),
    st.integers(0, 2**16),
    st.sampled_from([torch.float16, torch.float32, torch.float64]),
)
def test_masked_mean_reference_agrees_with_pytorch(lead, length, seed, dtype):
    g = torch.Generator().manual_seed(seed)
    x = dyadic((*lead, length), generator=g).to(dtype)
    mask = torch.rand(*lead, length, generator=g) < 0.5
    found = masked_mean_reference(x, mask)
    work = x.to(torch.float64)
    expected = torch.where(mask, work, 0).sum(-1) / mask.sum(-1).clamp(min=1)
    assert found.dtype == dtype and tuple(found.shape) == tuple(lead)
    torch.testing.assert_close(found, expected.to(dtype), **tolerance(dtype))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 8), st.integers(1, 9), st.data(), st.sampled_from([torch.float16, torch.float32, torch.float64]))
def test_topk_reference_agrees_with_pytorch_on_distinct_scores(n, c, data, dtype):
    scores = distinct_scores(
        n, c, dtype=dtype, generator=torch.Generator().manual_seed(data.draw(st.integers(0, 2**16)))
    )
    assert scores.dtype == dtype and all(len(set(row)) == c for row in scores.tolist())
    k = data.draw(st.integers(0, c))
    expected = torch.zeros(n, c, dtype=torch.bool).scatter_(1, scores.topk(k, dim=1).indices, True)
    assert torch.equal(topk_mask_reference(scores, k), expected)


def test_distinct_scores_repairs_ties_in_float16():
    scores = distinct_scores(400, 60, dtype=torch.float16, generator=torch.Generator().manual_seed(0))
    assert all(len(set(row)) == 60 for row in scores.tolist())


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 6), st.integers(0, 5), st.integers(1, 4), st.integers(0, 2**16))
def test_embedding_bag_reference_agrees_with_pytorch(b, length, d, seed):
    g = torch.Generator().manual_seed(seed)
    table = dyadic((7, d), generator=g)
    index = torch.randint(0, 7, (b, length), generator=g)
    lengths = torch.randint(0, length + 1, (b,), generator=g)
    real = torch.arange(length) < lengths[:, None]
    flat, offsets = index[real], torch.cumsum(lengths, 0) - lengths
    expected = (
        torch.nn.functional.embedding_bag(flat, table, offsets, mode="mean")
        if b
        else torch.zeros(0, d, dtype=table.dtype)
    )
    torch.testing.assert_close(embedding_bag_mean_reference(table, index, lengths), expected)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 6), st.integers(0, 6), st.integers(0, 2**16))
def test_box_iou_reference_agrees_with_areas_of_pixel_masks(n, m, seed):
    """Boxes on a 1/8 grid, drawn as pixel masks of that grid: IoU is counting pixels."""
    g = torch.Generator().manual_seed(seed)
    a, b = boxes(n, generator=g, span=16), boxes(m, generator=g, span=16)

    def pixels(box):
        x1, y1, x2, y2 = (int(v * 8) for v in box.tolist())
        grid = torch.zeros(16, 16, dtype=torch.bool)
        grid[y1:y2, x1:x2] = True
        return grid

    found = box_iou_reference(a, b)
    assert tuple(found.shape) == (n, m)
    for i in range(n):
        for j in range(m):
            p, q = pixels(a[i]), pixels(b[j])
            union = int((p | q).sum())
            assert found[i, j].item() == pytest.approx(int((p & q).sum()) / union if union else 0.0)


def test_boxes_have_ordered_corners():
    corners = boxes(200, generator=torch.Generator().manual_seed(1))
    assert bool((corners[:, 0] <= corners[:, 2]).all() and (corners[:, 1] <= corners[:, 3]).all())
    assert bool(((corners * 8) == (corners * 8).round()).all())


# Each quiz run: exactly one choice holds, and it is the key in the lesson's hidden test.

QUIZ_LESSON = "08_indexing"


def test_advanced_index_copies_key():
    x = torch.arange(12).reshape(4, 3)
    y = x[[0, 2]]
    z = x[0:3:2]
    y[0, 0] = 100
    z[1, 0] = -1
    found = x[:, 0].tolist()
    holds = {
        "A": found == [100, 3, -1, 9],
        "B": found == [0, 3, 6, 9],
        "C": found == [100, 3, 6, 9],
        "D": found == [0, 3, -1, 9],
    }
    assert the_true_choice(holds) == key_of(QUIZ_LESSON, "answer_advanced_index_copies")


def test_mask_shape_key():
    x = torch.randn(4, 3, 5)
    mask = torch.tensor([[True, False, True], [False, False, False], [True, True, True], [False, True, True]])
    assert tuple(x[mask].shape) == key_of(QUIZ_LESSON, "answer_mask_shape")


def test_einsum_shape_key():
    q, k = torch.randn(2, 4, 5, 8), torch.randn(2, 4, 7, 8)
    assert tuple(torch.einsum("bhqd,bhkd->hkq", q, k).shape) == key_of(QUIZ_LESSON, "answer_einsum_shape")


def test_gather_dim0_key():
    x = torch.tensor([[10, 20, 30], [40, 50, 60]])
    found = outcome(lambda: x.gather(0, torch.tensor([[1, 0, 1]])).tolist())
    holds = {
        "A": found == [[40, 20, 60]],
        "B": found == [[20, 10, 20]],
        "C": found is RuntimeError,
        "D": found == x[[1, 0, 1]].tolist(),
    }
    assert the_true_choice(holds) == key_of(QUIZ_LESSON, "answer_gather_dim0")


def test_index_broadcast_shape_key():
    x = torch.zeros(5, 6, 7)
    rows, cols = torch.tensor([0, 2, 4]), torch.tensor([[1], [3]])
    assert tuple(x[rows, cols].shape) == key_of(QUIZ_LESSON, "answer_index_broadcast_shape")


def test_vectorized_speed_key_is_not_a_gpu_or_a_cache():
    """The wrong choices are checkable facts: nothing moves to the GPU, and a second call recomputes."""
    x = torch.randn(1000)
    out = torch.where(x > 0, x, torch.zeros_like(x))
    assert out.device.type == "cpu"
    x[0] = 5.0
    assert torch.where(x > 0, x, torch.zeros_like(x))[0].item() == 5.0
    assert key_of(QUIZ_LESSON, "answer_vectorized_speed") == "B"
