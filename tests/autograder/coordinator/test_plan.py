"""Planning a run (`coordinator.plan`) on a released tiny course whose assignment has two notebooks: the files
handed in beside a notebook within the count and size caps, and a note naming those left out; one job per
notebook handed in, none for a submission holding a symbolic link; a job key that changes with exactly what
the notebook's result depends on (the submission's bytes, the template, the limits, the code, the files
handed in, the instructor's files) and with nothing else; and `jobs_to_run`, which reuses a record of the
same key, also one only a killed run's journal held, and grades everything again with `force`.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograder import commands, stock
from autograder.authoring import samples
from autograder.config.limits import Limits, as_dict
from autograder.coordinator import plan
from autograder.grades import gradebook, records
from tests.autograder.coordinator.test_grader import LESSON, TINY, make_course, notebooks, submit

SECOND = "second"  # the assignment's other notebook (a copy of the tiny lesson's)
REFUSED = "the submission contains a symbolic link: refused"


def two_notebook_course(root: Path) -> Path:
    """The tiny course, its assignment released with a second notebook beside the first."""
    course = make_course(root, {LESSON: TINY})
    shutil.copy(course / "source" / LESSON / f"{LESSON}.ipynb", course / "source" / LESSON / f"{SECOND}.ipynb")
    assert commands.release(course, assignments=[LESSON], progress=False) == []
    assert gradebook.notebook_names(course, LESSON) == [LESSON, SECOND]
    return course


def submit_second(course: Path, student: str, nb) -> None:
    target = course / "submitted" / student / LESSON / f"{SECOND}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(nb, bytes):
        target.write_bytes(nb)
    else:
        nbformat.write(nb, target)


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """ada hands in both notebooks and a data file; bo only the first notebook."""
    course = two_notebook_course(tmp_path_factory.mktemp("plan") / "course")
    source, release = notebooks(course, LESSON)
    submit(course, "ada", LESSON, samples.answered(source, release, keep=None))
    submit_second(course, "ada", release)
    (course / "submitted" / "ada" / LESSON / "data").mkdir()
    (course / "submitted" / "ada" / LESSON / "data" / "points.csv").write_text("x,y\n1,2\n")
    submit(course, "bo", LESSON, release)
    return course


@pytest.fixture
def course(base, tmp_path) -> Path:
    return Path(shutil.copytree(base, tmp_path / "course"))


def planned(
    course: Path,
    pairs: list[tuple[str, str]] | None = None,
    *,
    limits: Limits = Limits(),
    code_hash: str = "code-1",
    tests_in_sandbox: bool = False,
    allow_weak_sandbox: bool = False,
) -> list[plan.Submission]:
    """The run's submissions as the grader plans them (templates written first)."""
    pairs = pairs or [("ada", LESSON), ("bo", LESSON)]
    templates, notebooks_of = plan.write_templates(course, course / plan.STATE_DIR, sorted({a for _, a in pairs}))
    return plan.submissions(
        course,
        pairs,
        notebooks_of,
        templates,
        limits=limits,
        code_hash=code_hash,
        tests_in_sandbox=tests_in_sandbox,
        allow_weak_sandbox=allow_weak_sandbox,
    )


def keys(course: Path, **options) -> dict[tuple[str, str], str]:
    """(student, notebook) -> the key of its job."""
    return {(sub.student, name): job["key"] for sub in planned(course, **options) for name, job in sub.jobs.items()}


def student_folder(course: Path, student: str) -> Path:
    return course / "submitted" / student / LESSON


# ---------------------------------------------------------------- files handed in beside the notebook


