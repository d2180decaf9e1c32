"""The HTTP client of the exchange, used by the nbgrader classes in `plugin`.

It sends the caller's hub token and nothing that names them: the server knows who is asking.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request


class RequestRefused(Exception):
    """The exchange said no (or could not be reached); `message` is what to show the person."""

    def __init__(self, status: int | None, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Client:
    def __init__(self, *, url: str, token: str, course: str, timeout: float = 120.0) -> None:
        self.base = url.rstrip("/") + "/api/courses/" + urllib.parse.quote(course, safe="")
        self.token = token
        self.timeout = timeout

    def request(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        query: dict | None = None,
        headers: dict | None = None,
    ) -> tuple[bytes, dict]:
        url = self.base + path + ("?" + urllib.parse.urlencode(query) if query else "")
        request = urllib.request.Request(
            url,
            data=body,
            method=method,
            headers={
                **({"Authorization": f"token {self.token}"} if self.token else {}),
                **({"Content-Type": "application/zip"} if body is not None else {}),
                **(headers or {}),
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as reply:
                return reply.read(), dict(reply.headers)
        except urllib.error.HTTPError as error:
            raw = error.read()
            try:
                message = json.loads(raw)["message"]
            except (ValueError, KeyError, TypeError):
                message = raw.decode(errors="replace")[:500] or error.reason
            raise RequestRefused(error.code, f"The exchange refused ({error.code}): {message}") from None
        except OSError as error:
            raise RequestRefused(None, f"The exchange at {self.base} cannot be reached: {error}") from None

    def json(self, method: str, path: str, **kwargs):
        return json.loads(self.request(method, path, **kwargs)[0])

    # The server's API, one method per route.
    def releases(self) -> list[dict]:
        return self.json("GET", "/releases")

    def fetch_release(self, assignment: str) -> bytes:
        return self.request("GET", f"/releases/{assignment}")[0]

    def release(self, assignment: str, data: bytes, *, policy: dict, force: bool) -> dict:
        return self.json(
            "POST",
            f"/releases/{assignment}",
            body=data,
            query={"force": "1"} if force else None,
            headers={"X-Course-Exchange-Policy": json.dumps(policy)},
        )

    def withdraw(self, assignment: str) -> dict:
        return self.json("POST", f"/releases/{assignment}/withdraw", body=b"")

    def submit(self, assignment: str, data: bytes) -> dict:
        return self.json("POST", f"/submissions/{assignment}", body=data)

    def submissions(self, assignment: str | None = None, *, student: str | None = None) -> list[dict]:
        """The caller's own submissions (a grader: everybody's, or `student`'s), oldest first."""
        path = f"/submissions/{assignment}" if assignment else "/submissions"
        return self.json("GET", path, query={"student": student} if student else None)

    def fetch_submission(self, assignment: str, submission_id: int) -> bytes:
        return self.request("GET", f"/submissions/{assignment}/{submission_id}")[0]

    def collect(self, assignment: str) -> dict:
        return self.json("GET", f"/collect/{assignment}")

    def release_feedback(self, assignment: str, submission_id: int, data: bytes) -> dict:
        return self.json("POST", f"/feedback/{assignment}/{submission_id}", body=data)

    def fetch_feedback(self, assignment: str, submission_id: int) -> bytes:
        return self.request("GET", f"/feedback/{assignment}/{submission_id}")[0]

    def claim(self, *, limit: int = 1, lease_s: float = 900.0, restarted: bool = False) -> list[dict]:
        """The oldest queued submissions (grading on receipt), now claimed by the caller: [{"submission", "policy"}].
        `restarted`: the caller's earlier claims are void (it restarted), so it gets those submissions again."""
        query = {"limit": str(limit), "lease": str(lease_s), **({"restarted": "1"} if restarted else {})}
        return self.json("POST", "/queue/claim", body=b"", query=query)

    def grading_failed(self, assignment: str, submission_id: int, reason: str) -> dict:
        return self.json(
            "POST",
            f"/queue/{assignment}/{submission_id}/failed",
            body=json.dumps({"reason": reason}).encode(),
            headers={"Content-Type": "application/json"},
        )
