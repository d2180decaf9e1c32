"""The grading engine's coordinator: jobs, judge workers, the zygote, records and the gradebook.

The coordinator starts one zygote (through `sandbox.wrap_zygote`), imports torch and the course
while it warms up, then forks N judge workers that grade one notebook at a time
(`grading.grade_job`) and answer a JSON result. With a cluster (`autograder/cluster.py`) the same
jobs, carrying their content (`autograder/jobs.py`), go to the pools of Dask workers instead. The
coordinator alone writes: first a per-notebook result record (under `.autograder/results/`, naming
the worker that graded it; `autograder/records.py`), then `autograded/`, then the gradebook.
A record whose inputs (submission, instructor's template, limits, course code) are unchanged is
reused, so an interrupted run resumes where it stopped and a re-run gives the same gradebook.
"""

from __future__ import annotations

import collections
import functools
import hashlib
import importlib.util
import itertools
import json
import os
import selectors
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from autograder import cgroup, gradebook, jobs, limits as limits_mod, records, sandbox, scoring, settings, zygote

ENGINE_VERSION = "2"
STATE_DIR = ".autograder"

POLL_S = 5.0  # how often a pool with nothing to read looks at its judges (their time, their memory)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def use_course_references(course_dir: Path) -> None:
    """Make the instructor's references importable for the judges when only the course folder holds them.

    On a shared machine (a JupyterHub) the environment everyone's servers run in carries `course` and
    `autograder` but never `instructor`; the references stay in the instructor's private course folder.
    Appended, not prepended, so nothing else in that folder shadows an installed module; the sandbox
    hides whichever copy is found (`sandbox.hidden_paths`).
    """
    if importlib.util.find_spec("instructor") is None and (course_dir / "instructor" / "__init__.py").is_file():
        sys.path.append(str(course_dir))
        importlib.invalidate_caches()


def course_code_hash() -> str:
    """The code a grade depends on besides the submission: the course package and this engine."""
    import autograder
    import course
    import instructor

    digest = hashlib.sha256(ENGINE_VERSION.encode())
    for package in (course, autograder, instructor):
        root = Path(package.__file__).parent
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _has_symlink(folder: Path) -> bool:
    if folder.is_symlink():
        return True
    for root, dirs, files in os.walk(folder, followlinks=False):
        for name in dirs + files:
            if os.path.islink(os.path.join(root, name)):
                return True
    return False


def _write_retrying(path: Path, text: str, *, durable: bool = True) -> None:
    """`records.write_atomic`, tried again when the disk is full or descriptors ran out."""
    records.retrying(functools.partial(records.write_atomic, durable=durable), path, text)


