"""The guard in a child: tampering reported as it happens, frames it did not seal rejected, honest code unseen."""

from __future__ import annotations

import os

import pytest

from autograder.wire import seal
from tests.support.children import GuardedChild
from tests.conftest import ROOT


def _frame(key: bytes, payload: bytes, *, mac: bytes | None = None) -> tuple[dict, list[bytes]]:
    return {"sealed": True}, [payload, mac if mac is not None else seal.mac(key, [payload])]


def test_open_frame_accepts_only_its_own_key():
    key = os.urandom(32)
    payload, data = seal.open_frame(*_frame(key, b'{"n": 1, "kind": "done"}'), key)
    assert payload == {"n": 1, "kind": "done"} and data == []
    with pytest.raises(seal.TamperDetected, match="forged seal"):
        seal.open_frame(*_frame(key, b'{"n": 1, "kind": "done"}', mac=bytes(32)), key)
    with pytest.raises(seal.TamperDetected, match="forged seal"):
        seal.open_frame(*_frame(os.urandom(32), b'{"n": 1, "kind": "done"}'), key)
    with pytest.raises(seal.TamperDetected, match="did not come from"):
        seal.open_frame({"sealed": False}, [b"{}", bytes(32)], key)


class Child(GuardedChild):
    """A guarded child that runs cells and reports what the guard saw."""

    def cell(self, source: str) -> list[str]:
        return self.run(source)[1]

    def run(self, source: str) -> tuple[dict, list[str]]:
        return self.run_cell(source)


@pytest.fixture(scope="module")
def child():
    c = Child()
    yield c
    c.close()


@pytest.mark.process
@pytest.mark.parametrize(
    "source, seen",
    [
        ("import sys\nsys.settrace(lambda *a: None)\nsys.settrace(None)", "sys.settrace"),
        ("import sys\nsys.setprofile(lambda *a: None)\nsys.setprofile(None)", "sys.setprofile"),
        ("import gc\nlen(gc.get_objects())", "gc.get_objects"),
        ("import ctypes\nctypes.string_at(id(1), 8)", "ctypes"),
        ("open('/proc/self/mem', 'rb').close()", "raw memory"),
        ("import autograder.child.guard as g\ng._ENTRY['run_probe'].__defaults__", "the grader's own function"),
        (
            "import course.checks as c\nc.fail.__code__ = (lambda m: None).__code__",
            "replaced __code__ of course.checks.fail",
        ),
        ("compile('x = 1', __import__('torch').__file__, 'exec')", "under the name of an installed file"),
    ],
)
def test_tampering_is_reported_as_it_happens(child, source, seen):
    events = child.cell(source)
    assert any(seen in e for e in events), events


@pytest.mark.process
def test_a_frame_the_notebook_forges_is_rejected(child):
    events = child.cell(
        "import os, struct\n"
        'body = b\'{"n": 99, "kind": "done", "req": 1}\'\n'
        'header = b\'{"sealed":true,"b":[%d,32]}\' % len(body)\n'
        "frame = struct.pack('>2sHI', b'AG', 1, len(header)) + header + body + bytes(32)\n"
        "for fd in os.listdir('/proc/self/fd'):\n"
        "    try:\n"
        "        if int(fd) > 2:\n"
        "            os.write(int(fd), frame)\n"
        "    except OSError:\n"
        "        pass\n"
    )
    assert any("forged seal" in e for e in events), events


@pytest.mark.process
def test_the_guard_cannot_be_made_to_send_for_the_notebook(child):
    reply, events = child.run(
        "import autograder.child.guard as g\nsend = g._ENTRY['keep'][0][0]\nsend({'kind': 'evidence'}, [])"
    )
    assert reply["status"] == "error" and reply["ename"] == "TamperDetected", reply
    assert events == []


@pytest.mark.process
def test_an_error_inside_the_library_is_not_tampering(child):
    """IPython renders tracebacks by compiling library files under their own names: that is not impersonation."""
    reply, events = child.run(
        "import torch\ntorch.nn.functional.cross_entropy(torch.zeros(2, 3), torch.zeros(3, dtype=torch.long))"
    )
    assert reply["status"] == "error" and events == [], (reply, events)


