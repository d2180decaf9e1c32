"""Confinement: from inside a confined worker, each forbidden thing fails and the allowed ones work.

Every forbidden action is tried three ways: fully confined (it must fail), with only one layer left
on (each layer must stop it on its own), and with those layers switched off (it must succeed, which
proves the probe can tell). Layers are switched off inside the forked worker only, by replacing the
sandbox function that applies them.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
import torch  # noqa: F401 - the children fork from a process with torch loaded, as from the zygote

from autograder.config.limits import Limits
from autograder.sandbox import bwrap, capabilities, layers, processes

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the sandbox is Linux-only")

CAPS = capabilities.capabilities()
needs = {
    "landlock": pytest.mark.skipif(not CAPS["landlock_fs"], reason="no Landlock in this kernel"),
    "namespaces": pytest.mark.skipif(not CAPS["namespaces"], reason="no user/network/pid namespaces here"),
    "uid": pytest.mark.skipif(not CAPS["private_uid"], reason="private uids need the grader to run as root"),
    "scope": pytest.mark.skipif(not CAPS["landlock_signal_scope"], reason="Landlock ABI < 6: no signal scoping"),
    "tcp": pytest.mark.skipif(not CAPS["landlock_tcp"], reason="Landlock ABI < 4: no TCP rules"),
}
LAYERS = ("landlock", "namespaces", "uid", "rlimits", "fds")


def _switch_off(off: frozenset[str]) -> None:
    """Inside the forked worker: make `confine()` skip the given layers."""

    def fail(*_a, **_k):
        raise OSError(errno.EPERM, "switched off by the test")

    if "landlock" in off:
        layers._landlock = lambda **_k: None
    if "namespaces" in off:
        layers.unshare = fail
    if "uid" in off:
        layers.is_privileged = lambda: False
    if "rlimits" in off:
        layers._set_limit = lambda *_a: None
    if "fds" in off:
        layers._close_fds = lambda keep: None


def _read_all(fd: int, deadline: float) -> bytes:
    data = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            return data
        data += chunk
    return data


def run_confined(
    tmp_path: Path, probe, *args, limits: Limits = Limits(), off: set[str] = frozenset(), timeout: float = 120
):
    """Fork a stand-in zygote that forks a worker; the worker confines itself and runs `probe(*args)`.

    Returns (the probe's JSON result or None, the zygote's report: whether it survived and how the
    worker ended). Every process is gone when this returns.
    """
    workdir = tmp_path / f"work-{len(list(tmp_path.glob('work-*')))}"
    workdir.mkdir()
    result_r, result_w = os.pipe()
    report_r, report_w = os.pipe()
    zygote = os.fork()
    if zygote == 0:
        try:
            os.close(result_r)
            os.close(report_r)
            worker = os.fork()
            if worker == 0:
                try:
                    _switch_off(frozenset(off))
                    layers.confine(workdir=workdir, limits=limits, keep_fds=[result_w], allow_weak=bool(off))
                    out = probe(*args)
                except BaseException as exc:  # noqa: BLE001 - reported to the test
                    out = {"confine_error": f"{type(exc).__name__}: {exc}"}
                os.write(result_w, json.dumps(out).encode())
                os._exit(0)
            os.close(result_w)
            _, status = os.waitpid(worker, 0)
            processes.kill_tree(worker)
            os.write(report_w, json.dumps({"alive": True, "status": status}).encode())
        finally:
            os._exit(0)
    os.close(result_w)
    os.close(report_w)
    deadline = time.monotonic() + timeout
    raw = _read_all(result_r, deadline)
    report = _read_all(report_r, deadline)
    os.close(result_r)
    os.close(report_r)
    processes.kill_tree(zygote)
    os.waitpid(zygote, 0)
    return (json.loads(raw) if raw else None), (json.loads(report) if report else {"alive": False})


def attempt(action) -> str:
    """'ok', or the name of the exception the action raised."""
    try:
        action()
    except BaseException as exc:  # noqa: BLE001
        return type(exc).__name__
    return "ok"


# ---------------------------------------------------------------- files


@pytest.fixture
def course_dir(tmp_path: Path) -> Path:
    """A fake course folder with the things student code must never read, readable by anyone."""
    course = tmp_path / "course"
    (course / "source" / "01_tensors").mkdir(parents=True)
    (course / "source" / "01_tensors" / "01_tensors.ipynb").write_text('{"solution": 42}')
    (course / "gradebook.db").write_bytes(b"SQLite format 3\0")
    (course / "submitted" / "bob").mkdir(parents=True)
    (course / "submitted" / "bob" / "answer.ipynb").write_text("{}")
    for path in [tmp_path, *course.rglob("*"), course]:
        path.chmod(0o777 if path.is_dir() else 0o666)
    return course


def _read_course(course: str) -> dict:
    return {
        "source": attempt(lambda: open(f"{course}/source/01_tensors/01_tensors.ipynb").read()),
        "gradebook": attempt(lambda: open(f"{course}/gradebook.db", "rb").read()),
        "other": attempt(lambda: open(f"{course}/submitted/bob/answer.ipynb").read()),
        "listing": attempt(lambda: os.listdir(course)),
    }


@pytest.mark.process
@needs["landlock"]
def test_course_folder_unreadable(tmp_path, course_dir):
    out, _ = run_confined(tmp_path, _read_course, str(course_dir))
    assert out == {
        "source": "PermissionError",
        "gradebook": "PermissionError",
        "other": "PermissionError",
        "listing": "PermissionError",
    }
    control, _ = run_confined(tmp_path, _read_course, str(course_dir), off={"landlock"})
    assert control == {"source": "ok", "gradebook": "ok", "other": "ok", "listing": "ok"}


def _write_outside(target: str) -> dict:
    return {
        "create": attempt(lambda: open(f"{target}/new.txt", "w").write("x")),
        "overwrite": attempt(lambda: open(f"{target}/existing.txt", "w").write("x")),
        "delete": attempt(lambda: os.unlink(f"{target}/existing.txt")),
        "symlink": attempt(lambda: os.symlink("/etc/passwd", f"{target}/link")),
        "home": attempt(lambda: open(os.path.expanduser("~") + "/probe.txt", "w").write("x")),
    }


@pytest.mark.process
@needs["landlock"]
def test_writes_only_in_workdir(tmp_path):
    target = tmp_path / "outside"
    target.mkdir(mode=0o777)
    target.chmod(0o777)
    (target / "existing.txt").write_text("keep")
    (target / "existing.txt").chmod(0o666)
    out, _ = run_confined(tmp_path, _write_outside, str(target))
    assert {k: v for k, v in out.items() if k != "home"} == {
        "create": "PermissionError",
        "overwrite": "PermissionError",
        "delete": "PermissionError",
        "symlink": "PermissionError",
    }
    assert out["home"] == "ok"  # HOME is the private folder
    assert (
        sorted(p.name for p in target.iterdir()) == ["existing.txt"] and (target / "existing.txt").read_text() == "keep"
    )
    control, _ = run_confined(tmp_path, _write_outside, str(target), off={"landlock", "uid"})
    assert control["create"] == "ok" and control["overwrite"] == "ok", control


@pytest.mark.process
@needs["landlock"]
def test_open_by_handle_cannot_bypass_paths(tmp_path, course_dir):
    """The root worker keeps CAP_DAC_READ_SEARCH when Python lives under /root; file handles still obey Landlock."""

    def probe(path: str) -> str:
        libc = ctypes.CDLL(None, use_errno=True)

        class Handle(ctypes.Structure):
            _fields_ = [
                ("handle_bytes", ctypes.c_uint),
                ("handle_type", ctypes.c_int),
                ("f_handle", ctypes.c_ubyte * 128),
            ]

        handle, mount_id = Handle(128, 0), ctypes.c_int()
        if libc.name_to_handle_at(-100, path.encode(), ctypes.byref(handle), ctypes.byref(mount_id), 0) != 0:
            return "no handle"
        for mount in (
            ".",
            sys.prefix,
            "/",
        ):  # the scratch folder is a tmpfs: a handle needs a descriptor on the target's file system
            try:
                mount_fd = os.open(mount, os.O_RDONLY)
            except OSError:
                continue
            fd = libc.open_by_handle_at(mount_fd, ctypes.byref(handle), os.O_RDONLY)
            if fd >= 0:
                return os.read(fd, 100).decode()
            if ctypes.get_errno() != errno.ESTALE:
                return os.strerror(ctypes.get_errno())
        return "no handle"

    out, _ = run_confined(tmp_path, probe, str(course_dir / "gradebook.db"))
    assert out in ("Permission denied", "Operation not permitted", "no handle")


def _read_references() -> dict:
    import importlib

    def load() -> None:
        for name in [m for m in sys.modules if m == "instructor" or m.startswith("instructor.")]:
            del sys.modules[name]  # the test process may hold them; a grading zygote never imports them
        importlib.invalidate_caches()
        importlib.import_module("instructor.training")

    return {"import": attempt(load), "read": attempt(lambda: open(os.path.join(REFERENCES, "training.py")).read())}


REFERENCES = str(layers.hidden_paths()[0]) if layers.hidden_paths() else ""


@pytest.mark.process
@needs["landlock"]
def test_the_instructor_references_are_unreadable(tmp_path):
    """Hidden tests' references live outside what the sandbox may read, however the project is installed."""
    assert REFERENCES, "the instructor package is not installed"
    out, _ = run_confined(tmp_path, _read_references)
    assert out["read"] == "PermissionError" and out["import"] in (
        "PermissionError",
        "ModuleNotFoundError",
        "ImportError",
    ), out
    control, _ = run_confined(tmp_path, _read_references, off={"landlock"})
    assert control == {"import": "ok", "read": "ok"}


