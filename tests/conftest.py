"""Shared fixtures: the repo's course directory and throwaway copies of it."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.support import lanes

ROOT = Path(__file__).resolve().parent.parent

os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
os.environ.setdefault("MPLBACKEND", "Agg")


def lessons() -> list[str]:
    return sorted(p.stem for p in (ROOT / "lessons").glob("[0-9][0-9]_*.py"))


def copy_course(target: Path, *, with_release: bool = True) -> Path:
    """A copy of the course fit for grading: config, source/ and (optionally) release/."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "nbgrader_config.py", target / "nbgrader_config.py")
    shutil.copytree(ROOT / "source", target / "source")
    if with_release:
        shutil.copytree(ROOT / "release", target / "release")
    for extra in ("tests/corpus", "lessons"):
        if (ROOT / extra).is_dir():
            shutil.copytree(ROOT / extra, target / extra)
    return target


@pytest.fixture
def course_copy(tmp_path: Path) -> Path:
    return copy_course(tmp_path / "course")


@pytest.fixture(scope="session")
def released_course(tmp_path_factory) -> Path:
    """The course copied and released once per session (release/ and its gradebook): a template that
    tests copy with `released_copy` and never change, so that releasing every lesson is paid once."""
    from autograder import commands

    course = copy_course(tmp_path_factory.mktemp("released") / "course", with_release=False)
    assert commands.release(course, progress=False) == []
    return course


def released_copy(released: Path, target: Path) -> Path:
    """A copy of the released template of its own, gradebook included, to submit to and grade."""
    return Path(shutil.copytree(released, target))


@pytest.fixture(scope="session")
def postgres():
    """A real PostgreSQL server for the session (Debian's package), stopped at the end."""
    from tests.support.servers import PostgreSQL, missing

    try:
        server = PostgreSQL()
    except FileNotFoundError as exc:
        missing(str(exc))
    try:
        yield server
    finally:
        server.stop()


def use_gradebook(course: Path, url: str) -> None:
    """Point the course copy's nbgrader_config.py at the gradebook `url`."""
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as fh:
        fh.write(f"\nc.CourseDirectory.db_url = {url!r}\n")


def pytest_addoption(parser):
    parser.addoption(
        "--regenerate", action="store_true", help="rewrite golden files (source/ notebooks) instead of comparing"
    )
    parser.addoption(
        "--fast",
        action="store_true",
        help="the fast lane: only tests without a lane marker (" + ", ".join(sorted(lanes.HEAVY)) + ")",
    )


def pytest_configure(config):
    for name, meaning in lanes.HEAVY.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--fast"):
        return
    kept, dropped = [], []
    for item in items:
        (dropped if _heavy(item) else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def _heavy(item) -> bool:
    return lanes.is_heavy(m.name for m in item.iter_markers())


def _lane(item):
    """Unmarked tests (and the fixtures they set up) start no process: see tests/support/lanes.py.

    Teardown is left alone: a session fixture a marked test started may stop after an unmarked one.
    """
    if _heavy(item):
        return contextlib.nullcontext()
    return lanes.refusing_processes(item.nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    with _lane(item):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    with _lane(item):
        yield


CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser():
    """One headless Debian Chromium for every browser test (Playwright's sync API allows one loop)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # depends on the machine
        pytest.skip(f"Playwright cannot be imported ({exc}); install the pinned requirements to run browser tests")
    if not CHROMIUM.is_file():
        pytest.skip(f"Chromium is not installed at {CHROMIUM} (apt-get install chromium, or set CHROMIUM=/path)")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
