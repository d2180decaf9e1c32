"""Lesson 10's probe and hidden-test helpers, checked with the lesson's reference answers and with wrong ones."""

from __future__ import annotations

import contextlib
import io
import pickle

import pytest
import torch
from torch import nn

from autograder.authoring.lessons import parse_lesson
from autograder.rules import items
from course.probes.pipeline import call_recording_copies
from instructor.pipeline import checkpoint_bytes, classification_data, linear_reference
from tests.conftest import ROOT
from tests.quiz_keys import key_of, outcome, the_true_choice

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


@pytest.fixture(scope="module")
def solutions() -> dict:
    """The namespace of the lesson's first code cell with every reference answer defined in it."""
    cells = parse_lesson((ROOT / "lessons" / "10_pipeline.py").read_text(encoding="utf-8"))
    namespace: dict = {}
    setup = next(c for c in cells if c.kind == "code")
    with contextlib.redirect_stdout(io.StringIO()):
        exec("\n".join(setup.lines), namespace)
        exec("import io\nimport torch.nn.functional as F", namespace)
        for cell in cells:
            if cell.kind == "answer":
                code = "\n".join(
                    line for line in cell.lines if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line
                )
                exec(code, namespace)
    return namespace


@pytest.mark.parametrize(
    "move, flags",
    [
        (lambda t: t.to("meta"), [False]),
        (lambda t: t.to("meta", non_blocking=True), [True]),
        (lambda t: t.to(torch.device("meta"), torch.float16, True), [True]),
        (lambda t: t.to("meta", torch.float16), [False]),
        (lambda t: torch.empty_like(t, device="meta").copy_(t, non_blocking=True), [True]),
        (lambda t: torch.empty_like(t, device="meta").copy_(t), [False]),
        (lambda t: t.to("meta", non_blocking=False).to("meta", non_blocking=True), [False, True]),
    ],
)
def test_every_copy_call_is_recorded_with_its_flag(move, flags):
    result, copies = call_recording_copies(move, torch.ones(3))
    assert result.device.type == "meta"
    assert [c["non_blocking"] for c in copies] == flags
    assert all(not c["pinned"] for c in copies)


def test_calls_that_copy_nothing_are_not_recorded():
    result, copies = call_recording_copies(lambda t: (t + 1, t.sum(), t.is_pinned()), torch.ones(3))
    assert copies == [] and result[2] is False


def test_the_recorder_is_gone_after_the_call_and_after_an_error():
    def broken(t):
        raise ValueError("boom")

    with pytest.raises(ValueError):
        call_recording_copies(broken, torch.ones(1))
    assert not torch._C._is_torch_function_mode_enabled()
    call_recording_copies(lambda t: t.to("meta"), torch.ones(1))
    assert not torch._C._is_torch_function_mode_enabled()


def test_send_batch_reference_makes_only_blocking_copies_without_pinning(solutions):
    batch = {"a": [torch.ones(2), (torch.zeros(1), "x")], "b": None}
    moved, copies = call_recording_copies(solutions["send_batch"], batch, "meta")
    assert moved["a"][0].device.type == "meta" and moved["a"][1][1] == "x" and moved["b"] is None
    assert isinstance(moved["a"][1], tuple)
    assert len(copies) == 2 and not any(c["non_blocking"] for c in copies)


@cuda
@pytest.mark.cuda
def test_pinned_sources_are_seen_as_pinned(solutions):
    batch = [torch.ones(4).pin_memory(), torch.ones(4)]
    moved, copies = call_recording_copies(solutions["send_batch"], batch, "cuda")
    assert [t.device.type for t in moved] == ["cuda", "cuda"]
    assert sorted((c["pinned"], c["non_blocking"]) for c in copies) == [(False, False), (True, True)]
    _, wrong = call_recording_copies(lambda b: [t.to("cuda") for t in b], batch)
    assert (True, False) in [(c["pinned"], c["non_blocking"]) for c in wrong]


