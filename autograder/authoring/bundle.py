"""The student bundle: everything a student needs without the instructor's repository.

    student-bundle/
      README.md                 how to install, open a lesson, run the checks, hand in
      requirements.txt          torch==2.13.0, numpy, matplotlib, jupyterlab (nbgrader optional)
      notebooks/<id>/<id>.ipynb the released notebooks (README.md lists them in course order)
      course-package/           the `course` package, installable with `pip install ./course-package`
      jupyter-config/           JupyterLab settings that hide nbgrader's instructor tools

plus `student-bundle.zip` next to the folder. The package's own dependencies are loose (`torch>=2.1`)
so that `pip install` in a hosted notebook keeps the torch it already has; requirements.txt pins the
versions the course is tested with. Nothing is written unless it passes the leak scan.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import zipfile
from pathlib import Path

import nbformat

from autograder.rules import items
from autograder.authoring import leaks
from autograder.authoring.lessons import course_order

BUNDLE_NAME = "student-bundle"
PACKAGE_DIR = "course-package"
PACKAGE_NAME = "pytorch-tensors-course"
PINNED = ("torch", "numpy", "matplotlib", "jupyterlab", "ipykernel")
FALLBACK_PINS = {
    "torch": "torch==2.13.0",
    "numpy": "numpy",
    "matplotlib": "matplotlib",
    "jupyterlab": "jupyterlab",
    "ipykernel": "ipykernel",
}
STUDENT_CONFIG_FILES = ("jupyter_server_config.json", "labconfig/page_config.json")
PAGE_CONFIG = "labconfig/page_config.json"
# nbgrader's Assignment List (and the Nbgrader menu that only opens it) talks to the hub's exchange; on a
# laptop it opens a page of exchange errors, so the bundle turns both off. The hub keeps them.
HUB_ONLY_PLUGINS = ("@jupyter/nbgrader:assignment-list", "@jupyter/nbgrader:menu")
SKIPPED = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")


class BundleLeak(RuntimeError):
    """The bundle would have carried instructor-only text; nothing was left on disk."""

    def __init__(self, found: list[leaks.Leak]) -> None:
        super().__init__("the student bundle would leak instructor text:\n" + "\n".join(map(str, found[:20])))
        self.leaks = found


def released_lessons(course_dir: Path) -> list[str]:
    """The lessons in release/, in course order (`lessons/ORDER`)."""
    release = course_dir / "release"
    found = [p.name for p in release.iterdir() if p.is_dir() and any(p.glob("*.ipynb"))] if release.is_dir() else []
    return course_order(course_dir, found)


def write_bundle(course_dir: Path, *, out: Path | None = None, assignments: list[str] | None = None) -> Path:
    """Write the bundle folder at `out` (default dist/student-bundle) and `<out>.zip`; return the folder.

    `assignments` defaults to every lesson in release/. Raises BundleLeak (and removes what it wrote)
    when the scan finds a solution, hidden test or quiz key anywhere in the bundle.
    """
    course_dir = course_dir.resolve()
    out = assemble(course_dir, out=(out or course_dir / "dist" / BUNDLE_NAME).resolve(), assignments=assignments)
    found = scan_bundle(course_dir, out)
    if found:
        shutil.rmtree(out)
        raise BundleLeak(found)
    _zip(out, out.with_suffix(".zip"))
    return out


def assemble(course_dir: Path, *, out: Path, assignments: list[str] | None = None) -> Path:
    """The bundle folder alone, unchecked and unzipped (write_bundle is the version to ship)."""
    lessons = course_order(course_dir, assignments) if assignments else released_lessons(course_dir)
    missing = [a for a in lessons if not (course_dir / "release" / a).is_dir()]
    if missing:
        raise LookupError(f"not released yet: {', '.join(missing)} (run `autograder release` first)")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for lesson in lessons:
        shutil.copytree(course_dir / "release" / lesson, out / "notebooks" / lesson, ignore=SKIPPED)
    _write_package(course_dir, out / PACKAGE_DIR)
    write_laptop_config(course_dir, out / "jupyter-config")
    requirements = _requirements(course_dir)
    (out / "requirements.txt").write_text(requirements, encoding="utf-8")
    (out / "README.md").write_text(_readme(lessons, torch_pin=_pin_of(requirements, "torch")), encoding="utf-8")
    return out


def write_laptop_config(course_dir: Path, into: Path) -> None:
    """The student's Jupyter configuration for a laptop in the folder `into`: the hub's student settings
    (`student/jupyter`), with the plugins that need the hub's exchange turned off and locked."""
    for name in STUDENT_CONFIG_FILES:
        path = course_dir / "student" / "jupyter" / name
        if not path.is_file():
            continue
        (into / name).parent.mkdir(parents=True, exist_ok=True)
        if name != PAGE_CONFIG:
            shutil.copy2(path, into / name)
            continue
        page = json.loads(path.read_text(encoding="utf-8"))
        for key in ("disabledExtensions", "lockedExtensions"):
            page.setdefault(key, {}).update(dict.fromkeys(HUB_ONLY_PLUGINS, True))
        (into / name).write_text(json.dumps(page, indent=2) + "\n", encoding="utf-8")