def test_hidden_packages_are_cut_out_of_site_packages(tmp_path):
    site = tmp_path / "site-packages"
    for name in ("numpy", "instructor", "course", "tensor_course-0.1.0.dist-info"):
        (site / name).mkdir(parents=True)
    kept = layers._without_hidden([site, tmp_path / "elsewhere"], [site / "instructor"])
    assert sorted(p.name for p in kept) == ["course", "elsewhere", "numpy", "tensor_course-0.1.0.dist-info"]


# ---------------------------------------------------------------- allowed work


def _honest_work() -> dict:
    import torch.distributions  # noqa: F401 - a submodule the zygote may not have imported yet
    from course import checks

    Path("data.txt").write_text("hello")
    import tempfile

    with tempfile.NamedTemporaryFile("w", delete=False) as handle:
        handle.write("x")
    t = torch.arange(6.0).reshape(2, 3)
    return {
        "torch": float((t @ t.T).sum()),
        "numpy": float(np.linspace(0, 1, 5).sum()),
        "checks": checks.__name__,
        "read_back": Path("data.txt").read_text(),
        "tempfile_in_workdir": os.path.dirname(handle.name) == os.getcwd(),
        "home": os.environ["HOME"] == os.getcwd(),
        "autograd": float(torch.ones(3, requires_grad=True).pow(2).sum().backward() or 0.0),
    }


