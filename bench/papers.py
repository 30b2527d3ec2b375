"""Benchmark: real research-paper PDFs in, answers out (issue 11).

Ingests ``$LASTWORD_DATASETS/papers/`` (20 PDFs) into an index with the default settings and
the real MiniLM, asks every question of ``questions.jsonl`` through ``Pipeline.ask`` with the
default (extractive) generator, and prints for ALL / DEV (odd-numbered ids: tune only on these)
/ TEST (even-numbered ids):

- correct: answered, and every fact (a list of case-insensitive regex alternatives) matches the
  answer text, out of the answerable questions;
- false accepts: answered, out of the unanswerable questions;
- refused: answerable questions that were refused;
- phantoms: phantom citation markers in the answers;
- evidence in top 8: answerable questions whose gold (document, page) is among the passages;
- references in top 8: share of the top-8 passages that lie in a references section, judged
  from ``pages.jsonl`` (the page is in ``refs_pages``; on the start page, the passage's text
  comes after the reference heading in the page's own PDFium text), independent of how ingest
  classified them; the share by stored passage ``kind == "references"`` is printed beside it;
- titles right out of papers (titles of ``papers/README.md``; compared on lower-cased words,
  right when equal or difflib ratio >= 0.9), and the ingest rate.

    python bench/papers.py [--data DIR] [--index DIR] [--json OUT] [--verbose] [--mode hybrid]

``--index DIR`` reuses an index built earlier (ingests into it when it does not exist yet), so
tuning the answer side re-runs in seconds. Numbers are taken on a shared, busy machine.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lastword.embed.minilm import MiniLMEmbedder
from lastword.gate.auto import calibrate_and_store
from lastword.ingest import ingest_paths
from lastword.pipeline import Pipeline
from lastword.result import Band, Result, Status
from lastword.settings import Settings
from lastword.store.local import LocalStore

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))
_LETTERS = re.compile(r"[^a-z0-9]+")
_WORDS = re.compile(r"[a-z0-9]+")


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def readme_titles(path: Path) -> dict[str, str]:
    """file name -> title, from the '### `file.pdf`' / '- Title: ...' lines of the README."""
    titles, current = {}, None
    for line in path.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"### `([^`]+\.pdf)`", line)
        if heading:
            current = heading.group(1)
        elif current and line.startswith("- Title:"):
            titles[current] = line.removeprefix("- Title:").strip()
            current = None
    return titles


def title_right(got: str, want: str) -> bool:
    a, b = " ".join(_WORDS.findall(got.lower())), " ".join(_WORDS.findall(want.lower()))
    return a == b or difflib.SequenceMatcher(None, a, b).ratio() >= 0.9


def letters(text: str) -> str:
    return _LETTERS.sub("", text.lower())


class ReferencePages:
    """Where each paper's reference list lies, from pages.jsonl and the PDF's own text."""

    def __init__(self, data: Path) -> None:
        self.rows = {row["doc"]: row for row in load_jsonl(data / "pages.jsonl")}
        self.data = data
        self._start_text: dict[str, tuple[str, int]] = {}

    def _start_page(self, doc: str) -> tuple[str, int]:
        """(letters of the start page's text, where the heading's letters begin)."""
        if doc not in self._start_text:
            import pypdfium2 as pdfium

            row = self.rows[doc]
            pdf = pdfium.PdfDocument(self.data / doc)
            try:
                page = pdf[row["refs_start_page"] - 1]
                text = page.get_textpage().get_text_range()
            finally:
                pdf.close()
            lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            before, at = "", None
            for line in lines:
                if line.strip() == row["heading"].strip():
                    at = len(letters(before))
                before += line + "\n"
            self._start_text[doc] = (letters(text), at if at is not None else 0)
        return self._start_text[doc]

    def holds(self, doc: str, page: int | None, text: str) -> bool:
        row = self.rows.get(doc)
        if row is None or page is None or page not in row["refs_pages"]:
            return False
        if page != row["refs_start_page"] or not row["starts_mid_page"]:
            return True
        page_letters, heading_at = self._start_page(doc)
        passage = letters(text)
        for start in (0, len(passage) // 2, max(0, len(passage) - 60)):
            probe = passage[start : start + 40]
            if len(probe) >= 20:
                found = page_letters.find(probe)
                if found >= 0:
                    return found >= heading_at
        return False  # not located on the page: count it as outside the list


def file_of(passage_or_record: Any) -> str:
    metadata = passage_or_record.metadata or {}
    name = metadata.get("file") or metadata.get("path") or ""
    return Path(name).name


def fact_matches(facts: list[list[str]], text: str) -> list[bool]:
    return [any(re.search(alt, text, flags=re.IGNORECASE) for alt in fact) for fact in facts]


def grade(question: dict[str, Any], result: Result, refs: ReferencePages) -> dict[str, Any]:
    answered = result.status is Status.ANSWERED
    answer = result.answer or ""
    top = result.passages[:8]
    row: dict[str, Any] = {
        "id": question["id"],
        "kind": question["kind"],
        "status": result.status.value,
        "decided_by": result.decided_by.value if result.decided_by else None,
        "answer": answer,
        "phantoms": len(result.phantoms),
        "top8": len(top),
        "top8_refs_by_page": sum(refs.holds(file_of(p), p.page, p.text) for p in top),
        "top8_refs_by_kind": sum(getattr(p, "kind", "body") == "references" for p in top),
        "top_score": result.top_score,
        "passages": [
            {"file": file_of(p), "page": p.page, "kind": getattr(p, "kind", "body")} for p in top
        ],
    }
    if question["kind"] == "answerable":
        hits = (
            fact_matches(question["facts"], answer)
            if answered
            else [False] * len(question["facts"])
        )
        row |= {
            "correct": answered and all(hits),
            "facts_hit": sum(hits),
            "facts": len(hits),
            "refused": not answered,
            "evidence_in_top8": any(
                file_of(p) == question["doc"] and p.page == question["page"] for p in top
            ),
            "gold": question["answer"],
        }
    else:
        row |= {"false_accept": answered}
    return row


def summarise(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    rows = list(rows)
    answerable = [r for r in rows if r["kind"] == "answerable"]
    unanswerable = [r for r in rows if r["kind"] == "unanswerable"]
    top8 = sum(r["top8"] for r in rows)
    return {
        "answerable": len(answerable),
        "correct": sum(r["correct"] for r in answerable),
        "unanswerable": len(unanswerable),
        "false_accepts": sum(r["false_accept"] for r in unanswerable),
        "refused": sum(r["refused"] for r in answerable),
        "phantoms": sum(r["phantoms"] for r in rows),
        "evidence_in_top8": sum(r["evidence_in_top8"] for r in answerable),
        "top8_passages": top8,
        "top8_refs_by_page": sum(r["top8_refs_by_page"] for r in rows),
        "top8_refs_by_kind": sum(r["top8_refs_by_kind"] for r in rows),
    }


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "   -  "


def print_summary(name: str, s: dict[str, Any]) -> None:
    print(
        f"{name:<5} correct {s['correct']:>2}/{s['answerable']:<2}"
        f" ({_pct(s['correct'], s['answerable'])})"
        f"  false accepts {s['false_accepts']:>2}/{s['unanswerable']:<2}"
        f"  refused {s['refused']:>2}  phantoms {s['phantoms']}"
        f"  evidence@8 {s['evidence_in_top8']:>2}/{s['answerable']:<2}"
        f"  refs in top 8: {_pct(s['top8_refs_by_page'], s['top8_passages'])} by page,"
        f" {_pct(s['top8_refs_by_kind'], s['top8_passages'])} by kind"
    )


def id_number(question: dict[str, Any]) -> int:
    return int(re.sub(r"\D", "", question["id"]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "papers")
    parser.add_argument("--index", type=Path, help="Index to reuse (built here when missing).")
    parser.add_argument("--json", type=Path, help="Write the summary and every row here.")
    parser.add_argument("--verbose", "-v", action="store_true", help="One line per question.")
    parser.add_argument(
        "--retrieve-only", action="store_true", help="Stop after the retrieval-only pass."
    )
    parser.add_argument(
        "--mode",
        choices=["dense", "hybrid", "lexical"],
        help="Retrieval ranking to answer over (default: the settings', LASTWORD_RETRIEVE__MODE).",
    )
    args = parser.parse_args()
    if not (args.data / "questions.jsonl").is_file():
        print(f"papers data set not found at {args.data}", file=sys.stderr)
        return 2

    questions = load_jsonl(args.data / "questions.jsonl")
    refs = ReferencePages(args.data)
    titles = readme_titles(args.data / "README.md")
    settings = Settings()
    if args.mode:
        settings.retrieve.mode = args.mode
    embedder = MiniLMEmbedder()
    embedder.embed_queries(["warm-up"])  # model load is not ingest time

    scratch = None
    index = args.index
    if index is None:
        scratch = tempfile.TemporaryDirectory(prefix="lastword-papers-")
        index = Path(scratch.name) / "index"
    out: dict[str, Any] = {
        "note": "taken on a shared, busy 2-core machine",
        "mode": settings.retrieve.mode,
    }
    try:
        if LocalStore.exists(index):
            print(f"reusing the index at {index} (no ingest timing)")
        else:
            # the PDFs only: the folder's README.md is about the data set, not a paper
            pdfs = sorted(args.data.glob("*.pdf"))
            report = ingest_paths(pdfs, index, embedder, settings.ingest)
            for failure in report.failed:
                print(f"ingest failed: {failure}", file=sys.stderr)
            rate = report.passages_embedded / report.seconds if report.seconds else 0.0
            out["ingest"] = {
                "documents": len(report.added),
                "passages": report.passages_embedded,
                "seconds": round(report.seconds, 2),
                "passages_per_s": round(rate, 2),
                "embed_only_per_s": round(report.passages_per_second, 2),
            }
            print(
                f"ingest: {len(report.added)} documents, {report.passages_embedded} passages "
                f"in {report.seconds:.1f}s = {rate:.1f} passages/s "
                f"(embedding alone {report.passages_per_second:.1f}/s)"
            )

        # After an ingest the index calibrates its own gate (gate/auto.py); a reused index
        # that has not calibrated for its current corpus does it now.
        with LocalStore.open_for_write(index, embedder.info) as store:
            calibrate_and_store(store, embedder, settings)
        with Pipeline(settings, LocalStore.open(index), embedder) as pipeline:
            t = pipeline.thresholds
            print(f"gate thresholds from {pipeline.thresholds_source}: weak {t.weak:.4f}")
            out["gate"] = {"source": pipeline.thresholds_source, "weak": t.weak, "strong": t.strong}
            records = [r for r in pipeline.store.documents() if file_of(r) in titles]
            kinds = _kind_counts(pipeline.store)
            right = []
            for record in records:
                want = titles.get(file_of(record))
                ok = want is not None and title_right(record.title, want)
                right.append(ok)
                if args.verbose and not ok:
                    print(f"  title wrong: {file_of(record)}: {record.title!r}")
            out["titles"] = {"right": sum(right), "papers": len(titles)}
            print(f"titles right {sum(right)}/{len(titles)}")
            if kinds:
                print("passages by kind: " + ", ".join(f"{k} {n}" for k, n in kinds.items()))
            out["passages_by_kind"] = kinds

            # Retrieval alone first (no generation): cheap, and what ingest decides.
            retrieved = []
            for question in questions:
                result = pipeline.inspect(question["question"], k=8)
                row = grade(question, result, refs)
                row["half"] = "dev" if id_number(question) % 2 else "test"
                row["gate_accepts"] = result.band is not Band.WEAK
                retrieved.append(row)
            for name, subset in _halves(retrieved):
                s = summarise(subset)
                s["gate_refused_answerable"] = sum(
                    not r["gate_accepts"] for r in subset if r["kind"] == "answerable"
                )
                s["gate_let_through_unanswerable"] = sum(
                    r["gate_accepts"] for r in subset if r["kind"] == "unanswerable"
                )
                print(
                    f"{name:<5} gate only: answerable refused {s['gate_refused_answerable']}/"
                    f"{s['answerable']}, unanswerable let through "
                    f"{s['gate_let_through_unanswerable']}/{s['unanswerable']}"
                )
                print(
                    f"{name:<5} retrieval only: evidence@8 {s['evidence_in_top8']:>2}/"
                    f"{s['answerable']:<2} refs in top 8: "
                    f"{_pct(s['top8_refs_by_page'], s['top8_passages'])} by page,"
                    f" {_pct(s['top8_refs_by_kind'], s['top8_passages'])} by kind"
                )
                out.setdefault("retrieval_only", {})[name.lower()] = s
            if args.retrieve_only:
                if args.json:
                    args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")
                return 0

            rows = []
            started = time.perf_counter()
            for question in questions:
                result = pipeline.ask(question["question"])
                row = grade(question, result, refs)
                row["half"] = "dev" if id_number(question) % 2 else "test"
                rows.append(row)
                if args.verbose:
                    _print_row(row)
            ask_s = time.perf_counter() - started
        print(f"asked {len(rows)} questions in {ask_s:.1f}s (busy machine)")
        out["summary"] = {}
        for name, subset in _halves(rows):
            summary = summarise(subset)
            out["summary"][name.lower()] = summary
            print_summary(name, summary)
        out["rows"] = rows
        if args.json:
            args.json.write_text(json.dumps(out, indent=1, ensure_ascii=False), encoding="utf-8")
    finally:
        if scratch is not None:
            scratch.cleanup()
    return 0


def _halves(rows: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    return [
        ("ALL", rows),
        ("DEV", [r for r in rows if r["half"] == "dev"]),
        ("TEST", [r for r in rows if r["half"] == "test"]),
    ]


def _kind_counts(store: LocalStore) -> dict[str, int]:
    """Passages per stored kind (empty for an index written before passage kinds)."""
    counts = getattr(store, "kind_counts", None)
    return counts() if counts else {}


def _print_row(row: dict[str, Any]) -> None:
    if row["kind"] == "answerable":
        mark = "OK " if row["correct"] else ("REF" if row["refused"] else "BAD")
        detail = f"facts {row['facts_hit']}/{row['facts']} evidence@8 {row['evidence_in_top8']}"
    else:
        mark = "FA " if row["false_accept"] else "ok "
        detail = ""
    refs = row["top8_refs_by_page"]
    answer = row["answer"].replace("\n", " ")[:160]
    print(
        f"{row['id']} {row['half']:<4} {mark} {row['status']:<8} {detail} refs@8 {refs} "
        f"phantoms {row['phantoms']}: {answer}"
    )


if __name__ == "__main__":
    raise SystemExit(main())
