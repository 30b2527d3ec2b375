"""The parts of the local store that ingest of real papers added: where a document's file(s)
are, its reference list, and which passages are of which kind.

A document is identified by its content, so one document can sit at several paths (a copy, a
rename): ``sources`` maps each absolute path (internal, for --sync and serving the file) to its
document and to the path shown to users (relative to the folder it was ingested from).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Sequence

from lastword.store.protocol import ReferenceEntry

SCHEMA = """
CREATE TABLE IF NOT EXISTS sources (
    source TEXT PRIMARY KEY,
    doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    path TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sources_doc ON sources(doc_id);
CREATE TABLE IF NOT EXISTS bibliography (
    doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS bibliography_doc ON bibliography(doc_id);
"""


def _chunks(items: Sequence[str], size: int = 500):  # type: ignore[no-untyped-def]
    for start in range(0, len(items), size):
        yield items[start : start + size]


class StoreExtras:
    """Mixed into ``LocalStore``: sources, references, kinds."""

    _conn: sqlite3.Connection

    def _begin_if_needed(self) -> None: ...  # provided by LocalStore

    def _generation(self) -> int: ...  # provided by LocalStore

    # ----------------------------------------------------------------- sources
    def put_references(self, doc_id: str, entries: Sequence[ReferenceEntry]) -> None:
        self._conn.executemany(
            "INSERT INTO bibliography(doc_id, number, text) VALUES(?, ?, ?)",
            [(doc_id, e.number, e.text) for e in entries],
        )

    def add_source(self, doc_id: str, source: str, path: str) -> None:
        """Record that ``doc_id`` is (also) at ``source``; ``path`` is what users see."""
        self._begin_if_needed()
        self._conn.execute(
            "INSERT INTO sources(source, doc_id, path) VALUES(?, ?, ?) "
            "ON CONFLICT(source) DO UPDATE SET doc_id = excluded.doc_id, path = excluded.path",
            (source, doc_id, path),
        )
        self._refresh_paths(doc_id)

    def remove_source(self, source: str) -> str | None:
        """Forget one path; returns the document left without any path (to remove), if any."""
        row = self._conn.execute(
            "SELECT doc_id FROM sources WHERE source = ?", (source,)
        ).fetchone()
        if row is None:
            return None
        self._begin_if_needed()
        self._conn.execute("DELETE FROM sources WHERE source = ?", (source,))
        left = self._conn.execute(
            "SELECT COUNT(*) FROM sources WHERE doc_id = ?", (row[0],)
        ).fetchone()[0]
        if left:
            self._refresh_paths(row[0])
            return None
        return str(row[0])

    def _refresh_paths(self, doc_id: str) -> None:
        rows = self._conn.execute(
            "SELECT source, path FROM sources WHERE doc_id = ? ORDER BY rowid", (doc_id,)
        ).fetchall()
        found = self._conn.execute(
            "SELECT metadata FROM documents WHERE doc_id = ?", (doc_id,)
        ).fetchone()
        if found is None or not rows:
            return
        metadata = json.loads(found[0])
        paths = list(dict.fromkeys(row[1] for row in rows))
        metadata["path"] = paths[0]
        metadata["paths"] = paths
        self._conn.execute(
            "UPDATE documents SET metadata = ?, source = ? WHERE doc_id = ?",
            (json.dumps(metadata, ensure_ascii=False, sort_keys=True), rows[0][0], doc_id),
        )

    def sources(self) -> dict[str, str]:
        """Absolute source path -> doc_id, for every recorded path (internal)."""
        return dict(self._conn.execute("SELECT source, doc_id FROM sources").fetchall())

    # ----------------------------------------------------------------- references
    def references(self, doc_ids: Collection[str]) -> dict[str, list[ReferenceEntry]]:
        out: dict[str, list[ReferenceEntry]] = {}
        for chunk in _chunks(list(doc_ids)):
            marks = ",".join("?" * len(chunk))
            rows = self._conn.execute(
                f"SELECT doc_id, number, text FROM bibliography WHERE doc_id IN ({marks}) "
                "ORDER BY doc_id, rowid",
                chunk,
            )
            for doc_id, number, text in rows:
                out.setdefault(doc_id, []).append(ReferenceEntry(number=number, text=text))
        return out

    # ----------------------------------------------------------------- kinds
    def kind_counts(self) -> dict[str, int]:
        rows = self._conn.execute("SELECT kind, COUNT(*) FROM passages GROUP BY kind ORDER BY kind")
        return {row[0]: row[1] for row in rows}
