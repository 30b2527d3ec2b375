"""A real Ray cluster on 127.0.0.1: ``ray start`` processes (a head, then nodes joining it).

Each node runs ``ray start --block`` in its own process group, with a few CPUs, a small object
store and memory limit, no dashboard; ``stop`` ends exactly that group (nothing else on the
machine is touched). Used by tests/ingest/test_ray_ingest.py and bench/ray_ingest.py.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RAY = str(Path(sys.executable).parent / "ray")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalRayCluster:
    def __init__(self, cpus_per_node: int = 1) -> None:
        self.temp_dir = tempfile.mkdtemp(prefix="lwray", dir="/tmp")  # Ray's socket paths: short
        self.address = f"127.0.0.1:{free_port()}"
        self.cpus = cpus_per_node
        self.nodes: list[subprocess.Popen] = []

    def _start(self, args: list[str]) -> subprocess.Popen:
        env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
        command = [
            RAY, "start", "--block", f"--num-cpus={self.cpus}", "--node-ip-address=127.0.0.1",
            "--object-store-memory=100000000", "--memory=1500000000", "--disable-usage-stats",
            *args,
        ]  # fmt: skip
        process = subprocess.Popen(
            command,
            env=env,
            start_new_session=True,
            cwd=self.temp_dir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.nodes.append(process)
        self._wait_for(len(self.nodes), process)
        return process

    def start_head(self) -> None:
        port = self.address.rsplit(":", 1)[1]
        self._start(
            ["--head", f"--port={port}", "--include-dashboard=false", f"--temp-dir={self.temp_dir}"]
        )

    def add_node(self) -> None:
        self._start([f"--address={self.address}"])

    def _wait_for(self, count: int, process: subprocess.Popen, timeout_s: float = 240) -> None:
        probe = (
            f"import ray; ray.init(address='{self.address}', logging_level='ERROR'); "
            "print(sum(n['Alive'] for n in ray.nodes()))"
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"ray start exited with {process.returncode}")
            try:
                out = subprocess.run(
                    [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120
                )
            except subprocess.TimeoutExpired:
                continue
            if out.returncode == 0 and out.stdout.strip().splitlines()[-1:] == [str(count)]:
                return
            time.sleep(2)
        raise RuntimeError(f"the Ray cluster at {self.address} did not reach {count} nodes")

    def stop(self) -> None:
        for process in reversed(self.nodes):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
        self.nodes.clear()


def pids_running(task: str) -> list[int]:
    """Processes whose title says they run the Ray task ``task`` (``ray::task``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                title = (entry / "cmdline").read_bytes().split(b"\0")[0].decode()
            except (OSError, UnicodeDecodeError):
                continue
            if title.startswith(f"ray::{task}"):
                found.append(int(entry.name))
    return found
