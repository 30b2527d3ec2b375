"""How long ingest reads crafted PDFs, and how much memory a Flate bomb costs, on this code or
on another checkout's (``--code OTHER/src``: the numbers before a change).

Each case is read in its own process, as ``lastword ingest`` reads a file (``ingest.run``'s
``_read_all``: the bounds, then the PDF reader), with a time limit; the process's peak RSS is
its ``ru_maxrss``. Cases: one page of N characters as a grid of tiny table cells
(``dense_cells``), one page of N characters read as a single row of fragments (``one_row``),
and a one-page PDF whose content stream inflates to M MB (``flate_bomb``).

    python bench/ingest_bounds.py                       # this checkout
    python bench/ingest_bounds.py --code ../main/src    # another one (before)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CASES = [
    *(("dense_cells", n) for n in (5_000, 10_000, 20_000)),
    *(("one_row", n) for n in (5_000, 10_000, 20_000)),
    ("flate_bomb", 50),
]


def read_one(kind: str, size: int) -> dict:
    """In the child: craft the file, read it as ingest does, report time and outcome."""
    sys.path.insert(0, str(REPO))
    from tests.ingest import crafted_pdfs

    data = getattr(crafted_pdfs, kind)(size)
    folder = Path(tempfile.mkdtemp())
    path = folder / f"{kind}-{size}.pdf"
    path.write_bytes(data)
    from lastword.ingest.run import IngestReport, _Pending, _read_all
    from lastword.settings import IngestSettings

    report = IngestReport()
    started = time.perf_counter()
    documents = list(_read_all([path], {path: path.name}, {}, report, _Pending(), IngestSettings()))
    seconds = time.perf_counter() - started
    outcome = (
        f"read: {sum(len(p.text) for d in documents for p in d.pages)} characters"
        if documents
        else "refused: " + "; ".join(e.reason for e in report.failed)
    )
    return {"kb": len(data) // 1024, "seconds": round(seconds, 2), "outcome": outcome}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--code", type=Path, help="the src/ folder to run (default: this one)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per case")
    parser.add_argument("--one", nargs=2, metavar=("KIND", "SIZE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        result = read_one(args.one[0], int(args.one[1]))
        result["rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        print(json.dumps(result))
        return
    code = (args.code or REPO / "src").resolve()
    print(f"code: {code}")
    print(f"{'case':<22} {'file':>7} {'seconds':>9} {'peak RSS':>9}  outcome")
    for kind, size in CASES:
        label = f"{kind} {size}" + (" MB" if kind == "flate_bomb" else " chars")
        command = [sys.executable, __file__, "--one", kind, str(size)]
        env = {**os.environ, "PYTHONPATH": str(code)}
        try:
            done = subprocess.run(
                command, env=env, capture_output=True, text=True, timeout=args.timeout
            )
        except subprocess.TimeoutExpired:
            print(
                f"{label:<22} {'':>7} {'>' + format(args.timeout, 'g'):>9} {'':>9}  still reading"
            )
            continue
        if done.returncode != 0:
            print(f"{label:<22} failed: {done.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        print(
            f"{label:<22} {r['kb']:>5}KB {r['seconds']:>9.2f} {r['rss_mb']:>6} MB  "
            f"{r['outcome'][:90]}"
        )


if __name__ == "__main__":
    main()
