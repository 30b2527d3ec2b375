"""Benchmark: planted instructions flagged, and ordinary scientific prose not flagged.

Two numbers for ``lastword.injection`` (issue 28, row 2):

* planted styles: every style of ``bench/data/planted_instructions.json`` (each carries the
  planted value "900 mg"): the share whose sentences holding the value are flagged, by
  ``is_instruction`` alone (what the extractive generator and the verifier call per sentence)
  and by ``instruction_sentences`` (which also reads neighbours: what ingest stores);
* clean prose: the sentences flagged in every PubMedQA PQA-L context (1,000 abstracts) and,
  with ``--papers``, in the text of every real-paper PDF of ``$LASTWORD_DATASETS/papers/``.

Every miss and every flagged clean sentence is printed, so either can be read and fixed.

    python bench/injection_flags.py [--data DIR] [--papers]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from lastword.injection import instruction_sentences, is_instruction
from lastword.sentences import split_sentences

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))
PLANTED = REPO / "bench" / "data" / "planted_instructions.json"
VALUE = "900"


def planted_styles() -> list[dict[str, str]]:
    return json.loads(PLANTED.read_text(encoding="utf-8"))


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


def report_planted() -> None:
    styles = planted_styles()
    alone = context = 0
    for style in styles:
        holding = [s for s in split_sentences(style["text"]) if VALUE in s]
        flagged = set(instruction_sentences(style["text"]))
        by_sentence = all(is_instruction(s) for s in holding)
        by_context = all(s in flagged for s in holding)
        alone += by_sentence
        context += by_context
        if not (by_sentence and by_context):
            how = "context only" if by_context else "MISSED"
            print(f"   {how}: {style['style']}: {style['text'][:160]}")
    n = len(styles)
    print(f"planted styles: {alone} of {n} flagged sentence by sentence (is_instruction), ")
    print(f"                {context} of {n} flagged with neighbours (instruction_sentences)")


def report_clean(name: str, texts: list[tuple[str, str]]) -> None:
    started = time.perf_counter()
    sentences = 0
    flagged: list[tuple[str, str]] = []
    for source, text in texts:
        sentences += len(split_sentences(text))
        flagged.extend((source, s) for s in instruction_sentences(text))
    rate = len(flagged) / sentences if sentences else 0.0
    seconds = time.perf_counter() - started
    print(
        f"{name}: {len(flagged)} of {sentences:,} sentences flagged ({rate:.4%}; {seconds:.1f} s)"
    )
    for source, sentence in flagged:
        print(f"   {source}: {sentence[:200]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--papers", action="store_true", help="also every real-paper PDF page")
    args = parser.parse_args()
    report_planted()
    report_clean("PubMedQA PQA-L contexts", pubmedqa_texts(args.data))
    if args.papers:
        report_clean("real-paper PDFs (every page)", paper_texts(args.data))


if __name__ == "__main__":
    main()
