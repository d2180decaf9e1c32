"""nbgrader's exchange classes, talking to the exchange service instead of a shared folder.

Configure nbgrader with (deploy/jupyterhub/nbgrader_config.py does):

    c.ExchangeFactory.exchange = "course_exchange.plugin.Exchange"
    c.ExchangeFactory.fetch_assignment = "course_exchange.plugin.ExchangeFetchAssignment"
    ... one line per class below (course_exchange.hubconfig.nbgrader_settings writes them all)

Students' servers find the service at $COURSE_EXCHANGE_URL and identify with $JUPYTERHUB_API_TOKEN,
the token the hub gave their server. The grader's shell uses the formgrader service's token, from
the file $COURSE_EXCHANGE_TOKEN_FILE that only the grader account can read.
"""

from __future__ import annotations

import glob
import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from nbgrader.exchange import abc
from traitlets import Bool, Dict, Enum, Unicode, default
from traitlets.config import LoggingConfigurable

from course_exchange import archive
from course_exchange.client import Client, RequestRefused
from course_exchange.policy import LATE, PICKS, SHOWS, Policy, parse_time, stamp

UNPACK_LIMIT = 500_000_000  # what a grader's or a student's process will unpack from the exchange at most


class Exchange(abc.Exchange):
    """What every class shares: where the service is, and the token to show it."""

    url = Unicode(
        help="The exchange service's URL, e.g. http://127.0.0.1:9998/services/course-exchange [$COURSE_EXCHANGE_URL]"
    ).tag(config=True)
    token = Unicode(help="The hub token to send [$JUPYTERHUB_API_TOKEN, else the content of token_file]").tag(
        config=True
    )
    token_file = Unicode(help="A file holding the token, for the grader's shell [$COURSE_EXCHANGE_TOKEN_FILE]").tag(
        config=True
    )
    path_includes_course = Bool(
        False, help="Whether fetched assignments go into ./<course>/<assignment> rather than ./<assignment>"
    ).tag(config=True)

    @default("url")
    def _url_default(self):
        return os.environ.get("COURSE_EXCHANGE_URL", "")

    @default("token_file")
    def _token_file_default(self):
        return os.environ.get("COURSE_EXCHANGE_TOKEN_FILE", "")

    @default("token")
    def _token_default(self):
        if os.environ.get("JUPYTERHUB_API_TOKEN"):
            return os.environ["JUPYTERHUB_API_TOKEN"]
        if self.token_file and os.path.isfile(self.token_file):
            return Path(self.token_file).read_text().strip()
        return ""

    def client(self) -> Client:
        if not self.url:
            self.fail("The exchange's URL is not configured (COURSE_EXCHANGE_URL, or c.Exchange.url).")
        if not self.coursedir.course_id:
            self.fail("No course id specified. Re-run with --course flag.")
        return Client(url=self.url, token=self.token, course=self.coursedir.course_id)

    def call(self, method, *args, **kwargs):
        """One request to the service; a refusal becomes nbgrader's ExchangeError with the server's words."""
        try:
            return method(*args, **kwargs)
        except RequestRefused as refused:
            self.fail(refused.message)

    def local_dir(self, assignment_id: str) -> Path:
        root = os.path.join(self.coursedir.course_id, assignment_id) if self.path_includes_course else assignment_id
        return Path(self.assignment_dir, root).absolute()

    def init_src(self):
        pass

    def init_dest(self):
        pass

    def copy_files(self):
        pass


