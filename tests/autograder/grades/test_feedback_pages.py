"""`autograder feedback` writes the pages stock `nbgrader generate_feedback` writes, byte for byte.

The class is the demo class on every lesson, graded by the engine, then changed the ways an
instructor changes a gradebook (a manual score, a comment, a late penalty) and the ways a student
changes a notebook (markdown holding a tag it never closes, a stray closing tag, an extra file).
Stock nbgrader writes its feedback into one copy of the course and `autograder feedback` into
another; every page must be the same.
"""

from __future__ import annotations

import filecmp
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings as hypothesis_settings, strategies as st

from autograder import commands, stock
from autograder.grades import feedback_pages, gradebook
from autograder.authoring import samples
from tests.autograder.grades.test_highlighting import SOURCE_TEXT
from tests.conftest import released_copy

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory, released_course) -> Path:
    course = released_copy(released_course, tmp_path_factory.mktemp("feedback") / "course")
    lessons = commands.source_assignments(course)
    samples.write_demo_class(course, assignments=lessons)
    commands.grade(course, assignments=lessons, progress=False)
    first = lessons[0]
    _edit_gradebook(course, first)
    _edit_notebooks(course, first)
    return course


def _edit_gradebook(course: Path, lesson: str) -> None:
    from nbgrader.api import Gradebook

    with Gradebook(gradebook.db_url(course)) as gb:
        notebook = gb.find_submission_notebook(lesson, lesson, "chen")
        grade = next(g for g in notebook.grades if g.auto_score == 0)
        grade.manual_score = 0.5
        comment = notebook.comments[0]
        comment.manual_comment = "Good start: *check* the shape <b>first</b>."
        notebook.late_submission_penalty = 1.25
        gb.db.commit()


# code a student might write, each new to the page: quotes, entities, tags, magics, unicode, and
# characters the fast polish leaves to BeautifulSoup (a form feed, a carriage return, a no-break space);
# every student of the first lesson hands them in, each in another cell, so that most are spliced into
# a skeleton another student's cell made, highlighted by IPython's lexer (its magic rules guarded)
TRICKY_SOURCES = [
    's = "it\'s" + \'"quoted"\' & 1 < 2 > 0  # &amp; &lt;b&gt; <script>alert(1)</script>',
    "%%bash\necho 'hi' > /dev/null",
    "!ls -la | grep '&'\nx = f'{1!r:>4}'  # café, naïve, 数据",
    'def f():\n\treturn """\n  multi\r\n"""\n\x0c\ny = 1\u00a0+ 2',
    "   ",
    "\n\nprint('</pre></div>&#39;')  # leading blank lines",
    "%%html\n<b>bold</b> &nbsp; &quot;",
    "",
]


def _edit_notebooks(course: Path, lesson: str) -> None:
    path = course / "autograded" / "ada" / lesson / f"{lesson}.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    nb["cells"].insert(1, {"cell_type": "markdown", "id": "open-div", "metadata": {}, "source": "<div>never closed"})
    nb["cells"].insert(3, {"cell_type": "markdown", "id": "stray", "metadata": {}, "source": "closes </div> early"})
    path.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    (path.parent / "notes.txt").write_text("a file beside the notebook\n", encoding="utf-8")
    for turn, path in enumerate(sorted((course / "autograded").glob(f"*/{lesson}/{lesson}.ipynb"))):
        nb = json.loads(path.read_text(encoding="utf-8"))
        nb["metadata"].setdefault("language_info", {})["pygments_lexer"] = "ipython3"  # as ipykernel writes it
        for k in range(len(TRICKY_SOURCES)):
            source = TRICKY_SOURCES[(k + turn) % len(TRICKY_SOURCES)]
            cell = {"cell_type": "code", "id": f"tricky-{k}", "metadata": {}, "execution_count": None, "outputs": []}
            nb["cells"].insert(4 + k, dict(cell, source=source))
        path.write_text(json.dumps(nb, indent=1), encoding="utf-8")


def _copy(course: Path, to: Path) -> Path:
    shutil.copytree(course, to, symlinks=True, ignore=shutil.ignore_patterns("feedback"))
    return to


