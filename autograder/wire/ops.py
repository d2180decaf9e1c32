"""The operations of the grader's two protocols, named once for the side that asks and the side that serves.

Each is a `str` on the wire (a JSON header's `"op"`); a side that receives an operation it does not
serve answers an error, never guesses.
"""

from __future__ import annotations

from enum import StrEnum


class ZygoteOp(StrEnum):
    """Messages on the zygote's control socket (from the judge pool and its judges)."""

    ADD = "add"  # a judge's socket, passed along: the zygote serves it too
    FORK = "fork"  # a fresh child for one notebook, with its limits; the reply names its pid
    KILL = "kill"  # a child and everything it started


class ChildOp(StrEnum):
    """Requests on a child's channel (from its judge)."""

    ARM = "arm"  # the guard's key, sent before any student code runs
    FILES = "files"  # the files handed in and the assignment's data files, into the private folder
    CELL = "cell"  # run one student cell
    PROBE = "probe"  # run a registered probe on one of the notebook's functions
    EXIT = "exit"  # stop serving
    LOOKUP = "lookup"  # a name of the notebook's namespace
    GETATTR = "getattr"
    CALL = "call"
    GETITEM = "getitem"
    LEN = "len"
    BOOL = "bool"
    ITER = "iter"
    NEXT = "next"
    RELEASE = "release"  # handles the judge no longer holds
