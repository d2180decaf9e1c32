"""`judge.notebook`: the output helpers on hand-made outputs, and `grade_job` on real jobs.

The helpers decide what of a child's outputs reaches the autograded notebook: only well-formed
nbformat outputs, test cells without stderr, the largest outputs dropped first when the notebook is
too big, the grader's notes on top, each answer and test cell tied to its item. `grade_job` then
grades jobs planned and loaded as the coordinator does (`plan.submissions`, `jobs.load`) against a
real zygote: a right answer and a wrong one give their per-cell verdicts and the gradebook's summary.
"""

from __future__ import annotations

import copy
import json

import nbformat
import pytest
from hypothesis import given, settings as hypothesis_settings, strategies as st

from autograder.authoring import samples
from autograder.config.limits import Limits
from autograder.coordinator import plan
from autograder.judge import jobs, notebook
from autograder.judge.pool import JudgePool
from autograder.sandbox import capabilities
from tests.autograder.coordinator.test_grader import FULL, LESSON, TINY, edit_cell, make_course, notebooks, submit
from tests.autograder.judge.test_session import judge_socket


def _valid(outputs: list[dict]) -> None:
    """Raises unless `outputs` are a valid code cell's outputs for nbformat."""
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("pass")
    cell.outputs = outputs
    nb.cells.append(cell)
    nbformat.validate(nb)


# ---------------------------------------------------------------- output helpers


def test_clean_outputs_keeps_only_nbformat_outputs():
    """Each malformed or foreign output is dropped and each kept one holds only nbformat's fields: a helper
    that passed outputs through would keep the extra keys, the bad stream name or the unknown type."""
    sent = [
        {"output_type": "stream", "name": "stdout", "text": "hello\n", "extra": "dropped"},
        {"output_type": "stream", "name": "stdin", "text": "no such stream\n"},
        {"output_type": "stream", "name": "stdout", "text": ["not", "a", "string"]},
        {
            "output_type": "display_data",
            "data": {"text/plain": "shown", "image/png": "iVBOR", "plain": "no mime type", "text/html": 42},
            "metadata": "not a dict",
            "transient": {"display_id": "x"},
        },
        {"output_type": "execute_result", "data": {"text/plain": "3"}, "metadata": {}, "execution_count": True},
        {"output_type": "execute_result", "data": {"text/plain": "4"}, "metadata": {"a": 1}, "execution_count": 7},
        {"output_type": "execute_result", "data": "not a dict", "execution_count": 8},
        {"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": ["line 1", 2, None]},
        {"output_type": "error", "ename": "KeyError", "evalue": "k", "traceback": "not a list"},
        {"output_type": "error", "ename": 3, "evalue": "no name"},
        {"output_type": "update_display_data", "data": {"text/plain": "x"}, "metadata": {}},
        {"output_type": "raw", "text": "unknown kind"},
        {"name": "stdout", "text": "no output_type"},
        "not a dict",
        None,
    ]
    clean = notebook._clean_outputs(copy.deepcopy(sent))
    assert clean == [
        {"output_type": "stream", "name": "stdout", "text": "hello\n"},
        {"output_type": "display_data", "data": {"text/plain": "shown", "image/png": "iVBOR"}, "metadata": {}},
        {"output_type": "execute_result", "data": {"text/plain": "3"}, "metadata": {}, "execution_count": None},
        {"output_type": "execute_result", "data": {"text/plain": "4"}, "metadata": {"a": 1}, "execution_count": 7},
        {"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": ["line 1"]},
        {"output_type": "error", "ename": "KeyError", "evalue": "k", "traceback": []},
    ]
    _valid(clean)
    assert notebook._clean_outputs({"output_type": "stream"}) == [] and notebook._clean_outputs(None) == []


