"""The exchange server: a JupyterHub service that keeps releases, submissions and feedback.

Who is asking comes from the hub: every request carries a hub token (a user's server token, or a
grader service's token), which the hub resolves to a user or service; nothing in the request can
name anyone else. Receipt times come from this process's clock. Students may list and fetch the
released assignments, submit, and read their own submissions and feedback; only the graders named on
the command line may release, collect and release feedback.

The hub starts it (hubconfig.py) as an account students cannot write into; it listens on
$JUPYTERHUB_SERVICE_URL under $JUPYTERHUB_SERVICE_PREFIX.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from tornado import httpserver, ioloop, web

from course_exchange import archive, policy
from course_exchange.policy import Policy, describe, lateness, stamp
from course_exchange.store import Store, Submission

NAME = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}"
MB = 1_000_000


@dataclass(frozen=True)
class Who:
    kind: str  # "user" or "service", as the hub says
    name: str


@dataclass
class Settings:
    store: Store
    courses: frozenset[str]
    grader_users: frozenset[str]
    grader_services: frozenset[str]
    max_submission_bytes: int
    max_grader_upload_bytes: int
    hub_auth: object


class Refused(web.HTTPError):
    """An HTTP error whose message is meant for the person who sent the request."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(status, log_message=message.replace("%", "%%"))
        self.message = message


class Handler(web.RequestHandler):
    def initialize(self, settings: Settings) -> None:
        self.x = settings
        self.who: Who | None = None

    def set_default_headers(self) -> None:
        self.set_header("Cache-Control", "no-store")

    def write_error(self, status_code: int, **kwargs) -> None:
        error = kwargs.get("exc_info", (None, None))[1]
        message = error.message if isinstance(error, Refused) else self._reason
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"status": status_code, "message": message}))

    async def prepare(self) -> None:
        header = self.request.headers.get("Authorization", "")
        found = re.fullmatch(r"(?:token|bearer)\s+(\S+)", header.strip(), re.IGNORECASE)
        if not found:
            raise Refused(
                401, "This request carries no hub token; the exchange only answers requests from the hub's users."
            )
        auth = self.x.hub_auth
        model = await auth.user_for_token(found.group(1), sync=False)
        if not model:
            raise Refused(401, "The hub does not recognise this token.")
        if not auth.check_scopes(auth.access_scopes, model):
            raise Refused(
                403, f"This token may not use the exchange (it lacks {', '.join(sorted(auth.access_scopes))})."
            )
        self.who = Who(model.get("kind", "user"), model["name"])

    # ------------------------------------------------------------ who may do what

    @property
    def is_grader(self) -> bool:
        if self.who.kind == "service":
            return self.who.name in self.x.grader_services
        return self.who.kind == "user" and self.who.name in self.x.grader_users

    def course(self, course: str) -> str:
        if course not in self.x.courses:
            raise Refused(404, f"This exchange has no course {course!r}.")
        return course

    def need_grader(self, what: str) -> None:
        if not self.is_grader:
            raise Refused(403, f"Only the course's graders may {what}; {self.who.name} is not one.")

    def need_owner_or_grader(self, submission: Submission | None, course: str, assignment: str) -> Submission:
        if submission is None or submission.course != course or submission.assignment != assignment:
            raise Refused(404, "No such submission.")
        if not self.is_grader and not (self.who.kind == "user" and submission.student == self.who.name):
            # The same answer as for a missing one: another student's submissions are not even confirmed to exist.
            raise Refused(404, "No such submission.")
        return submission

    def released(self, course: str, assignment: str):
        release = self.x.store.release(course, assignment)
        if release is None:
            raise Refused(404, f"{assignment} is not released in {course}.")
        return release

    def list_submissions(self, course: str, assignment: str | None) -> None:
        course = self.course(course)
        student = self.get_query_argument("student", None)
        if not self.is_grader:
            if student not in (None, self.who.name):
                raise Refused(403, "Students may list only their own submissions.")
            student = self.who.name
        releases = self.x.store.releases(course)
        self.send_json(
            [
                submission_json(self.x.store, s, releases[s.assignment].policy if s.assignment in releases else None)
                for s in self.x.store.submissions(course, assignment, student)
            ]
        )

    def send_json(self, data, status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(data))

    def send_zip(self, data: bytes, sha256: str) -> None:
        self.set_header("Content-Type", "application/zip")
        self.set_header("X-Content-SHA256", sha256)
        self.finish(data)


