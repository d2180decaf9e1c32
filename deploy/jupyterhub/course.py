"""The course on a JupyterHub: the exchange service, the student configuration, the formgrader service.

jupyterhub_config.py (next to this file) loads it for a hub of its own; on The Littlest JupyterHub,
copy it into /opt/tljh/config/jupyterhub_config.d/ instead (docs/deploy.md). It sets only what the
course adds to a hub, never the authenticator or the spawner:

- the exchange is a hub service (course_exchange/, running as its own account, keeping an
  append-only store nobody else can enter): every user's server gets its address and a token that
  may reach it, and the student configuration (student/jupyter, as installed by install-env): the
  Assignments tab and the Validate button, no instructor tool;
- the course's formgrader is a hub service: a Jupyter server running as the grader account in the
  course directory, which only the instructors may open (/services/pytorch-tensors/formgrader);
- the grader on receipt is a hub service too (`python -m course_exchange.receipt`, as the grader
  account in the course directory, with the grader's token): it grades the assignments the course's
  nbgrader_config.py names in c.AssignmentPolicy.on_receipt as they arrive, and the hub restarts it
  if it dies (its queue is the exchange's, so nothing is lost);
- the instructors and students named below may log in.

Settings come from these environment variables (the defaults suit a real class; change them here or
set them where the hub is started):

  COURSE_HUB_ENV        the hub environment                 [/opt/tensor-course/env]
  COURSE_DIR            the course directory, a clone of this repository owned by the grader account
                                                            [/srv/nbgrader/pytorch-tensors]
  COURSE_EXCHANGE_URL   where the exchange service listens  [http://127.0.0.1:9998]
  COURSE_EXCHANGE_STORE its store, owned by COURSE_EXCHANGE_USER, mode 0700 [/srv/nbgrader/exchange-store]
  COURSE_EXCHANGE_USER  the system account the exchange runs as (no student may write as it)
                                                            [nbgrader-exchange]
  COURSE_EXCHANGE_TOKEN_FILE  the grader's hub token (the formgrader service's), readable by
                        COURSE_GRADER only; made if missing [/srv/nbgrader/pytorch-tensors.exchange-token]
  COURSE_MAX_SUBMISSION_MB  the largest submission the exchange accepts, in MB [5]
  COURSE_GRADER         the system account that owns COURSE_DIR, runs the formgrader and grades
                                                            [grader-pytorch-tensors]
  COURSE_INSTRUCTORS    hub users who may open the formgrader (comma-separated)
  COURSE_STUDENTS       the other hub users of the course (comma-separated)
  COURSE_FORMGRADER_URL where the formgrader service listens [http://127.0.0.1:9999]
  COURSE_RECEIPT_WORKERS judges of the grader on receipt; 0 leaves the service out [1]
"""

import os
import pwd
import secrets

from course_exchange.hubconfig import add_to_hub, client_url

c = get_config()  # noqa: F821 (provided by traitlets when JupyterHub loads this file)

COURSE_ID = "pytorch-tensors"


def _names(variable: str) -> set[str]:
    return {name.strip() for name in os.environ.get(variable, "").split(",") if name.strip()}


ENV = os.environ.get("COURSE_HUB_ENV", "/opt/tensor-course/env")
COURSE_DIR = os.environ.get("COURSE_DIR", "/srv/nbgrader/pytorch-tensors")
EXCHANGE_URL = os.environ.get("COURSE_EXCHANGE_URL", "http://127.0.0.1:9998")
EXCHANGE_STORE = os.environ.get("COURSE_EXCHANGE_STORE", "/srv/nbgrader/exchange-store")
EXCHANGE_USER = os.environ.get("COURSE_EXCHANGE_USER", "nbgrader-exchange")
TOKEN_FILE = os.environ.get("COURSE_EXCHANGE_TOKEN_FILE", f"/srv/nbgrader/{COURSE_ID}.exchange-token")
MAX_SUBMISSION_MB = float(os.environ.get("COURSE_MAX_SUBMISSION_MB", "5"))
GRADER = os.environ.get("COURSE_GRADER", f"grader-{COURSE_ID}")
INSTRUCTORS = _names("COURSE_INSTRUCTORS")
STUDENTS = _names("COURSE_STUDENTS")
FORMGRADER_URL = os.environ.get("COURSE_FORMGRADER_URL", "http://127.0.0.1:9999")
try:
    RECEIPT_WORKERS = int(os.environ.get("COURSE_RECEIPT_WORKERS", "1"))
