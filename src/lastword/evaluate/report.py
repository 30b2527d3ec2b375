"""A static report (HTML page and Markdown twin, plus PNG plots) built from one results file.

Every number on the page comes from the results JSON through ``summary`` and ``calibrate``;
the page names the file, its hash and the run date, and says so.
"""

from __future__ import annotations

import hashlib
import html
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lastword.errors import MissingExtraError
from lastword.evaluate import summary
from lastword.evaluate.calibrate import Calibration, calibrate
from lastword.evaluate.metrics import Interval
from lastword.evaluate.records import load_results

HTML_NAME = "index.html"
MARKDOWN_NAME = "report.md"
ROC_NAME = "roc.png"
RISK_NAME = "risk_coverage.png"


@dataclass(frozen=True)
class ReportFiles:
    html: Path
    markdown: Path
    images: tuple[Path, ...]


def _rate(interval: Interval | None, count: int | None = None, total: int | None = None) -> str:
    if interval is None:
        return "n/a"
    text = interval.describe(percent=True)
    if count is not None and total is not None:
        text += f" ({count} of {total})"
    return text


def _count(interval: Interval | None, total: int) -> int:
    return round(interval.estimate * total) if interval is not None else 0


def calibration_rows(cal: Calibration) -> list[tuple[str, str]]:
    """Label and value for each calibration figure, as both pages print them."""
    negatives = "traps assigned to the retrieval gate"
    rows = [
        (
            "Labelled questions",
            f"{cal.positives} answerable (scenarios) vs {cal.negatives} {negatives}, "
            f"scored by {cal.column}; {cal.missing} left out without a score",
        ),
    ]
    if cal.refit is not None:
        weights = ", ".join(
            f"{name} {getattr(cal.refit, name):+.4g}" for name in cal.refit.weighed()
        )
        rows.append(
            (
                "Gate model refitted on these items (figures below are in-sample)",
                f"intercept {cal.refit.intercept:+.4g}, {weights}",
            )
        )
    rows += [
        (
            "Shipped thresholds",
            f"weak {cal.shipped_weak:.3f}, strong {cal.shipped_strong:.3f} ({cal.embedder})",
        ),
        (
            "ROC AUC (95% bootstrap interval)",
            cal.auc.describe() if cal.auc else "n/a",
        ),
        (
            "False-accept rate at the shipped threshold (95% Wilson)",
            _rate(cal.far_at_shipped, _count(cal.far_at_shipped, cal.negatives), cal.negatives),
        ),
        (
            "Answerable kept at the shipped threshold",
            _rate(cal.kept_at_shipped, _count(cal.kept_at_shipped, cal.positives), cal.positives),
        ),
        (
            "Share of refusals decided by the gate",
            _rate(
                cal.gate_share_of_refusals,
                _count(cal.gate_share_of_refusals, cal.refusals),
                cal.refusals,
            ),
        ),
    ]
    if cal.zero_fa_threshold is not None:
        rows.append(
            (
                "Zero-false-accept threshold, answerable kept",
                f"{cal.zero_fa_threshold:.4f}: "
                + _rate(cal.zero_fa_kept, _count(cal.zero_fa_kept, cal.positives), cal.positives),
            )
        )
    if cal.target_threshold is not None:
        rows.append(
            (
                f"Threshold for a false-accept rate <= {cal.target_far:.0%}, answerable kept",
                f"{cal.target_threshold:.4f}: "
                + _rate(cal.target_kept, _count(cal.target_kept, cal.positives), cal.positives)
                + "; false accepts "
                + _rate(cal.target_far_achieved),
            )
        )
    return rows