@pytest.mark.process
def test_honest_work_runs(tmp_path):
    out, report = run_confined(tmp_path, _honest_work)
    assert out == {
        "torch": 83.0,
        "numpy": 2.5,
        "checks": "course.checks",
        "read_back": "hello",
        "tempfile_in_workdir": True,
        "home": True,
        "autograd": 0.0,
    }
    assert report["alive"] and os.waitstatus_to_exitcode(report["status"]) == 0


# ---------------------------------------------------------------- network


@pytest.fixture
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    yield server.getsockname()[1]
    server.close()


def _connect(port: int) -> dict:
    def udp():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.sendto(b"x", ("10.255.255.1", 9))

    return {
        "tcp": attempt(lambda: socket.create_connection(("127.0.0.1", port), timeout=5).close()),
        "udp": attempt(udp),
    }


@pytest.mark.process
@needs["namespaces"]
@needs["tcp"]
@pytest.mark.parametrize(
    "off, blocked",
    [
        (set(), {"tcp", "udp"}),
        ({"namespaces"}, {"tcp"}),  # Landlock alone stops TCP
        ({"landlock"}, {"tcp", "udp"}),  # the empty network namespace alone stops everything
    ],
)
def test_no_network(tmp_path, listener, off, blocked):
    out, _ = run_confined(tmp_path, _connect, listener, off=off)
    assert {k for k, v in out.items() if v != "ok"} == blocked


@pytest.mark.process
@needs["namespaces"]
def test_network_control_connects(tmp_path, listener):
    out, _ = run_confined(tmp_path, _connect, listener, off={"namespaces", "landlock"})
    assert out["tcp"] == "ok"


# ---------------------------------------------------------------- signals


def _kill_parent(decoy: int) -> dict:
    return {
        "parent": attempt(lambda: os.kill(os.getppid(), signal.SIGKILL)),
        "decoy": attempt(lambda: os.kill(decoy, signal.SIGKILL)),
    }