except ValueError:
    raise SystemExit(
        "course.py: COURSE_RECEIPT_WORKERS must be a whole number (0 leaves the grader on receipt out)"
    ) from None

for path, what in (
    (f"{ENV}/bin/jupyterhub-singleuser", "the hub environment (run deploy/jupyterhub/install-env)"),
    (f"{ENV}/etc/jupyter-student", "the student configuration (run deploy/jupyterhub/install-env)"),
    (f"{COURSE_DIR}/nbgrader_config.py", "the course directory (a clone of the course repository)"),
):
    if not os.path.exists(path):
        raise SystemExit(f"course.py: {path} is missing: set up {what} first")
accounts = {}
for account, variable in ((GRADER, "COURSE_GRADER"), (EXCHANGE_USER, "COURSE_EXCHANGE_USER")):
    try:
        accounts[account] = pwd.getpwnam(account)
    except KeyError:
        raise SystemExit(
            f"course.py: the account {account!r} does not exist (useradd --system it, or set {variable})"
        ) from None
if EXCHANGE_USER in INSTRUCTORS | STUDENTS:
    raise SystemExit(f"course.py: the exchange's account {EXCHANGE_USER!r} must not be a hub user")

# The exchange's store: only its own account may enter it.
os.makedirs(EXCHANGE_STORE, mode=0o700, exist_ok=True)
os.chown(EXCHANGE_STORE, accounts[EXCHANGE_USER].pw_uid, accounts[EXCHANGE_USER].pw_gid)
os.chmod(EXCHANGE_STORE, 0o700)

# The grader's token: the formgrader service's, so the formgrader and the grader's shell are the same
# grader to the exchange. Made once, readable by the grader account alone.
if not os.path.exists(TOKEN_FILE):
    descriptor = os.open(TOKEN_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as out:
        out.write(secrets.token_hex(32) + "\n")
os.chown(TOKEN_FILE, accounts[GRADER].pw_uid, accounts[GRADER].pw_gid)
os.chmod(TOKEN_FILE, 0o600)
with open(TOKEN_FILE) as source:
    GRADER_TOKEN = source.read().strip()

c.Authenticator.allowed_users.update(INSTRUCTORS | STUDENTS)

SYSTEM_PATH = f"{ENV}/bin:/usr/local/bin:/usr/bin:/bin"
add_to_hub(
    c,
    course_id=COURSE_ID,
    service_url=EXCHANGE_URL,
    command=[f"{ENV}/bin/course-exchange"],
    store=EXCHANGE_STORE,
    users=sorted(INSTRUCTORS | STUDENTS),
    grader_users=sorted(INSTRUCTORS),
    grader_services=[COURSE_ID],
    max_submission_mb=MAX_SUBMISSION_MB,
    run_as=EXCHANGE_USER,
    environment={"PATH": SYSTEM_PATH},
)

c.Spawner.environment.update({"JUPYTER_CONFIG_PATH": f"{ENV}/etc/jupyter-student"})

c.JupyterHub.services.append(
    {
        "name": COURSE_ID,
        "url": FORMGRADER_URL,
        "command": [f"{ENV}/bin/jupyterhub-singleuser", *(["--allow-root"] if GRADER == "root" else [])],
        "user": GRADER,
        "cwd": COURSE_DIR,
        "api_token": GRADER_TOKEN,
        "environment": {
            "PATH": SYSTEM_PATH,
            "COURSE_EXCHANGE_URL": client_url(EXCHANGE_URL),
            "COURSE_EXCHANGE_TOKEN_FILE": TOKEN_FILE,
            "JUPYTERHUB_DEFAULT_URL": "/formgrader",
        },
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

# The grader on receipt: no web server of its own, so no URL; it reads the course's source/ (hidden tests) as
# the grader account and speaks to the exchange with the grader's token, like the formgrader.
if RECEIPT_WORKERS > 0:
    c.JupyterHub.services.append(
        {
            "name": f"{COURSE_ID}-on-receipt",
            "command": [
                f"{ENV}/bin/python",
                "-m",
                "course_exchange.receipt",
                "--course-dir",
                COURSE_DIR,
                "--workers",
                str(RECEIPT_WORKERS),
            ],
            "user": GRADER,
            "cwd": COURSE_DIR,
            "environment": {
                "PATH": SYSTEM_PATH,
                "COURSE_EXCHANGE_URL": client_url(EXCHANGE_URL),
                "COURSE_EXCHANGE_TOKEN_FILE": TOKEN_FILE,
            },
            "display": False,
        }
    )
