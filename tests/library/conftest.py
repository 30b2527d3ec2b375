"""The papers set ingested once (the real 20 PDFs, the real MiniLM), and its exports as a
reference manager writes them: Better BibTeX (BibLaTeX), CSL-JSON and RIS."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.conftest import cli  # noqa: F401
from tests.library.papers_records import PAPERS

#: two collections over the papers: the poultry / feed / food-safety ones, and the others
POULTRY = {
    "broiler_garlic_basil.pdf",
    "poultry_feed_toxicity.pdf",
    "h9n2_egg_antiviral.pdf",
    "fusarium_zearalenone_maize.pdf",
    "fusarium_wheat_volatiles.pdf",
    "essential_oils_small_fruits.pdf",
    "ocimum_antimicrobial.pdf",
    "adenovirus_gastroenteritis.pdf",
    "tularemia_coyote.pdf",
    "cryptococcus_eucalyptus.pdf",
}


def key(paper: dict) -> str:
    """A Better BibTeX citation key: family name of the first author, first title word, year."""
    family = paper["authors"][0].split()[-1].lower()
    word = next(w for w in paper["title"].split() if len(w) > 3).strip('“”"(),:').capitalize()
    return f"{family}{word}{paper['year']}"


def _family_given(name: str) -> tuple[str, str]:
    parts = name.split()
    return parts[-1], " ".join(parts[:-1])


def better_bibtex(papers: list[dict] = PAPERS) -> str:
    """BibLaTeX as Zotero's Better BibTeX exports it (date, journaltitle, file, keywords), with
    the Zotero collection in ``groups``."""
    out = []
    for p in papers:
        authors = " and ".join("{}, {}".format(*_family_given(a)) for a in p["authors"])
        group = "Poultry" if p["file"] in POULTRY else "Other"
        out.append(
            f"@article{{{key(p)},\n"
            f"  title = {{{p['title']}}},\n"
            f"  author = {{{authors}}},\n"
            f"  date = {{{p['year']}}},\n"
            f"  journaltitle = {{{p['venue']}}},\n"
            f"  doi = {{{p['doi']}}},\n"
            f"  keywords = {{{','.join(p['tags'])}}},\n"
            f"  file = {{/home/lab/Zotero/storage/{key(p)[:8].upper()}/{p['file']}}},\n"
            f"  groups = {{{group}}}\n"
            "}\n"
        )
    return "\n".join(out)


def csl_json(papers: list[dict] = PAPERS) -> str:
    """CSL-JSON as Zotero exports it (no file paths: matched by DOI on page 1, else title)."""
    items = []
    for p in papers:
        items.append(
            {
                "id": key(p),
                "type": "article-journal",
                "title": p["title"],
                "author": [{"family": f, "given": g} for f, g in map(_family_given, p["authors"])],
                "issued": {"date-parts": [[p["year"]]]},
                "container-title": p["venue"],
                "DOI": p["doi"],
                "keyword": ", ".join(p["tags"]),
            }
        )
    return json.dumps(items, indent=2, ensure_ascii=False)


def ris(papers: list[dict] = PAPERS, without_doi: frozenset[str] = frozenset()) -> str:
    """RIS as Mendeley / EndNote export it; papers in ``without_doi`` carry no DO line."""
    out = []
    for p in papers:
        lines = ["TY  - JOUR", f"TI  - {p['title']}"]
        lines += ["AU  - {}, {}".format(*_family_given(a)) for a in p["authors"]]
        lines += [f"PY  - {p['year']}", f"JO  - {p['venue']}"]
        if p["file"] not in without_doi:
            lines.append(f"DO  - {p['doi']}")
        lines += [f"KW  - {t}" for t in p["tags"]]
        lines += [f"ID  - {key(p)}", "ER  - "]
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


@pytest.fixture(scope="session")
def papers_index_built(tmp_path_factory: pytest.TempPathFactory, datasets_dir: Path, minilm):
    """The 20 papers (PDFs only) ingested once with the default settings."""
    from lastword.ingest import ingest_paths
    from lastword.settings import IngestSettings

    folder = datasets_dir / "papers"
    index = tmp_path_factory.mktemp("papers") / "index"
    report = ingest_paths(sorted(folder.glob("*.pdf")), index, minilm, IngestSettings())
    assert len(report.added) == 20 and not report.failed
    return index


@pytest.fixture
def papers_index(papers_index_built: Path, tmp_path: Path) -> Path:
    """A copy of the papers index this test may change."""
    target = tmp_path / "index"
    shutil.copytree(papers_index_built, target, ignore=shutil.ignore_patterns("index.lock"))
    return target