def scan_bundle(course_dir: Path, bundle: Path) -> list[leaks.Leak]:
    """Instructor-only text anywhere in the bundle.

    Each lesson's notebook is scanned for that lesson's secrets as `autograder release` does. The
    other files (the course package above all) must hold no line of any lesson's solution code or
    quiz key, and no nbgrader region marker; the package's code must hold no reference answer
    (`leaks.scan_package`). Hidden-test lines are not looked for there: they are calls of the course's
    own helpers, which the package naturally contains.
    """
    found = leaks.scan_release(course_dir, release_dir=bundle / "notebooks")
    solutions: set[str] = set()
    functions: dict[str, str] = {}
    for nb_path in sorted((course_dir / "source").glob("*/*.ipynb")):
        source_nb = nbformat.read(nb_path, as_version=4)
        solutions |= _solution_lines(source_nb)
        functions.update(leaks.solution_functions(source_nb))
    found += leaks.scan_package(bundle / PACKAGE_DIR, functions)
    for path in sorted(bundle.rglob("*")):
        if not path.is_file() or path.is_relative_to(bundle / "notebooks"):
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        lines = {line.strip() for line in text.splitlines()}
        found += [leaks.Leak(str(path), "file", s) for s in sorted(solutions) if s in lines]
        found += [leaks.Leak(str(path), "file", m) for m in leaks.MARKERS if m in text]
    return found


def _solution_lines(source_nb: nbformat.NotebookNode) -> set[str]:
    """Secret lines of the solution regions only: hidden-test regions count as ordinary text."""
    nb = copy.deepcopy(source_nb)
    for cell in nb.cells:
        cell.source = cell.source.replace(items.BEGIN_HIDDEN, "#").replace(items.END_HIDDEN, "#")
    return leaks.secret_lines(nb)


def _write_package(course_dir: Path, target: Path) -> None:
    shutil.copytree(course_dir / "course", target / "course", ignore=SKIPPED)
    init = (course_dir / "course" / "__init__.py").read_text(encoding="utf-8")
    version = re.search(r'^__version__ = "([^"]+)"', init, re.M)
    (target / "pyproject.toml").write_text(
        f'''[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "{PACKAGE_NAME}"
version = "{version.group(1) if version else "0.0.0"}"
description = "Helpers the PyTorch tensors course notebooks import: checks, quiz helpers, device helpers, pictures."
requires-python = ">=3.10"
dependencies = ["torch>=2.1", "numpy", "matplotlib"]

[tool.setuptools.packages.find]
include = ["course*"]
''',
        encoding="utf-8",
    )


def _requirements(course_dir: Path) -> str:
    """The instructor's pins for what a student needs, so both run the same versions."""
    pins = dict(FALLBACK_PINS)
    source = course_dir / "requirements.txt"
    if source.is_file():
        for line in source.read_text(encoding="utf-8").splitlines():
            name = re.split(r"[=<>!~\[ ;]", line.strip(), maxsplit=1)[0].lower()
            if name in pins:
                pins[name] = line.strip()
    nbgrader = "nbgrader==0.9.6"
    return (
        "# What the course notebooks need, at the versions they are tested with.\n"
        + "\n".join(pins[name] for name in PINNED)
        + "\n# Optional: the Validate button in JupyterLab.\n"
        + f"# {nbgrader}\n"
    )


