"""The harm corpus: one hostile notebook per finding, graded in one batch with honest classmates.

Each case aims at the batch rather than at its own score: it fills the scratch space, holds memory in
many processes, hands in large files, floods its outputs, leaves many files behind, makes the judge
allocate what it never sent, or reads the grader's environment. The classmates graded alongside must
get exactly the scores they get in a run without the hostile notebooks (`CONTROLS`, which
`test_adversarial` checks the same way), no planted secret may appear in any output, record or
feedback, and the grader's resident memory must stay under the bounds docs/security.md states.
"""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

import pytest

from autograder import commands
from autograder.grades import gradebook
from autograder.sandbox import capabilities
from tests.adversarial import harness
from tests.adversarial.cases import CONTROLS, LESSON, Base, Case, after, full, nb_file

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        bool(capabilities.missing_mechanisms()),
        reason="this machine lacks confinement: " + "; ".join(capabilities.missing_mechanisms()),
    ),
]

TOKEN = "FAKE_TOKEN_" + uuid.uuid4().hex
# Tighter than the defaults, so each hoard reaches its limit quickly.
BATCH_LIMITS = """
c.Autograder.memory_limit_mb = 512
c.Autograder.scratch_mb = 64
c.Autograder.scratch_files = 5000
c.Autograder.max_handed_in_files = 5
c.Autograder.max_handed_in_mb = 8
c.Autograder.max_notebook_output_mb = 1
c.Autograder.max_autograded_mb = 4
"""
# Peak resident memory of the coordinator (this test process) and of any one judge, in MB.
COORDINATOR_MB = 2048
JUDGE_MB = 2048

FILL_SCRATCH = """\
import os, time
try:
    with open("fill.bin", "wb") as _f:
        while True:
            _f.write(b"x" * (1 << 20))
except OSError as _exc:
    print("scratch full:", _exc.errno)
"""

MANY_PROCESSES = """\
import os, time
_kids = []
for _ in range(6):
    _pid = os.fork()
    if _pid == 0:
        _block = bytearray(200 * 1024 * 1024)
        for _i in range(0, len(_block), 4096):
            _block[_i] = 1
        time.sleep(30)
        os._exit(0)
    _kids.append(_pid)
time.sleep(20)
"""

MANY_FILES = """\
import os
os.makedirs("litter", exist_ok=True)
try:
    for _i in range(100000):
        open(f"litter/{_i}", "w").close()
except OSError as _exc:
    print("inodes out:", _exc.errno)
"""

FLOOD_OUTPUT = "print('x' * 300000)\n"

READ_ENVIRONMENT = """\
import os
print(dict(os.environ))
print(open("/proc/self/environ", "rb").read())
print(open("/proc/1/environ", "rb").read() if os.path.exists("/proc/1/environ") else "")
"""

OFFSET_CLAIM = """\
import torch
try:
    import autograder.wire.values as _w
    _orig = _w.Encoder._tensor
    def _claim(self, value, depth):
        node = _orig(self, value, depth)
        if node is not None and node.get("buf") is not None:
            node["offset"] = 2 ** 28 - 1
        return node
    _w.Encoder._tensor = _claim
except Exception as _exc:
    print("no patch:", type(_exc).__name__)
"""


def _with(code: str, *, cells: int = 1, files: dict[str, bytes] | None = None):
    def build(ctx, base: Base) -> dict[str, object]:
        nb = base.honest
        for _ in range(cells):
            nb = after(nb, "tensor_rank", code)
        return {**nb_file(nb), **(files or {})}

    return build


BATCH_CASES = [
    Case("fill-scratch", "fills its scratch folder", _with(FILL_SCRATCH), full()),
    Case("many-processes", "six processes of 200 MB each", _with(MANY_PROCESSES), full()),
    Case(
        "big-files",
        "three 6 MB files and six small ones beside the notebook",
        _with(
            "pass\n",
            files={**{f"big{i}.bin": b"\0" * (6 << 20) for i in range(3)}, **{f"s{i}.txt": b"s" for i in range(6)}},
        ),
        full(),
    ),
    Case("flood-output", "12 cells printing past the per-cell cap", _with(FLOOD_OUTPUT, cells=12), full()),
    Case("many-files", "leaves thousands of empty files", _with(MANY_FILES), full()),
    Case("read-environment", "prints the grader's environment", _with(READ_ENVIRONMENT), full()),
    Case("offset-claim", "claims tensor storage it never sent", _with(OFFSET_CLAIM), None),
]
HONEST_WITH_FILE = "cora"