class AssignmentPolicy(LoggingConfigurable):
    """The course's rules, sent with each release; the server applies them with its own clock."""

    due = Dict(
        key_trait=Unicode(),
        value_trait=Unicode(),
        help='Each assignment\'s deadline, ISO 8601 (UTC unless a zone is given): {"01_tensors": "2026-12-08T23:59:00Z"}',
    ).tag(config=True)
    extensions = Dict(help='Per-student deadlines: {"01_tensors": {"ada": "2026-12-10T23:59:00Z"}}').tag(config=True)
    late = Enum(
        LATE,
        "accept",
        help="Whether a submission after the student's deadline is accepted (and marked late) or refused",
    ).tag(config=True)
    pick = Enum(
        PICKS,
        "last_before_deadline",
        help="Which submission collect takes: the last before the student's deadline (the last one if none is on time), or the last",
    ).tag(config=True)

    on_receipt = Dict(
        key_trait=Unicode(),
        value_trait=Dict(),
        help=(
            "Assignments graded as soon as the exchange receives them, and what their feedback shows: "
            '{"01_tensors": {"attempts": 3, "shows": "verdicts", "score": True}}. '
            '"attempts": graded attempts per student (0, the default: no limit); later submissions are kept and not '
            "graded until the instructor grades after the deadline. "
            '"quiz_attempts": how many graded attempts may tell a student that a quiz is not right (0, the default: '
            "no limit of its own); after that the quiz is still graded but its verdict is withheld until the instructor "
            "grades (once told right, it is always told), so a quiz cannot be solved by trying every choice. "
            f'"shows": {SHOWS[0]!r} (the verdicts of the checks the student can run, not those with hidden tests) or '
            f"{SHOWS[1]!r} (the default: every check's verdict, with its message; a quiz says right or wrong only). "
            '"score": whether the points of each item and the total are shown (default True). '
            "An assignment not named here is graded only when the instructor grades."
        ),
    ).tag(config=True)

    def for_assignment(self, assignment: str) -> Policy:
        receipt = dict(self.on_receipt.get(assignment, {}))
        known = ("attempts", "quiz_attempts", "shows", "score")
        unknown = set(receipt) - set(known)
        if unknown:
            raise ValueError(
                f"c.AssignmentPolicy.on_receipt[{assignment!r}] has unknown keys {sorted(unknown)} ({', '.join(known)})"
            )
        return Policy(
            due=parse_time(self.due[assignment]) if assignment in self.due else None,
            extensions={name: parse_time(when) for name, when in self.extensions.get(assignment, {}).items()},
            late=self.late,
            pick=self.pick,
            on_receipt=assignment in self.on_receipt,
            attempts=receipt.get("attempts", 0),
            quiz_attempts=receipt.get("quiz_attempts", 0),
            shows=receipt.get("shows", "verdicts"),
            score=bool(receipt.get("score", True)),
        )


class ExchangeReleaseAssignment(Exchange, abc.ExchangeReleaseAssignment):
    def start(self):
        assignment = self.coursedir.assignment_id
        source = Path(self.coursedir.format_path(self.coursedir.release_directory, ".", assignment))
        if not source.is_dir():
            self.fail(f"Assignment not found: {source}")
        rules = AssignmentPolicy(parent=self).for_assignment(assignment)
        data = archive.pack(source, ignore=self.coursedir.ignore)
        reply = self.call(self.client().release, assignment, data, policy=rules.to_json(), force=self.force)
        deadline = f"due {stamp(rules.due)}" if rules.due else "no deadline"
        self.log.info(
            f"Released {self.coursedir.course_id} {assignment}: {reply['size']} bytes, SHA-256 {reply['sha256'][:16]}..., "
            f"{deadline}, {len(rules.extensions)} extension(s), late submissions {rules.late}ed, collect takes {rules.pick.replace('_', ' ')}"
        )


class ExchangeFetchAssignment(Exchange, abc.ExchangeFetchAssignment):
    def start(self):
        assignment = self.coursedir.assignment_id
        dest = self.local_dir(assignment)
        if dest.is_dir() and not self.replace_missing_files:
            self.fail(f"You already have a copy of the assignment in this directory: {assignment}")
        data = self.call(self.client().fetch_release, assignment)
        with tempfile.TemporaryDirectory(dir=dest.parent if dest.parent.is_dir() else None) as scratch:
            unpacked = Path(scratch) / "release"
            archive.unpack(data, unpacked, max_bytes=UNPACK_LIMIT)
            if not dest.is_dir():
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(unpacked, dest)
            else:
                for path in sorted(unpacked.rglob("*")):
                    target = dest / path.relative_to(unpacked)
                    if not target.exists() and not target.is_symlink():
                        self.log.warning("Replacing missing file '%s'", target.relative_to(dest))
                        target.parent.mkdir(parents=True, exist_ok=True)
                        shutil.copy(path, target) if path.is_file() else target.mkdir()
        self.log.info(f"Fetched as: {self.coursedir.course_id} {assignment}")


class ExchangeSubmit(Exchange, abc.ExchangeSubmit):
    def start(self):
        assignment = self.coursedir.assignment_id
        source = self.local_dir(assignment)
        if not source.is_dir():
            self.fail(f"Assignment not found: {source.relative_to(Path(self.assignment_dir).absolute())}")
        max_file = self.coursedir.max_file_size * 1000 if self.coursedir.max_file_size else None
        data = archive.pack(source, ignore=self.coursedir.ignore, max_file_bytes=max_file)
        if not any(name.endswith(".ipynb") for name in archive.digests(data)):
            self.log.warning(f"No notebooks in {source}")
        reply = self.call(self.client().submit, assignment, data)
        self.log.info(reply["message"])
        self.log.info(f"Submitted as: {self.coursedir.course_id} {assignment} {reply['timestamp']}")
        return reply