@pytest.fixture(scope="module")
def stock_pages(graded_class, tmp_path_factory) -> Path:
    """The class's feedback/ folder as stock `nbgrader generate_feedback` writes it."""
    theirs = _copy(graded_class, tmp_path_factory.mktemp("stock") / "course")
    for lesson in commands.source_assignments(theirs):
        stock.generate_feedback(theirs, lesson)
    return theirs / "feedback"


def _differ(ours: Path, theirs: Path) -> list[str]:
    files = sorted(p.relative_to(theirs) for p in theirs.rglob("*") if p.is_file())
    assert sorted(p.relative_to(ours) for p in ours.rglob("*") if p.is_file()) == files
    return [str(p) for p in files if not filecmp.cmp(theirs / p, ours / p, shallow=False)]


def test_every_page_is_stock_nbgraders_page(graded_class, stock_pages, tmp_path, capsys):
    ours = _copy(graded_class, tmp_path / "ours")
    commands.feedback(ours, workers=2, progress=False)
    printed = capsys.readouterr().out
    assert "Feedback: " in printed and "by nbgrader generate_feedback" not in printed, printed
    our_files = [p.relative_to(ours / "feedback") for p in (ours / "feedback").rglob("*") if p.is_file()]
    assert len([p for p in our_files if p.suffix == ".html"]) >= 4 * len(commands.source_assignments(ours))
    assert any(p.name == "notes.txt" for p in our_files)
    assert not _differ(ours / "feedback", stock_pages)
    modes = {(ours / "feedback" / p).stat().st_mode & 0o777 for p in our_files}
    assert modes == {0o644}


def test_answers_spliced_into_skeletons_are_stock_nbgraders(graded_class, stock_pages, tmp_path):
    """In one process, in order: the first student's new cells make the skeletons, into which every
    student's cells of the same shape are spliced, whatever their source, unless the fast polish
    leaves the source to BeautifulSoup (a carriage return, a no-break space) or it is empty."""
    ours = _copy(graded_class, tmp_path / "ours")
    lesson = commands.source_assignments(ours)[0]
    written = feedback_pages.write_feedback(ours, [lesson], workers=1, progress=False)
    students = sorted(p.parent.name for p in (ours / "autograded").glob(f"*/{lesson}"))
    assert written.submissions == len(students) and not written.failed
    assert written.whole == 1  # ada's page, with its unclosed <div>, is rendered whole after its cells are made
    spliceable = [s for s in TRICKY_SOURCES if s and s.replace("\n", "").replace("\t", "").isprintable()]
    assert len(spliceable) >= 5
    assert written.spliced >= len(students) * len(spliceable), written
    for student in students:
        assert not _differ(ours / "feedback" / student / lesson, stock_pages / student / lesson)


def test_a_changed_grade_changes_the_page(graded_class, tmp_path):
    """Two students who handed in the same notebook get the same cells, but each their own scores."""
    from nbgrader.api import Gradebook

    course = _copy(graded_class, tmp_path / "course")
    lesson = commands.source_assignments(course)[0]
    before = _page(course, lesson, "ada")
    with Gradebook(gradebook.db_url(course)) as gb:
        grade = next(g for g in gb.find_submission_notebook(lesson, lesson, "ada").grades if g.max_score >= 2)
        grade.manual_score = 1.0
        gb.db.commit()
        name, top = grade.name, grade.max_score
    after = _page(course, lesson, "ada")
    assert before != after
    assert f"Score: {top} / {top}" in _after_anchor(before, name)
    assert f"Score: 1.0 / {top}" in _after_anchor(after, name)


def _page(course: Path, lesson: str, student: str) -> str:
    commands.feedback(course, assignments=[lesson], student=student, progress=False)
    return (course / "feedback" / student / lesson / f"{lesson}.html").read_text(encoding="utf-8")


def _after_anchor(page: str, grade_id: str) -> str:
    at = page.index(f'<a name="{grade_id}"></a>')
    return page[at : at + 600]


def test_a_course_that_configures_the_pages_gets_stock_nbgraders(graded_class, tmp_path, capsys):
    course = _copy(graded_class, tmp_path / "course")
    lesson = commands.source_assignments(course)[0]
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as fh:
        fh.write("\nc.HTMLExporter.exclude_input = True\n")
    commands.feedback(course, assignments=[lesson], student="ada", progress=False)
    printed = capsys.readouterr().out
    assert "by nbgrader generate_feedback, one notebook at a time: the course configures HTMLExporter" in printed
    page = (course / "feedback" / "ada" / lesson / f"{lesson}.html").read_text(encoding="utf-8")
    assert 'class="input_area"' not in page


