"""Fixtures of the exchange's tests: a real hub with the exchange service, tokens, a course, students' homes."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook
from traitlets.config import Config

from course_exchange.hubconfig import use_exchange
from tests.course_exchange.hub import COURSE, GRADER_USER, OUTSIDER, STUDENTS, ExchangeHub


@pytest.fixture(scope="session")
def exchange_hub(tmp_path_factory):
    hub = ExchangeHub(tmp_path_factory.mktemp("exchange-hub"))
    try:
        yield hub
    finally:
        hub.stop()


@pytest.fixture(scope="session")
def tokens(exchange_hub) -> dict[str, str]:
    """Each party's token: the students' and the instructor's as their servers get them, an outsider's,
    and the grader's (the formgrader service's)."""
    found = {name: exchange_hub.server_token(name) for name in (*STUDENTS, GRADER_USER)}
    found[OUTSIDER] = exchange_hub.plain_token(OUTSIDER)
    found["grader"] = exchange_hub.grader_token
    return found


@dataclass
class Course:
    """A course directory with one released assignment (a fresh name per test: the hub is shared)."""

    root: Path
    assignment: str
    url: str

    def home(self, name: str) -> Path:
        path = self.root.parent / "home" / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    def config(self, token: str, *, home: Path | None = None, **settings) -> Config:
        config = Config()
        use_exchange(config)
        config.Exchange.url = self.url
        config.Exchange.token = token
        config.Exchange.assignment_dir = str(home or self.root)
        config.CourseDirectory.root = str(self.root)
        config.CourseDirectory.course_id = COURSE
        config.CourseDirectory.assignment_id = self.assignment
        for dotted, value in settings.items():
            section, name = dotted.split("__")
            setattr(getattr(config, section), name, value)
        return config

    def run(self, action: str, token: str, *, home: Path | None = None, **settings):
        """One nbgrader exchange action (Submit, Collect, ...) made by nbgrader's ExchangeFactory, as nbgrader's apps do."""
        from nbgrader.auth import Authenticator
        from nbgrader.coursedir import CourseDirectory
        from nbgrader.exchange import ExchangeFactory

        config = self.config(token, home=home, **settings)
        coursedir = CourseDirectory(config=config)
        app = getattr(ExchangeFactory(config=config), action)(
            coursedir=coursedir, authenticator=Authenticator(config=config), config=config
        )
        return app.start()

    def answer(self, home: Path, text: str) -> Path:
        """Write `text` into the fetched notebook's only cell, as a student answering would."""
        path = home / self.assignment / f"{self.assignment}.ipynb"
        notebook = nbformat.read(path, as_version=4)
        notebook.cells[0].source = text
        nbformat.write(notebook, path)
        return path


def write_release(root: Path, assignment: str) -> None:
    folder = root / "release" / assignment
    folder.mkdir(parents=True)
    nbformat.write(
        new_notebook(cells=[new_code_cell("# YOUR CODE HERE\nraise NotImplementedError()")]),
        folder / f"{assignment}.ipynb",
    )


@pytest.fixture
def course(tmp_path, exchange_hub, tokens) -> Course:
    assignment = f"ps_{secrets.token_hex(3)}"
    root = tmp_path / "course"
    write_release(root, assignment)
    found = Course(root, assignment, exchange_hub.url)
    found.run("ReleaseAssignment", tokens["grader"])
    return found
