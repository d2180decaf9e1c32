"""Feedback pages as nbgrader's `generate_feedback` writes them, byte for byte, for a whole class.

Stock nbgrader renders each notebook whole, reads its grades one object at a time and re-parses the
page (a quarter of a megabyte of inlined CSS included) with BeautifulSoup: about half a second a
notebook. Here the grades come from three bulk queries, and each page is put together from the same
template's pieces: the head, the table of contents, and one piece per cell, each rendered and polished
by nbconvert's own code once and reused wherever the same cell comes again (the lesson text, the tests,
the same output). A code cell new only in its source (each student's answer) is its shape's skeleton,
rendered once, with its own highlighted source put in. A page is the concatenation of its pieces; `tests/autograder/grades/test_feedback_pages.py` checks it
against stock nbgrader's page for every submission of a class. A course whose configuration changes
how nbgrader writes feedback (its exporter, template, preprocessors or folder layout) is handed to
stock nbgrader instead, `fast_path_refusal` says why; the one template it knows besides nbgrader's is
the course's own (`feedback_template`), which names each item.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import re
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from autograder.grades import feedback_template
from autograder.grades.highlighting import reusing_highlighter

CELL_START = "<!--autograder-feedback-cell-start-->"
CELL_END = "<!--autograder-feedback-cell-end-->"
HEAD_MARK = "<!--autograder-feedback-head-->"
CELLS_MARK = "<!--autograder-feedback-cells-->"
STOCK_LAYOUT = "{nbgrader_step}/{student_id}/{assignment_id}"
CONFIG_SECTIONS_THAT_CHANGE_PAGES = (
    "GenerateFeedback",
    "Feedback",
    "HTMLExporter",
    "TemplateExporter",
    "Exporter",
    "FilesWriter",
    "CSSHTMLHeaderPreprocessor",
    "GetGrades",
)


@dataclass
class Marks:
    """What nbgrader's GetGrades puts on one submitted notebook: each graded cell's score and points,
    each solution or task cell's comment, the notebook's score less its late penalty."""

    scores: dict[str, tuple[float, float]] = field(default_factory=dict)
    comments: dict[str, str | None] = field(default_factory=dict)
    score: float = 0.0
    max_score: float = 0.0
    late_penalty: float = 0.0


def fast_path_refusal(config) -> str | None:
    """Why this course's feedback must come from stock nbgrader (None: the pages here are its pages)."""
    for section in CONFIG_SECTIONS_THAT_CHANGE_PAGES:
        if section == "HTMLExporter" and feedback_template.is_named_items(config.get(section, {})):
            continue
        if section in config and len(config[section]):
            return f"the course configures {section}"
    course = config.get("CourseDirectory", {})
    if course.get("directory_structure", STOCK_LAYOUT) != STOCK_LAYOUT:
        return "the course changes CourseDirectory.directory_structure"
    if course.get("groupshared", False):
        return "the course sets CourseDirectory.groupshared"
    return None