def test_a_notebook_missing_from_the_gradebook_is_named_and_left_out(graded_class, tmp_path, capsys):
    course = _copy(graded_class, tmp_path / "course")
    lesson = commands.source_assignments(course)[0]
    extra = course / "autograded" / "blake" / lesson / "stray.ipynb"
    shutil.copy(course / "autograded" / "blake" / lesson / f"{lesson}.ipynb", extra)
    commands.feedback(course, assignments=[lesson], progress=False)
    printed = capsys.readouterr().out
    assert (
        f"feedback not written blake/{lesson}: MissingMark: stray of blake/{lesson} is not in the gradebook" in printed
    )
    assert not (course / "feedback" / "blake" / lesson).exists()
    assert (course / "feedback" / "ada" / lesson / f"{lesson}.html").is_file()


fragment = st.recursive(
    st.sampled_from(["", "x", " ", "\n", "  \n ", "a b"]),
    lambda inner: st.builds(
        lambda tag, lead, body, trail: f"{lead}<{tag}>{body}</{tag}>{trail}",
        st.sampled_from(["div", "span", "pre", "p"]),
        st.sampled_from(["", " ", "\n", " \n\t"]),
        inner,
        st.sampled_from(["", " ", "\n", "\n  "]),
    ),
    max_leaves=6,
)


@hypothesis_settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(fragment.filter(lambda f: f.strip(feedback_pages.SPACES)[:1] in ("", "<")), max_size=5),
    lead=st.sampled_from(["", " ", "\n", "\n \n"]),
    trail=st.sampled_from(["", " ", "\n", " \n "]),
)
def test_pieces_join_as_the_whole_page_parses(pieces, lead, trail):
    """BeautifulSoup over the whole page (the slow, obvious reference) against pieces polished alone and joined."""
    pieces = [p for p in pieces if feedback_pages.balanced(p)]
    cores = [p.strip(feedback_pages.SPACES) for p in pieces]
    if any(c and (c[0] != "<" or c[-1] != ">") for c in cores):
        return
    whole = feedback_pages.polish(f"<body><main>{lead}{''.join(pieces)}{trail}</main></body>")
    before, after = feedback_pages.polish(f"<body><main>{lead}<!--cells-->{trail}</main></body>").split("<!--cells-->")
    assert feedback_pages.joined([before, *map(feedback_pages.polish, pieces), after]) == whole


def test_balanced_tells_a_closed_fragment_from_an_open_one():
    assert feedback_pages.balanced('<div class="a"><p>x<br>y</p><img src="z"></div>')
    assert not feedback_pages.balanced("<div>never closed")
    assert not feedback_pages.balanced("closes </div> early")
    assert not feedback_pages.balanced("<b><i>crossed</b></i>")


@hypothesis_settings(max_examples=500, deadline=None)
@given(source=SOURCE_TEXT, lexer=st.sampled_from(["ipython3", "python", "bash", None]))
def test_fast_polish_is_beautifulsoups_polish_of_highlighted_code(source, lexer):
    """The fast polish of a highlighted block against BeautifulSoup's (the slow, obvious reference), or None."""
    from nbconvert.filters.highlight import Highlight2HTML

    block = Highlight2HTML(pygments_lexer=lexer)(source)
    fast = feedback_pages.fast_polish(block)
    slow = feedback_pages.polish(block)
    assert fast is None or fast + "\n" == slow, (fast, slow)
    if source.isascii() and source.isprintable():
        assert fast is not None, block


def test_fast_polish_leaves_other_shapes_to_beautifulsoup():
    from nbconvert.filters.highlight import Highlight2HTML

    numbered = Highlight2HTML(pygments_lexer="python", extra_formatter_options={"linenos": "table"})("x = 1")
    assert feedback_pages.fast_polish(numbered) is None
    block = Highlight2HTML(pygments_lexer="python")("x = '&'")
    assert feedback_pages.fast_polish(block) is not None
    for changed in (
        block.replace('class="', 'class="jp-Cell-inputWrapper '),
        block.replace("&amp;", "&copy;"),
        block.replace("&amp;", "&"),
        block.replace("<span", "<img", 1),
        block[:-1],
        block.replace("x", "x\r"),
    ):
        assert feedback_pages.fast_polish(changed) is None, changed


