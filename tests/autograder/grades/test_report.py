"""The class report: every number in items.csv against a class computed by hand, and the HTML in a browser."""

from __future__ import annotations

import csv
from pathlib import Path

import json

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.grades import gradebook, report

# Hand-computed class. 01_tensors: test_a (2 points), test_b (1 point); 02_dtype: test_c (1 point).
SCORES = {
    ("01_tensors", "test_a"): {"s1": 2, "s2": 2, "s3": 0, "s4": 0, "s5": 2},
    ("01_tensors", "test_b"): {"s1": 1, "s2": 0, "s3": 1, "s4": 0, "s5": 1},
    ("02_dtype", "test_c"): {"s1": 1, "s2": 1, "s3": 0},
}
MAX = {"test_a": 2, "test_b": 1, "test_c": 1}
# a = [2,2,0,0,2], rest = b = [1,0,1,0,1]: deviations (.8,.8,-1.2,-1.2,.8) and (.4,-.6,.4,-.6,.4);
# cross sum 0.4, sums of squares 4.8 and 1.2, r = 0.4 / sqrt(5.76) = 1/6 (and symmetric for test_b).
# test_c: the rest of every student's 02_dtype total is 0, no spread, so no discrimination.
EXPECTED = {
    ("01_tensors", "a"): {
        "max_points": "2",
        "mean_score": "1.2000",
        "discrimination": "0.1667",
        "students": "5",
        "flags": "not discriminating",
    },
    ("01_tensors", "b"): {
        "max_points": "1",
        "mean_score": "0.6000",
        "discrimination": "0.1667",
        "students": "5",
        "flags": "not discriminating",
    },
    ("02_dtype", "c"): {"max_points": "1", "mean_score": "0.6667", "discrimination": "", "students": "3", "flags": ""},
}


@pytest.fixture(scope="module")
def fixture_class(tmp_path_factory) -> Path:
    course = tmp_path_factory.mktemp("report") / "course"
    course.mkdir()
    (course / "nbgrader_config.py").write_text("c = get_config()\n", encoding="utf-8")
    # 01_tensors declares its concept in its title; 02_dtype has no source notebook
    title = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell("# Lesson 1: tensors, rank and shape\n\ntext")]
    )
    (course / "source" / "01_tensors").mkdir(parents=True)
    nbformat.write(title, course / "source" / "01_tensors" / "01_tensors.ipynb")
    with Gradebook(gradebook.db_url(course)) as gb:
        for (assignment, item), scores in SCORES.items():
            try:
                gb.find_assignment(assignment)
            except Exception:
                gb.add_assignment(assignment)
                gb.add_notebook(assignment, assignment)
            gb.add_grade_cell(item, assignment, assignment, max_score=MAX[item], cell_type="code")
        for (assignment, item), scores in SCORES.items():
            for student in scores:
                gb.update_or_create_student(student)
                try:
                    gb.find_submission(assignment, student)
                except Exception:
                    gb.add_submission(assignment, student)
        for (assignment, item), scores in SCORES.items():
            for student, score in scores.items():
                grade = gb.find_grade(item, assignment, assignment, student)
                grade.auto_score = score
        gb.db.commit()
    return course


