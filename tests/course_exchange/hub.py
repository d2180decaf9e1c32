"""A real JupyterHub with the exchange service, for the exchange's tests and its benchmark.

The hub is started from a configuration that calls course_exchange.hubconfig.add_to_hub, as the
deployment does; users log in nowhere: the test mints their tokens through the hub's API, with the
scopes the deployment gives their servers. Whatever is started here is stopped here, by process id.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from course_exchange.hubconfig import SERVICE, SERVER_SCOPES, client_url
from tests.support.servers import free_port, stop_process

COURSE = "pytorch-tensors"
STUDENTS = ("ada", "ben")
OUTSIDER = "eve"  # a hub user who is not in the course
GRADER_USER = "grace"  # an instructor
GRADER_SERVICE = "formgrader"  # the course's formgrader service, whose token the grader's shell uses
MAX_SUBMISSION_MB = 2.0

CONFIG = """
import sys
from course_exchange.hubconfig import add_to_hub

c = get_config()
settings = {settings!r}
c.JupyterHub.bind_url = settings["bind_url"]
c.JupyterHub.hub_bind_url = settings["hub_bind_url"]
c.ConfigurableHTTPProxy.api_url = settings["proxy_api_url"]
c.JupyterHub.db_url = "sqlite:///" + settings["workdir"] + "/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = settings["workdir"] + "/cookie_secret"
c.ConfigurableHTTPProxy.pid_file = settings["workdir"] + "/proxy.pid"
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = settings["password"]
c.Authenticator.allowed_users = set(settings["users"])
c.JupyterHub.services = [
    {{"name": "test-admin", "api_token": settings["admin_token"]}},
    {{"name": settings["grader_service"], "api_token": settings["grader_token"]}},
]
c.JupyterHub.load_roles = [{{"name": "test-admin", "services": ["test-admin"], "scopes": ["admin:users", "tokens"]}}]
add_to_hub(c, course_id=settings["course"], service_url=settings["exchange_url"], command=[sys.executable, "-m", "course_exchange.service"],
           store=settings["store"], users=settings["students"], grader_users=[settings["grader_user"]],
           grader_services=[settings["grader_service"]], max_submission_mb=settings["max_mb"], environment=settings["environment"])
"""


def stop_group(process: subprocess.Popen, *, timeout: float) -> None:
    """`stop_process`, then SIGKILL to the process group it leads (start_new_session)."""
    stop_process(process, grace=timeout)
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class ReceiptGrader:
    """`python -m course_exchange.receipt` as the instructor runs it, with the grader's token; stopped by process id."""

    def __init__(self, course_dir: Path, url: str, token_file: Path, log: Path, *, workers: int = 1) -> None:
        self.log = log
        self._out = log.open("ab")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "course_exchange.receipt",
                "--course-dir",
                str(course_dir),
                "--course",
                COURSE,
                "--url",
                url,
                "--token-file",
                str(token_file),
                "--workers",
                str(workers),
                "--poll",
                "0.2",
            ],
            stdout=self._out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={k: v for k, v in os.environ.items() if not k.startswith(("JUPYTERHUB_", "COURSE_"))},
        )

    def stop(self) -> None:
        stop_group(self.process, timeout=60)
        self._out.close()