@pytest.mark.process
def test_honest_lesson_code_is_not_reported():
    import nbformat

    from autograder.authoring.samples import _strip_regions

    c = Child()
    try:
        for lesson in ("01_tensors", "04_numpy", "06_autograd"):
            nb = nbformat.read(ROOT / "source" / lesson / f"{lesson}.ipynb", as_version=4)
            for cell in nb.cells:
                meta = cell.get("metadata", {}).get("nbgrader", {})
                if cell.cell_type != "code" or (meta.get("grade") and not meta.get("solution")):
                    continue
                assert c.cell(_strip_regions(cell.source)) == [], cell.source[:200]
    finally:
        c.close()


C_DRIVEN_LOOP = """
import collections
import torch

def c_loop(x):
    out = torch.zeros(())
    collections.deque(map(out.add_, x), maxlen=0)
    return out

def pops_the_count(x):
    torch._C._pop_torch_dispatch_stack(None)
    return x.sum()
"""

COUNT_BOTH = """
import torch
from course.probes.loops import count_python_lines
small = count_python_lines({name}, torch.ones(50))
large = count_python_lines({name}, torch.ones(400))
assert large[1] == small[1] and large[2] - small[2] == 350, (small[1:], large[1:])
assert float(large[0]) == 400.0
"""


@pytest.mark.process
def test_operations_are_counted_where_no_line_of_the_notebook_runs(child):
    """A loop driven from C (map over a tensor's elements) runs no notebook line, but one operation each."""
    from autograder.judge.verdict import run_test

    assert child.run(C_DRIVEN_LOOP)[0]["status"] == "ok"
    verdict = run_test(COUNT_BOTH.format(name="c_loop"), child.conn)
    assert verdict.passed and not verdict.tampering, (verdict.ename, verdict.evalue)


@pytest.mark.process
def test_removing_the_count_of_operations_is_reported(child):
    from autograder.judge.verdict import run_test

    assert child.run(C_DRIVEN_LOOP)[0]["status"] == "ok"
    verdict = run_test(COUNT_BOTH.format(name="pops_the_count"), child.conn)
    assert not verdict.passed and any("count of operations" in t for t in verdict.tampering), verdict.tampering


HONEST_LIBRARY_USE = """
import copy, io
import numpy as np
import torch
from torch import nn

model = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.Dropout(0.5), nn.Linear(3, 2))
model.register_forward_hook(lambda module, args, out: None)
for opt in (torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9), torch.optim.Adam(model.parameters())):
    scheduler = torch.optim.lr_scheduler.StepLR(opt, 1)
    opt.zero_grad()
    model(torch.randn(5, 4)).sum().backward()
    opt.step()
    scheduler.step()
x = torch.ones(3, requires_grad=True)
x.register_hook(lambda g: g * 2)
(x * 2).sum().backward()
torch.save(copy.deepcopy(model).state_dict(), io.BytesIO())
torch.manual_seed(0); np.random.seed(0); torch.set_printoptions(precision=3); np.set_printoptions(precision=3)
torch.distributions.Normal(0, 1).sample(); np.testing.assert_allclose(1.0, 1.0)

def total(x):
    return x.sum()
"""

COUNT_TOTAL = """
import torch
from course.probes.loops import count_python_lines
assert float(count_python_lines(total, torch.ones(5))[0]) == 5.0
"""

LIBRARY_PATCHES = [
    ("torch.full_like = lambda t, v, **kw: torch.zeros_like(t)", "torch.full_like was replaced"),
    ("torch.nn.Module.train = lambda self, mode=True: self", "torch.nn.modules.module.Module.train was replaced"),
    ("np.shares_memory = lambda *a, **k: False", "numpy.shares_memory was replaced"),
    ("torch.Tensor.add_ = lambda self, other: self", "torch.Tensor.add_ was added"),
    ("torch.nn.functional.len = lambda x: 0", "torch.nn.functional.len was added"),
    ("del torch.utils.hooks.RemovableHandle.next_id", "torch.utils.hooks.RemovableHandle.next_id was removed"),
]