def test_files_within_the_caps_are_all_given_to_the_notebook_with_their_paths(tmp_path):
    """Notebooks and timestamp.txt are not files handed to the notebook; every other file is, at its
    place relative to the submission's folder, marked as the student's."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "points.csv").write_bytes(b"1,2\n")
    (tmp_path / "weights.bin").write_bytes(bytes(100))
    (tmp_path / "nb.ipynb").write_text("{}")
    (tmp_path / "data" / "copy.ipynb").write_text("{}")
    (tmp_path / "timestamp.txt").write_text("2024-01-01 00:00:00")
    kept, notes = plan.handed_in_files(tmp_path, Limits(files_count=2, files_mb=1))
    assert kept == [
        {"from": str(tmp_path / "data" / "points.csv"), "to": "data/points.csv", "student": True},
        {"from": str(tmp_path / "weights.bin"), "to": "weights.bin", "student": True},
    ]
    assert notes == []


def test_files_filling_the_size_cap_exactly_are_kept_and_the_next_byte_is_not(tmp_path):
    """The cap is on the total of the files kept: files adding up to it exactly fit; one more byte does not."""
    (tmp_path / "a.bin").write_bytes(bytes(512 * 1024))
    (tmp_path / "b.bin").write_bytes(bytes(512 * 1024))
    limits = Limits(files_count=50, files_mb=1)
    kept, notes = plan.handed_in_files(tmp_path, limits)
    assert [k["to"] for k in kept] == ["a.bin", "b.bin"] and notes == []
    (tmp_path / "c.txt").write_bytes(b"x")
    kept, notes = plan.handed_in_files(tmp_path, limits)
    assert [k["to"] for k in kept] == ["a.bin", "b.bin"]
    assert len(notes) == 1
    assert notes[0].startswith("1 of the files handed in beside the notebook were not given to it")
    assert "50 files and 1 MB" in notes[0] and notes[0].endswith("left out: c.txt")


def test_the_note_names_the_first_five_files_left_out_and_counts_them_all(tmp_path):
    for n in range(8):
        (tmp_path / f"f{n}.txt").write_text(str(n))
    kept, notes = plan.handed_in_files(tmp_path, Limits(files_count=1))
    assert [k["to"] for k in kept] == ["f0.txt"]
    assert notes == [
        "7 of the files handed in beside the notebook were not given to it: over the limit of 1 files and 64 MB "
        "(c.Autograder.max_handed_in_files, max_handed_in_mb); left out: f1.txt, f2.txt, f3.txt, f4.txt, f5.txt ..."
    ]


# ---------------------------------------------------------------- one job per notebook handed in


@pytest.mark.process
def test_one_job_per_notebook_handed_in_carrying_what_grading_it_needs(course):
    (course / "source" / LESSON / "table.csv").write_text("instructor's data")
    (student_folder(course, "eve")).mkdir(parents=True)
    (student_folder(course, "eve") / "timestamp.txt").write_text("2024-01-01 00:00:00")
    limits = Limits(cell_timeout=7)
    subs = planned(
        course,
        [("ada", LESSON), ("bo", LESSON), ("eve", LESSON)],
        limits=limits,
        code_hash="code-7",
        allow_weak_sandbox=True,
    )
    by_student = {sub.student: sub for sub in subs}
    assert {s: sorted(sub.jobs) for s, sub in by_student.items()} == {
        "ada": [LESSON, SECOND],
        "bo": [LESSON],
        "eve": [],
    }
    assert all(sub.notebooks == [LESSON, SECOND] and sub.reason is None and not sub.results for sub in subs)
    job = by_student["ada"].jobs[SECOND]
    assert job["submission"] == str(student_folder(course, "ada") / f"{SECOND}.ipynb")
    template = json.loads(Path(job["template"]).read_text(encoding="utf-8"))
    assert template == json.loads(json.dumps(gradebook.template(course, LESSON, SECOND)))
    assert job["extra_files"] == [
        {"from": str(student_folder(course, "ada") / "data" / "points.csv"), "to": "data/points.csv", "student": True},
        {"from": str(course / "source" / LESSON / "table.csv"), "to": "table.csv"},
    ]
    assert (job["limits"], job["code"], job["allow_weak_sandbox"], job["tests_in_sandbox"], job["notes"]) == (
        as_dict(limits),
        "code-7",
        True,
        False,
        [],
    )
    assert {(j["student"], j["assignment"], j["notebook"]) for s in subs for j in s.jobs.values()} == {
        ("ada", LESSON, LESSON),
        ("ada", LESSON, SECOND),
        ("bo", LESSON, LESSON),
    }


@pytest.mark.process
def test_a_file_nbgrader_is_told_not_to_overwrite_stays_the_students(course):
    (course / "source" / LESSON / "helper.py").write_text("instructor's helper")
    (course / "source" / LESSON / "table.csv").write_text("instructor's data")
    (student_folder(course, "bo") / "helper.py").write_text("bo's helper")
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as handle:
        handle.write(f"\nc.Autograde.exclude_overwriting = {{{LESSON!r}: ['./helper.py']}}\n")
    by_student = {sub.student: sub for sub in planned(course)}
    given = {
        s: [(e["to"], Path(e["from"]).read_text()) for e in sub.jobs[LESSON]["extra_files"]]
        for s, sub in by_student.items()
    }
    assert given["bo"] == [("helper.py", "bo's helper"), ("table.csv", "instructor's data")]
    assert ("helper.py", "instructor's helper") not in given["ada"], "as nbgrader: never the instructor's copy"


@pytest.mark.process
def test_an_assignment_not_released_is_refused_with_the_reason(course):
    (course / "submitted" / "ada" / "99_unknown").mkdir()
    (sub,) = planned(course, [("ada", "99_unknown")])
    assert sub.jobs == {} and "autograder release 99_unknown" in sub.reason


@pytest.mark.process
@pytest.mark.parametrize(
    "link",
    [
        pytest.param(lambda folder: (folder / "passwd").symlink_to("/etc/passwd"), id="a file beside the notebook"),
        pytest.param(lambda folder: (folder / "data" / "deep").symlink_to("/etc"), id="a folder, one level down"),
        pytest.param(lambda folder: (folder / "gone").symlink_to(folder / "nowhere"), id="a dangling link"),
        pytest.param(
            lambda folder: (
                (folder / f"{SECOND}.ipynb").unlink(),
                (folder / f"{SECOND}.ipynb").symlink_to(folder / f"{LESSON}.ipynb"),
            ),
            id="the notebook itself",
        ),
        pytest.param(
            lambda folder: (shutil.rmtree(folder), folder.symlink_to(folder.parent.parent / "bo" / LESSON)),
            id="the submission's folder",
        ),
    ],
)
def test_a_submission_holding_a_symbolic_link_is_refused_and_the_others_planned(course, link):
    """A link could hand the judge (or autograded/) a file of the grader's: the whole submission is refused."""
    link(student_folder(course, "ada"))
    ada, bo = planned(course)
    assert (ada.reason, ada.jobs) == (REFUSED, {})
    assert bo.reason is None and list(bo.jobs) == [LESSON]