class UploadHandler(Handler):
    """A handler that receives a body, refused as soon as it is known to be too large."""

    def body_limit(self) -> int:
        return self.x.max_grader_upload_bytes if self.is_grader else self.x.max_submission_bytes

    def too_large(self, size: int) -> Refused:
        limit = self.body_limit()
        return Refused(
            413,
            f"This upload is {size / MB:.1f} MB; the exchange accepts at most {limit / MB:.1f} MB. "
            "Remove large files (data sets, outputs, checkpoints) from the folder and try again.",
        )

    async def prepare(self) -> None:
        await super().prepare()
        self.chunks: list[bytes] = []
        self.received = 0

    def data_received(self, chunk: bytes) -> None:
        # An oversized body is read to its end and dropped, so that the sender gets the answer below
        # rather than a connection closed in the middle of its upload.
        self.received += len(chunk)
        if self.received <= self.body_limit():
            self.chunks.append(chunk)
        else:
            self.chunks.clear()

    def body(self) -> bytes:
        if self.received > self.body_limit():
            raise self.too_large(self.received)
        return b"".join(self.chunks)

    def checked_archive(self) -> tuple[bytes, dict[str, str]]:
        """The body, if it is a safe archive within the limit, and its files' hashes."""
        data = self.body()
        try:
            archive.check(data, max_bytes=self.body_limit())
        except archive.ArchiveError as exc:
            raise Refused(400, f"The upload was refused: {exc}.") from None
        return data, archive.digests(data)


# ---------------------------------------------------------------- releases


class ReleasesHandler(Handler):
    def get(self, course: str) -> None:
        course = self.course(course)
        out = []
        for assignment, release in sorted(self.x.store.releases(course).items()):
            deadline = release.policy.deadline(self.who.name)
            out.append(
                {
                    "assignment": assignment,
                    "sha256": release.sha256,
                    "size": release.size,
                    "released_at": release.at.isoformat(),
                    "deadline": deadline.isoformat() if deadline else None,
                    "late": release.policy.late,
                }
            )
        self.send_json(out)


@web.stream_request_body
class ReleaseHandler(UploadHandler):
    def get(self, course: str, assignment: str) -> None:
        release = self.released(self.course(course), assignment)
        self.send_zip(self.x.store.blob(release.sha256), release.sha256)

    def post(self, course: str, assignment: str) -> None:
        course = self.course(course)
        self.need_grader("release assignments")
        try:
            rules = Policy.from_json(json.loads(self.request.headers.get("X-Course-Exchange-Policy", "{}")))
        except (ValueError, KeyError, TypeError) as exc:
            raise Refused(400, f"The assignment's policy is malformed: {exc}") from None
        data, _ = self.checked_archive()
        force = self.get_query_argument("force", "") == "1"
        if self.x.store.release(course, assignment) is not None and not force:
            raise Refused(
                409,
                f"{assignment} is released already; release again with --force to replace the files students fetch.",
            )
        release = self.x.store.add_release(
            course=course, assignment=assignment, data=data, at=policy.now(), by=self.who.name, policy=rules
        )
        self.send_json(
            {
                "assignment": assignment,
                "sha256": release.sha256,
                "size": release.size,
                "released_at": release.at.isoformat(),
                "policy": rules.to_json(),
            },
            201,
        )


