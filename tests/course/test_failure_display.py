"""A failed check shows the student one message at their own line, in IPython as in a real kernel."""

from __future__ import annotations

import nbformat
import pytest
from IPython.core.interactiveshell import InteractiveShell
from traitlets.config import Config

from tests.conftest import ROOT

SHOWN_AT_MOST = 6


@pytest.fixture
def shell():
    """An IPython shell that keeps the lines it would show for each error."""
    config = Config()
    config.HistoryManager.enabled = False
    ip = InteractiveShell.instance(config=config)
    shown: list[list[str]] = []
    ip._showtraceback = lambda etype, evalue, stb: shown.append(list(stb))
    ip.shown = shown
    yield ip
    InteractiveShell.clear_instance()


def _run(ip, *cells: str) -> list[str]:
    for cell in cells:
        ip.run_cell(cell, store_history=True)
    assert ip.shown, "the last cell was meant to fail"
    return ip.shown[-1]


def _no_course_frame(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert len(lines) <= SHOWN_AT_MOST, text
    assert "course/" not in text and "checks.py" not in text and "During handling" not in text, text


def test_a_failed_value_check_shows_the_cells_line_and_the_message(shell):
    lines = _run(
        shell,
        "from course.checks import check_equal",
        "def rank(t):\n    return 1\n",
        "x = 3\ncheck_equal(rank(x), 2, what='rank(x)')\n",
    )
    _no_course_frame(lines)
    assert lines[-1].startswith("CheckFailed: ") and "rank(x)" in lines[-1]
    assert lines[0] == "Cell In[3], line 2" and lines[1] == "    check_equal(rank(x), 2, what='rank(x)')"


def test_when_the_students_code_raises_the_line_shown_is_where_it_raised(shell):
    lines = _run(
        shell,
        "import torch\nfrom course.checks import check_runs",
        "def flat(t):\n    n = t.numel()\n    return t.view(n + 1)\n",
        "check_runs(flat, torch.zeros(2, 3), what='flat(a (2, 3) tensor)')\n",
    )
    _no_course_frame(lines)
    assert lines[0] == "Cell In[2], line 3" and lines[1] == "    return t.view(n + 1)"
    assert "Expected flat(a (2, 3) tensor) to work, but it raised RuntimeError" in lines[-1]


def test_an_error_that_is_not_a_check_keeps_its_full_traceback(shell):
    lines = _run(shell, "def f():\n    raise ValueError('mine')\n", "f()")
    assert "ValueError" in "\n".join(lines) and len(lines) > 1


@pytest.mark.process
def test_a_real_kernel_sends_the_short_display_and_the_release_cell_fails_with_it(tmp_path):
    """Executed by a real ipykernel, as JupyterLab and nbgrader's Validate run a cell: the error output is short."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(f"import sys\nsys.path.insert(0, {str(ROOT)!r})"),
        nbformat.v4.new_code_cell("def rank(t):\n    return t.dim() + 1"),
        nbformat.v4.new_code_cell(
            "import torch\nfrom course.checks import check_equal\n"
            "check_equal(rank(torch.zeros(2, 3)), 2, what='rank of a (2, 3) tensor')"
        ),
    ]
    client = NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    with pytest.raises(CellExecutionError):
        client.execute()
    (error,) = [out for out in nb.cells[2].outputs if out.output_type == "error"]
    _no_course_frame(error.traceback)
    assert error.ename == "CheckFailed" and error.traceback[-1].startswith("CheckFailed: Expected rank of a (2, 3)")
    assert error.traceback[0].endswith("line 3")
