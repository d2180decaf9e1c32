"""How long the exchange service takes to receive a submission, measured on this machine.

    python benchmarks/exchange_upload.py [--mb 1.0] [--repeat 10]

Starts a real JupyterHub with the exchange service on 127.0.0.1 (the hub of the exchange's tests,
tests/course_exchange/hub.py), releases an assignment, and submits a folder holding one notebook of
--mb megabytes (10^6 bytes) --repeat times as a student, through nbgrader's Submit class as the
Assignments tab calls it. Prints, for each submission, the time from the start of the upload to the
server's answer (the server has then checked the archive, hashed it, written it to disk with fsync and
recorded it), and the median and the slowest. Everything it starts is stopped at the end.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook, new_output

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from course_exchange.client import Client  # noqa: E402
from tests.course_exchange.conftest import Course, write_release  # noqa: E402
from tests.course_exchange.hub import COURSE, ExchangeHub  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--mb", type=float, default=1.0, help="size of the submitted notebook, in MB (10^6 bytes) [1.0]"
    )
    parser.add_argument("--repeat", type=int, default=10, help="how many submissions to time [10]")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="exchange-bench-") as top:
        top = Path(top)
        (top / "hub").mkdir()
        hub = ExchangeHub(top / "hub")
        try:
            token = hub.server_token("ada")
            course = Course(top / "course", "bench", hub.url)
            write_release(course.root, "bench")
            course.run("ReleaseAssignment", hub.grader_token)
            home = course.home("ada")
            course.run("FetchAssignment", token, home=home)
            notebook = new_notebook(cells=[new_code_cell("x = 1")])
            notebook.cells[0].outputs = [new_output("stream", name="stdout", text="")]
            padding = int(args.mb * 1_000_000) - len(nbformat.writes(notebook).encode())
            notebook.cells[0].outputs[0]["text"] = "y" * max(padding, 0)
            path = home / "bench" / "bench.ipynb"
            times = []
            for attempt in range(args.repeat):
                # Each submission's bytes differ, so each is a new blob written to disk.
                notebook.cells[0].source = f"x = {attempt:06d}"
                nbformat.write(notebook, path)
                size = path.stat().st_size
                started = time.perf_counter()
                reply = course.run("Submit", token, home=home)
                times.append(time.perf_counter() - started)
                print(
                    f"{reply['size'] / 1e6:.3f} MB received in {times[-1]:.3f} s (submission {reply['id']}, at {reply['timestamp']})"
                )
            kept = Client(url=hub.url, token=token, course=COURSE).submissions("bench")
            assert (
                len(kept) == args.repeat
                and len({s["sha256"] for s in kept}) == args.repeat
                and all(s["size"] >= size for s in kept)
            )
            print(
                f"notebook of {size / 1e6:.3f} MB, {args.repeat} submissions: median {statistics.median(times):.3f} s, "
                f"slowest {max(times):.3f} s (packing, upload, server check, hash, fsync, record, reply)"
            )
        finally:
            hub.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
