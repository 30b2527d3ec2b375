"""Cold-start timings of the CLI: each command in a fresh process, on the demo corpus.

Prints, per command, the best and every wall time of --repeat runs and the CPU time (user +
system) of the best run, then the import time of ``lastword.cli``. The machine is shared: wall
time includes waiting for a core, CPU time does not, so both are printed. Target: ``ask`` <= 1.5 s
wall.

    .venv/bin/python bench/cold_start.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lastword.demo import DEMO_QUESTIONS, build_demo_index, demo_settings
from lastword.settings import load_settings

QUESTION = DEMO_QUESTIONS[0][1]


def run(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(
        f"{args.repeat} cold runs each; {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f} (a shared machine: wall times are noisy, CPU times less so)"
    )
    cli = [sys.executable, "-c", "from lastword.cli import main; main()"]
    with tempfile.TemporaryDirectory(prefix="lastword-cold-") as scratch:
        index = Path(scratch) / "demo-index"
        build_demo_index(index, demo_settings(load_settings()))
        commands = {
            "--help": [*cli, "--help"],
            "sources": [*cli, "sources", "--index", str(index)],
            "inspect": [*cli, "inspect", QUESTION, "--index", str(index)],
            "ask": [*cli, "ask", QUESTION, "--index", str(index)],
        }
        run(commands["ask"])  # warms the page cache (the model file), as any second use would
        print(f"{'command':10} {'best wall s':>11} {'cpu s':>6}  all wall s")
        for name, argv in commands.items():
            runs = [run(argv) for _ in range(args.repeat)]
            best = min(runs)
            walls = " ".join(f"{wall:.2f}" for wall, _ in runs)
            print(f"{name:10} {best[0]:11.2f} {best[1]:6.2f}  {walls}", flush=True)

    walls = []
    for _ in range(args.repeat):
        out = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import lastword.cli"],
            capture_output=True,
            text=True,
            check=True,
        )
        last = out.stderr.strip().splitlines()[-1]
        walls.append(int(re.split(r"\|", last)[1]) / 1e6)
    print(f"import lastword.cli: best {min(walls):.2f} s ({' '.join(f'{w:.2f}' for w in walls)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
