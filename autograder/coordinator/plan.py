"""Planning a run: one job per notebook handed in, keyed by everything its result depends on.

A job carries its content (`judge.jobs`), so any machine can grade it. Its key hashes the submission,
the instructor's template, the limits, the course code and the files handed in beside it
(`scoring.record_key`); a notebook whose record under `.autograder/results/` has the same key is not
graded again, so an interrupted run resumes where it stopped and a re-run gives the same gradebook.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from autograder.config import nbconfig
from autograder.config.limits import Limits, as_dict
from autograder.grades import records
from autograder.grades import gradebook
from autograder.rules import scoring


STATE_DIR = ".autograder"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def use_course_references(course_dir: Path) -> None:
    """Make the instructor's references importable for the judges when only the course folder holds them.

    On a shared machine (a JupyterHub) the environment everyone's servers run in carries `course` and
    `autograder` but never `instructor`; the references stay in the instructor's private course folder.
    Appended, not prepended, so nothing else in that folder shadows an installed module; the sandbox
    hides whichever copy is found (`sandbox.layers.hidden_paths`).
    """
    if importlib.util.find_spec("instructor") is None and (course_dir / "instructor" / "__init__.py").is_file():
        sys.path.append(str(course_dir))
        importlib.invalidate_caches()


def _has_symlink(folder: Path) -> bool:
    if folder.is_symlink():
        return True
    for root, dirs, files in os.walk(folder, followlinks=False):
        for name in dirs + files:
            if os.path.islink(os.path.join(root, name)):
                return True
    return False


def plain_files(folder: Path):
    """(path relative to `folder`, full path) of each regular file under `folder`, found without following a
    symbolic link (to a file or to a folder): the files `Path.rglob` finds that are files and not links, in
    one pass of `os.scandir` a folder. A folder that cannot be listed is passed over."""
    folders = [(str(folder), "")]
    while folders:
        here, prefix = folders.pop()
        try:
            with os.scandir(here) as entries:
                found = list(entries)
        except (FileNotFoundError, NotADirectoryError, PermissionError):
            continue
        for entry in found:
            if entry.is_dir(follow_symlinks=False):
                folders.append((entry.path, f"{prefix}{entry.name}/"))
            elif entry.is_file(follow_symlinks=False):
                yield prefix + entry.name, entry.path


def handed_in_files(folder: Path, limits: Limits) -> tuple[list[dict], list[str]]:
    """The files a student handed in beside the notebook, within the count and size caps; and a note when some were left out."""
    kept: list[dict] = []
    left: list[str] = []
    total = 0
    for relative, full in sorted(plain_files(folder), key=lambda found: found[0].split("/")):  # as Paths sort
        path = Path(full)
        if path.suffix == ".ipynb" or path.name == "timestamp.txt":
            continue
        size = path.stat().st_size
        if len(kept) >= limits.files_count or total + size > limits.files_mb * 1024 * 1024:
            left.append(relative)
            continue
        total += size
        kept.append({"from": full, "to": relative, "student": True})
    notes = []
    if left:
        notes.append(
            f"{len(left)} of the files handed in beside the notebook were not given to it: over the limit of "
            f"{limits.files_count} files and {limits.files_mb} MB (c.Autograder.max_handed_in_files, "
            f"max_handed_in_mb); left out: {', '.join(left[:5])}{' ...' if len(left) > 5 else ''}"
        )
    return kept, notes


@dataclass
class Submission:
    student: str
    assignment: str
    folder: Path
    notebooks: list[str]
    jobs: dict[str, dict] = field(default_factory=dict)  # notebook -> job (None when not handed in)
    results: dict[str, dict] = field(default_factory=dict)
    reason: str | None = None


def write_templates(course_dir: Path, state: Path, assignments: list[str]) -> tuple[dict, dict]:
    """Each notebook's template as JSON under `.autograder/templates/`, written once for the class (jobs name
    the file): {(assignment, notebook): (path, hash)}, and {assignment: its notebooks, or why it cannot be graded}."""
    templates: dict[tuple[str, str], tuple[Path, str]] = {}
    notebooks_of: dict[str, list[str] | str] = {}
    for assignment in assignments:
        try:
            names = gradebook.notebook_names(course_dir, assignment)
        except LookupError as exc:
            notebooks_of[assignment] = str(exc)
            continue
        notebooks_of[assignment] = names
        for name in names:
            text = json.dumps(gradebook.template(course_dir, assignment, name), sort_keys=True)
            path = state / "templates" / assignment / f"{name}.json"
            try:
                if not path.is_file() or path.read_text(encoding="utf-8") != text:
                    records.write_retrying(path, text)
            except OSError as exc:
                notebooks_of[assignment] = (
                    f"the grader could not write its copy of the template of {name}: {records.one_line(exc)}"
                )
                break
            templates[(assignment, name)] = (path, _sha(text.encode()))
    return templates, notebooks_of


def submissions(
    course_dir: Path,
    pairs: list[tuple[str, str]],
    notebooks_of: dict,
    templates: dict,
    *,
    limits: Limits,
    code_hash: str,
    tests_in_sandbox: bool,
    allow_weak_sandbox: bool,
) -> list[Submission]:
    """A Submission for each pair, with a job for each notebook handed in; a job's key hashes everything
    its result depends on (the submission, the template, the limits, the course code, the other files)."""
    submissions: list[Submission] = []
    keep_theirs = nbconfig.section(course_dir, "Autograde").get("exclude_overwriting") or {}
    for student, assignment in pairs:
        folder = course_dir / "submitted" / student / assignment
        names = notebooks_of[assignment]
        sub = Submission(student, assignment, folder, names if isinstance(names, list) else [])
        submissions.append(sub)
        if isinstance(names, str):
            sub.reason = names
            continue
        if _has_symlink(folder):
            sub.reason = "the submission contains a symbolic link: refused"
            continue
        extras, notes = handed_in_files(folder, limits)
        source_dir = course_dir / "source" / assignment
        # as nbgrader's autograde: the instructor's files replace the student's, but for exclude_overwriting's
        not_ours = {os.path.normpath(name) for name in keep_theirs.get(assignment, [])}
        extras += [
            {"from": str(p), "to": str(p.relative_to(source_dir))}
            for p in sorted(source_dir.rglob("*"))
            if p.is_file()
            and p.suffix != ".ipynb"
            and ".ipynb_checkpoints" not in p.parts
            and str(p.relative_to(source_dir)) not in not_ours
        ]
        given = [(e["to"], _sha(Path(e["from"]).read_bytes())) for e in extras]
        # the note naming files left out reaches the student's feedback: a result depends on it too
        extras_hash = _sha(json.dumps([given, notes] if notes else given).encode())
        for name in sub.notebooks:
            path = folder / f"{name}.ipynb"
            if not path.exists() and not path.is_symlink():
                continue
            template_path, template_hash = templates[(assignment, name)]
            try:
                content = (
                    _sha(path.read_bytes())
                    if path.stat().st_size <= 64 * 1024 * 1024
                    else f"size:{path.stat().st_size}"
                )
            except OSError as exc:
                content = f"unreadable:{exc}"
            key = scoring.record_key(
                content=content,
                template_hash=template_hash,
                limits=as_dict(limits),
                code_hash=code_hash,
                files_hash=extras_hash,
                tests_in_sandbox=tests_in_sandbox,
            )
            sub.jobs[name] = {
                "key": key,
                "student": student,
                "assignment": assignment,
                "notebook": name,
                "submission": str(path),
                "template": str(template_path),
                "limits": as_dict(limits),
                "extra_files": extras,
                "tests_in_sandbox": tests_in_sandbox,
                "allow_weak_sandbox": allow_weak_sandbox,
                "code": code_hash,
                "notes": notes,
            }
    return submissions


def jobs_to_run(submissions: list[Submission], state: Path, *, force: bool) -> list[dict]:
    """The jobs to grade: those without a record of the same key. A record that matches is reused as the
    notebook's result; records a killed run left in its journal count."""
    records.fold_leftovers(state)
    to_run: list[dict] = []
    for sub in submissions:
        for name, job in sub.jobs.items():
            old = {} if force else records.read_record(state, job)
            if old.get("job") == job["key"]:
                sub.results[name] = old
                continue
            to_run.append(job)
    return to_run
