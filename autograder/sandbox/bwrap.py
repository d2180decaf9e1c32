"""Bubblewrap around the zygote: no network, its own pid namespace, no course folder or home directory."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from autograder.sandbox import layers
from autograder.sandbox.layers import ETC_FILES, gpu_devices, hidden_paths, python_paths

CHECK_TIMEOUT_S = 30.0  # for bubblewrap to run `true` when the sandbox checks it works


def works() -> bool:
    exe = shutil.which("bwrap")
    if not exe:
        return False
    try:
        proc = subprocess.run(
            [exe, "--unshare-net", "--unshare-pid", "--die-with-parent", "--ro-bind", "/", "/", "true"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=CHECK_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


# The zygote's private /tmp holds every worker's private folder: a tmpfs, so its size is capped.
ZYGOTE_TMP_BYTES = 2 << 30


def wrap_zygote(argv: list[str], *, course_dir: Path) -> list[str]:
    """`argv` run under bubblewrap: no network, own pid namespace, only the Python env and system dirs.

    The course folder (source/, gradebook.db, submitted/, autograded/) and the home directory are not
    mounted, /tmp is a private tmpfs (the workers' private folders live there), and the zygote dies
    with its parent. The zygote gets everything it grades over its channel, never from the disk.
    Returns `argv` unchanged when bubblewrap is missing (`capabilities()` reports it).
    """
    exe = shutil.which("bwrap")
    if not exe or not works():
        return list(argv)
    course_dir = Path(course_dir).resolve()
    args = [
        exe,
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--die-with-parent",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        str(ZYGOTE_TMP_BYTES),
        "--tmpfs",
        "/tmp",
    ]
    for top in ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32", "/opt/conda"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    for name in ETC_FILES:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    devices = gpu_devices()
    for device in devices:
        args += ["--dev-bind", str(device), str(device)]
    if devices:
        args += ["--ro-bind-try", "/sys", "/sys"]
    bound: list[Path] = []
    for path in sorted(python_paths(), key=lambda p: len(p.parts)):
        if path.resolve() == course_dir or any(path.is_relative_to(b) for b in bound):
            continue
        bound.append(path)
        args += ["--ro-bind", str(path), str(path)]
    for hidden in hidden_paths():
        if any(hidden.is_relative_to(b) for b in bound):
            args += ["--tmpfs", str(hidden)]
    if layers.is_privileged():
        # The zygote keeps what confine() needs to give each worker its own uid and namespaces.
        for cap in (
            "CAP_SYS_ADMIN",
            "CAP_SETUID",
            "CAP_SETGID",
            "CAP_SETPCAP",
            "CAP_CHOWN",
            "CAP_DAC_READ_SEARCH",
            "CAP_FOWNER",
            "CAP_KILL",
        ):
            args += ["--cap-add", cap]
    args += ["--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp", "--chdir", "/tmp", "--"]
    return args + list(argv)
