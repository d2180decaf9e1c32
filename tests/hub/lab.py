"""What hub users do in the browser: log in, use nbgrader's Assignments tab, read their feedback.

The Assignments tab is nbgrader's JupyterLab extension (Nbgrader > Assignment List): released
assignments with a fetch button, downloaded ones with their notebooks (each with Validate) and a
Submit button, submitted ones with Fetch Feedback and, once fetched, a "(view feedback)" link.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tests.browser.student_view import CELL, StudentView

LIST = "#nbgrader-assignment-list"
TOC_ENTRY = re.compile(r"\(Score: ([\d.]+) / ([\d.]+)\)")


def log_in(page, hub, user, *, next_path: str = "") -> None:
    """The hub's login form, with the user's system password (PAM)."""
    page.goto(f"{hub.url}/hub/login" + (f"?next={next_path}" if next_path else ""))
    page.fill("#username_input", user.name)
    page.fill("#password_input", user.password)
    page.click("#login_submit")
    page.wait_for_url(
        re.compile(re.escape(hub.url) + (re.escape(next_path) if next_path else r"/user/")), timeout=240_000
    )


@dataclass
class UserLab:
    """A hub user's JupyterLab, in the shape StudentView expects of a lab (`root`, `log`, `page_url`)."""

    hub: object
    name: str
    root: Path

    @property
    def log(self) -> Path:
        return self.hub.log

    def page_url(self, path: str) -> str:
        return f"{self.hub.url}/user/{self.name}/{path}"


class AssignmentsTab:
    """nbgrader's Assignments tab in one user's JupyterLab."""

    def __init__(self, page, lab: UserLab) -> None:
        self.page = page
        self.lab = lab
        self.panel = page.locator(LIST)

    def open(self) -> None:
        """Nbgrader > Assignment List in the user's JupyterLab; waits until the list has loaded."""
        if "/lab" not in self.page.url:
            self.page.goto(self.lab.page_url("lab"))
        self.show()

    def show(self) -> None:
        """Bring the Assignments tab to the front, opening it from the Nbgrader menu when it is not open."""
        tab = self.page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab").filter(has_text=re.compile(r"^Assignments$"))
        if tab.count():
            tab.first.click()
            return
        self._open_menu()
        self.page.locator(".lm-Menu .lm-Menu-item").filter(has_text="Assignment List").click()
        self._settled()

    def _open_menu(self) -> None:
        menu = self.page.locator(".lm-MenuBar-item").filter(has_text=re.compile(r"^Nbgrader$"))
        menu.wait_for(timeout=180_000)
        menu.click()
        self.page.locator(".lm-Menu").first.wait_for()

    def menu_entries(self) -> list[str]:
        """The labels JupyterLab's Nbgrader menu shows (the student configuration leaves one)."""
        self._open_menu()
        labels = [
            label.strip()
            for label in self.page.locator(".lm-Menu .lm-Menu-itemLabel").all_inner_texts()
            if label.strip()
        ]
        self.page.keyboard.press("Escape")
        return labels

    def refresh(self) -> None:
        self.show()
        self.panel.locator("#refresh_assignments_list").click()
        self._settled()

    def _settled(self) -> None:
        # The course menu is enabled again once the course list and the assignment list have loaded.
        self.panel.locator("#course_list_dropdown:not([disabled])").wait_for(timeout=120_000)
        for section in ("released", "fetched", "submitted"):
            self.panel.locator(f"#{section}_assignments_list_loading").wait_for(state="hidden")
        error = self.panel.locator(".list_error:visible")
        if error.count():
            raise AssertionError(f"the Assignments tab shows an error: {error.first.inner_text()}")

    def row(self, section: str, assignment: str):
        return self.panel.locator(f"#{section}_assignments_list > .list_item").filter(has_text=assignment)

    def fetch(self, assignment: str) -> None:
        self.row("released", assignment).get_by_role("button", name="fetch").click()
        self.row("fetched", assignment).wait_for()

    def notebook_row(self, assignment: str, notebook: str):
        self.show()
        row = self.row("fetched", assignment)
        entry = row.locator(".nested_list_item").filter(has_text=notebook)
        for _ in range(10):
            if entry.is_visible():
                return entry
            row.locator("a.assignment-notebooks-link").click()
            self.page.wait_for_timeout(300)
        raise AssertionError(f"the notebooks of {assignment} do not unfold in the Assignments tab")

    def open_notebook(self, lesson: str, artifacts: Path) -> StudentView:
        """Click the lesson's notebook in the downloaded assignment; returns it as a StudentView."""
        self.notebook_row(lesson, lesson).locator("a").filter(has_text=lesson).click()
        self.page.locator(CELL).first.wait_for()
        self.page.locator(
            ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook-ExecutionIndicator[data-status='idle']"
        ).wait_for(timeout=180_000)
        return StudentView(self.page, self.lab, lesson, artifacts)

    def validate(self, assignment: str, notebook: str) -> tuple[str, str]:
        """Press Validate next to the notebook; returns the result's class and text, and closes the dialog."""
        self.notebook_row(assignment, notebook).get_by_role("button", name="Validate").click()
        dialog = self.page.locator(".jp-Dialog").filter(has_text="Validation Results")
        dialog.wait_for(timeout=300_000)
        message = dialog.locator("#validation-message")
        found = (message.get_attribute("class") or "", message.inner_text())
        dialog.get_by_role("button", name="Ok").click()
        dialog.wait_for(state="detached")
        return found

    def submit(self, assignment: str) -> str:
        """Press Submit; returns the submission's timestamp as the Submitted list shows it."""
        self.row("fetched", assignment).get_by_role("button", name="Submit").click()
        submitted = self.row("submitted", assignment)
        submitted.wait_for()
        return submitted.locator(".list_item .item_name").first.inner_text().strip()

    def fetch_feedback(self, assignment: str) -> None:
        row = self.row("submitted", assignment)
        if "feedback available to fetch" not in row.inner_text():
            raise AssertionError(f"the Assignments tab does not offer feedback to fetch: {row.inner_text()!r}")
        row.get_by_role("button", name="Fetch Feedback").click()
        self.row("submitted", assignment).locator("a").filter(has_text="view feedback").wait_for()

    def open_feedback(self, assignment: str, notebook: str):
        """Follow "(view feedback)" to the feedback folder, open the notebook's HTML page in JupyterLab's
        viewer and return the viewer's frame."""
        self.row("submitted", assignment).locator("a").filter(has_text="view feedback").click()
        self.page.locator(".jp-DirListing-item").filter(has_text=f"{notebook}.html").dblclick()
        frame = self.page.frame_locator(".jp-MainAreaWidget:not(.lm-mod-hidden) iframe")
        frame.locator("#toc").wait_for()
        return frame


def feedback_scores(frame) -> tuple[tuple[float, float], dict[str, float]]:
    """(total, maximum) and {test grade id: score} as the feedback page's table of contents shows them."""
    heading = frame.locator("h4").first.inner_text()
    total = TOC_ENTRY.search(heading)
    if total is None:
        raise AssertionError(f"the feedback page shows no total score: {heading!r}")
    scores = {}
    for entry in frame.locator("#toc li").all():
        target = entry.locator("a").first.get_attribute("href") or ""
        score = TOC_ENTRY.search(entry.inner_text())
        if target.startswith("#") and score:
            scores[target[1:]] = float(score.group(1))
    return (float(total.group(1)), float(total.group(2))), scores
