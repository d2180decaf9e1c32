"""The attacks of the exchange issue, tried as a student would, on nbgrader's default exchange and on ours.

Each attack has two tests. The one marked `default_exchange_attack` documents that the attack
succeeds on nbgrader's filesystem exchange (it asserts the damage); the other shows that the same
aim fails on the exchange service.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook
from traitlets.config import Config

from course_exchange.client import Client, RequestRefused
from course_exchange.policy import parse_time, stamp
from tests.course_exchange.conftest import write_release
from tests.course_exchange.hub import COURSE, OUTSIDER

ASSIGNMENT = "ps1"
FORGED_TIME = "2099-01-01 00:00:00.000000 UTC"
EARLY_TIME = "2000-01-01 00:00:00.000000 UTC"


def client(course, token: str | None) -> Client:
    return Client(url=course.url, token=token or "", course=COURSE)


def refused(call, *args, **kwargs) -> RequestRefused:
    with pytest.raises(RequestRefused) as caught:
        call(*args, **kwargs)
    return caught.value


def collected(course_root: Path, student: str, assignment: str) -> tuple[str, str]:
    """(the collected notebook's only cell, the collected timestamp)."""
    folder = course_root / "submitted" / student / assignment
    notebook = nbformat.read(folder / f"{assignment}.ipynb", as_version=4)
    return notebook.cells[0].source, (folder / "timestamp.txt").read_text().strip()


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        for name, data in files.items():
            out.writestr(name, data)
    return buffer.getvalue()


def notebook_bytes(text: str) -> bytes:
    return nbformat.writes(new_notebook(cells=[new_code_cell(text)])).encode()


# ---------------------------------------------------------------- nbgrader's default exchange


@pytest.fixture
def default_exchange(tmp_path):
    """nbgrader's filesystem exchange with ps1 released and ada's honest submission in it."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange import ExchangeFactory

    root = tmp_path / "course"
    write_release(root, ASSIGNMENT)
    exchange = tmp_path / "exchange"
    exchange.mkdir()

    def run(action: str, *, home: Path | None = None, student: str = "*", **options):
        config = Config()
        config.Exchange.root = str(exchange)
        config.Exchange.assignment_dir = str(home or root)
        config.Exchange.cache = str((home or root) / ".cache")
        config.CourseDirectory.root = str(root)
        config.CourseDirectory.course_id = COURSE
        config.CourseDirectory.assignment_id = ASSIGNMENT
        config.CourseDirectory.student_id = student
        for name, value in options.items():
            setattr(getattr(config, f"Exchange{action}"), name, value)
        app = getattr(ExchangeFactory(config=config), action)(
            coursedir=CourseDirectory(config=config), authenticator=Authenticator(config=config), config=config
        )
        return app.start()

    run("ReleaseAssignment")
    ada = tmp_path / "home" / "ada"
    ada.mkdir(parents=True)
    run("FetchAssignment", home=ada)
    path = ada / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    notebook = nbformat.read(path, as_version=4)
    notebook.cells[0].source = "ada's real work"
    nbformat.write(notebook, path)
    run("Submit", home=ada, student="ada")
    return root, exchange / COURSE / "inbound", run


def forge(inbound: Path, student: str, when: str, text: str) -> Path:
    """What a student can do with the shared folder: make a submission folder with any name in it."""
    folder = inbound / f"{student}+{ASSIGNMENT}+{when}+x"
    folder.mkdir()
    (folder / f"{ASSIGNMENT}.ipynb").write_bytes(notebook_bytes(text))
    (folder / "timestamp.txt").write_text(when)
    return folder


@pytest.mark.default_exchange_attack
def test_default_exchange_collects_a_forged_submission_as_the_classmates(default_exchange):
    root, inbound, run = default_exchange
    forge(inbound, "ada", FORGED_TIME, "ben's blank notebook")
    run("Collect", update=True)
    text, when = collected(root, "ada", ASSIGNMENT)
    assert text == "ben's blank notebook", "the forged folder was not collected"
    assert when == FORGED_TIME
    assert "ada's real work" not in text, "ada's real work is gone from submitted/"


@pytest.mark.default_exchange_attack
def test_default_exchange_takes_the_time_from_the_folder_name(default_exchange):
    root, inbound, run = default_exchange
    forge(inbound, "ben", EARLY_TIME, "ben's late work, dated early")
    run("Collect", update=True)
    assert collected(root, "ben", ASSIGNMENT) == ("ben's late work, dated early", EARLY_TIME)


@pytest.mark.default_exchange_attack
def test_default_exchange_lets_a_newer_forgery_replace_a_collected_submission(default_exchange):
    root, inbound, run = default_exchange
    run("Collect", update=True)
    assert collected(root, "ada", ASSIGNMENT)[0] == "ada's real work"
    forge(inbound, "ada", FORGED_TIME, "")
    run("Collect", update=True)
    assert collected(root, "ada", ASSIGNMENT)[0] == "", "the forgery replaced ada's collected submission"


# ---------------------------------------------------------------- the exchange service


def submit_as(course, tokens, student: str, text: str, **extra_files) -> dict:
    home = course.home(student)
    if not (home / course.assignment).is_dir():
        course.run("FetchAssignment", tokens[student], home=home)
    course.answer(home, text)
    for name, content in extra_files.items():
        (home / course.assignment / name).write_text(content)
    return course.run("Submit", tokens[student], home=home)


@pytest.mark.process
def test_a_student_cannot_submit_as_a_classmate(course, tokens):
    submit_as(course, tokens, "ada", "ada's real work")
    ben = client(course, tokens["ben"])
    forged = zipped({f"{course.assignment}.ipynb": notebook_bytes("ben's blank notebook")})
    answer = refused(ben.request, "POST", f"/submissions/{course.assignment}", body=forged, query={"student": "ada"})
    assert answer.status == 403 and "nobody may submit as someone else" in answer.message
    # Whatever ben sends without naming anyone is his own: the name comes from his token.
    reply = ben.submit(course.assignment, forged)
    assert reply["student"] == "ben"
    course.run("Collect", tokens["grader"])
    assert collected(course.root, "ada", course.assignment)[0] == "ada's real work"
    assert collected(course.root, "ben", course.assignment)[0] == "ben's blank notebook"


@pytest.mark.process
def test_a_student_cannot_choose_the_receipt_time(course, tokens):
    past = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=2)).isoformat()
    course.run(
        "ReleaseAssignment",
        tokens["grader"],
        ExchangeReleaseAssignment__force=True,
        AssignmentPolicy__due={course.assignment: past},
    )
    # A time in the request is not read.
    raw = client(course, tokens["ben"]).request(
        "POST",
        f"/submissions/{course.assignment}",
        body=zipped({"a.ipynb": b"{}"}),
        query={"timestamp": EARLY_TIME},
        headers={"X-Timestamp": EARLY_TIME},
    )
    assert '"late_seconds": null' not in raw[0].decode()
    # Nor is a timestamp.txt in the folder.
    before = dt.datetime.now(dt.timezone.utc)
    reply = submit_as(course, tokens, "ben", "ben's late work", **{"timestamp.txt": EARLY_TIME})
    after = dt.datetime.now(dt.timezone.utc)
    received = parse_time(reply["received_at"])
    assert before - dt.timedelta(seconds=1) <= received <= after + dt.timedelta(seconds=1), (
        "the receipt time is not the server's"
    )
    assert reply["late_seconds"] > 7000 and "late" in reply["message"]
    course.run("Collect", tokens["grader"])
    text, when = collected(course.root, "ben", course.assignment)
    assert text == "ben's late work"
    assert when == reply["timestamp"] != EARLY_TIME, "the student's timestamp.txt was collected"


@pytest.mark.process
def test_a_late_submission_is_refused_when_the_course_says_so(course, tokens):
    past = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=5)).isoformat()
    course.run(
        "ReleaseAssignment",
        tokens["grader"],
        ExchangeReleaseAssignment__force=True,
        AssignmentPolicy__due={course.assignment: past},
        AssignmentPolicy__late="refuse",
        AssignmentPolicy__extensions={
            course.assignment: {"ada": (dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=1)).isoformat()}
        },
    )
    from nbgrader.exchange import ExchangeError

    with pytest.raises(ExchangeError, match="refuses late submissions. Nothing was stored"):
        submit_as(course, tokens, "ben", "too late", **{"timestamp.txt": EARLY_TIME})
    assert client(course, tokens["ben"]).submissions(course.assignment) == []
    # ada's extension, from the server's clock, lets her in.
    assert submit_as(course, tokens, "ada", "on time thanks to an extension")["late_seconds"] is None


@pytest.mark.process
def test_a_student_cannot_overwrite_or_delete_a_submission(course, tokens, exchange_hub):
    first = submit_as(course, tokens, "ada", "ada's real work")
    ben = client(course, tokens["ben"])
    path = f"/submissions/{course.assignment}/{first['id']}"
    for method in ("DELETE", "PUT", "POST"):
        answer = refused(ben.request, method, path, body=b"" if method != "DELETE" else None)
        assert answer.status in (404, 405), (method, answer.status)
    # Not even ada herself can remove or replace it; a resubmission is a new record.
    ada = client(course, tokens["ada"])
    assert refused(ada.request, "DELETE", path).status == 405
    second = submit_as(course, tokens, "ada", "ada's second try")
    kept = ada.submissions(course.assignment)
    assert [s["id"] for s in kept] == [first["id"], second["id"]]
    assert kept[0]["sha256"] == first["sha256"] != second["sha256"]
    data = ada.fetch_submission(course.assignment, first["id"])
    assert hashlib.sha256(data).hexdigest() == first["sha256"]
    assert "ada's real work" in data.decode(errors="replace")
    # ben's submissions, however many and whatever they hold, are his.
    for _ in range(3):
        ben.submit(course.assignment, zipped({f"{course.assignment}.ipynb": notebook_bytes("")}))
    assert {s["student"] for s in client(course, tokens["grader"]).submissions(course.assignment)} == {"ada", "ben"}
    assert [s["id"] for s in ada.submissions(course.assignment)] == [first["id"], second["id"]]


FORBIDDEN = {
    # name: (method, path template, body): what ben may not do to ada's work or to the course
    "list ada's submissions": ("GET", "/submissions/{a}?student=ada", None),
    "fetch ada's submission": ("GET", "/submissions/{a}/{ada}", None),
    "fetch ada's feedback": ("GET", "/feedback/{a}/{ada}", None),
    "collect": ("GET", "/collect/{a}", None),
    "list everybody's submissions": ("GET", "/submissions?student=ada", None),
    "release an assignment": ("POST", "/releases/{a}?force=1", "zip"),
    "withdraw a release": ("POST", "/releases/{a}/withdraw", b""),
    "release feedback on ada's submission": ("POST", "/feedback/{a}/{ada}", "zip"),
}


@pytest.fixture
def ada_with_feedback(course, tokens):
    reply = submit_as(course, tokens, "ada", "ada's real work")
    grader = client(course, tokens["grader"])
    grader.release_feedback(course.assignment, reply["id"], zipped({f"{course.assignment}.html": b"<p>ada: 10/10</p>"}))
    return reply["id"]


@pytest.mark.process
@pytest.mark.parametrize("who", ["ben", "no token", "outsider"])
@pytest.mark.parametrize("what", sorted(FORBIDDEN))
def test_forbidden_requests(course, tokens, ada_with_feedback, who, what):
    method, template, body = FORBIDDEN[what]
    path = template.format(a=course.assignment, ada=ada_with_feedback)
    query = None
    if "?" in path:
        path, raw = path.split("?")
        query = dict(pair.split("=") for pair in raw.split("&"))
    data = zipped({"x.html": b"<p>forged</p>"}) if body == "zip" else body
    token = {"ben": tokens["ben"], "no token": None, "outsider": tokens[OUTSIDER]}[who]
    answer = refused(client(course, token).request, method, path, body=data, query=query)
    expected = {"no token": (401,), "outsider": (403,), "ben": (403, 404)}[who]
    assert answer.status in expected, (answer.status, answer.message)
    # Nothing changed: ada's feedback and the release are what the grader put there.
    grader = client(course, tokens["grader"])
    assert grader.fetch_feedback(course.assignment, ada_with_feedback) != data
    assert course.assignment in {r["assignment"] for r in grader.releases()}
    assert {s["student"] for s in grader.submissions(course.assignment)} == {"ada"}


@pytest.mark.process
@pytest.mark.parametrize("who", ["no token", "outsider"])
def test_releases_are_for_the_course_only(course, tokens, who):
    token = None if who == "no token" else tokens[OUTSIDER]
    assert refused(client(course, token).releases).status == (401 if token is None else 403)
    assert refused(client(course, token).fetch_release, course.assignment).status == (401 if token is None else 403)


@pytest.mark.process
def test_a_student_lists_only_their_own_submissions_and_feedback(course, tokens, ada_with_feedback):
    submit_as(course, tokens, "ben", "ben's work")
    ben = client(course, tokens["ben"])
    mine = ben.submissions(course.assignment)
    assert [s["student"] for s in mine] == ["ben"] and mine[0]["feedback"] is None
    assert {s["student"] for s in ben.submissions()} == {"ben"}  # every assignment, earlier tests too
    listed = course.run("List", tokens["ben"], home=course.home("ben"), ExchangeList__cached=True)
    assert [group["student_id"] for group in listed] == ["ben"]


@pytest.mark.process
def test_an_oversized_submission_is_refused_with_a_message(course, tokens):
    from nbgrader.exchange import ExchangeError

    home = course.home("ada")
    course.run("FetchAssignment", tokens["ada"], home=home)
    (home / course.assignment / "data.bin").write_bytes(b"\0" * 3_000_000)
    with pytest.raises(ExchangeError) as caught:
        course.run("Submit", tokens["ada"], home=home)
    assert (
        "(413)" in str(caught.value)
        and "at most 2.0 MB" in str(caught.value)
        and "Remove large files" in str(caught.value)
    )
    assert client(course, tokens["ada"]).submissions(course.assignment) == []


@pytest.mark.process
def test_an_unsafe_archive_is_refused(course, tokens):
    ada = client(course, tokens["ada"])
    for files in ({"../escape.ipynb": b"{}"}, {"/etc/passwd": b"x"}, {"a/../../b": b"x"}):
        assert refused(ada.submit, course.assignment, zipped(files)).status == 400
    assert refused(ada.submit, course.assignment, b"not a zip").status == 400
    assert ada.submissions(course.assignment) == []


@pytest.mark.process
def test_collect_says_which_submission_it_picked_and_why(course, tokens, caplog):
    submit_as(course, tokens, "ada", "first")
    submit_as(course, tokens, "ada", "second")
    deadline = dt.datetime.now(dt.timezone.utc)
    course.run(
        "ReleaseAssignment",
        tokens["grader"],
        ExchangeReleaseAssignment__force=True,
        AssignmentPolicy__due={course.assignment: deadline.isoformat()},
    )
    submit_as(course, tokens, "ada", "third, late")
    picked = client(course, tokens["grader"]).collect(course.assignment)["picked"]
    assert len(picked) == 1 and picked[0]["count"] == 3
    assert (
        picked[0]["reason"]
        == f"the last of 3 received before the deadline {stamp(deadline)}; 1 later one after it ignored"
    )
    with caplog.at_level("INFO"):
        course.run("Collect", tokens["grader"])
    assert collected(course.root, "ada", course.assignment)[0] == "second"
    assert "1 later one after it ignored" in caplog.text
    course.run(
        "ReleaseAssignment",
        tokens["grader"],
        ExchangeReleaseAssignment__force=True,
        AssignmentPolicy__due={course.assignment: deadline.isoformat()},
        AssignmentPolicy__pick="last",
    )
    course.run("Collect", tokens["grader"], ExchangeCollect__update=True)
    assert collected(course.root, "ada", course.assignment)[0] == "third, late"


@pytest.mark.process
def test_the_round_trip_through_nbgrader(course, tokens):
    """Fetch, submit, collect, feedback: nbgrader's classes, as the Assignments tab calls them."""
    home = course.home("ada")
    released = course.run("List", tokens["ada"], home=home)
    assert [(a["assignment_id"], a["status"]) for a in released] == [(course.assignment, "released")]
    course.run("FetchAssignment", tokens["ada"], home=home)
    assert course.run("List", tokens["ada"], home=home)[0]["status"] == "fetched"
    course.answer(home, "ada's answer")
    reply = course.run("Submit", tokens["ada"], home=home)
    course.run("Collect", tokens["grader"])
    feedback = course.root / "feedback" / "ada" / course.assignment
    feedback.mkdir(parents=True)
    (feedback / f"{course.assignment}.html").write_text("<p>ada's feedback</p>")
    (feedback / "timestamp.txt").write_text(
        (course.root / "submitted" / "ada" / course.assignment / "timestamp.txt").read_text()
    )
    course.run("ReleaseFeedback", tokens["grader"])
    [group] = course.run("List", tokens["ada"], home=home, ExchangeList__cached=True)
    [entry] = group["submissions"]
    assert entry["timestamp"] == reply["timestamp"]
    assert entry["has_exchange_feedback"] and not entry["has_local_feedback"]
    course.run("FetchFeedback", tokens["ada"], home=home)
    fetched = home / course.assignment / "feedback" / reply["timestamp"] / f"{course.assignment}.html"
    assert fetched.read_text() == "<p>ada's feedback</p>"
    [group] = course.run("List", tokens["ada"], home=home, ExchangeList__cached=True)
    assert group["submissions"][0]["has_local_feedback"] and not group["submissions"][0]["feedback_updated"]
    # ben has no feedback to fetch, and cannot get ada's.
    ben_home = course.home("ben")
    course.run("FetchFeedback", tokens["ben"], home=ben_home)
    assert not (ben_home / course.assignment / "feedback").exists()