@pytest.fixture
def decoy():
    """A process of the grader's that student code tries to kill."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    yield proc
    proc.kill()
    proc.wait()


@pytest.mark.process
@pytest.mark.parametrize(
    "off",
    [
        pytest.param(set(), id="all-layers"),
        pytest.param({"namespaces", "uid"}, id="landlock-scope-only", marks=needs["scope"]),
        pytest.param({"landlock", "uid"}, id="pid-namespace-only", marks=needs["namespaces"]),
        pytest.param({"landlock", "namespaces"}, id="private-uid-only", marks=needs["uid"]),
    ],
)
def test_cannot_signal_the_grader(tmp_path, decoy, off):
    out, report = run_confined(tmp_path, _kill_parent, decoy.pid, off=off)
    assert report["alive"], "the worker killed its zygote"
    assert decoy.poll() is None, "the worker killed a grader process"
    if out is not None:  # without Landlock the worker may take its own supervisor down, and itself with it
        assert out["decoy"] in ("PermissionError", "ProcessLookupError")


@pytest.mark.process
def test_signal_control_kills(tmp_path, decoy):
    run_confined(tmp_path, _kill_parent, decoy.pid, off={"landlock", "namespaces", "uid"})
    assert decoy.wait(timeout=30) == -signal.SIGKILL


# ---------------------------------------------------------------- limits


def _fork_storm(count: int) -> dict:
    started = 0
    for _ in range(count):
        try:
            pid = os.fork()
        except OSError as exc:
            return {"started": started, "error": errno.errorcode[exc.errno]}
        if pid == 0:
            time.sleep(120)
            os._exit(0)
        started += 1
    return {"started": started, "error": None}


@pytest.mark.process
@pytest.mark.parametrize(
    "off",
    [
        pytest.param(set(), id="all-layers"),
        pytest.param({"namespaces"}, id="private-uid-only", marks=needs["uid"]),
        pytest.param(
            {"uid"},
            id="user-namespace-only",
            marks=pytest.mark.skipif(os.geteuid() == 0, reason="RLIMIT_NPROC never applies to uid 0"),
        ),
    ],
)
def test_process_storm_capped(tmp_path, off):
    out, _ = run_confined(tmp_path, _fork_storm, 60, limits=Limits(max_processes=12), off=off)
    assert out["error"] == "EAGAIN" and out["started"] < 12
    assert not _leftovers(tmp_path), "processes survived the worker"


@pytest.mark.process
def test_process_storm_control(tmp_path):
    out, _ = run_confined(tmp_path, _fork_storm, 60, limits=Limits(max_processes=12), off={"rlimits"})
    assert out == {"started": 60, "error": None}
    assert not _leftovers(tmp_path)


def _leftovers(root: Path) -> list[int]:
    """Live processes working inside `root` (a sandbox's cwd is its private folder)."""
    found = []
    for pid, (_, _, _, state) in processes._processes().items():
        try:
            cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
        except OSError:
            continue
        if cwd.is_relative_to(root) and state not in ("Z", "X"):
            found.append(pid)
    return found


def _grow_memory(mb: int) -> str:
    """Touch `mb` MB from Python: torch's parallel fill could hang in a child forked from a pytest
    process whose OpenMP pool earlier tests already started."""
    return attempt(lambda: bytearray(mb * 1024 * 1024))


@pytest.mark.process
def test_memory_capped(tmp_path):
    assert run_confined(tmp_path, _grow_memory, 768, limits=Limits(memory_mb=256))[0] == "MemoryError"
    assert run_confined(tmp_path, _grow_memory, 768, limits=Limits(memory_mb=256), off={"rlimits"})[0] == "ok"


def _big_file(mb: int) -> dict:
    def write():
        with open("big.bin", "wb") as handle:
            handle.write(b"\0" * (mb * 1024 * 1024))

    return {"write": attempt(write), "size": os.path.getsize("big.bin") if os.path.exists("big.bin") else 0}


@pytest.mark.process
def test_file_size_capped(tmp_path):
    out, report = run_confined(tmp_path, _big_file, 3, limits=Limits(max_file_mb=1))
    assert out == {"write": "OSError", "size": 1024 * 1024}
    assert report["alive"] and os.waitstatus_to_exitcode(report["status"]) == 0  # EFBIG, not SIGXFSZ
    control, _ = run_confined(tmp_path, _big_file, 3, limits=Limits(max_file_mb=1), off={"rlimits"})
    assert control == {"write": "ok", "size": 3 * 1024 * 1024}


def _burn_cpu(seconds: float) -> str:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return "finished"


@pytest.mark.process
def test_cpu_time_capped(tmp_path):
    out, report = run_confined(tmp_path, _burn_cpu, 4.0, limits=Limits(notebook_timeout=1))
    assert out is None and os.WIFSIGNALED(report["status"]) and os.WTERMSIG(report["status"]) == signal.SIGKILL
    control, _ = run_confined(tmp_path, _burn_cpu, 4.0, limits=Limits(notebook_timeout=1), off={"rlimits"})
    assert control == "finished"


def _inherited(fd: int) -> str:
    return attempt(lambda: os.fstat(fd))


@pytest.mark.process
def test_inherited_descriptors_closed(tmp_path):
    secret = open(tmp_path / "secret.txt", "w")  # an fd the grader happened to have open at fork
    try:
        assert run_confined(tmp_path, _inherited, secret.fileno())[0] == "OSError"
        assert run_confined(tmp_path, _inherited, secret.fileno(), off={"fds"})[0] == "ok"
    finally:
        secret.close()


def _exit_code(code: int) -> None:
    os._exit(code)


@pytest.mark.process
def test_worker_exit_status_reaches_zygote(tmp_path):
    _, report = run_confined(tmp_path, _exit_code, 7)
    assert report["alive"] and os.waitstatus_to_exitcode(report["status"]) == 7


# ---------------------------------------------------------------- killing


def _daemonise(report_fd: int) -> str:
    """Double fork with a new session: the classic way out of a process group. The daemon's pid goes to `report_fd`."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.write(report_fd, f"{os.getpid()}\n".encode())
            time.sleep(300)
        os._exit(0)
    time.sleep(300)
    return "not killed"


def _kill_tree_case(tmp_path: Path, off: set[str], *, own_namespace: bool = False) -> tuple[int, int | None]:
    """Start a worker that daemonises a grandchild; return (worker, the grandchild's pid as the test sees it, or None).

    With `own_namespace` the worker is forked straight into a pid namespace of its own, as the zygote
    forks them (`layers.fork_into_pid_namespace`), instead of confining itself under a supervisor.
    The pid comes over a pipe (the worker's folder is a tmpfs only it sees); inside a pid namespace
    it is the namespace's number, so it is only used where the namespace is off.
    """
    workdir = tmp_path / "kt"
    workdir.mkdir()
    workdir.chmod(0o777)
    ready_r, ready_w = os.pipe()
    namespace = os.open("/proc/self/ns/pid", os.O_RDONLY) if own_namespace else None
    worker = layers.fork_into_pid_namespace(namespace)
    if namespace is not None:
        os.close(namespace)
    if worker == 0:
        try:
            _switch_off(frozenset(off))
            layers.confine(workdir=workdir, limits=Limits(), keep_fds=[ready_w], allow_weak=bool(off))
            _daemonise(ready_w)
        finally:
            os._exit(0)
    os.close(ready_w)
    line = b""
    deadline = time.monotonic() + 60
    while not line.endswith(b"\n") and time.monotonic() < deadline:
        ready, _, _ = select.select([ready_r], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(ready_r, 64)
        if not chunk:
            break
        line += chunk
    os.close(ready_r)
    return worker, int(line) if line.strip().isdigit() else None


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.process
@needs["namespaces"]
def test_kill_tree_leaves_nothing(tmp_path):
    worker, daemon = _kill_tree_case(tmp_path, set())
    assert daemon is not None, "the daemon never started"
    processes.kill_tree(worker)
    os.waitpid(worker, 0)
    assert not _leftovers(tmp_path)


@pytest.mark.process
@needs["namespaces"]
@needs["uid"]
def test_kill_tree_leaves_nothing_for_a_worker_forked_into_its_own_namespace(tmp_path):
    worker, daemon = _kill_tree_case(tmp_path, set(), own_namespace=True)
    assert daemon is not None, "the daemon never started"
    processes.kill_tree(worker)
    os.waitpid(worker, 0)
    assert not _leftovers(tmp_path)


def _ppid(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _wait_reparented(daemon: int, worker: int, timeout: float = 30.0) -> None:
    """Wait until the daemon's middle parent has exited, so nothing links the daemon to the worker's tree.

    The pid file is written as soon as the daemon starts, which can be before its middle parent
    exits; until then the daemon is still the worker's grandchild and any kill of the tree finds it.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        parent = _ppid(daemon)
        if parent is None or parent == worker or _ppid(parent) != worker:
            return
        time.sleep(0.01)
    raise AssertionError(f"daemon {daemon} was not reparented within {timeout} s")


@pytest.mark.process
def test_kill_tree_control_misses_daemon(tmp_path):
    """Without the pid namespace and the private uid, a double-forked daemon escapes the kill."""
    worker, daemon = _kill_tree_case(tmp_path, {"namespaces", "uid", "landlock"})
    _wait_reparented(daemon, worker)
    processes.kill_tree(worker)
    os.waitpid(worker, 0)

    try:
        assert _alive(daemon)
    finally:
        os.kill(daemon, signal.SIGKILL)


# ---------------------------------------------------------------- refusing to run weak


@pytest.mark.process
def test_confine_refuses_when_a_layer_fails(tmp_path):
    def no_landlock(**_k):
        raise OSError(errno.ENOSYS, "Landlock is not available")

    workdir = tmp_path / "w"
    workdir.mkdir()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.chdir(workdir)
        try:
            layers._landlock = no_landlock
            layers.confine(workdir=workdir, limits=Limits(), keep_fds=[w])
            os.write(w, b"student code ran")
        except layers.SandboxError as exc:
            os.write(w, f"refused: {exc}".encode())
        os._exit(0)
    os.close(w)
    text = _read_all(r, time.monotonic() + 60).decode()
    os.waitpid(pid, 0)
    processes.kill_tree(pid)
    assert text.startswith("refused: Landlock")


def test_require_refuses_missing_mechanisms(monkeypatch, capsys):
    weak = dict(CAPS, landlock_abi=0, landlock_fs=False, landlock_tcp=False, landlock_signal_scope=False)
    monkeypatch.setattr(capabilities, "capabilities", lambda: weak)
    with pytest.raises(capabilities.SandboxUnavailable, match="Landlock"):
        capabilities.require(allow_weak=False)
    with pytest.warns(RuntimeWarning, match="WEAK SANDBOX"):
        assert capabilities.require(allow_weak=True) is weak
    assert "WEAK SANDBOX" in capsys.readouterr().err
    assert "MISSING" in capabilities.describe_capabilities(weak)


def test_require_accepts_this_machine_when_complete():
    if capabilities.missing_mechanisms():
        pytest.skip("this machine lacks: " + "; ".join(capabilities.missing_mechanisms()))
    assert capabilities.require(allow_weak=False)["landlock_fs"]
    assert "All confinement layers are active." in capabilities.describe_capabilities()


def test_missing_mechanisms_names_each_gap():
    full = {
        "landlock_fs": True,
        "landlock_tcp": True,
        "landlock_signal_scope": True,
        "namespaces": True,
        "private_uid": False,
        "process_limit": True,
        "rlimits": True,
    }
    assert capabilities.missing_mechanisms(full) == []
    assert any("signal" in m for m in capabilities.missing_mechanisms(dict(full, landlock_signal_scope=False)))
    assert any("fork bomb" in m for m in capabilities.missing_mechanisms(dict(full, process_limit=False)))
    assert any(
        "network" in m for m in capabilities.missing_mechanisms(dict(full, namespaces=False, landlock_tcp=False))
    )


# ---------------------------------------------------------------- the zygote wrapper


ZYGOTE_PROBE = """
import json, os, socket, sys
import torch, course.checks
out = {"torch": float(torch.ones(2).sum())}
for name, path in [("course", sys.argv[1]), ("home", sys.argv[2])]:
    try:
        out[name] = sorted(os.listdir(path))
    except OSError as exc:
        out[name] = type(exc).__name__
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[3])), timeout=5).close()
    out["net"] = "ok"
except OSError as exc:
    out["net"] = type(exc).__name__
print(json.dumps(out))
"""


@pytest.mark.process
@pytest.mark.skipif(not CAPS["bwrap"], reason="bubblewrap is not installed or cannot create namespaces")
def test_wrapped_zygote_sees_no_course_home_or_network(tmp_path, course_dir, listener):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".ssh").mkdir()
    argv = [sys.executable, "-c", ZYGOTE_PROBE, str(course_dir), str(home), str(listener)]
    wrapped = bwrap.wrap_zygote(argv, course_dir=course_dir)
    out = json.loads(subprocess.run(wrapped, capture_output=True, text=True, check=True, cwd="/").stdout)
    assert out["torch"] == 2.0
    assert out["course"] == "FileNotFoundError" and out["home"] == "FileNotFoundError"
    assert out["net"] != "ok"
    control = json.loads(subprocess.run(argv, capture_output=True, text=True, check=True, cwd="/").stdout)
    assert control["course"] == ["gradebook.db", "source", "submitted"] and control["net"] == "ok"


@pytest.mark.process
@pytest.mark.skipif(not CAPS["bwrap"], reason="bubblewrap is not installed")
def test_wrapped_zygote_can_confine_workers(tmp_path):
    """Inside bubblewrap the zygote still gives each worker its namespaces, uid and Landlock domain."""
    script = (
        "import os, sys; from pathlib import Path\n"
        "from autograder.config.limits import Limits\n"
        "from autograder.sandbox import capabilities, layers, processes\n"
        "print(capabilities.missing_mechanisms())\n"
        "w = Path('/tmp/w'); w.mkdir()\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    layers.confine(workdir=w, limits=Limits(), keep_fds=[])\n"
        "    open('ok', 'w').write('1'); os._exit(0 if os.path.exists('ok') else 3)\n"
        "_, status = os.waitpid(pid, 0); processes.kill_tree(pid)\n"
        "print(os.waitstatus_to_exitcode(status), list(w.iterdir()) == [])  # the worker wrote in a tmpfs of its own\n"
    )
    wrapped = bwrap.wrap_zygote([sys.executable, "-c", script], course_dir=tmp_path)
    proc = subprocess.run(wrapped, capture_output=True, text=True, cwd="/")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == ["[]", "0 True"]


# ---------------------------------------------------------------- an unprivileged grader


UNPRIVILEGED = """
import json, os, socket, sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from autograder.config.limits import Limits
from autograder.sandbox import layers, processes
work = Path(sys.argv[2])
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    layers.confine(workdir=work, limits=Limits(max_processes=8), keep_fds=[w])
    out = {}
    try:
        open(sys.argv[3]).read(); out["secret"] = "ok"
    except OSError as exc:
        out["secret"] = type(exc).__name__
    try:
        os.kill(int(sys.argv[4]), 9); out["kill"] = "ok"
    except OSError as exc:
        out["kill"] = type(exc).__name__
    n = 0
    try:
        for _ in range(40):
            if os.fork() == 0:
                time.sleep(60); os._exit(0)
            n += 1
    except OSError:
        pass
    out["forks"] = n
    os.write(w, json.dumps(out).encode()); os._exit(0)
os.close(w)
data = b""
while chunk := os.read(r, 4096):
    data += chunk
os.waitpid(pid, 0)
processes.kill_tree(pid)
print(data.decode())
"""


@pytest.mark.process
@pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("setpriv") or not Path("/usr/bin/python3").exists(),
    reason="needs root to start an unprivileged user, and a system python3",
)
def test_unprivileged_grader_path(decoy):
    """The path real instructors take: no root, a user namespace per worker (system Python, stdlib only)."""
    tmp_path = Path(tempfile.mkdtemp(prefix="sandbox-unprivileged-"))
    try:
        _unprivileged(tmp_path, decoy)
    finally:
        shutil.rmtree(tmp_path)


def _unprivileged(tmp_path: Path, decoy) -> None:
    source = Path(layers.__file__).parent.parent
    pkg = tmp_path / "pkg" / "autograder"
    for module in ("sandbox/layers.py", "sandbox/cgroup.py", "sandbox/processes.py", "config/limits.py"):
        (pkg / module).parent.mkdir(parents=True, exist_ok=True)
        (pkg / module).parent.joinpath("__init__.py").write_text("")
        shutil.copy(source / module, pkg / module)
    (pkg / "__init__.py").write_text("")
    secret = tmp_path / "secret.txt"
    secret.write_text("s")
    work = tmp_path / "work"
    work.mkdir()
    for path in [tmp_path, *tmp_path.rglob("*")]:
        path.chmod(0o777 if path.is_dir() else 0o666)
    proc = subprocess.run(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "/usr/bin/python3",
            "-c",
            UNPRIVILEGED,
            str(tmp_path / "pkg"),
            str(work),
            str(secret),
            str(decoy.pid),
        ],
        capture_output=True,
        text=True,
        cwd="/",
        timeout=120,
    )
    if "namespaces" in proc.stderr and "Operation not permitted" in proc.stderr:
        pytest.skip("unprivileged user namespaces are disabled here")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["secret"] == "PermissionError"
    assert out["kill"] in ("PermissionError", "ProcessLookupError") and decoy.poll() is None
    assert out["forks"] < 8


