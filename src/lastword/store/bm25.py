"""FTS5's BM25 over arrays in memory: the same scores, without scoring row by row in SQLite.

An OR-query of a question's ten-odd terms matches a quarter of a biomedical corpus (3,170 of
13,339 passages for a typical SciFact claim), and FTS5 calls ``bm25()`` once per matching row
through its extension API: 17 ms for the top 100 at 13k passages on this machine, where the
dense search takes a few. ``Postings`` holds what ``bm25()`` reads, taken from the FTS5 table
itself through ``fts5vocab`` (its stemmed terms, per-row term counts and row lengths), and
computes the same formula (``fts5_aux.c``: k1 = 1.2, b = 0.75, IDF floored at 1e-6), operation
for operation in float64, over a whole posting list at a time. The scores are FTS5's to the
last bit (tests/store/test_bm25.py compares them on real abstracts); ties are broken by passage
id, the order in which FTS5 scans its rows.

A question's terms are stemmed by FTS5 itself (a temporary one-column FTS5 table with the same
tokenizer), each distinct term once per process. A term that FTS5 would cut into several
tokens (or none) makes a phrase query this module does not evaluate: ``search`` returns None
and the caller runs the FTS5 query (``lexical.search``). The postings are built once per
committed generation by the process that searches (``LocalStore``), in one read transaction,
for an index of up to ``MAX_PASSAGES`` passages.
"""

from __future__ import annotations

import math
import sqlite3
import threading
import zipfile
from collections.abc import Collection
from pathlib import Path

import numpy as np

from lastword.store.files import written_whole
from lastword.store.lexical import LEXICAL_VERSION, lexical_tokens

K1 = 1.2
B = 0.75
_TABLE = "passages_fts"
_STEMMER = "lw_stem"
_KNOWN_MAX = 200_000  # stems remembered per process
#: past this many passages the postings are not built (memory: ~16 bytes per (term, passage)
#: pair, ~50 pairs a passage, and a build peak of a few times that): FTS5 answers instead
MAX_PASSAGES = 200_000


def postings_path(directory: Path, generation: int) -> Path:
    """Where the postings of an index generation are saved."""
    return directory / f"postings-{generation}.npz"


