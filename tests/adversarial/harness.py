"""A throwaway course with the hostile class handed in, and the instruments that watch it being graded.

Used by the adversarial tests (this grader) and by `measure_stock` (stock nbgrader), so both grade
exactly the same submissions.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import select
import socket
import threading
from pathlib import Path

import nbformat

from autograder import commands
from tests.adversarial.cases import CASES, CONTROLS, LESSON, Base, Context, write_case
from tests.conftest import copy_course

# Tight limits so the loops, storms and hoards of the corpus end quickly.
LIMITS = """
c.Autograder.cell_timeout = 10
c.Autograder.notebook_timeout = 120
c.Autograder.memory_limit_mb = 1024
c.Autograder.output_limit_kb = 256
c.Autograder.max_processes = 64
c.Execute.timeout = 10
c.Autograder.sandbox_environment = ["ADVERSARIAL_RUN"]  # the marker `marked_processes` looks for in what the run started
"""

# Written by the grader itself: everything else in the course folder must be left as it was.
GRADER_OUTPUTS = ("autograded", "feedback", "gradebook.db", "gradebook.db-journal", ".autograder")


def prepare(root: Path) -> tuple[Path, Context]:
    """A released course copy under `root`, a fake home and an outside folder; the class not yet written."""
    course = copy_course(root / "course")
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as handle:
        handle.write(LIMITS)
    commands.release(course, assignments=[LESSON], progress=False)
    home = root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".bashrc").write_text("# the instructor's shell\n")
    (home / ".ssh" / "authorized_keys").write_text("ssh-ed25519 AAAA instructor\n")
    outside = root / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("untouched\n")
    return course, Context(course=str(course), home=str(home), outside=str(outside), port=0)


def write_class(course: Path, ctx: Context, *, cases=CASES) -> None:
    source = nbformat.read(course / "source" / LESSON / f"{LESSON}.ipynb", as_version=4)
    release = nbformat.read(course / "release" / LESSON / f"{LESSON}.ipynb", as_version=4)
    base = Base(source, release)
    submitted = course / "submitted"
    write_case(submitted / "ada" / LESSON, {f"{LESSON}.ipynb": base.honest})
    write_case(submitted / "blank" / LESSON, {f"{LESSON}.ipynb": release})
    for case in cases:
        write_case(submitted / case.name / LESSON, case.build(ctx, base))
    assert set(CONTROLS) == {"ada", "blank"}


def fingerprint(root: Path, *, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """path -> content hash (or link target) of everything under `root` but the top-level names in `skip`."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        if rel.parts and rel.parts[0] in skip:
            dirnames[:] = []
            continue
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            key = str(path.relative_to(root))
            if not rel.parts and name in skip:
                continue
            if path.is_symlink():
                out[key] = "link:" + os.readlink(path)
            elif path.is_file():
                out[key] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                out[key] = "dir"
    return out


class Listener:
    """A TCP and UDP endpoint on 127.0.0.1 that records whatever reaches it."""

    def __init__(self) -> None:
        self.tcp = socket.socket()
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(64)
        self.port = self.tcp.getsockname()[1]
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", self.port))
        self.received: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.tcp, self.udp], [], [], 0.2)
            for sock in ready:
                if sock is self.tcp:
                    conn, _ = sock.accept()
                    conn.settimeout(2)
                    with contextlib.suppress(OSError):
                        self.received.append(b"tcp:" + conn.recv(1024))
                    conn.close()
                else:
                    self.received.append(b"udp:" + sock.recv(1024))

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.tcp.close()
        self.udp.close()


def marked_processes(marker: str) -> list[int]:
    """Live processes started with `marker` in their environment (the grader's and everything below it)."""
    found = []
    needle = f"ADVERSARIAL_RUN={marker}".encode()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = Path(entry.path, "environ").read_bytes()
            state = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in environ.split(b"\0") and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


@contextlib.contextmanager
def environment(**values: str):
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
