"""Fixtures of the hub test: a classroom (system users, course directory, exchange service, JupyterHub) and a browser.

Nothing here skips: a machine that cannot run the hub fails the test with the list of what is
missing and how to get it (`bash scripts/setup` as root provides all of it).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import CHROMIUM
from tests.hub.hub import (
    Hub,
    HubNotReady,
    SystemUser,
    create_user,
    make_course_dir,
    missing_prerequisites,
    remove_leftover_users,
    remove_user,
)

ROLES = ("ada", "ben")  # the two students; their system users are named pt-<role>-<this run's tag>


def artifacts_dir() -> Path:
    """Where a failed step leaves its screenshot and the hub's log: $HUB_ARTIFACTS, else artifacts/hub."""
    path = Path(os.environ.get("HUB_ARTIFACTS") or Path(__file__).resolve().parents[2] / "artifacts" / "hub")
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass
class Classroom:
    hub: Hub
    instructor: SystemUser
    students: dict[str, SystemUser]  # role -> user
    course_dir: Path
    exchange_store: Path
    exchange_user: SystemUser
    artifacts: Path

    @contextlib.contextmanager
    def step(self, name: str, *pages):
        """One step of the round trip; if it fails, a screenshot of each page in `pages` and the hub's log
        go to the artifacts folder, and the failure names that folder. Prints how long the step took."""
        started = time.monotonic()
        try:
            yield
            print(f"{time.monotonic() - started:6.1f} s  {name}")
        except Exception as exc:
            slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", name)
            for index, page in enumerate(pages):
                with contextlib.suppress(Exception):
                    page.screenshot(path=str(self.artifacts / f"{slug}-{index}.png"))
            with contextlib.suppress(OSError):
                shutil.copyfile(self.hub.log, self.artifacts / f"{slug}-jupyterhub.log")
            raise AssertionError(
                f"step {name!r} failed; screenshots and the hub's log are in {self.artifacts}:\n{exc}"
            ) from exc


@pytest.fixture(scope="module")
def hub_browser(request):
    """The shared headless Chromium, after checking it is there (the shared fixture would skip)."""
    missing = []
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        missing.append(f"Playwright ({exc}; bash scripts/setup)")
    if not CHROMIUM.is_file():
        missing.append(f"Chromium at {CHROMIUM} (bash scripts/setup installs Debian's chromium)")
    if missing:
        pytest.fail("the hub test cannot start; missing: " + "; ".join(missing), pytrace=False)
    return request.getfixturevalue("browser")


@pytest.fixture
def new_page(hub_browser):
    """Fresh browser tabs, each with its own cookies (one per hub user), closed after the test."""
    contexts = []

    def make():
        contexts.append(hub_browser.new_context(viewport={"width": 1400, "height": 1000}))
        page = contexts[-1].new_page()
        page.set_default_timeout(60_000)
        return page

    yield make
    for context in contexts:
        context.close()


@pytest.fixture(scope="module")
def classroom(hub_browser):
    missing = missing_prerequisites()
    if missing:
        pytest.fail("the hub test cannot start; missing:\n  " + "\n  ".join(missing), pytrace=False)
    # Under /tmp rather than pytest's own temporary folder, whose mode 0700 would lock the students out.
    top = Path(tempfile.mkdtemp(prefix="tensor-course-hub-"))
    top.chmod(0o755)
    users: list[str] = []
    hub = None
    # Several runs may share a machine: each has its own users, ports and folders.
    tag = secrets.token_hex(2)
    try:
        remove_leftover_users()
        instructor = create_user(f"pt-teacher-{tag}")
        users.append(instructor.name)
        students = {}
        for role in ROLES:
            students[role] = create_user(f"pt-{role}-{tag}")
            users.append(students[role].name)
        # The exchange runs as an account of its own, which no hub user is.
        exchange_user = create_user(f"pt-exchange-{tag}")
        users.append(exchange_user.name)
        course_dir = make_course_dir(top / "course")
        exchange_store = top / "exchange-store"
        (top / "hub").mkdir(mode=0o700)
        hub = Hub(
            top / "hub",
            course_dir=course_dir,
            exchange_store=exchange_store,
            exchange_user=exchange_user.name,
            instructors=[instructor.name],
            students=[u.name for u in students.values()],
        )
        yield Classroom(hub, instructor, students, course_dir, exchange_store, exchange_user, artifacts_dir())
    except HubNotReady as exc:
        pytest.fail(f"the hub test cannot start: {exc}", pytrace=False)
    finally:
        if hub is not None:
            with contextlib.suppress(Exception):
                shutil.copyfile(hub.log, artifacts_dir() / "jupyterhub.log")
            hub.stop()
        for name in users:
            remove_user(name)
        shutil.rmtree(top, ignore_errors=True)