class WithdrawHandler(Handler):
    def post(self, course: str, assignment: str) -> None:
        course = self.course(course)
        self.need_grader("withdraw releases")
        self.released(course, assignment)
        self.x.store.withdraw_release(course=course, assignment=assignment, at=policy.now(), by=self.who.name)
        self.send_json({"assignment": assignment, "withdrawn": True})


# ---------------------------------------------------------------- submissions


def submission_json(store: Store, submission: Submission, rules: Policy | None) -> dict:
    feedback = store.feedback(submission.id)
    deadline = rules.deadline(submission.student) if rules else None
    return {
        **submission.to_json(),
        "timestamp": stamp(submission.received_at),
        "deadline": deadline.isoformat() if deadline else None,
        "feedback": {"sha256": feedback.sha256, "released_at": feedback.at.isoformat(), "files": feedback.files}
        if feedback
        else None,
        "grading": store.grading(submission.id),
    }


def receipt_note(rules: Policy, state: dict | None) -> str:
    """What the submit reply says about grading on receipt."""
    if state is None:
        return ""
    if state["state"] == "kept":
        return (
            f" This assignment grades {rules.attempts} attempt{'s' if rules.attempts != 1 else ''} on receipt and you have used them: "
            "this submission is kept, and graded with the others when the instructor grades."
        )
    of = f" of {rules.attempts}" if rules.attempts else ""
    return f" It is graded now (attempt {state['attempt']}{of}): its feedback is coming, fetch it in the Assignments tab in a few seconds."


class AllSubmissionsHandler(Handler):
    """Every assignment's submissions: the student's own, or everybody's for a grader."""

    def get(self, course: str) -> None:
        self.list_submissions(course, None)


@web.stream_request_body
class SubmissionsHandler(UploadHandler):
    def get(self, course: str, assignment: str) -> None:
        self.list_submissions(course, assignment)

    def post(self, course: str, assignment: str) -> None:
        received_at = policy.now()  # the exchange's clock, at the moment the whole body is in
        course = self.course(course)
        if self.who.kind != "user":
            raise Refused(403, "Only hub users submit; a service has no submissions.")
        claimed = self.get_query_argument("student", None)
        if claimed not in (None, self.who.name):
            raise Refused(403, f"You are {self.who.name}; nobody may submit as someone else.")
        release = self.released(course, assignment)
        data, files = self.checked_archive()
        rules = release.policy
        late = lateness(rules, self.who.name, received_at)
        deadline = rules.deadline(self.who.name)
        if late is not None and rules.late == "refuse":
            raise Refused(
                403,
                f"The deadline for {assignment} was {stamp(deadline)}; this submission arrived at {stamp(received_at)}, "
                f"{describe(late)} late, and this course refuses late submissions. Nothing was stored.",
            )
        submission = self.x.store.add_submission(
            course=course,
            assignment=assignment,
            student=self.who.name,
            data=data,
            received_at=received_at,
            late_seconds=late.total_seconds() if late else None,
            files=files,
            graded_attempts=rules.attempts if rules.on_receipt else None,
        )
        if deadline is None:
            when = "the assignment has no deadline"
        elif late is None:
            when = f"on time for the deadline {stamp(deadline)}"
        else:
            when = f"{describe(late)} after the deadline {stamp(deadline)}: late"
        message = (
            f"Received {assignment} from {self.who.name} at {stamp(received_at)} (exchange server time), {when}; "
            f"{submission.size} bytes, SHA-256 {submission.sha256[:16]}..., kept as submission {submission.id}."
            + receipt_note(rules, self.x.store.grading(submission.id))
        )
        self.send_json({**submission_json(self.x.store, submission, rules), "message": message}, 201)


class SubmissionHandler(Handler):
    def get(self, course: str, assignment: str, submission_id: str) -> None:
        course = self.course(course)
        submission = self.need_owner_or_grader(self.x.store.submission(int(submission_id)), course, assignment)
        self.send_zip(self.x.store.blob(submission.sha256), submission.sha256)