def test_test_outputs_show_stderr_as_stdout_where_the_course_opts_out():
    """nbgrader scores a test cell with a stderr stream as failed; a course that opts out of that rule has a
    passing test's warning moved to stdout; its error output stays, and what is not an nbformat output is
    dropped as for any cell. Under nbgrader's rule the stderr stream stays stderr."""
    sent = [
        {"output_type": "stream", "name": "stderr", "text": "UserWarning: careful\n"},
        {"output_type": "stream", "name": "stdout", "text": "add passed\n"},
        {"output_type": "error", "ename": "CheckFailed", "evalue": "add(1, 2)", "traceback": []},
        {"output_type": "stream", "name": "bogus", "text": "dropped\n"},
    ]
    outputs = notebook._test_outputs(sent, stderr_fails=False)
    assert [(o["output_type"], o.get("name"), o.get("text", o.get("ename"))) for o in outputs] == [
        ("stream", "stdout", "UserWarning: careful\n"),
        ("stream", "stdout", "add passed\n"),
        ("error", None, "CheckFailed"),
    ]
    _valid(outputs)
    kept = notebook._test_outputs(sent, stderr_fails=True)
    assert [o.get("name") for o in kept] == ["stderr", "stdout", None]
    _valid(kept)


def _text_cell(size: int) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(f"print('x' * {size})")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="x" * size)]
    return cell


def test_fit_notebook_replaces_the_largest_outputs_first_until_it_fits():
    """With room for all but the two largest outputs, exactly those two become the note: a helper that replaced
    in notebook order, or every output, or stopped after one, would leave another set of cells."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("y" * 50_000)] + [_text_cell(n) for n in (20_000, 300_000, 10, 200_000)]
    limit = len(nbformat.writes(nb)) - 400_000
    assert notebook._fit_notebook(nb, limit) is True
    assert len(nbformat.writes(nb)) <= limit
    kept = [cell.outputs[0]["text"] for cell in nb.cells[1:]]
    assert kept[0] == "x" * 20_000 and kept[2] == "x" * 10
    assert kept[1] == kept[3] and "over its size limit" in kept[1] and nb.cells[1].outputs[0]["name"] == "stdout"
    assert nb.cells[0].source == "y" * 50_000


def test_fit_notebook_leaves_a_notebook_within_its_limit_alone():
    """Under the limit nothing changes and it says so; the size it checks is the written text it is given."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [_text_cell(n) for n in (1_000, 5_000)]
    before = copy.deepcopy(nb)
    text = nbformat.writes(nb)
    assert notebook._fit_notebook(nb, len(text)) is False and nb == before
    assert notebook._fit_notebook(nb, len(text), text="z" * (len(text) + 1)) is True
    assert nb.cells[0].outputs == before.cells[0].outputs and nb.cells[1].outputs != before.cells[1].outputs


