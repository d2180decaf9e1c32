"""The instructor's command line: a thin layer over the library functions in this package."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from autograder import commands, stock
from autograder.config import settings
from autograder.cluster.client import ClusterError


class OneLineParser(argparse.ArgumentParser):
    """Bad arguments give one line on stderr and exit status 2."""

    def error(self, message: str) -> None:  # noqa: D401 (argparse API)
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


class _HelpConfig(argparse.Action):
    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(settings.help_text())
        parser.exit(0)


def _course_dir(value: str) -> Path:
    path = Path(value).resolve()
    if not (path / "nbgrader_config.py").is_file():
        raise argparse.ArgumentTypeError(f"{value} is not a course directory (it has no nbgrader_config.py)")
    return path


def build_parser() -> argparse.ArgumentParser:
    """Every command and option of `autograder`, with its help.

    Long because it is one declarative list, read top to bottom as `autograder --help` prints it."""
    parser = OneLineParser(
        prog="autograder",
        description="Build, release, grade and report on the PyTorch tensors course (run from the course directory).",
    )
    parser.add_argument(
        "--course-dir", type=_course_dir, default=None, help="the course directory (default: the current one)"
    )
    parser.add_argument(
        "--help-config",
        action=_HelpConfig,
        help="list every c.Autograder.* setting of nbgrader_config.py, with its default and what it does, and exit",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)

    p = sub.add_parser(
        "build",
        help="turn lessons/<id>.py into the nbgrader source notebooks in source/",
        description="Write source/<id>/<id>.ipynb from lessons/<id>.py for each lesson (all when none is named).",
    )
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="lesson ids, such as 01_tensors")

    p = sub.add_parser(
        "release",
        help="generate release/ from source/ with nbgrader, then check it for leaks",
        description="Generate release/<id>/ from source/<id>/ with nbgrader, then scan the release for "
        "solutions, hidden tests and quiz keys; exit 1 if anything leaked.",
    )
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="assignment ids (default: all in source/)")

    p = sub.add_parser(
        "grade",
        help="autograde submitted/ into autograded/ and the gradebook",
        description="Grade submitted/<student>/<assignment>/ like `nbgrader autograde`: write "
        "autograded/ and the gradebook, then print a summary; exit 1 if a submission could not be graded, "
        "as nbgrader autograde does.",
    )
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="assignment ids (default: all in source/)")
    p.add_argument("--student", metavar="ID", help="grade only this student")
    p.add_argument(
        "--workers",
        type=_positive_int,
        default=None,
        metavar="N",
        help="parallel workers (default: the number of cores)",
    )
    p.add_argument("--force", action="store_true", help="grade again even the notebooks unchanged since the last run")
    p.add_argument(
        "--allow-weak-sandbox",
        action="store_true",
        help="grade even where a confinement mechanism is missing on this machine (a loud warning is printed)",
    )
    p.add_argument(
        "--cluster",
        metavar="ADDRESS",
        default=None,
        help="grade on the Dask cluster whose scheduler is at ADDRESS, such as tls://scheduler:8786 "
        "(default: c.Autograder.cluster in nbgrader_config.py); TLS certificates come from Dask's "
        "distributed.comm.tls.* settings",
    )
    p.add_argument(
        "--local", action="store_true", help="grade on this machine even when nbgrader_config.py names a cluster"
    )
    p.add_argument(
        "--allow-insecure-cluster",
        action="store_true",
        help="accept an unencrypted tcp:// cluster address (anyone who can reach the scheduler can run code on it)",
    )
    p.add_argument(
        "--in-sandbox-tests",
        action="store_true",
        help="run test cells inside the student's process, for notebooks whose tests the judge cannot run "
        "(values in, values out); their grades can be forged, and the results say so",
    )

    p = sub.add_parser(
        "feedback",
        help="write feedback/ for graded submissions (verdicts and messages, no hidden source)",
        description="Generate the HTML feedback students get back: nbgrader's generate_feedback pages, "
        "byte for byte, written on every core (a course whose configuration changes those pages goes "
        "through nbgrader generate_feedback itself).",
    )
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="assignment ids (default: all graded)")
    p.add_argument("--student", metavar="ID", help="only this student")
    p.add_argument(
        "--workers", type=_positive_int, metavar="N", help="processes writing pages (default: the number of cores)"
    )

    p = sub.add_parser(
        "export",
        help="write the grades as CSV: nbgrader's format and an LMS-friendly one",
        description="Export every grade in the gradebook to a CSV file in nbgrader's export format, and "
        "an LMS-friendly CSV (one row per student, one column per assignment).",
    )
    p.add_argument("--to", default="grades.csv", metavar="FILE", help="nbgrader's CSV (default: grades.csv)")
    p.add_argument("--lms", default=None, metavar="FILE", help="the LMS CSV (default: FILE with -lms before .csv)")

    p = sub.add_parser(
        "report",
        help="write report.html and items.csv on what the class understood",
        description="Read the gradebook after grading and write DIR/report.html (one self-contained "
        "file: score distribution, item difficulty and discrimination, common failure "
        "messages, mastery per concept, grading time) and DIR/items.csv.",
    )
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="assignment ids (default: all graded)")
    p.add_argument("--out", default="report", metavar="DIR", help="output folder (default: report)")

    sub.add_parser(
        "sandbox-check",
        help="say which sandbox mechanisms are active on this machine",
        description="Report which confinement mechanisms (Landlock, bubblewrap, namespaces, rlimits) "
        "student code would run under here, and what is missing.",
    )

    p = sub.add_parser(
        "demo",
        help="grade a small sample class end to end in a temporary copy of the course",
        description="Copy the course to a temporary folder, release it, make a small class of sample "
        "submissions, grade them, write feedback and a CSV, and print a score table. The "
        "working tree is left untouched.",
    )
    p.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="assignment ids (default: all)")
    p.add_argument("--keep", metavar="DIR", help="work in DIR (kept afterwards) instead of a temporary folder")
    p.add_argument(
        "--db-url",
        metavar="URL",
        default=None,
        help="the demo's gradebook, such as postgresql://user@host/demo (default: a SQLite file in its folder)",
    )
    return parser


def _positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {number}")
    return number


def main(argv: list[str] | None = None) -> int:
    stock.use_environment_bin()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    course_dir = args.course_dir
    if course_dir is None:
        try:
            course_dir = _course_dir(".")
        except argparse.ArgumentTypeError as exc:
            parser.error(str(exc))
    try:
        return commands.run(args.command, course_dir, args)
    except commands.UsageError as exc:
        parser.error(str(exc))
    except settings.SettingsError as exc:
        print(f"autograder: error in {course_dir / 'nbgrader_config.py'}: {exc}", file=sys.stderr)
        return 2
    except ClusterError as exc:
        print(f"autograder: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: what was graded is kept; run the same command again to finish", file=sys.stderr)
        return 130
    return 0