class CollectHandler(Handler):
    def get(self, course: str, assignment: str) -> None:
        course = self.course(course)
        self.need_grader("collect submissions")
        release = self.x.store.release(course, assignment)
        rules = release.policy if release else Policy()
        by_student: dict[str, list[Submission]] = {}
        for submission in self.x.store.submissions(course, assignment):
            by_student.setdefault(submission.student, []).append(submission)
        out = []
        for student, submissions in sorted(by_student.items()):
            index, reason = policy.pick(rules, student, [s.received_at for s in submissions])
            out.append(
                {
                    "student": student,
                    "submission": submission_json(self.x.store, submissions[index], rules),
                    "reason": reason,
                    "count": len(submissions),
                }
            )
        self.send_json({"assignment": assignment, "policy": rules.to_json(), "picked": out})


# ---------------------------------------------------------------- feedback


@web.stream_request_body
class FeedbackHandler(UploadHandler):
    def get(self, course: str, assignment: str, submission_id: str) -> None:
        course = self.course(course)
        submission = self.need_owner_or_grader(self.x.store.submission(int(submission_id)), course, assignment)
        feedback = self.x.store.feedback(submission.id)
        if feedback is None:
            raise Refused(404, "No feedback has been released for this submission.")
        self.send_zip(self.x.store.blob(feedback.sha256), feedback.sha256)

    def post(self, course: str, assignment: str, submission_id: str) -> None:
        course = self.course(course)
        self.need_grader("release feedback")
        submission = self.need_owner_or_grader(self.x.store.submission(int(submission_id)), course, assignment)
        data, files = self.checked_archive()
        feedback = self.x.store.add_feedback(
            submission_id=submission.id, data=data, at=policy.now(), by=self.who.name, files=files
        )
        state = self.x.store.grading(submission.id)
        if state is not None and state["state"] in ("queued", "claimed"):
            self.x.store.finish_grading(submission.id, kind="graded", at=feedback.at, by=self.who.name)
        self.send_json({"submission_id": submission.id, "student": submission.student, "sha256": feedback.sha256}, 201)


# ---------------------------------------------------------------- grading on receipt


class ClaimHandler(Handler):
    """A grader takes the oldest queued submissions; a claim lapses after `lease` seconds, so nothing is lost to a grader that died."""

    def post(self, course: str) -> None:
        course = self.course(course)
        self.need_grader("grade submissions on receipt")
        try:
            limit = max(1, min(int(self.get_query_argument("limit", "1")), 100))
            lease = float(self.get_query_argument("lease", "900"))
            # A grader that (re)starts says so on its first claim: what it claimed before is claimed again.
            reclaim_before = policy.now() if self.get_query_argument("restarted", "") == "1" else None
        except ValueError as exc:
            raise Refused(400, f"Malformed claim: {exc}") from None
        releases = self.x.store.releases(course)
        claimed = self.x.store.claim(
            course, by=self.who.name, at=policy.now(), limit=limit, lease_s=lease, reclaim_before=reclaim_before
        )
        self.send_json(
            [
                {
                    "submission": submission_json(
                        self.x.store, s, releases[s.assignment].policy if s.assignment in releases else None
                    ),
                    "policy": (releases[s.assignment].policy if s.assignment in releases else Policy()).to_json(),
                }
                for s in claimed
            ]
        )


class GradingFailedHandler(Handler):
    def post(self, course: str, assignment: str, submission_id: str) -> None:
        course = self.course(course)
        self.need_grader("record a grading failure")
        submission = self.need_owner_or_grader(self.x.store.submission(int(submission_id)), course, assignment)
        try:
            reason = str(json.loads(self.request.body or b"{}").get("reason", ""))
        except (ValueError, AttributeError):
            raise Refused(400, 'The body must be JSON: {"reason": "..."}') from None
        self.x.store.finish_grading(submission.id, kind="failed", at=policy.now(), by=self.who.name, detail=reason)
        self.send_json({"submission_id": submission.id, "state": "failed"})


