"""Benchmark: how often ``lastword.injection`` flags ordinary scientific prose (target ~0).

Counts the sentences flagged as instructions in every PubMedQA PQA-L context (1,000 abstracts)
and in the text of every real-paper PDF of ``$LASTWORD_DATASETS/papers/`` (all pages, read
with pypdfium2, references included), prints the rates and every flagged sentence, so a false
positive can be read and the patterns fixed.

    python bench/injection_flags.py [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from lastword.injection import instruction_sentences
from lastword.sentences import split_sentences

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))


def pubmedqa_texts(data: Path) -> list[tuple[str, str]]:
    records = json.loads((data / "pubmedqa" / "ori_pqal.json").read_text(encoding="utf-8"))
    return [(pid, " ".join(r["CONTEXTS"])) for pid, r in records.items()]


def paper_texts(data: Path) -> list[tuple[str, str]]:
    import pypdfium2 as pdfium

    out = []
    for pdf_path in sorted((data / "papers").glob("*.pdf")):
        pdf = pdfium.PdfDocument(str(pdf_path))
        try:
            for number, page in enumerate(pdf, start=1):
                text = page.get_textpage().get_text_range().replace("\r\n", " ").replace("\n", " ")
                out.append((f"{pdf_path.name} p{number}", text))
        finally:
            pdf.close()
    return out


def report(name: str, texts: list[tuple[str, str]]) -> None:
    sentences = 0
    flagged: list[tuple[str, str]] = []
    for source, text in texts:
        sentences += len(split_sentences(text))
        flagged.extend((source, s) for s in instruction_sentences(text))
    rate = len(flagged) / sentences if sentences else 0.0
    print(f"{name}: {len(flagged)} of {sentences:,} sentences flagged ({rate:.4%})")
    for source, sentence in flagged:
        print(f"   {source}: {sentence[:200]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    report("PubMedQA PQA-L contexts", pubmedqa_texts(args.data))
    report("real-paper PDFs (every page)", paper_texts(args.data))


if __name__ == "__main__":
    main()
