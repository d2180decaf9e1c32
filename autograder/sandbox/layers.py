"""Confinement of the processes that run student code.

A worker forked from the warm zygote calls `confine()` before it runs any student code. Each layer is
an existing kernel mechanism, so the guarantees do not rest on Python:

- a new session, and namespaces: a user namespace (or, when the grader runs as root, a private uid),
  a network namespace with nothing in it, and a pid namespace whose init is the worker, so killing
  the worker's supervisor kills every process the student started, daemonised or not;
- rlimits: CPU time, address space, processes (counted per sandbox, never per real user), file size,
  no core dumps;
- every inherited file descriptor closed but the channel and stdio; no_new_privs; a parent-death
  signal; capabilities dropped;
- Landlock: read-only on the Python environment, the trusted packages and a few system files,
  read-write on the private folder only; no TCP bind/connect; no signals or abstract unix sockets
  reaching outside the sandbox.

`wrap_zygote()` adds bubblewrap around the zygote (its own network and pid namespaces, the course
folder and the home directory not mounted at all, a private /tmp). `capabilities()` says which layers
this machine has; `require()` refuses to grade when one is missing unless the instructor opted in.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import importlib.util
import os
import random
import resource
import signal
import sys
import sysconfig
import tempfile
from pathlib import Path

from autograder.config.limits import Limits
from autograder.sandbox import cgroup


# What of the grader's environment reaches the processes that run student code (the zygote, every
# child and probe child it forks, bubblewrap); nothing else passes. Locale, search paths, thread
# counts and the GPU's selection: no name here can carry a secret.
ENV_ALLOWED = (
    "PATH",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_NUMERIC",
    "LC_COLLATE",
    "LC_MESSAGES",
    "TZ",
    "PYTHONPATH",
    "PYTHONHASHSEED",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "MPLBACKEND",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER",
    "NVIDIA_VISIBLE_DEVICES",
    "NVIDIA_DRIVER_CAPABILITIES",
    "LD_LIBRARY_PATH",
)


def sandbox_environment(source: dict | None = None, *, extra: tuple[str, ...] = ()) -> dict[str, str]:
    """The environment for everything that runs student code: the names in `ENV_ALLOWED` and `extra` only."""
    source = os.environ if source is None else source
    allowed = set(ENV_ALLOWED) | set(extra)
    return {name: value for name, value in source.items() if name in allowed}


class SandboxError(RuntimeError):
    """A confinement layer could not be applied; the worker must not run student code."""


# Private uids for sandboxes when the grader runs as root: far above any real account.
SANDBOX_UID_BASE = 2_000_000_000
SANDBOX_UID_SPAN = 1 << 24

# <linux/sched.h>
CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

# <linux/prctl.h>
PR_SET_PDEATHSIG = 1
PR_SET_KEEPCAPS = 8
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
CAP_DAC_READ_SEARCH = 2
CAP_LAST_CAP = 63
_LINUX_CAPABILITY_VERSION_3 = 0x20080522

# <linux/landlock.h>; the syscall numbers are the same on every architecture.
SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_REMOVE_DIR = 1 << 4
FS_REMOVE_FILE = 1 << 5
FS_MAKE_CHAR = 1 << 6
FS_MAKE_DIR = 1 << 7
FS_MAKE_REG = 1 << 8
FS_MAKE_SOCK = 1 << 9
FS_MAKE_FIFO = 1 << 10
FS_MAKE_BLOCK = 1 << 11
FS_MAKE_SYM = 1 << 12
FS_REFER = 1 << 13  # ABI 2
FS_TRUNCATE = 1 << 14  # ABI 3
FS_IOCTL_DEV = 1 << 15  # ABI 5
NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1
FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
READ_RIGHTS = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def _prctl(option: int, arg: int = 0) -> None:
    _check(_libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0), f"prctl({option})")


def die_with_parent() -> None:
    """Have the kernel kill this process when the one that forked it dies, so nothing outlives a stopped judge."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


# <linux/mount.h>
MS_NOSUID = 2
MS_NODEV = 4
MS_REC = 1 << 14
MS_PRIVATE = 1 << 18
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]


