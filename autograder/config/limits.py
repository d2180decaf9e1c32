"""The grader's limits: their defaults, and their form on the wire to the judges and the children.

Each is a `c.Autograder.*` setting (`settings.Autograder` declares it, with its help); the coordinator
reads them once (`settings.read_limits`) and every job carries them, so a judge and a child hold the
limits the run was planned with.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Limits:
    cell_timeout: float = 30.0  # nbgrader's own default for c.Execute.timeout
    notebook_timeout: float = 300.0
    memory_mb: int = 4096
    output_kb: int = 1024
    max_processes: int = 256
    max_file_mb: int = 64
    scratch_mb: int = 1024
    scratch_files: int = 20000
    judge_memory_mb: int = 4096
    files_count: int = 50
    files_mb: int = 64
    notebook_output_mb: int = 16
    autograded_mb: int = 32
    feedback_mb: int = 48
    start_timeout: float = 60.0
    exit_timeout: float = 5.0
    probe_sync_timeout: float = 10.0
    stop_timeout: float = 10.0
    pool_start_timeout: float = 180.0
    judge_grace: float = 120.0
    stderr_fails_test: bool = True  # nbgrader's rule: a test cell with anything on stderr scores 0


def as_dict(limits: Limits) -> dict:
    return {f.name: getattr(limits, f.name) for f in fields(Limits)}


def from_dict(data: dict) -> Limits:
    return Limits(**{f.name: data[f.name] for f in fields(Limits) if f.name in data})
