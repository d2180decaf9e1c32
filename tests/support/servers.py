"""Real servers for the cluster tests and the scaling benchmark, started and stopped by the caller.

- `PostgreSQL`: Debian's server in a temporary data directory on a free loopback port. It refuses
  to run as root, so under root it runs as the `postgres` user.
- `make_certificates`: a certificate authority and a certificate signed by it, made with openssl.
- `DaskCluster`: a TLS-secured Dask scheduler and worker processes on 127.0.0.1.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_port(port: int, proc: subprocess.Popen, what: str, *, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with status {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{what} did not listen on port {port} within {timeout:g} s")


def stop_process(proc: subprocess.Popen, *, grace: float = 30.0) -> None:
    """SIGTERM, then SIGKILL after `grace` seconds: a test that fails still leaves nothing running."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def missing(reason: str) -> None:
    """A server this test needs cannot run here: fail under CI (it must install it), skip elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(reason + " (scripts/setup installs it)")
    pytest.skip(reason + " (run scripts/setup, which installs it)")


# ---------------------------------------------------------------- PostgreSQL


def postgres_bin() -> Path | None:
    """The newest Debian PostgreSQL server binaries (initdb, pg_ctl)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    pg_ctl = shutil.which("pg_ctl")
    return Path(pg_ctl).parent if pg_ctl else None


class PostgreSQL:
    """A throwaway PostgreSQL server; `url(db)` is an SQLAlchemy URL for a database on it. Unless
    `durable`, it does not wait for the disk (fsync off), which only a throwaway server can afford."""

    def __init__(self, *, durable: bool = False) -> None:
        self.bin = postgres_bin()
        if self.bin is None:
            raise FileNotFoundError("PostgreSQL's server is not installed (Debian package postgresql)")
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="autograder-pg-"))
        self.data = self.root / "data"
        self.user = None
        if os.geteuid() == 0:
            self.user = "postgres"
            entry = pwd.getpwnam(self.user)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-sync")
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c max_connections=200"
        if not durable:
            options += " -c fsync=off"
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.root / "log"), "-o", options, "-w", "-t", "60", "start"
        )

    def _run(self, tool: str, *args: str) -> None:
        proc = subprocess.run(
            [str(self.bin / tool), *args],
            user=self.user,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=self.root,
        )
        if proc.returncode != 0:
            log = (self.root / "log").read_text(errors="replace") if (self.root / "log").exists() else ""
            raise RuntimeError(f"{tool} failed: {proc.stdout[-2000:]}\n{log[-2000:]}")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str, *, template: str | None = None) -> str:
        """A new database (a copy of `template` when given); its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
        return self.url(name)

    def stop(self) -> None:
        if self.data.exists():
            try:
                self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
            except RuntimeError:
                pass
        shutil.rmtree(self.root, ignore_errors=True)


# ---------------------------------------------------------------- certificates


def make_certificates(folder: Path, name: str = "cluster") -> dict[str, Path]:
    """A CA and one certificate it signed (for 127.0.0.1), used by scheduler, workers and client alike."""
    folder.mkdir(parents=True, exist_ok=True)
    ca_key, ca_cert = folder / f"{name}-ca.key", folder / f"{name}-ca.pem"
    key, csr, cert = folder / f"{name}.key", folder / f"{name}.csr", folder / f"{name}.pem"
    ext = folder / f"{name}.ext"
    ext.write_text(
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n", encoding="utf-8"
    )
    steps = [
        [
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            ca_key,
            "-out",
            ca_cert,
            "-days",
            "2",
            "-subj",
            f"/CN={name} test CA",
        ],
        ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr, "-subj", f"/CN={name}"],
        [
            "x509",
            "-req",
            "-in",
            csr,
            "-CA",
            ca_cert,
            "-CAkey",
            ca_key,
            "-CAcreateserial",
            "-out",
            cert,
            "-days",
            "2",
            "-extfile",
            ext,
        ],
    ]
    for step in steps:
        subprocess.run(["openssl", *map(str, step)], check=True, capture_output=True)
    return {"ca": ca_cert, "cert": cert, "key": key}


def tls_env(certs: dict[str, Path]) -> dict[str, str]:
    """The environment that configures a Dask client (the coordinator) for TLS, through Dask's own settings."""
    return {
        "DASK_DISTRIBUTED__COMM__TLS__CA_FILE": str(certs["ca"]),
        "DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT": str(certs["cert"]),
        "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY": str(certs["key"]),
        "DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION": "True",
    }


def tls_config(certs: dict[str, Path]) -> dict[str, object]:
    """The same settings as `tls_env`, for `dask.config.set` in this process."""
    return {
        "distributed.comm.tls.ca-file": str(certs["ca"]),
        "distributed.comm.tls.client.cert": str(certs["cert"]),
        "distributed.comm.tls.client.key": str(certs["key"]),
        "distributed.comm.require-encryption": True,
    }


# ---------------------------------------------------------------- Dask


class DaskCluster:
    """A Dask scheduler and worker processes on 127.0.0.1, every connection over TLS."""

    def __init__(self, certs: dict[str, Path], logs: Path, *, port: int | None = None) -> None:
        self.certs = certs
        self.logs = logs
        logs.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.address = f"tls://127.0.0.1:{self.port}"
        self.workers: dict[str, subprocess.Popen] = {}
        self.scheduler: subprocess.Popen | None = None
        self.start_scheduler()

    def _tls_args(self) -> list[str]:
        return [
            "--tls-ca-file",
            str(self.certs["ca"]),
            "--tls-cert",
            str(self.certs["cert"]),
            "--tls-key",
            str(self.certs["key"]),
        ]

    def _spawn(self, args: list[str], log: str) -> subprocess.Popen:
        env = dict(os.environ)
        env.update(tls_env(self.certs))
        env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
        with open(self.logs / log, "ab") as out:
            return subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_" + args[0], *args[1:]],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def start_scheduler(self) -> None:
        self.scheduler = self._spawn(
            [
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--protocol",
                "tls",
                "--no-dashboard",
                *self._tls_args(),
            ],
            "scheduler.log",
        )
        _wait_for_port(self.port, self.scheduler, "the Dask scheduler")

    def start_worker(self, name: str, *, nthreads: int = 1) -> subprocess.Popen:
        """A worker process without a nanny, so that killing it kills the worker itself."""
        proc = self._spawn(
            [
                "worker",
                self.address,
                "--name",
                name,
                "--nthreads",
                str(nthreads),
                "--no-nanny",
                "--no-dashboard",
                "--host",
                "127.0.0.1",
                "--protocol",
                "tls",
                "--death-timeout",
                "60",
                "--memory-limit",
                "0",
                *self._tls_args(),
            ],
            f"{name}.log",
        )
        self.workers[name] = proc
        return proc

    def kill_worker(self, name: str) -> None:
        """SIGKILL, as when a machine disappears: the worker gets no chance to hand anything back."""
        proc = self.workers.pop(name)
        proc.kill()
        proc.wait()

    def stop_scheduler(self) -> None:
        if self.scheduler is not None and self.scheduler.poll() is None:
            self.scheduler.kill()
            self.scheduler.wait()
        self.scheduler = None

    def stop(self) -> None:
        """Every process this cluster started, workers first; nothing is left running."""
        for proc in self.workers.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.workers.values():
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.workers.clear()
        self.stop_scheduler()