def _mount_scratch(workdir: Path, limits: "Limits", uid: int | None) -> None:
    """A tmpfs of the notebook's own on its folder, in a mount namespace of its own.

    Its size and inode count are the notebook's (`scratch_mb`, `scratch_files`): filling it fails
    only this notebook's writes. The kernel frees it with the last process of the namespace, so the
    zygote never walks what a notebook left behind.
    """
    unshare(CLONE_NEWNS)
    _check(_libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
    options = f"size={int(limits.scratch_mb)}m,nr_inodes={int(limits.scratch_files)},mode=0700"
    if uid is not None:
        options += f",uid={uid},gid={uid}"
    _check(
        _libc.mount(b"tmpfs", os.fsencode(workdir), b"tmpfs", MS_NOSUID | MS_NODEV, options.encode()),
        f"mount tmpfs on {workdir}",
    )


# ---------------------------------------------------------------- Landlock


def landlock_abi() -> int:
    """The Landlock ABI version of the running kernel; 0 when Landlock is absent or disabled."""
    if not sys.platform.startswith("linux"):
        return 0
    version = _libc.syscall(
        SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION)
    )
    return max(0, int(version))


def _handled_fs(abi: int) -> int:
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= FS_REFER
    if abi >= 3:
        rights |= FS_TRUNCATE
    if abi >= 5:
        rights |= FS_IOCTL_DEV
    return rights


def _landlock(*, read: list[Path], read_write: list[Path], abi: int) -> None:
    """Restrict this process (and everything it starts) to the given paths, no TCP, no outside signals."""
    handled = _handled_fs(abi)
    attr = _RulesetAttr(
        handled,
        (NET_BIND_TCP | NET_CONNECT_TCP) if abi >= 4 else 0,
        (SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL) if abi >= 6 else 0,
    )
    size = ctypes.sizeof(attr) if abi >= 6 else (16 if abi >= 4 else 8)
    ruleset = _check(
        _libc.syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)),
        "landlock_create_ruleset",
    )
    try:
        for paths, rights in ((read, READ_RIGHTS), (read_write, handled)):
            for path in paths:
                try:
                    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                except OSError:
                    continue
                try:
                    allowed = rights & handled
                    if not os.path.isdir(f"/proc/self/fd/{fd}"):
                        allowed &= FILE_RIGHTS
                    rule = _PathBeneathAttr(allowed, fd)
                    _check(
                        _libc.syscall(
                            SYS_LANDLOCK_ADD_RULE,
                            ruleset,
                            LANDLOCK_RULE_PATH_BENEATH,
                            ctypes.byref(rule),
                            ctypes.c_uint32(0),
                        ),
                        f"landlock_add_rule({path})",
                    )
                finally:
                    os.close(fd)
        _check(_libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)), "landlock_restrict_self")
    finally:
        os.close(ruleset)


# Files under /etc that Python, glibc and the libraries need; the rest of /etc stays unreadable.
ETC_FILES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "timezone",
    "passwd",
    "group",
    "nsswitch.conf",
    "mime.types",
    "os-release",
    "host.conf",
    "hosts",
    "fonts",
)
SYSTEM_READ = (
    "/usr",
    "/lib",
    "/lib64",
    "/lib32",
    "/libx32",
    "/bin",
    "/sbin",
    "/opt/conda",
    "/dev/urandom",
    "/dev/random",
    "/dev/zero",
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/proc/stat",
    "/proc/sys/vm/overcommit_memory",
    "/sys/devices/system/cpu",
)
# What CUDA needs besides the device nodes: the driver's files, read-only (none on a machine without a GPU).
GPU_READ = ("/proc/driver/nvidia", "/sys/module/nvidia", "/sys/bus/pci", "/sys/devices")


def gpu_devices() -> list[Path]:
    """The NVIDIA device nodes (/dev/nvidia0, nvidiactl, nvidia-uvm, nvidia-caps/...): read-write in the sandbox."""
    return sorted(Path("/dev").glob("nvidia*"))


TRUSTED_PACKAGES = ("course", "autograder")
HIDDEN_PACKAGES = ("instructor",)  # the instructor's references: never readable by student code, wherever installed


def hidden_paths() -> list[Path]:
    """Where the hidden packages are installed (a folder of the course, or inside site-packages)."""
    found: list[Path] = []
    for name in HIDDEN_PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        for entry in (spec.submodule_search_locations or []) if spec else []:
            for path in (Path(entry), Path(os.path.realpath(entry))):
                if path.exists() and path not in found:
                    found.append(path)
    return found


