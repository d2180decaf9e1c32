"""Highlighting students' code for feedback pages: pygments as nbconvert runs it, against the lexer of
`autograder/grades/highlighting.py`.

    python benchmarks/highlighting.py [--students 40] [--language ipython3]

Every code cell of the course's source notebooks, handed in by --students students, each copy ending
in a comment that names its student (as in a real class, no two students' cells are the same text).
Each cell is highlighted three ways, as a feedback page highlights it: nbconvert's `highlight_code`
filter (a new lexer and formatter a cell, as nbconvert makes them), pygments with one lexer and
formatter kept (the same lexer class, its own loop) and the lexer a feedback page uses (dispatched,
and for ipython3 with IPython's magic rules guarded). Prints each one's time,
the ratios, and checks that all three wrote the same HTML for every cell.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.grades import highlighting  # noqa: E402


def course_cells() -> list[str]:
    cells = []
    for path in sorted((ROOT / "source").rglob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code" and cell["source"]:
                cells.append("".join(cell["source"]))
    return cells


def timed(highlight, sources: list[str]) -> tuple[float, list[str]]:
    started = time.perf_counter()
    pages = [highlight(source) for source in sources]
    return time.perf_counter() - started, pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=40, help="students handing in every cell (default 40)")
    parser.add_argument("--language", default="ipython3", help="the notebooks' pygments lexer (default ipython3)")
    args = parser.parse_args(argv)
    from IPython.lib.lexers import IPython3Lexer
    from nbconvert.filters.highlight import Highlight2HTML
    from pygments import highlight as pygments_highlight
    from pygments.lexers import get_lexer_by_name

    cells = course_cells()
    sources = [f"{cell}\n# student{k:05d}'s answer" for k in range(args.students) for cell in cells]
    made = highlighting.lexer_and_formatter(args.language)
    if made is None:
        raise SystemExit(f"no pygments lexer for {args.language!r}")
    dispatched, formatter = made
    kept = IPython3Lexer() if args.language == "ipython3" else get_lexer_by_name(args.language)
    print(
        f"{len(sources):,} cells ({len(cells)} of the course's code cells x {args.students} students), "
        f"{sum(map(len, sources)) / 1e6:.1f} MB, lexer {args.language}",
        flush=True,
    )
    filtered = Highlight2HTML(pygments_lexer=args.language)
    stock_s, stock = timed(filtered, sources)
    kept_s, ours_kept = timed(lambda s: pygments_highlight(s, kept, formatter), sources)
    fast_s, ours = timed(lambda s: pygments_highlight(s, dispatched, formatter), sources)
    if not stock == ours_kept == ours:
        differ = sum(a != b for a, b in zip(stock, ours))
        raise SystemExit(f"the highlighted cells differ: {differ} of {len(sources)}")
    print(f"nbconvert's filter (a lexer and formatter a cell): {stock_s:.2f} s")
    print(f"pygments, one lexer and formatter kept:            {kept_s:.2f} s ({stock_s / kept_s:.1f}x)")
    print(f"dispatched lexer, one formatter kept:              {fast_s:.2f} s ({stock_s / fast_s:.1f}x)")
    print(f"the dispatched lexer against pygments' own loop, formatting included: {kept_s / fast_s:.1f}x")
    print("Every cell's HTML is the same three ways.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