def marks_for(db_url: str, assignment: str) -> dict[tuple[str, str], Marks]:
    """{(student, notebook): Marks} for every submitted notebook of `assignment`, in three queries, with
    nbgrader's own expressions of a grade's score, a comment and a notebook's total."""
    from nbgrader.api import (
        Assignment,
        BaseCell,
        Comment,
        Grade,
        Notebook,
        SubmittedAssignment,
        SubmittedNotebook,
    )
    from sqlalchemy import create_engine, func, select
    from sqlalchemy.orm import Session

    def scoped(query, owner):
        return (
            query.join(SubmittedNotebook, SubmittedNotebook.id == owner.notebook_id)
            .join(Notebook, Notebook.id == SubmittedNotebook.notebook_id)
            .join(SubmittedAssignment, SubmittedAssignment.id == SubmittedNotebook.assignment_id)
            .join(Assignment, Assignment.id == SubmittedAssignment.assignment_id)
            .where(Assignment.name == assignment)
        )

    who = (SubmittedAssignment.student_id, Notebook.name)
    grades = scoped(
        select(*who, BaseCell.name, Grade.score, Grade.max_score)
        .select_from(Grade)
        .join(BaseCell, BaseCell.id == Grade.cell_id),
        Grade,
    )
    comments = scoped(
        select(*who, BaseCell.name, Comment.comment)
        .select_from(Comment)
        .join(BaseCell, BaseCell.id == Comment.cell_id),
        Comment,
    )
    # nbgrader's SubmittedNotebook.score, the sum of the notebook's grades, as one grouped query (its own
    # column is a subquery per notebook, which PostgreSQL runs as a scan of every grade per notebook)
    notebooks = (
        select(*who, func.coalesce(func.sum(Grade.score), 0.0), SubmittedNotebook.late_submission_penalty)
        .select_from(SubmittedNotebook)
        .join(Notebook, Notebook.id == SubmittedNotebook.notebook_id)
        .join(SubmittedAssignment, SubmittedAssignment.id == SubmittedNotebook.assignment_id)
        .join(Assignment, Assignment.id == SubmittedAssignment.assignment_id)
        .outerjoin(Grade, Grade.notebook_id == SubmittedNotebook.id)
        .where(Assignment.name == assignment)
        .group_by(SubmittedNotebook.id, SubmittedAssignment.student_id, Notebook.name)
    )
    tops = select(Notebook.name, Notebook.max_score).join(Assignment, Assignment.id == Notebook.assignment_id)
    tops = tops.where(Assignment.name == assignment)
    marks: dict[tuple[str, str], Marks] = {}
    engine = create_engine(db_url)
    try:
        with Session(engine) as session:
            top_of = dict(session.execute(tops).all())
            for student, notebook, score, penalty in session.execute(notebooks):
                top = top_of[notebook]
                penalty = 0 if penalty is None else penalty
                marks[(student, notebook)] = Marks(score=score - penalty, max_score=top, late_penalty=penalty)
            for student, notebook, cell, score, top in session.execute(grades):
                marks[(student, notebook)].scores[cell] = (score, top)
            for student, notebook, cell, comment in session.execute(comments):
                marks[(student, notebook)].comments[cell] = comment
    finally:
        engine.dispose()
    return marks


class Unjoinable(ValueError):
    """A piece of a page begins or ends with text, so joining it to its neighbour could differ from the
    whole page: that page is rendered whole instead."""


class MissingMark(LookupError):
    """A graded cell of the notebook has no grade in the gradebook (nbgrader's MissingEntry)."""