def _without_hidden(paths: list[Path], hidden: list[Path]) -> list[Path]:
    """`paths` with every folder that holds a hidden path replaced by its other entries (Landlock only allows)."""
    out: list[Path] = []
    for path in paths:
        inside = [h for h in hidden if h != path and h.is_relative_to(path)]
        if any(path.is_relative_to(h) for h in hidden):
            continue
        if not inside or not path.is_dir():
            out.append(path)
            continue
        out += _without_hidden(sorted(path.iterdir()), hidden)
    return out


def python_paths() -> list[Path]:
    """The interpreter's own trees and the trusted packages the worker may still import from."""
    found: list[str] = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    found += [p for key, p in sysconfig.get_paths().items() if key in ("stdlib", "platstdlib", "purelib", "platlib")]
    found.append(os.path.dirname(os.path.realpath(sys.executable)))
    for name in TRUSTED_PACKAGES:
        module = sys.modules.get(name)
        if module is not None:
            found += list(getattr(module, "__path__", []) or [])
            continue
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        found += list(spec.submodule_search_locations or []) if spec else []
    out: list[Path] = []
    for entry in found:
        for path in (Path(entry), Path(os.path.realpath(entry))):
            if path.exists() and path not in out:
                out.append(path)
    return out


@functools.lru_cache(maxsize=8)
def read_only_paths(extra: tuple[Path, ...] = ()) -> list[Path]:
    """What a confined worker may read. Cached: the zygote computes it once, and every worker it forks inherits it."""
    paths = python_paths() + [Path(p) for p in SYSTEM_READ] + [Path("/etc") / name for name in ETC_FILES]
    paths += [Path("/proc/self")] + list(extra)
    if gpu_devices():
        paths += [Path(p) for p in GPU_READ]
    return _without_hidden([p for p in paths if os.path.lexists(p)], hidden_paths())


@functools.lru_cache(maxsize=8)
def _reads_need_dac_read_search(reads: tuple[Path, ...]) -> bool:
    return _needs_dac_read_search(list(reads))


# ---------------------------------------------------------------- capabilities


def _drop_bounding(keep: int) -> None:
    """Remove every capability but `keep` from the bounding set (needs CAP_SETPCAP, so call it first)."""
    for cap in range(CAP_LAST_CAP + 1):
        if not keep >> cap & 1:
            if _libc.prctl(PR_CAPBSET_DROP, ctypes.c_ulong(cap), 0, 0, 0) < 0 and ctypes.get_errno() != errno.EINVAL:
                raise OSError(ctypes.get_errno(), f"PR_CAPBSET_DROP({cap})")
    _libc.prctl(PR_CAP_AMBIENT, ctypes.c_ulong(PR_CAP_AMBIENT_CLEAR_ALL), 0, 0, 0)


def _capset(keep: int) -> None:
    """Keep only the capabilities in `keep` in the effective and permitted sets; none inheritable."""
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    data[0].effective = data[0].permitted = keep & 0xFFFFFFFF
    data[1].effective = data[1].permitted = keep >> 32
    _check(_libc.capset(ctypes.byref(header), data), "capset")


def is_privileged() -> bool:
    """True when this process may switch uids and create namespaces itself (root with its capabilities)."""
    if os.geteuid() != 0:
        return False
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("CapEff:"):
            eff = int(line.split()[1], 16)
            needed = (1 << 6) | (1 << 7) | (1 << 21)  # CAP_SETGID, CAP_SETUID, CAP_SYS_ADMIN
            return eff & needed == needed
    return False


def _needs_dac_read_search(paths: list[Path]) -> bool:
    """Whether an unprivileged uid could not reach some of `paths` (a Python installed under /root)."""
    for path in paths:
        for parent in [*reversed(path.parents), path]:
            try:
                mode = parent.stat().st_mode
            except OSError:
                break
            if parent.is_dir() and not mode & 0o001:
                return True
    return False


def _free_uid() -> int:
    used = set()
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                used.add(os.stat(entry.path).st_uid)
            except OSError:
                pass
    while True:
        uid = SANDBOX_UID_BASE + random.randrange(SANDBOX_UID_SPAN)
        if uid not in used:
            return uid


