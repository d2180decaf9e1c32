"""What confinement this machine has, probed for real, and the refusal to grade without it."""

from __future__ import annotations

import errno
import functools
import os
import sys
import warnings

from autograder.sandbox import bwrap, cgroup, layers
from autograder.sandbox.layers import CLONE_NEWNET, CLONE_NEWPID, CLONE_NEWUSER, SANDBOX_UID_BASE, gpu_devices


class SandboxUnavailable(RuntimeError):
    """This machine lacks a confinement mechanism and the instructor did not opt in to a weaker one."""


def _probe_in_child(action) -> bool:
    """Run `action` in a throwaway forked child; True when it succeeded there."""
    pid = os.fork()
    if pid == 0:
        try:
            action()
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def _try_namespaces() -> None:
    if layers.is_privileged():
        layers.unshare(CLONE_NEWNET | CLONE_NEWPID)
    else:
        layers.unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWPID)


def _try_uid_switch() -> None:
    if not layers.is_privileged():
        raise OSError(errno.EPERM, "not root")
    os.setresuid(SANDBOX_UID_BASE, SANDBOX_UID_BASE, SANDBOX_UID_BASE)


@functools.cache
def capabilities() -> dict:
    """Which confinement mechanisms work on this machine, probed for real (cached per process)."""
    linux = sys.platform.startswith("linux")
    abi = layers.landlock_abi() if linux else 0
    namespaces = linux and _probe_in_child(_try_namespaces)
    private_uid = linux and layers.is_privileged() and _probe_in_child(_try_uid_switch)
    return {
        "platform": sys.platform,
        "kernel": os.uname().release,
        "root": os.geteuid() == 0,
        "landlock_abi": abi,
        "landlock_fs": abi >= 1,
        "landlock_tcp": abi >= 4,
        "landlock_signal_scope": abi >= 6,
        "namespaces": namespaces,
        "private_uid": private_uid,
        "process_limit": (namespaces and os.geteuid() != 0) or private_uid,
        "rlimits": linux,
        "no_new_privs": linux,
        "bwrap": linux and bwrap.works(),
        "memory_cgroup": linux and cgroup.available(),
        "gpu_devices": [str(p) for p in gpu_devices()],
    }


# What grading needs, and what it means when it is missing.
REQUIRED = {
    "landlock_fs": "file access limits (Landlock): student code could read source/, the gradebook and other submissions",
    "namespaces": "user/network/pid namespaces: student code could reach the network and leave processes behind",
    "process_limit": "a per-sandbox process limit: a fork bomb could exhaust the machine",
    "rlimits": "resource limits (CPU, memory, file size)",
}


SIGNALS = "signal isolation (Landlock ABI 6 scopes, or a private uid): student code could signal the grader"


def missing_mechanisms(caps: dict | None = None) -> list[str]:
    caps = caps if caps is not None else capabilities()
    missing = [text for key, text in REQUIRED.items() if not caps.get(key)]
    if not (caps.get("landlock_signal_scope") or caps.get("private_uid")):
        missing.append(SIGNALS)
    if not (caps.get("landlock_tcp") or caps.get("namespaces")):
        missing.append("network isolation")
    if not caps.get("root", True) and not caps.get("bwrap"):
        missing.append("bubblewrap: student code could connect to the instructor's unix sockets (ssh-agent, D-Bus)")
    return missing


def require(allow_weak: bool) -> dict:
    """Refuse to grade on a machine without full confinement, unless the instructor opted in.

    Wired to `autograder grade --allow-weak-sandbox`. Returns `capabilities()`.
    """
    caps = capabilities()
    missing = missing_mechanisms(caps)
    if missing and not allow_weak:
        raise SandboxUnavailable(
            "refusing to run student code: this machine lacks\n  - "
            + "\n  - ".join(missing)
            + "\nRun on Linux >= 6.12 with unprivileged user namespaces, or pass --allow-weak-sandbox to grade anyway."
        )
    if missing:
        message = "WEAK SANDBOX (--allow-weak-sandbox): grading without " + "; ".join(missing)
        warnings.warn(message, RuntimeWarning, stacklevel=2)
        print(message, file=sys.stderr)
    return caps


def describe_capabilities(caps: dict | None = None) -> str:
    """A human-readable report for `autograder sandbox-check`."""
    caps = caps if caps is not None else capabilities()
    yes = {True: "yes", False: "NO"}
    lines = [
        f"platform          {caps['platform']} {caps['kernel']}{' (running as root)' if caps['root'] else ''}",
        f"Landlock          ABI {caps['landlock_abi']}"
        + ("" if caps["landlock_abi"] else "  (absent: file access is not limited)"),
        f"  files           {yes[caps['landlock_fs']]}  read-only Python env, read-write private folder only",
        f"  TCP             {yes[caps['landlock_tcp']]}  bind/connect denied (ABI >= 4)",
        f"  signals/sockets {yes[caps['landlock_signal_scope']]}  no signal or abstract socket leaves the sandbox (ABI >= 6)",
        f"namespaces        {yes[caps['namespaces']]}  own network (empty), pid (kill-all) and, unprivileged, user namespace",
        f"private uid       {yes[caps['private_uid']]}  each worker its own uid (only when the grader runs as root)",
        f"process limit     {yes[caps['process_limit']]}  RLIMIT_NPROC counted per sandbox",
        f"rlimits           {yes[caps['rlimits']]}  CPU time, address space, file size, no core dumps",
        f"bubblewrap        {yes[caps['bwrap']]}  zygote without network, course folder or home directory",
        f"memory cgroup     {yes[caps['memory_cgroup']]}  one limit for all of a notebook's processes and scratch files, one per judge"
        + ("" if caps["memory_cgroup"] else "  (only the per-process address-space limit holds)"),
        f"GPU devices       {', '.join(caps['gpu_devices']) or 'none'}",
    ]
    missing = missing_mechanisms(caps)
    if missing:
        lines.append("MISSING: " + "; ".join(missing))
        lines.append("`autograder grade` refuses to run; --allow-weak-sandbox grades anyway with a warning.")
    else:
        lines.append("All confinement layers are active.")
    return "\n".join(lines)