# ---------------------------------------------------------------- scratch space, environment, memory cgroup


def _fill_scratch() -> dict:
    def fill():
        with open("fill.bin", "wb") as handle:
            while True:
                handle.write(b"x" * (1 << 20))

    def litter():
        os.makedirs("litter", exist_ok=True)
        for i in range(100_000):
            open(f"litter/{i}", "w").close()

    out = {}
    for name, action in (("fill", fill), ("litter", litter)):
        try:
            action()
            out[name] = "ok"
        except OSError as exc:
            out[name] = errno.errorcode.get(exc.errno, str(exc.errno))
    out["size"] = os.path.getsize("fill.bin")
    return out


@pytest.mark.process
def test_each_worker_gets_its_own_scratch_space(tmp_path):
    """Filling the folder (bytes, then inodes) fails with ENOSPC at the worker's own limits, and leaves nothing outside it."""
    out, _ = run_confined(tmp_path, _fill_scratch, limits=Limits(scratch_mb=4, scratch_files=200, max_file_mb=64))
    assert out["fill"] == "ENOSPC" and out["size"] <= 4 * 1024 * 1024
    assert out["litter"] == "ENOSPC"
    assert [list(p.iterdir()) for p in tmp_path.glob("work-*")] == [[]]  # the tmpfs went with the worker