# ---------------------------------------------------------------- confine


def _close_fds(keep: set[int]) -> None:
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    keep = keep | {0, 1, 2}
    try:
        open_fds = sorted(int(n) for n in os.listdir("/proc/self/fd"))
    except OSError:
        open_fds = list(range(resource.getrlimit(resource.RLIMIT_NOFILE)[0]))
    for fd in open_fds:
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _set_limit(which: int, value: int) -> None:
    soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))


def _vm_size() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return 0


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _supervise(child: int, ready_w: int, keep_fds: list[int]) -> None:
    """Stay the zygote's direct child while `child` (the pid namespace's init) runs the student's code.

    Killing this process kills `child` (its parent-death signal) and with it the whole pid namespace.
    Exits the way the child exited, so the zygote sees the worker's own status.
    """
    for fd in keep_fds:
        try:
            os.close(fd)
        except OSError:
            pass
    try:
        _capset(0)
    except OSError:
        pass
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    del ready_w  # held open until this process exits: the child's liveness check reads it
    _, status = os.waitpid(child, 0)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


# What nbgrader sets in the kernel it autogrades in; the notebook's process and the judge both have it.
AUTOGRADING = {"NBGRADER_EXECUTION": "autograde"}

# Names the instructor passes on beyond `ENV_ALLOWED` (`c.Autograder.sandbox_environment`); set by the zygote.
ENV_EXTRA: tuple[str, ...] = ()