@pytest.mark.parametrize(
    "names",
    [
        ["a.ipynb", "b.ipynb"],
        ["a.ipynb", ".hidden.ipynb"],
        ["a.ipynb", "LOUD.IPYNB"],
        ["a.ipynb", "notes.txt"],
        ["a.ipynb", "folder.ipynb/inside.csv"],
        ["a.ipynb", ".ipynb_checkpoints/a-checkpoint.ipynb", "data/x.pyc"],
    ],
)
def test_other_files_are_the_ones_nbgrader_would_copy(tmp_path: Path, names: list[str]) -> None:
    from nbgrader.utils import find_all_files

    source, dest = tmp_path / "source", tmp_path / "dest"
    for name in names:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(name, encoding="utf-8")
    dest.mkdir()
    ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback"]
    feedback_pages.copy_other_files(source, dest, ignore)
    copied = sorted(str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file())
    expected = sorted(str(Path(n).relative_to(source)) for n in find_all_files(str(source), ignore + ["*.ipynb"]))
    assert copied == expected


JSON_LIKE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


@hypothesis_settings(max_examples=400, deadline=None)
@given(first=JSON_LIKE, second=JSON_LIKE)
def test_cells_share_a_key_only_when_they_are_the_same(first, second):
    """Against the obvious reference: JSON with type names, in order (1, 1.0 and True are three values)."""

    def spelled(node):
        if isinstance(node, dict):
            return ["dict", [[key, spelled(value)] for key, value in node.items()]]
        if isinstance(node, list):
            return ["list", [spelled(value) for value in node]]
        return [type(node).__name__, node]

    same = json.dumps(spelled(first)) == json.dumps(spelled(second))
    assert (feedback_pages._digest(first) == feedback_pages._digest(second)) == same
    assert feedback_pages._digest(json.loads(json.dumps(first))) == feedback_pages._digest(
        json.loads(json.dumps(first))
    )


def test_a_value_marshal_refuses_is_keyed_by_its_json():
    class Text(str):
        pass

    assert feedback_pages._digest({"source": Text("x = 1")}).startswith("j")
    assert feedback_pages._digest({"source": Text("x = 1")}) != feedback_pages._digest({"source": Text("x = 2")})


@pytest.mark.parametrize("change", ["", " | replace('x', 'y')"])
def test_a_skeleton_serves_only_when_the_probe_spliced_into_it_is_the_probe_rendered(graded_class, change):
    """A template that changes the text around the marker's place (here, every `x` in a cell) keeps
    the marker whole, so only the probe can tell its skeletons are wrong: they must not serve."""
    from autograder.config import nbconfig

    renderer = feedback_pages.PageRenderer(nbconfig.load(graded_class))
    base = renderer._exporter.config.HTMLExporter.get("template_file", "index.html.j2")
    renderer._cells_template = renderer._exporter.environment.from_string(
        f"{{%- extends {base!r} -%}}{{%- block any_cell scoped -%}}{feedback_pages.CELL_START}"
        f"{{{{ super(){change} }}}}{feedback_pages.CELL_END}{{%- endblock any_cell -%}}"
    )
    lesson = commands.source_assignments(graded_class)[0]
    marks = feedback_pages.marks_for(gradebook.db_url(graded_class), lesson)
    for student in ("blake", "chen"):
        path = graded_class / "autograded" / student / lesson / f"{lesson}.ipynb"
        nb = feedback_pages.read_notebook(path)
        nb["cells"].append({"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": []})
        nb["cells"][-1]["source"] = f"x = {student!r}"
        renderer.page(
            nb,
            marks[(student, lesson)],
            student=student,
            assignment=lesson,
            notebook=lesson,
            source=path,
            db_url="",
        )
    proven = [skeleton for skeleton in renderer._skeletons.values() if skeleton is not None]
    assert (renderer.spliced > 0 and proven) if not change else (renderer.spliced == 0 and not proven)
