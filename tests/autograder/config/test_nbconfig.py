"""The course's nbgrader_config.py, read as nbgrader reads it, and read again once it changes."""

from __future__ import annotations

import os

from autograder.config import nbconfig


def test_a_folder_without_the_file_has_an_empty_configuration(tmp_path):
    assert dict(nbconfig.load(tmp_path)) == {}
    assert nbconfig.section(tmp_path, "Autograder") == {}


def test_an_edit_is_seen_and_a_caller_cannot_change_what_the_next_one_reads(tmp_path):
    path = tmp_path / "nbgrader_config.py"
    path.write_text("c = get_config()\nc.Autograder.cell_timeout = 5\n")
    first = nbconfig.load(tmp_path)
    assert first.Autograder.cell_timeout == 5
    first.Autograder.cell_timeout = 99
    assert nbconfig.section(tmp_path, "Autograder") == {"cell_timeout": 5}
    path.write_text("c = get_config()\nc.Autograder.cell_timeout = 7\n")
    stamp = path.stat().st_mtime_ns + 1_000_000
    os.utime(path, ns=(stamp, stamp))
    assert nbconfig.section(tmp_path, "Autograder") == {"cell_timeout": 7}
