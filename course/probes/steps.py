"""The steps a probe takes, named once for the probes that ask for them and the two places that serve them:
the grader's guard in a sandboxed child (`autograder.child.guard`) and `course.probes.run_locally` in the
student's own kernel. Each is a `str`; a side that is asked for one it does not serve refuses it."""

from __future__ import annotations

from enum import StrEnum


class Step(StrEnum):
    SEAL = "seal"  # take evidence with a sealed action and send it at once
    WITNESS = "witness"  # count the tensors autograd saves from now on (a saved-tensor hook)
    COUNT = "count"  # count the notebook's Python lines and the tensor operations from now on
    LINES = "lines"  # stop counting: [lines, operations]
    OPS = "ops"  # note which of the given ATen operations run from now on
    OPS_SEEN = "ops_seen"  # stop noting: the operations seen, in order
