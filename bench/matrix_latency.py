"""Time from a member's message to the Matrix bot's reply (issue 13), p50 / p99.

Starts a real Synapse on 127.0.0.1 (from .venv-synapse, see scripts/setup), registers the bot
and a member, builds the demo corpus index with the real MiniLM, starts a local Brave
stand-in, logs the bot in and runs ``lastword matrix run`` as a subprocess. Then the member
sends, one at a time, messages of four kinds and the time is read from the homeserver's own
timestamps (``origin_server_ts`` of the reply minus that of the message), so client polling
adds nothing:

* corpus answer: a demo question the papers answer (paper line under it);
* corpus refusal: a question the papers do not cover (retrieval gate);
* gate refusal: a screened web request (pre-search gate, nothing sent);
* web answer: "search the web for ..." answered from the stand-in's previews.

    .venv/bin/python bench/matrix_latency.py [--n 20] [--keep DIR]

The extractive generator writes answers (no model API). Numbers depend on machine load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from tests.matrix.homeserver import Member, Synapse, synapse_python  # noqa: E402
from tests.servers.brave_api import BraveAPI, Page  # noqa: E402

from lastword.demo import build_demo_index, demo_settings  # noqa: E402
from lastword.settings import Settings  # noqa: E402
from lastword.websearch.keys import KeyStore  # noqa: E402

KEY = "bench-brave-key"
PAGES = [
    Page(
        "Caffeine - Wikipedia",
        "https://en.wikipedia.org/wiki/Caffeine",
        "In healthy adults, the half-life of caffeine in blood plasma is about 5 hours. "
        "It is shorter in smokers and longer in pregnant women.",
    ),
    Page(
        "How long does caffeine last? | Sleep Foundation",
        "https://www.sleepfoundation.org/nutrition/how-long-does-caffeine-last",
        "Caffeine has a half-life of about 4 to 6 hours in adults, so half of a dose is "
        "still in the body hours after drinking coffee.",
    ),
]
KINDS = {
    "corpus answer": "Lastword, how much did vitamin D change lumbar spine bone density in "
    "older adults? ({i})",
    "corpus refusal": "Lastword, who won the 1998 Eurovision Song Contest? ({i})",
    "gate refusal": "Lastword, search the web for p0rn videos {i}",
    "web answer": "Lastword, search the web for the half-life of caffeine in healthy adults {i}",
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20, help="messages of each kind")
    parser.add_argument("--keep", type=Path, help="work in this directory and keep it")
    args = parser.parse_args()
    python = synapse_python()
    if python is None:
        sys.exit("Synapse is not installed in .venv-synapse: run scripts/setup")
    root = args.keep or Path(tempfile.mkdtemp(prefix="lastword-matrix-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    synapse = Synapse(python, root / "synapse")
    bot: subprocess.Popen[bytes] | None = None
    env = {k: v for k, v in os.environ.items() if k != "LASTWORD_MASTER_KEY"}
    env["HF_HUB_OFFLINE"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    cli = [sys.executable, "-c", "from lastword.cli import main; main()"]
    try:
        synapse.generate()
        synapse.start()
        bot_id = synapse.register("lastword", "bench-bot-pass")
        synapse.register("maria", "bench-maria-pass")
        index = root / "index"
        build_demo_index(index, demo_settings(Settings()))
        with BraveAPI(PAGES, api_key=KEY) as brave:
            state = root / "state"
            KeyStore(state).set("brave", KEY)
            config = root / "lastword.toml"
            config.write_text(
                f'[state]\ndir = "{state}"\n[websearch]\nbrave_url = "{brave.url}"\n'
                f"member_searches_per_window = 100000\nchat_searches_per_window = 100000\n"
                f'[matrix]\nallowed_inviters = ["@maria:lab.test"]\nsync_timeout_s = 30.0\n'
            )
            subprocess.run(
                [*cli, "--config", str(config), "matrix", "login", "--homeserver", synapse.url,
                 "--user", bot_id],
                input="bench-bot-pass\n", text=True, check=True, env=env, capture_output=True,
            )  # fmt: skip
            log = (root / "bot.log").open("wb")
            bot = subprocess.Popen(
                [*cli, "--config", str(config), "matrix", "run", "--index", str(index)],
                stdout=log, stderr=subprocess.STDOUT, env=env,
            )  # fmt: skip
            maria = Member(synapse.url, "maria", "bench-maria-pass")
            room = maria.create_room([bot_id])
            while bot_id not in maria.members(room):
                if bot.poll() is not None:
                    sys.exit((root / "bot.log").read_text()[-3000:])
                time.sleep(0.2)
            maria.wait_reply(room, maria.send(room, "Lastword, warm up"), bot_id, 300)
            results: dict[str, list[float]] = {}
            for kind, template in KINDS.items():
                times = results.setdefault(kind, [])
                for i in range(args.n):
                    event_id = maria.send(room, template.format(i=i))
                    sent = next(e for e in maria.messages(room, 50) if e["event_id"] == event_id)
                    reply = maria.wait_reply(room, event_id, bot_id, 300)
                    times.append(reply["origin_server_ts"] - sent["origin_server_ts"])
            searches = len(brave.searches)
    finally:
        if bot is not None:
            bot.send_signal(signal.SIGTERM)
            bot.wait(timeout=60)
        synapse.stop()
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    print(f"Matrix bot latency, message -> reply (homeserver timestamps), n={args.n} each;")
    print("Synapse + bot on 127.0.0.1, demo corpus, extractive generator; busy shared machine.")
    for kind, times in results.items():
        print(
            f"  {kind:15s} p50 {percentile(times, 0.5):7.0f} ms   "
            f"p99 {percentile(times, 0.99):7.0f}"
            f" ms   mean {statistics.fmean(times):7.0f} ms"
        )
    print(f"  requests to the Brave stand-in: {searches} (expected {args.n}: web answers only)")


if __name__ == "__main__":
    main()
