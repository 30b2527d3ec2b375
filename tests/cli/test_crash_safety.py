"""kill -9 in the middle of a real ingest leaves the previous index usable; a re-run completes."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time
from pathlib import Path

from tests.cli.conftest import lastword_process

TOPICS = ["statin", "insulin", "vitamin", "aspirin", "caffeine", "melatonin", "iron", "zinc"]


def synthetic_corpus(path: Path, documents: int) -> None:
    """Varied, realistic-looking abstracts: two paragraphs each."""
    with path.open("w", encoding="utf-8") as handle:
        for i in range(documents):
            topic = TOPICS[i % len(TOPICS)]
            text = (
                f"Background: trial {i} studied {topic} in {20 + i} adults with condition {i % 7}. "
                f"Patients received {topic} or placebo for {i % 12 + 1} weeks.\n\n"
                f"Results: outcome score changed by {i % 9}.{i % 10} points; adverse events "
                f"were rare in group {i}. The {topic} arm improved more than placebo."
            )
            handle.write(json.dumps({"id": f"doc-{i}", "title": f"Trial {i}", "text": text}) + "\n")


def committed_documents(index: Path) -> int:
    try:
        with sqlite3.connect(f"file:{index / 'index.sqlite'}?mode=ro", uri=True) as conn:
            return conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
    except sqlite3.Error:
        return 0


def lexical_rows(index: Path) -> int:
    """Rows of the lexical index, each of which must belong to a stored passage."""
    with sqlite3.connect(f"file:{index / 'index.sqlite'}?mode=ro", uri=True) as conn:
        orphans = "SELECT COUNT(*) FROM passages_fts WHERE rowid NOT IN (SELECT id FROM passages)"
        assert conn.execute(orphans).fetchone()[0] == 0
        return conn.execute("SELECT COUNT(*) FROM passages_fts").fetchone()[0]


def test_kill_9_mid_ingest(tmp_path: Path, demo_index: Path, minilm):
    from lastword.store.local import LocalStore

    index = tmp_path / "index"
    import shutil

    shutil.copytree(demo_index, index)  # the previous index: 5 demo documents
    corpus = tmp_path / "big.jsonl"
    synthetic_corpus(corpus, 120)
    env = {"LASTWORD_INGEST__COMMIT_EVERY": "16"}  # 8 documents (16 passages) per commit

    process = lastword_process("ingest", corpus, "--index", index, env=env)
    deadline = time.monotonic() + 240
    while committed_documents(index) < 5 + 16 and time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL

    with LocalStore.open(index) as store:
        info = store.info()
        assert 5 + 16 <= info.documents < 5 + 120, "killed too late to test anything"
        committed = info.documents - 5
        assert info.passages == 5 + 2 * committed  # whole documents only, never half of one
        query = minilm.embed_queries(["caffeine reaction time in night-shift nurses"])[0]
        assert store.search(query, 1)[0].passage.title.startswith("Caffeine")
        # The lexical index was written in the same transactions: exactly the committed passages.
        assert lexical_rows(index) == info.passages
        assert store.search_lexical("caffeine reaction time", 1)[0].passage.title.startswith(
            "Caffeine"
        )

    rerun = lastword_process("ingest", corpus, "--index", index, env=env)
    out, err = rerun.communicate(timeout=600)
    assert rerun.returncode == 0, err
    assert f"added: {120 - committed}" in out and f"skipped (unchanged): {committed}" in out
    with LocalStore.open(index) as store:
        assert (store.info().documents, store.info().passages) == (125, 5 + 240)
        assert lexical_rows(index) == 5 + 240
        assert not list(index.glob(".tmp-*"))
        assert len(list(index.glob("vectors-*.npy"))) == 1
