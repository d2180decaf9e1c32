"""Grading on a real Dask cluster (TLS, two worker processes on 127.0.0.1) with the gradebook on a
real PostgreSQL server: exactly the local grader's scores, also while a worker is killed mid-run,
while one joins and another leaves, with two runs at once and across a scheduler restart. Every
server is started here and stopped at the end.
"""

from __future__ import annotations

import collections
import concurrent.futures
import csv
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import dask
import distributed
import pytest
from hypothesis import given
from hypothesis import strategies as st

from autograder import cli, commands, stock
from autograder.cluster import client as cluster_mod, worker as cluster_worker
from autograder.grades import gradebook
from autograder.grades import records as record_files
from autograder.authoring import samples
from autograder.coordinator import grader
from autograder.judge import jobs
from tests.conftest import ROOT, copy_course, use_gradebook
from tests.support.servers import DaskCluster, free_port, make_certificates, stop_process, tls_config, tls_env

pytestmark = [pytest.mark.slow, pytest.mark.cluster]
LESSONS = ["01_tensors", "02_dtype", "04_numpy"]
DEMO = sorted(samples.DEMO_STUDENTS)
NOTEBOOKS = len(LESSONS) * len(DEMO)


# ---------------------------------------------------------------- servers and helpers


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_certificates(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def cluster(certs, tmp_path_factory):
    dask_cluster = DaskCluster(certs, tmp_path_factory.mktemp("dask-logs"))
    try:
        dask_cluster.start_worker("w1")
        dask_cluster.start_worker("w2")
        with observe(dask_cluster, certs) as client:
            client.wait_for_workers(2, timeout=120)
            # as the first run would: the pools warm up while the local reference is graded
            client.register_plugin(cluster_worker.PoolPlugin(), name=cluster_worker.PLUGIN_NAME)
        yield dask_cluster
    finally:
        dask_cluster.stop()
    wait_for(lambda: not pool_servers(), "every worker's grading pool to stop")


@pytest.fixture
def tls(certs):
    """The coordinator's TLS settings, through Dask's own configuration."""
    with dask.config.set(tls_config(certs)):
        yield


class observe:
    """A second Dask client, to watch what the scheduler is doing while the coordinator grades."""

    def __init__(self, dask_cluster: DaskCluster, certs) -> None:
        self.args = dask_cluster.address, certs

    def __enter__(self):
        from distributed import Client
        from distributed.security import Security

        address, certs = self.args
        security = Security(
            tls_ca_file=str(certs["ca"]),
            tls_client_cert=str(certs["cert"]),
            tls_client_key=str(certs["key"]),
            require_encryption=True,
        )
        self.client = Client(address, security=security, set_as_default=False, timeout=30)
        return self.client

    def __exit__(self, *exc) -> None:
        self.client.close(timeout=10)


def wait_for(predicate, what: str, timeout: float = 180.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def pool_servers() -> dict[int, int]:
    """pid -> parent pid of every `autograder.cluster.pool_server` process on this machine."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if b"autograder.cluster.pool_server" in cmdline:
            found[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    return found


def busy(client, name: str) -> list[str]:
    """Keys of the tasks the worker called `name` is running now."""
    names = {addr: info["name"] for addr, info in client.scheduler_info(n_workers=-1)["workers"].items()}
    return [str(key) for addr, keys in client.processing().items() if names.get(addr) == name for key in keys]


def records(course: Path) -> dict[tuple[str, str, str], dict]:
    out = {}
    for path in sorted((course / ".autograder" / "results").rglob("*.json")):
        record = record_files.parse_record(path.read_text(encoding="utf-8"))
        out[(record["student"], record["assignment"], record["notebook"])] = record
    return out


def demo_class(tmp: Path, *, db_url: str | None = None) -> Path:
    """A course copy with the demo class handed in, released into the gradebook at `db_url`."""
    course = copy_course(tmp)
    if db_url:
        use_gradebook(course, db_url)
    commands.release(course, assignments=LESSONS, progress=False)
    samples.write_demo_class(course, assignments=LESSONS)
    return course


@pytest.fixture(scope="module")
def released(postgres, tmp_path_factory) -> Path:
    """The demo class handed in and released once, into a PostgreSQL database the tests copy."""
    return demo_class(tmp_path_factory.mktemp("released") / "course", db_url=postgres.create_database("demo_released"))


def class_copy(released: Path, postgres, target: Path, name: str) -> Path:
    """A copy of the released class with a copy of its gradebook, in a database of its own."""
    course = Path(shutil.copytree(released, target))
    use_gradebook(course, postgres.create_database(name, template="demo_released"))
    return course


def refuse_local_pool(*args, **kwargs):
    raise AssertionError("a grading pool was started on the coordinator")


def run_cli(course: Path, *args: str, certs, **popen) -> subprocess.Popen:
    env = dict(os.environ, **tls_env(certs))
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return subprocess.Popen(
        [sys.executable, "-m", "autograder", "grade", "--cluster", *args],
        cwd=course,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )


def graded_all_but_eve(returncode: int, out: str, err: str) -> None:
    """A run over the demo class exits 1, as `nbgrader autograde` would: eve's notebook is not valid JSON
    (`samples.DEMO_STUDENTS`), and hers are the only submissions not graded."""
    assert returncode == 1 and "submissions could not be graded" in err, (out[-2000:], err[-2000:])
    not_graded = [line for line in out.splitlines() if "not graded:" in line]
    assert not_graded and all("not graded: eve" in line for line in not_graded), not_graded  # eve, eve-copy1...


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    """The demo class graded by the local grader (SQLite gradebook): the scores every cluster run must match."""
    course = demo_class(tmp_path_factory.mktemp("local") / "course")
    results = commands.grade(course, progress=False, workers=2)
    return results, gradebook.score_table(course)


def assert_like_local(course: Path, results: dict, local) -> dict:
    """Every submission's outcome and every item's score as the local grader gave them; the records."""
    assert results == local[0]
    assert gradebook.score_table(course) == local[1]
    found = records(course)
    assert len(found) == NOTEBOOKS
    return found


# ---------------------------------------------------------------- the class on the cluster


@pytest.fixture(scope="module")
def graded_on_cluster(cluster, certs, postgres, released, local, tmp_path_factory):
    course = class_copy(released, postgres, tmp_path_factory.mktemp("cluster") / "course", "demo_cluster")
    stats: dict = {}
    with dask.config.set(tls_config(certs)), pytest.MonkeyPatch.context() as patch:
        patch.setattr(grader, "JudgePool", refuse_local_pool)
        results = commands.grade(course, cluster=cluster.address, progress=False, stats=stats)
    return course, results, stats


def test_cluster_gives_the_local_scores_and_nothing_runs_on_the_coordinator(graded_on_cluster, cluster, local):
    course, results, stats = graded_on_cluster
    found = assert_like_local(course, results, local)
    assert stats["ran"] == stats["recorded"] == NOTEBOOKS
    by_worker = collections.Counter(r["worker"] for r in found.values())
    assert set(by_worker) == {"w1", "w2"}, by_worker
    assert gradebook.db_url(course).startswith("postgresql://")
    # each worker's pool is a process tree of its own, started by the worker (not by this process)
    parents = set(pool_servers().values())
    assert {cluster.workers["w1"].pid, cluster.workers["w2"].pid} <= parents
    assert os.getpid() not in parents


def test_rerun_on_the_cluster_reuses_every_record(graded_on_cluster, cluster, tls):
    course, results, _ = graded_on_cluster
    before, scores = records(course), gradebook.score_table(course)
    stats: dict = {}
    assert commands.grade(course, cluster=cluster.address, progress=False, stats=stats) == results
    assert stats["ran"] == 0 and stats["reused"] == NOTEBOOKS
    assert records(course) == before and gradebook.score_table(course) == scores


COPIES = 40  # the demo class handed in this many times over: several gradebook batches to kill the coordinator in
KILLS = 4


def handed_in_again(graded: Path, course: Path, copies: int) -> None:
    """The graded class's submissions handed in again under new names, `copies` times in all, each
    with the record grading it leaves (a record's key is what was handed in, not who handed it in)."""
    for folder in sorted((graded / "submitted").iterdir()):
        for k in range(1, copies):
            shutil.copytree(folder, course / "submitted" / f"{folder.name}-copy{k}")
    for (student, assignment, notebook), record in records(graded).items():
        for k in range(copies):
            who = student if k == 0 else f"{student}-copy{k}"
            path = course / ".autograder" / "results" / who / assignment / f"{notebook}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(record_files.record_text(dict(record, student=who)), encoding="utf-8")


def gradebook_rows(url: str) -> dict[str, list[tuple]]:
    """Every row the grader writes in nbgrader's tables, by the names it joins (ids are random)."""
    from sqlalchemy import create_engine, text

    rows = "FROM submitted_assignment sa JOIN assignment a ON sa.assignment_id = a.id"
    nbs = rows + " JOIN submitted_notebook sn ON sn.assignment_id = sa.id JOIN notebook n ON sn.notebook_id = n.id"
    queries = {
        "student": "SELECT id, first_name, last_name, email FROM student",
        "submitted_assignment": f"SELECT a.name, sa.student_id, sa.timestamp, sa.extension {rows}",
        "submitted_notebook": f"SELECT a.name, sa.student_id, n.name, sn.flagged, sn.late_submission_penalty {nbs}",
        "grade": f"SELECT a.name, sa.student_id, n.name, c.name, c.type, g.auto_score, g.manual_score, g.extra_credit, "
        f"g.needs_manual_grade {nbs} JOIN grade g ON g.notebook_id = sn.id JOIN base_cell c ON g.cell_id = c.id",
        "comment": f"SELECT a.name, sa.student_id, n.name, c.name, c.type, m.auto_comment, m.manual_comment {nbs} "
        "JOIN comment m ON m.notebook_id = sn.id JOIN base_cell c ON m.cell_id = c.id",
    }
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return {
                table: sorted((tuple(r) for r in conn.execute(text(sql))), key=repr) for table, sql in queries.items()
            }
    finally:
        engine.dispose()


def autograded_files(course: Path) -> dict[str, bytes]:
    root = course / "autograded"
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_coordinator_killed_at_random_points_loses_nothing_and_writes_nothing_twice(
    graded_on_cluster, postgres, released, tmp_path
):
    import random

    graded, _, _ = graded_on_cluster
    clean = class_copy(released, postgres, tmp_path / "clean", "demo_clean")
    handed_in_again(graded, clean, COPIES)
    submissions = COPIES * len(gradebook_rows(gradebook.db_url(graded))["submitted_assignment"])
    env = dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "grade"], cwd=clean, env=env, capture_output=True, text=True
    )
    graded_all_but_eve(done.returncode, done.stdout, done.stderr)
    took = time.monotonic() - started
    expected = gradebook_rows(gradebook.db_url(clean))
    assert len(expected["submitted_assignment"]) == submissions
    assert len({r[:5] for r in expected["grade"]}) == len(expected["grade"]), "one grade per cell and notebook"
    scores = gradebook.score_table(clean)
    assert all(items == scores[(a, s.split("-copy")[0])] for (a, s), items in scores.items())

    course = class_copy(released, postgres, tmp_path / "killed", "demo_coordinator_killed")
    handed_in_again(graded, course, COPIES)
    url = gradebook.db_url(course)
    chance = random.Random(29)
    partial = []
    for attempt in range(KILLS):
        if attempt == 0:
            # The first time, in the middle of the recording for sure: one submission per transaction (hundreds of
            # them, seconds in all), killed as soon as the first is in, however fast the database is.
            command = [
                sys.executable,
                "-c",
                "import sys; from autograder import cli; from autograder.coordinator.recorder import Recorder; Recorder.BATCH = 1; "
                "sys.exit(cli.main(['grade']))",
            ]
        else:
            command = [sys.executable, "-m", "autograder", "grade"]
        run = subprocess.Popen(command, cwd=course, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if attempt == 0:
            wait_for(
                lambda: run.poll() is not None or gradebook_rows(url)["submitted_assignment"],
                "a first batch",
                timeout=600,
            )
            delay = 0.0
        else:  # then anywhere in a run
            delay = chance.uniform(0.1, 1.0) * took
        try:
            run.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            run.kill()
        run.wait()
        partial.append(len(gradebook_rows(url)["submitted_assignment"]))
    done = subprocess.run(
        [sys.executable, "-m", "autograder", "grade"], cwd=course, env=env, capture_output=True, text=True
    )
    graded_all_but_eve(done.returncode, done.stdout, done.stderr)
    assert any(0 < n < submissions for n in partial), f"no kill came in the middle of the recording: {partial}"
    assert gradebook_rows(url) == expected
    assert autograded_files(course) == autograded_files(clean)


def test_feedback_export_report_and_formgrader_on_postgresql(graded_on_cluster, tmp_path):
    course, _, _ = graded_on_cluster
    commands.feedback(course, assignments=LESSONS[:1])
    assert (course / "feedback" / "ada" / "01_tensors" / "01_tensors.html").is_file()
    csv_path, lms_path = commands.export(course, to=tmp_path / "grades.csv")
    assert lms_path.is_file()
    stock.export_csv(
        course, tmp_path / "nbgrader.csv"
    )  # `nbgrader export`: the same lines (its order of students is the database's)
    ours, theirs = (
        csv_path.read_text(encoding="utf-8").splitlines(),
        (tmp_path / "nbgrader.csv").read_text(encoding="utf-8").splitlines(),
    )
    assert ours[0] == theirs[0] and sorted(ours) == sorted(theirs)
    rows = list(csv.DictReader(csv_path.open(encoding="utf-8")))
    totals = {(a, s): sum(items.values()) for (a, s), items in gradebook.score_table(course).items()}
    exported = {(r["assignment"], r["student_id"]): float(r["score"]) for r in rows if r["score"]}
    assert {k: v for k, v in exported.items() if k in totals} == totals
    assert commands.make_report(course, out=tmp_path / "report").is_file()
    grade_id, manual = formgrader_sets_a_manual_score(course)
    from nbgrader.api import Gradebook

    with Gradebook(gradebook.db_url(course)) as gb:
        assert gb.find_grade_by_id(grade_id).score == manual


def formgrader_sets_a_manual_score(course: Path) -> tuple[str, float]:
    """Start Jupyter with nbgrader's formgrader on the course, list a submission's grades through its
    API and give one a manual score, as an instructor's browser would."""
    port, token = free_port(), "formgrader-test-token"
    env = dict(
        os.environ,
        PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
        JUPYTER_RUNTIME_DIR=str(course / ".jupyter-runtime"),
    )
    server = subprocess.Popen(  # formgrader is enabled by nbgrader's own jupyter_server_config.d entry
        [
            sys.executable,
            "-m",
            "jupyter",
            "server",
            "--no-browser",
            f"--port={port}",
            "--ip=127.0.0.1",
            "--allow-root",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={course}",
        ],
        cwd=course,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def call(path: str, body: dict | None = None):
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/formgrader/api/{path}",
            method="PUT" if body else "GET",
            data=json.dumps(body).encode() if body else None,
            headers={"Authorization": f"token {token}"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    try:

        def up():
            try:
                return call("status")["status"]
            except OSError:
                return False

        wait_for(up, "formgrader to answer", timeout=120)
        submissions = {s["student"]: s for s in call("submissions/01_tensors")}
        assert set(submissions) >= {"ada", "blake", "chen", "dana"}
        notebook = call("submitted_notebooks/01_tensors/01_tensors")
        blake = next(n for n in notebook if n["student"] == "blake")
        grades = call(f"grades?submission_id={blake['id']}")
        assert grades and all(g["auto_score"] == 0 for g in grades)
        target = max(grades, key=lambda g: g["max_score"])
        changed = call(f"grade/{target['id']}", {"manual_score": target["max_score"]})
        assert changed["manual_score"] == target["max_score"]
        return target["id"], float(target["max_score"])
    finally:
        stop_process(server)


# ---------------------------------------------------------------- security and refusals


def test_an_unencrypted_address_is_refused(capsys):
    assert cli.main(["--course-dir", str(ROOT), "grade", "--cluster", "tcp://127.0.0.1:8786"]) == 1
    err = capsys.readouterr().err
    assert "refusing the unencrypted address tcp://127.0.0.1:8786" in err and "--allow-insecure-cluster" in err


def test_tls_without_certificates_is_refused(capsys):
    unset = {"distributed.comm.tls.ca-file": None, "distributed.comm.tls.client.cert": None}
    with dask.config.set(unset):
        assert cli.main(["--course-dir", str(ROOT), "grade", "--cluster", "tls://127.0.0.1:8786"]) == 1
    assert "DASK_DISTRIBUTED__COMM__TLS__CA_FILE" in capsys.readouterr().err


@pytest.mark.parametrize("address", ["127.0.0.1:8786", "tcp://127.0.0.1:8786", "ws://127.0.0.1:8786"])
def test_an_unencrypted_address_needs_the_instructors_consent(address):
    with pytest.raises(cluster_mod.ClusterError, match="refusing the unencrypted address"):
        cluster_mod.check_address(address)
    assert cluster_mod.check_address(address, allow_insecure=True) is not None


def test_what_is_not_a_scheduler_address_is_refused():
    with pytest.raises(cluster_mod.ClusterError, match="not a Dask scheduler address"):
        cluster_mod.check_address("https://scheduler.example.edu", allow_insecure=True)


def test_a_certificate_from_another_authority_is_refused(cluster, tmp_path):
    strangers = make_certificates(tmp_path / "other", name="stranger")
    with dask.config.set(tls_config(strangers)):
        with pytest.raises(cluster_mod.ClusterError, match="cannot connect to the Dask scheduler"):
            cluster_mod.Cluster(cluster.address, timeout=5)


@pytest.mark.parametrize(
    "hello, job, refused",
    [
        ({"code": "c", "missing": []}, {"code": "c"}, None),
        ({"code": "c", "missing": ["namespaces"]}, {"code": "c"}, "lacks namespaces"),
        ({"code": "c", "missing": ["namespaces"]}, {"code": "c", "allow_weak_sandbox": True}, None),
        ({"code": "c", "missing": []}, {"code": "d"}, "runs other grader code"),
        ({"error": "the grading pool did not start"}, {"code": "c"}, "did not start"),
    ],
)
def test_what_a_worker_refuses(hello, job, refused):
    answer = cluster_worker.refusal(hello, job, "w9")
    assert (answer is None) if refused is None else (refused in answer and "w9" in answer)


def test_a_worker_running_other_grader_code_stops_the_run(cluster, tls, postgres, released, tmp_path, monkeypatch):
    course = class_copy(released, postgres, tmp_path / "course", "demo_other_code")
    monkeypatch.setattr(jobs, "course_code_hash", lambda: "0" * 64)
    with pytest.raises(cluster_mod.ClusterError, match="runs other grader code"):
        commands.grade(course, cluster=cluster.address, progress=False)
    assert not records(course)


def _pool_settings(dask_worker) -> dict:
    return dask_worker.plugins[cluster_worker.PLUGIN_NAME].host.current.hello["settings"]


def test_the_courses_pool_settings_are_in_force_on_every_worker(
    cluster, certs, tls, postgres, released, local, tmp_path
):
    """`judge_memory_mb` and `sandbox_environment` are set for the pool, not per notebook: a course that sets them
    gets them on every worker's pool (the plugin started those on the defaults), and the same scores."""
    course = class_copy(released, postgres, tmp_path / "course", "demo_pool_settings")
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as handle:
        handle.write('\nc.Autograder.judge_memory_mb = 3000\nc.Autograder.sandbox_environment = ["COURSE_DATA"]\n')
    results = commands.grade(course, cluster=cluster.address, progress=False)
    assert_like_local(course, results, local)
    with observe(cluster, certs) as client:
        in_force = client.run(_pool_settings)
    assert len(in_force) == 2
    for settings in in_force.values():
        assert (settings["limits"]["judge_memory_mb"], settings["environment"]) == (3000, ["COURSE_DATA"])


# ---------------------------------------------------------------- faults


def test_a_worker_killed_mid_job(cluster, certs, tls, postgres, released, local, tmp_path):
    course = class_copy(released, postgres, tmp_path / "course", "demo_killed")
    stats: dict = {}
    victim = cluster.workers["w2"]
    with observe(cluster, certs) as client, concurrent.futures.ThreadPoolExecutor(1) as pool:
        run = pool.submit(commands.grade, course, cluster=cluster.address, progress=False, stats=stats)
        wait_for(lambda: busy(client, "w2"), "w2 to grade a notebook")
        its_pool = [pid for pid, parent in pool_servers().items() if parent == victim.pid]
        victim.send_signal(signal.SIGSTOP)  # frozen, it can finish nothing more: what it holds now is cut short
        time.sleep(1.0)
        interrupted = busy(client, "w2")
        cluster.kill_worker("w2")
        results = run.result(timeout=600)
    found = assert_like_local(course, results, local)
    assert stats["ran"] == stats["recorded"] == NOTEBOOKS
    assert interrupted
    for key in interrupted:  # autograde-<assignment>-<student>-<notebook>-<hash>[+<more jobs in the task>]
        _, assignment, student, notebook, _ = key.split("+")[0].split("-")
        assert found[(student, assignment, notebook)]["worker"] == "w1", "the interrupted job ran again elsewhere"
    wait_for(lambda: not set(its_pool) & set(pool_servers()), "the killed worker's pool to stop by itself", timeout=120)
    cluster.start_worker("w2b")


def test_a_worker_joining_and_one_leaving_mid_run(cluster, certs, tls, postgres, released, local, tmp_path):
    course = class_copy(released, postgres, tmp_path / "course", "demo_joined")
    with observe(cluster, certs) as client, concurrent.futures.ThreadPoolExecutor(1) as pool:
        client.wait_for_workers(2, timeout=120)
        run = pool.submit(commands.grade, course, cluster=cluster.address, progress=False)
        wait_for(lambda: any(client.processing().values()), "the run to start")
        cluster.start_worker("w3")
        client.wait_for_workers(3, timeout=120)
        leaving = next(
            addr for addr, info in client.scheduler_info(n_workers=-1)["workers"].items() if info["name"] == "w1"
        )
        client.retire_workers(workers=[leaving], close_workers=True)  # gracefully, in the middle of the run
        results = run.result(timeout=600)
    found = assert_like_local(course, results, local)
    assert "w3" in {r["worker"] for r in found.values()}, collections.Counter(r["worker"] for r in found.values())
    cluster.workers.pop("w1").wait(timeout=60)


def test_two_runs_of_different_assignments_at_once(cluster, certs, postgres, released, local, tmp_path):
    course = class_copy(released, postgres, tmp_path / "course", "demo_twice")
    url = gradebook.db_url(course)
    runs = [run_cli(course, cluster.address, *lessons, certs=certs) for lessons in (LESSONS[:1], LESSONS[1:])]
    for proc in runs:
        out, err = proc.communicate(timeout=600)
        graded_all_but_eve(proc.returncode, out, err)
    found = records(course)
    assert len(found) == NOTEBOOKS
    assert gradebook.score_table(course) == local[1]
    from nbgrader.api import Gradebook

    with Gradebook(url) as gb:
        students = [s.id for s in gb.students]
        graded = sorted((a.name, s.student.id) for a in gb.assignments for s in a.submissions)
    assert sorted(students) == sorted({s for (_, s) in local[1]}), "each student added once"
    assert graded == sorted(local[1])


def test_scheduler_restart_stops_the_run_and_the_next_run_resumes(cluster, certs, postgres, released, local, tmp_path):
    course = class_copy(released, postgres, tmp_path / "course", "demo_restart")
    first = run_cli(course, cluster.address, certs=certs)
    wait_for(lambda: records(course) or first.poll() is not None, "a first notebook to be recorded")
    cluster.stop_scheduler()
    out, err = first.communicate(timeout=180)
    assert first.returncode == 1, (out[-2000:], err[-2000:])
    assert "lost the Dask scheduler" in err and "run the same `autograder grade` again" in err
    kept = records(course)
    assert 0 < len(kept) < NOTEBOOKS
    for name, proc in list(cluster.workers.items()):  # workers leave when their scheduler goes
        proc.wait(timeout=120)
        cluster.workers.pop(name)
    cluster.start_scheduler()
    cluster.start_worker("w1")
    cluster.start_worker("w2")
    second = run_cli(course, cluster.address, certs=certs)
    out, err = second.communicate(timeout=600)
    graded_all_but_eve(second.returncode, out, err)
    assert f"({NOTEBOOKS - len(kept)} notebooks run, {len(kept)} unchanged since the last run)" in out
    found = records(course)
    assert {k: found[k] for k in kept} == kept, "what the first run recorded stays as it was"
    assert gradebook.score_table(course) == local[1]


# ---------------------------------------------------------------- the recipes in docs/scaling.md


def recipe(marker: str) -> str:
    """The Python block of docs/scaling.md that contains `marker`."""
    text = (ROOT / "docs" / "scaling.md").read_text(encoding="utf-8")
    blocks = [block.split("```", 1)[0] for block in text.split("```python\n")[1:]]
    return next(block for block in blocks if marker in block)


def test_the_dask_jobqueue_recipe_grades(certs, postgres, released, local, tmp_path):
    """The SLURM recipe as written, its Security object, TLS settings and worker plugin, on
    dask-jobqueue's LocalCluster (each job a process here), and a run graded through it."""
    code = recipe("SLURMCluster")
    code = "\n".join(line for line in code.splitlines() if not line.rstrip().endswith("# SLURM's own"))
    for written, here in (
        ("from dask_jobqueue import SLURMCluster", "from dask_jobqueue.local import LocalCluster as SLURMCluster"),
        ("/secure/grading/ca.pem", str(certs["ca"])),
        ("/secure/grading/grading.pem", str(certs["cert"])),
        ("/secure/grading/grading.key", str(certs["key"])),
        ("cores=16", "cores=1"),
        ("jobs=8", "jobs=1"),
    ):
        assert written in code, f"the recipe no longer says {written!r}"
        code = code.replace(written, here)
    course = class_copy(released, postgres, tmp_path / "course", "demo_jobqueue")
    graded: dict = {}

    def grade_while_it_waits(prompt: str) -> str:
        """The recipe's `input`: the instructor grades while the cluster is up."""
        address = namespace["cluster"].scheduler_address
        assert address.startswith("tls://")
        with dask.config.set(tls_config(certs)), pytest.MonkeyPatch.context() as patch:
            patch.setattr(grader, "JudgePool", refuse_local_pool)
            graded["results"] = commands.grade(course, assignments=LESSONS[:1], cluster=address, progress=False)
        return ""

    namespace = {"__name__": "grading_cluster", "input": grade_while_it_waits, "print": lambda *args: None}
    try:
        exec(compile(code, "docs/scaling.md", "exec"), namespace)
    finally:
        if "cluster" in namespace:
            namespace["cluster"].close()
    expected = {k: v for k, v in local[0].items() if k[1] == LESSONS[0]}
    assert graded["results"] == expected
    assert gradebook.score_table(course) == {k: v for k, v in local[1].items() if k[0] == LESSONS[0]}
    assert {r["worker"] for r in records(course).values()} - {"local"}, "graded by the recipe's worker"


class _PoisonHost:
    """In place of a worker's grading pool: answers each job at once, and kills its worker when the poisoned
    job comes in a task with others (the task's key names how many)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def grade(self, text: str) -> str:
        job = json.loads(text)
        if job["student"] == "poison" and "+" in str(distributed.get_worker().get_current_task()):
            os._exit(1)
        return json.dumps(
            {
                "job": job["key"],
                "student": job["student"],
                "assignment": job["assignment"],
                "notebook": job["notebook"],
                "status": "ok",
                "worker": self.name,
            }
        )


class _PoisonPlugin(distributed.WorkerPlugin):
    name = cluster_worker.PLUGIN_NAME

    def setup(self, worker) -> None:
        self.host = _PoisonHost(str(worker.name))


def test_a_task_whose_workers_die_has_its_jobs_sent_again_one_to_a_task():
    """Dask gives a task up once its workers died with it more than allowed-failures times (0 here); its
    jobs then go again singly, so the notebooks that only shared the task are graded all the same."""
    planned = [
        {"key": f"k{n}", "student": "poison" if n == 1 else f"s{n}", "assignment": "a", "notebook": "n"}
        for n in range(8)
    ]
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        ) as local,
    ):
        coordinator = cluster_mod.Cluster(local.scheduler_address, allow_insecure=True)
        try:
            coordinator.client.register_plugin(_PoisonPlugin(), name=cluster_worker.PLUGIN_NAME)
            coordinator.window()  # counts the threads, as a run does first
            assert coordinator.chunk(len(planned)) > 1, "the test needs the poisoned job to share a task"
            results = {r["student"]: r for r in coordinator.run(planned)}
        finally:
            coordinator.close()
    assert sorted(results) == sorted(j["student"] for j in planned)
    assert all(r["status"] == "ok" for r in results.values()), f"{ {w: r.get('reason') for w, r in results.items()} }"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@given(
    planned=st.lists(
        st.tuples(
            st.dictionaries(
                st.text().filter(lambda key: key not in ("template", "template_ref")), json_values, max_size=4
            ),
            st.integers(0, 2),
        ),
        min_size=1,
        max_size=5,
    ),
    templates=st.lists(st.dictionaries(st.text(), json_values, max_size=3), min_size=2, max_size=2),
)
def test_a_task_reads_back_as_its_jobs_each_with_its_template(planned, templates):
    """A task carries each template once, however many of its jobs share it; the worker reads back every
    job whole, in order, with the course's pool settings. Template 2 is none at all: that job is sent as it is."""
    coordinator = cluster_mod.Cluster.__new__(cluster_mod.Cluster)  # no client: only the task's text is made
    coordinator._templates, coordinator._names = {}, itertools.count()
    coordinator.environment = ["COURSE_DATA"]  # c.Autograder.sandbox_environment, added to every job
    made = [
        dict(rest, key=f"k{n}", student="s", assignment="a", notebook="n", template=templates[t] if t < 2 else "none")
        for n, (rest, t) in enumerate(planned)
    ]
    for _ in range(2):  # templates made, then taken from what was kept
        parts = [coordinator._parts(job) for job in made]
        assert [part[0] for part in parts] == [{k: job[k] for k in jobs.IDENT} for job in made]
        text = cluster_worker.task_text([part[1:] for part in parts])
        assert len(json.loads(text)["templates"]) == len({t for _, t in planned if t < 2})
        got = [json.loads(job_text) for job_text in cluster_worker.task_jobs(text)]
        assert got == [json.loads(json.dumps({**job, "environment": ["COURSE_DATA"]})) for job in made]


answers = st.lists(
    st.one_of(
        st.dictionaries(st.text(), json_values, max_size=3),
        st.builds(
            lambda rest, notebook: dict(rest, notebook_json=notebook),
            st.dictionaries(st.text(), json_values, max_size=3),
            st.text(alphabet=st.characters(codec="utf-8")),
        ),
        json_values,
    ),
    max_size=4,
)


@given(results=answers)
def test_a_task_answer_reads_back_as_its_results_notebooks_in_place(results):
    text = cluster_worker.answer_text(results)
    assert cluster_worker.answer_results(text) == json.loads(json.dumps(results))


@given(
    results=answers.filter(lambda r: any(isinstance(x, dict) and isinstance(x.get("notebook_json"), str) for x in r))
)
def test_an_answer_cut_short_or_run_long_is_not_taken(results):
    text = cluster_worker.answer_text(results)
    assert cluster_worker.answer_results(text + "x") is None
    assert cluster_worker.answer_results(text[:-1]) is None
    assert cluster_worker.answer_results("not an answer") is None