def _environment() -> dict:
    return {"environ": dict(os.environ), "proc": open("/proc/self/environ", "rb").read().decode(errors="replace")}


@pytest.mark.process
def test_confine_keeps_only_the_allowed_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_TOKEN", "secret-in-the-graders-environment")
    out, _ = run_confined(tmp_path, _environment)
    assert "FAKE_TOKEN" not in out["environ"]
    assert out["environ"]["NBGRADER_EXECUTION"] == "autograde", "as nbgrader's kernel while it autogrades"
    assert set(out["environ"]) <= set(layers.ENV_ALLOWED) | {
        "NBGRADER_EXECUTION",
        "HOME",
        "TMPDIR",
        "TMP",
        "TEMP",
        "IPYTHONDIR",
        "MPLCONFIGDIR",
        "XDG_CACHE_HOME",
        "XDG_CONFIG_HOME",
        "TORCH_HOME",
    }


def test_the_zygote_starts_with_the_allow_list_only(monkeypatch):
    from autograder.judge import pool

    monkeypatch.setenv("FAKE_TOKEN", "secret")
    monkeypatch.setenv("PGPASSWORD", "secret")
    env = pool._env(1, ("EXTRA_NAME",))
    assert "FAKE_TOKEN" not in env and "PGPASSWORD" not in env
    assert set(env) <= set(layers.ENV_ALLOWED) | {"EXTRA_NAME"}
    assert env["PATH"] == os.environ["PATH"]


