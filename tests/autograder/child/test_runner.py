"""The child's runner: `Recorder` keeps a cell's outputs in nbformat shape (streams of one name merged, display,
result and error outputs, `clear`) and stops at its cap with one truncation note; `Server`, in a real guarded
child on a socket, answers every request as the judge expects (cells, lookups, attributes, calls, indexing,
length, truth, iteration, probes, arming, files, releasing handles), answers a bad request with an error and
keeps serving, and stops on `exit` or when its channel closes."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import torch

from autograder.child.runner import TRUNCATED, NoInput, Recorder, Stream
from autograder.wire import values
from autograder.wire.ops import ChildOp
from tests.support.children import GuardedChild

NAMESPACE = '''
import sys
import torch


class Box:
    """Every protocol a test may use on a notebook's object."""

    def __init__(self):
        self.items = [1, 2, 3]
        self.weight = torch.arange(3.0)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]

    def __iter__(self):
        return iter(self.items)

    def __bool__(self):
        return False

    def scale(self, k, *, offset=0):
        return [x * k + offset for x in self.items]


box = Box()
numbers = (n for n in range(3))
answer = {"rows": [1, 2], "name": "ok"}


def shout(word):
    print("said", word)
    print("careful", file=sys.stderr)
    return word.upper()


def same(a, b):
    return a is b


def in_place(t):
    t.add_(1)
    return t
