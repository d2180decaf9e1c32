"""The course's nbgrader_config.py, read as nbgrader reads it (the grader's `c.Autograder.*` included)."""

from __future__ import annotations

import copy
import functools
from pathlib import Path

from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

FILE = "nbgrader_config.py"


def load(course_dir: Path) -> Config:
    """The configuration of the course at `course_dir` (empty when it has no nbgrader_config.py); a copy of
    its own, sections included, so a caller's change never reaches the next reader."""
    path = Path(course_dir) / FILE
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return Config()
    return copy.deepcopy(_load(str(path.resolve()), stamp))


@functools.lru_cache(maxsize=16)
def _load(path: str, stamp: int) -> Config:
    folder, name = Path(path).parent, Path(path).name
    return PyFileConfigLoader(name, path=str(folder)).load_config()


def section(course_dir: Path, name: str) -> dict:
    """One section of the configuration (`c.<name>.*`) as a plain dict."""
    return dict(load(course_dir).get(name, {}))
