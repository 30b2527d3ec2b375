"""End to end in Debian's Chromium (Playwright): the real server, the real model, a real PDF.

Screenshots of every page land in artifacts/screenshots/ (laptop and phone widths).
"""

from __future__ import annotations

import re
import shutil
import tomllib
from pathlib import Path

import pytest

from tests.conftest import REPO, make_pdf
from tests.web.conftest import ADMIN

CHROMIUM = Path("/usr/bin/chromium")
SHOTS = REPO / "artifacts" / "screenshots"
LAPTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}
SECRET = "BSAsecretTestKey0123456789"

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists() or shutil.which("chromium") is None, reason="chromium not installed"
)

ZINC_TEXT = (
    "Zinc lozenges and the duration of the common cold: a randomised trial in 240 office "
    "workers. Adults who started zinc acetate lozenges within 24 hours of their first cold "
    "symptoms recovered after a median of 4.5 days, against 7.1 days with placebo lozenges. "
    "Zinc lozenges shortened the common cold by about two and a half days. Nausea and a bad "
    "taste were the most common side effects of the zinc lozenges."
)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM),
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_the_whole_site_in_a_browser(site, browser, tmp_path):
    from playwright.sync_api import expect

    context = browser.new_context(viewport=LAPTOP, base_url=site.base)
    context.set_default_timeout(90_000)
    expect.set_options(timeout=90_000)  # the machine may be busy: wait for pages, not fail
    page = context.new_page()
    # The Content-Security-Policy must not break the site: no violation, no script error.
    problems: list[str] = []
    page.on(
        "console",
        lambda m: (
            problems.append(m.text)
            if m.type == "error" and "Content Security Policy" in m.text
            else None
        ),
    )
    page.on("pageerror", lambda exc: problems.append(str(exc)))

    # Log in: an anonymous visit lands on the login form.
    page.goto("/ask")
    expect(page).to_have_url(f"{site.base}/login?next=/ask")
    page.fill("input[name=name]", ADMIN[0])
    page.fill("input[name=password]", ADMIN[1])
    shot(page, "01-login")
    page.click("button:has-text('Log in')")
    expect(page).to_have_url(f"{site.base}/ask")

    # Ingest a PDF through the Corpus page, watching the job finish.
    pdf = make_pdf(tmp_path / "zinc-colds.pdf", [ZINC_TEXT], title="Zinc lozenges and colds")
    page.goto("/corpus")
    before = int(page.locator("[data-documents]").get_attribute("data-documents"))
    page.evaluate("window.__notReloaded = true")
    page.set_input_files("input[type=file]", str(pdf))
    page.click("button:has-text('Upload and ingest')")
    expect(page.locator('[data-job][data-state="done"]').first).to_be_visible()
    expect(page.locator('tr[data-doc="zinc-colds.pdf"]')).to_be_visible()
    # The count and the table were fetched in place: the page was not reloaded.
    expect(page.locator("[data-documents]")).to_have_attribute("data-documents", str(before + 1))
    assert page.evaluate("window.__notReloaded") is True
    # At 1280 px the table fits its card: no column is pushed out of sight.
    wrap = page.locator("#documents .table-wrap")
    assert wrap.evaluate("e => e.scrollWidth <= e.clientWidth"), "the Corpus table overflows"
    remove = page.locator("#documents button:has-text('Remove')").first
    box = remove.bounding_box()
    assert box is not None and box["x"] + box["width"] <= LAPTOP["width"]
    shot(page, "02-corpus")

    # Ask about the new PDF: the [N] links reach the passage from that PDF.
    page.goto("/ask")
    page.fill("textarea[name=q]", "How much did zinc lozenges shorten the common cold?")
    page.click("button:has-text('Ask')")
    result = page.locator("#result")
    expect(result).to_have_attribute("data-status", "answered")
    expect(page.locator(".badge[data-band]")).to_be_visible()
    links = page.locator("a.cite")
    assert links.count() >= 1
    first = links.first
    n = first.get_attribute("data-n")
    first.click()
    expect(page).to_have_url(
        f"{site.base}/ask?q=How%20much%20did%20zinc%20lozenges%20shorten%20the%20common%20cold%3F#passage-{n}"
    )
    target = page.locator(f"#passage-{n}")
    expect(target).to_have_attribute("data-doc", "zinc-colds.pdf")
    assert page.evaluate("document.querySelector(':target').id") == f"passage-{n}"
    assert "4.5 days" in target.inner_text() or "two and a half" in target.inner_text()
    # The cited sentence is highlighted inside the passage; the PDF opens at its page.
    expect(target.locator("mark.cited-sentence").first).to_be_visible()
    href = target.locator("a.open-file").get_attribute("href")
    assert href.startswith("/documents/") and href.endswith("#page=1"), href
    assert page.locator(".badge.not-cited").count() >= 1  # passages retrieved, not used
    shot(page, "03-ask-answer")
    # The same question again: served from the cache, and the page says so.
    page.click("button:has-text('Ask')")
    expect(page.locator(".cached")).to_contain_text("from the cache")
    page.set_viewport_size(PHONE)
    shot(page, "03-ask-answer-phone")
    page.set_viewport_size(LAPTOP)
    # A follow-up is read with the question before it and shown as asked.
    page.fill("textarea[name=q]", "And what side effects did they have?")
    page.click("button:has-text('Ask')")
    expect(page.locator("[data-asked-as]")).to_contain_text("zinc lozenges")
    expect(page.locator("#result")).to_have_attribute("data-status", "answered")
    expect(page.locator("#result .answer")).to_contain_text("Nausea")
    page.click("a.new-conversation")

    # Refusals say who decided: the retrieval gate, and the scope guard.
    for question, decided in (
        ("Who won the 1998 Eurovision Song Contest?", "retrieval_gate"),
        ("Which cryptocurrency should the lab invest its grant in?", "scope_guard"),
    ):
        page.fill("textarea[name=q]", question)
        page.click("button:has-text('Ask')")
        expect(page.locator("#result")).to_have_attribute("data-status", "refused")
        expect(page.locator("[data-decided]")).to_have_attribute("data-decided", decided)
        expect(page.locator(".refusal")).to_contain_text("Not answered:")
    shot(page, "04-ask-refusal")

    # The Inspector: top-k with scores, the thresholds on the bar, the band.
    page.goto("/inspect?q=Does+aerobic+exercise+improve+sleep+in+insomnia%3F&k=5")
    expect(page.locator(".passage")).to_have_count(5)
    expect(page.locator(".scorebar [data-threshold]")).to_have_count(2)
    # The badge shows the score the band was read from (the gate score), like the bar does.
    gate_score = page.locator(".mark-top span").inner_text().removeprefix("gate score ")
    band = re.compile(rf"^(strong|borderline) · {re.escape(gate_score)}$")
    expect(page.locator(".badge[data-band]")).to_have_text(band)
    shot(page, "05-inspector")
    page.set_viewport_size(PHONE)
    shot(page, "05-inspector-phone")
    page.set_viewport_size(LAPTOP)

    # Evaluation: run the shipped demo set in the background, then open its report.
    page.goto("/evaluation")
    page.select_option("select[name=evalset]", "demo.yaml")
    page.click("button:has-text('Run in the background')")
    expect(page.locator("a.report-link").first).to_be_visible(timeout=300_000)
    shot(page, "06-evaluation")
    page.locator("a.report-link").first.click()
    expect(page.locator("h1")).to_contain_text("Evaluation report: demo")
    shot(page, "07-eval-report")

    # Admin: set a key; it is never shown again, not even in the page source.
    page.goto("/admin")
    row = page.locator('.keyrow[data-provider="brave"]')
    row.locator("input[name=key]").fill(SECRET)
    row.locator("button[value=set]").click()
    expect(page.locator(".alert.ok")).to_contain_text("will not be shown again")
    expect(row.locator(".key-status")).to_contain_text("set")
    assert SECRET not in page.content()
    assert row.locator("input[name=key]").input_value() == ""
    assert SECRET not in (site.state_dir / "keys.json").read_text()
    page.reload()
    assert SECRET not in page.content()

    # Admin settings: a new scope term is validated, written to the TOML file and applied.
    box = page.locator("textarea[name=out_of_scope]")
    box.fill(box.input_value() + "\nhoroscope reading")
    page.click("button:has-text('Save settings')")
    expect(page.locator(".alert.ok")).to_contain_text("Settings saved")
    written = tomllib.loads(site.settings_path.read_text())
    assert "horoscope reading" in written["scope"]["out_of_scope"]
    page.fill("input[name=strong]", "0.5")
    page.fill("input[name=weak]", "0.7")  # above strong: the model refuses it
    page.click("button:has-text('Save settings')")
    expect(page.locator(".alert.error")).to_contain_text("weak <= strong")
    page.goto("/admin")
    shot(page, "08-admin")
    page.goto("/ask?q=Is+a+horoscope+reading+useful+for+vitamin+D%3F")
    expect(page.locator("[data-decided]")).to_have_attribute("data-decided", "scope_guard")

    page.set_viewport_size(PHONE)
    page.goto("/corpus")
    shot(page, "02-corpus-phone")
    context.close()
    assert not problems, problems