CPU_WHEELS = "https://download.pytorch.org/whl/cpu"
"""PyTorch's own index of CPU-only wheels: on Linux, PyPI's torch is the CUDA build, several GB larger."""


def _pin_of(requirements: str, name: str) -> str:
    return next(line for line in requirements.splitlines() if re.match(rf"{name}\b", line))


def _readme(lessons: list[str], *, torch_pin: str) -> str:
    listing = "\n".join(f"{n}. `notebooks/{lesson}/{lesson}.ipynb`" for n, lesson in enumerate(lessons, start=1))
    return f"""# PyTorch tensors: the student bundle

The lessons, in the order the course teaches them (a folder keeps the number its lesson was first
given, so the folders sort in another order; each lesson ends by naming the next one's folder):

{listing}

## On your own computer

You need Python 3.10 or newer (`python3 --version`). In a terminal:

```bash
unzip {BUNDLE_NAME}.zip && cd {BUNDLE_NAME}     # the commands below run inside this folder
python3 -m venv .venv
source .venv/bin/activate            # Windows: .venv\\Scripts\\activate
pip install {torch_pin} --index-url {CPU_WHEELS}   # only on Linux without an NVIDIA GPU
pip install -r requirements.txt
pip install ./{PACKAGE_DIR}
jupyter lab notebooks
```

The first `pip` line is for Linux machines without an NVIDIA GPU: it installs PyTorch's CPU-only
build, a much smaller download than the CUDA build that a plain `pip install torch` fetches on
Linux (the next line then finds the pinned torch already there). Skip it on Windows, macOS, or with
an NVIDIA GPU.

Open a lesson and run its first cell: it prints the PyTorch version and which device the lesson will
use (`cpu`, or `cuda` when PyTorch sees an NVIDIA GPU). If it fails with `No module named 'course'`,
the `pip install ./{PACKAGE_DIR}` step is missing from the Python the notebook runs on.

## In a hosted notebook (Colab, Kaggle, a JupyterHub)

Upload `{BUNDLE_NAME}.zip`, then run in a notebook cell:

```
!unzip -q -o {BUNDLE_NAME}.zip
%pip install ./{BUNDLE_NAME}/{PACKAGE_DIR}
```

This keeps the torch the service already has. Open the lesson from `{BUNDLE_NAME}/notebooks/`, and
restart the kernel once if the first cell cannot import `course`.

## Working through a lesson

- Write your code where a cell says `# YOUR CODE HERE`; delete the `raise NotImplementedError()` line.
- Run the cell just below each answer: its visible checks print `✓ ...: the visible checks pass.`, or
  say in plain words what was expected and what was found. Grading adds hidden checks for edge cases.
- Checks that measure how a function works (does it change its input, share memory, loop in Python)
  run only on answers in plain Python: no special `__names__` beyond a class's usual ones
  (`__init__`, `__len__`, `__getitem__`, ...), no attribute starting with `_`, no `eval`, `exec`,
  `globals`, `vars`, `open` or `__import__`, `getattr` only with a written name, no change to a library
  (`np.copy = ...`), no subclass of `torch.Tensor`, no `torch.jit` or `torch.compile`, and imports from
  `torch`, `numpy`, `math` and the everyday modules, not `sys`, `inspect`, `gc` (but `gc.collect`),
  `threading`, `pickle` or `ctypes`. If an answer steps outside, its visible check names the line; at
  grading that item goes to your instructor to grade by hand.
- Quiz answers are checked for their form only (one letter, a tuple of ints); the key is checked
  when your notebook is graded.
- Before handing in, run every cell from the top (Kernel > Restart Kernel and Run All Cells). With
  nbgrader installed (`pip install nbgrader==0.9.6`), the Validate button in the notebook toolbar
  does this for you; start JupyterLab with `JUPYTER_CONFIG_DIR=jupyter-config jupyter lab notebooks`
  to keep the instructor's tools out of your menus.
- Hand in the `.ipynb` file of each lesson as your instructor asks. Keep the file name.
"""


def _zip(folder: Path, archive: Path) -> Path:
    """A zip whose single top folder is the bundle's name, with stable entry order."""
    if archive.exists():
        archive.unlink()
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zf.write(path, Path(folder.name) / path.relative_to(folder))
    return archive
