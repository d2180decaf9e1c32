"""Time from submit to feedback with grading on receipt, N students submitting at once, on this machine.

    python benchmarks/submit_feedback.py [--students 8] [--workers 2] [--lesson 01_tensors]

Starts a real JupyterHub with the exchange service on 127.0.0.1 (the hub of the exchange's tests,
tests/course_exchange/hub.py) with N student accounts, a copy of the course with --lesson graded on
receipt, and the grader (`python -m course_exchange.receipt`, --workers judges). One warm-up
submission is graded first, so the judges' start-up is reported apart. Then N threads, one per
student with that student's own hub token, each hand in the lesson (every other student with all
answers right, the rest with every item wrong) at the same moment, and poll their own submissions
until the feedback is there. Prints the median and p95 of submit-to-feedback-available, the
throughput (submissions per second from the first submit to the last feedback) and the sizes.
Everything it starts is stopped at the end.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from autograder import commands  # noqa: E402
from autograder.authoring import corpus, samples  # noqa: E402
from course_exchange import archive  # noqa: E402
from course_exchange.client import Client  # noqa: E402
from tests.conftest import ROOT, copy_course  # noqa: E402
from tests.course_exchange.conftest import Course  # noqa: E402
from tests.course_exchange.hub import COURSE, ExchangeHub, ReceiptGrader  # noqa: E402

POLL_S = 0.1


def answers(lesson: str) -> tuple[nbformat.NotebookNode, nbformat.NotebookNode]:
    wrong = next(s for s in corpus.students(ROOT, lesson) if s.name == "wrong-0").notebook
    source = nbformat.read(ROOT / "source" / lesson / f"{lesson}.ipynb", as_version=4)
    release = nbformat.read(ROOT / "release" / lesson / f"{lesson}.ipynb", as_version=4)
    return wrong, samples.answered(source, release, keep=None)


def submit_and_wait(client: Client, lesson: str, data: bytes, timeout: float) -> float:
    """Seconds from the start of the upload to the moment the student's feedback can be fetched."""
    started = time.perf_counter()
    reply = client.submit(lesson, data)
    while time.perf_counter() - started < timeout:
        if any(s["id"] == reply["id"] and s["feedback"] for s in client.submissions(lesson)):
            return time.perf_counter() - started
        time.sleep(POLL_S)
    raise TimeoutError(f"no feedback for submission {reply['id']} within {timeout:.0f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=8, help="students submitting at once [8]")
    parser.add_argument("--workers", type=int, default=2, help="judges of the grader [2]")
    parser.add_argument("--lesson", default="01_tensors", help="the lesson handed in [01_tensors]")
    parser.add_argument(
        "--timeout", type=float, default=900.0, help="give up on a submission after this many seconds [900]"
    )
    args = parser.parse_args()
    students = tuple(f"student{i:03d}" for i in range(args.students))
    lesson = args.lesson
    with tempfile.TemporaryDirectory(prefix="feedback-bench-") as top:
        top = Path(top)
        (top / "hub").mkdir()
        hub = ExchangeHub(top / "hub", students=students)
        grader = None
        try:
            root = copy_course(top / "course")
            on_receipt = {lesson: {"attempts": 0}}
            with open(root / "nbgrader_config.py", "a", encoding="utf-8") as fh:
                fh.write(f"\nc.AssignmentPolicy.on_receipt = {on_receipt!r}\n")
            assert commands.release(root, assignments=[lesson], progress=False) == []
            course = Course(root, lesson, hub.url)
            course.run("ReleaseAssignment", hub.grader_token, AssignmentPolicy__on_receipt=on_receipt)
            token_file = top / "grader-token"
            token_file.write_text(hub.grader_token)
            token_file.chmod(0o600)
            started = time.perf_counter()
            grader = ReceiptGrader(root, hub.url, token_file, top / "receipt.log", workers=args.workers)
            wrong, right = answers(lesson)
            packed = {}
            for kind, notebook in (("wrong", wrong), ("right", right)):
                folder = top / kind / lesson
                folder.mkdir(parents=True)
                nbformat.write(notebook, folder / f"{lesson}.ipynb")
                packed[kind] = archive.pack(folder)
            clients = [Client(url=hub.url, token=hub.server_token(name), course=COURSE) for name in students]
            warm = submit_and_wait(clients[0], lesson, packed["right"], args.timeout)
            print(
                f"warm-up: first feedback {warm:.1f} s after submitting, {time.perf_counter() - started:.1f} s after the grader started "
                "(scratch course, zygote and judges start once)"
            )

            times: list[float] = [0.0] * len(clients)
            errors: list[str] = []
            gate = threading.Barrier(len(clients))

            def one(index: int) -> None:
                gate.wait()
                try:
                    times[index] = submit_and_wait(
                        clients[index], lesson, packed["right" if index % 2 == 0 else "wrong"], args.timeout
                    )
                except Exception as exc:  # reported below; the other students carry on
                    errors.append(f"{students[index]}: {exc}")

            threads = [threading.Thread(target=one, args=(i,)) for i in range(len(clients))]
            burst = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            wall = time.perf_counter() - burst
            if errors:
                print("\n".join(errors))
                return 1
            ordered = sorted(times)
            p95 = ordered[math.ceil(0.95 * len(ordered)) - 1]  # nearest rank
            size = len(packed["right"])
            print(
                f"{args.students} student{'s' if args.students != 1 else ''} at once, lesson {lesson} ({size / 1e3:.0f} kB zipped), grader with {args.workers} judge(s): "
                f"submit-to-feedback median {statistics.median(times):.1f} s, p95 {p95:.1f} s, slowest {ordered[-1]:.1f} s; "
                f"throughput {len(times) / wall:.2f} submissions/s ({wall:.1f} s for all)"
            )
        finally:
            if grader is not None:
                grader.stop()
            hub.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
