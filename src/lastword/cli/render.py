"""Human-readable output of a Result. Renders what the result records; computes nothing."""

from __future__ import annotations

from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from lastword.cli.app import console, safe
from lastword.result import Band, Result, Status
from lastword.settings import Thresholds
from lastword.text_check import printable

__all__ = ["band_line", "passages_table", "printable", "render_answer", "render_retrieval", "safe"]

BAND_STYLE = {Band.STRONG: "bold green", Band.BORDERLINE: "bold yellow", Band.WEAK: "bold red"}
STATUS_STYLE = {
    Status.ANSWERED: "bold green",
    Status.REFUSED: "bold yellow",
    Status.BLOCKED: "bold magenta",
    Status.FAILED: "bold red",
    Status.RETRIEVED: "bold cyan",
}


def _where(title: str, page: int | None, label: str | None = None) -> str:
    """ "Title, p. 3", with the printed page when it differs: "Title, p. 3 (printed 123)"."""
    if page is None:
        return title
    return f"{title}, p. {page}" + (f" (printed {label})" if label else "")


def passages_table(result: Result, cited: set[int] | None = None, preview: int = 220) -> Table:
    table = Table(show_lines=False, expand=True)
    table.add_column("N", justify="right", style="bold")
    table.add_column("score", justify="right")
    table.add_column("source", ratio=1, overflow="fold")
    table.add_column("passage", ratio=3, overflow="fold")
    for p in result.passages:
        text = p.text if len(p.text) <= preview else p.text[:preview].rstrip() + "…"
        marker = f"[{p.n}]" if not cited or p.n in cited else f"[dim][{p.n}][/]"
        source = _where(p.title, p.page, p.page_label)
        source += f" · {p.kind}" if p.kind != "body" else ""
        if p.flags:
            source += f" · {len(p.flags)} flagged instruction(s)"
        if p.ocr_confidence is not None:
            source += f" · read by OCR ({p.ocr_confidence:.0%})"
        table.add_row(marker, f"{p.score:.3f}", safe(source), safe(text))
    return table


def band_line(result: Result) -> Text:
    line = Text()
    if result.band is not None:
        line.append(f" {result.band.value} ", style=BAND_STYLE[result.band] + " reverse")
    gate = result.gate
    if gate is not None and gate.signal == "reader":
        line.append(f"  reader: answerable {gate.score:.3f} (top cosine {gate.top_score:.3f})")
    elif gate is not None and gate.signal == "combined":
        token_match = "" if gate.maxsim is None else f", token match {gate.maxsim:.2f}"
        # the hybrid ranking's model does not weigh the margin (its 8th passage is not the 8th
        # cosine): show what the score was made of
        margin = "" if gate.ranking == "hybrid" else f"margin {gate.margin or 0:.3f}, "
        line.append(
            f"  gate score {gate.score:.3f} (top cosine {gate.top_score:.3f}, "
            f"{margin}term coverage {gate.coverage or 0:.2f}{token_match})"
        )
    elif result.top_score is not None:
        line.append(f"  top score {result.top_score:.3f}")
    if gate is not None:
        line.append(f"   weak < {gate.weak:.2f} <= borderline < {gate.strong:.2f} <= strong")
    if gate is not None and gate.specific_floor is not None:
        line.append(
            f"\n  below weak, let through: one passage holds {gate.specific or 0:.2f} of the "
            f"question's specific terms (floor {gate.specific_floor:.2f})"
        )
    if gate is not None and gate.evidence_floor is not None:
        line.append(
            f"\n  below weak, let through: a sentence states what the question asks, relevance "
            f"{gate.evidence or 0:.2f} (floor {gate.evidence_floor:.2f})"
        )
    return line


def timings_line(result: Result) -> str:
    return "  ".join(f"{step} {ms:.1f} ms" for step, ms in result.timings_ms.items())


def render_retrieval(result: Result, thresholds: Thresholds) -> None:
    console.print(Text(printable(result.question), style="bold"))
    console.print(band_line(result))
    console.print(passages_table(result))
    console.print(f"[dim]{timings_line(result)}[/]")


def render_answer(result: Result) -> None:
    console.print(Text(printable(result.question), style="bold"))
    status = Text(f" {result.status.value} ", style=STATUS_STYLE[result.status] + " reverse")
    if result.decided_by is not None:
        status.append(f"  decided by {result.decided_by.value}")
    console.print(status)
    if result.status is Status.ANSWERED and result.answer:
        console.print(Panel(safe(result.answer), title="answer", border_style="green"))
    elif result.refusal is not None:
        console.print(Panel(safe(result.refusal.message), title="refusal", border_style="yellow"))
    elif result.error:
        console.print(Panel(safe(result.error), title=result.status.value, border_style="red"))
    console.print(band_line(result))
    if result.passages:
        title = "passages" if result.status is Status.ANSWERED else "closest passages (not cited)"
        console.print(f"[bold]{title}[/]")
        console.print(passages_table(result, cited=set(result.citations) or None))
    for phantom in result.phantoms:
        console.print(f"[red]phantom[/] {safe(phantom.marker)} ({phantom.reason})")
    for dropped in result.dropped:
        console.print(f"[yellow]dropped[/] ({dropped.reason}) [dim]{safe(dropped.text)}[/]")
    if result.usage is not None:
        cost = f", ~${result.usage.cost_usd:.4f}" if result.usage.cost_usd is not None else ""
        tokens = f"{result.usage.input_tokens} in / {result.usage.output_tokens} out tokens"
        console.print(f"[dim]{tokens}{cost}[/]")
    console.print(f"[dim]{timings_line(result)}[/]")
