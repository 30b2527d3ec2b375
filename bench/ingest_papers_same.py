"""Do the papers read the same? Each PDF's pages (text and typed blocks), title and references
as read now, written to a JSON file; with --compare OTHER.json, what differs from an earlier run.

    python bench/ingest_papers_same.py --out before.json          # on the old code
    python bench/ingest_papers_same.py --out after.json --compare before.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from lastword.ingest.readers import reader_for
from lastword.settings import IngestSettings

PAPERS = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets" / "papers"


def read_all(folder: Path) -> dict[str, dict]:
    settings = IngestSettings()
    out: dict[str, dict] = {}
    for path in sorted(folder.glob("*.pdf")):
        started = time.perf_counter()
        reader = reader_for(path, settings)
        documents = list(reader(path, path.read_bytes()))
        seconds = time.perf_counter() - started
        for document in documents:
            out[path.name] = {
                "title": document.title,
                "pages": [
                    {"text": p.text, "blocks": [[b.kind, b.start, b.end] for b in p.blocks]}
                    for p in document.pages
                ],
                "references": [[r.number, r.text] for r in document.references],
                "seconds": round(seconds, 2),
            }
        print(f"{path.name}: {seconds:.2f} s", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--papers", type=Path, default=PAPERS)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--compare", type=Path)
    args = parser.parse_args()
    now = read_all(args.papers.resolve())
    args.out.write_text(json.dumps(now, ensure_ascii=False, indent=1))
    if args.compare is None:
        return
    before = json.loads(args.compare.read_text())
    differ = 0
    for name in sorted(set(before) | set(now)):
        old, new = before.get(name), now.get(name)
        if old is None or new is None:
            print(f"{name}: only in {'the new' if old is None else 'the old'} run")
            differ += 1
            continue
        strip = lambda d: {k: v for k, v in d.items() if k != "seconds"}  # noqa: E731
        if strip(old) != strip(new):
            differ += 1
            pages = [
                i + 1
                for i, (a, b) in enumerate(zip(old["pages"], new["pages"], strict=False))
                if a != b
            ]
            print(f"{name}: differs (pages {pages or 'count'})")
    total_old = sum(d["seconds"] for d in before.values())
    total_new = sum(d["seconds"] for d in now.values())
    print(
        f"{len(now)} papers, {differ} differ; "
        f"reading {total_old:.1f} s before, {total_new:.1f} s now"
    )


if __name__ == "__main__":
    main()
