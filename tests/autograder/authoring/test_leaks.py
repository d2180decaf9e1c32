"""The leak scanner's own units, on small hand-made notebooks: `secret_lines` finds exactly the meaningful lines
of every solution and hidden-test region (and not lines also written elsewhere, nor generic ones such as
`return x`); `scan_release` reports a release that carries a solution line, a hidden test, a quiz key, a
marker, or instructor text in outputs, attachments or metadata, and nothing for a clean release; and
`solution_functions` with `scan_package` find a solution function copied into a shipped package under other
names, but not a function of the same name whose body differs.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbformat import v4

from autograder.authoring import leaks
from autograder.rules import items

NOT_IMPLEMENTED = "# YOUR CODE HERE\nraise NotImplementedError()"
RELEASED_SOLUTION = '''def running_total(values):
    """Cumulative sums of `values`, as a list."""
    # YOUR CODE HERE
    raise NotImplementedError()'''

SOLUTION = f'''def running_total(values):
    """Cumulative sums of `values`, as a list."""
    {items.BEGIN_SOLUTION}
    total, out = 0, []
    for value in values:
        total += value
        out.append(total)
    return out
    {items.END_SOLUTION}'''
VISIBLE_TEST = """from course.checks import check_equal, passed

check_equal(running_total([1, 2]), [1, 3], what="running_total([1, 2])")"""
HIDDEN_TEST = f"""{items.BEGIN_HIDDEN}
check_equal(running_total([]), [], what="running_total of nothing")
check_equal(running_total([-1, 1]), [-1, 0], what="running_total with a negative value")
{items.END_HIDDEN}
passed("running_total")"""
QUIZ_ANSWER = f"""# One upper-case letter as a string, for example "A".
answer_pick = None
{items.BEGIN_SOLUTION}
answer_pick = "B"
{items.END_SOLUTION}"""
QUIZ_VISIBLE = """from course.quiz import check_choice

check_choice(answer_pick, "ABCD", name="answer_pick")"""
QUIZ_HIDDEN = f"""{items.BEGIN_HIDDEN}
from course.quiz import check_key

check_key(answer_pick, "B", name="answer_pick", why="Only B keeps the view.")
{items.END_HIDDEN}"""

SECRETS = {
    "total, out = 0, []",
    "for value in values:",
    "total += value",
    "out.append(total)",
    'check_equal(running_total([]), [], what="running_total of nothing")',
    'check_equal(running_total([-1, 1]), [-1, 0], what="running_total with a negative value")',
    'answer_pick = "B"',
    "from course.quiz import check_key",
    'check_key(answer_pick, "B", name="answer_pick", why="Only B keeps the view.")',
}
HIDDEN_SECRETS = {line for line in SECRETS if line.startswith(("check_", "from course.quiz"))}


def cell(source: str, grade_id: str, *, solution: bool = False, grade: bool = False) -> nbformat.NotebookNode:
    meta = {"grade_id": grade_id, "solution": solution, "grade": grade, "locked": not solution, "schema_version": 3}
    if grade:
        meta["points"] = 1
    return v4.new_code_cell(source, metadata={"nbgrader": meta})


def source_notebook() -> nbformat.NotebookNode:
    nb = v4.new_notebook()
    nb.cells = [
        v4.new_markdown_cell("Write `running_total`: keep a running `total` and append it to a list."),
        cell(SOLUTION, "running_total", solution=True),
        cell(f"{VISIBLE_TEST}\n{HIDDEN_TEST}", "test_running_total", grade=True),
        cell(QUIZ_ANSWER, "answer_pick", solution=True),
        cell(f"{QUIZ_VISIBLE}\n{QUIZ_HIDDEN}", "test_answer_pick", grade=True),
    ]
    return nb


def release_notebook() -> nbformat.NotebookNode:
    """What nbgrader makes of `source_notebook`: solutions cleared, hidden tests removed."""
    nb = v4.new_notebook()
    nb.cells = [
        v4.new_markdown_cell("Write `running_total`: keep a running `total` and append it to a list."),
        cell(RELEASED_SOLUTION, "running_total", solution=True),
        cell(f'{VISIBLE_TEST}\npassed("running_total")', "test_running_total", grade=True),
        cell(
            f'# One upper-case letter as a string, for example "A".\nanswer_pick = None\n{NOT_IMPLEMENTED}',
            "answer_pick",
            solution=True,
        ),
        cell(QUIZ_VISIBLE, "test_answer_pick", grade=True),
    ]
    return nb


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A course with one assignment: its source notebook and a clean release of it."""
    for kind, nb in (("source", source_notebook()), ("release", release_notebook())):
        folder = tmp_path / kind / "ps1"
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / "ps1.ipynb")
    return tmp_path