def make_app(settings: Settings, prefix: str = "/") -> web.Application:
    prefix = "/" + prefix.strip("/") + "/" if prefix.strip("/") else "/"
    api = f"{prefix}api/courses/({NAME})"
    routes = [
        (rf"{api}/releases", ReleasesHandler),
        (rf"{api}/releases/({NAME})", ReleaseHandler),
        (rf"{api}/releases/({NAME})/withdraw", WithdrawHandler),
        (rf"{api}/submissions", AllSubmissionsHandler),
        (rf"{api}/submissions/({NAME})", SubmissionsHandler),
        (rf"{api}/submissions/({NAME})/([0-9]{{1,18}})", SubmissionHandler),
        (rf"{api}/collect/({NAME})", CollectHandler),
        (rf"{api}/feedback/({NAME})/([0-9]{{1,18}})", FeedbackHandler),
        (rf"{api}/queue/claim", ClaimHandler),
        (rf"{api}/queue/({NAME})/([0-9]{{1,18}})/failed", GradingFailedHandler),
    ]
    return web.Application([(pattern, handler, {"settings": settings}) for pattern, handler in routes])


def _names(values: list[str]) -> frozenset[str]:
    return frozenset(name.strip() for value in values for name in value.split(",") if name.strip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="course-exchange", description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", required=True, type=Path, help="folder of the append-only store (made mode 0700)")
    parser.add_argument(
        "--course", action="append", required=True, help="a course this exchange serves (repeat for more)"
    )
    parser.add_argument(
        "--grader-user",
        action="append",
        default=[],
        help="hub users who may release, collect and release feedback (comma-separated, repeatable)",
    )
    parser.add_argument(
        "--grader-service",
        action="append",
        default=[],
        help="hub services with the same rights, e.g. the course's formgrader (comma-separated, repeatable)",
    )
    parser.add_argument(
        "--max-submission-mb", type=float, default=5.0, help="largest submission accepted, in MB (10^6 bytes) [5]"
    )
    parser.add_argument(
        "--max-grader-upload-mb", type=float, default=200.0, help="largest release or feedback accepted, in MB [200]"
    )
    parser.add_argument(
        "--url", default=os.environ.get("JUPYTERHUB_SERVICE_URL", ""), help="where to listen [$JUPYTERHUB_SERVICE_URL]"
    )
    parser.add_argument(
        "--prefix",
        default=os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/"),
        help="URL prefix [$JUPYTERHUB_SERVICE_PREFIX]",
    )
    args = parser.parse_args(argv)
    if not args.url:
        parser.error("--url (or $JUPYTERHUB_SERVICE_URL) is required")
    from jupyterhub.services.auth import HubAuth

    auth = HubAuth()
    if not auth.api_token:
        parser.error("$JUPYTERHUB_API_TOKEN is not set: run this as a JupyterHub service")
    settings = Settings(
        store=Store(args.store),
        courses=_names(args.course),
        grader_users=_names(args.grader_user),
        grader_services=_names(args.grader_service),
        max_submission_bytes=int(args.max_submission_mb * MB),
        max_grader_upload_bytes=int(args.max_grader_upload_mb * MB),
        hub_auth=auth,
    )
    url = urlparse(args.url)
    server = httpserver.HTTPServer(
        make_app(settings, args.prefix),
        max_body_size=max(settings.max_submission_bytes, settings.max_grader_upload_bytes) + MB,
    )
    server.listen(url.port or 80, url.hostname or "127.0.0.1")
    print(
        f"course-exchange: serving {', '.join(sorted(settings.courses))} on {args.url}{args.prefix} from {args.store}",
        file=sys.stderr,
        flush=True,
    )
    ioloop.IOLoop.current().start()
    return 0


if __name__ == "__main__":
    sys.exit(main())
