"""The student bundle: what it holds, what it must not hold, and that it works without nbgrader."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from importlib.util import find_spec
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.authoring import bundle
from autograder.authoring.lessons import course_order
from autograder.authoring.samples import answered
from tests.conftest import ROOT, copy_course

LESSONS = bundle.released_lessons(ROOT)
NBGRADER_LABEXTENSION = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "@jupyter" / "nbgrader"
JUPYTERLAB_STATIC = Path(sys.prefix) / "share" / "jupyter" / "lab" / "static"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The bundle folder as `write_bundle` lays it out (assembled without the leak check, tested on its own)."""
    return bundle.assemble(ROOT, out=tmp_path_factory.mktemp("bundle") / bundle.BUNDLE_NAME)


def _grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _errors(nb) -> dict[int, str]:
    return {i: o.ename for i, c in enumerate(nb.cells) for o in c.get("outputs", []) if o.output_type == "error"}


def _stdout(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")


def test_bundle_holds_lessons_package_requirements_and_readme(built):
    assert sorted(p.name for p in (built / "notebooks").iterdir()) == sorted(LESSONS)
    for lesson in LESSONS:
        assert (built / "notebooks" / lesson / f"{lesson}.ipynb").read_bytes() == (
            ROOT / "release" / lesson / f"{lesson}.ipynb"
        ).read_bytes()
    assert (built / "course-package" / "course" / "checks.py").is_file()
    assert not list(built.rglob("__pycache__"))
    assert not (built / "course-package" / "autograder").exists()
    requirements = (built / "requirements.txt").read_text().splitlines()
    assert "torch==2.13.0" in requirements
    for name in ("numpy", "matplotlib", "jupyterlab"):
        assert any(re.match(rf"{name}(==|$)", line) for line in requirements), name
    assert not any(line.startswith("nbgrader") for line in requirements), "nbgrader must stay optional"
    readme = (built / "README.md").read_text()
    for needed in (
        f"unzip {bundle.BUNDLE_NAME}.zip && cd {bundle.BUNDLE_NAME}",
        "python3 -m venv .venv",
        "pip install -r requirements.txt",
        "pip install ./course-package",
        "%pip install",
        "jupyter lab notebooks",
    ):
        assert needed in readme, needed
    torch_pin = next(line for line in requirements if line.startswith("torch=="))
    assert f"pip install {torch_pin} --index-url https://download.pytorch.org/whl/cpu" in readme, (
        "the CPU-only command installs the very torch the requirements pin, from PyTorch's CPU index"
    )
    assert "python -m venv" not in readme, "one spelling of the commands: python3"


def test_bundle_lists_the_lessons_in_course_order(built):
    listed = re.findall(r"^\d+\. `notebooks/(\w+)/\1\.ipynb`$", (built / "README.md").read_text(), re.M)
    assert listed == course_order(ROOT) == LESSONS
    assert listed.index("09_memory") == listed.index("05_shapes") + 1, "memory is taught right after shapes"
    assert listed.index("08_indexing") == listed.index("09_memory") + 1, "and indexing right after memory"


def _one_lesson_course(tmp_path: Path, lesson: str) -> Path:
    """A copy of the course holding one lesson, with the course package and the student configuration."""
    course = copy_course(tmp_path / "course")
    for other in (course / "source").iterdir():
        if other.name != lesson:
            shutil.rmtree(other)
            shutil.rmtree(course / "release" / other.name, ignore_errors=True)
    shutil.copytree(ROOT / "course", course / "course", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "student", course / "student")
    shutil.copy2(ROOT / "requirements.txt", course / "requirements.txt")
    return course


def test_write_bundle_zips_the_folder(tmp_path):
    lesson = LESSONS[0]
    course = _one_lesson_course(tmp_path, lesson)
    folder = bundle.write_bundle(course, out=tmp_path / "dist" / "student-bundle")
    assert folder == (tmp_path / "dist" / "student-bundle").resolve()
    with zipfile.ZipFile(folder.with_suffix(".zip")) as zf:
        names = {n for n in zf.namelist() if not n.endswith("/")}
    on_disk = {str(Path("student-bundle") / p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}
    assert names == on_disk
    assert f"student-bundle/notebooks/{lesson}/{lesson}.ipynb" in names
    assert "student-bundle/jupyter-config/labconfig/page_config.json" in names


def test_the_bundles_config_turns_off_what_needs_the_hub(built):
    """On a laptop the Assignment List only shows exchange errors: the bundle turns it off, the rest as the hub's."""
    hub = json.loads((ROOT / "student" / "jupyter" / bundle.PAGE_CONFIG).read_text(encoding="utf-8"))
    laptop = json.loads((built / "jupyter-config" / bundle.PAGE_CONFIG).read_text(encoding="utf-8"))
    for key in ("disabledExtensions", "lockedExtensions"):
        assert laptop[key] == {**hub[key], **dict.fromkeys(bundle.HUB_ONLY_PLUGINS, True)}
    server = "jupyter_server_config.json"
    assert (built / "jupyter-config" / server).read_bytes() == (ROOT / "student" / "jupyter" / server).read_bytes()


def test_the_bundle_holds_no_solution_hidden_test_or_key(built):
    found = bundle.scan_bundle(ROOT, built)
    assert found == [], "instructor text in the student bundle:\n" + "\n".join(map(str, found))


def test_the_scan_finds_a_source_notebook_or_solution_line_put_in_the_bundle(built, tmp_path):
    lesson = LESSONS[0]
    leaky = bundle.assemble(ROOT, out=tmp_path / "leaky")
    source = ROOT / "source" / lesson / f"{lesson}.ipynb"
    (leaky / "notebooks" / lesson / f"{lesson}.ipynb").write_bytes(source.read_bytes())
    solution = sorted(bundle._solution_lines(nbformat.read(source, as_version=4)), key=len)[-1]
    with (leaky / "course-package" / "course" / "checks.py").open("a") as fh:
        fh.write(f"\n# {solution}\n{solution}\n")
    found = bundle.scan_bundle(ROOT, leaky)
    assert any(f.path.endswith(".ipynb") and "SOLUTION" in f.text for f in found)
    assert any(f.path.endswith("checks.py") and f.text == solution for f in found)


def test_the_scan_finds_reference_code_put_in_the_package(built, tmp_path):
    """A renamed solution, a function named like a reference, an import of the instructor's references."""
    leaky = bundle.assemble(ROOT, out=tmp_path / "leaky")
    (leaky / "course-package" / "course" / "helpers.py").write_text(
        'def how_many_dims(tensor):\n    """Not a hint at all."""\n    return tensor.dim()\n\n\n'
        "def expected_loss(seed):\n    return 0.0\n\n\nfrom instructor.training import expected_accuracy\n"
    )
    found = {f.text for f in bundle.scan_bundle(ROOT, leaky) if f.path.endswith("helpers.py")}
    assert found == {
        "def how_many_dims: the solution of tensor_rank",
        "def expected_loss: a function named like a reference answer",
        "imports the instructor's references",
    }


def test_the_instructor_references_are_not_in_the_bundle(built):
    assert not list(built.rglob("instructor"))
    assert not [
        p
        for p in built.rglob("*.py")
        if re.search(r"^\s*(from|import) instructor\b", p.read_text(encoding="utf-8"), re.M)
    ]


def test_write_bundle_refuses_a_leaking_release(tmp_path):
    lesson = LESSONS[0]
    course = _one_lesson_course(tmp_path, lesson)
    (course / "release" / lesson / f"{lesson}.ipynb").write_bytes(
        (course / "source" / lesson / f"{lesson}.ipynb").read_bytes()
    )
    out = tmp_path / "dist" / "student-bundle"
    with pytest.raises(bundle.BundleLeak) as caught:
        bundle.write_bundle(course, out=out)
    assert caught.value.leaks
    assert not out.exists() and not out.with_suffix(".zip").exists()


@pytest.mark.process
def test_the_course_package_builds_as_a_wheel_with_loose_pins(built, tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(tmp_path),
            str(built / "course-package"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (wheel,) = tmp_path.glob("*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        metadata = zf.read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "course/checks.py" in names and "course/probes/core.py" in names
    assert not any(n.startswith("autograder/") for n in names)
    requires = re.findall(r"^Requires-Dist: (.+)$", metadata, re.M)
    assert any(r.startswith("torch") and "==" not in r for r in requires), requires


def test_student_config_hides_real_instructor_plugins():
    page_config = json.loads((ROOT / "student" / "jupyter" / "labconfig" / "page_config.json").read_text())
    disabled = {name for name, off in page_config["disabledExtensions"].items() if off}
    assert {
        "@jupyter/nbgrader:formgrader",
        "@jupyter/nbgrader:create-assignment",
        "@jupyter/nbgrader:course-list",
    } <= disabled
    assert "@jupyter/nbgrader:validate-assignment" not in disabled
    locked = {name for name, on in page_config["lockedExtensions"].items() if on}
    assert disabled <= locked, "a student could turn a disabled tool back on in the Plugin Manager"
    assert "@jupyterlab/apputils-extension:announcements" in disabled, "JupyterLab would ask about its news"
    assert not set(bundle.HUB_ONLY_PLUGINS) & disabled, "the hub's students need the Assignment List"
    if NBGRADER_LABEXTENSION.is_dir():
        shipped = "".join(p.read_text(errors="replace") for p in NBGRADER_LABEXTENSION.rglob("*.js"))
        shipped += "".join(p.read_text(errors="replace") for p in JUPYTERLAB_STATIC.glob("jlab_core*.js"))
        for plugin in disabled | set(bundle.HUB_ONLY_PLUGINS):
            assert f'"{plugin}"' in shipped, f"{plugin} is not a plugin of the installed JupyterLab or nbgrader"
    server = json.loads((ROOT / "student" / "jupyter" / "jupyter_server_config.json").read_text())
    extensions = server["ServerApp"]["jpserver_extensions"]
    assert extensions == {
        "nbgrader.server_extensions.formgrader": False,
        "nbgrader.server_extensions.course_list": False,
    }
    for module in extensions:
        assert find_spec(module) is not None, module


def _execute(nb, cwd: Path, package: Path, monkeypatch, tmp_path: Path):
    """Run a notebook top to bottom in a fresh kernel that sees the bundle's package and no nbgrader."""
    shim = tmp_path / "no-nbgrader"
    shim.mkdir(exist_ok=True)
    (shim / "nbgrader.py").write_text("raise ImportError('nbgrader is not installed for students')\n")
    monkeypatch.setenv("PYTHONPATH", f"{package}:{shim}")
    monkeypatch.delenv("MPLBACKEND", raising=False)
    probe = nbformat.v4.new_code_cell("import course, sys\nprint(course.__file__)\nprint('nbgrader' in sys.modules)")
    nb.cells.insert(0, probe)
    NotebookClient(
        nb, timeout=300, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(cwd)}}
    ).execute()
    where, loaded = _stdout(nb.cells.pop(0)).split()
    assert Path(where).is_relative_to(package), f"the kernel imported course from {where}"
    assert loaded == "False"
    return nb


@pytest.mark.slow
@pytest.mark.parametrize("lesson", LESSONS)
def test_visible_checks_pass_in_plain_jupyter_when_answered(lesson, built, monkeypatch, tmp_path):
    release = nbformat.read(built / "notebooks" / lesson / f"{lesson}.ipynb", as_version=4)
    source = nbformat.read(ROOT / "source" / lesson / f"{lesson}.ipynb", as_version=4)
    nb = _execute(
        answered(source, release, keep=None),
        built / "notebooks" / lesson,
        built / "course-package",
        monkeypatch,
        tmp_path,
    )
    assert _errors(nb) == {}
    for cell in nb.cells:
        gid = _grade_id(cell)
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade"):
            assert f"✓ {gid.removeprefix('test_')}" in _stdout(cell), f"{gid} printed no pass line: {_stdout(cell)!r}"


@pytest.mark.slow
@pytest.mark.parametrize("lesson", LESSONS)
def test_untouched_release_fails_only_in_the_exercises(lesson, built, monkeypatch, tmp_path):
    release = nbformat.read(built / "notebooks" / lesson / f"{lesson}.ipynb", as_version=4)
    nb = _execute(release, built / "notebooks" / lesson, built / "course-package", monkeypatch, tmp_path)
    errors = _errors(nb)
    exercises = {
        i
        for i, c in enumerate(nb.cells)
        if c.get("metadata", {}).get("nbgrader", {}).get("solution")
        or c.get("metadata", {}).get("nbgrader", {}).get("grade")
    }
    tagged = {i for i, c in enumerate(nb.cells) if "raises-exception" in c.get("metadata", {}).get("tags", [])}
    # Cells after an exercise may use the student's function: "not implemented yet" is fine there, nothing else.
    stray = {i: e for i, e in errors.items() if i not in exercises | tagged and e != "NotImplementedError"}
    assert stray == {}, f"cells outside the exercises fail on the untouched release: {stray}"
    tests = [i for i, c in enumerate(nb.cells) if c.get("metadata", {}).get("nbgrader", {}).get("grade")]
    assert [i for i in tests if i not in errors] == [], "a visible check passes on the untouched release"
    assert {errors[i] for i in exercises if i in errors} <= {"NotImplementedError", "CheckFailed"}


def test_the_cpu_only_install_in_the_docs_names_the_pinned_torch():
    """README and docs/students.md give the CPU-only command with the torch the course pins, so it never drifts."""
    pinned = next(line for line in (ROOT / "requirements.txt").read_text().splitlines() if line.startswith("torch=="))
    for doc in (ROOT / "README.md", ROOT / "docs" / "students.md"):
        commands = re.findall(r"pip install (torch\S*) --index-url (\S+)", doc.read_text(encoding="utf-8"))
        assert commands == [(pinned, bundle.CPU_WHEELS)], (doc.name, commands)


def test_the_students_guide_turns_off_what_the_bundle_turns_off(built):
    """docs/students.md's commands for a user's own ~/.jupyter name the plugins the bundle disables and locks."""
    page = json.loads((built / "jupyter-config" / bundle.PAGE_CONFIG).read_text(encoding="utf-8"))
    guide = (ROOT / "docs" / "students.md").read_text(encoding="utf-8")
    for verb, key in (("disable", "disabledExtensions"), ("lock", "lockedExtensions")):
        line = re.search(rf"^jupyter labextension {verb} --level=user (.+)$", guide, re.M)
        assert line, f"docs/students.md has no `jupyter labextension {verb}` line"
        assert set(line.group(1).split()) == {name for name, on in page[key].items() if on}