def released(course: Path) -> Path:
    return course / "release" / "ps1" / "ps1.ipynb"


def edit_release(course: Path, change) -> None:
    """Apply `change` to the released notebook's JSON, as a careless export or a hand edit would."""
    path = released(course)
    nb = json.loads(path.read_text(encoding="utf-8"))
    change(nb)
    path.write_text(json.dumps(nb), encoding="utf-8")


def code_cell(nb: dict, grade_id: str) -> dict:
    return next(c for c in nb["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id)


# ---------------------------------------------------------------- secret_lines


def test_secret_lines_are_the_meaningful_lines_of_every_region():
    """Fails if a region kind is missed, a marker or a line outside every region counts, or `return out` does."""
    assert leaks.secret_lines(source_notebook()) == SECRETS


def test_hidden_test_regions_alone():
    """With regions=HIDDEN_TESTS only the hidden tests' lines are secret (quiz keys included), no solution line."""
    assert leaks.secret_lines(source_notebook(), regions=leaks.HIDDEN_TESTS) == HIDDEN_SECRETS


@pytest.mark.parametrize("begin, end", leaks.REGIONS, ids=["solution", "hidden tests"])
def test_each_region_alone_is_found(begin, end):
    """One region of each kind, indented as in a function body: its line is secret, the lines around it are not."""
    nb = v4.new_notebook()
    nb.cells = [
        v4.new_code_cell(
            f"def f(t):\n    before = t.sum()\n    {begin}\n    return t.flip(0) * 2\n    {end}\n    z = 1"
        )
    ]
    assert leaks.secret_lines(nb) == {"return t.flip(0) * 2"}


def test_a_line_also_written_outside_a_region_is_not_secret():
    """The prose, the visible test or another cell may repeat a line: then it gives nothing away."""
    nb = source_notebook()
    nb.cells.append(v4.new_markdown_cell("Hint:\n    out.append(total)\n"))
    nb.cells.append(v4.new_code_cell('check_key(answer_pick, "B", name="answer_pick", why="Only B keeps the view.")'))
    assert leaks.secret_lines(nb) == SECRETS - {
        "out.append(total)",
        'check_key(answer_pick, "B", name="answer_pick", why="Only B keeps the view.")',
    }


@pytest.mark.parametrize(
    "line",
    [
        "return x",
        "x = []",
        "return total_values",
        "found_items = []",
        "seen_before = {}",
        "result_value = None",
        "stop_early_flag = False",
        "running_sum = 0.0",
        "pass",
        ")",
        "# a note",
    ],
)
def test_generic_lines_are_not_secret(line):
    """Lines any answer could hold would flag every release: fails if the generic patterns are not skipped."""
    nb = v4.new_notebook()
    nb.cells = [v4.new_code_cell(f"{items.BEGIN_SOLUTION}\n{line}\n{items.END_SOLUTION}")]
    assert leaks.secret_lines(nb) == set()


@pytest.mark.parametrize("line", ['k = "B"', "return t.T", "# the trick: reverse before the cumsum"])
def test_short_lines_with_something_particular_are_secret(line):
    """A quoted key, a specific expression or a long comment is kept even when short."""
    nb = v4.new_notebook()
    nb.cells = [v4.new_code_cell(f"{items.BEGIN_SOLUTION}\n{line}\n{items.END_SOLUTION}")]
    assert leaks.secret_lines(nb) == {line}


# ---------------------------------------------------------------- scan_release / scan_notebook


def test_a_clean_release_has_no_leaks(course):
    """Fails if the scanner flags what nbgrader leaves: the signature, docstring, visible tests and prose."""
    assert leaks.scan_release(course) == []


def _plant_source(grade_id: str, line: str):
    def change(nb):
        target = code_cell(nb, grade_id)
        target["source"] = "".join(target["source"]) + "\n" + line

    return change


def _plant_output(kind: str, line: str):
    def change(nb):
        target = code_cell(nb, "running_total")
        if kind == "stream":
            target["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["ran\n", line + "\n"]}]
        elif kind == "error":
            tb = ["Traceback (most recent call last):", f"  File cell 2, line 4\n    {line}"]
            target["outputs"] = [{"output_type": "error", "ename": "ValueError", "evalue": "x", "traceback": tb}]
        else:
            target["outputs"] = [
                {"output_type": "display_data", "metadata": {}, "data": {"text/html": [f"<pre>{line}</pre>"]}}
            ]

    return change


def _plant_metadata(where: str, line: str):
    def change(nb):
        if where == "notebook":
            nb["metadata"]["instructor"] = {"notes": ["check this", line]}
        elif where == "cell":
            code_cell(nb, "test_running_total")["metadata"]["nbgrader"]["comment"] = line
        else:
            code_cell(nb, "running_total")["metadata"]["history"] = {line: 1}

    return change


def _plant_attachment(line: str):
    def change(nb):
        nb["cells"][0]["attachments"] = {"notes.txt": {"text/plain": line}}

    return change


@pytest.mark.parametrize(
    "change, secret, where",
    [
        pytest.param(_plant_source("running_total", "    total += value"), "total += value", "source", id="solution"),
        pytest.param(
            _plant_source("test_running_total", 'check_equal(running_total([]), [], what="running_total of nothing")'),
            'check_equal(running_total([]), [], what="running_total of nothing")',
            "source",
            id="hidden test",
        ),
        pytest.param(_plant_source("answer_pick", 'answer_pick = "B"'), 'answer_pick = "B"', "source", id="quiz key"),
        pytest.param(
            _plant_source(
                "test_answer_pick", 'check_key(answer_pick, "B", name="answer_pick", why="Only B keeps the view.")'
            ),
            'check_key(answer_pick, "B", name="answer_pick", why="Only B keeps the view.")',
            "source",
            id="quiz key check",
        ),
        pytest.param(_plant_output("stream", "out.append(total)"), "out.append(total)", "outputs", id="stream output"),
        pytest.param(_plant_output("error", "total += value"), "total += value", "outputs", id="traceback"),
        pytest.param(_plant_output("html", "for value in values:"), "for value in values:", "outputs", id="html"),
        pytest.param(
            _plant_metadata("notebook", 'answer_pick = "B"'), 'answer_pick = "B"', "metadata", id="notebook metadata"
        ),
        pytest.param(
            _plant_metadata("cell", "from course.quiz import check_key"),
            "from course.quiz import check_key",
            "metadata",
            id="cell metadata",
        ),
        pytest.param(_plant_metadata("key", "total, out = 0, []"), "total, out = 0, []", "metadata", id="metadata key"),
        pytest.param(_plant_attachment("total += value"), "total += value", "attachments", id="attachment"),
    ],
)
def test_a_release_carrying_a_secret_is_reported(course, change, secret, where):
    """Fails if the scanner reads only cell sources, or only some region kinds, or not keys of metadata."""
    edit_release(course, change)
    found = leaks.scan_release(course)
    assert found, "the planted secret was not found"
    assert {leak.text for leak in found} == {secret}
    assert all(leak.path == str(released(course)) and leak.where.endswith(where) for leak in found), found


def test_a_leak_is_located_by_the_cells_grade_id(course):
    """The report names the cell by its grade id (what an instructor searches for), and the part it is in."""
    edit_release(course, _plant_metadata("cell", "total += value"))
    (leak,) = leaks.scan_release(course)
    assert leak.where == "test_running_total metadata" and "total += value" in str(leak)


@pytest.mark.parametrize("marker", leaks.MARKERS)
def test_a_marker_left_in_the_release_is_reported(course, marker):
    """A marker shows the release was not cleared (or is about to leak what follows it)."""
    edit_release(course, _plant_source("running_total", f"    ### {marker}"))
    assert [leak.text for leak in leaks.scan_release(course)] == [marker]


def test_a_secret_in_another_released_file_is_reported(course):
    """Fails if only notebooks are scanned: a helper module or a data file ships with the assignment too."""
    (course / "release" / "ps1" / "helpers.py").write_text("def f(values):\n    total += value\n", encoding="utf-8")
    (leak,) = leaks.scan_release(course)
    assert leak.path.endswith("helpers.py") and leak.text == "total += value" and leak.where == "file"


def test_only_the_assignments_asked_for_are_scanned(course, tmp_path):
    """Secrets are per assignment and the filter and release_dir are obeyed."""
    edit_release(course, _plant_source("running_total", "    total += value"))
    assert leaks.scan_release(course, ["ps2"]) == []
    assert len(leaks.scan_release(course, ["ps1"])) == 1
    other = tmp_path / "elsewhere"
    (other / "ps1").mkdir(parents=True)
    nbformat.write(release_notebook(), other / "ps1" / "ps1.ipynb")
    assert leaks.scan_release(course, release_dir=other) == []


def test_scan_notebook_reads_the_secrets_it_is_given(course):
    """scan_notebook on its own: a secret found as a substring of a longer line too."""
    edit_release(course, _plant_output("stream", "print('hint:', 'total += value')"))
    assert leaks.scan_notebook(released(course), set()) == []
    (leak,) = leaks.scan_notebook(released(course), {"total += value"})
    assert leak.where == "running_total outputs"


# ---------------------------------------------------------------- solution_functions / scan_package


COPY = '''"""Helpers shipped with the course."""


def cumulative(xs):
    """Running sums (a helper, supposedly)."""
    total, out = 0, []
    for value in xs:
        total += value
        out.append(total)
    return out
'''
SAME_NAME_OTHER_BODY = '''import itertools


def running_total(values):
    """Cumulative sums, the library's way."""
    return list(itertools.accumulate(values))
'''


def test_solution_functions_are_the_graded_functions_of_solution_cells():
    """Only a solution cell's function named by its grade id; not the quiz's variable, nor a test cell's helper."""
    nb = source_notebook()
    nb.cells.append(cell("def check_total(found):\n    return found == [1, 3]", "test_helper", grade=True))
    found = leaks.solution_functions(nb)
    assert set(found) == {"running_total"}
    assert "accumulate" not in found["running_total"]


def test_a_solution_copied_into_a_package_under_other_names_is_found(tmp_path):
    """Renaming the function and its argument, or changing its docstring, does not hide the solution."""
    package = tmp_path / "course_helpers"
    package.mkdir()
    (package / "sums.py").write_text(COPY, encoding="utf-8")
    (leak,) = leaks.scan_package(package, leaks.solution_functions(source_notebook()))
    assert leak.path == str(package / "sums.py") and leak.where == "line 4"
    assert leak.text == "def cumulative: the solution of running_total"


def test_a_function_of_the_same_name_with_another_body_is_not_flagged(tmp_path):
    """Fails a scanner that matches on the name: the package may define its own `running_total`."""
    package = tmp_path / "course_helpers"
    package.mkdir()
    (package / "sums.py").write_text(SAME_NAME_OTHER_BODY, encoding="utf-8")
    assert leaks.scan_package(package, leaks.solution_functions(source_notebook())) == []


def test_reference_names_and_instructor_imports_are_flagged(tmp_path):
    package = tmp_path / "course_helpers"
    (package / "sub").mkdir(parents=True)
    (package / "sub" / "refs.py").write_text(
        "from instructor.references import expected_total\nimport instructor\n\n\ndef solve_it(x):\n    return x\n",
        encoding="utf-8",
    )
    (package / "broken.py").write_text("def (:\n", encoding="utf-8")
    found = leaks.scan_package(package, {})
    assert sorted((leak.where, leak.text) for leak in found) == [
        ("line 1", "imports the instructor's references"),
        ("line 2", "imports the instructor's references"),
        ("line 5", "def solve_it: a function named like a reference answer"),
    ]
