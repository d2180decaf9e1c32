"""Every `c.Autograder.*` setting of the course's nbgrader_config.py, declared once with its default and help.

`Autograder` is a traitlets class, as nbgrader's own settings are: traitlets checks each value's type,
and a key it does not declare (a typo) is an error naming the closest setting, never silently ignored.
The limits' defaults are `limits.Limits`' own; `autograder --help-config` prints this class.
"""

from __future__ import annotations

import difflib
import textwrap
from pathlib import Path

from traitlets import Bool, CFloat, CInt, List, TraitError, Unicode
from traitlets.config import Configurable

from autograder.config import nbconfig
from autograder.rules import items
from autograder.config.limits import Limits

SECTION = "Autograder"
KINDS = {
    "Bool": "True or False",
    "CFloat": "a number",
    "CInt": "a whole number",
    "List": "a list of variable names",
    "Unicode": "a string",
}


class SettingsError(ValueError):
    """A setting of nbgrader_config.py the grader cannot take; the message says which and why, in one line."""


def _limit(kind, field: str, text: str):
    """A positive limit whose default is `Limits.<field>`; the trait remembers which field it sets. Numbers
    are taken in any form (`2048`, `2048.0`, `"2048"`), as the grader always took them."""
    return kind(getattr(Limits, field), help=text).tag(config=True, limit=field)


def _positive(default: float, text: str):
    """A positive number of seconds the coordinator itself uses (not a limit the judges carry)."""
    return CFloat(default, help=text).tag(config=True, positive=True)


class Autograder(Configurable):
    """The grader's settings (c.Autograder.* in nbgrader_config.py)."""

    cell_timeout = _limit(
        CFloat,
        "cell_timeout",
        "seconds for one student cell, or for one test cell's calls into the child; unset, c.Execute.timeout "
        "as nbgrader takes it (None or -1: only the notebook's limit)",
    )
    notebook_timeout = _limit(
        CFloat, "notebook_timeout", "seconds for the whole notebook; cells after it are not run, their tests fail"
    )
    memory_limit_mb = _limit(
        CInt,
        "memory_mb",
        "memory of one notebook, all its processes and its scratch files together "
        "(a memory cgroup); each process's address space beyond the zygote's as well",
    )
    output_limit_kb = _limit(CInt, "output_kb", "recorded output per cell; the rest is cut with a note")
    max_processes = _limit(CInt, "max_processes", "processes at once in one notebook's sandbox")
    max_file_mb = _limit(CInt, "max_file_mb", "size of one file the notebook writes")
    scratch_mb = _limit(CInt, "scratch_mb", "size of the notebook's own scratch folder (a tmpfs of its own)")
    scratch_files = _limit(CInt, "scratch_files", "files and folders the notebook's scratch folder can hold (inodes)")
    judge_memory_mb = _limit(
        CInt, "judge_memory_mb", "memory of each judge process (a memory cgroup); over it, the notebook it grades fails"
    )
    max_handed_in_files = _limit(
        CInt, "files_count", "files a student may hand in beside the notebook; the rest are not given to it"
    )
    max_handed_in_mb = _limit(
        CInt, "files_mb", "total size of the files handed in beside the notebook; past it the rest are not given to it"
    )
    max_notebook_output_mb = _limit(
        CInt, "notebook_output_mb", "total recorded output of one notebook; later outputs are replaced by a note"
    )
    max_autograded_mb = _limit(
        CInt, "autograded_mb", "size of the autograded notebook; past it the largest outputs are replaced by a note"
    )
    max_feedback_mb = _limit(
        CInt, "feedback_mb", "size of one feedback page; past it the page is replaced by a short one that says why"
    )
    start_timeout = _limit(
        CFloat,
        "start_timeout",
        "seconds a notebook's sandboxed process has to start, arm its tamper guard and take the files handed in",
    )
    exit_timeout = _limit(
        CFloat,
        "exit_timeout",
        "seconds a graded notebook's process has to exit when asked; what it sends meanwhile is read for "
        "probe reports nobody asked for",
    )
    probe_sync_timeout = _limit(
        CFloat, "probe_sync_timeout", "seconds a probe's process has to answer the grader's check after each test cell"
    )
    stop_timeout = _limit(
        CFloat,
        "stop_timeout",
        "seconds the grader's own processes (the judges, the zygote) have to exit before they are killed",
    )
    pool_start_timeout = _limit(
        CFloat,
        "pool_start_timeout",
        "seconds the grading pool (the zygote and the judges, which import torch) has to start, here or on a Dask worker",
    )
    judge_grace = _limit(
        CFloat,
        "judge_grace",
        "seconds a judge may take on one notebook beyond notebook_timeout and cell_timeout together (forks, probes, "
        "writing the result) before it is stopped and the notebook fails",
    )
    stderr_fails_test = Bool(
        Limits.stderr_fails_test,
        help="nbgrader's rule: a test cell that writes anything to stderr (a warning from the student's code "
        "included) scores 0; False scores the verdict alone, and stderr is shown as stdout",
    ).tag(config=True, limit="stderr_fails_test", switch=True)
    cluster_connect_timeout = _positive(30.0, "seconds to reach the Dask scheduler when a cluster run starts")
    cluster_check_interval = _positive(
        30.0, "how often, in seconds, a cluster run with nothing finished checks that the scheduler still has workers"
    )
    record_wait = _positive(
        2.0,
        "the longest, in seconds, a graded submission waits for its gradebook transaction while grading goes on "
        "(results are recorded in batches)",
    )
    sandbox_environment = List(
        Unicode(),
        help="names of the grader's environment student code may also see, beyond a fixed list of "
        "locale, search-path, thread-count and GPU-selection variables",
    ).tag(config=True)
    cluster = Unicode(
        "",
        help="the Dask scheduler to grade on, such as tls://scheduler:8786 (empty: this machine); "
        "`autograder grade --cluster` and `--local` override it",
    ).tag(config=True)


