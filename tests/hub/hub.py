"""The machinery of the hub test: system users, a course directory, and JupyterHub with its proxy.

Everything runs for real on this machine, as root: `useradd` makes the hub's users (PAM checks their
passwords), deploy/jupyterhub/jupyterhub_config.py configures the hub, the hub environment built by
deploy/jupyterhub/install-env runs every server, and configurable-http-proxy routes the browser's
requests. Whatever is started here is stopped here, by process id.
"""

from __future__ import annotations

import hashlib
import os
import pwd
import re
import secrets
import shutil
import signal
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from course_exchange.client import Client
from course_exchange.hubconfig import client_url
from tests.support.servers import free_port

ROOT = Path(__file__).resolve().parents[2]
HUB_CONFIG = ROOT / "deploy" / "jupyterhub" / "jupyterhub_config.py"
HUB_ENV = Path(os.environ.get("COURSE_HUB_ENV", "/opt/tensor-course/env"))
COURSE_ID = "pytorch-tensors"
USER_MARK = "tensor-course hub test"  # the comment field of every user this test creates
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# Left out of the course directory: the developer's tooling and what earlier runs produced.
NOT_COURSE = (
    ".git",
    ".venv",
    "artifacts",
    ".hypothesis",
    ".pytest_cache",
    "__pycache__",
    "*.pyc",
    "*.egg-info",
    "build",
    "dist",
    "release",
    "submitted",
    "autograded",
    "feedback",
    "gradebook.db",
    ".autograder",
    "node_modules",
)


class HubNotReady(RuntimeError):
    """Something the hub test needs is missing on this machine; the message says how to get it."""


def missing_prerequisites() -> list[str]:
    """What this machine lacks to run the hub test, each with the command that provides it."""
    missing = []
    if os.geteuid() != 0:
        missing.append("root: the hub creates system users and starts servers as them (run pytest as root)")
    if not (HUB_ENV / "bin" / "jupyterhub-singleuser").is_file():
        missing.append(f"the hub environment {HUB_ENV} (bash scripts/setup, or bash deploy/jupyterhub/install-env)")
    if not shutil.which("configurable-http-proxy", path=SYSTEM_PATH):
        missing.append("configurable-http-proxy (bash scripts/setup, or npm install -g configurable-http-proxy)")
    for tool in ("useradd", "userdel", "chpasswd", "runuser", "bwrap"):
        if not shutil.which(tool, path=SYSTEM_PATH):
            missing.append(f"{tool} (bash scripts/setup installs the system packages)")
    if not missing:
        missing += stale_packages()
    return missing


def _tree_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*.py")):
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def stale_packages() -> list[str]:
    """The project's packages in the hub environment must be this checkout's: students import `course`
    from there and the grader runs from there."""
    out = []
    for package in ("course", "course_exchange", "autograder"):
        found = subprocess.run(
            [
                str(HUB_ENV / "bin" / "python"),
                "-c",
                f"import {package}, os; print(os.path.dirname({package}.__file__))",
            ],
            capture_output=True,
            text=True,
            cwd="/",
        )
        installed = Path(found.stdout.strip())
        if found.returncode != 0 or _tree_digest(installed) != _tree_digest(ROOT / package):
            out.append(
                f"the `{package}` package in {HUB_ENV} is not this checkout's (bash deploy/jupyterhub/install-env)"
            )
    return out


def hub_env_path() -> str:
    return f"{HUB_ENV}/bin:{SYSTEM_PATH}"


# ---------------------------------------------------------------- system users


@dataclass(frozen=True)
class SystemUser:
    name: str
    password: str

    @property
    def home(self) -> Path:
        return Path(pwd.getpwnam(self.name).pw_dir)

    @property
    def uid(self) -> int:
        return pwd.getpwnam(self.name).pw_uid


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def create_user(name: str) -> SystemUser:
    """A system user with a private home directory and a random password, as a hub admin would add one.

    Its comment field says which test process made it, so that a later run can tell its own leftovers
    from real users.
    """
    if _user_exists(name):
        raise HubNotReady(f"a system user {name!r} exists already; not touching it")
    subprocess.run(
        ["useradd", "--create-home", "--shell", "/bin/bash", "--comment", f"{USER_MARK} (pid {os.getpid()})", name],
        check=True,
        capture_output=True,
    )
    user = SystemUser(name, secrets.token_urlsafe(12))
    subprocess.run(["chpasswd"], input=f"{name}:{user.password}\n", text=True, check=True, capture_output=True)
    # Students must not read each other's work: homes are private (HOME_MODE 0700 in /etc/login.defs).
    user.home.chmod(0o700)
    return user


def remove_leftover_users() -> None:
    """Users made by runs of this test that died before they could clean up."""
    for entry in pwd.getpwall():
        made_by = re.fullmatch(re.escape(USER_MARK) + r" \(pid (\d+)\)", entry.pw_gecos)
        if made_by and not Path(f"/proc/{made_by.group(1)}").exists():
            remove_user(entry.pw_name)


def remove_user(name: str) -> None:
    """Stop what still runs as the user (by process id), then delete the user and their home."""
    uid = pwd.getpwnam(name).pw_uid
    kill_processes(lambda pid: _owner(pid) == uid)
    subprocess.run(["userdel", "--remove", name], capture_output=True)


def run_as(user: SystemUser, *command: str) -> subprocess.CompletedProcess:
    return subprocess.run(["runuser", "-u", user.name, "--", *command], capture_output=True, text=True, cwd="/")


