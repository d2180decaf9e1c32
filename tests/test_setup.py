"""scripts/setup on a new machine of this project's kind: apt must accept what setup asks it for.

Machines of this kind come with Node.js from NodeSource, whose `nodejs` conflicts with Debian's `npm`;
a request naming `npm` there is refused whole and nothing gets installed. `apt-get -s` simulates the
request without changing the machine.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def system_packages():
    spec = importlib.util.spec_from_file_location("system_packages", ROOT / "scripts" / "system_packages.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def simulate(packages: list[str]) -> subprocess.CompletedProcess:
    cmd = ["apt-get", "-s", "install", "--no-install-recommends", *packages]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if "Unable to locate package" in proc.stdout + proc.stderr and os.geteuid() == 0:
        subprocess.run(["apt-get", "update", "-qq"], check=True, capture_output=True)
        proc = subprocess.run(cmd, capture_output=True, text=True)
    return proc


needs_apt = pytest.mark.skipif(shutil.which("apt-get") is None, reason="no apt-get: not a Debian machine")


@pytest.mark.process
@needs_apt
def test_apt_accepts_the_request_setup_makes_on_a_bare_machine():
    request = system_packages().apt_request(bare=True)
    assert "bubblewrap" in request and "chromium" in request
    proc = simulate(request)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Conflicts" not in proc.stdout


@pytest.mark.process
@needs_apt
def test_debian_npm_is_never_asked_for_beside_an_installed_node():
    if shutil.which("node") is None:
        pytest.skip("no Node.js here: setup then asks for Debian's nodejs and npm, which is right")
    request = system_packages().apt_request(bare=True)
    assert "npm" not in request and "nodejs" not in request
    nodesource = (
        "nodesource"
        in subprocess.run(["dpkg-query", "-W", "-f=${Version}", "nodejs"], capture_output=True, text=True).stdout
    )
    if nodesource:
        # the request setup used to make: apt refuses it, which is what the check above guards against
        refused = simulate(request + ["nodejs", "npm"])
        assert refused.returncode != 0 or "Conflicts" in refused.stdout + refused.stderr


def test_setup_reads_the_one_package_list():
    setup = (ROOT / "scripts" / "setup").read_text()
    assert "scripts/system_packages.py" in setup
    assert "apt-get install" in setup and "bubblewrap" not in setup.split("system_packages.py", 1)[1]
