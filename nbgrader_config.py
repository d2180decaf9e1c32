"""nbgrader configuration for the course (instructor side).

Everything an instructor would otherwise set by hand lives here. The grader's own limits
(`Autograder.*`) are read from this file too.
"""

import os

from autograder.grades.feedback_template import use_named_items
from course_exchange.hubconfig import use_exchange

c = get_config()  # noqa: F821 (provided by traitlets when nbgrader loads this file)

here = os.path.dirname(os.path.abspath(__file__))

c.CourseDirectory.course_id = "pytorch-tensors"
c.CourseDirectory.root = here
c.CourseDirectory.source_directory = "source"
c.CourseDirectory.release_directory = "release"
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(here, "gradebook.db")
# Lessons are single notebooks; nothing else in source/<id>/ is copied into the release.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback"]

# Releases, submissions and feedback go through the exchange service (course_exchange/, a JupyterHub
# service), never through a shared folder; deploy/jupyterhub/ runs it.
use_exchange(c)

# Feedback pages name each item (nbgrader's say "Test cell" for all of them) and wrap long output lines;
# `autograder feedback` and stock `nbgrader generate_feedback` write the same pages with it.
use_named_items(c)

# Test cells import the course package; importing torch can take a few seconds on a cold cache,
# and the training lesson trains a small model.
c.Execute.timeout = 120
c.Execute.interrupt_on_timeout = True

c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
c.ClearHiddenTests.begin_test_delimeter = "BEGIN HIDDEN TESTS"
c.ClearHiddenTests.end_test_delimeter = "END HIDDEN TESTS"

# Released notebooks never carry outputs from the instructor's runs.
c.GenerateAssignment.create_assignment = True
c.ClearOutput.enabled = True

# Limits of the project's grader (`autograder grade`), per cell and per notebook.
c.Autograder.cell_timeout = 60
c.Autograder.notebook_timeout = 300
c.Autograder.memory_limit_mb = 4096
c.Autograder.output_limit_kb = 1024
# A test scores its verdict: PyTorch's warnings on stderr cost a correct answer nothing (nbgrader's own rule
# scores such a cell 0; course.checks.show_stderr_on_stdout does the same in a notebook kernel).
c.Autograder.stderr_fails_test = False
