"""JupyterHub for the PyTorch tensors course on one machine, run as root (as The Littlest JupyterHub does).

- Every hub user is a system user of this machine, logged in with their system password (PAM), whose
  JupyterLab runs as that user (LocalProcessSpawner). nbgrader knows students by their system user
  name and keeps each student's submission cache in their home directory.
- Every server runs in the hub environment built by install-env (COURSE_HUB_ENV), which all users can
  read, with the course's pinned requirements and the `course` package installed.
- course.py adds the course: the exchange, the student configuration, the formgrader service and who
  may log in. Its docstring lists the settings (environment variables).

Start it as root from a folder of its own, where it keeps its database and cookie secret:
`jupyterhub -f /path/to/deploy/jupyterhub/jupyterhub_config.py`; configurable-http-proxy must be on
PATH. docs/deploy.md explains the rest.
"""

import os

c = get_config()  # noqa: F821 (provided by traitlets when JupyterHub loads this file)

ENV = os.environ.get("COURSE_HUB_ENV", "/opt/tensor-course/env")

c.JupyterHub.authenticator_class = "pam"
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [f"{ENV}/bin/jupyterhub-singleuser"]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.environment = {"PATH": f"{ENV}/bin:/usr/local/bin:/usr/bin:/bin"}
# Starting a server, and torch in its first kernel, can take a while on a small machine.
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180

load_subconfig(os.path.join(os.path.dirname(os.path.abspath(__file__)), "course.py"))  # noqa: F821 (traitlets)