def test_add_notes_puts_a_markdown_cell_first():
    """The student reads the notes at the top of the feedback: one markdown cell before the notebook's own cells."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Lesson"), _text_cell(3)]
    notebook._add_notes(nb, ["outputs were cut", "a file was left out"])
    assert [cell.cell_type for cell in nb.cells] == ["markdown", "markdown", "code"]
    assert nb.cells[0].source == "**Notes from the grader**\n\n- outputs were cut\n- a file was left out"
    assert nb.cells[0].metadata == {"autograder": {"notes": True}} and nb.cells[1].source == "# Lesson"
    nbformat.validate(nb)


def _cell(**nbgrader) -> dict:
    return {"cell_type": "code", "source": "", "metadata": {"nbgrader": nbgrader} if nbgrader else {}}


@pytest.mark.parametrize(
    "cell, item",
    [
        (_cell(grade_id="add", solution=True, grade=False), "add"),
        (_cell(grade_id="test_add", solution=False, grade=True, points=1), "add"),
        (_cell(grade_id="essay", solution=True, grade=True, points=2), "essay"),
        (_cell(grade_id="setup", solution=False, grade=False, locked=True), None),
        (_cell(grade_id=7, solution=True, grade=False), None),
        (_cell(), None),
        ({"cell_type": "markdown", "source": "text"}, None),
    ],
    ids=["answer", "test", "manually-graded-answer", "read-only", "bad-grade-id", "plain", "markdown"],
)
def test_item_of_maps_answer_and_test_cells_to_their_item(cell, item):
    """A test cell names its item without `test_`; an answer cell is its item; other cells belong to none."""
    assert notebook._item_of(cell) == item


# ---------------------------------------------------------------- grade_job end to end

needs_sandbox = pytest.mark.skipif(
    bool(capabilities.missing_mechanisms()),
    reason="this machine lacks confinement: " + "; ".join(capabilities.missing_mechanisms()),
)


def _planned(course, lesson: str, students: tuple[str, ...]) -> dict[str, dict]:
    """Each student's job for `lesson`, planned and loaded as the coordinator does."""
    templates, notebooks_of = plan.write_templates(course, course / plan.STATE_DIR, [lesson])
    planned = plan.submissions(
        course,
        [(student, lesson) for student in students],
        notebooks_of,
        templates,
        limits=Limits(),
        code_hash=jobs.course_code_hash(),
        tests_in_sandbox=False,
        allow_weak_sandbox=False,
    )
    return {sub.student: jobs.load(sub.jobs[lesson]) for sub in planned}


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """Jobs planned and loaded as the coordinator does, and a control socket to a real zygote."""
    course = make_course(tmp_path_factory.mktemp("notebook") / "course", {LESSON: TINY})
    source, release = notebooks(course, LESSON)
    full = samples.answered(source, release, keep=None)
    submit(course, "right", LESSON, full)
    submit(course, "wrong", LESSON, edit_cell(full, "mul", "def mul(a, b):\n    return 6 if (a, b) == (2, 3) else 0"))
    submit(course, "broken", LESSON, b'{"cells": [')
    loaded = _planned(course, LESSON, ("right", "wrong", "broken"))
    pool = JudgePool(course, 0, 1)
    sock = judge_socket(pool)
    try:
        yield loaded, sock
    finally:
        sock.close()
        pool.close()


def _verdicts(result: dict) -> dict[str, str | None]:
    """{test cell: the ename of its error output, None when it passed} in the autograded notebook."""
    nb = nbformat.reads(result["notebook_json"], as_version=4)
    verdicts = {}
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade") and not meta.get("solution"):
            errors = [o["ename"] for o in cell.outputs if o["output_type"] == "error"]
            verdicts[meta["grade_id"]] = errors[0] if errors else None
    return verdicts


@pytest.mark.slow
@needs_sandbox
def test_grade_job_gives_each_test_cell_its_verdict(judged):
    """The right notebook passes every test; the wrong `mul` (right on the visible case only) fails its hidden
    check alone, and the summary the gradebook records gives it no points for `test_mul` and full marks else."""
    loaded, sock = judged
    right = notebook.grade_job(loaded["right"], sock)
    wrong = notebook.grade_job(loaded["wrong"], sock)
    for job, result in ((loaded["right"], right), (loaded["wrong"], wrong)):
        assert result["status"] == "ok" and result["reason"] == "" and result["failures"] == []
        assert result["job"] == job["key"] and result["student"] == job["student"]
        assert result["tampering"] == [] and "limits" not in result
        assert result["timings"]["forks"] >= 1
    assert _verdicts(right) == {"test_add": None, "test_mul": None, "test_twice": None}
    assert _verdicts(wrong) == {"test_add": None, "test_mul": "CheckFailed", "test_twice": None}
    assert {k: v[0] for k, v in right["summary"]["grades"].items()} == FULL
    assert {k: v[0] for k, v in wrong["summary"]["grades"].items()} == {**FULL, "test_mul": 0}
    assert "mul(7, 6)" in wrong["notebook_json"] and "check_equal(mul(7, 6)" not in wrong["notebook_json"]