class PageRenderer:
    """One course's feedback pages: nbgrader's exporter, configured as `generate_feedback` configures
    it, and the pieces already rendered."""

    def __init__(self, config) -> None:
        from jinja2 import DictLoader
        from nbgrader.converters import GenerateFeedback
        from nbgrader.coursedir import CourseDirectory
        from nbgrader.preprocessors import GetGrades

        converter = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
        base = converter.config.HTMLExporter.get("template_file", "index.html.j2")
        loader = DictLoader(
            {
                "autograder_cells.html.j2": (
                    f"{{%- extends {base!r} -%}}{{%- block header -%}}{{%- endblock header -%}}"
                    f"{{%- block any_cell scoped -%}}{CELL_START}{{{{ super() }}}}{CELL_END}{{%- endblock any_cell -%}}"
                ),
                "autograder_outline.html.j2": (
                    f"{{%- extends {base!r} -%}}{{%- block body_loop -%}}{CELLS_MARK}{{%- endblock body_loop -%}}"
                ),
            }
        )
        self._exporter = _unpolished_class()(parent=converter, config=converter.config, extra_loaders=[loader])
        for preprocessor in converter.preprocessors:
            if preprocessor is not GetGrades:
                self._exporter.register_preprocessor(preprocessor)
        self._cells_template = self._exporter.environment.get_template("autograder_cells.html.j2")
        self._outline_template = self._exporter.environment.get_template("autograder_outline.html.j2")
        self._cells: dict[str, str] = {}
        self._skeletons: dict[str, tuple[str, str, tuple, dict] | None] = {}
        self._spliced_once: set[str] = set()
        self._highlight: tuple | None = None  # (the exporter's filter, its reusing_highlighter)
        self._heads: dict[str, str] = {}
        self._outlines: dict[str, tuple[str, str, str]] = {}
        self._prepared: tuple[str, dict] | None = None
        self.rendered = 0
        self.reused = 0
        self.spliced = 0
        self.whole = 0

    def page(
        self, nb: dict, marks: Marks, *, student: str, assignment: str, notebook: str, source: Path, db_url: str
    ) -> str:
        """The feedback page of one autograded notebook (as `read_notebook` gives it; it gets its grades)."""
        from nbformat import from_dict

        for cell in nb["cells"]:
            meta = cell.get("metadata", {}).get("nbgrader")
            if not meta:
                continue
            grade_id = meta.get("grade_id")
            if meta.get("solution", False) or meta.get("task", False):
                meta["comment"] = marks.comments.get(grade_id)
            if meta.get("grade", False) or meta.get("task", False):
                if grade_id not in marks.scores:
                    raise MissingMark(f"no grade for {grade_id} in the gradebook")
                meta["score"], meta["points"] = marks.scores[grade_id]
        context = _digest(nb["metadata"]) + "\0" + notebook + "\0"
        resources = self._resources(nb, notebook, source, context)
        resources["nbgrader"] = {
            "student": student,
            "assignment": assignment,
            "notebook": notebook,
            "db_url": db_url,
            "score": marks.score,
            "max_score": marks.max_score,
            "late_penalty": marks.late_penalty,
        }
        keys = [context + _digest(cell) for cell in nb["cells"]]
        missing = {}
        for key, cell in zip(keys, nb["cells"]):
            if key not in self._cells and key not in missing:
                missing[key] = cell
        self.rendered += len(missing)
        self.reused += len(keys) - len(missing)
        own: dict[str, str] = {}
        try:
            rest = self._from_skeletons(nb, missing, resources, context, own) if missing else []
            if rest:
                self._render_cells(nb, rest, resources)
            head, before, after = self._outline(nb, resources, context)
            return head + joined([before, *(own[key] if key in own else self._cells[key] for key in keys), after])
        except Unjoinable:
            self.whole += 1
            return polish(self._exporter.template.render(nb=from_dict(nb), resources=resources).lstrip("\r\n"))

    def _resources(self, nb, notebook: str, source: Path, context: str) -> dict:
        """The resources nbgrader's exporter hands its template for this notebook, after its
        preprocessors: prepared by the exporter itself, again only when the notebook's metadata (its
        language, its widgets) or name differs from the last one's (its folder only names it)."""
        from nbformat import from_dict

        if self._prepared is None or self._prepared[0] != context:
            probe = from_dict({k: v for k, v in nb.items() if k != "cells"})
            probe["cells"] = []
            given = {
                "unique_key": notebook,
                "output_files_dir": f"{notebook}_files",
                "metadata": {"name": notebook, "path": str(source.parent)},
                "nbgrader": {"notebook": notebook, "score": 0.0, "max_score": 0.0, "late_penalty": 0.0},
            }
            _, prepared = self._exporter.from_notebook_node(probe, given)
            self._prepared = (context, prepared)
        return dict(self._prepared[1])

    def _from_skeletons(self, nb: dict, missing: dict, resources: dict, context: str, own: dict) -> list:
        """Code cells not seen before, from a skeleton: the same cell rendered and polished once with a
        stand-in for its highlighted source, into which this cell's own highlighted source is put
        (polished by `fast_polish`). A cell is only new in its source most of the time (each student's
        answer), so most new cells cost one highlighting, not a template pass and a parse. The cells
        that cannot be made so are returned, for `_render_cells`. A spliced cell is kept for later
        pages from its second sighting on (most are one student's answer, never seen again); until
        then it is in `own`."""
        shapes: dict[str, str] = {}
        for key, cell in missing.items():
            if cell.get("cell_type") == "code" and isinstance(cell.get("source"), str) and cell["source"]:
                shapes[key] = context + _digest(dict(cell, source=SOURCE_STANDIN))
        unseen = {shape: missing[key] for key, shape in shapes.items() if shape not in self._skeletons}
        if unseen:
            self._make_skeletons(nb, unseen, resources)
        rest = []
        for key, cell in missing.items():
            skeleton = self._skeletons.get(shapes.get(key, ""))
            piece = None if skeleton is None else self._splice(skeleton, cell["source"])
            if piece is None:
                rest.append((key, cell))
            elif key in self._spliced_once:
                self.spliced += 1
                self._cells[key] = piece
            else:
                self.spliced += 1
                self._spliced_once.add(key)
                own[key] = piece
        return rest

    def _splice(self, skeleton: tuple, source: str) -> str | None:
        """The cell of this skeleton with `source` (None where `fast_polish` leaves the block to BeautifulSoup)."""
        before, after, args, kwargs = skeleton
        highlight = self._highlighter(self._exporter.environment.filters["highlight_code"])
        block = fast_polish(highlight(source, *args, **kwargs))
        return None if block is None else before + block + after

    def _highlighter(self, current):
        """`reusing_highlighter` of the exporter's filter, made again only when the exporter makes a new filter."""
        if self._highlight is None or self._highlight[0] is not current:
            self._highlight = (current, reusing_highlighter(current))
        return self._highlight[1]

    def _make_skeletons(self, nb: dict, unseen: dict, resources: dict) -> None:
        """Render and polish each cell with its source replaced by a stand-in, which the highlighting
        filter answers with a marker element (whitespace around a tag is merged as around the real
        highlighted block), and, in the same pass, with a probe source, highlighted as a spliced one is.
        A shape serves only if its page comes out with the marker once and its source nowhere else, and
        the probe spliced into it is the probe rendered and polished whole (a template that used the
        highlighted block other than as it stands fails there); else it gets None and its cells are
        rendered whole."""
        from nbformat import from_dict

        env = self._exporter.environment
        real = env.filters["highlight_code"]
        calls: list = []

        def standin(source, *args, **kwargs):
            if source == SOURCE_STANDIN:
                calls.append((args, kwargs))
                return MARKER + "\n"
            return self._highlighter(real)(source, *args, **kwargs)

        shell = from_dict({k: v for k, v in nb.items() if k != "cells"})
        shell["cells"] = [
            from_dict(dict(cell, source=source))
            for source in (SOURCE_STANDIN, SOURCE_PROBE)
            for cell in unseen.values()
        ]
        env.filters["highlight_code"] = standin
        try:
            html = self._cells_template.render(nb=shell, resources=resources)
        finally:
            env.filters["highlight_code"] = real
        raw = [piece.split(CELL_END, 1)[0] for piece in html.split(CELL_START)[1:]]
        polished = polish(html[html.find(CELL_START) :]).split(CELL_START)[1:]
        pieces = [piece.split(CELL_END, 1)[0] for piece in polished]
        usable = len(raw) == len(pieces) == 2 * len(unseen) == 2 * len(calls) and all(map(balanced, raw))
        usable = usable and all(CELL_END in piece for piece in polished)
        for k, shape in enumerate(unseen):
            parts = pieces[k].split(MARKER) if usable else []
            skeleton = (parts[0], parts[1], *calls[k]) if len(parts) == 2 else None
            if skeleton is None or SOURCE_STANDIN in pieces[k]:
                self._skeletons[shape] = None
            else:
                probe = self._splice(skeleton, SOURCE_PROBE)
                self._skeletons[shape] = skeleton if probe == pieces[len(unseen) + k] else None

    def _render_cells(self, nb: dict, missing: list, resources: dict) -> None:
        """Render the cells not seen before, in one pass of the template, and polish them in one pass too."""
        from nbformat import from_dict

        shell = from_dict({k: v for k, v in nb.items() if k != "cells"})
        shell["cells"] = [from_dict(cell) for _, cell in missing]
        html = self._cells_template.render(nb=shell, resources=resources)
        raw = [piece.split(CELL_END, 1)[0] for piece in html.split(CELL_START)[1:]]
        if len(raw) != len(missing) or not all(map(balanced, raw)):
            raise Unjoinable("a cell's HTML opens a tag it does not close, or closes one it did not open")
        pieces = polish(html[html.find(CELL_START) :]).split(CELL_START)[1:]
        if len(pieces) != len(missing) or not all(CELL_END in piece for piece in pieces):
            raise Unjoinable("the feedback template did not render each cell once, whole")
        for (key, _), piece in zip(missing, pieces):
            self._cells[key] = piece.split(CELL_END, 1)[0]

    def _outline(self, nb, resources: dict, context: str) -> tuple[str, str, str]:
        """The page without its cells: the head (the same for every page of a notebook), the table of
        contents above the cells, and what closes the page. Pages whose outlines differ only in their
        scores share one outline, rendered and polished with a placeholder for each score."""
        from nbformat import from_dict

        scores: list[float] = []

        def placeholder(value) -> float:
            scores.append(value)
            return float(SCORE_PLACEHOLDER + len(scores) - 1)

        cells = []
        for cell in nb["cells"]:
            metadata = cell.get("metadata", {})
            meta = metadata.get("nbgrader")
            if meta and ("score" in meta or "points" in meta):
                meta = dict(meta)
                for name in ("score", "points"):
                    if name in meta:
                        meta[name] = placeholder(meta[name])
                metadata = dict(metadata, nbgrader=meta)
            cells.append({"cell_type": cell["cell_type"], "metadata": metadata})
        marks = dict(resources["nbgrader"], student=UNSHOWN, db_url=UNSHOWN)
        marks["score"], marks["max_score"] = placeholder(marks["score"]), placeholder(marks["max_score"])
        shape = context + _digest([cells, marks])
        if shape not in self._outlines:
            outline = from_dict({k: v for k, v in nb.items() if k != "cells"})
            outline["cells"] = [from_dict(cell) for cell in cells]
            html = self._outline_template.render(nb=outline, resources=dict(resources, nbgrader=marks))
            html = html.lstrip("\r\n")
            start, end = html.find("<head>"), html.find("</head>")
            if start < 0 or end < start or UNSHOWN in html:
                raise Unjoinable("the feedback template's page has no <head>, or shows the student or the gradebook")
            end += len("</head>")
            head = html[start:end]
            if head not in self._heads:
                self._heads[head] = polish(head)
            opening, rest = polish(html[:start] + HEAD_MARK + html[end:]).split(HEAD_MARK)
            self._outlines[shape] = (opening + self._heads[head], *rest.split(CELLS_MARK))
        head, before, after = self._outlines[shape]
        for k, value in enumerate(scores):
            text = str(round(float(value), 2))
            before, after = before.replace(_placeholder_text(k), text), after.replace(_placeholder_text(k), text)
        if _placeholder_text(None) in before + after:
            raise Unjoinable("a score was printed other than as nbgrader's feedback template prints it")
        return head, before, after


