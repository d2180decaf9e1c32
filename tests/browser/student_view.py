"""What a student does in JupyterLab, as Playwright steps: open a lesson, run cells, type answers, validate.

Cells are addressed by their index in the notebook file, which is also their order on the page; which
cell is which comes from the nbgrader metadata of the released notebook, never from its prose.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RELEASE = ROOT / "release"
CELL = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell"
PROMPT_DONE = re.compile(r"^\[\d+\]:$")

IMAGES_JS = """
async (root) => {
  const found = [];
  for (const img of root.querySelectorAll('.jp-Cell img')) {
    img.scrollIntoView();
    try { await img.decode(); } catch (e) {}
    found.push({
      width: img.naturalWidth,
      height: img.naturalHeight,
      cell: [...root.querySelectorAll('.jp-Cell')].indexOf(img.closest('.jp-Cell')),
      in_output: img.closest('.jp-OutputArea') !== null,
    });
  }
  return found;
}
"""


def released_lessons() -> list[str]:
    """The released lessons, in course order (`lessons/ORDER`)."""
    from autograder.authoring.lessons import course_order

    found = [p.name for p in RELEASE.iterdir() if p.is_dir() and any(p.glob("*.ipynb"))] if RELEASE.is_dir() else []
    return course_order(ROOT, found)


def artifacts_dir() -> Path:
    """Where screenshots of failed steps go: $BROWSER_ARTIFACTS, else artifacts/browser."""
    path = Path(os.environ.get("BROWSER_ARTIFACTS") or ROOT / "artifacts" / "browser")
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass(frozen=True)
class Cell:
    index: int
    kind: str
    source: str
    grade_id: str | None
    solution: bool
    grade: bool
    tags: tuple[str, ...]


def notebook_cells(path: Path) -> list[Cell]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = []
    for index, cell in enumerate(nb["cells"]):
        meta = cell.get("metadata", {})
        nbgrader = meta.get("nbgrader", {})
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        cells.append(
            Cell(
                index,
                cell["cell_type"],
                source,
                nbgrader.get("grade_id"),
                bool(nbgrader.get("solution")),
                bool(nbgrader.get("grade")),
                tuple(meta.get("tags", ())),
            )
        )
    return cells


def wrong_answer(cell: Cell) -> str:
    """A wrong answer for any answer cell that no visible check accepts: a function that returns None, or a
    quiz answer that is no letter, shape or list of numbers."""
    function = re.search(r"^def (\w+)\(", cell.source, re.M)
    if function:
        return f"def {function.group(1)}(*args, **kwargs):\n    return None\n"
    variable = re.search(r"^(\w+) = None", cell.source, re.M)
    if variable:
        return f"{variable.group(1)} = 'not an answer'\n"
    raise ValueError(f"cannot tell what answer cell {cell.grade_id!r} defines")


class StudentView:
    """One lesson open in a browser tab of the student's JupyterLab."""

    def __init__(self, page, lab, lesson: str, artifacts: Path) -> None:
        self.page = page
        self.lab = lab
        self.lesson = lesson
        self.artifacts = artifacts
        self.path = lab.root / lesson / f"{lesson}.ipynb"
        self.cells = notebook_cells(self.path)

    @contextlib.contextmanager
    def step(self, name: str):
        """Run one step; if it fails, keep a screenshot and the server log, named after the lesson and step."""
        try:
            yield
        except BaseException:
            slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{self.lesson}-{name}")
            with contextlib.suppress(Exception):
                self.page.screenshot(path=str(self.artifacts / f"{slug}.png"))
            with contextlib.suppress(OSError):
                shutil.copyfile(self.lab.log, self.artifacts / f"{slug}-jupyter.log")
            raise

    def open(self) -> None:
        self.page.goto(self.lab.page_url(f"lab/tree/{self.lesson}/{self.lesson}.ipynb"))
        self.page.locator(CELL).first.wait_for()
        self.page.locator(
            ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook-ExecutionIndicator[data-status='idle']"
        ).wait_for(timeout=120_000)
        panels = self.page.locator(".jp-NotebookPanel").count()
        assert panels == 1, f"JupyterLab shows {panels} notebooks: an earlier test's workspace was restored"
        deadline = (
            time.monotonic() + 120
        )  # JupyterLab adds a long notebook's cells a few at a time; slowly on a busy machine
        while (shown := self.page.locator(CELL).count()) != len(self.cells):
            if time.monotonic() > deadline:
                raise AssertionError(f"the page shows {shown} cells, the notebook has {len(self.cells)}")
            self.page.wait_for_timeout(200)

    def cell(self, index: int):
        return self.page.locator(CELL).nth(index)

    def prompt(self, index: int) -> str:
        return self.cell(index).locator(".jp-InputPrompt").inner_text().strip()

    def run(self, index: int, *, timeout: float = 180.0) -> None:
        """Run one code cell as a student does (select it, Ctrl+Enter) and wait until it has finished."""
        cell = self.cell(index)
        cell.scroll_into_view_if_needed()
        before = self.prompt(index)
        cell.locator(".jp-InputPrompt").click()
        self.page.keyboard.press("Control+Enter")
        deadline = time.monotonic() + timeout
        while True:
            now = self.prompt(index)
            if PROMPT_DONE.match(now) and now != before:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"cell {index} did not finish within {timeout:.0f} s (prompt {now!r})")
            self.page.wait_for_timeout(100)

    def run_all_one_by_one(self) -> None:
        """Every code cell in order, waiting for each, so an unanswered exercise does not stop the rest."""
        for cell in self.cells:
            if cell.kind == "code":
                self.run(cell.index)

    def type_answer(self, index: int, text: str, *, paste: bool = False) -> None:
        """Replace an answer cell's code: typed key by key (the editor indents and closes brackets as for
        a person), or pasted in one go for long answers."""
        editor = self.cell(index).locator(".cm-content")
        editor.scroll_into_view_if_needed()
        editor.click()
        self.page.keyboard.press("Control+A")
        self.page.keyboard.press("Delete")
        if paste:
            self.page.keyboard.insert_text(text)
        else:
            self.page.keyboard.type(text)
        self.page.keyboard.press("Escape")
        typed = self.cell(index).locator(".cm-content").inner_text()
        if typed.strip().splitlines()[0].strip() != text.strip().splitlines()[0].strip():
            raise AssertionError(f"the editor of cell {index} holds {typed!r} after typing")

    def output_text(self, index: int) -> str:
        area = self.cell(index).locator(".jp-OutputArea")
        area.scroll_into_view_if_needed()
        return area.text_content() or ""

    def images(self) -> list[dict]:
        return self.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook").evaluate(IMAGES_JS)

    def save(self, *, timeout: float = 30.0) -> dict:
        """Save with Ctrl+S and return the notebook as stored on disk once the file has changed."""
        before = self.path.stat().st_mtime_ns
        self.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-InputPrompt").first.click()
        self.page.keyboard.press("Control+S")
        deadline = time.monotonic() + timeout
        while self.path.stat().st_mtime_ns == before:
            if time.monotonic() > deadline:
                raise AssertionError(f"Ctrl+S did not save {self.path.name} within {timeout:.0f} s")
            self.page.wait_for_timeout(100)
        self.page.locator(".lm-TabBar-tab.jp-mod-current.jp-mod-dirty").wait_for(
            state="detached", timeout=timeout * 1000
        )
        return json.loads(self.path.read_text(encoding="utf-8"))

    def validate(self, *, timeout: float = 300.0):
        """Press nbgrader's Validate toolbar button and return the result dialog."""
        self.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Toolbar-item").filter(has_text="Validate").click()
        dialog = self.page.locator(".jp-Dialog").filter(has_text="Validation Results")
        dialog.wait_for(timeout=timeout * 1000)
        return dialog

    def menu_entries(self, title: str) -> list[str]:
        """The labels of a main-menu menu, or [] when the menu bar has no such menu."""
        item = self.page.locator(".lm-MenuBar-item").filter(has_text=re.compile(rf"^{re.escape(title)}$"))
        if item.count() == 0:
            return []
        item.click()
        menu = self.page.locator(".lm-Menu").first
        menu.wait_for()
        labels = [label.strip() for label in menu.locator(".lm-Menu-itemLabel").all_inner_texts() if label.strip()]
        self.page.keyboard.press("Escape")
        return labels

    def sidebar_titles(self) -> list[str]:
        """Tab captions of the left and right side bars."""
        tabs = self.page.locator(".jp-SideBar .lm-TabBar-tab")
        return [t for t in (tabs.nth(i).get_attribute("title") or "" for i in range(tabs.count())) if t]

    def commands_matching(self, pattern: str) -> list[str]:
        """Entries of the command palette whose label contains `pattern`."""
        self.page.keyboard.press("Control+Shift+C")
        palette = self.page.locator("#modal-command-palette input, .jp-ModalCommandPalette input").first
        palette.wait_for()
        palette.fill(pattern)
        self.page.wait_for_timeout(300)
        found = self.page.locator(".jp-ModalCommandPalette .lm-CommandPalette-itemLabel").all_inner_texts()
        self.page.keyboard.press("Escape")
        return found