class Postings:
    """Per stemmed term: the rows holding it and how often; per row: its length in tokens."""

    def __init__(
        self,
        ids: np.ndarray,
        lengths: np.ndarray,
        terms: dict[str, int],
        starts: np.ndarray,
        rows: np.ndarray,
        counts: np.ndarray,
        row_count: int,
        token_total: int,
        kinds: tuple[np.ndarray, dict[str, int]] | None = None,
    ) -> None:
        self.ids = ids  # passage id of each row, ascending
        self.lengths = lengths  # float64 tokens per row (FTS5's xColumnSize)
        self.terms = terms  # stemmed term -> its posting list's number
        self.starts = starts  # posting list i is rows/counts[starts[i]:starts[i + 1]]
        self.rows = rows
        self.counts = counts  # float64 occurrences of the term in the row
        self.row_count = row_count  # FTS5's xRowCount
        self.avgdl = float(token_total) / float(row_count) if row_count else 0.0
        self.kinds = kinds  # each row's kind code, and the codes (None: no kind column)
        # What fts5_aux.c computes per row and phrase, less the IDF factor, once per posting:
        # the same operations in the same order, so the same bits.
        length = lengths[rows]
        self.ratio = (counts * (K1 + 1.0)) / (counts + K1 * (1 - B + B * length / self.avgdl))

    def of_kinds(self, kinds: Collection[str]) -> np.ndarray:
        """A mask of the rows holding a passage of one of ``kinds``."""
        if self.kinds is None:  # an index without kinds holds body passages only
            return np.full(len(self.ids), "body" in kinds)
        codes, table = self.kinds
        return np.isin(codes, [table[name] for name in kinds if name in table])

    @classmethod
    def build(cls, conn: sqlite3.Connection, schema: str = "main") -> Postings:
        """Read the FTS5 table's terms, counts and lengths (call inside one read transaction).

        ``fts5vocab``'s instance table lists every occurrence ordered by term, then row; its
        row table gives each term's number of occurrences, so run lengths over the one column
        of row ids give each (term, row) count without a sort (~1 s at 13k passages).
        """
        vocab = f"lw_{schema}_fts"
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{vocab}_instance "
            f"USING fts5vocab({schema}, {_TABLE}, instance)"
        )
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{vocab}_row "
            f"USING fts5vocab({schema}, {_TABLE}, row)"
        )
        ids = np.array(
            [
                row[0]
                for row in conn.execute(f"SELECT id FROM {schema}.{_TABLE}_docsize ORDER BY id")
            ],
            dtype=np.int64,
        )
        vocabulary = conn.execute(f"SELECT term, doc, cnt FROM temp.{vocab}_row").fetchall()
        joined = conn.execute(f"SELECT group_concat(doc) FROM temp.{vocab}_instance").fetchone()[0]
        docs = np.fromstring(joined or "", dtype=np.int64, sep=",")
        occurrences = np.array([row[2] for row in vocabulary], dtype=np.int64)
        if int(occurrences.sum()) != len(docs):
            raise sqlite3.DatabaseError("the lexical index changed while it was read")
        term_of = np.repeat(np.arange(len(vocabulary), dtype=np.int64), occurrences)
        new = np.ones(len(docs), dtype=bool)
        new[1:] = (term_of[1:] != term_of[:-1]) | (docs[1:] != docs[:-1])
        first = np.flatnonzero(new)
        counts = np.diff(np.append(first, len(docs))).astype(np.float64)
        pair_term = term_of[first]
        starts = np.searchsorted(pair_term, np.arange(len(vocabulary) + 1))
        hits = np.array([row[1] for row in vocabulary], dtype=np.int64)
        if not np.array_equal(np.diff(starts), hits):
            raise sqlite3.DatabaseError("the lexical index's term counts do not add up")
        rows = np.searchsorted(ids, docs[first])
        lengths = np.zeros(len(ids), dtype=np.float64)
        np.add.at(lengths, rows, counts)
        kinds = None
        if any(row[1] == "kind" for row in conn.execute("PRAGMA table_info(passages)")):
            table: dict[str, int] = {}
            of = dict(conn.execute("SELECT id, kind FROM passages").fetchall())
            codes = np.fromiter(
                (table.setdefault(of.get(pid, ""), len(table)) for pid in ids.tolist()),
                dtype=np.int32,
                count=len(ids),
            )
            kinds = (codes, table)
        return cls(
            ids=ids,
            lengths=lengths,
            terms={row[0]: i for i, row in enumerate(vocabulary)},
            starts=starts.astype(np.int64),
            rows=rows.astype(np.int64),
            counts=counts,
            row_count=len(ids),
            token_total=int(counts.sum()),
            kinds=kinds,
        )

    def save(self, path: Path) -> None:
        """Write the postings whole or not at all (``files.written_whole``)."""
        codes, table = self.kinds if self.kinds is not None else (np.zeros(0, np.int32), {})
        arrays = {
            "ids": self.ids,
            "lengths": self.lengths,
            "starts": self.starts,
            "rows": self.rows,
            "counts": self.counts,
            "terms": _text_array(list(self.terms)),
            "kind_codes": codes,
            "kind_names": _text_array(list(table)),
            "has_kinds": np.array([self.kinds is not None]),
            "row_count": np.array([self.row_count], dtype=np.int64),
            "token_total": np.array([int(self.counts.sum())], dtype=np.int64),
            "lexical_version": _text_array([LEXICAL_VERSION]),
        }
        with written_whole(path) as tmp, tmp.open("wb") as out:
            np.savez(out, **arrays)

    @classmethod
    def load(cls, path: Path) -> Postings | None:
        """The postings saved at ``path``; None when missing or damaged (build them again)."""
        try:
            with np.load(path, allow_pickle=False) as data:
                if _text_list(data["lexical_version"]) != [LEXICAL_VERSION]:
                    return None  # built from another tokenisation of the lexical index
                names = _text_list(data["terms"])
                kinds = None
                if bool(data["has_kinds"][0]):
                    kind_names = _text_list(data["kind_names"])
                    kinds = (data["kind_codes"], {n: i for i, n in enumerate(kind_names)})
                return cls(
                    ids=data["ids"],
                    lengths=data["lengths"],
                    terms={name: i for i, name in enumerate(names)},
                    starts=data["starts"],
                    rows=data["rows"],
                    counts=data["counts"],
                    row_count=int(data["row_count"][0]),
                    token_total=int(data["token_total"][0]),
                    kinds=kinds,
                )
        except (OSError, ValueError, KeyError, IndexError, zipfile.BadZipFile, EOFError):
            return None

    def scores(self, phrases: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(BM25 of every row, whether the row matches any phrase), as FTS5's ``-bm25()``."""
        total = np.zeros(len(self.ids), dtype=np.float64)
        for phrase in phrases:
            number = self.terms.get(phrase)
            if number is None:
                continue  # no row holds it: it adds 0.0 to every row's score
            start, end = self.starts[number], self.starts[number + 1]
            hits = int(end - start)
            idf = math.log((self.row_count - hits + 0.5) / (hits + 0.5))
            if idf <= 0.0:
                idf = 1e-6
            total[self.rows[start:end]] += idf * self.ratio[start:end]
        # every term a row holds adds a positive amount: the rows matched are those above 0
        return total, total > 0

    def search(
        self,
        phrases: list[str],
        k: int,
        excluded: np.ndarray | None = None,
        allowed: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(passage ids, scores) of the best k rows; ``excluded``: passage ids to leave out,
        ``allowed``: a mask over the rows (passage kinds)."""
        total, matched = self.scores(phrases)
        if excluded is not None and len(excluded):
            matched &= ~np.isin(self.ids, excluded)
        if allowed is not None:
            matched &= allowed
        rows = np.flatnonzero(matched)
        if len(rows) > k:
            # the k-th best score; every row scoring at least that goes on to the exact order
            cut = np.partition(-total[rows], k - 1)[k - 1]
            rows = rows[-total[rows] <= cut]
        order = np.lexsort((self.ids[rows], -total[rows]))[:k]
        rows = rows[order]
        return self.ids[rows], total[rows]


class Stemmer:
    """FTS5's own cut and stem of each lexical token, through a temporary FTS5 table."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[str, ...]] = {}
        self._tables_on: sqlite3.Connection | None = None
        self._lock = threading.Lock()  # one temporary table per connection: one user at a time

    def phrases(self, conn: sqlite3.Connection, text: str) -> list[str] | None:
        """The stemmed term of each of the question's distinct tokens, in query order; None
        when a token is not exactly one FTS5 term (the FTS5 query must run instead)."""
        tokens = list(dict.fromkeys(lexical_tokens(text)))
        with self._lock:
            new = [t for t in tokens if t not in self._known]
            if new:
                if len(self._known) > _KNOWN_MAX:
                    self._known.clear()
                self._stem(conn, new)
            known = {t: self._known[t] for t in tokens}
        out = []
        for token in tokens:
            stems = known[token]
            if len(stems) != 1:
                return None
            out.append(stems[0])
        return out

    def _stem(self, conn: sqlite3.Connection, tokens: list[str]) -> None:
        if self._tables_on is not conn:
            self._create(conn)
            self._tables_on = conn
        for start in range(0, len(tokens), 400):  # one statement per batch (999 parameters)
            batch = tokens[start : start + 400]
            conn.execute(
                f"INSERT INTO temp.{_STEMMER}(rowid, t) VALUES "
                + ",".join(["(?, ?)"] * len(batch)),
                [v for i, t in enumerate(batch, start + 1) for v in (i, t)],
            )
        found: dict[int, list[tuple[int, str]]] = {}
        for doc, offset, term in conn.execute(
            f"SELECT doc, offset, term FROM temp.{_STEMMER}_instance"
        ):
            found.setdefault(doc, []).append((offset, term))
        conn.execute(f"DELETE FROM temp.{_STEMMER}")
        for i, token in enumerate(tokens):
            self._known[token] = tuple(term for _, term in sorted(found.get(i + 1, [])))

    @staticmethod
    def _create(conn: sqlite3.Connection) -> None:
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{_STEMMER} "
            "USING fts5(t, tokenize = 'porter unicode61')"
        )
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{_STEMMER}_instance "
            f"USING fts5vocab(temp, {_STEMMER}, instance)"
        )


def _text_array(names: list[str]) -> np.ndarray:
    return np.frombuffer("\n".join(names).encode("utf-8"), dtype=np.uint8)


def _text_list(array: np.ndarray) -> list[str]:
    text = array.tobytes().decode("utf-8")
    return text.split("\n") if text else []
