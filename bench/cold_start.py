"""Cold-start timings of the CLI: each command in a fresh process, on the demo corpus.

Prints, per command, the best and every wall time of --repeat runs, the CPU time (user +
system) of the best run and the median CPU time of all, then the import time of
``lastword.cli``. The machine is shared: wall time includes waiting for a core, CPU time does
not, so both are printed, with the load average before and after each command. Target:
``ask`` <= 1.5 s wall.

Two ways Python can start, both measured:

- ``bytecode``: the modules' compiled bytecode is cached, as after ``pip install`` (which
  compiles every module) or any second run of a source checkout. The cache goes to a scratch
  directory (``PYTHONPYCACHEPREFIX``), so the source tree is left alone.
- ``source``: ``PYTHONDONTWRITEBYTECODE=1`` with no cache, so lastword's own ~70 modules are
  compiled from source on every start (what a checkout run under that variable pays: about
  0.25 s more CPU).

    .venv/bin/python bench/cold_start.py [--repeat 5] [--modes bytecode,source]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lastword.demo import DEMO_QUESTIONS, build_demo_index, demo_settings
from lastword.settings import load_settings

QUESTION = DEMO_QUESTIONS[0][1]


def run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def environment(mode: str, scratch: Path) -> dict[str, str]:
    env = dict(os.environ)
    if mode == "bytecode":
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    return env


def import_time(env: dict[str, str], repeat: int) -> list[float]:
    walls = []
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import lastword.cli"],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        last = out.stderr.strip().splitlines()[-1]
        walls.append(int(re.split(r"\|", last)[1]) / 1e6)
    return walls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--modes", default="bytecode,source", help="bytecode, source or both")
    args = parser.parse_args()
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    print(
        f"best of {args.repeat} cold runs each; {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f} (a shared machine: wall times are noisy, CPU times less so)"
    )
    cli = [sys.executable, "-c", "from lastword.cli import main; main()"]
    with tempfile.TemporaryDirectory(prefix="lastword-cold-") as name:
        scratch = Path(name)
        index = scratch / "demo-index"
        build_demo_index(index, demo_settings(load_settings()))
        commands = {
            "--help": [*cli, "--help"],
            "sources": [*cli, "sources", "--index", str(index)],
            "inspect": [*cli, "inspect", QUESTION, "--index", str(index)],
            "ask": [*cli, "ask", QUESTION, "--index", str(index)],
        }
        for mode in modes:
            env = environment(mode, scratch)
            # warms the page cache (the model file) and, in bytecode mode, writes the bytecode,
            # as any earlier use would
            run(commands["ask"], env)
            print(f"\n[{mode}]")
            print(
                f"{'command':10} {'best wall s':>11} {'cpu s':>6} {'med cpu':>7}  {'load':>9}  "
                "all wall s"
            )
            for name, argv in commands.items():
                load = os.getloadavg()[0]
                runs = [run(argv, env) for _ in range(args.repeat)]
                best = min(runs)
                walls = " ".join(f"{wall:.2f}" for wall, _ in runs)
                loads = f"{load:.1f}-{os.getloadavg()[0]:.1f}"
                cpu = statistics.median(c for _, c in runs)
                print(
                    f"{name:10} {best[0]:11.2f} {best[1]:6.2f} {cpu:7.2f}  {loads:>9}  {walls}",
                    flush=True,
                )
            imports = import_time(env, args.repeat)
            shown = " ".join(f"{w:.2f}" for w in imports)
            print(f"import lastword.cli: best {min(imports):.2f} s ({shown})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