SCORE_PLACEHOLDER = 9_876_543_000
UNSHOWN = "autograder-feedback-unshown"


def _placeholder_text(k: int | None) -> str:
    """How the template prints placeholder k (`| float | round(2)`); with None, what every placeholder begins with."""
    return str(float(SCORE_PLACEHOLDER + k)) if k is not None else str(SCORE_PLACEHOLDER)[:6]


SPACES = " \n\t\f\r"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}


def balanced(html: str) -> bool:
    """Whether every tag `html` opens it closes, in order, and it closes none it did not open: only
    then is it polished alone as it would be inside the whole page (a student's markdown can hold
    `<div>` and nothing else)."""
    from html.parser import HTMLParser

    open_tags: list[str] = []
    stray: list[str] = []

    class Tags(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag not in VOID:
                open_tags.append(tag)

        def handle_endtag(self, tag):
            if tag in VOID:
                return
            if open_tags and open_tags[-1] == tag:
                open_tags.pop()
            else:
                stray.append(tag)

    parser = Tags(convert_charrefs=True)
    parser.feed(html)
    parser.close()
    return not open_tags and not stray


def joined(pieces: list[str]) -> str:
    """Polished pieces as one polished page. BeautifulSoup turns a run of whitespace between two tags
    into one newline (or one space when it has none), so the whitespace where two pieces meet is merged
    the same way; a piece that begins or ends with other text is Unjoinable."""
    out: list[str] = []
    run = ""
    for piece in pieces:
        core = piece.strip(SPACES)
        if not core:
            run += piece
            continue
        if core[0] != "<" or core[-1] != ">":
            raise Unjoinable(core[:40])
        run += piece[: len(piece) - len(piece.lstrip(SPACES))]
        if out or run:
            out.append("\n" if "\n" in run else " " if run else "")
        out.append(core)
        run = piece[len(piece.rstrip(SPACES)) :]
    out.append("\n" if "\n" in run else " " if run else "")
    return "".join(out)


def polish(html: str) -> str:
    """What nbconvert's HTMLExporter does to a rendered page before it hands it back (its own code)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, features="html.parser")
    for elem in soup.select("img:not([alt])"):
        elem.attrs["alt"] = "No description has been provided for this image"
    for elem in soup.select(".jp-Notebook div.jp-Cell-inputWrapper"):
        elem.attrs["tabindex"] = "0"
    for elem in soup.select(".jp-Notebook div.jp-OutputArea-output"):
        elem.attrs["tabindex"] = "0"
    return str(soup)


SOURCE_STANDIN = "autograder_feedback_source_standin"
SOURCE_PROBE = "x = '<&\"é>'  # autograder_feedback_probe\n"
MARKER = "<autograder-feedback-source></autograder-feedback-source>"
HIGHLIGHTED = re.compile(
    r'<div class=" highlight hl-([A-Za-z0-9_+.-]+)"><pre>'
    r'((?:[^<>&]++|&(?:amp|lt|gt|quot|#39);|<span(?: class="[A-Za-z0-9_-]+(?: [A-Za-z0-9_-]+)*+")?>|</span>)*+)'
    r"</pre></div>\n"
)


def fast_polish(block: str) -> str | None:
    """`polish` of a block nbconvert's filter highlighted, without parsing it: for text in flat spans,
    BeautifulSoup writes back what it read but the div's class without its leading space and `&quot;`
    and `&#39;` as the characters they stand for. None when the block is not of exactly that shape, or
    holds a character whose round trip this does not cover (a carriage return, a form feed)."""
    if not block.replace("\n", "").replace("\t", "").isprintable():
        return None
    shape = HIGHLIGHTED.fullmatch(block)
    if shape is None:
        return None
    language, inner = shape.groups()
    inner = inner.replace("&quot;", '"').replace("&#39;", "'")
    return f'<div class="highlight hl-{language}"><pre>{inner}</pre></div>'


def _digest(node) -> str:
    """A key for a notebook's part as `read_notebook` gives it (dicts, lists, strings, numbers, None).
    marshal's bytes read back to the same values in the same order, so two parts with one key are the
    same part; format 2 has no back-references, whose flags would follow reference counts. Four times
    faster than JSON with sorted keys, for the eighty cells of each page; JSON still keys what marshal
    refuses (a subclass of str from a database driver)."""
    try:
        return "m" + hashlib.sha1(marshal.dumps(node, 2)).hexdigest()
    except ValueError:
        return "j" + hashlib.sha1(json.dumps(node, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _unpolished_class():
    from nbconvert.exporters import HTMLExporter, TemplateExporter
    from nbconvert.filters.highlight import Highlight2HTML
    from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

    class UnpolishedHTML(HTMLExporter):
        """HTMLExporter without its last step (BeautifulSoup over the whole page), which `polish` does piece by piece."""

        def from_notebook_node(self, nb, resources=None, **kw):
            langinfo = nb.metadata.get("language_info", {})
            lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
            self.register_filter(
                "highlight_code", self.filters.get("highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self))
            )
            resources = self._init_resources(resources)
            self.register_filter(
                "filter_data_type",
                WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata, parent=self, resources=resources),
            )
            return TemplateExporter.from_notebook_node(self, nb, resources, **kw)

    return UnpolishedHTML


def copy_other_files(source: Path, dest: Path, ignore: list[str]) -> None:
    """What nbgrader's converters copy beside the pages: every file but the notebooks and the ignored,
    mode 644 as nbgrader leaves them."""
    from nbgrader.utils import find_all_files

    with os.scandir(source) as entries:
        if all(_plainly_a_notebook(entry) for entry in entries):
            return  # the usual folder: nothing to copy, and no glob per file to find that out
    for name in find_all_files(str(source), list(ignore) + ["*.ipynb"]):
        target = dest / Path(name).relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(name, target)
        os.chmod(target, 0o644)


def _plainly_a_notebook(entry: os.DirEntry) -> bool:
    """A name that nbgrader's `*.ipynb` ignore pattern is sure to match (glob's `*` skips hidden names)."""
    return entry.name.endswith(".ipynb") and not entry.name.startswith(".") and not entry.is_dir()


def read_notebook(path: Path) -> dict:
    """The notebook as `nbformat.read(path, as_version=4)` gives it, as plain dicts and less its schema
    validation, which only logs (and gives cells without an id a random one, which no page could repeat):
    lines joined and transient fields dropped as nbformat's v4 reader does."""
    import nbformat
    from nbformat.reader import get_version

    nb = json.loads(path.read_text(encoding="utf-8"))
    if get_version(nb)[0] != 4:
        return json.loads(json.dumps(nbformat.convert(nbformat.reader.reads(json.dumps(nb)), 4)))
    for key in ("orig_nbformat", "orig_nbformat_minor", "signature"):
        nb.setdefault("metadata", {}).pop(key, None)
    for cell in nb.get("cells", []):
        cell.get("metadata", {}).pop("trusted", None)
        if isinstance(cell.get("source"), list):
            cell["source"] = "".join(cell["source"])
        for attachment in cell.get("attachments", {}).values():
            _rejoin_bundle(attachment)
        if cell.get("cell_type") != "code":
            continue
        for output in cell.get("outputs", []):
            kind = output.get("output_type", "")
            if kind in ("execute_result", "display_data"):
                _rejoin_bundle(output.get("data", {}))
            elif kind and isinstance(output.get("text", ""), list):
                output["text"] = "".join(output["text"])
    return nb