class ExchangeHub:
    """JupyterHub and its exchange service in `workdir`, on free loopback ports."""

    def __init__(self, workdir: Path, *, students: tuple[str, ...] = STUDENTS) -> None:
        self.workdir = workdir
        self.store = workdir / "store"
        self.store.mkdir(mode=0o700)
        self.log = workdir / "jupyterhub.log"
        self.admin_token = secrets.token_hex(32)
        self.grader_token = secrets.token_hex(32)
        exchange = f"http://127.0.0.1:{free_port()}"
        self.hub_api = f"http://127.0.0.1:{free_port()}/hub/api"
        settings = {
            "bind_url": f"http://127.0.0.1:{free_port()}",
            "hub_bind_url": self.hub_api.removesuffix("/hub/api"),
            "proxy_api_url": f"http://127.0.0.1:{free_port()}",
            "workdir": str(workdir),
            "password": secrets.token_hex(8),
            "users": [*students, OUTSIDER, GRADER_USER],
            "students": list(students),
            "grader_user": GRADER_USER,
            "grader_service": GRADER_SERVICE,
            "admin_token": self.admin_token,
            "grader_token": self.grader_token,
            "course": COURSE,
            "exchange_url": exchange,
            "store": str(self.store),
            "max_mb": MAX_SUBMISSION_MB,
            "environment": {"PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        }
        self.url = client_url(exchange)
        (workdir / "jupyterhub_config.py").write_text(CONFIG.format(settings=settings))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTERHUB_", "COURSE_"))}
        env["PATH"] = f"{Path(sys.executable).parent}:{env.get('PATH', '/usr/bin:/bin')}"
        hub = shutil.which("jupyterhub", path=env["PATH"])
        self._log_file = self.log.open("wb")
        self.process = subprocess.Popen(
            [hub, "-f", str(workdir / "jupyterhub_config.py")],
            cwd=workdir,
            env=env,
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self._wait_until_up()

    def _wait_until_up(self, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self.stop()  # its proxy may still run
                raise RuntimeError(
                    f"jupyterhub exited with status {self.process.returncode}:\n{self.log.read_text()[-4000:]}"
                )
            try:
                request = urllib.request.Request(
                    self.url + f"/api/courses/{COURSE}/releases",
                    headers={"Authorization": f"token {self.grader_token}"},
                )
                with urllib.request.urlopen(request, timeout=5) as reply:
                    if reply.status == 200:
                        return
            except (OSError, urllib.error.HTTPError):
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"the exchange did not answer within {timeout:.0f} s:\n{self.log.read_text()[-4000:]}")

    def hub_request(self, method: str, path: str, body: dict | None = None) -> dict:
        request = urllib.request.Request(
            self.hub_api + path,
            method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"token {self.admin_token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as reply:
            return json.loads(reply.read())

    def server_token(self, user: str) -> str:
        """A token like the one the hub gives the user's server: the server role's scopes and the exchange."""
        reply = self.hub_request(
            "POST",
            f"/users/{user}/tokens",
            {"scopes": [*SERVER_SCOPES, f"access:services!service={SERVICE}"], "note": "exchange test"},
        )
        return reply["token"]

    def plain_token(self, user: str) -> str:
        """A token of the user's without the exchange's scope."""
        return self.hub_request("POST", f"/users/{user}/tokens", {"scopes": SERVER_SCOPES, "note": "exchange test"})[
            "token"
        ]

    def service_pids(self) -> list[int]:
        """The exchange service's processes: they run in the store (their working folder)."""
        found = []
        for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
            try:
                if Path(os.readlink(f"/proc/{pid}/cwd")) == self.store:
                    found.append(pid)
            except OSError:
                pass
        return found

    def kill_service(self, timeout: float = 180.0) -> None:
        """Kill the exchange service as a crash would, and wait until the hub has started it again."""
        old = self.service_pids()
        assert old, "no exchange service process found"
        for pid in old:
            os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not (set(self.service_pids()) - set(old)):
            time.sleep(0.5)
        self._wait_until_up(timeout=max(deadline - time.monotonic(), 1.0))

    def stop(self) -> None:
        """SIGTERM lets the hub stop its service and its proxy; the process group is then killed."""
        stop_group(self.process, timeout=30)
        # The proxy, if the hub died before it could stop it, is known by the pid file the hub wrote.
        try:
            os.kill(int((self.workdir / "proxy.pid").read_text().strip()), signal.SIGKILL)
        except (OSError, ValueError):
            pass
        # The service runs in a session of its own, in the store (its working folder).
        for pid in self.service_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        self._log_file.close()