# ---------------------------------------------------------------- processes


def _owner(pid: int) -> int | None:
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


def _cwd(pid: int) -> Path | None:
    try:
        return Path(os.readlink(f"/proc/{pid}/cwd"))
    except OSError:
        return None


def kill_processes(selected, *, timeout: float = 10.0) -> None:
    """SIGKILL every process for which `selected(pid)` holds, and wait until they are gone."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid() and selected(int(p))]
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.2)


# ---------------------------------------------------------------- the course and the hub


def make_course_dir(target: Path) -> Path:
    """The course directory on the hub: a copy of this repository owned by the grader account (root
    here), readable by nobody else, since it holds the solutions and the gradebook."""
    shutil.copytree(ROOT, target, ignore=shutil.ignore_patterns(*NOT_COURSE), symlinks=True)
    target.chmod(0o700)
    return target


class Hub:
    """JupyterHub with deploy/jupyterhub/jupyterhub_config.py on free loopback ports, in `workdir`."""

    def __init__(
        self,
        workdir: Path,
        *,
        course_dir: Path,
        exchange_store: Path,
        exchange_user: str,
        instructors: list[str],
        students: list[str],
    ) -> None:
        self.workdir = workdir
        self.course_dir = course_dir
        self.exchange_store = exchange_store
        self.token_file = workdir / "grader.exchange-token"
        self.log = workdir / "jupyterhub.log"
        self.port = free_port()
        self.formgrader_port = free_port()
        self.exchange_url = f"http://127.0.0.1:{free_port()}"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("COURSE_", "JUPYTER", "VIRTUAL_ENV", "PYTHON"))}
        env.update(
            PATH=hub_env_path(),
            COURSE_HUB_ENV=str(HUB_ENV),
            COURSE_DIR=str(course_dir),
            COURSE_EXCHANGE_URL=self.exchange_url,
            COURSE_EXCHANGE_STORE=str(exchange_store),
            COURSE_EXCHANGE_USER=exchange_user,
            COURSE_EXCHANGE_TOKEN_FILE=str(self.token_file),
            COURSE_GRADER="root",
            COURSE_INSTRUCTORS=",".join(instructors),
            COURSE_STUDENTS=",".join(students),
            COURSE_FORMGRADER_URL=f"http://127.0.0.1:{self.formgrader_port}",
        )
        command = [
            str(HUB_ENV / "bin" / "jupyterhub"),
            "-f",
            str(HUB_CONFIG),
            f"--JupyterHub.bind_url=http://127.0.0.1:{self.port}",
            f"--JupyterHub.hub_bind_url=http://127.0.0.1:{free_port()}",
            f"--ConfigurableHTTPProxy.api_url=http://127.0.0.1:{free_port()}",
            # Stopping servers at the end need not wait for a polite shutdown.
            "--Spawner.interrupt_timeout=3",
            "--Spawner.term_timeout=3",
        ]
        self._log_file = self.log.open("wb")
        self.process = subprocess.Popen(
            command, cwd=workdir, env=env, stdout=self._log_file, stderr=subprocess.STDOUT, start_new_session=True
        )
        self._wait_until_up()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_tail(self, chars: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-chars:]

    def _wait_until_up(self, timeout: float = 180.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise HubNotReady(f"jupyterhub exited with status {self.process.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/hub/api", timeout=5) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise HubNotReady(f"JupyterHub did not answer within {timeout:.0f} s:\n{self.log_tail()}")

    def stop(self) -> None:
        """SIGTERM lets the hub stop every server, the formgrader service and the proxy; whatever is
        left of them afterwards (their working folders are under `workdir` or the course directory) is
        killed."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        mine = (self.workdir, self.course_dir, self.exchange_store)
        kill_processes(lambda pid: (cwd := _cwd(pid)) is not None and any(cwd.is_relative_to(m) for m in mine))
        self._log_file.close()

    def as_grader(self, *command: str, timeout: float = 600) -> subprocess.CompletedProcess:
        """Run a command in the course directory as the grader account (root here), as an admin would:
        the hub environment first on PATH, the exchange service's address and the grader's token file."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("COURSE_", "JUPYTER", "VIRTUAL_ENV", "PYTHON"))}
        env.update(
            PATH=hub_env_path(),
            COURSE_EXCHANGE_URL=client_url(self.exchange_url),
            COURSE_EXCHANGE_TOKEN_FILE=str(self.token_file),
        )
        done = subprocess.run(
            list(command), cwd=self.course_dir, env=env, capture_output=True, text=True, timeout=timeout
        )
        if done.returncode != 0:
            raise AssertionError(
                f"{' '.join(command)} failed (exit {done.returncode}):\n{(done.stdout + done.stderr)[-4000:]}"
            )
        return done

    def exchange(self, token: str) -> Client:
        """The exchange service as whoever holds `token` (the grader's is in token_file)."""
        return Client(url=client_url(self.exchange_url), token=token, course=COURSE_ID)

    @property
    def grader_token(self) -> str:
        return self.token_file.read_text().strip()

    def server_token(self, user: SystemUser) -> str:
        """The token the hub gave the user's running server (read from its environment, as root)."""
        for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
            if _owner(pid) != user.uid:
                continue
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"jupyterhub-singleuser" in cmdline:
                for entry in environ:
                    if entry.startswith(b"JUPYTERHUB_API_TOKEN="):
                        return entry.split(b"=", 1)[1].decode()
        raise AssertionError(f"{user.name} has no running server")
