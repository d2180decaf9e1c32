"""The settings that wire the exchange into a hub and into nbgrader, in one place.

`add_to_hub` is called from a jupyterhub_config.py (deploy/jupyterhub/course.py, and the tests'
hubs); `use_exchange` from an nbgrader_config.py. Neither imports JupyterHub or nbgrader, so
loading a configuration file stays cheap.
"""

from __future__ import annotations

SERVICE = "course-exchange"
PLUGIN = "course_exchange.plugin"
CLASSES = {
    "exchange": "Exchange",
    "fetch_assignment": "ExchangeFetchAssignment",
    "fetch_feedback": "ExchangeFetchFeedback",
    "release_assignment": "ExchangeReleaseAssignment",
    "release_feedback": "ExchangeReleaseFeedback",
    "list": "ExchangeList",
    "submit": "ExchangeSubmit",
    "collect": "ExchangeCollect",
}
SERVER_SCOPES = ["users:activity!user", "access:servers!server"]  # JupyterHub's own `server` role


def use_exchange(c) -> None:
    """Point every one of nbgrader's exchange classes at this package's."""
    for trait, name in CLASSES.items():
        setattr(c.ExchangeFactory, trait, f"{PLUGIN}.{name}")


def client_url(service_url: str, service: str = SERVICE) -> str:
    """Where clients reach the service: its own address, under the prefix the hub gives it."""
    return f"{service_url.rstrip('/')}/services/{service}"


def add_to_hub(
    c,
    *,
    course_id: str,
    service_url: str,
    command: list[str],
    store: str,
    users: list[str],
    grader_users: list[str],
    grader_services: list[str],
    max_submission_mb: float,
    run_as: str | None = None,
    environment: dict | None = None,
    service: str = SERVICE,
) -> None:
    """The exchange as a hub-managed service; `users` (the course's students and instructors) and the
    grader services may reach it, and every user's server gets a token that may, and its address."""
    c.JupyterHub.services.append(
        {
            "name": service,
            "url": service_url,
            "command": [
                *command,
                "--store",
                store,
                "--course",
                course_id,
                "--max-submission-mb",
                str(max_submission_mb),
                *(["--grader-user", ",".join(grader_users)] if grader_users else []),
                *(["--grader-service", ",".join(grader_services)] if grader_services else []),
            ],
            **({"user": run_as} if run_as else {}),
            "cwd": store,
            "environment": dict(environment or {}),
            "display": False,
        }
    )
    c.JupyterHub.load_groups.update({f"{service}-{course_id}": {"users": sorted(set(users) | set(grader_users))}})
    c.JupyterHub.load_roles.append(
        {
            "name": f"{service}-{course_id}",
            "description": f"Use the exchange of {course_id}",
            "groups": [f"{service}-{course_id}"],
            "services": sorted(grader_services),
            "scopes": [f"access:services!service={service}"],
        }
    )
    # A server's token holds only what the hub grants it; add the exchange to JupyterHub's defaults.
    c.Spawner.server_token_scopes = [*SERVER_SCOPES, f"access:services!service={service}"]
    c.Spawner.environment.update({"COURSE_EXCHANGE_URL": client_url(service_url, service)})
