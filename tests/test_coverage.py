"""The seed-coverage table: every idea the curriculum lists is taught in a real section of a lesson."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT, lessons

HEADING = re.compile(r"^# #{1,4} (.+?)\s*$", re.MULTILINE)


def _rows(lesson: str) -> list[tuple[str, str]]:
    path = ROOT / "docs" / "coverage" / f"{lesson}.md"
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if (
            len(cells) >= 2
            and line.lstrip().startswith("|")
            and not set(cells[0]) <= set("-: ")
            and cells[0] != "Idea from the seeds"
        ):
            rows.append((cells[0], cells[1]))
    return rows


@pytest.mark.parametrize("lesson", lessons())
def test_every_row_points_at_a_real_section(lesson):
    headings = {
        h.strip("`* ").strip() for h in HEADING.findall((ROOT / "lessons" / f"{lesson}.py").read_text(encoding="utf-8"))
    }
    rows = _rows(lesson)
    assert rows, f"docs/coverage/{lesson}.md has no rows"
    missing = [(idea, section) for idea, section in rows if section.strip("`* ").strip() not in headings]
    assert not missing, f"sections not found in lessons/{lesson}.py: {missing}"


# The curriculum's "Seed coverage" list, one entry per idea (the follow-up questions and common
# mistakes of the first seed one by one).
CURRICULUM_IDEAS = [
    "rank and what each rank holds*",
    "`.shape` and `torch.Size`*",
    "the `(batch, channels, height, width)` layout*",
    "dtype and the float32/int64 defaults*",
    "casting for `nn.Linear`*",
    "device, CPU by default*",
    "`torch.device` and the cuda-if-available idiom*",
    "`.to` returns a new tensor*",
    "creating on a device with `device=`",
    "the device-mismatch RuntimeError*",
    "CPU and GPU memory and the PCIe cost of transfers",
    "`from_numpy` shares memory*",
    "`torch.tensor` copies*",
    "`.numpy()` shares",
    "`.numpy()` fails on CUDA* and on tensors that require grad",
    "`.detach().cpu().numpy()`*",
    "NumPy-style indexing, slicing and boolean masks",
    "creation with zeros/ones/randn",
    "`@`, transpose, sum and mean",
    "view/reshape*",
    "broadcasting*",
    "reductions*",
    "`requires_grad`*",
    "the graph and `grad_fn`*",
    "`backward()` and `.grad`*",
    "`torch.no_grad()` for inference*",
    "a training step with `nn.Linear` and `CrossEntropyLoss`*",
    "common mistake: confused arrays",
    "common mistake: ignored devices",
    "common mistake: forgotten no_grad",
    "common mistake: misunderstood dimensions",
    "common mistake: assuming a GPU is used automatically",
    "follow-up: how does PyTorch calculate gradients for tensors?",
    "follow-up: what is the difference between `torch.Tensor` and `numpy.ndarray`?",
    "follow-up: how do you move a tensor from CPU memory to GPU memory?",
    "follow-up: what do tensor dimensions represent in a neural network?",
    "follow-up: why are GPUs faster for tensor operations?",
    "the NumPy vs tensor comparison as a table",
]


def _index_rows() -> list[tuple[str, str, str]]:
    rows = []
    for line in (ROOT / "docs" / "coverage" / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 3 and cells[0] != "Idea" and not set(cells[0]) <= set("-: "):
            rows.append((cells[0], cells[1], cells[2]))
    return rows


def test_the_index_covers_the_whole_curriculum():
    ideas = [idea for idea, _, _ in _index_rows()]
    missing = [idea for idea in CURRICULUM_IDEAS if idea not in ideas]
    assert not missing, f"docs/coverage/README.md lacks: {missing}"


@pytest.mark.parametrize("idea, lesson, section", _index_rows())
def test_index_rows_point_at_real_sections(idea, lesson, section):
    path = ROOT / "lessons" / f"{lesson}.py"
    assert path.is_file(), f"{idea}: no lesson {lesson}"
    headings = {h.strip("`* ").strip() for h in HEADING.findall(path.read_text(encoding="utf-8"))}
    assert section.strip("`* ").strip() in headings, f"{idea}: no section {section!r} in {lesson}"
