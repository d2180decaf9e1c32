"""On a CUDA machine: the sandbox sees the judge's GPUs, and honest CUDA answers get full marks.

Run by `scripts/run_notebooks.py --require-cuda`; skipped where torch sees no CUDA device.
"""

from __future__ import annotations

import os
import sys

import nbformat
import pytest
import torch

from autograder import commands
from autograder.grades import gradebook
from autograder.authoring import samples
from autograder.judge.pool import JudgePool, cuda_devices_in_a_fork
from autograder.sandbox import layers
from tests.conftest import copy_course

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.slow,
    pytest.mark.skipif(
        not sys.platform.startswith("linux") or not layers.gpu_devices(), reason="no /dev/nvidia* on this machine"
    ),
]
LESSONS = ("03_device", "07_training")


def test_the_judge_and_the_sandbox_see_the_same_cuda_devices(tmp_path):
    assert cuda_devices_in_a_fork() > 0
    pool = JudgePool(tmp_path, 1, 1)  # the device check runs while it starts; it raises when they differ
    pool.close()


def test_honest_answers_using_cuda_get_full_marks(tmp_path):
    course = copy_course(tmp_path / "course")
    for lesson in LESSONS:
        source = nbformat.read(course / "source" / lesson / f"{lesson}.ipynb", as_version=4)
        release = nbformat.read(course / "release" / lesson / f"{lesson}.ipynb", as_version=4)
        honest = samples.answered(source, release, keep=None)
        folder = course / "submitted" / "gpu" / lesson
        folder.mkdir(parents=True)
        nbformat.write(honest, folder / f"{lesson}.ipynb")
    results = commands.grade(course, assignments=list(LESSONS), progress=False)
    assert set(results.values()) == {"ok"}, results
    table = gradebook.score_table(course)
    for lesson in LESSONS:
        scores = table[(lesson, "gpu")]
        maxima = {r.item: r.max_score for r in gradebook.item_scores(course) if r.assignment == lesson}
        assert scores == {item: maxima[item] for item in scores}, (lesson, scores)
    assert os.environ.get("CUDA_VISIBLE_DEVICES", "") != "-1" and torch.cuda.is_available()