@pytest.mark.process
def test_items_csv_matches_hand_computation(fixture_class, tmp_path):
    out = tmp_path / "out"
    report.write_report(fixture_class, out=out)
    with (out / "items.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0])[:5] == ["assignment", "item", "max_points", "mean_score", "discrimination"]
    found = {(r["assignment"], r["item"]): {k: r[k] for k in EXPECTED[("01_tensors", "a")]} for r in rows}
    assert found == EXPECTED


def test_pearson_reference():
    assert report.pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert report.pearson([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert report.pearson([1, 1, 1], [1, 2, 3]) is None
    assert report.pearson([2, 2, 0, 0, 2], [1, 0, 1, 0, 1]) == pytest.approx(1 / 6)


@pytest.mark.process
def test_mastery_per_concept(fixture_class):
    values = report.mastery(report.item_stats(fixture_class))
    # 01 (its title): earned 6 + 3 of (2 + 1) * 5 = 15; 02 (no source notebook: its id): earned 2 of 3.
    assert values == pytest.approx({"Tensors, rank and shape": 9 / 15, "02_dtype": 2 / 3})


def test_every_lesson_of_the_course_declares_a_concept():
    from tests.conftest import ROOT

    for lesson in sorted(p.name for p in (ROOT / "source").iterdir() if p.is_dir()):
        concept = report.lesson_concept(ROOT, lesson)
        assert concept != lesson and not concept.lower().startswith("lesson"), (lesson, concept)


def _synthetic_items(n: int) -> list[report.ItemStats]:
    """n items spread over the plot, many of them flagged and close together."""
    items = []
    for i in range(n):
        scores = {f"s{k}": float((i * 7 + k * 3) % 5 > (i % 3)) for k in range(8)}
        items.append(
            report.ItemStats(
                "01_tensors", f"test_item_number_{i}", 1, scores, ((i * 37) % 200 - 100) / 100, concept="c"
            )
        )
    return items


@pytest.mark.parametrize("n", [70, 200])
def test_item_plot_names_never_overlap(n):
    import matplotlib.pyplot as plt

    stats = _synthetic_items(n)
    fig, names = report.item_figure(stats)
    try:
        renderer = fig.canvas.get_renderer()
        boxes = [t.get_window_extent(renderer) for t in fig.axes[0].texts]
        assert len(boxes) == len(names) and 0 < len(names) <= report.MAX_LABELS
        assert all(not a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
        flagged = {s.name for s in stats if s.flags}
        assert names[0] in flagged
    finally:
        plt.close(fig)


def test_grading_time_comes_from_the_engine_records(tmp_path):
    for student, assignment, seconds in (
        ("s1", "01_tensors", 0.5),
        ("s2", "01_tensors", 1.25),
        ("s1", "02_dtype", 0.75),
    ):
        folder = tmp_path / ".autograder" / "results" / student / assignment
        folder.mkdir(parents=True)
        record = {"student": student, "assignment": assignment, "timings": {"total_s": seconds}}
        (folder / f"{assignment}.json").write_text(json.dumps(record), encoding="utf-8")
    assert report.grading_times(tmp_path) == [
        ("01_tensors", "2", "1.8 s", "1.25 s"),
        ("02_dtype", "1", "0.8 s", "0.75 s"),
        ("all", "3", "2.5 s", "1.25 s"),
    ]
    assert report.grading_times(tmp_path / "nothing")[0][0] == "no timing records"


@pytest.mark.process
def test_lms_csv(fixture_class, tmp_path):
    path = report.write_lms_csv(fixture_class, to=tmp_path / "lms.csv")
    with path.open(encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["student_id", "01_tensors (3)", "02_dtype (1)", "total", "max_total"]
    assert rows[1] == ["s1", "3", "1", "4", "4"]
    assert rows[4] == ["s4", "0", "0", "0", "4"]


@pytest.mark.process
def test_empty_gradebook_is_a_clear_error(tmp_path):
    course = tmp_path / "empty"
    course.mkdir()
    with Gradebook(gradebook.db_url(course)):
        pass
    with pytest.raises(LookupError, match="no grades yet"):
        report.write_report(course, out=tmp_path / "out")


@pytest.mark.browser
def test_html_opens_offline_with_every_image_loaded(fixture_class, tmp_path, browser):
    page_path = report.write_report(fixture_class, out=tmp_path / "out")
    text = page_path.read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text, "the report must not load anything from the network"
    context = browser.new_context(offline=True)
    try:
        page = context.new_page()
        page.goto(page_path.as_uri())
        sizes = page.eval_on_selector_all("img", "imgs => imgs.map(i => [i.complete, i.naturalWidth, i.naturalHeight])")
        assert len(sizes) == 3
        assert all(done and w > 0 and h > 0 for done, w, h in sizes), sizes
        assert "not discriminating" in page.inner_text("body")
    finally:
        context.close()