# ---------------------------------------------------------------- what a job's key depends on

EVERY = {("ada", LESSON), ("ada", SECOND), ("bo", LESSON)}


def _edit_template(course: Path) -> None:
    path = course / "source" / LESSON / f"{LESSON}.ipynb"
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test_add")
    assert "add(20, 22), 42" in cell.source
    cell.source = cell.source.replace("add(20, 22), 42", "add(20, 23), 43")
    nbformat.write(nb, path)
    stock.generate_assignment(course, LESSON)  # tests are what nbgrader stored when it generated the assignment


def _append(path: Path, data: bytes) -> None:
    with open(path, "ab") as handle:
        handle.write(data)


CHANGES = {
    # what changes: (the change, the planning options after it, the notebooks whose key must change)
    "the submission's bytes": (
        lambda c: _append(student_folder(c, "ada") / f"{LESSON}.ipynb", b"\n"),
        {},
        {("ada", LESSON)},
    ),
    "the template": (_edit_template, {}, {("ada", LESSON), ("bo", LESSON)}),
    "the limits": (lambda c: None, {"limits": Limits(cell_timeout=61)}, EVERY),
    "the code": (lambda c: None, {"code_hash": "code-2"}, EVERY),
    "tests in the sandbox": (lambda c: None, {"tests_in_sandbox": True}, EVERY),
    "a file handed in": (
        lambda c: (student_folder(c, "ada") / "more.csv").write_text("3"),
        {},
        {("ada", LESSON), ("ada", SECOND)},
    ),
    "a handed-in file's bytes": (
        lambda c: _append(student_folder(c, "ada") / "data" / "points.csv", b"3,4\n"),
        {},
        {("ada", LESSON), ("ada", SECOND)},
    ),
    "a handed-in file's name": (
        lambda c: (student_folder(c, "ada") / "data" / "points.csv").rename(student_folder(c, "ada") / "points.csv"),
        {},
        {("ada", LESSON), ("ada", SECOND)},
    ),
    "an instructor's file": (lambda c: (c / "source" / LESSON / "table.csv").write_text("t"), {}, EVERY),
    # and nothing else
    "timestamp.txt": (
        lambda c: (student_folder(c, "ada") / "timestamp.txt").write_text("2024-01-02 03:04:05"),
        {},
        set(),
    ),
    "the submission's mtime": (lambda c: os.utime(student_folder(c, "ada") / f"{LESSON}.ipynb", (1, 1)), {}, set()),
    "a checkpoint in source/": (
        lambda c: (
            (c / "source" / LESSON / ".ipynb_checkpoints").mkdir(),
            (c / "source" / LESSON / ".ipynb_checkpoints" / "x.txt").write_text("x"),
        ),
        {},
        set(),
    ),
    "the notebook of another student": (
        lambda c: _append(student_folder(c, "bo") / f"{LESSON}.ipynb", b"\n"),
        {},
        {("bo", LESSON)},
    ),
}


