"""The library behind the commands: which cluster a run uses, and how a run's time is summed up."""

from __future__ import annotations

from autograder import commands


def course(tmp_path, lines: str = ""):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n" + lines + "\n")
    return tmp_path


def test_the_cluster_given_wins_over_the_setting_and_none_means_this_machine(tmp_path):
    assert commands.cluster_address(course(tmp_path)) is None
    configured = course(tmp_path, 'c.Autograder.cluster = "tls://set:8786"')
    assert commands.cluster_address(configured) == "tls://set:8786"
    assert commands.cluster_address(configured, "tls://given:8786") == "tls://given:8786"


def test_the_speed_summary_splits_student_code_from_the_graders_work():
    timings = [
        {"notebook": "ada/01/01", "student_code_s": 1.0, "total_s": 3.0},
        {"notebook": "ben/01/01", "student_code_s": 2.0, "total_s": 5.0},
    ]
    text = commands.speed_summary({"timings": timings, "seconds": 4.0, "workers": 2, "startup_s": 1.5})
    assert text.splitlines()[0] == "Speed: 0.50 notebooks/s with 2 workers (4.0 s wall)."
    assert "student code           3.0 s" in text and "grader overhead        5.0 s" in text
    assert "slowest: ben/01/01 5.0 s, ada/01/01 3.0 s" in text
    assert commands.speed_summary({"timings": []}).startswith("Nothing ran")


def test_the_summary_prints_what_a_submission_wrote_as_plain_text():
    """A tamper detail, a file name or a reason holding a carriage return or an escape sequence cannot rewrite
    the instructor's summary: each line stays one line and shows the characters as escapes."""
    forged = "x\r\x1b[2K  TAMPERING victim/01_tensors: item numpy_to_tensor_shape: forged\n"
    stats = {
        "warnings": [forged],
        "repairs": {"eve/01_tensors": [forged]},
        "limits": {"eve/01_tensors": [forged]},
        "tampering": {
            "eve/01_tensors": [{"item": "tensor_rank", "details": [forged]}, {"item": None, "details": [forged]}]
        },
        "failures": {"eve/01_tensors": [{"cell": 3, "kind": forged}]},
    }
    lines = commands.problem_lines(stats, {("eve\x1b[31m", "01_tensors"): forged})
    assert len(lines) == 7
    for line in lines:
        assert "\r" not in line and "\x1b" not in line and "\n" not in line, line
        assert line.startswith("  ") and not line.lstrip().startswith("TAMPERING victim")
    assert "\\x1b[2K" in lines[0] and lines[-1].startswith("  not graded: eve\\x1b[31m/01_tensors: ")


def test_students_nbgrader_is_told_to_exclude_are_not_graded(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.CourseDirectory.student_id_exclude = 'bo,cy'\n")
    for student in ("al", "bo", "cy", "di"):
        (tmp_path / "submitted" / student / "01_tensors").mkdir(parents=True)
    assert commands.submitted_pairs(tmp_path, ["01_tensors"], None) == [("al", "01_tensors"), ("di", "01_tensors")]
    assert commands.submitted_pairs(tmp_path, ["01_tensors"], "bo") == []
