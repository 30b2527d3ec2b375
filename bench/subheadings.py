"""Subheadings found by ``ingest.subheadings`` on the papers set: every one printed, to be read.

    python bench/subheadings.py [--data DIR]

For each PDF of ``$LASTWORD_DATASETS/papers/``: its body face, then each subheading with its
page, its shape (RUN-IN: cut from the start of a paragraph's first line; LINE: a short line of
its own in another face) and the opening of the text after it. Totals at the end. Reading
only (no index, no model); numbers are taken on a shared, busy machine.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import pypdfium2 as pdfium

from lastword.ingest.layout import body_size, mark_furniture, read_page, reading_order
from lastword.ingest.subheadings import body_face, mark_subheadings

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="datasets folder")
    args = parser.parse_args()
    counts = {"RUN-IN": 0, "LINE": 0}
    start = time.perf_counter()
    for path in sorted((args.data / "papers").glob("*.pdf")):
        pdf = pdfium.PdfDocument(str(path))
        try:
            pages = [read_page(pdf[i], i + 1, fonts=True) for i in range(len(pdf))]
        finally:
            pdf.close()
        mark_furniture(pages)
        size = body_size(pages)
        face = body_face((x for page in pages for x in page.lines), size)
        print(f"== {path.name} (body face {face!r}, size {size})")
        for page in pages:
            lines = [x for x in reading_order(page) if not x.furniture]
            known = {id(x) for x in lines}
            out = mark_subheadings(lines, face, size)
            for i, line in enumerate(out):
                if "subheading" not in line.flags:
                    continue
                shape = "LINE" if id(line) in known else "RUN-IN"
                counts[shape] += 1
                after = out[i + 1].text[:60] if i + 1 < len(out) else ""
                print(f"  p{page.number:<3} {shape:6} {line.text!r} -> {after!r}")
    took = time.perf_counter() - start
    print(
        f"subheadings: {counts['RUN-IN']} run-in, {counts['LINE']} on a line of their own "
        f"({took:.1f}s, busy machine)"
    )


if __name__ == "__main__":
    main()
