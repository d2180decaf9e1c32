"""The gradebook is the database nbgrader_config.py names; on PostgreSQL, graders that write at the
same time (two first runs, two assignments adding the same students) corrupt nothing."""

from __future__ import annotations

import concurrent.futures
import threading
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from autograder import gradebook
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