@pytest.mark.parametrize("saved_on", ["cuda:0", "cuda:1"])
def test_checkpoint_bytes_say_where_they_were_saved(saved_on):
    data = checkpoint_bytes({"w": torch.arange(3.0)}, saved_on=saved_on)
    assert saved_on.encode() in data
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError):
            torch.load(io.BytesIO(data), weights_only=True)
    assert torch.equal(torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)["w"], torch.arange(3.0))


def test_checkpoint_bytes_on_the_cpu_are_plain_and_the_tag_is_reset():
    cpu = checkpoint_bytes({"w": torch.ones(2)}, saved_on="cpu")
    checkpoint_bytes({"w": torch.ones(2)}, saved_on="cuda:0")
    buffer = io.BytesIO()
    torch.save({"w": torch.ones(2)}, buffer)
    assert b"cuda" not in cpu and b"cuda" not in buffer.getvalue()
    assert torch.equal(torch.load(io.BytesIO(cpu), weights_only=True)["w"], torch.ones(2))


def test_load_checkpoint_reference_refuses_code_and_maps_devices(solutions):
    load = solutions["load_checkpoint"]
    data = checkpoint_bytes({"model": {"w": torch.ones(2)}, "epoch": 3}, saved_on="cuda:0")
    loaded = load(data, "meta")
    assert loaded["model"]["w"].device.type == "meta" and loaded["epoch"] == 3
    import datetime

    with pytest.raises(pickle.UnpicklingError):
        load(checkpoint_bytes({"day": datetime.date(2024, 1, 1)}, saved_on="cpu"), "cpu")


def test_classification_data_is_repeatable_and_in_range():
    x, y = classification_data(30, 4, 3, seed=2)
    x2, y2 = classification_data(30, 4, 3, seed=2)
    assert torch.equal(x, x2) and torch.equal(y, y2)
    assert x.shape == (30, 4) and x.dtype == torch.float32 and y.dtype == torch.int64
    assert 0 <= int(y.min()) and int(y.max()) < 3
    assert not torch.equal(classification_data(30, 4, 3, seed=3)[0], x)


def test_repeatable_losses_reference_repeats_and_wrong_seeding_does_not(solutions):
    x, y = classification_data(12, 3, 2, seed=0)
    run = solutions["repeatable_losses"]
    first = run(x, y, 2, 4, 2)
    torch.rand(5)  # whatever runs in between
    assert run(x, y, 2, 4, 2) == first and run(x, y, 2, 5, 2) != first and len(first) == 6

    def unseeded(x, y, num_classes, seed, epochs):
        return [float(v) for v in torch.rand(epochs * 3)]

    assert unseeded(x, y, 2, 4, 2) != unseeded(x, y, 2, 4, 2)


def test_predict_bf16_reference_matches_the_reference_within_bfloat16(solutions):
    generator = torch.Generator().manual_seed(0)
    w = torch.randn(8, 64, generator=generator, requires_grad=True)
    b = torch.randn(8, generator=generator, requires_grad=True)
    x = torch.randn(33, 64, generator=generator)
    found = solutions["predict_bf16"](w, b, x)
    expected = linear_reference(w, b, x)
    assert found.dtype == torch.bfloat16 and not found.requires_grad and found.shape == (33, 8)
    assert torch.allclose(found.float(), expected, atol=0.05 * 8, rtol=2e-2)
    assert not torch.allclose((x @ w.T + b).detach(), expected + 1.0, atol=0.4)


@pytest.mark.parametrize(
    "a, b, same", [("cuda", "cuda:0", True), ("cuda:1", "cuda", False), ("cpu", "cpu:0", True), ("meta", "cpu", False)]
)
def test_same_place_reference_without_cuda(solutions, a, b, same):
    if torch.cuda.is_available():
        pytest.skip("the machine without CUDA reads 'cuda' as index 0")
    assert solutions["same_place"](a, b) is same


