"""Metadata from a reference manager's export, matched to the real papers: a Better BibTeX
.bib (by its file field), CSL-JSON (by the DOI on page 1, else the title) and RIS (by DOI or
title); a tampered entry reported and not applied; a changed .bib updates without re-embedding."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from lastword.ingest.library import apply_library, read_library
from lastword.settings import StoreSettings
from lastword.store import open_store
from tests.library.conftest import POULTRY, better_bibtex, csl_json, key, ris
from tests.library.papers_records import PAPERS

BY_FILE = {p["file"]: p for p in PAPERS}


def _writer(index: Path):
    with open_store(StoreSettings(), index) as reader:
        embedder = reader.embedder
    return open_store(StoreSettings(), index, write_as=embedder)


def _stored(index: Path) -> dict[str, tuple[str, dict]]:
    """file name -> (title, metadata) of every stored document."""
    with open_store(StoreSettings(), index) as store:
        return {r.metadata["path"]: (r.title, r.metadata) for r in store.documents()}


def _assert_all_applied(index: Path) -> None:
    stored = _stored(index)
    assert len(stored) == 20
    for name, (title, meta) in stored.items():
        paper = BY_FILE[name]
        assert title == paper["title"]
        assert meta["year"] == paper["year"]
        assert meta["doi"] == paper["doi"].lower()
        assert meta["citekey"] == key(paper)
        assert [a.split()[-1] for a in meta["authors"]] == [a.split()[-1] for a in paper["authors"]]
        assert meta["tags"] == paper["tags"]


def test_better_bibtex_matches_every_paper_by_its_file(papers_index: Path, tmp_path: Path):
    bib = tmp_path / "library.bib"
    bib.write_text(better_bibtex(), encoding="utf-8")
    entries, unreadable = read_library(bib)
    assert len(entries) == 20 and not unreadable
    with _writer(papers_index) as store:
        report = apply_library(store, bib)
        assert {m.how for m in report.matched} == {"file"} and len(report.matched) == 20
        assert not (report.unmatched_documents or report.unmatched_entries or report.conflicts)
        counts = {c.name: c.documents for c in store.collections()}
    assert counts == {"Poultry": len(POULTRY), "Other": 20 - len(POULTRY)}
    _assert_all_applied(papers_index)


def test_csl_json_matches_by_doi_on_page_one_then_title(papers_index: Path, tmp_path: Path):
    path = tmp_path / "library.json"
    path.write_text(csl_json(), encoding="utf-8")
    with _writer(papers_index) as store:
        report = apply_library(store, path)
    how = {m.shown: m.how for m in report.matched}
    assert len(how) == 20 and not report.conflicts
    # two papers print no DOI on their first page (and one prints it cut by a line break)
    assert how["ace_inhibitor_design.pdf"] == "title"
    assert how["essential_oils_small_fruits.pdf"] == "title"
    assert sum(1 for h in how.values() if h == "doi") >= 17
    _assert_all_applied(papers_index)


def test_ris_matches_with_and_without_dois(papers_index: Path, tmp_path: Path):
    path = tmp_path / "library.ris"
    no_doi = frozenset(sorted(BY_FILE)[:6])
    path.write_text(ris(without_doi=no_doi), encoding="utf-8")
    with _writer(papers_index) as store:
        report = apply_library(store, path)
    how = {m.shown: m.how for m in report.matched}
    assert len(how) == 20 and not report.conflicts
    assert all(how[name] == "title" for name in no_doi)
    stored = _stored(papers_index)
    for name, (_, meta) in stored.items():
        assert meta["year"] == BY_FILE[name]["year"]
        assert len(meta["authors"]) == len(BY_FILE[name]["authors"])
        if name not in no_doi:
            assert meta["doi"] == BY_FILE[name]["doi"].lower()


def test_a_tampered_entry_is_reported_and_not_applied(papers_index: Path, tmp_path: Path):
    text = better_bibtex()
    panda = BY_FILE["panda_milk.pdf"]
    # the entry still names the file, but carries another paper's DOI
    text = text.replace(panda["doi"], "10.1155/2014/801626")
    # an entry whose title, DOI and file no longer point at anything stored
    frog = BY_FILE["fanged_frog.pdf"]
    text = text.replace(frog["title"], "A Completely Different Paper About Toads")
    text = text.replace(frog["doi"], "10.9999/nothing.1")
    text = text.replace(f"/{frog['file']}", "/toads.pdf")
    bib = tmp_path / "library.bib"
    bib.write_text(text, encoding="utf-8")
    with _writer(papers_index) as store:
        report = apply_library(store, bib)
    lines = "\n".join(report.lines())
    assert any("panda_milk.pdf" in c and "10.1098/rsos.150395" in c for c in report.conflicts)
    assert "fanged_frog.pdf" in report.unmatched_documents
    assert key(frog) in report.unmatched_entries and key(panda) in report.unmatched_entries
    assert len(report.matched) == 18
    assert "conflict: panda_milk.pdf" in lines and "no entry for document: fanged_frog.pdf" in lines
    stored = _stored(papers_index)
    assert "citekey" not in stored["panda_milk.pdf"][1]  # nothing guessed
    assert "citekey" not in stored["fanged_frog.pdf"][1]


def test_reingest_with_a_changed_bib_updates_without_embedding(
    papers_index: Path, tmp_path: Path, cli, datasets_dir: Path
):
    bib = tmp_path / "library.bib"
    bib.write_text(better_bibtex(), encoding="utf-8")
    files = [datasets_dir / "papers" / name for name in sorted(BY_FILE)]
    first = cli("ingest", *files, "--index", papers_index, "--bib", bib, "--collection", "Lab")
    assert first.code == 0, first.err
    assert "0 passages embedded" in first.out
    assert re.search(r"20 entries, 20 documents matched \(20 by file\), 20 updated", first.out)
    with open_store(StoreSettings(), papers_index) as store:
        doc = next(r.doc_id for r in store.documents() if r.metadata["path"] == "panda_milk.pdf")
        vectors = store.export_document(doc)[1]
    panda = BY_FILE["panda_milk.pdf"]
    changed = better_bibtex().replace(
        f"date = {{{panda['year']}}},\n  journaltitle = {{{panda['venue']}",
        f"date = {{1999}},\n  journaltitle = {{{panda['venue']}",
    )
    bib.write_text(changed, encoding="utf-8")
    second = cli("ingest", *files, "--index", papers_index, "--bib", bib)
    assert second.code == 0, second.err
    assert "0 passages embedded" in second.out and ", 1 updated" in second.out
    assert _stored(papers_index)["panda_milk.pdf"][1]["year"] == 1999
    with open_store(StoreSettings(), papers_index) as store:
        assert np.array_equal(store.export_document(doc)[1], vectors)
        assert {c.name: c.documents for c in store.collections()}["Lab"] == 20
    listed = cli("sources", "--index", papers_index)
    row = next(line for line in listed.out.splitlines() if "panda_milk.pdf" in line)
    assert "1999" in row and panda["authors"][0].split()[-1] in row
    found = cli(
        "inspect", "colostrum milk panda", "--index", papers_index, "--year", "..2000", "--json"
    )
    assert found.code == 0, found.err
    assert '"year": 1999' in found.out


@pytest.mark.parametrize("name", ["library.txt.bak", "library.docx"])
def test_an_unknown_library_format_is_one_clear_error(tmp_path: Path, name: str):
    from lastword.errors import InputError

    path = tmp_path / name
    path.write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match=r"lastword reads \.bib"):
        read_library(path)