class ExchangeList(Exchange, abc.ExchangeList):
    def list_files(self):
        client = self.client()
        if self.inbound or self.cached:
            assignments = self._submitted(client)
            self.log.info("Submitted assignments:")
            for group in assignments:
                for info in group["submissions"]:
                    self.log.info(
                        f"{info['course_id']} {info['student_id']} {info['assignment_id']} {info['timestamp']}"
                    )
            return assignments
        assignments = self._released(client)
        self.log.info("Released assignments:")
        for info in assignments:
            fetched = " (already downloaded)" if info["status"] == "fetched" else ""
            due = f" (due {stamp(parse_time(info['deadline']))})" if info.get("deadline") else ""
            self.log.info(f"{info['course_id']} {info['assignment_id']}{due}{fetched}")
        return assignments

    def remove_files(self):
        if self.inbound or self.cached:
            self.fail("The exchange never removes submissions.")
        client = self.client()
        removed = []
        for info in self._released(client):
            if self.coursedir.assignment_id in ("", "*", info["assignment_id"]):
                self.call(client.withdraw, info["assignment_id"])
                removed.append({**info, "status": "removed"})
                self.log.info(f"Withdrew the release of {info['course_id']} {info['assignment_id']}")
        return removed

    def _released(self, client: Client) -> list[dict]:
        wanted = self.coursedir.assignment_id
        out = []
        for release in self.call(client.releases):
            assignment = release["assignment"]
            if wanted not in ("", "*", assignment):
                continue
            local = self.local_dir(assignment)
            info = {
                "course_id": self.coursedir.course_id,
                "assignment_id": assignment,
                "deadline": release["deadline"],
                "status": "fetched" if local.is_dir() else "released",
                "path": str(local) if local.is_dir() else assignment,
            }
            notebooks = sorted(local.glob("*.ipynb")) if local.is_dir() else []
            info["notebooks"] = [{"notebook_id": nb.stem, "path": str(nb)} for nb in notebooks]
            out.append(info)
        return out

    def _submitted(self, client: Client) -> list[dict]:
        wanted = self.coursedir.assignment_id
        student = self.coursedir.student_id if self.coursedir.student_id not in ("", "*") else None
        submissions = self.call(
            client.submissions, wanted if wanted not in ("", "*") else None, student=student if self.inbound else None
        )
        groups: dict[tuple, list] = {}
        for submission in submissions:
            groups.setdefault((submission["student"], submission["assignment"]), []).append(
                self._submission_info(submission)
            )
        return [
            {
                "course_id": self.coursedir.course_id,
                "student_id": who,
                "assignment_id": assignment,
                "status": "submitted",
                "submissions": sorted(items, key=lambda item: item["timestamp"]),
            }
            for (who, assignment), items in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0]))
        ]

    def _submission_info(self, submission: dict) -> dict:
        """One submission in the shape nbgrader's Assignments tab expects, feedback state included."""
        assignment, timestamp = submission["assignment"], submission["timestamp"]
        local_feedback = self.local_dir(assignment) / "feedback" / timestamp
        exchange_files = (submission.get("feedback") or {}).get("files", {})
        notebooks = []
        for name in sorted(submission["files"]):
            if "/" in name or not name.endswith(".ipynb"):
                continue
            notebook_id = name[: -len(".ipynb")]
            local = local_feedback / f"{notebook_id}.html"
            remote = exchange_files.get(f"{notebook_id}.html")
            has_local = local.is_file()
            notebooks.append(
                {
                    "notebook_id": notebook_id,
                    "path": str(self.local_dir(assignment) / name),
                    "has_local_feedback": has_local,
                    "has_exchange_feedback": remote is not None,
                    "local_feedback_path": str(local) if has_local else None,
                    "feedback_updated": bool(
                        has_local and remote and hashlib.sha256(local.read_bytes()).hexdigest() != remote
                    ),
                }
            )
        has_local = bool(notebooks) and all(nb["has_local_feedback"] for nb in notebooks)
        return {
            "course_id": self.coursedir.course_id,
            "student_id": submission["student"],
            "assignment_id": assignment,
            "timestamp": timestamp,
            "status": "submitted",
            "path": str(self.local_dir(assignment)),
            "notebooks": notebooks,
            "deadline": submission.get("deadline"),
            "late_seconds": submission.get("late_seconds"),
            "sha256": submission["sha256"],
            "has_local_feedback": has_local,
            "has_exchange_feedback": bool(notebooks) and all(nb["has_exchange_feedback"] for nb in notebooks),
            "feedback_updated": any(nb["feedback_updated"] for nb in notebooks),
            "local_feedback_path": str(local_feedback) if has_local else None,
        }