def test_synchronize_if_needed_reference_on_the_cpu(solutions):
    assert solutions["synchronize_if_needed"]("cpu") is False
    assert solutions["synchronize_if_needed"](torch.ones(1, device="meta")) is False


@cuda
@pytest.mark.cuda
def test_synchronize_if_needed_reference_waits_on_cuda(solutions):
    a = torch.randn(2048, 2048, device="cuda")
    for _ in range(10):
        a = a @ a / 2048
    assert solutions["synchronize_if_needed"](a) is True
    assert torch.cuda.current_stream().query()


# Each quiz run: exactly one choice holds, and it is the key in the lesson's hidden test. The GPU
# quizzes run on a GPU when there is one; without one, what needs it is skipped or stood in for.

QUIZ_LESSON = "10_pipeline"


def test_cuda_index_key():
    if torch.cuda.is_available():
        tensor_device = torch.ones(3, device="cuda").device
    else:  # what a CUDA tensor reports, checked on a GPU by lesson 03's claims
        tensor_device = torch.device("cuda", 0)
    found = outcome(lambda: len({tensor_device, torch.device("cuda:0"), torch.device("cuda")}))
    holds = {"A": found == 2, "B": found == 1, "C": found == 3, "D": found is TypeError}
    assert the_true_choice(holds) == key_of(QUIZ_LESSON, "answer_cuda_index")


@cuda
@pytest.mark.cuda
def test_unsynced_timing_key():
    a = torch.randn(8192, 8192, device="cuda")
    b = torch.randn(8192, 8192, device="cuda")
    torch.cuda.synchronize()
    torch.cuda._sleep(int(1e8))  # keep the stream busy, so that the product cannot have finished when it is queued
    c = a @ b
    product_done = torch.cuda.Event()
    product_done.record()
    product_finished_before_sum = product_done.query()
    total = outcome(lambda: c.sum().item())
    all_finished = torch.cuda.current_stream().query()
    holds = {
        "A": not all_finished,
        "B": all_finished and isinstance(total, float),
        "C": product_finished_before_sum,
        "D": total is RuntimeError,
    }
    assert the_true_choice(holds) == key_of(QUIZ_LESSON, "answer_unsynced_timing")


def test_inference_tensor_key():
    encoder, head = nn.Linear(4, 3), nn.Linear(3, 2)
    with torch.inference_mode():
        features = encoder(torch.randn(5, 4))
    found = outcome(lambda: head(features))
    holds = {
        "A": isinstance(found, torch.Tensor),
        "B": isinstance(found, torch.Tensor) and not features.is_inference(),
        "C": isinstance(found, torch.Tensor) and found.requires_grad,
        "D": found is RuntimeError,
    }
    assert the_true_choice(holds) == key_of(QUIZ_LESSON, "answer_inference_tensor")


def _visible_check(item: str) -> str:
    cells = parse_lesson((ROOT / "lessons" / "10_pipeline.py").read_text(encoding="utf-8"))
    test = next(c for c in cells if c.kind == "test" and c.item == item)
    return "\n".join(test.lines).split(items.BEGIN_HIDDEN)[0]


@pytest.mark.parametrize("kind", ["wrong", "right"])
def test_same_places_visible_check_holds_its_main_rule(kind):
    """'cuda' is the current GPU: every wrong answer of the corpus fails before hand-in, every right one passes."""
    import importlib

    from course.checks import CheckFailed

    for answer in importlib.import_module("tests.corpus.10_pipeline").ITEMS["same_place"][kind]:
        namespace: dict = {"torch": torch}
        exec(answer, namespace)
        with contextlib.redirect_stdout(io.StringIO()) as shown:
            try:
                exec(_visible_check("same_place"), namespace)
            except CheckFailed:
                failed = True
            else:
                failed = False
        assert failed == (kind == "wrong"), answer
        assert ("✓ same_place" in shown.getvalue()) == (kind == "right"), answer