@pytest.mark.process
@pytest.mark.parametrize("what", list(CHANGES))
def test_a_jobs_key_changes_with_what_its_result_depends_on_and_nothing_else(course, what):
    """A record is reused when its key matches: a key that misses an input reuses a stale grade, and one that
    hashes more than the inputs grades again for nothing."""
    change, options, expected = CHANGES[what]
    before = keys(course)
    change(course)
    after = keys(course, **options)
    assert set(after) == EVERY
    assert {notebook for notebook in before if before[notebook] != after[notebook]} == expected


@pytest.mark.process
def test_a_key_is_the_same_for_the_same_work_wherever_and_whoever_hands_it_in(course, tmp_path):
    """A key names what was handed in, not where the course lies or who handed it in: a course moved keeps its
    records, and a copied notebook (with its files) gets the key of the original."""
    shutil.copytree(student_folder(course, "ada"), student_folder(course, "cy"))
    pairs = [("ada", LESSON), ("bo", LESSON), ("cy", LESSON)]
    here = keys(course, pairs=pairs)
    moved = Path(shutil.move(course, tmp_path / "elsewhere"))
    assert keys(moved, pairs=pairs) == here
    assert here[("cy", LESSON)] == here[("ada", LESSON)] and here[("cy", SECOND)] == here[("ada", SECOND)]


@pytest.mark.process
def test_a_key_changes_when_the_note_about_files_left_out_changes(course):
    """The note naming the files left out by the caps goes into the autograded notebook (the student's feedback):
    a file handed in past the cap must change the key, or the record without the note is reused."""
    limits = Limits(files_count=1)
    before = {sub.student: sub for sub in planned(course, limits=limits)}["ada"].jobs[LESSON]
    assert before["notes"] == []
    (student_folder(course, "ada") / "zz-late.csv").write_text("past the cap")
    after = {sub.student: sub for sub in planned(course, limits=limits)}["ada"].jobs[LESSON]
    assert after["extra_files"] == before["extra_files"] and "zz-late.csv" in after["notes"][0]
    assert after["key"] != before["key"], "the key hashes the note the result carries"


# ---------------------------------------------------------------- reusing records