def write_plots(cal: Calibration, out_dir: Path) -> tuple[Path, ...]:
    """ROC and risk-coverage curves as PNG files next to the page (none without both labels)."""
    if cal.roc is None or cal.risk is None:
        return ()
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise MissingExtraError("matplotlib", "eval") from exc

    roc_path, risk_path = out_dir / ROC_NAME, out_dir / RISK_NAME
    fig, ax = plt.subplots(figsize=(5, 4.5), dpi=110)
    ax.plot(cal.roc.x, cal.roc.y, drawstyle="steps-post", color="#1f5fa8", label="gate")
    ax.plot([0, 1], [0, 1], linestyle=":", color="#888888", label="chance")
    if cal.far_at_shipped and cal.kept_at_shipped:
        ax.scatter(
            [cal.far_at_shipped.estimate],
            [cal.kept_at_shipped.estimate],
            color="#c0392b",
            zorder=3,
            label=f"shipped weak = {cal.shipped_weak:.2f}",
        )
    ax.set_xlabel("false-accept rate (traps answered)")
    ax.set_ylabel("answerable kept")
    auc = f" (AUC {cal.auc.estimate:.3f})" if cal.auc else ""
    ax.set_title(f"ROC of {cal.column}{auc}")
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, 1.01)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(roc_path)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(5, 4.5), dpi=110)
    ax.plot(cal.risk.x, cal.risk.y, color="#1f5fa8", marker=".", markersize=3)
    ax.set_xlabel("coverage (share of questions accepted)")
    ax.set_ylabel("risk (share of accepted that are traps)")
    ax.set_title(f"Risk-coverage of {cal.column}")
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, max(0.05, max(cal.risk.y) * 1.05))
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(risk_path)
    plt.close(fig)
    return roc_path, risk_path


def markdown_text(value: Any) -> Any:
    """One value as inert Markdown text: HTML escaped (an eval set's or a title's ``<script>``
    or ``<img onerror>`` stays text in any Markdown viewer), table pipes escaped, one line."""
    if not isinstance(value, str):
        return value
    text = html.escape(value, quote=False).replace("|", "\\|")
    return " ".join(text.split()) if "\n" in text or "\r" in text else text


def _environment(markdown: bool = False) -> Any:
    """HTML pages autoescape; the Markdown twin escapes every printed value (``finalize``)."""
    try:
        import jinja2
    except ImportError as exc:
        raise MissingExtraError("jinja2", "eval") from exc
    return jinja2.Environment(
        loader=jinja2.PackageLoader("lastword.evaluate", "templates"),
        autoescape=not markdown,
        finalize=markdown_text if markdown else None,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _score(value: float | None) -> str:
    return f"{value:.3f}" if value is not None else "–"


def build_report(
    results_path: Path,
    out_dir: Path,
    *,
    target_far: float = 0.05,
    app_url: str | None = None,
    warnings: tuple[str, ...] = (),
) -> ReportFiles:
    """Build the page and its Markdown twin. ``app_url`` (``""``: the same site) adds links
    back to the app's Evaluation page and each question in its Inspector; ``warnings`` are
    printed at the top (e.g. "this run was made on another corpus")."""
    results_path = Path(results_path)
    document = load_results(results_path)
    out_dir.mkdir(parents=True, exist_ok=True)
    cal = calibrate(document, target_far=target_far)
    images = write_plots(cal, out_dir)
    run = document.run
    context = {
        "source_name": results_path.name,
        "source_sha256": hashlib.sha256(results_path.read_bytes()).hexdigest(),
        "run": run,
        "run_date": run.date,
        "built": datetime.now(UTC).isoformat(timespec="seconds"),
        "headline": summary.headline(document),
        "mechanisms": summary.mechanism_rows(document),
        "crosstab": summary.crosstab(document),
        "crosstab_columns": [
            *summary.MECHANISMS,
            *sorted(
                {c for row in summary.crosstab(document).values() for c in row}
                - set(summary.MECHANISMS)
            ),
        ],
        "questions": summary.question_rows(document),
        "calibration": calibration_rows(cal),
        "notes": cal.notes,
        "images": [p.name for p in images],
        "score": _score,
        "app_url": None if app_url is None else app_url.rstrip("/"),
        "warnings": warnings,
    }
    html_path, md_path = out_dir / HTML_NAME, out_dir / MARKDOWN_NAME
    page = _environment().get_template("report.html.j2").render(context)
    twin = _environment(markdown=True).get_template("report.md.j2").render(context)
    html_path.write_text(page, encoding="utf-8")
    md_path.write_text(twin, encoding="utf-8")
    return ReportFiles(html_path, md_path, images)