'''


# ---------------------------------------------------------------- Recorder


def stdout_text(recorder: Recorder) -> str:
    return "".join(o["text"] for o in recorder.outputs if o["output_type"] == "stream" and o["name"] == "stdout")


def test_streams_of_one_name_merge_and_a_new_name_starts_an_output():
    recorder = Recorder(100)
    for name, text in [("stdout", "a"), ("stdout", "b"), ("stderr", "c"), ("stderr", ""), ("stdout", "d")]:
        recorder.stream(name, text)
    assert recorder.outputs == [
        {"output_type": "stream", "name": "stdout", "text": "ab"},
        {"output_type": "stream", "name": "stderr", "text": "c"},
        {"output_type": "stream", "name": "stdout", "text": "d"},
    ]


def test_text_that_fills_the_cap_exactly_is_kept_whole():
    recorder = Recorder(10)
    recorder.stream("stdout", "0123456789")
    assert recorder.outputs == [{"output_type": "stream", "name": "stdout", "text": "0123456789"}]
    assert not recorder.truncated


def test_the_cap_cuts_the_text_and_says_so_once():
    """Past the cap nothing more is kept, however many writes follow: the note is written once, where the text
    was cut. (A note per later write would let a printing loop grow the output without bound.)"""
    recorder = Recorder(10)
    recorder.stream("stdout", "abcdefgh")
    recorder.stream("stdout", "ijklmn")
    for _ in range(100):
        recorder.stream("stdout", "op")
    recorder.stream("stderr", "qr")
    assert recorder.truncated
    assert recorder.outputs == [{"output_type": "stream", "name": "stdout", "text": "abcdefghij" + TRUNCATED}]


def test_display_and_result_keep_only_plain_data_in_nbformat_shape():
    recorder = Recorder(1000)
    data = {"text/plain": "t", "application/json": {"a": [1]}, "image/png": "iVBO", 5: "key", "bad": object()}
    metadata = {"isolated": True, "width": 3, "ratio": 0.5, "opaque": object(), 7: "key"}
    recorder.display(data, metadata)
    recorder.result({"text/plain": "42"}, None, 7)
    assert recorder.outputs == [
        {
            "output_type": "display_data",
            "data": {"text/plain": "t", "application/json": {"a": [1]}, "image/png": "iVBO"},
            "metadata": {"isolated": True, "width": 3, "ratio": 0.5},
        },
        {"output_type": "execute_result", "data": {"text/plain": "42"}, "metadata": {}, "execution_count": 7},
    ]


def test_displays_count_against_the_cap():
    recorder = Recorder(10)
    recorder.display({"text/plain": "123456"}, {})
    recorder.stream("stdout", "abcdef")
    assert [o["output_type"] for o in recorder.outputs] == ["display_data", "stream"]
    assert recorder.outputs[1]["text"] == "abcd" + TRUNCATED


def test_a_display_over_the_cap_is_dropped_with_the_note():
    """A figure that does not fit is left out, and the reader is told that output is missing."""
    recorder = Recorder(10)
    recorder.stream("stdout", "abc")
    recorder.display({"text/plain": "x" * 20}, {})
    recorder.result({"text/plain": "y" * 20}, {}, 1)
    assert [o["output_type"] for o in recorder.outputs] == ["stream"]
    assert stdout_text(recorder).count(TRUNCATED) == 1 and stdout_text(recorder).startswith("abc")


def test_an_error_is_kept_cut_to_its_limits_even_past_the_cap():
    """The student must see why a cell failed, even after its output filled the cap."""
    recorder = Recorder(5)
    recorder.stream("stdout", "123456")
    recorder.error("E" * 300, "v" * 5000, ["line"] * 150 + ["L" * 5000] * 150)
    error = recorder.outputs[-1]
    assert error["output_type"] == "error" and set(error) == {"output_type", "ename", "evalue", "traceback"}
    assert error["ename"] == "E" * 200 and error["evalue"] == "v" * 4000
    assert len(error["traceback"]) == 200 and error["traceback"][149] == "line"
    assert error["traceback"][150] == "L" * 4000


def test_clear_empties_the_outputs_and_gives_back_the_room():
    recorder = Recorder(10)
    recorder.stream("stdout", "abcdefgh")
    recorder.display({"text/plain": "x"}, {})
    recorder.clear()
    assert recorder.outputs == []
    recorder.stream("stdout", "0123456789")
    assert recorder.outputs == [{"output_type": "stream", "name": "stdout", "text": "0123456789"}]


def test_a_stream_writes_to_whichever_recorder_is_current():
    """The server gives each cell a fresh Recorder; sys.stdout stays the same Stream object."""
    recorders = [Recorder(100)]
    stream = Stream(lambda: recorders[-1], "stderr")
    assert stream.write("one") == 3
    recorders.append(Recorder(100))
    print("two", file=stream)
    assert recorders[0].outputs == [{"output_type": "stream", "name": "stderr", "text": "one"}]
    assert recorders[1].outputs == [{"output_type": "stream", "name": "stderr", "text": "two\n"}]
    with pytest.raises(TypeError):
        stream.write(b"bytes")
    assert not stream.isatty()


def test_no_input_refuses_to_read():
    with pytest.raises(OSError, match="no input"):
        NoInput().readline()
    with pytest.raises(OSError, match="no input"):
        NoInput().read()


# ---------------------------------------------------------------- Server, in a real child


class Child(GuardedChild):
    """A guarded child (armed) working in `folder`, with NAMESPACE defined, spoken to in raw requests."""

    def __init__(self, folder: Path):
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        super().__init__()
        assert self.cell(f"import os\nos.chdir({str(folder)!r})\n{NAMESPACE}")["status"] == "ok"

    def ask(self, op: str, buffers: list[bytes] = (), **fields) -> dict:
        """The reply to one request, with its value decoded (handles stay `values.Handle`)."""
        self.deadline = time.monotonic() + 60
        self.channel.send({"op": op, **fields}, list(buffers))
        reply, data, sealed = self.conn.recv(self.deadline)
        assert not sealed and self.conn.take_events() == [], reply
        if "value" in reply:
            reply["value"] = values.Decoder(data, lambda handle: handle).decode(reply["value"])
        return reply

    def value(self, op: str, **fields):
        reply = self.ask(op, **fields)
        assert "value" in reply, reply
        return reply["value"]

    def error(self, op: str, buffers: list[bytes] = (), **fields) -> dict:
        reply = self.ask(op, buffers, **fields)
        assert set(reply) >= {"error", "out", "err", "seconds"} and "value" not in reply, reply
        return reply["error"]

    def handle(self, name: str) -> values.Handle:
        handle = self.value(ChildOp.LOOKUP, name=name)
        assert isinstance(handle, values.Handle), handle
        return handle

    def cell(self, source: str) -> dict:
        reply, events = self.run_cell(source)
        assert events == [], events
        return reply

    def serving(self) -> bool:
        """Whether the server still answers: the check after every bad request."""
        return self.value(ChildOp.LOOKUP, name="answer") == {"rows": [1, 2], "name": "ok"}


def args(*positional, **keywords) -> tuple[dict, list[bytes]]:
    """The `args`/`kwargs` fields of a call and its buffers, as the judge encodes them (handles pass as they are)."""
    encoder = values.Encoder(lambda handle: handle)
    fields = {
        "args": [encoder.encode(a) for a in positional],
        "kwargs": {k: encoder.encode(v) for k, v in keywords.items()},
    }
    return fields, encoder.buffers


@pytest.fixture(scope="module")
def child(tmp_path_factory):
    c = Child(tmp_path_factory.mktemp("runner") / "work")
    yield c
    c.close()


@pytest.fixture
def fresh_child(tmp_path):
    c = Child(tmp_path / "work")
    yield c
    c.close()


@pytest.mark.process
def test_a_cell_runs_and_its_outputs_come_back_in_order(child):
    reply = child.cell(
        "print('to stdout')\nimport sys\nprint('to stderr', file=sys.stderr)\n"
        "from IPython.display import display\ndisplay('shown')\n6 * 7"
    )
    assert reply["status"] == "ok" and type(reply["seconds"]) is float
    result = reply["outputs"][3]
    assert reply["outputs"][:3] == [
        {"output_type": "stream", "name": "stdout", "text": "to stdout\n"},
        {"output_type": "stream", "name": "stderr", "text": "to stderr\n"},
        {"output_type": "display_data", "data": {"text/plain": "'shown'"}, "metadata": {}},
    ]
    assert len(reply["outputs"]) == 4 and result["output_type"] == "execute_result"
    assert (result["data"], result["metadata"], type(result["execution_count"])) == ({"text/plain": "42"}, {}, int)
    assert child.cell("x_counted = 1")["count"] == reply["count"] + 1


@pytest.mark.process
def test_a_result_carries_its_cells_count(child):
    """Out[n] belongs to In[n], as in a kernel: the result's execution_count is the count the reply gives the cell."""
    first, second = child.cell("'first'"), child.cell("'second'")
    assert second["count"] == first["count"] + 1
    for reply in (first, second):
        assert reply["outputs"][0]["execution_count"] == reply["count"], reply


@pytest.mark.process
def test_a_failing_cell_reports_its_error_after_what_it_printed(child):
    reply = child.cell("print('before')\n1 / 0")
    assert (reply["status"], reply["ename"], reply["evalue"]) == ("error", "ZeroDivisionError", "division by zero")
    assert reply["outputs"][0] == {"output_type": "stream", "name": "stdout", "text": "before\n"}
    error = reply["outputs"][1]
    assert error["output_type"] == "error" and error["ename"] == "ZeroDivisionError"
    assert any("1 / 0" in line for line in error["traceback"])


@pytest.mark.process
def test_a_cell_that_does_not_compile_is_an_error(child):
    reply = child.cell("def broken(:\n    pass")
    assert (reply["status"], reply["ename"]) == ("error", "SyntaxError")


@pytest.mark.process
def test_a_cell_gets_no_input(child):
    reply = child.cell("input('your name? ')")
    assert (reply["status"], reply["ename"]) == ("error", "OSError") and "no input" in reply["evalue"]


@pytest.mark.process
def test_a_cell_that_prints_past_the_cap_comes_back_truncated_once(child):
    """The child's cap is 64 KiB: a loop printing far more must come back cut, with one note."""
    reply = child.cell("for i in range(2000):\n    print('y' * 99)")
    assert reply["status"] == "ok", reply.get("evalue")
    text = "".join(o["text"] for o in reply["outputs"] if o.get("name") == "stdout")
    assert text.count(TRUNCATED) == 1 and text.endswith(TRUNCATED)
    assert len(text) == 64 * 1024 + len(TRUNCATED)


@pytest.mark.process
def test_a_bad_cell_request_is_an_error_and_the_server_goes_on(child):
    reply = child.ask(ChildOp.CELL, source=["print(1)"])
    assert reply == {"status": "error", "ename": "WireError", "evalue": "bad cell", "outputs": []}
    assert child.serving()


@pytest.mark.process
def test_lookup_gives_data_a_handle_or_missing(child):
    assert child.value(ChildOp.LOOKUP, name="answer") == {"rows": [1, 2], "name": "ok"}
    handle = child.handle("box")
    assert handle.type_name == "__main__.Box"
    reply = child.ask(ChildOp.LOOKUP, name="never_defined")
    assert reply["missing"] is True and "value" not in reply


@pytest.mark.process
@pytest.mark.parametrize("name", ["not a name", "box.items", "1box", "", 5, None])
def test_a_bad_name_is_refused(child, name):
    assert child.error(ChildOp.LOOKUP, name=name) == {"type": "WireError", "msg": "bad name"}
    assert child.error(ChildOp.GETATTR, id=child.handle("box").id, name=name)["msg"] == "bad attribute name"
    assert child.serving()


@pytest.mark.process
def test_getattr_gives_the_attribute(child):
    box = child.handle("box")
    assert child.value(ChildOp.GETATTR, id=box.id, name="items") == [1, 2, 3]
    weight = child.value(ChildOp.GETATTR, id=box.id, name="weight")
    assert type(weight) is torch.Tensor and torch.equal(weight, torch.arange(3.0))
    assert child.error(ChildOp.GETATTR, id=box.id, name="absent")["type"] == "AttributeError"


@pytest.mark.process
def test_call_passes_arguments_and_keywords_and_catches_prints(child):
    scale = child.value(ChildOp.GETATTR, id=child.handle("box").id, name="scale")
    fields, buffers = args(2, offset=1)
    assert child.ask(ChildOp.CALL, buffers, id=scale.id, **fields)["value"] == [3, 5, 7]
    fields, buffers = args("hi")
    reply = child.ask(ChildOp.CALL, buffers, id=child.handle("shout").id, **fields)
    assert (reply["value"], reply["out"], reply["err"]) == ("HI", "said hi\n", "careful\n")


@pytest.mark.process
def test_a_handle_passed_back_is_the_childs_own_object(child):
    box = child.handle("box")
    fields, buffers = args(box, child.handle("box"))
    assert child.ask(ChildOp.CALL, buffers, id=child.handle("same").id, **fields)["value"] is True


@pytest.mark.process
def test_a_call_that_raises_answers_its_exception_type(child):
    fields, buffers = args(5)
    error = child.error(ChildOp.CALL, buffers, id=child.handle("shout").id, **fields)
    assert error == {"type": "AttributeError", "msg": "'int' object has no attribute 'upper'"}


@pytest.mark.process
@pytest.mark.parametrize("fields", [{"args": "x"}, {"args": [], "kwargs": []}, {"args": [], "kwargs": {"k": 1}}])
def test_malformed_call_arguments_are_refused(child, fields):
    assert child.error(ChildOp.CALL, id=child.handle("shout").id, **fields)["type"] == "WireError"
    assert child.serving()


@pytest.mark.process
def test_getitem_len_and_bool_run_in_the_child(child):
    box = child.handle("box")
    key, buffers = values.encode(1)
    assert child.ask(ChildOp.GETITEM, buffers, id=box.id, key=key)["value"] == 2
    key, buffers = values.encode(10)
    assert child.error(ChildOp.GETITEM, buffers, id=box.id, key=key)["type"] == "IndexError"
    assert child.value(ChildOp.LEN, id=box.id) == 3
    assert child.value(ChildOp.BOOL, id=box.id) is False


@pytest.mark.process
def test_iter_then_next_until_stop(child):
    iterator = child.value(ChildOp.ITER, id=child.handle("box").id)
    assert isinstance(iterator, values.Handle)
    assert [child.value(ChildOp.NEXT, id=iterator.id) for _ in range(3)] == [1, 2, 3]
    reply = child.ask(ChildOp.NEXT, id=iterator.id)
    assert reply["stop"] is True and "value" not in reply


@pytest.mark.process
def test_next_only_on_an_iterator_the_server_made(child):
    """A generator of the notebook is an iterator too, but `next` serves only what `iter` handed out."""
    for name in ("numbers", "box"):
        error = child.error(ChildOp.NEXT, id=child.handle(name).id)
        assert error == {"type": "WireError", "msg": "next on something that is not an iterator"}
    assert child.serving()


@pytest.mark.process
@pytest.mark.parametrize("hid", [None, "1", 1.0, True, 10**9])
def test_a_bad_handle_id_is_refused(child, hid):
    fields = {} if hid is None else {"id": hid}
    for op in (ChildOp.LEN, ChildOp.BOOL, ChildOp.ITER, ChildOp.NEXT, ChildOp.GETATTR, ChildOp.CALL):
        error = child.error(op, name="items", args=[], kwargs={}, **fields)
        assert error["type"] == "WireError" and error["msg"] in ("bad handle id", f"unknown handle {hid}"), error
    assert child.serving()


@pytest.mark.process
@pytest.mark.parametrize("op", ["bogus", "Cell", "ChildOp.CELL", "", None])
def test_an_unknown_request_is_refused(child, op):
    assert child.error(op) == {"type": "WireError", "msg": f"unknown request {op!r}"}
    assert child.serving()


@pytest.mark.process
def test_release_drops_only_the_handles_named(child):
    kept, dropped = child.handle("box"), child.handle("box")
    assert child.value(ChildOp.RELEASE, ids=[dropped.id, "junk", None, 10**9]) is None
    assert child.error(ChildOp.LEN, id=dropped.id) == {"type": "WireError", "msg": f"unknown handle {dropped.id}"}
    assert child.value(ChildOp.LEN, id=kept.id) == 3


@pytest.mark.process
def test_the_guard_is_armed_once_with_a_well_formed_key(child):
    """The child was armed when it started: a second key (the notebook's, say) is refused."""
    assert child.error(ChildOp.ARM, key="ab" * 31) == {"type": "WireError", "msg": "bad key"}
    assert child.error(ChildOp.ARM, key=5) == {"type": "WireError", "msg": "bad key"}
    assert child.error(ChildOp.ARM, key="ab" * 32)["msg"] == "the guard is armed already"
    assert child.serving()


@pytest.mark.process
def test_a_probe_runs_next_to_the_notebooks_function(child):
    from course.probes.core import call_watching_inputs

    child.deadline = time.monotonic() + 60
    evidence = child.conn.probe(call_watching_inputs.name, "in_place", (torch.zeros(2),), {})
    result, changed = call_watching_inputs.read(evidence, None, torch.zeros(2))
    assert changed == ["arg 0"] and torch.equal(result, torch.ones(2))
    with pytest.raises(NameError, match="not_in_the_notebook"):
        child.conn.probe(call_watching_inputs.name, "not_in_the_notebook", (1,), {})
    with pytest.raises(LookupError, match="no such probe"):
        child.conn.probe("course.probes.core:no_such_probe", "in_place", (1,), {})
    assert child.conn.take_events() == [] and child.serving()


@pytest.mark.process
def test_files_are_written_into_the_working_folder(child):
    reply = child.ask(ChildOp.FILES, [b"1,2\n", b"\x00\x01"], names=["data.csv", "deep/er/weights.bin"])
    assert reply["value"] is None, reply
    assert (child.folder / "data.csv").read_bytes() == b"1,2\n"
    assert (child.folder / "deep/er/weights.bin").read_bytes() == b"\x00\x01"
    assert child.cell("print(open('data.csv').read().strip())")["outputs"][0]["text"] == "1,2\n"


@pytest.mark.process
@pytest.mark.parametrize(
    "names, count",
    [
        ("a.txt", 1),
        (["a.txt"], 2),
        (["a.txt", "b.txt"], 1),
        (["{parent}/outside.txt"], 1),
        (["../outside.txt"], 1),
        (["sub/../../outside.txt"], 1),
        ([""], 1),
        ([5], 1),
        (["."], 1),
        (["escape/outside.txt"], 1),
    ],
)
def test_a_bad_file_list_is_refused_and_nothing_lands_outside(child, names, count):
    """`escape` is a link to the folder above: a name through it resolves outside the working folder."""
    escape = child.folder / "escape"
    if not escape.is_symlink():
        escape.symlink_to(child.folder.parent, target_is_directory=True)
    if isinstance(names, list):
        names = [n.format(parent=child.folder.parent) if isinstance(n, str) else n for n in names]
    error = child.error(ChildOp.FILES, [b"data"] * count, names=names)
    assert error["type"] == "WireError" and error["msg"].startswith(("bad file list", "bad file name")), error
    assert not (child.folder.parent / "outside.txt").exists()
    assert child.serving()


@pytest.mark.process
def test_exit_stops_the_server(fresh_child):
    fresh_child.channel.send({"op": ChildOp.EXIT})
    assert fresh_child.proc.wait(timeout=60) == 0
    with pytest.raises(ConnectionError):
        fresh_child.channel.recv(deadline=time.monotonic() + 60)


@pytest.mark.process
def test_a_closed_channel_stops_the_server(fresh_child):
    """A child whose judge went away has nobody to serve: it ends rather than linger."""
    fresh_child.channel.close()
    assert fresh_child.proc.wait(timeout=60) == 0