def confine(
    *,
    workdir: Path,
    limits: Limits,
    keep_fds: list[int],
    allow_weak: bool = False,
    read_only: tuple[Path, ...] = (),
    cgroup_fd: int | None = None,
) -> None:
    """Confine this freshly forked worker; returns only in the confined process.

    Called before any student code runs. Raises `SandboxError` when a layer fails, unless
    `allow_weak` (the instructor's explicit opt-in), in which case it applies what it can.
    On success the caller's pid (as the zygote sees it) becomes a supervisor that never returns
    from this call; the code after it runs in the supervisor's only child.

    Long because the layers must be applied in this order in one process, and what each one managed
    (the namespaces, the private uid) decides the next; read top to bottom, the code is that order.
    """
    workdir = Path(workdir).resolve()
    if not sys.platform.startswith("linux"):
        if not allow_weak:
            raise SandboxError(f"no confinement on {sys.platform}: only rlimits and a session are available")
        os.setsid()
        os.chdir(workdir)
        _set_limit(resource.RLIMIT_CPU, int(limits.notebook_timeout) + 1)
        _set_limit(resource.RLIMIT_FSIZE, int(limits.max_file_mb) * 1024 * 1024)
        return
    zygote = os.getppid()
    init = os.getpid() == 1  # forked by the zygote straight into a pid namespace of its own (`fork_into_pid_namespace`)
    missing: list[str] = []

    def weak(what: str, exc: BaseException) -> None:
        if not allow_weak:
            raise SandboxError(f"{what}: {exc}") from exc
        missing.append(what)

    outer_uid = os.geteuid()

    if cgroup_fd is not None:
        try:
            cgroup.join(cgroup_fd)
        except OSError as exc:
            weak("memory cgroup", exc)
        finally:
            os.close(cgroup_fd)
    os.setsid()
    _close_fds(set(keep_fds))
    sys.dont_write_bytecode = True
    reads = read_only_paths(tuple(read_only))
    privileged = is_privileged()
    uid = None
    pid_ns = False
    try:
        if privileged:
            unshare(CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | (0 if init else CLONE_NEWPID))
        else:
            outer_gid = os.getegid()
            unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS)
            _write("/proc/self/setgroups", "deny")
            _write("/proc/self/uid_map", f"{outer_uid} {outer_uid} 1")
            _write("/proc/self/gid_map", f"{outer_gid} {outer_gid} 1")
        pid_ns = True
    except OSError as exc:
        weak("namespaces (network, pid, user)", exc)

    if privileged:
        uid = _free_uid()
    if pid_ns:
        try:
            _mount_scratch(workdir, limits, uid)
        except OSError as exc:
            weak("private scratch space (tmpfs)", exc)
    else:
        weak("private scratch space (tmpfs)", OSError(errno.EPERM, "no namespace to mount it in"))

    if privileged:
        keep_caps = (
            (1 << CAP_DAC_READ_SEARCH)
            if _reads_need_dac_read_search(tuple(reads)) or _needs_dac_read_search([workdir])
            else 0
        )
        try:
            for root, dirs, files in os.walk(workdir):
                for name in [root, *(os.path.join(root, n) for n in dirs + files)]:
                    os.lchown(name, uid, uid)
            _drop_bounding(keep_caps)
            _prctl(PR_SET_KEEPCAPS, 1)
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            _capset(keep_caps)
            _prctl(PR_SET_KEEPCAPS, 0)
        except OSError as exc:
            uid = None
            weak("private uid", exc)
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != zygote:
        os._exit(1)

    if pid_ns and not init:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the supervisor waits for its child
        ready_r, ready_w = os.pipe()
        child = os.fork()
        if child:
            os.close(ready_r)
            _supervise(child, ready_w, keep_fds)
        os.close(ready_w)
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        os.set_blocking(ready_r, False)
        try:
            if os.read(ready_r, 1) == b"":
                os._exit(1)
        except BlockingIOError:
            pass
        os.close(ready_r)

    try:
        _set_limit(resource.RLIMIT_CORE, 0)
        _set_limit(resource.RLIMIT_CPU, int(limits.notebook_timeout) + 1)
        _set_limit(resource.RLIMIT_FSIZE, int(limits.max_file_mb) * 1024 * 1024)
        _set_limit(resource.RLIMIT_AS, _vm_size() + int(limits.memory_mb) * 1024 * 1024)
    except (OSError, ValueError) as exc:
        weak("rlimits", exc)
    # RLIMIT_NPROC counts per real uid and never applies to uid 0: it is only a per-sandbox limit under
    # the private uid, or in a user namespace of an unprivileged grader.
    if uid is not None or (pid_ns and outer_uid != 0):
        try:
            _set_limit(resource.RLIMIT_NPROC, int(limits.max_processes))
        except (OSError, ValueError) as exc:
            weak("process limit", exc)
    else:
        weak("process limit", OSError(errno.EPERM, "no private uid or user namespace to count processes in"))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    os.chdir(workdir)
    allowed = set(ENV_ALLOWED) | set(ENV_EXTRA)
    for var in [name for name in os.environ if name not in allowed]:
        del os.environ[var]
    for var in (
        "HOME",
        "TMPDIR",
        "TMP",
        "TEMP",
        "IPYTHONDIR",
        "MPLCONFIGDIR",
        "XDG_CACHE_HOME",
        "XDG_CONFIG_HOME",
        "TORCH_HOME",
    ):
        os.environ[var] = str(workdir)
    os.environ.update(AUTOGRADING)
    tempfile.tempdir = None

    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    abi = landlock_abi()
    try:
        if not abi:
            raise OSError(errno.ENOSYS, "Landlock is not available in this kernel")
        _landlock(read=reads, read_write=[workdir, Path(os.devnull), *gpu_devices()], abi=abi)
    except OSError as exc:
        weak("Landlock", exc)
    if not privileged and pid_ns:
        try:
            _drop_bounding(0)
            _capset(0)
        except OSError as exc:
            weak("dropping capabilities", exc)
    if missing:
        try:
            os.write(
                2, f"sandbox: running WITHOUT {', '.join(missing)} (weak sandbox allowed by the instructor)\n".encode()
            )
        except OSError:
            pass


def fork_into_pid_namespace(own_namespace: int | None) -> int:
    """`os.fork()`, the child starting as init of a pid namespace of its own when this process may make one.

    Killing that child then kills every process in its namespace, which `confine()` would otherwise
    get by forking once more under a supervisor: one fork of the big warm process saved per worker.
    `own_namespace` is an open descriptor of this process's /proc/self/ns/pid (None: a plain fork).
    """
    if own_namespace is None or not is_privileged():
        return os.fork()
    try:
        unshare(CLONE_NEWPID)
    except OSError:
        return os.fork()
    pid = -1
    try:
        pid = os.fork()
    finally:
        if pid != 0 and _libc.setns(own_namespace, CLONE_NEWPID) != 0:  # the parent only: the child is in the new one
            raise OSError(ctypes.get_errno(), "setns back to the zygote's pid namespace failed")
    return pid