@pytest.mark.slow
@needs_sandbox
def test_grade_job_puts_the_jobs_notes_on_top(judged):
    """A job's notes (files left out when it was planned) reach the student as the first cell and the result."""
    loaded, sock = judged
    job = {**loaded["right"], "notes": ["2 of the files handed in beside the notebook were not given to it"]}
    result = notebook.grade_job(job, sock)
    first = nbformat.reads(result["notebook_json"], as_version=4).cells[0]
    assert first.cell_type == "markdown" and first.metadata == {"autograder": {"notes": True}}
    assert job["notes"][0] in first.source and result["limits"] == job["notes"]
    assert {k: v[0] for k, v in result["summary"]["grades"].items()} == FULL


@pytest.mark.process
@needs_sandbox
def test_grade_job_answers_an_unreadable_submission_with_its_reason(judged):
    """A submission that is not notebook JSON is one result with the reason, never an exception in the judge."""
    loaded, sock = judged
    result = notebook.grade_job(loaded["broken"], sock)
    assert result["status"] == "error" and result["notebook_json"] is None
    assert result["reason"].startswith(f"{LESSON}.ipynb is not valid notebook JSON"), result["reason"]
    assert json.loads(json.dumps(result)) == result


ONE_PROCESS = '''# %% [markdown]
# # One process per test

# %%
import os

# %% answer token
TOKEN = os.urandom(8).hex()


def token():
    """The token this notebook's process drew."""
    ### BEGIN SOLUTION
    return TOKEN
    ### END SOLUTION

# %% test token points=1
from course.checks import check_true, passed
from course.probes.core import call_watching_inputs

check_true(isinstance(token(), str), "token() gives a string")
passed("token")
### BEGIN HIDDEN TESTS
direct = token()
probed, _ = call_watching_inputs(token)
check_true(direct == probed, f"the direct call saw {direct}, the probed one {probed}")
### END HIDDEN TESTS
'''


@pytest.mark.slow
@needs_sandbox
def test_a_test_that_probes_makes_all_its_calls_in_one_process(tmp_path):
    """One call, one verdict: the test's direct call and its probe run in the same child (each child draws its
    own token when it runs the item's cell), so a function cannot act one way for the values and another for
    the probe. Were the direct call made in the notebook's child, the tokens would differ and the test fail."""
    lesson = "98_one_process"
    course = make_course(tmp_path / "course", {lesson: ONE_PROCESS})
    source, release = notebooks(course, lesson)
    submit(course, "ada", lesson, samples.answered(source, release, keep=None))
    job = _planned(course, lesson, ("ada",))["ada"]
    pool = JudgePool(course, 0, 1)
    sock = judge_socket(pool)
    try:
        result = notebook.grade_job(job, sock)
    finally:
        sock.close()
        pool.close()
    assert result["status"] == "ok" and result["tampering"] == [], result
    assert _verdicts(result) == {"test_token": None}, result["notebook_json"][-2000:]


# ---------------------------------------------------------------- text every later write can take

texts = st.text(alphabet=st.characters(codec=None, blacklist_categories=()))  # lone surrogates included
results = st.recursive(
    st.none() | st.booleans() | st.integers() | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=10,
)


def surrogate_free(value) -> bool:
    return not any("\ud800" <= ch <= "\udfff" for ch in json.dumps(value, ensure_ascii=False))


@hypothesis_settings(max_examples=300, deadline=None)
@given(results)
def test_a_results_strings_become_utf8_and_only_lone_surrogates_change(value):
    cleaned = notebook.utf8_values(value)
    json.dumps(cleaned, ensure_ascii=False).encode("utf-8")  # raises on a lone surrogate left anywhere
    if surrogate_free(value):
        assert cleaned == value


def test_each_lone_surrogate_becomes_one_replacement_character():
    assert notebook.utf8_text("a\ud800b\udfff\ud83d\ude00") == "a\ufffdb\ufffd\ufffd\ufffd"
    assert notebook.utf8_text("plain \u00e9 \U0001f600") == "plain \u00e9 \U0001f600"