def _one_line(exc: BaseException) -> str:
    """An error as one line: SQLAlchemy's first line (the database's own message), an OSError's errno and text."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def handed_in_files(folder: Path, limits: sandbox.Limits) -> tuple[list[dict], list[str]]:
    """The files a student handed in beside the notebook, within the count and size caps; and a note when some were left out."""
    kept: list[dict] = []
    left: list[str] = []
    total = 0
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.suffix == ".ipynb" or path.name == "timestamp.txt":
            continue
        size = path.stat().st_size
        if len(kept) >= limits.files_count or total + size > limits.files_mb * 1024 * 1024:
            left.append(str(path.relative_to(folder)))
            continue
        total += size
        kept.append({"from": str(path), "to": str(path.relative_to(folder)), "student": True})
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


# ------------------------------------------------------------------ processes


class Pool:
    """The zygote and the judge workers; `run` yields results as they come, in any order."""

    def __init__(
        self,
        course_dir: Path,
        workers: int,
        threads: int,
        *,
        allow_weak_sandbox: bool = False,
        limits: sandbox.Limits | None = None,
        environment: tuple[str, ...] = (),
    ):
        self.course_dir = course_dir
        self.size = workers
        self.threads = threads
        self.limits = limits or sandbox.Limits()
        self.scratch = Path(tempfile.mkdtemp(prefix="autograder-run-"))
        self.groups = cgroup.Groups()
        self._slots = itertools.count()
        master, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        argv = [sys.executable, "-m", "autograder.zygote", str(theirs.fileno()), str(threads), ",".join(environment)]
        self.zygote = subprocess.Popen(
            sandbox.wrap_zygote(argv, course_dir=course_dir),
            pass_fds=[theirs.fileno()],
            cwd=self.scratch,
            stdin=subprocess.DEVNULL,
            env=_env(threads, environment),
        )
        theirs.close()
        self.master = master
        self.workers: list[dict] = []
        try:
            sandbox.require(allow_weak_sandbox)  # while the zygote warms up; no student code runs before it
        except BaseException:
            self.master.close()
            self.zygote.kill()
            self.zygote.wait()
            raise
        _warm_judge()
        for _ in range(workers):
            self.workers.append(self._start_worker())
        master.settimeout(self.limits.pool_start_timeout)
        try:
            ready, _ = zygote.recv_message(master)
        except (socket.timeout, OSError):
            ready = None
        if not ready or not ready.get("ready"):
            self.close()
            raise RuntimeError("the sandbox zygote did not start (see its messages above)")
        self._registered = True
        master.settimeout(None)
        self._unacked = len(self.workers)
        if sandbox.gpu_devices():
            try:
                self._check_devices(allow_weak_sandbox)
            except BaseException:
                self.close()
                raise

    def _check_devices(self, allow_weak: bool) -> None:
        """Stop before any notebook when the sandbox sees other CUDA devices than the judges (`test_devices()` would differ)."""
        from autograder import grading

        judge_sees = _cuda_devices_in_a_fork()
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        zygote.send_message(self.master, {"op": "add"}, [theirs.fileno()])
        theirs.close()
        self._ack_adds(self._unacked + 1)
        self._unacked = 0
        session = grading.Session(
            mine, [], self.limits, time.monotonic() + self.limits.pool_start_timeout, allow_weak=allow_weak
        )
        try:
            session.ensure([])
            status, reply = session.run_cell("import torch\nprint(torch.cuda.device_count())")
            text = "".join(o.get("text", "") for o in reply.get("outputs", []) if isinstance(o, dict))
        finally:
            session.close()
            mine.close()
        child_sees = int(text.strip()) if status == "ok" and text.strip().isdigit() else -1
        if child_sees != judge_sees:
            raise sandbox.SandboxUnavailable(
                f"the sandbox sees {child_sees} CUDA device(s), the judges {judge_sees}: every `test_devices()` case would "
                "differ between them, so no notebook is graded. Check the /dev/nvidia* nodes and CUDA_VISIBLE_DEVICES."
            )

    def _start_worker(self, slot: int | None = None) -> dict:
        """A judge worker forked from this process, which has torch and the course imported already.

        Slot `n` has two memory cgroups, where the machine offers them: `judge-n` for the judge
        itself, `sandbox-n` for every process of the notebook it grades.
        """
        slot = next(self._slots) if slot is None else slot
        judge_group = self.groups.create(f"judge-{slot}", self.limits.judge_memory_mb)
        sandbox_group = self.groups.create(f"sandbox-{slot}", self.limits.memory_mb)
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        zygote.send_message(self.master, {"op": "add"}, [mine.fileno()])
        mine.close()
        job_r, job_w = os.pipe()
        result_r, result_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                os.close(job_w)
                os.close(result_r)
                self.master.close()
                for other in self.workers:
                    for stream in (other["stdin"], other["stdout"]):
                        try:
                            stream.close()
                        except OSError:
                            pass
                if judge_group is not None:
                    fd = judge_group.procs_fd()
                    cgroup.join(fd)
                    os.close(fd)
                worker_loop(theirs, job_r, result_w, memory=sandbox_group)
            except BaseException:
                traceback.print_exc()
                code = 1
            finally:
                os._exit(code)
        theirs.close()
        os.close(job_r)
        os.close(result_w)
        return {
            "pid": pid,
            "stdin": os.fdopen(job_w, "w", encoding="utf-8"),
            "stdout": os.fdopen(result_r, "r", encoding="utf-8"),
            "job": None,
            "since": 0.0,
            "slot": slot,
            "group": judge_group,
            "ooms": judge_group.oom_kills() if judge_group else 0,
        }

    def _ack_adds(self, count: int) -> None:
        for _ in range(count):
            zygote.recv_message(self.master)

    def run(self, jobs, limits=None, *, incoming=None) -> "iter[dict]":
        """Grade `jobs` (any iterable, read as judges free up); `limits` bound each job's time (by
        default its own). `incoming`, when given, is a feed of more jobs: `fileno()` to wait on, and
        `poll()` that answers the jobs that arrived, or None once the feed closed, which ends the run."""
        source = iter(jobs)
        pending: collections.deque = collections.deque()
        selector = selectors.DefaultSelector()
        self._ack_adds(self._unacked)
        self._unacked = 0
        for worker in self.workers:
            selector.register(worker["stdout"], selectors.EVENT_READ, worker)
        if incoming is not None:
            selector.register(incoming, selectors.EVENT_READ, None)
        busy = 0
        while True:
            pending.extend(itertools.islice(source, 0 if pending else 1))
            if not (pending or busy or incoming is not None):
                break
            for worker in self.workers:
                pending.extend(itertools.islice(source, 0 if pending else 1))
                if worker["job"] is None and pending:
                    job = pending.popleft()
                    worker["job"], worker["since"] = job, time.monotonic()
                    try:
                        worker["stdin"].write(json.dumps(job) + "\n")
                        worker["stdin"].flush()
                    except (BrokenPipeError, OSError):
                        pass
                    busy += 1
            events = selector.select(timeout=POLL_S)
            for key, _ in events:
                worker = key.data
                if worker is None:
                    arrived = incoming.poll()
                    if arrived is None:
                        return
                    pending.extend(arrived)
                    continue
                line = worker["stdout"].readline()
                job = worker["job"]
                if line:
                    try:
                        result = json.loads(line)
                    except ValueError:
                        continue
                    worker["job"] = None
                    busy -= 1
                    yield result
                    continue
                selector.unregister(worker["stdout"])
                over = worker["group"] is not None and worker["group"].oom_kills() > worker["ooms"]
                self._replace(worker, selector)
                if job is not None:
                    busy -= 1
                    yield jobs.failed_result(
                        job,
                        f"the grader's judge for this notebook went over its memory limit (c.Autograder.judge_memory_mb = "
                        f"{self.limits.judge_memory_mb} MB) and was stopped"
                        if over
                        else "the grader's worker process stopped while grading this notebook",
                    )
            now = time.monotonic()
            for worker in self.workers:
                if worker["job"] is not None and now - worker["since"] > _budget(worker["job"], limits):
                    job = worker["job"]
                    _kill(worker["pid"])
                    selector.unregister(worker["stdout"])
                    self._replace(worker, selector)
                    busy -= 1
                    yield jobs.failed_result(job, "grading this notebook took longer than the grader allows")

    def _replace(self, worker: dict, selector) -> None:
        _kill(worker["pid"])
        for stream in (worker["stdin"], worker["stdout"]):
            try:
                stream.close()
            except OSError:
                pass
        fresh = self._start_worker(worker["slot"])
        self._ack_adds(1)
        worker.update(fresh)
        selector.register(worker["stdout"], selectors.EVENT_READ, worker)

    def close(self) -> None:
        for worker in self.workers:
            try:
                worker["stdin"].close()
            except OSError:
                pass
        deadline = time.monotonic() + self.limits.stop_timeout
        for worker in self.workers:
            while time.monotonic() < deadline and os.waitpid(worker["pid"], os.WNOHANG) == (0, 0):
                time.sleep(0.01)
            _kill(worker["pid"])
            worker["stdout"].close()
        self.master.close()
        try:
            self.zygote.wait(timeout=self.limits.stop_timeout)
        except subprocess.TimeoutExpired:
            self.zygote.kill()
            self.zygote.wait()
        self.groups.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


def _cuda_devices_in_a_fork() -> int:
    """How many CUDA devices torch sees, asked in a throwaway child so this process never initialises CUDA before forking judges."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            import torch

            os.write(write_end, str(torch.cuda.device_count()).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as handle:
        data = handle.read()
    os.waitpid(pid, 0)
    return int(data) if data.strip().isdigit() else 0


def _env(threads: int, environment: tuple[str, ...] = ()) -> dict:
    """The zygote's environment: only what `sandbox.ENV_ALLOWED` and `environment` name, never the grader's secrets."""
    env = sandbox.sandbox_environment(os.environ, extra=environment)
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[name] = str(threads)
    env.setdefault("MPLBACKEND", "Agg")
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def _budget(job: dict, limits) -> float:
    """Seconds a judge may spend on `job` before it is stopped: the notebook's limit and some slack."""
    limits = limits or limits_mod.from_dict(job.get("limits", {}))
    return limits.notebook_timeout + limits.cell_timeout + limits.judge_grace


# ------------------------------------------------------------------ coordinator


def _write_templates(course_dir: Path, state: Path, assignments: list[str]) -> tuple[dict, dict]:
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
                    _write_retrying(path, text)
            except OSError as exc:
                notebooks_of[assignment] = (
                    f"the grader could not write its copy of the template of {name}: {_one_line(exc)}"
                )
                break
            templates[(assignment, name)] = (path, _sha(text.encode()))
    return templates, notebooks_of


def _plan(
    course_dir: Path,
    pairs: list[tuple[str, str]],
    notebooks_of: dict,
    templates: dict,
    *,
    limits: sandbox.Limits,
    code_hash: str,
    tests_in_sandbox: bool,
    allow_weak_sandbox: bool,
) -> list[Submission]:
    """A Submission for each pair, with a job for each notebook handed in; a job's key hashes everything
    its result depends on (the submission, the template, the limits, the course code, the other files)."""
    submissions: list[Submission] = []
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
        extras += [
            {"from": str(p), "to": str(p.relative_to(source_dir))}
            for p in sorted(source_dir.rglob("*"))
            if p.is_file() and p.suffix != ".ipynb" and ".ipynb_checkpoints" not in p.parts
        ]
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
            extras_hash = _sha(json.dumps([(e["to"], _sha(Path(e["from"]).read_bytes())) for e in extras]).encode())
            key = scoring.record_key(
                content=content,
                template_hash=template_hash,
                limits=limits_mod.as_dict(limits),
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
                "limits": limits_mod.as_dict(limits),
                "extra_files": extras,
                "tests_in_sandbox": tests_in_sandbox,
                "allow_weak_sandbox": allow_weak_sandbox,
                "code": code_hash,
                "notes": notes,
            }
    return submissions


def _to_run(submissions: list[Submission], state: Path, *, force: bool) -> list[dict]:
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


def _outcomes(pool, to_run: list[dict], limits: sandbox.Limits):
    """(result, keep) for each job as the pool answers; a job whose files the coordinator could not read is
    failed and not kept (no record), so that a re-run tries it again."""
    unreadable: list[dict] = []

    def loaded(plans):
        for plan in plans:
            try:
                yield records.retrying(jobs.load, plan)
            except OSError as exc:
                unreadable.append(
                    jobs.failed_result(plan, f"the grader could not read this notebook's files: {_one_line(exc)}")
                )

    for result in pool.run(loaded(to_run), limits):
        while unreadable:
            yield unreadable.pop(), False
        yield result, True
    while unreadable:
        yield unreadable.pop(), False


def _start_pool(
    course_dir: Path,
    jobs_count: int,
    options: settings.Autograder,
    *,
    shared: Pool | None,
    cluster: str | None,
    workers: int | None,
    allow_weak_sandbox: bool,
    allow_insecure_cluster: bool,
):
    """The pool a run grades with, and its number of judges (0 on a cluster): the `shared` pool the caller
    started, the Dask cluster at `cluster`, or this machine's zygote and judges, no more than there are jobs."""
    if shared is not None:
        return shared, shared.size
    if cluster:
        from autograder import cluster as cluster_mod

        pool = cluster_mod.Cluster(
            cluster,
            allow_insecure=allow_insecure_cluster,
            timeout=options.cluster_connect_timeout,
            check_interval=options.cluster_check_interval,
            stop_timeout=options.stop_timeout,
        )
        return pool, 0
    count = max(1, min(workers or os.cpu_count() or 1, jobs_count))
    threads = max(1, (os.cpu_count() or 1) // count)
    pool = Pool(
        course_dir,
        count,
        threads,
        allow_weak_sandbox=allow_weak_sandbox,
        limits=settings.limits(options),
        environment=tuple(options.sandbox_environment),
    )
    return pool, count


def _keep_result(sub: Submission, result: dict, keep: bool, kept: records.RecordWriter) -> dict | None:
    """Write a fresh result's record and put it in its submission; None for a notebook that already has one
    (a job that ran twice). A record that cannot be written fails the notebook, so that a re-run grades it."""
    if result["notebook"] in sub.results:
        return None
    job = sub.jobs[result["notebook"]]
    result.setdefault("worker", "local")
    try:
        if keep:
            kept.add(result, json.dumps(result))
    except OSError as exc:
        result = jobs.failed_result(job, f"the grader could not write this notebook's record: {_one_line(exc)}")
    sub.results[result["notebook"]] = result
    return result


def _by_notebook(submissions: list[Submission], key: str) -> dict[str, object]:
    """{student/assignment/notebook: the result's `key`} for every result that has one."""
    return {f"{s.student}/{s.assignment}/{n}": r[key] for s in submissions for n, r in s.results.items() if r.get(key)}


def grade(
    course_dir: Path,
    pairs: list[tuple[str, str]],
    *,
    workers: int | None = None,
    progress: bool = True,
    force: bool = False,
    tests_in_sandbox: bool = False,
    allow_weak_sandbox: bool = False,
    cluster: str | None = None,
    allow_insecure_cluster: bool = False,
    stats: dict | None = None,
    pool: Pool | None = None,
) -> dict[tuple[str, str], str]:
    """Grade each (student, assignment) submission; {(student, assignment): "ok" or a one-line reason}.

    Refuses to start (`sandbox.SandboxUnavailable`) on a machine without full confinement unless
    `allow_weak_sandbox`. With `cluster` (a Dask scheduler's address) the notebooks are graded by
    the cluster's workers; `cluster.ClusterError` stops the run (what was recorded is kept).
    `pool`, a `Pool` the caller started and will close, grades without starting one: a grader that
    grades one submission at a time as they arrive pays the zygote's start-up once.
    """
    planning = time.perf_counter()
    course_dir = course_dir.resolve()
    use_course_references(course_dir)
    gradebook.ensure_schema(course_dir)
    options = settings.read(course_dir)
    limits = settings.limits(options)
    state = course_dir / STATE_DIR
    code_hash = course_code_hash()
    templates, notebooks_of = _write_templates(course_dir, state, sorted({a for _, a in pairs}))
    planned = time.perf_counter()  # the run's fixed costs are behind; what follows grows with the class
    submissions = _plan(
        course_dir,
        pairs,
        notebooks_of,
        templates,
        limits=limits,
        code_hash=code_hash,
        tests_in_sandbox=tests_in_sandbox,
        allow_weak_sandbox=allow_weak_sandbox,
    )
    to_run = _to_run(submissions, state, force=force)
    run = _Run(course_dir, state, submissions, options, progress=progress)
    started = time.perf_counter()
    shared, count, startup_s = pool, 0, 0.0
    try:
        run.finish_waiting(to_run)
        if to_run:
            pool, count = _start_pool(
                course_dir,
                len(to_run),
                options,
                shared=shared,
                cluster=cluster,
                workers=workers,
                allow_weak_sandbox=allow_weak_sandbox,
                allow_insecure_cluster=allow_insecure_cluster,
            )
            startup_s = time.perf_counter() - started
            try:
                for result, keep in _outcomes(pool, to_run, limits):
                    run.take(result, keep)
            finally:
                run.pool_done(pool)
                if pool is not shared:
                    pool.close()
        run.finish_all()
    finally:
        run.close()
    if stats is not None:
        stats.update(
            run.stats(to_run),
            seconds=time.perf_counter() - started,
            setup_s=planned - planning,
            plan_s=started - planned,
            startup_s=startup_s if to_run else 0.0,
            workers=count if to_run and not cluster else 0,
        )
    return run.results


class _Run:
    """One run's bookkeeping while its jobs are graded: the results so far, the progress bar, the recorder
    and the coordinator's clock."""

    def __init__(
        self, course_dir: Path, state: Path, submissions: list[Submission], options, *, progress: bool
    ) -> None:
        self.submissions = submissions
        self.records = records.RecordWriter(state)
        self.results: dict[tuple[str, str], str] = {}
        self.by_pair = {(s.student, s.assignment): s for s in submissions}
        self.bar = tqdm(
            total=sum(len(s.jobs) for s in submissions), desc="grade", unit="notebook", disable=not progress
        )
        self.bar.update(sum(len(s.results) for s in submissions))
        self.timings: list[dict] = []
        self.fresh: list[dict] = []
        # the coordinator's own work while jobs are graded (sending, recording), and the gradebook's part
        self.clock = {"gradebook_s": 0.0, "coordinator_s": 0.0}
        self.recorder = Recorder(course_dir, self.clock, wait=options.record_wait)

    def finish_if_done(self, sub: Submission) -> None:
        if len(sub.results) == len(sub.jobs) and (sub.student, sub.assignment) not in self.results:
            self.results[(sub.student, sub.assignment)] = self.recorder.finish(sub)

    def finish_waiting(self, to_run: list[dict]) -> None:
        """Before grading: the submissions refused at planning, and those whose every record was reused."""
        waiting = {id(job) for job in to_run}
        for sub in self.submissions:
            if sub.reason is not None:
                self.results[(sub.student, sub.assignment)] = sub.reason
            elif all(id(job) not in waiting for job in sub.jobs.values()):
                self.finish_if_done(sub)

    def take(self, result: dict, keep: bool) -> None:
        t0 = time.perf_counter()
        sub = self.by_pair[(result["student"], result["assignment"])]
        kept = _keep_result(sub, result, keep, self.records)
        if kept is None:
            return  # a job that ran twice is recorded once
        self.fresh.append(kept)
        notebook = f"{kept['student']}/{kept['assignment']}/{kept['notebook']}"
        self.timings.append(dict(kept.get("timings", {}), notebook=notebook))
        self.bar.update(1)
        self.finish_if_done(sub)
        self.clock["coordinator_s"] += time.perf_counter() - t0

    def pool_done(self, pool) -> None:
        self.clock["pool_s"] = getattr(pool, "busy_s", 0.0)
        self.clock["pool_bytes"] = getattr(pool, "bytes_moved", (0, 0))
        self.clock["coordinator_s"] += self.clock["pool_s"]

    def finish_all(self) -> None:
        """After grading: every submission's status, once its last batch is in the gradebook."""
        for sub in self.submissions:
            self.finish_if_done(sub)
            self.results.setdefault((sub.student, sub.assignment), sub.reason or "not graded")
        t0 = time.perf_counter()
        self.recorder.flush()
        self.recorder.wait()
        self.records.close()
        self.results.update(self.recorder.unwritten)
        self.clock["coordinator_s"] += time.perf_counter() - t0

    def close(self) -> None:
        try:
            self.records.close()
        finally:
            self.recorder.close()
            self.bar.close()

    def stats(self, to_run: list[dict]) -> dict:
        subs = self.submissions
        found = dict(
            ran=len(to_run),
            reused=sum(len(s.jobs) for s in subs) - len(to_run),
            timings=self.timings,
            recorded=len(self.fresh),
            coordinator_s=self.clock["coordinator_s"],
            pool_s=self.clock.get("pool_s", 0.0),
            pool_bytes=self.clock.get("pool_bytes", (0, 0)),
            gradebook_s=self.clock["gradebook_s"],
            graded_by=dict(collections.Counter(r.get("worker", "local") for r in self.fresh)),
            warnings=sorted({w for s in subs for r in s.results.values() for w in r.get("warnings", [])}),
        )
        found.update({key: _by_notebook(subs, key) for key in ("repairs", "failures", "limits", "tampering")})
        return found


class Recorder:
    """Writes graded submissions to autograded/ and the gradebook, off the grading loop's path.

    `finish` queues a submission's autograded notebooks and gradebook values; a full batch (or one
    that waited long enough) goes to a writer thread, which writes the batch's notebooks, then
    records the batch in one gradebook transaction (so the gradebook never names a notebook
    autograded/ lacks), while the loop goes on. One batch is written at a time; an error stops
    the run at the next batch. A submission whose autograded/ folder cannot be written (a full
    disk) stays out of the gradebook and is reported in `unwritten`. The records (in the
    run's journal, `records.RecordWriter`) were kept before: a run killed at any point loses no grading, and the
    next run writes each submission again, over the same rows.
    """

    BATCH = 200  # submissions per gradebook transaction

    def __init__(
        self, course_dir: Path, clock: dict, *, wait: float = settings.Autograder.record_wait.default_value
    ) -> None:
        import concurrent.futures

        self.batch_wait = wait  # the longest a finished submission waits for its transaction (c.Autograder.record_wait)
        self.course_dir = course_dir
        self.clock = clock
        self.book = gradebook.Writer(course_dir)
        self.writer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="recorder")
        self.writing = None  # the batch being written
        self.queued: list[tuple[gradebook.Graded, tuple]] = []
        self.since = 0.0
        self.unwritten: dict[tuple[str, str], str] = {}  # (student, assignment): why autograded/ was not written

    def finish(self, sub: Submission) -> str:
        """Queue a submission whose notebooks all have results; its status ("ok" or why not)."""
        from nbgrader.utils import parse_utc

        errors = [
            f"{n}: {r['reason']}" if len(sub.jobs) > 1 else r["reason"]
            for n, r in sub.results.items()
            if r.get("status") != "ok"
        ]
        if not sub.jobs:
            return "no notebook of this assignment was handed in"
        graded = {n: r["notebook_json"] for n, r in sub.results.items() if r.get("status") == "ok"}
        if graded:
            notebooks = {
                name: None if name not in graded else scoring.summary_of(sub.results[name])
                for name in sub.notebooks
                if name in graded or name not in sub.jobs
            }
            try:
                timestamp = parse_utc((sub.folder / "timestamp.txt").read_text(encoding="utf-8").strip())
            except (OSError, ValueError, OverflowError):
                timestamp = None
            if not self.queued:
                self.since = time.monotonic()
            handed_in = {e["to"] for j in sub.jobs.values() for e in j.get("extra_files", []) if e.get("student")}
            files = (self.course_dir / "autograded" / sub.student / sub.assignment, sub.folder, handed_in, graded)
            self.queued.append((gradebook.Graded(sub.assignment, sub.student, notebooks, timestamp), files))
            self.flush(due=True)
        return "; ".join(errors) if errors else "ok"

    def flush(self, *, due: bool = False) -> None:
        """Hand what is queued to the writer; with `due`, only once a batch is full or has waited long enough."""
        if not self.queued or (
            due and len(self.queued) < self.BATCH and time.monotonic() - self.since < self.batch_wait
        ):
            return
        self.wait()
        batch, self.queued = self.queued, []
        self.writing = self.writer.submit(self._write, batch)

    def wait(self) -> None:
        """Until the batch being written is written (its error, if it failed)."""
        if self.writing is not None:
            writing, self.writing = self.writing, None
            writing.result()

    def _write(self, batch: list) -> None:
        written = []
        for graded, files in batch:
            try:
                records.retrying(_write_autograded, *files)
            except OSError as exc:
                shutil.rmtree(files[0], ignore_errors=True)
                self.unwritten[(graded.student, graded.assignment)] = (
                    f"the grader could not write the autograded notebook: {_one_line(exc)}"
                )
                continue
            written.append((graded, files[0]))
        t0 = time.perf_counter()
        try:
            self.book.write([graded for graded, _ in written])
        except (
            *gradebook.write_errors(),
            OSError,
        ) as exc:  # its disk is full, or no descriptor was left for its journal
            for graded, target in written:  # the gradebook names no notebook autograded/ lacks, and the reverse
                shutil.rmtree(target, ignore_errors=True)
                self.unwritten[(graded.student, graded.assignment)] = (
                    f"the grader could not record this submission in the gradebook: {_one_line(exc)}"
                )
        self.clock["gradebook_s"] += time.perf_counter() - t0

    def close(self) -> None:
        try:
            self.wait()
        finally:
            self.writer.shutdown(wait=True)
            self.book.close()


def _write_autograded(target: Path, folder: Path, handed_in: set[str], graded: dict[str, str]) -> None:
    """autograded/STUDENT/ASSIGNMENT: the files handed in that the notebook was given (`handed_in`,
    within the caps) and timestamp.txt, and each notebook as the judge wrote it (with nbformat,
    validated there)."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    for path in sorted(folder.rglob("*")):
        if (
            path.is_file()
            and not path.is_symlink()
            and (str(path.relative_to(folder)) in handed_in or path.name == "timestamp.txt")
        ):
            dest = target / path.relative_to(folder)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
    for name, text in graded.items():  # a folder of its own, made afresh: nothing to replace atomically
        (target / f"{name}.ipynb").write_text(text, encoding="utf-8")


# ------------------------------------------------------------------ judge worker


def _warm_judge() -> None:
    """What the judge needs, imported once in the coordinator before judge workers are forked."""
    import numpy  # noqa: F401
    import torch

    import course.checks  # noqa: F401
    import course.probes.core  # noqa: F401
    import course.quiz  # noqa: F401
    from autograder import grading, runner  # noqa: F401
    from autograder.zygote import warm_torch

    warm_torch(torch)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def worker_loop(control: socket.socket, job_fd: int, result_fd: int, *, memory: cgroup.Group | None = None) -> None:
    """A judge worker: one JSON job per line in, one JSON result per line out."""
    import signal

    import torch

    from autograder import grading

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator handles Ctrl-C and closes our pipe
    torch.set_num_threads(1)
    os.dup2(2, 1)
    results = os.fdopen(result_fd, "w", encoding="utf-8")
    for line in os.fdopen(job_fd, "r", encoding="utf-8"):
        job = json.loads(line)
        try:
            result = grading.grade_job(job, control, memory=memory)
        except Exception as exc:
            traceback.print_exc()
            result = jobs.failed_result(job, f"grader error: {type(exc).__name__}: {exc}")
        results.write(json.dumps(result) + "\n")
        results.flush()
