"""The grader's own writes on a full disk or out of descriptors: that notebook fails with one line, the batch finishes.

The full disk is real: a small tmpfs mounted in a user and mount namespace of its own (`unshare`),
which this process reaches through `/proc/PID/root`; the course's `autograded/` or its gradebook is a
link into it. Descriptors run out for real too, in a child whose open files reach RLIMIT_NOFILE.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autograder import commands
from autograder.grades import gradebook
from tests.conftest import ROOT
from tests.autograder.coordinator.test_grader import FULL, LESSON, TINY, edit_cell, make_course, notebooks, submit

pytestmark = pytest.mark.slow


@contextlib.contextmanager
def small_disk(mount_point: Path, size: str):
    """A tmpfs of `size` on `mount_point`, seen from here at the path this yields."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare(1) to mount a small filesystem")
    mount_point.mkdir(parents=True)
    holder = subprocess.Popen(
        [
            "unshare",
            "-Urm",
            "sh",
            "-c",
            f"mount -t tmpfs -o size={size} tmpfs '{mount_point}' && echo ready && exec sleep 3600",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        if holder.stdout.readline().strip() != "ready":
            pytest.skip(f"cannot mount a tmpfs in a user namespace here: {holder.stderr.read().strip()}")
        yield Path(f"/proc/{holder.pid}/root{mount_point}")
    finally:
        holder.kill()
        holder.wait()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    course = make_course(tmp_path_factory.mktemp("disk") / "course", {LESSON: TINY})
    source, release = notebooks(course, LESSON)
    return course, source, release


def fresh_copy(tiny, tmp_path: Path) -> Path:
    course = tmp_path / "course"
    shutil.copytree(tiny[0], course)
    return course


def loud(nb, cells: tuple[str, ...]):
    """`nb` with each answer in `cells` printing 900 KB first (under the per-cell and per-notebook caps)."""
    bodies = {"add": "return a + b", "mul": "return a * b", "twice": "return t * 2"}
    for name in cells:
        args = "t" if name == "twice" else "a, b"
        nb = edit_cell(nb, name, f"print('x' * 900_000)\ndef {name}({args}):\n    {bodies[name]}")
    return nb


def test_an_autograded_notebook_or_feedback_page_that_does_not_fit_fails_alone(tiny, tmp_path, capsys):
    """`autograded/` on a 2 MiB disk: a-loud's 2.7 MB notebook cannot fit, b-loud's 1.8 MB one can
    (one worker, graded in order); then `feedback/` on a 1.5 MiB disk, where b-loud's page cannot."""
    course = fresh_copy(tiny, tmp_path)
    _, source, release = tiny
    from autograder.authoring import samples

    full = samples.answered(source, release, keep=None)
    submit(course, "a-loud", LESSON, loud(full, ("add", "mul", "twice")))
    submit(course, "b-loud", LESSON, loud(full, ("add", "mul")))
    for student in ("bea", "cyd"):
        submit(course, student, LESSON, full)
    submit(course, "dot", LESSON, release)
    with small_disk(tmp_path / "disk", "2m") as disk, small_disk(tmp_path / "pages", "1536k") as pages:
        (course / "autograded").symlink_to(disk, target_is_directory=True)
        (course / "feedback").symlink_to(pages, target_is_directory=True)
        results = commands.grade(course, progress=False, workers=1)
        leftovers = sorted(str(p.relative_to(disk)) for p in disk.rglob("*") if p.is_file() and p.name.startswith("."))
        graded = sorted(p.parent.parent.name for p in disk.glob(f"*/{LESSON}/{LESSON}.ipynb"))
        capsys.readouterr()
        commands.feedback(course, assignments=[LESSON])
        printed = capsys.readouterr().out
        with_pages = sorted(p.parent.parent.name for p in pages.glob(f"*/{LESSON}/{LESSON}.html"))
    reason = results[("a-loud", LESSON)]
    assert reason.startswith("the grader could not write the autograded notebook: [Errno 28]"), reason
    assert "\n" not in reason
    assert {k: v for k, v in results.items() if k[0] != "a-loud"} == {
        (s, LESSON): "ok" for s in ("b-loud", "bea", "cyd", "dot")
    }
    table = gradebook.score_table(course)
    assert table[(LESSON, "b-loud")] == table[(LESSON, "bea")] == table[(LESSON, "cyd")] == FULL
    assert table[(LESSON, "dot")] == {k: 0.0 for k in FULL}
    assert graded == ["b-loud", "bea", "cyd", "dot"]
    assert leftovers == []  # the failed write left no temporary file holding the space
    assert with_pages == ["bea", "cyd", "dot"]
    assert f"feedback not written b-loud/{LESSON}: " in printed and "No space left on device" in printed, printed


FULL_GRADEBOOK = textwrap.dedent("""
    import contextlib, json, sys
    from pathlib import Path
    from autograder import commands
    from autograder.grades import gradebook

    course, disk, released = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    (disk / "gradebook.db").write_bytes(released.read_bytes())
    gradebook.ensure_schema(course)
    filler = disk / "filler"
    with open(filler, "wb") as handle, contextlib.suppress(OSError):
        while True:
            handle.write(b"\\0" * (64 << 10))
            handle.flush()
    full = commands.grade(course, progress=False, workers=1)
    graded = sorted(p.parent.name for p in (course / "autograded").glob("*/*"))
    filler.unlink()
    again = commands.grade(course, progress=False, workers=1)
    table = gradebook.score_table(course)
    print(json.dumps({"full": {s: r for (s, _), r in full.items()}, "graded": graded,
                      "again": {s: r for (s, _), r in again.items()}, "table": {s: t for (_, s), t in table.items()}}))
""")


def test_a_full_gradebook_disk_fails_each_submission_with_a_reason_and_a_rerun_records_them(tiny, tmp_path):
    """Graded once (records kept), then recorded again into a gradebook on a full disk, then once it has room.

    SQLite resolves `/proc/PID/root` to this namespace's path, so this part runs inside the namespace
    that holds the small disk; it grades nothing itself (every notebook's record is reused), so it
    needs no sandbox there.
    """
    if shutil.which("unshare") is None:
        pytest.skip("no unshare(1) to mount a small filesystem")
    course = fresh_copy(tiny, tmp_path)
    _, source, release = tiny
    from autograder.authoring import samples

    submit(course, "bea", LESSON, samples.answered(source, release, keep=None))
    submit(course, "dot", LESSON, release)
    disk = tmp_path / "disk"
    disk.mkdir()
    released = tmp_path / "released.db"  # the gradebook as release left it: the assignment, no student yet
    shutil.copy(course / "gradebook.db", released)
    shutil.copy(released, disk / "gradebook.db")
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as handle:
        handle.write(f"\nc.CourseDirectory.db_url = 'sqlite:///{disk}/gradebook.db'\n")
    assert commands.grade(course, progress=False, workers=1) == {("bea", LESSON): "ok", ("dot", LESSON): "ok"}
    shutil.rmtree(course / "autograded")
    script = f"mount -t tmpfs -o size=4m tmpfs '{disk}' && exec '{sys.executable}' -c \"$0\" '{course}' '{disk}' '{released}'"
    proc = subprocess.run(
        ["unshare", "-Urm", "sh", "-c", script, FULL_GRADEBOOK], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    if "mount" in proc.stderr and proc.returncode != 0 and not proc.stdout:
        pytest.skip(f"cannot mount a tmpfs in a user namespace here: {proc.stderr.strip()[-300:]}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    for student in ("bea", "dot"):
        reason = out["full"][student]
        assert reason.startswith("the grader could not record this submission in the gradebook: "), reason
        assert "full" in reason and "\n" not in reason
    assert out["graded"] == []  # no autograded notebook without its gradebook entry
    assert out["again"] == {"bea": "ok", "dot": "ok"}
    assert out["table"] == {"bea": FULL, "dot": {k: 0.0 for k in FULL}}


EXHAUST = textwrap.dedent("""
    import errno, json, os, resource, sys, threading, time
    from pathlib import Path
    from autograder.grades import records

    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    held = []
    def exhaust():
        try:
            while True:
                held.append(os.open("/dev/null", os.O_RDONLY))
        except OSError as exc:
            assert exc.errno == errno.EMFILE
    def release():
        while held:
            os.close(held.pop())
    target = Path(sys.argv[1])
    out = {}
    exhaust()
    threading.Timer(0.1, release).start()
    records.retrying(records.write_atomic, target / "record.json", "kept")
    out["after_a_pause"] = (target / "record.json").read_text()
    exhaust()
    try:
        records.retrying(records.write_atomic, target / "never.json", "lost")
        out["while_held"] = "written"
    except OSError as exc:
        out["while_held"] = exc.errno == errno.EMFILE
    release()
    out["left"] = sorted(p.name for p in target.iterdir())
    print(json.dumps(out))
""")


def test_a_record_write_out_of_descriptors_is_tried_again_and_then_fails(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", EXHAUST, str(tmp_path)], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == {"after_a_pause": "kept", "while_held": True, "left": ["record.json"]}