@pytest.mark.process
def test_pytorch_and_numpy_behaviour_must_stay_as_loaded():
    """Setting a class or module attribute raises no audit event: before each piece of evidence the guard
    looks PyTorch's and NumPy's functions, classes and modules up again. Their state (hook counters,
    print options, seeds, pickling caches, submodules imported on first use) may change; honest use of
    them is not reported, and each patch is, by name."""
    from autograder.judge.verdict import run_test

    c = Child()
    try:
        assert c.run(HONEST_LIBRARY_USE)[0]["status"] == "ok"
        verdict = run_test(COUNT_TOTAL, c.conn)
        assert verdict.passed and not verdict.tampering, (verdict.ename, verdict.evalue)
        for patch, seen in LIBRARY_PATCHES:
            assert c.run(patch)[0]["status"] == "ok", patch
            verdict = run_test(COUNT_TOTAL, c.conn)
            assert not verdict.passed and any(seen in t for t in verdict.tampering), (patch, verdict.tampering)
    finally:
        c.close()


WATCHED_PREDICT = """
import torch

def predict(model, x):
    if torch._C._autograd._top_saved_tensors_default_hooks(True) is not None:
        with torch.no_grad():
            return model(x)
    return model(x).detach()
"""

PREDICT_RECORDS_A_GRAPH = """
import torch
from course.probes.autograd import predict_probe
report = predict_probe(predict, 0, 3, 2, torch.ones(4, 3))
assert report["graph_recorded"], report
"""


@pytest.mark.process
def test_the_saved_tensor_witness_does_not_show_on_the_hook_stack(child):
    """A function that records no graph only while the grader's hook is on top is judged as it is elsewhere."""
    from autograder.judge.verdict import run_test

    assert child.run(WATCHED_PREDICT)[0]["status"] == "ok"
    verdict = run_test(PREDICT_RECORDS_A_GRAPH, child.conn)
    assert verdict.passed and not verdict.tampering, (verdict.ename, verdict.evalue, verdict.tampering)


@pytest.mark.process
@pytest.mark.parametrize(
    "patch, seen",
    [
        ("import course.probes as p\np.len = lambda x: 0", "course.probes gained or lost names"),
        ("import autograder.child as a\na.isinstance = lambda *a: True", "autograder.child gained or lost names"),
        ("import course.checks as c\nc.len = lambda x: 0", "course.checks gained or lost names"),
    ],
)
def test_a_new_name_in_the_course_or_grader_packages_is_reported(patch, seen):
    """A package may gain its submodules as they are imported; any other new name could shadow a builtin."""
    _assert_flagged_after("import course.probes, course.checks, autograder.child\n", patch, seen)


def _assert_flagged_after(imports: str, change: str, seen: str) -> None:
    """In a fresh child, a probe passes after honest library use, and is refused, saying `seen`, after `change`."""
    from autograder.judge.verdict import run_test

    c = Child()
    try:
        assert c.run(imports + HONEST_LIBRARY_USE)[0]["status"] == "ok"
        assert run_test(COUNT_TOTAL, c.conn).passed
        assert c.run(change)[0]["status"] == "ok", change
        verdict = run_test(COUNT_TOTAL, c.conn)
        assert not verdict.passed and any(seen in t for t in verdict.tampering), (change, verdict.tampering)
    finally:
        c.close()


@pytest.mark.process
@pytest.mark.parametrize(
    "later, seen",
    [
        ("import signal\nsignal.setitimer(signal.ITIMER_REAL, 60)", "the notebook's code set a timer"),
        ("import signal\nsignal.setitimer(signal.ITIMER_VIRTUAL, 60)", "the notebook's code set a timer"),
        ("import signal\nsignal.signal(signal.SIGUSR1, lambda *a: None)", "changed a signal's handler"),
        ("import gc\ngc.callbacks.append(lambda phase, info: None)", "changed gc's callbacks"),
    ],
    ids=["real timer", "virtual timer", "signal handler", "gc callback"],
)
def test_nothing_of_the_notebook_is_left_to_run_after_the_evidence(later, seen):
    """A timer, a signal handler or a gc callback could change an input once the evidence has been taken."""
    _assert_flagged_after("", later, seen)