def _rejoin_bundle(data: dict) -> None:
    for mime, value in list(data.items()):
        is_json = mime == "application/json" or (mime.startswith("application/") and mime.endswith("+json"))
        if not is_json and isinstance(value, list) and all(isinstance(line, str) for line in value):
            data[mime] = "".join(value)


@dataclass
class Written:
    """What one run wrote: pages, submissions, and each submission whose pages could not be written; cells
    rendered (of which spliced into a skeleton), and reused."""

    pages: int = 0
    submissions: int = 0
    failed: list[tuple[str, str, str]] = field(default_factory=list)
    rendered: int = 0
    reused: int = 0
    spliced: int = 0
    whole: int = 0


CHUNK = 20  # submissions a worker takes at a time: small enough for a smooth progress bar
IN_PROCESS_BELOW = 40  # fewer submissions than this are written without starting workers


def write_feedback(
    course_dir: Path,
    assignments: list[str],
    *,
    student: str | None = None,
    workers: int | None = None,
    progress: bool = True,
) -> Written:
    """feedback/STUDENT/ASSIGNMENT/ for every autograded submission, as `nbgrader generate_feedback
    --force` writes it (the pages, the other files beside them, mode 644), on `workers` processes. A
    submission whose pages cannot be written (a full disk, a grade missing from the gradebook) is left
    out whole, as nbgrader leaves it, and named in `failed`. The workers start before the gradebook is
    read, and each assignment's submissions go to them as soon as its grades are in."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from multiprocessing import get_context

    from nbgrader.coursedir import CourseDirectory
    from tqdm import tqdm

    from autograder.config import nbconfig as config_mod
    from autograder.grades import gradebook

    course_dir = Path(course_dir).resolve()
    coursedir = CourseDirectory(config=config_mod.load(course_dir), root=str(course_dir))
    db_url = gradebook.db_url(course_dir)
    handed_in = _handed_in(course_dir, coursedir, assignments, student)
    total = sum(map(len, handed_in.values()))
    workers = max(1, min(workers or os.cpu_count() or 1, -(-total // CHUNK)))
    start = (str(course_dir), db_url, list(coursedir.ignore))
    pool = None
    if workers > 1 and total >= IN_PROCESS_BELOW:
        pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=get_context("spawn"), initializer=_start_worker, initargs=start
        )
    else:
        _start_worker(*start)
    written = Written()
    bar = tqdm(total=total, desc="feedback", unit="submission", disable=not progress)

    def count(part: Written) -> None:
        written.pages += part.pages
        written.submissions += part.submissions
        written.failed += part.failed
        written.rendered += part.rendered
        written.reused += part.reused
        written.spliced += part.spliced
        written.whole += part.whole
        bar.update(part.submissions + len(part.failed))

    try:
        pending = []
        for assignment, students in handed_in.items():
            by_student: dict[str, dict[str, Marks]] = {}
            for (who, notebook), marks in marks_for(db_url, assignment).items():
                by_student.setdefault(who, {})[notebook] = marks
            jobs = [(who, assignment, by_student.get(who, {})) for who in students]
            for chunk in (jobs[k : k + CHUNK] for k in range(0, len(jobs), CHUNK)):
                if pool is None:
                    count(_write_chunk(chunk))
                else:
                    pending.append(pool.submit(_write_chunk, chunk))
        for done in as_completed(pending):
            count(done.result())
        written.failed.sort()  # by student and assignment, whichever worker finished first
    finally:
        bar.close()
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return written


def _handed_in(course_dir: Path, coursedir, assignments: list[str], student: str | None) -> dict[str, list[str]]:
    """{assignment: the students with an autograded submission of it}, as nbgrader's converters find them."""
    excluded = {s for s in (coursedir.student_id_exclude or "").split(",") if s}
    found = {}
    for assignment in assignments:
        folders = (
            sorted((course_dir / "autograded").glob(f"*/{assignment}")) if (course_dir / "autograded").is_dir() else []
        )
        names = [
            f.parent.name
            for f in folders
            if f.is_dir() and not f.parent.name.startswith(".") and student in (None, f.parent.name)
            if f.parent.name not in excluded
        ]
        if names:
            found[assignment] = names
    return found