def record_of(job: dict, key: str | None = None) -> dict:
    """A record of a graded notebook, as the grader keeps it under `.autograder/results/`."""
    return {
        "job": key or job["key"],
        "student": job["student"],
        "assignment": job["assignment"],
        "notebook": job["notebook"],
        "status": "ok",
        "worker": "local",
    }


def names(to_run: list[dict]) -> set[tuple[str, str]]:
    return {(job["student"], job["notebook"]) for job in to_run}


@pytest.mark.process
def test_a_record_with_the_same_key_is_reused_and_force_grades_everything_again(course):
    state = course / plan.STATE_DIR
    subs = planned(course)
    ada, bo = subs
    current, stale = record_of(ada.jobs[LESSON]), record_of(bo.jobs[LESSON], key="an older key")
    for record in (current, stale):
        records.write_atomic(records.record_path(state, record), json.dumps(record))
    assert names(plan.jobs_to_run(subs, state, force=False)) == {("ada", SECOND), ("bo", LESSON)}
    assert ada.results == {LESSON: current} and bo.results == {}

    again = planned(course)
    assert names(plan.jobs_to_run(again, state, force=True)) == EVERY
    assert all(sub.results == {} for sub in again)


KILLED_RUN = """
import json, os, signal, sys
from pathlib import Path
from autograder.grades import records
writer = records.RecordWriter(Path(sys.argv[1]))
writer.add(json.loads(sys.argv[2]))
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.process
def test_a_record_only_a_killed_runs_journal_held_is_reused(course):
    """A run killed after grading a notebook kept its record in its journal: the next run folds it in before it
    plans, and does not grade that notebook again."""
    state = course / plan.STATE_DIR
    subs = planned(course)
    record = record_of(subs[0].jobs[LESSON])
    run = subprocess.run([sys.executable, "-c", KILLED_RUN, str(state), json.dumps(record)], capture_output=True)
    assert run.returncode == -signal.SIGKILL, run.stderr
    records.record_path(state, record).unlink(missing_ok=True)  # as if the killed run wrote no record file
    assert list((state / records.RESULTS).glob(records.JOURNAL_PREFIX + "*")), "the killed run's journal is there"

    assert names(plan.jobs_to_run(subs, state, force=False)) == {("ada", SECOND), ("bo", LESSON)}
    assert subs[0].results == {LESSON: record}
    assert records.read_record(state, record) == record
    assert not list((state / records.RESULTS).glob(records.JOURNAL_PREFIX + "*"))


file_names = st.sampled_from(["a", "b", "timestamp.txt", "nb.ipynb", ".hidden", "Ü"])
entries = st.lists(
    st.tuples(
        st.lists(file_names, min_size=1, max_size=3), st.sampled_from(["file", "folder", "link", "dirlink", "broken"])
    ),
    max_size=12,
)


@given(made=entries)
def test_plain_files_are_the_files_rglob_finds_that_are_not_links(made):
    """Against `Path.rglob`, which the plan and the recorder used to walk a submission with: the same regular files, none
    reached through a link to a folder, none that is itself a link."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "sub"
        folder.mkdir()
        outside = Path(scratch) / "outside"
        (outside / "deep").mkdir(parents=True)
        (outside / "timestamp.txt").write_text("x")
        (outside / "deep" / "a").write_text("x")
        for parts, kind in made:
            path = folder.joinpath(*parts)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                if kind == "file":
                    path.write_text("x")
                elif kind == "folder":
                    path.mkdir()
                elif kind == "link":
                    path.symlink_to(outside / "timestamp.txt")
                elif kind == "dirlink":
                    path.symlink_to(outside)
                else:
                    path.symlink_to(Path(scratch) / "nowhere")
            except (FileExistsError, NotADirectoryError, IsADirectoryError):
                continue
        expected = {str(p.relative_to(folder)): str(p) for p in folder.rglob("*") if p.is_file() and not p.is_symlink()}
        assert dict(plan.plain_files(folder)) == expected
