"""The course on a JupyterHub: the exchange, the student configuration, the formgrader service.

jupyterhub_config.py (next to this file) loads it for a hub of its own; on The Littlest JupyterHub,
copy it into /opt/tljh/config/jupyterhub_config.d/ instead (docs/deploy.md). It sets only what the
course adds to a hub, never the authenticator or the spawner:

- every server's environment names the exchange and, for users' servers, adds the student
  configuration (student/jupyter, as installed by install-env): the Assignments tab and the Validate
  button, no instructor tool;
- the course's formgrader is a hub service: a Jupyter server running as the grader account in the
  course directory, which only the instructors may open (/services/pytorch-tensors/formgrader);
- the instructors and students named below may log in.

Settings come from these environment variables (the defaults suit a real class; change them here or
set them where the hub is started):

  COURSE_HUB_ENV        the hub environment                 [/opt/tensor-course/env]
  COURSE_DIR            the course directory, a clone of this repository owned by the grader account
                                                            [/srv/nbgrader/pytorch-tensors]
  COURSE_EXCHANGE       nbgrader's exchange                 [/srv/nbgrader/exchange]
  COURSE_GRADER         the system account that owns COURSE_DIR, runs the formgrader and grades
                                                            [grader-pytorch-tensors]
  COURSE_INSTRUCTORS    hub users who may open the formgrader (comma-separated)
  COURSE_STUDENTS       the other hub users of the course (comma-separated)
  COURSE_FORMGRADER_URL where the formgrader service listens [http://127.0.0.1:9999]
"""

import os
import pwd

c = get_config()  # noqa: F821 (provided by traitlets when JupyterHub loads this file)

COURSE_ID = "pytorch-tensors"


def _names(variable: str) -> set[str]:
    return {name.strip() for name in os.environ.get(variable, "").split(",") if name.strip()}


ENV = os.environ.get("COURSE_HUB_ENV", "/opt/tensor-course/env")
COURSE_DIR = os.environ.get("COURSE_DIR", "/srv/nbgrader/pytorch-tensors")
EXCHANGE = os.environ.get("COURSE_EXCHANGE", "/srv/nbgrader/exchange")
GRADER = os.environ.get("COURSE_GRADER", f"grader-{COURSE_ID}")
INSTRUCTORS = _names("COURSE_INSTRUCTORS")
FORMGRADER_URL = os.environ.get("COURSE_FORMGRADER_URL", "http://127.0.0.1:9999")

for path, what in ((f"{ENV}/bin/jupyterhub-singleuser", "the hub environment (run deploy/jupyterhub/install-env)"),
                   (f"{ENV}/etc/jupyter-student", "the student configuration (run deploy/jupyterhub/install-env)"),
                   (f"{COURSE_DIR}/nbgrader_config.py", "the course directory (a clone of the course repository)")):
    if not os.path.exists(path):
        raise SystemExit(f"course.py: {path} is missing: set up {what} first")
try:
    pwd.getpwnam(GRADER)
except KeyError:
    raise SystemExit(f"course.py: the grader account {GRADER!r} does not exist (useradd it, or set COURSE_GRADER)") from None

# The exchange must exist and be writable by everyone; nbgrader makes each course's inbound folder
# write-only and its feedback folder unlistable, so students cannot see each other's work.
os.makedirs(EXCHANGE, exist_ok=True)
os.chmod(EXCHANGE, 0o777)

c.Authenticator.allowed_users.update(INSTRUCTORS | _names("COURSE_STUDENTS"))

# nbgrader_config.py in the hub environment reads the exchange's location from COURSE_EXCHANGE.
c.Spawner.environment.update({"COURSE_EXCHANGE": EXCHANGE, "JUPYTER_CONFIG_PATH": f"{ENV}/etc/jupyter-student"})

c.JupyterHub.services.append(
    {
        "name": COURSE_ID,
        "url": FORMGRADER_URL,
        "command": [f"{ENV}/bin/jupyterhub-singleuser", *(["--allow-root"] if GRADER == "root" else [])],
        "user": GRADER,
        "cwd": COURSE_DIR,
        "environment": {"PATH": f"{ENV}/bin:/usr/local/bin:/usr/bin:/bin", "COURSE_EXCHANGE": EXCHANGE,
                        "JUPYTERHUB_DEFAULT_URL": "/formgrader"},
        "oauth_no_confirm": True,
    }
)
c.JupyterHub.load_groups.update({f"formgrade-{COURSE_ID}": {"users": sorted(INSTRUCTORS)}})
c.JupyterHub.load_roles.append(
    {
        "name": f"formgrade-{COURSE_ID}",
        "groups": [f"formgrade-{COURSE_ID}"],
        "scopes": [f"access:services!service={COURSE_ID}", "list:services", f"read:services!service={COURSE_ID}"],
    }
)
