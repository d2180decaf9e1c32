"""The gradebook is the database nbgrader_config.py names; on PostgreSQL, graders that write at the
same time (two first runs, two assignments adding the same students) corrupt nothing."""

from __future__ import annotations

import concurrent.futures
import threading
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder.grades import gradebook
from tests.conftest import ROOT, use_gradebook

pytestmark = pytest.mark.cluster
GRADERS = 3  # graders writing at once: threads, each with database sessions of its own
STUDENTS = [f"s{k:02d}" for k in range(8)]


def course_on(tmp_path: Path, url: str | None) -> Path:
    course = tmp_path / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text("c = get_config()\n", encoding="utf-8")
    if url:
        use_gradebook(course, url)
    return course


def test_the_url_comes_from_nbgrader_config(tmp_path):
    course = course_on(tmp_path, None)
    assert gradebook.db_url(course) == f"sqlite:///{(course / 'gradebook.db').resolve()}"
    use_gradebook(course, "postgresql://grader:secret@db.example/course")
    assert gradebook.db_url(course) == "postgresql://grader:secret@db.example/course"
    assert "secret" not in gradebook.describe(gradebook.db_url(course))
    assert gradebook.db_url(ROOT) == "sqlite:///" + str(ROOT / "gradebook.db")


def at_once(action, count: int) -> None:
    """Run `action(index)` in `count` threads, each with its own database sessions, released together."""
    barrier = threading.Barrier(count)

    def run(index: int) -> None:
        barrier.wait()
        action(index)

    with concurrent.futures.ThreadPoolExecutor(count) as pool:
        for future in [pool.submit(run, index) for index in range(count)]:
            future.result(timeout=300)


def test_first_runs_at_once_create_the_schema_once(postgres, tmp_path):
    url = postgres.create_database("schema_race")
    course = course_on(tmp_path, url)
    at_once(lambda index: gradebook.ensure_schema(course), GRADERS)
    with Gradebook(url) as gb:
        assert gb.db.execute(__import__("sqlalchemy").text("SELECT count(*) FROM alembic_version")).scalar() == 1
        assert gb.assignments == [] and gb.students == []


def test_graders_adding_the_same_students_at_once(postgres, tmp_path):
    url = postgres.create_database("student_race")
    course = course_on(tmp_path, url)
    gradebook.ensure_schema(course)
    with Gradebook(url) as gb:
        for index in range(GRADERS):
            gb.add_assignment(f"a{index}")
    at_once(lambda index: [gradebook.save_autograde(course, f"a{index}", student, {}) for student in STUDENTS], GRADERS)
    with Gradebook(url) as gb:
        assert sorted(s.id for s in gb.students) == STUDENTS
        submissions = sorted((a.name, s.student.id) for a in gb.assignments for s in a.submissions)
    assert submissions == sorted((f"a{i}", s) for i in range(GRADERS) for s in STUDENTS)


def small_assignment(url: str) -> None:
    """An assignment as nbgrader stores one: a code test, an answer graded by hand (a grade and a
    solution cell of one name), an answer cell and a task, in one notebook."""
    with Gradebook(url) as gb:
        gb.add_assignment("hw")
        gb.add_notebook("nb", "hw")
        gb.add_grade_cell("test_a", "nb", "hw", max_score=2, cell_type="code")
        gb.add_grade_cell("answer_b", "nb", "hw", max_score=1, cell_type="markdown")
        gb.add_solution_cell("answer_b", "nb", "hw")
        gb.add_solution_cell("answer_a", "nb", "hw")
        gb.add_task_cell("task_c", "nb", "hw", max_score=3, cell_type="markdown")


def rows_of(url: str, student: str) -> list[tuple]:
    """A submission's grade and comment rows by cell, as nbgrader's API reads them."""
    with Gradebook(url) as gb:
        nb = gb.find_submission_notebook("nb", "hw", student)
        grades = [
            ("grade", g.cell.name, g.cell.type, g.auto_score, g.manual_score, g.needs_manual_grade) for g in nb.grades
        ]
        comments = [("comment", c.cell.name, c.cell.type, c.auto_comment) for c in nb.comments]
    return sorted(grades + comments, key=repr)


def test_a_batch_writes_the_rows_nbgrader_makes_and_writing_again_updates_them(postgres, tmp_path):
    url = postgres.create_database("batch_rows")
    course = course_on(tmp_path, url)
    gradebook.ensure_schema(course)
    small_assignment(url)
    with Gradebook(url) as gb:  # nbgrader's own submission, as its autograde starts one
        gb.add_student("ref")
        gb.add_submission("hw", "ref")
    blank = {"nb": {"grades": {}, "comments": {}}}
    with gradebook.Writer(course) as writer:
        writer.write([gradebook.Graded("hw", "new", blank)])
    assert rows_of(url, "new") == rows_of(url, "ref")

    values = {
        "nb": {
            "grades": {"test_a": (2.0, None), "answer_b": (None, None), "task_c": (None, None)},
            "comments": {"answer_a": "No response.", "answer_b": None, "task_c": None},
        }
    }
    with gradebook.Writer(course) as writer:
        writer.write(
            [gradebook.Graded("hw", "new", values, "2026-12-01 10:00:00"), gradebook.Graded("hw", "late", {"nb": None})]
        )
    with Gradebook(url) as gb:
        test_a = next(g for g in gb.find_submission_notebook("nb", "hw", "new").grades if g.cell.name == "test_a")
        test_a.manual_score = 1.0  # an instructor's score in formgrader
        gb.db.commit()
    with gradebook.Writer(course) as writer:
        writer.write([gradebook.Graded("hw", "new", values, "2026-12-01 10:00:00")])
    found = {row[1:3]: row for row in rows_of(url, "new")}
    assert found[("test_a", "GradeCell")][3:] == (2.0, 1.0, True), "the manual score stays, and wants review"
    assert found[("answer_b", "GradeCell")][3:] == (None, None, True)
    assert found[("answer_a", "SolutionCell")][3] == "No response."
    assert all(row[3] == 0 and row[5] is False for row in rows_of(url, "late") if row[0] == "grade"), (
        "not handed in: zero"
    )
    with Gradebook(url) as gb:
        assert len(gb.find_submission_notebook("nb", "hw", "new").grades) == 3, "written twice, stored once"
        assert str(gb.find_submission("hw", "new").timestamp) == "2026-12-01 10:00:00"
        assert gb.find_submission("hw", "new").score == 1.0
        assert sorted(s.id for s in gb.students) == ["late", "new", "ref"]


def test_new_ids_are_uuid4_hex_and_a_forked_child_draws_its_own():
    import os
    import uuid

    parent = [gradebook.new_id() for _ in range(600)]  # past two reads of the random source
    assert len(set(parent)) == 600
    assert all(uuid.UUID(i).hex == i and uuid.UUID(i).version == 4 for i in parent)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.write(write, " ".join(gradebook.new_id() for _ in range(10)).encode())
        finally:
            os._exit(0)
    os.close(write)
    child = os.read(read, 4096).decode().split()
    os.close(read)
    os.waitpid(pid, 0)
    mine = [gradebook.new_id() for _ in range(10)]
    assert len(child) == 10 and not set(child) & set(mine)
