"""The folder a judge's fork grades a notebook in: the files handed to it, and nothing the judge imports."""

from __future__ import annotations

import base64
import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

FILES = {
    "data.txt": b"one\ntwo\n",
    "sub/more.txt": b"three",
    "colorsys.py": b"raise SystemExit('the judge imported a handed-in module')",  # a module no judge has imported
    "../escaped.txt": b"outside",
}

CHILD = """
import json, os, sys
from pathlib import Path
sys.path.insert(0, "")  # as `python -c` starts, and an interactive session
from autograder.judge import pool
job = json.loads(sys.argv[1])
before = os.getcwd()
folder = pool._notebook_folder(job, under=Path(sys.argv[2]))
import colorsys
print(json.dumps({
    "cwd": os.getcwd() == folder != before,
    "data": open("data.txt").read(),
    "more": open("sub/more.txt").read(),
    "colorsys": colorsys.__file__,
    "escaped": os.path.exists(os.path.join(folder, "..", "escaped.txt")),
}))
"""


@pytest.mark.process
def test_the_fork_works_beside_the_notebooks_files_and_imports_none_of_them(tmp_path):
    (tmp_path / "scratch").mkdir()
    job = {"extra_files": [{"to": name, "data": base64.b64encode(data).decode()} for name, data in FILES.items()]}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(job), str(tmp_path / "scratch")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["cwd"] and seen["data"] == "one\ntwo\n" and seen["more"] == "three"
    assert seen["colorsys"].startswith(sys.base_prefix) or "/lib/python" in seen["colorsys"], seen["colorsys"]
    assert not seen["escaped"], "a name with .. was written outside the folder"
