"""PDFs an attacker crafts to hold an ingest: a page dense with tiny table cells, a page of a
few rows with thousands of fragments each, and a decompression bomb. Real PDFs (fpdf2, or
written object by object), read by the real PDFium; shared by tests and bench/ingest_bounds.py.
"""

from __future__ import annotations

import zlib


def dense_cells(chars: int) -> bytes:
    """One letter-size page holding ``chars`` characters as four-character numbers in a grid
    of narrow cells (36 to a row), each its own table cell: every one a table seed."""
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format="letter")
    pdf.set_auto_page_break(auto=False)
    pdf.add_page()
    pdf.set_font("Helvetica", size=4)
    tokens, columns = chars // 4, 36
    for n in range(tokens):
        row, column = divmod(n, columns)
        pdf.text(20 + column * 16.0, 20 + row * 4.0, f"{(n * 7) % 100:02d}.{n % 10}")
    return bytes(pdf.output())


def one_row(chars: int) -> bytes:
    """One page of ``chars`` characters as two-character fragments on a staircase of
    baselines each a fraction of a point above the last: read as one row of thousands of
    fragments (baselines within 2 pt of their neighbour are one row)."""
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format="letter")
    pdf.set_auto_page_break(auto=False)
    pdf.add_page()
    pdf.set_font("Helvetica", size=4)
    for n in range(chars // 2):
        pdf.text(20 + (n % 40) * 14.0, 40 + n * 0.07, f"{n % 100:02d}")
    return bytes(pdf.output())


def flate_bomb(inflated_mb: int) -> bytes:
    """A one-page PDF whose content stream is ``inflated_mb`` MB of text operators, Flate
    compressed to a few hundred KB: PDFium parses it whole, at many times its size in memory."""
    unit = b"BT /F1 1 Tf 10 10 Td (a) Tj ET\n"
    packed = zlib.compress(unit * (inflated_mb * 1024 * 1024 // len(unit)), 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(packed) + packed + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)
