"""The system packages the course needs beyond Python, in one place for scripts/setup and its test.

Each part lists the Debian packages that provide it, how to tell it is already there, and what is
lost without it. Node.js is special: machines of this project's kind come with Node.js from
NodeSource, whose `nodejs` package ships its own npm and conflicts with Debian's `npm`, so Debian's
`nodejs`/`npm` are asked for only when there is no Node.js at all.

    python3 scripts/system_packages.py request          packages to ask apt for on this machine
    python3 scripts/system_packages.py request --bare   the same for a new machine of this kind
    python3 scripts/system_packages.py parts            one line per missing part: name, packages
    python3 scripts/system_packages.py missing          what is still missing, and what that costs

Runs on any Python 3.8+ with the standard library only: setup calls it before any venv exists.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Callable, List


def _command(name: str) -> Callable[[], bool]:
    return lambda: shutil.which(name) is not None


def _postgres() -> bool:
    return bool(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))


def _system_venv() -> bool:
    """The hub environment is built from Debian's python3, which needs ensurepip and venv."""
    if not os.access("/usr/bin/python3", os.X_OK):
        return False
    return (
        subprocess.run(
            ["/usr/bin/python3", "-c", "import ensurepip, venv"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        ).returncode
        == 0
    )


@dataclass(frozen=True)
class Part:
    name: str
    packages: List[str]
    present: Callable[[], bool]
    cost: str


PARTS = [
    Part(
        "bubblewrap",
        ["bubblewrap"],
        _command("bwrap"),
        "the sandbox has no bubblewrap layer: `autograder grade` refuses without --allow-weak-sandbox "
        "and the sandbox tests fail",
    ),
    Part(
        "chromium",
        ["chromium", "fonts-dejavu-core", "fonts-liberation"],
        _command("chromium"),
        "the browser tests and the hub round trip fail",
    ),
    Part("postgresql", ["postgresql"], _postgres, "the cluster tests (a PostgreSQL gradebook) fail"),
    Part("openssl", ["openssl"], _command("openssl"), "the cluster tests cannot make their TLS certificates and fail"),
    Part(
        "python3-venv",
        ["python3", "python3-venv"],
        _system_venv,
        "the course's JupyterHub environment cannot be built and the hub round trip fails",
    ),
    Part(
        "nodejs",
        ["nodejs", "npm"],
        _command("node"),
        "configurable-http-proxy cannot be installed: the course's JupyterHub and its test fail",
    ),
]


def missing_parts(*, bare: bool = False) -> List[Part]:
    """Parts to install; on a bare machine of this kind only the Node.js the machine came with is kept."""
    out = []
    for part in PARTS:
        if part.name == "nodejs":
            if not _command("node")():
                out.append(part)
        elif bare or not part.present():
            out.append(part)
    return out


def apt_request(*, bare: bool = False) -> List[str]:
    return [pkg for part in missing_parts(bare=bare) for pkg in part.packages]


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    req = sub.add_parser("request", help="the packages to ask apt for, on one line")
    req.add_argument("--bare", action="store_true", help="as on a new machine of this kind")
    sub.add_parser("parts", help="each missing part and its packages, a line each")
    sub.add_parser("missing", help="what is still missing, and what that costs")
    args = parser.parse_args(argv)
    if args.what == "request":
        print(" ".join(apt_request(bare=args.bare)))
    elif args.what == "parts":
        for part in missing_parts():
            print(part.name, " ".join(part.packages))
    else:
        for part in missing_parts():
            print(f"setup: {part.name} is not installed: {part.cost}")
        if _command("node")() and not _command("npm")():
            print(
                "setup: Node.js has no npm beside it (Debian's npm conflicts with NodeSource's nodejs): "
                + PARTS[-1].cost
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
