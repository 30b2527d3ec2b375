"""Benchmark: the papers set as scans, read back by OCR (issue 29).

Each page of ``$LASTWORD_DATASETS/papers/*.pdf`` is rendered with pypdfium2 at 300 and at 200
dpi, turned 1.5 degrees, given noise and saved as a JPEG inside an image-only PDF (no text
layer) in a scratch folder. Then per engine and resolution: the character error rate (CER) and
word error rate (WER) of the OCR text against the page's born-digital text layer (both
NFKC-normalised, whitespace collapsed; Levenshtein distance over the reference's length,
line by line: each text-layer line against the stretch of OCR text that matches it best, so
reading order and the text inside figures' images, which a text layer lacks, are no errors),
pages per second (``ingest.ocr.read_pages``, the ingest's own path, ``[ingest] ocr_workers``
pages at a time, no cache; on a shared machine also as CPU seconds per page, and what two
free cores would read from it) and the peak memory of the process reading (its own and its
engine processes'). Each engine runs in a fresh process.

Last, the papers bench (``bench/papers.py``: correct / false accepts / refused / phantoms) on
the 300-dpi scanned copy beside the born-digital one (its OCR readings cached by the first
pass: the same page images).

    python bench/ocr.py [--data DIR] [--pages N | --per-paper N] [--rapid-pages N]
                        [--dpi 300 200] [--no-papers] [--json OUT]

``--pages N``: the first N pages of the set, ``--per-paper N``: the first N pages of each
paper (all by default; the papers bench runs on the whole set only); ``--rapid-pages N``:
RapidOCR reads the first N of those (it takes ~15 s a page here; tesseract reads the same
pages too, so the two are compared on one sample). Numbers are taken on a shared, busy
2-core machine.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import unicodedata
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("LASTWORD_DATASETS", REPO.parent / "shared" / "datasets"))
ROTATION = 1.5
NOISE = 12.0  # standard deviation of the gray-level noise
JPEG_QUALITY = 70


def normalised(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split())


def errors(reference: str, hypothesis: str) -> tuple[int, int, int, int]:
    """(character edits, reference characters, word edits, reference words), line by line:
    each line of the text layer against the stretch of the OCR text that matches it best
    (``rapidfuzz`` partial alignment). Reading order (a sidebar read before or after the
    column) is then no error, and neither is text inside figures' images, which the text
    layer never held; a text-layer line OCR missed counts whole. CER counts the characters
    without spaces, WER the words."""
    from rapidfuzz import fuzz
    from rapidfuzz.distance import Levenshtein

    hyp = normalised(hypothesis)
    totals = [0, 0, 0, 0]
    for raw in reference.splitlines():
        line = normalised(raw)
        if not line:
            continue
        found = fuzz.partial_ratio_alignment(line, hyp) if hyp else None
        matched = found is not None and found.score >= 50
        got = hyp[found.dest_start : found.dest_end] if matched else ""
        # characters without the spaces: PDFium gives a sideways table's letters one by one
        # ("T A B L E 1"), which OCR reads turned upright as words
        bare_line, bare_got = line.replace(" ", ""), got.replace(" ", "")
        totals[0] += Levenshtein.distance(bare_line, bare_got)
        totals[1] += len(bare_line)
        totals[2] += Levenshtein.distance(line.split(), got.split())
        totals[3] += len(line.split())
    return totals[0], totals[1], totals[2], totals[3]


def scan(pdf_path: Path, out: Path, dpi: int, pages: set[int] | None) -> list[tuple[int, str]]:
    """An image-only copy of ``pdf_path`` at ``dpi`` (turned, noisy, JPEG); returns (page,
    text layer) of the pages kept."""
    import numpy as np
    import pypdfium2 as pdfium
    from PIL import Image

    rng = np.random.default_rng(29)
    pdf = pdfium.PdfDocument(pdf_path)
    images, texts = [], []
    try:
        for i in range(len(pdf)):
            if pages is not None and i + 1 not in pages:
                continue
            page = pdf[i]
            texts.append((i + 1, page.get_textpage().get_text_range()))
            image = page.render(scale=dpi / 72, grayscale=True).to_pil().convert("L")
            page.close()
            image = image.rotate(
                ROTATION, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255
            )
            pixels = np.asarray(image, dtype=np.float32)
            pixels = pixels + rng.normal(0.0, NOISE, pixels.shape)
            image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
            buffer = io.BytesIO()
            image.save(buffer, format="JPEG", quality=JPEG_QUALITY)
            images.append(Image.open(io.BytesIO(buffer.getvalue())))
    finally:
        pdf.close()
    if images:
        images[0].save(out, format="PDF", save_all=True, append_images=images[1:], resolution=dpi)
    return texts


def _cpu_seconds() -> float:
    """CPU time of this process and its finished engine processes."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _peak_mb() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return (own + children) / 1024


