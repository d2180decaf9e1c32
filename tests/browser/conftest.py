"""Fixtures for the browser tests: a student's JupyterLab on loopback and a headless Chromium.

JupyterLab runs with the student bundle's configuration (student/jupyter, less what needs the hub)
over a temporary copy of release/, with its own runtime, data and settings folders so nothing of the
machine's own Jupyter set-up leaks in. Chromium is Debian's (never a downloaded one); the `browser`
fixture is shared with the other tests from tests/conftest.py.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from student_view import RELEASE, ROOT, released_lessons
from autograder.authoring import bundle
from tests.support.servers import free_port


class Lab:
    """A running `jupyter lab` server: its URL, token, folder and log."""

    def __init__(self, root: Path, log: Path, *, student: bool) -> None:
        self.root = root
        self.log = log
        self.token = secrets.token_hex(16)
        self.port = free_port()
        home = root.parent / "jupyter-home"
        env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}  # a student's kernel draws inline
        env.update(
            JUPYTER_RUNTIME_DIR=str(home / "runtime"),
            JUPYTER_DATA_DIR=str(home / "data"),
            IPYTHONDIR=str(home / "ipython"),
            PYTHONUNBUFFERED="1",
        )
        config = home / "config"  # jupyter writes into its config folder: never point it at the repository
        if student:  # a student on a laptop: the bundle's configuration
            bundle.write_laptop_config(ROOT, config)
        env["JUPYTER_CONFIG_DIR"] = str(config)
        command = [
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--allow-root",
            "--ip=127.0.0.1",
            f"--port={self.port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={root}",
            f"--LabApp.user_settings_dir={home / 'settings'}",
            f"--LabApp.workspaces_dir={home / 'workspaces'}",
        ]
        self._log_file = log.open("wb")
        self.process = subprocess.Popen(command, cwd=root, env=env, stdout=self._log_file, stderr=subprocess.STDOUT)
        self._wait_until_up()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def page_url(self, path: str) -> str:
        return f"{self.url}/{path}?token={self.token}"

    def _wait_until_up(self, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"jupyter lab exited with status {self.process.returncode}:\n{self.log.read_text()[-3000:]}"
                )
            try:
                with urllib.request.urlopen(self.page_url("api/status"), timeout=5) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"jupyter lab did not answer within {timeout:.0f} s:\n{self.log.read_text()[-3000:]}")

    def status_of(self, path: str) -> int:
        try:
            with urllib.request.urlopen(self.page_url(path), timeout=10) as reply:
                return reply.status
        except urllib.error.HTTPError as exc:
            return exc.code

    def _call(self, path: str, method: str = "GET"):
        request = urllib.request.Request(self.page_url(path), method=method)
        with urllib.request.urlopen(request, timeout=60) as reply:
            body = reply.read()
        return json.loads(body) if body else None

    def fresh_state(self) -> None:
        """Stop every session and kernel and forget the saved workspaces, so a test sees only the notebook it
        opens: otherwise JupyterLab reopens every earlier lesson's tab, each with a kernel, and a busy machine
        times the later lessons out."""
        for session in self._call("api/sessions"):
            self._call(f"api/sessions/{session['id']}", "DELETE")
        for kernel in self._call("api/kernels"):
            self._call(f"api/kernels/{kernel['id']}", "DELETE")
        for workspace in self._call("lab/api/workspaces")["workspaces"]["ids"]:
            self._call(f"lab/api/workspaces/{workspace}", "DELETE")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self._log_file.close()


def _serve(tmp_path_factory, *, student: bool):
    if not released_lessons():
        pytest.skip("release/ holds no lesson yet (run `autograder release`)")
    base = tmp_path_factory.mktemp("student-lab" if student else "instructor-lab")
    root = base / "notebooks"
    shutil.copytree(RELEASE, root)
    lab = Lab(root, base / "jupyter.log", student=student)
    return lab


@pytest.fixture(scope="session")
def _shared_student_lab(tmp_path_factory, browser):
    lab = _serve(tmp_path_factory, student=True)
    yield lab
    lab.stop()


@pytest.fixture
def student_lab(_shared_student_lab):
    """The session's student JupyterLab, with no tab, session or kernel left from an earlier test."""
    _shared_student_lab.fresh_state()
    yield _shared_student_lab
    _shared_student_lab.fresh_state()


@pytest.fixture
def instructor_lab(tmp_path_factory, browser):
    lab = _serve(tmp_path_factory, student=False)
    yield lab
    lab.stop()


@pytest.fixture
def page(browser):
    """A fresh browser tab (its own cookies and storage)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    tab.set_default_timeout(60_000)
    yield tab
    context.close()
