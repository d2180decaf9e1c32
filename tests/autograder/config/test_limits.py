"""The limits on the wire to the children: every field crosses, an unknown one is dropped, a missing one defaults."""

from __future__ import annotations

from dataclasses import fields, replace

from autograder.config import limits
from autograder.config.limits import Limits


def test_every_limit_crosses_the_wire_unchanged():
    changed = replace(Limits(), **{f.name: getattr(Limits, f.name) * 2 for f in fields(Limits)})
    assert changed != Limits()
    assert limits.from_dict(limits.as_dict(changed)) == changed


def test_a_job_from_an_older_coordinator_gets_the_defaults_for_what_it_lacks():
    sent = limits.as_dict(replace(Limits(), cell_timeout=5.0))
    del sent["start_timeout"]
    sent["a_limit_this_grader_does_not_know"] = 1
    assert limits.from_dict(sent) == replace(Limits(), cell_timeout=5.0)
