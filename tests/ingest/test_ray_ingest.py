"""Ingest on a real two-node Ray cluster on 127.0.0.1: the same index as a plain ingest, and a
worker killed mid-ingest has its task run again.

The cluster is two ``ray start`` processes (a head and a second node joining it), one CPU each,
dashboard off, small object stores; both are stopped by process group when the session ends.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from lastword.ingest import ingest_paths
from lastword.settings import EmbedSettings, IngestSettings
from lastword.store.local import LocalStore
from tests.servers.ray_cluster import LocalRayCluster, pids_running

ray = pytest.importorskip("ray")
DATA = Path(os.environ.get("LASTWORD_DATASETS", Path(__file__).parents[3] / "shared" / "datasets"))
DOCUMENTS = 24


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[str]:
    cluster = LocalRayCluster(cpus_per_node=1)
    try:
        cluster.start_head()
        cluster.add_node()
        yield cluster.address
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.stop()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = DATA / "pubmedqa" / "ori_pqal.json"
    if not source.exists():
        pytest.skip("PubMedQA not found (LASTWORD_DATASETS)")
    records = list(json.loads(source.read_text(encoding="utf-8")).items())[:DOCUMENTS]
    folder = tmp_path_factory.mktemp("ray-corpus")
    for pmid, record in records:
        text = "\n\n".join(part.strip() for part in record["CONTEXTS"])
        (folder / f"{pmid}.txt").write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def plain_index(corpus: Path, tmp_path_factory: pytest.TempPathFactory, minilm) -> Path:
    index = tmp_path_factory.mktemp("plain") / "index"
    ingest_paths([corpus], index, minilm, IngestSettings(commit_every=16))
    return index


def _contents(index: Path) -> tuple[str, dict[str, tuple[str, ...]], np.ndarray]:
    with LocalStore.open(index) as store:
        info = store.info()
        docs = {d.doc_id: d.passages for d in store.documents()}
        matrix, ids = store._load_matrix()
        row = {int(pid): i for i, pid in enumerate(ids)}
        passages = store.passages_by_id([int(pid) for pid in ids])
        texts = {}
        for passage in passages.values():
            texts.setdefault(passage.doc_id, []).append(passage.text)
        assert set(texts) == set(docs)
        order = sorted(passages.values(), key=lambda p: (p.doc_id, p.text))
        vectors = matrix[[row[p.passage_id] for p in order]]
    return info.fingerprint, {k: tuple(sorted(v)) for k, v in texts.items()}, vectors


def test_ray_ingest_builds_the_plain_index_and_survives_a_killed_worker(
    ray_cluster: str, corpus: Path, plain_index: Path, tmp_path: Path
) -> None:
    from lastword.ingest.distributed import ingest_paths_ray

    killed: list[int] = []

    def kill_a_worker(committed: int) -> None:
        if not killed:
            for _ in range(100):  # the next task is starting: kill the process running it
                running = pids_running("prepare_task")
                if running:
                    os.kill(running[0], signal.SIGKILL)
                    killed.append(running[0])
                    return
                time.sleep(0.1)

    index = tmp_path / "index"
    report = ingest_paths_ray(
        [corpus],
        index,
        EmbedSettings(),
        IngestSettings(commit_every=16),
        address=ray_cluster,
        files_per_task=2,
        on_batch_committed=kill_a_worker,
    )
    assert killed, "no worker was running a task to kill"
    assert not report.failed and len(report.added) == DOCUMENTS
    fingerprint, texts, vectors = _contents(index)
    plain_fingerprint, plain_texts, plain_vectors = _contents(plain_index)
    assert fingerprint == plain_fingerprint
    assert texts == plain_texts
    np.testing.assert_allclose(vectors, plain_vectors, atol=1e-4)

    again = ingest_paths_ray(
        [corpus], index, EmbedSettings(), IngestSettings(), address=ray_cluster
    )
    assert again.passages_embedded == 0 and len(again.skipped) == DOCUMENTS


def test_an_address_where_no_cluster_answers_is_one_clear_error_and_writes_nothing(
    corpus: Path, tmp_path: Path
) -> None:
    from lastword.errors import ProviderUnavailable
    from lastword.ingest.distributed import ingest_paths_ray
    from tests.servers.ray_cluster import free_port

    index = tmp_path / "index"
    address = f"127.0.0.1:{free_port()}"
    with pytest.raises(ProviderUnavailable, match=f"no Ray cluster answers at {address}"):
        ingest_paths_ray([corpus], index, EmbedSettings(), IngestSettings(), address=address)
    assert not index.exists()


def test_ray_ingest_reads_a_scan_by_ocr_in_its_tasks(
    ray_cluster: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, minilm
):
    from lastword.ingest.distributed import ingest_paths_ray
    from lastword.ingest.ocr.tesseract import available
    from tests.conftest import make_pdf
    from tests.ingest.test_ocr import STATINS, scanned

    if not available() and not os.environ.get("CI"):
        pytest.skip("tesseract is not installed")
    folder = tmp_path / "scans"
    folder.mkdir()
    scanned(make_pdf(tmp_path / "born.pdf", [STATINS]), folder / "statins.pdf")
    settings = IngestSettings(ocr_dpi=200, ocr_cache=str(tmp_path_factory.mktemp("ray-ocr")))
    on_ray, plain = tmp_path / "ray", tmp_path / "plain"
    report = ingest_paths_ray(
        [folder], on_ray, EmbedSettings(), settings, address=ray_cluster, files_per_task=1
    )
    assert not report.failed and report.added
    ingest_paths([folder], plain, minilm, settings)  # every page cached by the Ray task
    with LocalStore.open(on_ray) as a, LocalStore.open(plain) as b:
        [doc_a], [doc_b] = a.documents(), b.documents()
    assert doc_a.metadata["ocr"]["passages"]  # marked in the task, stored by the writer
    assert doc_a.metadata["ocr"] == doc_b.metadata["ocr"]
