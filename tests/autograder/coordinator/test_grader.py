"""The grading engine end to end: nbgrader's scores on honest work, exact scores when cells crash,
hang or are tampered with, and the same gradebook on every re-run."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import nbformat
import pytest

from autograder.authoring import lessons as authoring, samples
from autograder import commands
from autograder.grades import gradebook, records
from autograder.rules import repair, scoring
from tests.conftest import ROOT

pytestmark = pytest.mark.slow

TINY = '''# %% [markdown]
# # A tiny lesson

# %%
import os
import torch

# %% answer add
def add(a, b):
    """a + b"""
    ### BEGIN SOLUTION
    return a + b
    ### END SOLUTION

# %% test add points=1
from course.checks import check_equal, passed

check_equal(add(1, 2), 3, what="add(1, 2)")
passed("add")
### BEGIN HIDDEN TESTS
check_equal(add(20, 22), 42, what="add(20, 22)")
### END HIDDEN TESTS

# %% answer mul
def mul(a, b):
    """a * b"""
    ### BEGIN SOLUTION
    return a * b
    ### END SOLUTION

# %% test mul points=2
from course.checks import check_equal, passed

check_equal(mul(2, 3), 6, what="mul(2, 3)")
passed("mul")
### BEGIN HIDDEN TESTS
check_equal(mul(7, 6), 42, what="mul(7, 6)")
### END HIDDEN TESTS

# %% answer twice
def twice(t):
    """t doubled"""
    ### BEGIN SOLUTION
    return t * 2
    ### END SOLUTION

# %% test twice points=3
import torch
from course.checks import check_tensor, passed

check_tensor(twice(torch.ones(2)), torch.full((2,), 2.0), what="twice(torch.ones(2))")
passed("twice")
### BEGIN HIDDEN TESTS
check_tensor(twice(torch.arange(4.0).reshape(2, 2).T), torch.arange(4.0).reshape(2, 2).T * 2, what="twice of a transposed tensor")
### END HIDDEN TESTS
'''

LESSON = "99_tiny"
FULL = {"test_add": 1.0, "test_mul": 2.0, "test_twice": 3.0}


def make_course(
    root: Path, lessons: dict[str, str] | None = None, *, copy_lessons: tuple[str, ...] = (), cell_timeout: float = 4
) -> Path:
    """A short cell timeout keeps the hang cases quick; real lessons keep the course's own limit, so a busy machine
    cannot time out an honest cell."""
    root.mkdir(parents=True)
    config = (ROOT / "nbgrader_config.py").read_text(encoding="utf-8")
    assert "c.Autograder.cell_timeout = 60" in config
    config = config.replace("c.Autograder.cell_timeout = 60", f"c.Autograder.cell_timeout = {cell_timeout:g}")
    (root / "nbgrader_config.py").write_text(config, encoding="utf-8")
    for lesson in copy_lessons:
        shutil.copytree(ROOT / "source" / lesson, root / "source" / lesson)
    for lesson, text in (lessons or {}).items():
        (root / "lessons").mkdir(exist_ok=True)
        (root / "lessons" / f"{lesson}.py").write_text(text, encoding="utf-8")
        authoring.build(root, assignments=[lesson])
    commands.release(root, progress=False)
    return root


def submit(course: Path, student: str, lesson: str, nb) -> None:
    target = course / "submitted" / student / lesson / f"{lesson}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(nb, bytes):
        target.write_bytes(nb)
    else:
        nbformat.write(nb, target)


def notebooks(course: Path, lesson: str):
    source = nbformat.read(course / "source" / lesson / f"{lesson}.ipynb", as_version=4)
    release = nbformat.read(course / "release" / lesson / f"{lesson}.ipynb", as_version=4)
    return source, release


# ---------------------------------------------------------------- same scores as nbgrader


@pytest.fixture(scope="module")
def honest_class(tmp_path_factory):
    base = tmp_path_factory.mktemp("honest")
    lesson = "01_tensors"
    courses = {}
    for grader in ("nbgrader", "autograder"):
        course = make_course(base / grader, copy_lessons=(lesson,), cell_timeout=60)
        source, release = notebooks(course, lesson)
        items = samples.answer_items(release)
        submit(course, "solution", lesson, source)
        submit(course, "answered", lesson, samples.answered(source, release, keep=None))
        submit(course, "blank", lesson, release)
        submit(course, "odd", lesson, samples.answered(source, release, keep=set(items[::2])))
        submit(course, "even", lesson, samples.answered(source, release, keep=set(items[1::2])))
        results = commands.grade(course, progress=False, grader=grader, workers=2)
        courses[grader] = (course, results)
    return courses


def test_same_scores_as_stock_nbgrader(honest_class):
    stock_course, stock_results = honest_class["nbgrader"]
    course, results = honest_class["autograder"]
    assert set(results.values()) == {"ok"} and stock_results == results
    ours, theirs = gradebook.score_table(course), gradebook.score_table(stock_course)
    assert ours == theirs
    points = {k: v for k, v in ours[("01_tensors", "solution")].items()}
    assert sum(points.values()) > 0 and ours[("01_tensors", "answered")] == points
    assert set(ours[("01_tensors", "blank")].values()) == {0.0}
    assert 0 < sum(ours[("01_tensors", "odd")].values()) < sum(points.values())


def test_same_comments_as_stock_nbgrader(honest_class):
    from nbgrader.api import Gradebook

    def comments(course):
        with Gradebook(gradebook.db_url(course)) as gb:
            return sorted(
                (s.student.id, cm.name, cm.auto_comment)
                for a in gb.assignments
                for s in a.submissions
                for nb in s.notebooks
                for cm in nb.comments
            )

    assert comments(honest_class["autograder"][0]) == comments(honest_class["nbgrader"][0])


def test_hidden_tests_stay_out_of_the_autograded_notebook(honest_class):
    course, _ = honest_class["autograder"]
    text = (course / "autograded" / "solution" / "01_tensors" / "01_tensors.ipynb").read_text(encoding="utf-8")
    source, _ = notebooks(course, "01_tensors")
    for cell in source.cells:
        if "BEGIN HIDDEN TESTS" in cell.source:
            visible, rest = cell.source.split("### BEGIN HIDDEN TESTS")
            hidden = rest.split("### END HIDDEN TESTS")[0]
            for line in hidden.strip().splitlines():
                if line.strip() and line not in visible and len(line.strip()) > 3:
                    assert json.dumps(line)[1:-1] not in text
    assert repair.HIDDEN_NOTE in text


# ---------------------------------------------------------------- crashes, timeouts, tampering


def with_cell_before(nb, item: str, code: str):
    out = copy.deepcopy(nb)
    index = next(i for i, c in enumerate(out.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == item)
    out.cells.insert(index, nbformat.v4.new_code_cell(code))
    return out


def edit_cell(nb, grade_id: str, code: str | None):
    out = copy.deepcopy(nb)
    index = next(i for i, c in enumerate(out.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    if code is None:
        del out.cells[index]
    else:
        out.cells[index].source = code
    return out


# Output no UTF-8 text can hold: Python prints a lone surrogate when asked, and an error's message can carry one.
LONE_SURROGATES = (
    'print("printed \\ud800 here")\n'
    "from IPython.display import display\n"
    'display({"text/plain": "shown \\udc80 here"}, raw=True)\n'
    'raise ValueError("raised \\udfff here")'
)

CASES = {
    # student: (how the notebook is made from the fully answered one, expected scores)
    "honest": (lambda nb: nb, FULL),
    "crash-cell": (lambda nb: with_cell_before(nb, "mul", "import os\nos._exit(1)"), FULL),
    "crash-in-answer": (
        lambda nb: edit_cell(nb, "mul", "import os\nos._exit(1)\ndef mul(a, b):\n    return a * b"),
        {**FULL, "test_mul": 0.0},
    ),
    "hang-cell": (lambda nb: with_cell_before(nb, "add", "while True:\n    pass"), FULL),
    "hang-in-answer": (
        lambda nb: edit_cell(nb, "add", "while True:\n    pass\ndef add(a, b):\n    return a + b"),
        {**FULL, "test_add": 0.0},
    ),
    "crash-in-test-call": (
        lambda nb: edit_cell(nb, "mul", "def mul(a, b):\n    import os\n    os._exit(1)"),
        {**FULL, "test_mul": 0.0},
    ),
    "hang-in-test-call": (
        lambda nb: edit_cell(nb, "add", "def add(a, b):\n    while True:\n        pass"),
        {**FULL, "test_add": 0.0},
    ),
    "error-in-answer": (
        lambda nb: edit_cell(nb, "twice", "def twice(t):\n    return t * 2\nraise RuntimeError('oops')"),
        FULL,
    ),
    "wrong-hidden": (
        lambda nb: edit_cell(nb, "mul", "def mul(a, b):\n    return 6 if (a, b) == (2, 3) else 0"),
        {**FULL, "test_mul": 0.0},
    ),
    "always-equal": (
        lambda nb: edit_cell(
            nb, "add", "class Yes:\n    def __eq__(self, other):\n        return True\ndef add(a, b):\n    return Yes()"
        ),
        {**FULL, "test_add": 0.0},
    ),
    "lone-surrogates": (lambda nb: with_cell_before(nb, "add", LONE_SURROGATES), FULL),
    "deleted-test": (lambda nb: edit_cell(nb, "test_add", None), FULL),
    "deleted-answer": (lambda nb: edit_cell(nb, "mul", None), {**FULL, "test_mul": 0.0}),
    "edited-test": (
        lambda nb: edit_cell(edit_cell(nb, "test_mul", "pass"), "mul", "def mul(a, b):\n    return 0"),
        {**FULL, "test_mul": 0.0},
    ),
    "patched-checks": (
        lambda nb: edit_cell(
            nb,
            "twice",
            "import course.checks\ncourse.checks.check_tensor = lambda *a, **k: None\ndef twice(t):\n    return t",
        ),
        {**FULL, "test_twice": 0.0},
    ),
}


@pytest.fixture(scope="module")
def tiny_class(tmp_path_factory):
    course = make_course(tmp_path_factory.mktemp("tiny") / "course", {LESSON: TINY})
    source, release = notebooks(course, LESSON)
    full = samples.answered(source, release, keep=None)
    for student, (make, _) in CASES.items():
        submit(course, student, LESSON, make(full))
    submit(course, "broken-json", LESSON, b'{"cells": [')
    submit(course, "blank", LESSON, release)
    stats: dict = {}
    results = commands.grade(course, progress=False, workers=2, stats=stats)
    return course, results, stats


@pytest.mark.parametrize("student", sorted(CASES))
def test_exact_scores(tiny_class, student):
    course, results, _ = tiny_class
    assert results[(student, LESSON)] == "ok"
    assert gradebook.score_table(course)[(LESSON, student)] == CASES[student][1]


def test_lone_surrogates_in_outputs_become_replacement_characters_in_what_is_written(tiny_class):
    """Each write after the judge (record, autograded/, the gradebook) takes the notebook as UTF-8."""
    course, _, _ = tiny_class
    record = records.read_record(
        course / ".autograder", {"student": "lone-surrogates", "assignment": LESSON, "notebook": LESSON}
    )
    written = (course / "autograded" / "lone-surrogates" / LESSON / f"{LESSON}.ipynb").read_text(encoding="utf-8")
    assert record["notebook_json"] == written
    outputs = json.dumps([c.get("outputs") for c in json.loads(written)["cells"]], ensure_ascii=False)
    for shown in ("printed \ufffd here", "shown \ufffd here", "raised \ufffd here"):
        assert shown in outputs


def test_bad_json_is_one_reason_and_the_rest_is_graded(tiny_class):
    course, results, _ = tiny_class
    assert results[("broken-json", LESSON)].startswith(f"{LESSON}.ipynb is not valid notebook JSON")
    assert gradebook.score_table(course)[(LESSON, "blank")] == {k: 0.0 for k in FULL}


def test_failures_and_repairs_are_recorded(tiny_class):
    _, _, stats = tiny_class
    where = f"/{LESSON}/{LESSON}"
    kinds = {k.split("/")[0]: [f["kind"] for f in v] for k, v in stats["failures"].items()}
    assert kinds["crash-cell"] == ["crash"] and kinds["hang-cell"] == ["timeout"]
    assert kinds["crash-in-test-call"] == ["test call crash"] and kinds["hang-in-test-call"] == ["test call timeout"]
    assert "honest" not in kinds
    assert stats["repairs"]["deleted-test" + where] == [
        "test_add was missing from the submission: the instructor's cell was put back"
    ]
    assert stats["repairs"]["edited-test" + where] == [
        "cell 6 (test_mul) is a test cell and was edited: the instructor's tests were used"
    ]


def test_autograded_notebook_shows_verdicts_not_hidden_source(tiny_class):
    course, _, _ = tiny_class
    nb = nbformat.read(course / "autograded" / "wrong-hidden" / LESSON / f"{LESSON}.ipynb", as_version=4)
    text = nbformat.writes(nb)
    assert "mul(7, 6)" in text  # the failing check's message
    assert "check_equal(mul(7, 6)" not in text and "add(20, 22)" not in text
    test_mul = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test_mul")
    assert [o.output_type for o in test_mul.outputs] == ["stream", "error"]
    assert test_mul.outputs[1].ename == "CheckFailed"


def test_the_judge_sends_what_nbgraders_rules_read_in_the_autograded_notebook(tiny_class):
    """Each judge works out the gradebook's values for its notebook (so the coordinator need not):
    they are what nbgrader's rules read in the autograded notebook, tampering flags included, and a
    record without them gets the same values worked out by the coordinator."""
    course, _, _ = tiny_class
    checked = {}
    for path in sorted((course / ".autograder" / "results").rglob("*.json")):
        record = records.parse_record(path.read_text(encoding="utf-8"))
        if record["status"] != "ok":
            continue
        worked_out = json.loads(
            json.dumps(scoring.summarise(record["notebook_json"], scoring.flagged_items(record["tampering"])))
        )
        assert record["summary"] == worked_out, path
        without = {k: v for k, v in record.items() if k != "summary"}
        assert json.loads(json.dumps(scoring.summary_of(without))) == worked_out
        checked[record["student"]] = record["summary"]
    assert set(CASES) <= set(checked)
    assert checked["honest"]["grades"]["test_twice"] == [FULL["test_twice"], None]
    assert checked["wrong-hidden"]["grades"]["test_mul"] == [0, None]


# ---------------------------------------------------------------- idempotence and resume


def test_rerun_reuses_results_and_keeps_the_gradebook(tiny_class):
    course, results, _ = tiny_class
    before = gradebook.score_table(course)
    stats: dict = {}
    again = commands.grade(course, progress=False, workers=2, stats=stats)
    assert again == results and stats["ran"] == 0
    assert gradebook.score_table(course) == before


def test_interrupted_run_resumes_with_what_is_missing(tiny_class):
    course, results, _ = tiny_class
    before = gradebook.score_table(course)
    record = course / ".autograder" / "results" / "crash-in-answer" / LESSON / f"{LESSON}.json"
    record.unlink()
    shutil.rmtree(course / "autograded" / "crash-in-answer")
    stats: dict = {}
    again = commands.grade(course, progress=False, workers=2, stats=stats)
    assert again == results and stats["ran"] == 1
    assert gradebook.score_table(course) == before
    assert (course / "autograded" / "crash-in-answer" / LESSON / f"{LESSON}.ipynb").is_file()


def test_changed_submission_is_graded_again(tiny_class):
    course, _, _ = tiny_class
    source, release = notebooks(course, LESSON)
    submit(
        course,
        "honest",
        LESSON,
        edit_cell(samples.answered(source, release, keep=None), "add", "def add(a, b):\n    return 0"),
    )
    stats: dict = {}
    commands.grade(course, progress=False, workers=2, student="honest", stats=stats)
    assert stats["ran"] == 1
    assert gradebook.score_table(course)[(LESSON, "honest")] == {**FULL, "test_add": 0.0}


def test_in_sandbox_tests_is_an_explicit_opt_in_with_a_warning(tiny_class):
    course, _, _ = tiny_class
    stats: dict = {}
    results = commands.grade(
        course, progress=False, workers=1, student="wrong-hidden", tests_in_sandbox=True, stats=stats
    )
    assert results == {("wrong-hidden", LESSON): "ok"} and stats["ran"] == 1
    assert any("--in-sandbox-tests" in w for w in stats["warnings"])
    assert gradebook.score_table(course)[(LESSON, "wrong-hidden")] == {**FULL, "test_mul": 0.0}
    text = (course / "autograded" / "wrong-hidden" / LESSON / f"{LESSON}.ipynb").read_text(encoding="utf-8")
    assert "check_equal(mul(7, 6)" not in text


# ---------------------------------------------------------------- caps per notebook


def test_files_handed_in_beyond_the_caps_are_left_out_with_a_note(tmp_path):
    from autograder.config.limits import Limits
    from autograder.coordinator import plan

    for name, size in (("a.bin", 3 << 20), ("b.bin", 3 << 20), ("c.txt", 10), ("d.txt", 10), ("e.txt", 10)):
        (tmp_path / name).write_bytes(b"x" * size)
    (tmp_path / "nb.ipynb").write_text("{}")
    kept, notes = plan.handed_in_files(tmp_path, Limits(files_count=3, files_mb=5))
    assert [k["to"] for k in kept] == ["a.bin", "c.txt", "d.txt"]
    assert len(notes) == 1 and "b.bin" in notes[0] and "e.txt" in notes[0] and "max_handed_in_files" in notes[0]
    kept, notes = plan.handed_in_files(tmp_path, Limits())
    assert len(kept) == 5 and notes == []


def test_an_autograded_notebook_over_its_cap_loses_its_largest_outputs_first():
    from autograder.judge import notebook

    nb = nbformat.v4.new_notebook()
    for size in (10, 3_000_000, 200_000):
        cell = nbformat.v4.new_code_cell("print()")
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="x" * size)]
        nb.cells.append(cell)
    assert notebook._fit_notebook(nb, 1 << 20)
    assert len(nbformat.writes(nb)) <= 1 << 20
    assert nb.cells[0].outputs[0]["text"] == "x" * 10 and nb.cells[2].outputs[0]["text"] == "x" * 200_000
    assert "size limit" in nb.cells[1].outputs[0]["text"]
    assert not notebook._fit_notebook(nb, 1 << 20)


def _read_ahead_threads() -> list:
    import threading

    return [t for t in threading.enumerate() if t.name == "read-ahead"]


def test_read_ahead_keeps_the_order_and_stops_its_thread_with_its_reader():
    from autograder.coordinator.grader import read_ahead

    assert list(read_ahead(iter(range(1000)), depth=3)) == list(range(1000))
    drawn = []

    def source():
        for n in range(1000):
            drawn.append(n)
            yield n

    ahead = read_ahead(source(), depth=3)
    assert [next(ahead) for _ in range(5)] == [0, 1, 2, 3, 4]
    ahead.close()  # the reader stops early: so does the thread, having drawn no more than it could hold
    assert not _read_ahead_threads()
    assert len(drawn) <= 5 + 3 + 1


def test_read_ahead_raises_the_sources_error_in_its_turn():
    from autograder.coordinator.grader import read_ahead

    def source():
        yield from range(3)
        raise OSError("the disk went away")

    got = []
    with pytest.raises(OSError, match="the disk went away"):
        for n in read_ahead(source(), depth=8):
            got.append(n)
    assert got == [0, 1, 2] and not _read_ahead_threads()