def run_engine(
    engine: str, dpi: int, files: list[tuple[str, list[int]]], cache: str | None
) -> dict[str, Any]:
    """In a fresh process: read every listed page of the scanned PDFs, return text per page,
    seconds and peak memory."""
    import pypdfium2 as pdfium

    from lastword.ingest.ocr import OcrFailed, OcrOptions, read_pages
    from lastword.ingest.ocr.lines import ocr_page
    from lastword.ingest.ocr.tesseract import available

    if engine == "tesseract" and not available():
        return {"error": "tesseract is not installed"}
    options = OcrOptions(
        engine=engine, dpi=dpi, cache_dir=Path(cache) if cache else Path(tempfile.mkdtemp())
    )
    texts: dict[str, str] = {}
    failed = 0
    started = time.perf_counter()
    cpu_started = _cpu_seconds()
    pages = 0
    for path, numbers in files:
        pdf = pdfium.PdfDocument(path)
        try:
            for number, reading in read_pages(pdf, numbers, options):
                pages += 1
                if isinstance(reading, OcrFailed):
                    failed += 1
                    continue
                page = ocr_page(list(reading.words), number, (reading.width, reading.height), 1.0)
                texts[f"{path}#{number}"] = "\n".join(x.text for x in page.lines)
        finally:
            pdf.close()
    seconds = time.perf_counter() - started
    return {
        "texts": texts,
        "seconds": seconds,
        "cpu_seconds": _cpu_seconds() - cpu_started,
        "pages": pages,
        "failed": failed,
        "peak_mb": _peak_mb(),
    }


def measure(
    engine: str,
    dpi: int,
    scanned: dict[str, Path],
    references: dict[str, list[tuple[int, str]]],
    limit: int | None,
    cache: str | None,
) -> dict[str, Any]:
    files: list[tuple[str, list[int]]] = []
    refs: dict[str, str] = {}
    count = 0
    for name, path in scanned.items():
        numbers = []
        for position, (_number, text) in enumerate(references[name]):
            if limit is not None and count >= limit:
                break
            numbers.append(position + 1)  # the scanned copy holds only the kept pages
            refs[f"{path}#{position + 1}"] = text
            count += 1
        if numbers:
            files.append((str(path), numbers))
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        result = pool.submit(run_engine, engine, dpi, files, cache).result()
    if "error" in result:
        return result
    totals = [0, 0, 0, 0]
    for key, reference in refs.items():
        for i, value in enumerate(errors(reference, result["texts"].get(key, ""))):
            totals[i] += value
    return {
        "engine": engine,
        "dpi": dpi,
        "pages": result["pages"],
        "failed": result["failed"],
        "cer": totals[0] / max(1, totals[1]),
        "wer": totals[2] / max(1, totals[3]),
        "pages_per_s": result["pages"] / result["seconds"] if result["seconds"] else 0.0,
        # what 2 free cores would read: CPU seconds per page (rendering, levelling, the engine)
        "cpu_s_per_page": result["cpu_seconds"] / max(1, result["pages"]),
        "pages_per_s_2_free_cores": 2 * result["pages"] / max(result["cpu_seconds"], 1e-9),
        "peak_mb": result["peak_mb"],
    }


