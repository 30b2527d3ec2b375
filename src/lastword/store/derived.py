"""The derived files of the local store, and approximate search through them.

    DIR/vectors-<gen>.npy   the passage vectors as one float32 matrix, memory-mapped for search
    DIR/ids-<gen>.npy       the passage id of each matrix row (ascending)
    DIR/lexicon-<gen>.json  passage frequency of every term (IDF for the gate's lexical signal)
    DIR/hnsw-<gen>.bin      an HNSW graph over the matrix, from [store] ann_min_passages on
    DIR/hnswsq8-<gen>.faiss the same graph's links over 8-bit (or hnswsq4: 4-bit) codes of the
                            rows, searched by faiss ([store] ann_codes): store/graph_codes.py
    DIR/ivf-<gen>.np[yz]    or inverted lists ([store] ann = "ivf"): store/ivf.py
    DIR/ivfpq-<gen>.faiss   or inverted lists of 4-bit codes ([store] ann = "ivfpq"): store/ivfpq.py
    DIR/postings-<gen>.npz  the lexical index's postings for BM25 in memory (store/bm25.py),
                            written by the writer, or by the first process that needs them

All of them are derived from ``index.sqlite`` (the source of truth) and tagged with the
generation they were built from. A writer writes them after it commits (``refresh_derived``);
a reader that finds the matrix stale or damaged rebuilds it (``store/check.py``), and one that
finds no graph for its generation searches exactly. Mixed into ``LocalStore``, which provides
the connection, the meta table and the writer's lock.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections import Counter
from collections.abc import Collection
from pathlib import Path

import numpy as np

from lastword.embed.protocol import EmbedderInfo
from lastword.settings import StoreSettings
from lastword.store import ann, bm25, check, graph_codes, ivf, ivfpq
from lastword.store.files import TMP_PREFIX, fsync_directory, write_atomically
from lastword.store.library import ScopeRows
from lastword.terms import terms

#: the derived files' suffixes and name prefixes (older generations' are removed; "hnsw":
#: the graph and its codes)
_SUFFIXES = (".npy", ".npz", ".json", ".bin", ".faiss")
_PREFIXES = ("vectors-", "ids-", "lexicon-", "hnsw", "ivf-", "ivfpq-", "postings-")


class DerivedFiles:
    """Mixed into ``LocalStore``: the matrix, ids, lexicon and graph files, and graph search."""

    directory: Path
    settings: StoreSettings
    _conn: sqlite3.Connection
    _lock_fd: int | None
    _matrix: np.ndarray | None
    _ids: np.ndarray | None
    _matrix_generation: int
    _lexicon: tuple[int, dict[str, int]] | None
    _lexicon_generation: int
    _graph: object | None
    _graph_generation: int
    #: each row's kind as a code, the codes by name, and the whole-matrix masks asked for so far
    _kind_codes: tuple[np.ndarray, dict[str, int], dict[frozenset[str], np.ndarray]] | None
    _kind_generation: int
    _postings: object | None
    _postings_generation: int

    def _meta(self, key: str) -> str | None: ...  # provided by LocalStore

    def _set_meta(self, key: str, value: str) -> None: ...  # provided by LocalStore

    def _generation(self) -> int: ...  # provided by LocalStore

    def _current_postings(self) -> object | None: ...  # provided by LocalStore

    @property
    def embedder(self) -> EmbedderInfo: ...  # provided by LocalStore

    def _remove_stray_files(self) -> None:
        """Temp files of a killed writer and matrices of older generations."""
        current = self._meta("generation")
        for path in self.directory.iterdir():
            stale_tmp = path.name.startswith(TMP_PREFIX)
            derived = path.suffix in _SUFFIXES and path.stem.startswith(_PREFIXES)
            old_matrix = derived and not path.stem.endswith(f"-{current}")
            if stale_tmp or old_matrix:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()

    # ----------------------------------------------------------------- the files
    def _matrix_paths(self, generation: int) -> tuple[Path, Path]:
        return (
            self.directory / f"vectors-{generation}.npy",
            self.directory / f"ids-{generation}.npy",
        )

    @property
    def generation(self) -> int:
        """The committed generation the derived files are tagged with."""
        return self._generation()

    def refresh_derived(self, force: bool = False) -> None:
        """Write the matrix (and graph) of the committed generation (writers, after commits).

        ``force`` rewrites files that exist (they were found damaged: ``store/check.py``).
        """
        generation = self._generation()
        vectors_path, ids_path = self._matrix_paths(generation)
        if force or not (vectors_path.exists() and ids_path.exists()):
            vectors, ids = self._read_vectors()
            if self._lock_fd is not None and not self._conn.in_transaction:
                digest = check.matrix_checksum(vectors, ids)
                self._set_meta(check.CHECKSUM_KEY, f"{generation}:{digest}")
            write_atomically(self._lexicon_path(generation), self._count_terms())
            for path, array in ((ids_path, ids), (vectors_path, vectors)):
                write_atomically(path, array)
            fsync_directory(self.directory)
        if self._lock_fd is not None:
            self._refresh_graph(generation)
            if not self._conn.in_transaction:
                self._current_postings()  # built and saved now, not at the first question
            self._remove_stray_files()

    refresh_matrix = refresh_derived  # the name callers used before the Store protocol had one

    def _refresh_graph(self, generation: int) -> None:
        vectors_path, ids_path = self._matrix_paths(generation)
        ids = np.load(ids_path)
        if len(ids) < self.settings.ann_min_passages:
            return
        if self.settings.ann == "ivf":
            self._refresh_lists(generation, vectors_path, ids)
            return
        if self.settings.ann == "ivfpq":
            if not ivfpq.path(self.directory, generation).exists():
                old = None
                found = ivfpq.previous(self.directory, generation)
                if found is not None and self._matrix_paths(found)[1].exists():
                    old = (found, np.load(self._matrix_paths(found)[1]))
                matrix = np.load(vectors_path, mmap_mode="r")
                ivfpq.refresh(
                    self.directory, generation, matrix, ids, lists=self.settings.ivf_lists, old=old
                )
                fsync_directory(self.directory)
            return
        path = ann.graph_path(self.directory, generation)
        if not path.exists():
            self._build_graph(generation, vectors_path, ids, path)
        if self.settings.ann_codes != "float32":
            codes = self.settings.ann_codes
            if not graph_codes.path(self.directory, generation, codes).exists():
                graph_codes.refresh(self.directory, generation, codes)
                fsync_directory(self.directory)

    def _build_graph(self, generation: int, vectors_path: Path, ids: np.ndarray, path: Path):
        matrix = np.load(vectors_path, mmap_mode="r")
        previous = None
        found = ann.previous_graph(self.directory, generation)
        if found is not None:
            old_ids_path = self._matrix_paths(found[0])[1]
            if old_ids_path.exists():
                previous = (found[1], np.load(old_ids_path))
        graph = ann.build_graph(
            matrix,
            ids,
            m=self.settings.ann_m,
            ef_construction=self.settings.ann_ef_construction,
            previous=previous,
        )
        ann.save_graph(graph, path)
        fsync_directory(self.directory)

    def _refresh_lists(self, generation: int, vectors_path: Path, ids: np.ndarray) -> None:
        if ivf.paths(self.directory, generation)[1].exists():
            return
        matrix = np.load(vectors_path, mmap_mode="r")
        old = None
        found = ivf.previous(self.directory, generation)
        if found is not None and self._matrix_paths(found)[1].exists():
            old = (found, np.load(self._matrix_paths(found)[1]))
        ivf.build(self.directory, generation, matrix, ids, lists=self.settings.ivf_lists, old=old)
        fsync_directory(self.directory)

    def _lexicon_path(self, generation: int) -> Path:
        return self.directory / f"lexicon-{generation}.json"

    def _count_terms(self) -> dict:
        counts: Counter[str] = Counter()
        total = 0
        for (text,) in self._conn.execute("SELECT text FROM passages"):
            counts.update(terms(text))
            total += 1
        return {"passages": total, "terms": dict(counts)}

    def lexicon(self) -> tuple[int, dict[str, int]]:
        """(number of passages, passages containing each term) for the committed corpus."""
        generation = self._generation()
        if self._lexicon is not None and self._lexicon_generation == generation:
            return self._lexicon
        data = check.read_lexicon(self._lexicon_path(generation))
        if data is None:  # missing or damaged: count again
            data = self._count_terms()
            if os.access(self.directory, os.W_OK):
                with contextlib.suppress(OSError):
                    write_atomically(self._lexicon_path(generation), data)
        self._lexicon = (int(data["passages"]), data["terms"])
        self._lexicon_generation = generation
        return self._lexicon

    def _read_vectors(self) -> tuple[np.ndarray, np.ndarray]:
        dim = self.embedder.dim
        count = self._conn.execute("SELECT COUNT(*) FROM passages").fetchone()[0]
        vectors = np.empty((count, dim), dtype=np.float32)
        ids = np.empty(count, dtype=np.int64)
        cursor = self._conn.execute("SELECT id, vector FROM passages ORDER BY id")
        for row_number, (passage_id, blob) in enumerate(cursor):
            ids[row_number] = passage_id
            vectors[row_number] = np.frombuffer(blob, dtype="<f4")
        return vectors, ids

    def _load_matrix(self) -> tuple[np.ndarray, np.ndarray]:
        generation = self._generation()
        if self._matrix is not None and self._matrix_generation == generation:
            return self._matrix, self._ids  # type: ignore[return-value]
        matrix, ids = check.load_matrix(self)  # verified against SQLite, else rebuilt
        self._matrix, self._ids, self._matrix_generation = matrix, ids, generation
        return matrix, ids

    def rebuild_derived(self) -> list[str]:
        """Rewrite this generation's matrix, ids and lexicon from SQLite; their file names."""
        generation = self._generation()
        self.refresh_matrix(force=True)
        self._lexicon = None
        # the lexical postings are built again from SQLite at the next lexical search
        with contextlib.suppress(FileNotFoundError):
            bm25.postings_path(self.directory, generation).unlink()
        self._postings, self._postings_generation = None, -1
        return [p.name for p in (*self._matrix_paths(generation), self._lexicon_path(generation))]

    # ----------------------------------------------------------------- graph search
    def _search_graph(
        self,
        matrix: np.ndarray,
        ids: np.ndarray,
        query: np.ndarray,
        k: int,
        excluded: np.ndarray | None,
        kinds: Collection[str] | None,
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """(rows, exact scores) of the top k through the graph; None: search exactly instead."""
        graph = self._load_graph(len(ids), matrix.shape[1])
        if graph is None:
            return None

        def keep(rows: np.ndarray) -> np.ndarray:
            mask = np.ones(len(rows), dtype=bool)
            if excluded is not None and len(excluded):
                mask &= ~np.isin(ids[rows], excluded)
            if kinds is not None:
                mask &= self._kind_mask(kinds, rows)
            return mask

        filtered = (excluded is not None and len(excluded) > 0) or kinds is not None
        if ivfpq.is_index(graph):
            return ivfpq.search(
                graph,
                matrix,
                ids,
                query,
                k,
                probes=self.settings.ivfpq_probes * (2 if filtered else 1),
                candidates=self.settings.ivfpq_candidates * (4 if filtered else 1),
                keep=keep if filtered else None,
            )
        if isinstance(graph, ivf.Lists):
            return ivf.search(
                graph,
                query,
                k,
                probes=self.settings.ivf_probes * (2 if filtered else 1),
                keep=keep if filtered else None,
            )
        return ann.search(
            graph,
            matrix,
            ids,
            query,
            k,
            candidates=self.settings.ann_candidates * (4 if filtered else 1),
            keep=keep if filtered else None,
            # the graph walked by faiss over codes of its rows, or by hnswlib over float32
            walk=graph_codes.neighbours if isinstance(graph, graph_codes.CodedGraph) else None,
        )

    def _search_graph_within(
        self,
        matrix: np.ndarray,
        ids: np.ndarray,
        query: np.ndarray,
        k: int,
        excluded: np.ndarray | None,
        kinds: Collection[str] | None,
        scoped: ScopeRows,
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """(rows, exact scores) of the top k among a scope's matrix rows through the
        graph: hnswlib's walk admits only their passages as results (a filter inside the
        search, not candidates dropped after it), inverted lists scan only them. None: no
        graph, or one of a kind that cannot filter inside (search the rows exactly)."""
        graph = self._load_graph(len(ids), matrix.shape[1])
        if graph is None or ivfpq.is_index(graph) or isinstance(graph, graph_codes.CodedGraph):
            return None
        within, bits = scoped.mask, scoped.bits
        if (excluded is not None and len(excluded)) or kinds is not None:
            within = within.copy()  # rare: exclusions (evaluation) or kinds, built per search
            if excluded is not None and len(excluded):
                within &= ~np.isin(ids, excluded)
            if kinds is not None:
                within &= self._kind_mask(kinds, None)
            flags = np.zeros(int(ids[-1]) + 1, dtype=np.uint8)
            flags[ids[within]] = 1
            bits = flags.tobytes()
        admitted = int(within.sum()) if within is not scoped.mask else len(scoped.rows)
        if not admitted:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
        if isinstance(graph, ivf.Lists):
            return ivf.search(
                graph, query, k, probes=self.settings.ivf_probes * 2, keep=lambda r: within[r]
            )
        # the walk keeps ef admitted candidates; as a share of all rows they are sparser, so
        # it looks as far as the unfiltered walk would among the same number of rows
        share = max(admitted / len(ids), 1e-3)
        wanted = min(int(max(self.settings.ann_candidates, k) / share), 2000, admitted)
        # bytes.__getitem__: hnswlib calls it per node reached, with no Python frame
        labels = ann.neighbours_within(graph, query, wanted, bits.__getitem__)
        return ann.rescore(labels, matrix, ids, query, k, keep=lambda r: within[r])

    def _load_graph(self, passages: int, dim: int) -> object | None:
        if passages < self.settings.ann_min_passages:
            return None
        generation = self._matrix_generation
        if self._graph_generation != generation:
            # Missing (a writer died before building it): search exactly until one is written.
            if self.settings.ann == "ivf":
                assert self._matrix is not None
                self._graph = ivf.load(self.directory, generation, self._matrix)
            elif self.settings.ann == "ivfpq":
                self._graph = ivfpq.load(ivfpq.path(self.directory, generation), passages)
            else:
                self._graph = None
                ef = self.settings.ann_ef_search
                if self.settings.ann_codes != "float32":  # none yet: the float32 graph
                    path = graph_codes.path(self.directory, generation, self.settings.ann_codes)
                    self._graph = graph_codes.load(path, passages, ef)
                if self._graph is None:
                    path = ann.graph_path(self.directory, generation)
                    self._graph = ann.load_graph(path, dim, ef)
            self._graph_generation = generation
        return self._graph

    def _kind_mask(self, kinds: Collection[str], rows: np.ndarray | None) -> np.ndarray:
        """Which matrix rows (all, or ``rows``) hold a passage of one of ``kinds``."""
        generation = self._matrix_generation
        if self._kind_codes is None or self._kind_generation != generation:
            names = [row[0] for row in self._conn.execute("SELECT kind FROM passages ORDER BY id")]
            table: dict[str, int] = {}
            codes = np.fromiter(
                (table.setdefault(name, len(table)) for name in names),
                dtype=np.int16,
                count=len(names),
            )
            self._kind_codes, self._kind_generation = (codes, table, {}), generation
        codes, table, masks = self._kind_codes
        if self._ids is not None and len(codes) != len(self._ids):  # a write landed in between
            self._kind_generation = -1
            allowed = self._passage_ids_of_kinds(kinds)
            selected_ids = self._ids if rows is None else self._ids[rows]
            return np.isin(selected_ids, allowed)
        if rows is None and (mask := masks.get(frozenset(kinds))) is not None:
            return mask  # every question asks for the same evidence kinds: kept, read-only
        wanted = np.array([table[name] for name in kinds if name in table], dtype=np.int16)
        selected = codes if rows is None else codes[rows]
        mask = np.isin(selected, wanted)
        if rows is None:
            mask.flags.writeable = False
            masks[frozenset(kinds)] = mask
        return mask

    def _passage_ids_of_kinds(self, kinds: Collection[str]) -> np.ndarray:
        kinds = list(kinds)
        marks = ",".join("?" * len(kinds))
        rows = self._conn.execute(f"SELECT id FROM passages WHERE kind IN ({marks})", kinds)
        return np.array([row[0] for row in rows], dtype=np.int64)
