"""The course's feedback page: nbgrader's own, with each graded item named and long lines wrapped.

nbgrader's page lists every test cell as "Test cell", so a student reads ten identical links, and it
cuts a long output line (a quiz's explanation) at the page's edge. The template in
`templates/named_items/` extends nbgrader's, names each item as the student wrote it (`tensor_rank`,
`answer_rank_meaning`) and wraps outputs. The course's nbgrader_config.py turns it on with
`use_named_items(c)`; stock `nbgrader generate_feedback` and `autograder feedback` then write the same
pages, and `feedback_pages` knows these settings as its own.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parent / "templates"
TEMPLATE_NAME = "named_items"
TEMPLATE_FILE = "named_items.html.j2"  # not index.html.j2, so that it can extend nbgrader's by that name
ITEM_FILTER = "autograder.rules.items.item_of"


def _nbgraders_templates() -> str:
    """The folder nbgrader's `generate_feedback` takes its feedback template from, found without importing nbgrader."""
    spec = importlib.util.find_spec("nbgrader")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("nbgrader is not installed")
    root = Path(next(iter(spec.submodule_search_locations)))
    return str(root / "server_extensions" / "formgrader" / "templates")


def settings() -> dict:
    """The `HTMLExporter` settings that make nbgrader's feedback pages name their items."""
    return {
        "template_name": TEMPLATE_NAME,
        "template_file": TEMPLATE_FILE,
        "extra_template_basedirs": [str(TEMPLATES), _nbgraders_templates()],
        "filters": {"item_name": ITEM_FILTER},
    }


def use_named_items(c) -> None:
    """Set the course's feedback template in nbgrader's configuration `c` (nbgrader_config.py calls it)."""
    for key, value in settings().items():
        setattr(c.HTMLExporter, key, value)


def is_named_items(section) -> bool:
    """Whether an `HTMLExporter` configuration section is exactly what `use_named_items` sets."""
    return dict(section) == settings()