def papers(data: Path, env: dict[str, str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="lastword-ocr-papers-") as tmp:
        out = Path(tmp) / "papers.json"
        done = subprocess.run(
            [
                sys.executable,
                str(REPO / "bench" / "papers.py"),
                "--data",
                str(data),
                "--json",
                str(out),
            ],
            env=env,
            check=False,
        )
        if done.returncode != 0 or not out.exists():
            return {"error": f"bench/papers.py exited {done.returncode}"}
        return json.loads(out.read_text(encoding="utf-8"))["summary"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA / "papers")
    parser.add_argument("--pages", type=int, help="Only the first N pages of the set.")
    parser.add_argument(
        "--per-paper", type=int, help="Only the first N pages of each paper (a sample)."
    )
    parser.add_argument("--rapid-pages", type=int, default=12, help="Pages RapidOCR reads.")
    parser.add_argument("--dpi", type=int, nargs="+", default=[300, 200])
    parser.add_argument("--no-papers", action="store_true", help="Skip the papers bench.")
    parser.add_argument("--json", type=Path, help="Write every number here.")
    args = parser.parse_args()
    pdfs = sorted(args.data.glob("*.pdf"))
    if not pdfs:
        print(f"papers data set not found at {args.data}", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="lastword-ocr-bench-"))
    cache = work / "cache"
    out: dict[str, Any] = {"note": "taken on a shared, busy 2-core machine", "runs": []}
    try:
        for dpi in args.dpi:
            folder = work / f"scans-{dpi}"
            folder.mkdir()
            references: dict[str, list[tuple[int, str]]] = {}
            scanned: dict[str, Path] = {}
            left = args.pages
            for pdf in pdfs:
                if left is not None and left <= 0:
                    break
                with_pages = None
                if left is not None:
                    with_pages = set(range(1, left + 1))
                if args.per_paper is not None:
                    with_pages = set(range(1, args.per_paper + 1))
                texts = scan(pdf, folder / pdf.name, dpi, with_pages)
                references[pdf.name] = texts
                scanned[pdf.name] = folder / pdf.name
                if left is not None:
                    left -= len(texts)
            total = sum(len(t) for t in references.values())
            print(f"{dpi} dpi: {len(scanned)} image-only PDFs, {total} pages", flush=True)
            engine_cache = str(cache) if dpi == 300 else None
            for engine, limit in (
                ("tesseract", None),
                ("tesseract", args.rapid_pages),
                ("rapidocr", args.rapid_pages),
            ):
                if limit is not None and limit >= total and engine == "tesseract":
                    continue  # the sample is the whole set: measured above
                row = measure(
                    engine,
                    dpi,
                    scanned,
                    references,
                    limit,
                    engine_cache if engine == "tesseract" and limit is None else None,
                )
                if "error" in row:
                    print(f"  {engine}: {row['error']}")
                    continue
                out["runs"].append(row)
                print(
                    f"  {engine:<9} {dpi} dpi {row['pages']:>3} pages: CER {row['cer']:.2%}  "
                    f"WER {row['wer']:.2%}  {row['pages_per_s']:.2f} pages/s here, "
                    f"{row['cpu_s_per_page']:.1f} CPU s/page = "
                    f"{row['pages_per_s_2_free_cores']:.2f} pages/s on 2 free cores  "
                    f"peak {row['peak_mb']:.0f} MB  failed {row['failed']}",
                    flush=True,
                )
        sampled = args.pages is not None or args.per_paper is not None
        if not args.no_papers and 300 in args.dpi and not sampled:
            scans = work / "scans-300"
            for extra in ("questions.jsonl", "pages.jsonl", "README.md"):
                (scans / extra).write_bytes((args.data / extra).read_bytes())
            env = {**os.environ, "LASTWORD_INGEST__OCR_CACHE": str(cache)}
            env["PYTHONPATH"] = os.pathsep.join(
                [str(REPO / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]
            )
            for name, data in (("born-digital", args.data), ("scanned 300 dpi", scans)):
                print(f"papers bench, {name}:", flush=True)
                summary = papers(data, env)
                out.setdefault("papers", {})[name] = summary
                s = summary.get("all", summary)
                if "error" not in s:
                    print(
                        f"  {name}: correct {s.get('correct')}/{s.get('answerable')}, false "
                        f"accepts {s.get('false_accepts')}/{s.get('unanswerable')}, refused "
                        f"{s.get('refused')}, phantoms {s.get('phantoms')}",
                        flush=True,
                    )
        if args.json:
            args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")
    finally:
        subprocess.run(["rm", "-rf", str(work)], check=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