_WORKER: dict = {}


def _start_worker(course_dir: str, db_url: str, ignore: list[str]) -> None:
    """Each worker process's renderer, made once: its caches serve every chunk it is given."""
    from autograder.config import nbconfig as config_mod

    _WORKER.update(
        course=Path(course_dir),
        db_url=db_url,
        ignore=ignore,
        renderer=PageRenderer(config_mod.load(Path(course_dir))),
    )


def _write_chunk(chunk: list) -> Written:
    renderer: PageRenderer = _WORKER["renderer"]
    course: Path = _WORKER["course"]
    before = (renderer.rendered, renderer.reused, renderer.spliced, renderer.whole)
    done = Written()
    for who, assignment, marks in chunk:
        source = course / "autograded" / who / assignment
        dest = course / "feedback" / who / assignment
        try:
            pages = _write_submission(renderer, source, dest, marks, who=who, assignment=assignment)
        except Exception as error:  # as nbgrader does, one submission's failure is its own: the rest are written
            shutil.rmtree(dest, ignore_errors=True)
            done.failed.append((who, assignment, f"{type(error).__name__}: {error}"[:200]))
            continue
        done.pages += pages
        done.submissions += 1
    done.rendered, done.reused, done.spliced, done.whole = (
        now - then for now, then in zip((renderer.rendered, renderer.reused, renderer.spliced, renderer.whole), before)
    )
    return done


def _write_submission(
    renderer: PageRenderer, source: Path, dest: Path, marks: dict, *, who: str, assignment: str
) -> int:
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    copy_other_files(source, dest, _WORKER["ignore"])
    notebooks = sorted(p for p in source.glob("*.ipynb") if not p.name.startswith("."))
    for path in notebooks:
        if path.stem not in marks:
            raise MissingMark(f"{path.stem} of {who}/{assignment} is not in the gradebook")
        page = renderer.page(
            read_notebook(path),
            marks[path.stem],
            student=who,
            assignment=assignment,
            notebook=path.stem,
            source=path,
            db_url=_WORKER["db_url"],
        )
        target = dest / f"{path.stem}.html"
        target.write_bytes(page.encode("utf-8"))  # one buffer: a text file writes 260 kB in chunks
        os.chmod(target, 0o644)
    return len(notebooks)