class Peaks:
    """Samples the resident memory of this process (the coordinator) and of its judge workers."""

    def __init__(self) -> None:
        self.coordinator = 0
        self.judge = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @staticmethod
    def _rss(pid: int | str) -> int:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0

    def _run(self) -> None:
        import os

        me = os.getpid()
        while not self._stop.wait(0.05):
            self.coordinator = max(self.coordinator, self._rss(me))
            try:
                kids = Path(f"/proc/{me}/task/{me}/children").read_text().split()
            except OSError:
                kids = []
            for kid in kids:
                try:
                    cmd = Path(f"/proc/{kid}/cmdline").read_bytes()
                except OSError:
                    continue
                if b"bwrap" in cmd or b"autograder.child.zygote" in cmd:
                    continue
                self.judge = max(self.judge, self._rss(kid))

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    root = tmp_path_factory.mktemp("harm")
    course, ctx = harness.prepare(root)
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as handle:
        handle.write(BATCH_LIMITS)
    harness.write_class(course, ctx, cases=BATCH_CASES)
    honest = (course / "submitted" / "ada" / LESSON / f"{LESSON}.ipynb").read_bytes()
    (course / "submitted" / HONEST_WITH_FILE / LESSON).mkdir(parents=True)
    (course / "submitted" / HONEST_WITH_FILE / LESSON / f"{LESSON}.ipynb").write_bytes(honest)
    (course / "submitted" / HONEST_WITH_FILE / LESSON / "notes.txt").write_text("my notes\n")
    peaks = Peaks()
    marker = uuid.uuid4().hex
    try:
        with harness.environment(FAKE_TOKEN=TOKEN, ADVERSARIAL_RUN=marker):
            stats: dict = {}
            results = commands.grade(course, assignments=[LESSON], progress=False, workers=2, stats=stats)
            left = harness.marked_processes(marker)
            commands.feedback(course, assignments=[LESSON])
    finally:
        peaks.close()
    yield {
        "course": course,
        "results": results,
        "table": gradebook.score_table(course),
        "stats": stats,
        "peaks": peaks,
        "left": left,
    }


@pytest.mark.parametrize("student", sorted(CONTROLS) + [HONEST_WITH_FILE])
def test_classmates_get_the_scores_of_a_run_without_the_hostile_notebooks(batch, student):
    expected = CONTROLS.get(student, full())
    assert batch["table"][(LESSON, student)] == expected
    assert batch["results"][(student, LESSON)] == "ok"


@pytest.mark.parametrize("case", [c for c in BATCH_CASES if c.expected is not None], ids=lambda c: c.name)
def test_the_hostile_notebook_costs_only_itself(batch, case):
    assert batch["table"][(LESSON, case.name)] == case.expected, batch["results"][(case.name, LESSON)]


def test_every_notebook_of_the_batch_finished(batch):
    assert set(batch["results"]) == {(c.name, LESSON) for c in BATCH_CASES} | {
        (s, LESSON) for s in [*CONTROLS, HONEST_WITH_FILE]
    }


def test_the_planted_token_appears_in_no_output_record_or_feedback(batch):
    course = batch["course"]
    found = []
    for folder in ("autograded", "feedback", ".autograder"):
        for path in (course / folder).rglob("*"):
            if path.is_file() and TOKEN.encode() in path.read_bytes():
                found.append(str(path.relative_to(course)))
    assert found == []
    env_out = (course / "autograded" / "read-environment" / LESSON / f"{LESSON}.ipynb").read_text()
    assert "PATH" in env_out  # the case ran and printed an environment: the check above could have failed


def test_limits_are_reported_in_the_summary_and_the_feedback(batch):
    course = batch["course"]
    limits = batch["stats"]["limits"]
    assert any("max_handed_in" in n for n in limits[f"big-files/{LESSON}/{LESSON}"])
    assert any("max_notebook_output_mb" in n for n in limits[f"flood-output/{LESSON}/{LESSON}"])
    feedback = next((course / "feedback" / "flood-output" / LESSON).glob("*.html")).read_text()
    assert "max_notebook_output_mb" in feedback
    autograded = course / "autograded" / "flood-output" / LESSON / f"{LESSON}.ipynb"
    assert autograded.stat().st_size < 4 * 1024 * 1024
    assert not (course / "autograded" / "big-files" / LESSON / "s4.txt").exists()


def test_memory_over_the_limit_fails_that_cell_with_a_message_naming_it(batch):
    text = (batch["course"] / "autograded" / "many-processes" / LESSON / f"{LESSON}.ipynb").read_text()
    if capabilities.capabilities().get("memory_cgroup"):
        assert "memory_limit_mb" in text


def test_the_grader_stays_under_its_memory_bounds(batch):
    assert batch["peaks"].coordinator < COORDINATOR_MB << 20
    assert batch["peaks"].judge < JUDGE_MB << 20


def test_no_process_of_the_run_is_left(batch):
    assert batch["left"] == []
