"""nbgrader settings shared by every server and command on the course's JupyterHub.

install-env copies this file into the hub environment's etc/jupyter, where nbgrader finds it from
students' and instructors' servers, the formgrader service and the grader's commands alike. The
course directory's own nbgrader_config.py adds the instructor-side settings on top of it.
"""

from course_exchange.hubconfig import use_exchange

c = get_config()  # noqa: F821 (provided by traitlets when nbgrader loads this file)

# One course per hub: every student's Assignments tab lists this course's assignments.
c.CourseDirectory.course_id = "pytorch-tensors"

# The exchange is the hub service `course-exchange` (course_exchange/): students' servers reach it at
# $COURSE_EXCHANGE_URL with their server's hub token; the grader's shell with the token in
# $COURSE_EXCHANGE_TOKEN_FILE. There is no shared folder.
use_exchange(c)