class ExchangeCollect(Exchange, abc.ExchangeCollect):
    def start(self):
        assignment = self.coursedir.assignment_id
        client = self.client()
        reply = self.call(client.collect, assignment)
        wanted = self.coursedir.student_id if self.coursedir.student_id not in ("", "*") else None
        picked = [p for p in reply["picked"] if wanted in (None, p["student"])]
        if not picked:
            self.log.warning(f"No submissions of '{assignment}' for course '{self.coursedir.course_id}' to collect")
        else:
            self.log.info(
                f"Processing {len(picked)} submissions of '{assignment}' for course '{self.coursedir.course_id}'"
            )
        for entry in picked:
            student, submission = entry["student"], entry["submission"]
            dest = Path(self.coursedir.format_path(self.coursedir.submitted_directory, student, assignment))
            if dest.is_dir():
                existing = self.coursedir.get_existing_timestamp(str(dest))
                if existing is not None and stamp(existing) == submission["timestamp"]:
                    self.log.info(f"Already collected: {student} {assignment} ({submission['timestamp']})")
                    continue
                if not self.update:
                    self.log.info(f"Submission already exists, use --update to update: {student} {assignment}")
                    continue
            self.log.info(
                f"Collecting {student}'s submission {submission['id']} of {assignment}, received {submission['timestamp']}: "
                f"{entry['reason']}"
            )
            data = self.call(client.fetch_submission, assignment, submission["id"])
            if hashlib.sha256(data).hexdigest() != submission["sha256"]:
                self.fail(f"Submission {submission['id']} does not match its hash")
            dest.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(dir=dest.parent) as scratch:
                unpacked = Path(scratch) / assignment
                archive.unpack(data, unpacked, max_bytes=UNPACK_LIMIT)
                # The receipt time is the server's; whatever timestamp.txt the student put in is replaced.
                (unpacked / "timestamp.txt").write_text(submission["timestamp"])
                if dest.is_dir():
                    shutil.rmtree(dest)
                shutil.move(unpacked, dest)


class ExchangeReleaseFeedback(Exchange, abc.ExchangeReleaseFeedback):
    def start(self):
        assignment = self.coursedir.assignment_id
        client = self.client()
        exclude = set(filter(None, self.coursedir.student_id_exclude.split(",")))
        pattern = self.coursedir.format_path(
            self.coursedir.feedback_directory, self.coursedir.student_id or "*", assignment
        )
        for folder in sorted(glob.glob(pattern)):
            folder = Path(folder)
            student = folder.parent.name
            if student in exclude:
                continue
            stamp_file = folder / "timestamp.txt"
            html = sorted(folder.glob("*.html"))
            if not html or not stamp_file.is_file():
                self.log.warning(f"No feedback or no timestamp.txt in {folder}; skipped")
                continue
            timestamp = stamp(parse_time(stamp_file.read_text()))
            matching = [
                s for s in self.call(client.submissions, assignment, student=student) if s["timestamp"] == timestamp
            ]
            if not matching:
                self.log.error(
                    f"The exchange holds no submission of {assignment} by {student} received at {timestamp}; "
                    "feedback not released (collect again?)"
                )
                continue
            with tempfile.TemporaryDirectory() as scratch:
                for page in html:
                    shutil.copy(page, Path(scratch) / page.name)
                data = archive.pack(Path(scratch))
            self.call(client.release_feedback, assignment, matching[0]["id"], data)
            self.log.info(
                f"Releasing feedback for student '{student}' on assignment '{self.coursedir.course_id}/{assignment}' ({timestamp})"
            )


class ExchangeFetchFeedback(Exchange, abc.ExchangeFetchFeedback):
    def start(self):
        assignment = self.coursedir.assignment_id
        client = self.client()
        found = 0
        for submission in self.call(client.submissions, assignment):
            if not submission.get("feedback"):
                self.log.warning(
                    f"Could not find feedback for '{self.coursedir.course_id}/{assignment}' submitted at {submission['timestamp']}"
                )
                continue
            data = self.call(client.fetch_feedback, assignment, submission["id"])
            dest = self.local_dir(assignment) / "feedback" / submission["timestamp"]
            archive.unpack(data, dest, max_bytes=UNPACK_LIMIT)
            found += 1
            self.log.info(
                f"Fetched feedback for '{self.coursedir.course_id}/{assignment}' submitted at {submission['timestamp']} into {dest}"
            )
        if not found:
            self.log.info(f"No feedback available for {assignment}")
