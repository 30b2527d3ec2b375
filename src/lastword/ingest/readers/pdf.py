"""PDF: typed blocks per page from PDFium's character boxes (pypdfium2, Apache-2.0/BSD).

Each page is read as lines with positions and sizes (``ingest.layout``); running headers,
footers and page numbers are dropped; two columns are read column by column; lines are grouped
into blocks and given a kind (``ingest.structure``). The title comes from the first page's
largest text, then from sane metadata, then from the file name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

from lastword.errors import IngestError
from lastword.ingest.chunk import SUBHEADING
from lastword.ingest.document import (
    PageText,
    Reference,
    SourceDocument,
    content_hash,
    page_from_blocks,
)
from lastword.ingest.figures import figure_lines, figure_regions, page_graphics
from lastword.ingest.layout import (
    Line,
    Page,
    body_is_bold,
    body_size,
    mark_furniture,
    page_labels,
    read_page,
    reading_order,
)
from lastword.ingest.ocr import OcrFailed, OcrOptions, pages_to_ocr, read_pages
from lastword.ingest.ocr.lines import ocr_page
from lastword.ingest.ocr.marks import ocr_metadata
from lastword.ingest.sentences import carry_over, join_continued
from lastword.ingest.structure import (
    Classifier,
    Region,
    document_words,
    face_subheading,
    group_blocks,
    join_lines,
    line_role,
    mark_title,
    reference_entries,
    sidebar,
)
from lastword.ingest.subheadings import body_face, mark_subheadings
from lastword.ingest.tables import (
    Table,
    find_tables,
    is_table_caption,
    ruled_frames,
    unmark_prose,
)

#: no page with at least this many printable characters: treated as image-only
MIN_CHARS_PER_PAGE = 8
_BAD_TITLE = re.compile(
    r"(^microsoft (word|powerpoint)|\.(dvi|docx?|pdf|tex|ps|indd|rtf)\b|^presentation\d*$|"
    r"^untitled|^[0-9a-f]{16,}$|^[\W\d_]*$|^doi:|^(title|document)\d*$)",
    re.IGNORECASE,
)
_AFFILIATION = re.compile(
    r"\b(?:\d+\s*)?(?:Department|University|Institute|School|College|Faculty|Laborator\w*|"
    r"Cent(?:er|re)|Division|Received|Correspondence)\b"
)
_YEAR = re.compile(r"\b(19[5-9]\d|20[0-4]\d)\b")


def sane_title(title: str) -> str:
    title = " ".join(title.split())
    if len(title) < 4 or _BAD_TITLE.search(title) or len(title.split()) < 2:
        return ""
    return title


def title_from_name(path: Path) -> str:
    return re.sub(r"[_]+", " ", path.stem).strip() or path.name


def _open(data: bytes, source: str):  # type: ignore[no-untyped-def]
    import pypdfium2 as pdfium

    if not data.strip():
        raise IngestError("empty file", source)
    if not data.lstrip()[:5].startswith(b"%PDF"):
        raise IngestError("not a PDF file (no %PDF header); is it corrupt or misnamed?", source)
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        message = str(exc)
        if "password" in message.lower():
            raise IngestError("encrypted PDF: a password is required to read it", source) from None
        raise IngestError(f"corrupt or unreadable PDF ({message})", source) from None


def read_pdf(
    path: Path,
    data: bytes,
    *,
    join_across_pages: bool = False,
    subheadings: bool = False,
    subheading_paragraphs: bool = False,
    ocr: str = "never",
    ocr_options: OcrOptions | None = None,
    on_page: Callable[[str, int, int], None] | None = None,
) -> Iterator[SourceDocument | IngestError]:
    """One document from a PDF's bytes; with ``join_across_pages`` a sentence cut by a page
    break is made whole on the page it starts on (``sentences.carry_over``); with
    ``subheadings`` a subheading told apart only by its face is a heading
    (``ingest.subheadings``), or with ``subheading_paragraphs`` a paragraph of its own opening
    the passage of the prose it heads (``chunk._runs``). With ``ocr`` "auto" the pages
    without a usable text layer are read by OCR (``ingest.ocr``), "always" every page; a page
    OCR fails on is an ``IngestError`` naming it, yielded before the document;
    ``on_page(source, done, total)`` counts the pages read by OCR."""
    import pypdfium2 as pdfium

    source = str(path)
    pdf = _open(data, source)
    try:
        pages: list[Page] = []
        for number in range(len(pdf)):
            page = pdf[number]
            try:
                pages.append(read_page(page, number + 1, fonts=subheadings))
                pages[-1].graphics = page_graphics(page)
            finally:
                page.close()
        metadata = pdf.get_metadata_dict()
        printable = sum(p.chars for p in pages)
        read_by_ocr: dict[int, object] = {}
        yield from _ocr(pdf, pages, ocr, ocr_options, source, on_page, read_by_ocr)
    except pdfium.PdfiumError as exc:
        raise IngestError(f"corrupt PDF: a page could not be read ({exc})", source) from None
    finally:
        pdf.close()
    if not pages:
        raise IngestError("the PDF has no pages", source)
    found_by_ocr = any(pages[n - 1].chars for n in read_by_ocr)
    if not found_by_ocr and not any(p.chars >= MIN_CHARS_PER_PAGE for p in pages):
        found = "no extractable text" if not printable else f"only {printable} characters of text"
        if read_by_ocr:
            raise IngestError(f"{found} in {len(pages)} page(s), and none found by OCR", source)
        hint = (
            'OCR is off ([ingest] ocr = "never"; --ocr auto reads it)'
            if ocr == "never"
            else "OCR could not read it"
        )
        raise IngestError(f"{found} in {len(pages)} page(s): an image-only PDF; {hint}", source)
    texts, title, references, front = _structure(
        pages, join_across_pages, subheadings, subheading_paragraphs
    )
    title = title or sane_title(metadata.get("Title") or "") or title_from_name(path)
    meta: dict[str, object] = {"file": path.name, "format": "pdf"}
    authors = _authors(front, metadata.get("Author") or "")
    if authors:
        meta["authors"] = authors
    year = _year(front, metadata.get("CreationDate") or "")
    if year:
        meta["year"] = year
    labels = page_labels(pages)
    if labels:  # printed page numbers that are not the PDF's: {"1": "121", ...}
        meta["page_labels"] = {str(number): label for number, label in labels.items()}
    if read_by_ocr:
        meta["ocr"] = ocr_metadata(read_by_ocr)
    yield SourceDocument(
        doc_id=content_hash(data),
        title=title,
        source=source,
        pages=tuple(texts),
        content_hash=content_hash(data),
        metadata=meta,
        references=tuple(Reference(e.number, e.text) for e in references),
        ocr_words=tuple(
            (number, tuple((w.text, w.confidence) for w in reading.words))
            for number, (reading, _why) in sorted(read_by_ocr.items())
        ),
    )


def _ocr(pdf, pages, mode, options, source, on_page, read_by_ocr):  # type: ignore[no-untyped-def]
    """Read the pages that need it by OCR, in place in ``pages`` (``read_by_ocr``: number ->
    (``PageReading``, why it was read)); yields one ``IngestError`` per page OCR fails on
    (that page keeps its text layer)."""
    why = pages_to_ocr(pages, mode)
    if not why:
        return
    numbers = sorted(why)
    done = 0
    for number, result in read_pages(pdf, numbers, options or OcrOptions()):
        done += 1
        if on_page is not None:
            on_page(source, done, len(numbers))
        if isinstance(result, OcrFailed):
            yield IngestError(f"page {number}: OCR failed ({result})", source)
            continue
        page = ocr_page(list(result.words), number, (result.width, result.height), result.scale)
        pages[number - 1] = page
        read_by_ocr[number] = (result, why[number])


def _structure(
    pages: list[Page],
    join_across_pages: bool = False,
    subheadings: bool = False,
    subheading_paragraphs: bool = False,
) -> tuple[list[PageText], str, list, list[str]]:
    mark_furniture(pages)
    size = body_size(pages)
    face = body_face((x for page in pages for x in page.lines), size) if subheadings else ""
    bold_body = body_is_bold(pages, size)
    words = document_words(line for page in pages for line in page.lines)
    title_lines = mark_title(pages[0].lines, pages[0].height, size)
    classifier = Classifier()
    blocks: list[list[tuple[str, str]]] = []  # each page's (kind, text) blocks
    front: list[str] = []

    def join(parts: list[str]) -> str:
        return join_lines(parts, words)

    for page in pages:
        rotated_share = sum(len(x.text) for x in page.lines if x.rotated) / max(
            1, sum(len(x.text) for x in page.lines)
        )
        rotated_page = rotated_share >= 0.5
        lines = [x for x in reading_order(page) if not x.furniture]
        side = sidebar(lines, page.width, size) if page.number == 1 else []
        if side:  # one front region, kept out of tables and figures
            in_side = {id(x) for x in side}
            lines = [x for x in lines if id(x) not in in_side]
        unmark_prose(lines, page.width)
        roles = {id(x): line_role(x, size, rotated_page, bold_body) for x in lines}
        order = {id(x): i for i, x in enumerate(lines)}
        order.update({id(x): len(order) + i for i, x in enumerate(side)})
        captions = {  # a caption's lines, its wrapped lines too, are never figure text
            id(x)
            for block in group_blocks(lines, size, rotated_page, bold_body)
            if block.role == "caption"
            for x in block.lines
        }
        figures = figure_lines(
            [x for x in lines if id(x) not in captions and x not in title_lines],
            figure_regions(page.graphics, page.width, page.height),
            size,
        )
        in_figure = {id(x) for members in figures for x in members}
        lines = [x for x in lines if id(x) not in in_figure]
        tables = find_tables(lines, roles, join, ruled_frames(page.graphics))
        in_table = {id(x) for table in tables for x in table.lines}
        rest = mark_subheadings([x for x in lines if id(x) not in in_table], face, size)
        known = -1.0
        for x in rest:  # a run-in heading and its line's rest take the cut line's place
            known = order.setdefault(id(x), known + 0.001)
        regions = group_blocks(rest, size, rotated_page, bold_body)
        regions = _with_figures(regions, figures, page.number, order)
        if side:
            regions.append(Region(kind="front", page=page.number, lines=side, role="sidebar"))
        placed = _place_tables(regions, tables, order, join)
        typed: list[tuple[str, str]] = []
        for region in placed:
            if isinstance(region, Table) and classifier.state != "references":
                kind = classifier.kind(
                    Region(kind="table", page=page.number, lines=region.lines, role="table")
                )
                typed.extend((kind, text) for text in region.passages())
                continue
            if isinstance(region, Table):  # a reference list set in columns: its lines
                ordered = sorted(region.lines, key=lambda x: order[id(x)])
                region = Region(kind="body", page=page.number, lines=ordered, role="table")
            if any(line in title_lines for line in region.lines):
                region.role = "title"
            region.text = join_lines((x.text for x in region.lines), words)
            region.kind = classifier.kind(region)
            if region.kind == "front" and page.number == 1:
                front.append(region.text)
            if subheading_paragraphs and region.kind == "heading" and face_subheading(region):
                typed.append((SUBHEADING, region.text))
                continue
            typed.append((region.kind, region.text))
        blocks.append(join_continued(typed, join))
    if join_across_pages:  # a sentence cut by a page break belongs to the page it starts on
        blocks = carry_over(blocks, join)
    texts = [
        page_from_blocks(page.number, page_blocks)
        for page, page_blocks in zip(pages, blocks, strict=True)
    ]
    title = join_lines((x.text for x in title_lines), words) if title_lines else ""
    ref_lines = [x.text for region in classifier.references for x in region.lines]
    return texts, sane_title(title), reference_entries(ref_lines, words), front


def _with_figures(
    regions: list[Region], figures: list[list[Line]], page: int, order: dict[int, int]
) -> list[Region]:
    """One ``figure`` region per figure's text (its lines top down), in reading order at its
    first line."""
    if not figures:
        return regions
    out = list(regions)
    for members in figures:
        members = sorted(members, key=lambda x: (-round(x.top), x.x0))
        first = min(order[id(x)] for x in members)
        at = next(
            (i for i, r in enumerate(out) if min(order[id(x)] for x in r.lines) > first),
            len(out),
        )
        out.insert(at, Region(kind="figure", page=page, lines=members, role="figure"))
    return out


def _place_tables(
    regions: list[Region], tables: list[Table], order: dict[int, int], join
) -> list[Region | Table]:
    """Regions and tables in reading order; a table takes the place of its caption ("Table 2.
    ..." above it, else just below it), which becomes its first line, or else of its first
    line."""
    if not tables:
        return list(regions)
    captions = [r for r in regions if r.role == "caption" and is_table_caption(r.lines[0].text)]
    at: dict[int, list[Table]] = {}
    used: set[int] = set()
    for table in sorted(tables, key=lambda t: -t.top):
        caption = _caption_for(table, [c for c in captions if id(c) not in used])
        if caption is not None:
            used.add(id(caption))
            table.caption = join([x.text for x in caption.lines])
            at.setdefault(id(caption), []).append(table)
            continue
        first = min(order[id(x)] for x in table.lines)
        after = next(
            (
                r
                for r in regions
                if min(order[id(x)] for x in r.lines) > first and id(r) not in used
            ),
            None,
        )
        at.setdefault(id(after) if after is not None else -1, []).append(table)
    placed: list[Region | Table] = []
    for region in regions:
        placed.extend(at.get(id(region), []))
        if id(region) not in used:
            placed.append(region)
    placed.extend(at.get(-1, []))
    return placed


def _caption_for(table: Table, captions: list[Region]) -> Region | None:
    """The nearest table caption just above the table (within a few lines), else just below."""
    size = max(x.size for x in table.lines) or 1.0

    def overlaps(region: Region) -> bool:
        x0 = min(x.x0 for x in region.lines)
        x1 = max(x.x1 for x in region.lines)
        return x0 < table.x1 and x1 > table.x0

    above = [
        c
        for c in captions
        if overlaps(c)
        and min(x.bottom for x in c.lines) >= table.top - size
        and min(x.bottom for x in c.lines) - table.top <= 8 * size
    ]
    if above:
        return min(above, key=lambda c: min(x.bottom for x in c.lines))
    below = [
        c
        for c in captions
        if overlaps(c)
        and max(x.top for x in c.lines) <= table.bottom + size
        and table.bottom - max(x.top for x in c.lines) <= 4 * size
    ]
    return max(below, key=lambda c: max(x.top for x in c.lines)) if below else None


def _authors(front: list[str], metadata_author: str) -> list[str]:
    """Names from the front matter's author line, else the PDF metadata's Author field."""
    for text in front[:4]:
        text = _AFFILIATION.split(text)[0]
        cleaned = re.sub(r"[\d*†‡§¶]+(?=[\s,]|$)", "", text)
        parts = [p.strip() for p in re.split(r",|\band\b|&", cleaned) if p.strip()]
        names = [p for p in parts if re.fullmatch(r"(?:[A-Z][\w.'’\-]*\s?){2,5}", p)]
        if len(names) >= 2 and len(names) >= 0.6 * len(parts) and len(text) < 600:
            return names
    author = " ".join(metadata_author.split())
    if author and not _BAD_TITLE.search(author) and len(author) < 300:
        return [a.strip() for a in re.split(r";|,| and ", author) if a.strip()]
    return []


def _year(front: list[str], creation: str) -> int | None:
    for text in front:
        if re.search(r"published|©|copyright|received|accepted", text, re.IGNORECASE):
            years = _YEAR.findall(text)
            if years:
                return max(int(y) for y in years)
    match = _YEAR.search(creation)
    return int(match.group(1)) if match else None