def names() -> list[str]:
    """Every setting's key, in alphabetical order."""
    return list(Autograder.class_own_traits(config=True))


def _execute_timeout(config, notebook_timeout: float) -> float:
    """nbgrader's limit on one cell, for a course that sets no c.Autograder.cell_timeout: c.Execute.timeout,
    where None or a value under 1 means no limit of its own (the notebook's limit still holds), else nbgrader's default."""
    if "timeout" not in config.get("Execute", {}):
        return Limits.cell_timeout
    value = config.Execute.timeout
    if value is None:
        return notebook_timeout
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise SettingsError(f"c.Execute.timeout must be a number or None, got {value!r}") from None
    return seconds if seconds > 0 else notebook_timeout


def read(course_dir: Path) -> Autograder:
    """The course's settings; SettingsError for an unknown key, a value of the wrong kind or a limit that
    is not positive."""
    config = nbconfig.load(course_dir)
    given = dict(config.get(SECTION, {}))
    known = names()
    for key in given:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise SettingsError(f"c.{SECTION}.{key} is not a setting{hint}; `autograder --help-config` lists them")
    settings = Autograder()
    for key, value in given.items():
        try:
            setattr(settings, key, value)
        except TraitError:
            kind = KINDS.get(type(Autograder.class_traits()[key]).__name__, "value of its kind")
            raise SettingsError(f"c.{SECTION}.{key} must be {kind}, got {value!r}") from None
        metadata = Autograder.class_traits()[key].metadata
        if (
            (metadata.get("limit") or metadata.get("positive"))
            and not metadata.get("switch")
            and not getattr(settings, key) > 0
        ):
            raise SettingsError(f"c.{SECTION}.{key} must be positive, got {value!r}")
    if "cell_timeout" not in given:
        settings.cell_timeout = _execute_timeout(config, settings.notebook_timeout)
    mismatch = items.marker_mismatch(config)
    if mismatch:
        raise SettingsError(mismatch)
    for name in settings.sandbox_environment:
        if not name.isidentifier():
            raise SettingsError(f"c.{SECTION}.sandbox_environment must be a list of variable names, got {name!r}")
    return settings


def limits(settings: Autograder) -> Limits:
    """The limits the settings give, as the judges and the children carry them."""
    traits = Autograder.class_traits()
    return Limits(
        **{
            traits[key].metadata["limit"]: getattr(settings, key)
            for key in names()
            if traits[key].metadata.get("limit")
        }
    )


def read_limits(course_dir: Path) -> Limits:
    """The course's limits (`c.Autograder.*`); unset keys keep their defaults."""
    return limits(read(course_dir))


def read_environment(course_dir: Path) -> tuple[str, ...]:
    """`c.Autograder.sandbox_environment`: names of the grader's environment student code may also see."""
    return tuple(read(course_dir).sandbox_environment)


def help_text(width: int = 100) -> str:
    """Every setting with its default and help, as `autograder --help-config` prints it."""
    lines = [f"Settings of the grader, set in the course's nbgrader_config.py as c.{SECTION}.<name> = <value>:", ""]
    for key in names():
        trait = Autograder.class_traits()[key]
        lines.append(f"c.{SECTION}.{key} = {trait.default()!r}  ({KINDS[type(trait).__name__]})")
        lines += textwrap.wrap(trait.help, width=width, initial_indent="    ", subsequent_indent="    ")
    return "\n".join(lines)
