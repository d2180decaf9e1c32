"""nbgrader settings shared by every server and command on the course's JupyterHub.

install-env copies this file into the hub environment's etc/jupyter, where nbgrader finds it from
students' and instructors' servers, the formgrader service and the grader's commands alike. The
course directory's own nbgrader_config.py adds the instructor-side settings on top of it.
"""

import os

c = get_config()  # noqa: F821 (provided by traitlets when nbgrader loads this file)

# One course per hub: every student's Assignments tab lists this course's assignments.
c.CourseDirectory.course_id = "pytorch-tensors"

# The exchange: a folder every hub user can write to (jupyterhub_config.py creates it). The hub
# passes its location to every server it starts; the grader's shell sets the same variable.
c.Exchange.root = os.environ.get("COURSE_EXCHANGE", "/srv/nbgrader/exchange")
