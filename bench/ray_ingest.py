"""Ingest on Ray: passages/s with 1 and 2 nodes against a plain in-process ingest.

A real local cluster (``ray start`` on 127.0.0.1, --cpus CPUs per node) ingests the first
--documents PubMedQA abstracts into a fresh index; so does a plain ``ingest_paths`` with the
same embedder. The writer's own time (committing) is measured too, since it bounds any cluster:

    T(N nodes) ~= start + P / (N * c * r) + P * w

with P passages, c CPUs per node, r passages/s per CPU embedding, w the writer's seconds per
passage. On this machine every node shares the same 2 cores, so 2 nodes cannot beat 1 here;
the bench prints r and w so the model can be read for real nodes.

    .venv/bin/python bench/ray_ingest.py [--documents 200] [--cpus 1]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.servers.ray_cluster: the same cluster the tests start

from tests.servers.ray_cluster import LocalRayCluster  # noqa: E402

from lastword.embed.minilm import MiniLMEmbedder  # noqa: E402
from lastword.ingest import ingest_paths  # noqa: E402
from lastword.ingest.distributed import ingest_paths_ray  # noqa: E402
from lastword.settings import EmbedSettings, IngestSettings  # noqa: E402

DEFAULT_DATA = Path(os.environ.get("LASTWORD_DATASETS", ROOT.parent / "shared" / "datasets"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "pubmedqa")
    parser.add_argument("--documents", type=int, default=200)
    parser.add_argument("--cpus", type=int, default=1, help="CPUs per Ray node")
    parser.add_argument("--files-per-task", type=int, default=8)
    args = parser.parse_args()
    records = json.loads((args.data / "ori_pqal.json").read_text(encoding="utf-8"))
    print(
        f"{args.documents} PubMedQA abstracts; {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f} (a shared machine: numbers are noisy)"
    )
    with tempfile.TemporaryDirectory(prefix="lastword-ray-bench-") as scratch:
        corpus = Path(scratch) / "corpus"
        corpus.mkdir()
        for pmid, record in list(records.items())[: args.documents]:
            text = "\n\n".join(part.strip() for part in record["CONTEXTS"])
            (corpus / f"{pmid}.txt").write_text(text, encoding="utf-8")

        report = ingest_paths([corpus], Path(scratch) / "plain", MiniLMEmbedder(), IngestSettings())
        embed_rate = report.passages_embedded / report.embed_seconds
        writer_s = (report.seconds - report.embed_seconds) / report.passages_embedded
        print(
            f"plain     {report.passages_embedded / report.seconds:6.1f} passages/s  "
            f"({report.passages_embedded}"
            f" passages in {report.seconds:.1f}s; embedding alone {embed_rate:.1f}/s; "
            f"reading+chunking+writing {writer_s * 1000:.1f} ms/passage)"
        )
        cluster = LocalRayCluster(cpus_per_node=args.cpus)
        try:
            started = time.perf_counter()
            cluster.start_head()
            print(f"head node up in {time.perf_counter() - started:.1f}s")
            for nodes in (1, 2):
                if nodes == 2:
                    started = time.perf_counter()
                    cluster.add_node()
                    print(f"second node up in {time.perf_counter() - started:.1f}s")
                report = ingest_paths_ray(
                    [corpus],
                    Path(scratch) / f"ray-{nodes}",
                    EmbedSettings(),
                    IngestSettings(),
                    address=cluster.address,
                    files_per_task=args.files_per_task,
                )
                print(
                    f"ray x{nodes}    {report.passages_embedded / report.seconds:6.1f} passages/s  "
                    f"({report.passages_embedded} passages in {report.seconds:.1f}s, "
                    f"{nodes * args.cpus} CPU(s); includes each worker loading the model once)",
                    flush=True,
                )
        finally:
            import ray

            if ray.is_initialized():
                ray.shutdown()
            cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
