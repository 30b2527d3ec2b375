"""Symbolic links in an ingested folder (issue 16): kept only inside it; a bad one: an error."""

from __future__ import annotations

import os
from pathlib import Path

from lastword.ingest import find_files, ingest_paths
from lastword.settings import IngestSettings
from lastword.store.local import LocalStore

TEXT = "Zinc lozenges shortened colds by two days in a trial of 120 adults. " * 3
OUTSIDE = "The outside secret says the dose is 900 mg. " * 3


def folder_with_links(tmp_path: Path) -> Path:
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "zinc.txt").write_text(TEXT, encoding="utf-8")
    secret = tmp_path / "secret.txt"
    secret.write_text(OUTSIDE, encoding="utf-8")
    os.symlink(folder / "zinc.txt", folder / "inside-link.md")  # inside: followed
    os.symlink(secret, folder / "outside.txt")  # outside the folder: not followed
    os.symlink(tmp_path / "gone.txt", folder / "dangling.txt")  # broken
    os.symlink("/etc/hostname", folder / "hostname.txt")  # a system file, no reader suffix
    os.symlink(folder / "loop.txt", folder / "loop.txt")  # a loop
    return folder


def source_paths(index: Path) -> list[str]:
    """Every path a stored document is known at (one file under two names: one document)."""
    with LocalStore.open(index) as store:
        return sorted(store.sources())


def test_links_inside_are_followed_outside_and_broken_ones_are_one_error_each(tmp_path, minilm):
    folder = folder_with_links(tmp_path)
    index = tmp_path / "index"

    report = ingest_paths([folder], index, minilm, IngestSettings())

    failed = {Path(e.source).name: e.reason for e in report.failed}
    assert set(failed) == {"outside.txt", "dangling.txt", "hostname.txt", "loop.txt"}
    assert "outside the ingested folder" in failed["outside.txt"]
    assert "follow_symlinks_outside" in failed["outside.txt"]
    assert "broken symbolic link" in failed["dangling.txt"]
    assert "broken symbolic link" in failed["loop.txt"]
    assert all(str(tmp_path / "secret.txt") not in reason for reason in failed.values())
    sources = [Path(s).name for s in source_paths(index)]
    # The run went on; the inside link is followed to its target, a file already ingested:
    # one file under two names is one document.
    assert sources == ["zinc.txt"]
    assert "inside-link.md" not in failed
    with LocalStore.open(index) as store:
        assert store.info().documents == 1
        texts = " ".join(store.document_text(d.doc_id) for d in store.documents())
    assert "outside secret" not in texts and "Zinc lozenges" in texts


def test_a_setting_allows_links_that_lead_outside(tmp_path):
    folder = folder_with_links(tmp_path)
    files, problems = find_files([folder], follow_symlinks_outside=True)
    assert "outside.txt" in [f.name for f in files]
    assert {Path(p.source).name for p in problems} == {"dangling.txt", "loop.txt"} | (
        set() if Path("/etc/hostname").is_file() else {"hostname.txt"}
    )