def _hold(mb: int, processes: int) -> str:
    kids = []
    for _ in range(processes):
        pid = os.fork()
        if pid == 0:
            block = bytearray(mb * 1024 * 1024)
            for i in range(0, len(block), 4096):
                block[i] = 1
            time.sleep(5)
            os._exit(0)
        kids.append(pid)
    return "".join("k" if os.WIFSIGNALED(os.waitpid(pid, 0)[1]) else "." for pid in kids)


@pytest.mark.process
@pytest.mark.skipif(not CAPS["memory_cgroup"], reason="no memory cgroup for the grader here")
def test_memory_is_limited_for_all_processes_together(tmp_path):
    """Six processes of 100 MB each under a 256 MB limit: the cgroup kills some, though each is under the per-process limit."""
    from autograder.sandbox import cgroup

    groups = cgroup.Groups()
    try:
        group = groups.create("sandbox-test", 256)
        fd = group.procs_fd()
        workdir = tmp_path / "w"
        workdir.mkdir()
        result_r, result_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                layers.confine(workdir=workdir, limits=Limits(memory_mb=256), keep_fds=[result_w], cgroup_fd=fd)
                os.write(result_w, _hold(100, 6).encode())
            finally:
                os._exit(0)
        os.close(fd)
        os.close(result_w)
        got = _read_all(result_r, time.monotonic() + 60).decode()
        os.close(result_r)
        processes.kill_tree(pid)
        os.waitpid(pid, 0)
        assert "k" in got and group.oom_kills() > 0
    finally:
        groups.close()
