"""Execute every source notebook top to bottom (hidden tests included) and print each one's wall time.

    python scripts/run_notebooks.py                 # on whatever device torch finds
    python scripts/run_notebooks.py --require-cuda  # the GPU check: fail unless CUDA is used

Each notebook runs in a fresh kernel; the time printed is the execution of its cells, with the
kernel start given separately. A notebook with an error cell fails the run (exit status 1).
With --require-cuda the script also runs the tests marked `cuda` with pytest.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent


def run_one(path: Path, *, timeout: int) -> tuple[float, float, list[str]]:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=timeout, allow_errors=True, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    started = time.perf_counter()
    with client.setup_kernel():
        ready = time.perf_counter()
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
        done = time.perf_counter()
    errors = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                label = cell.metadata.get("nbgrader", {}).get("grade_id") or cell.get("id", "?")
                errors.append(f"{label}: {output.get('ename')}: {str(output.get('evalue', ''))[:200]}")
    return ready - started, done - ready, errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lessons", nargs="*", help="lesson ids (default: all in source/)")
    parser.add_argument(
        "--require-cuda", action="store_true", help="fail unless torch sees a CUDA device; also run the cuda tests"
    )
    parser.add_argument("--timeout", type=int, default=300, help="per-cell time-out in seconds")
    args = parser.parse_args(argv)
    import torch

    cuda = torch.cuda.is_available()
    print(
        f"torch {torch.__version__}; CUDA available: {cuda}" + (f" ({torch.cuda.get_device_name(0)})" if cuda else "")
    )
    if args.require_cuda and not cuda:
        print("--require-cuda: no CUDA device is visible", file=sys.stderr)
        return 1
    paths = sorted((ROOT / "source").glob("*/*.ipynb"))
    if args.lessons:
        paths = [p for p in paths if p.parent.name in args.lessons]
    failed = 0
    total = 0.0
    for path in paths:
        start, run, errors = run_one(path, timeout=args.timeout)
        total += run
        status = "ok" if not errors else f"{len(errors)} error(s)"
        print(f"{path.parent.name:<14} cells {run:6.2f} s   kernel start {start:5.2f} s   {status}", flush=True)
        for error in errors:
            print(f"    {error}")
        failed += bool(errors)
    print(f"{len(paths)} notebooks, {total:.1f} s of cell execution, {failed} with errors")
    if args.require_cuda:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-m", "cuda", "tests"], cwd=ROOT)
        failed += proc.returncode not in (0, 5)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
