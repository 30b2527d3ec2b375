"""The lexical index: SQLite FTS5 with BM25, in the same file as the passages.

A 384-d sentence vector blurs rare names and codes ("TrustRank", "BRCA1", "IL-6", "5 mg"), which
an exact term match finds. The index lives in ``index.sqlite`` as the FTS5 table
``passages_fts`` (rowid = the passage id) and is written in the same transaction as the
passages it indexes, so ``kill -9`` leaves the two in step. A trigger removes a passage's row
when the passage goes (replacing or removing a document, directly or by cascade).

Tokenisation is ours, not SQLite's, so the question and the passages are cut the same way and
nothing a biomedical text needs is split apart: ``lexical_tokens`` keeps a hyphenated or
slashed term whole *and* as its parts ("IL-6" -> il6, il, 6; "TNF-alpha" -> tnfalpha, tnf,
alpha), a decimal number whole ("2.5" -> 2d5), and a number with its unit as one term as well
("5 mg", "5mg" and "5-mg" -> 5mg). Those tokens are stored space-separated and FTS5's
``porter`` tokenizer stems them ("statins" ~ "statin"). Each passage is indexed with its
document's title.

An index built before the lexical index existed gets it on the first open for writing, or on
the first lexical search (into a temporary in-memory table when the file is read-only).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection, Iterable

from lastword.scope import Scope
from lastword.store.library import scope_condition
from lastword.terms import STOPWORDS

#: bumped when the tokenisation changes: the table is rebuilt on the next open for writing
LEXICAL_VERSION = "1"
META_KEY = "lexical_index"

_TABLE = "passages_fts"
# Each passage is indexed with its document's title: a title names what the paper is about.
_WITH_TITLE = (
    "SELECT p.id, d.title || '\n' || p.text FROM passages p JOIN documents d USING (doc_id)"
)
_FTS = "fts5(tokens, tokenize = 'porter unicode61')"
_CREATE = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {_TABLE} USING {_FTS}",
    f"CREATE TRIGGER IF NOT EXISTS {_TABLE}_delete AFTER DELETE ON passages BEGIN "
    f"DELETE FROM {_TABLE} WHERE rowid = old.id; END",
)

# A word: letters/digits (any script: Greek letters in gene names), joined by - / . + or '
_WORD = re.compile(r"\d+(?:[.,]\d+)+(?=\W|$)|[^\W_]+(?:['\-/.+][^\W_]+)*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_UNITS = frozenset(
    """mg g kg µg ug mcg ng pg ml l dl µl ul mmol µmol umol mol nmol pmol mm cm m km µm um nm
    mmhg kpa pa h hr hrs min s sec ms d wk wks mo yr yrs years months weeks days hours minutes
    iu u ku kda da bp kb mb gb hz khz mhz ghz w kw mw v mv °c c k j kj kcal cal mm3 ml/min
    mg/kg mg/dl mmol/l g/dl µg/ml ng/ml iu/l ppm ppb""".split()
)


_SEPARATOR = re.compile(r"['\-/+]|(?<!\d)\.|\.(?!\d)")
_NUMBER_UNIT = re.compile(r"(\d+(?:[.,]\d+)?)([^\W\d_]+)")


def _normalise(word: str) -> str:
    """A compound word as one alphanumeric token: separators dropped, decimal points kept."""
    word = re.sub(r"(?<=\d)[.,](?=\d)", "d", word)
    return re.sub(r"[^\w]|_", "", word)


def lexical_tokens(text: str) -> list[str]:
    """The terms the lexical index stores for ``text`` (and searches for a question)."""
    out: list[str] = []
    words = [w.lower() for w in _WORD.findall(text)]
    for i, word in enumerate(words):
        joined = _normalise(word)
        if _NUMBER.fullmatch(word):
            out.append(joined)
            # A number followed by a unit word: "5 mg" is also the term 5mg.
            if i + 1 < len(words) and words[i + 1] in _UNITS:
                out.append(joined + _normalise(words[i + 1]))
            continue
        parts = [p for p in _SEPARATOR.split(word) if p]
        if word not in STOPWORDS:
            out.append(joined)
        if len(parts) > 1:
            out.extend(_normalise(p) for p in parts if p not in STOPWORDS)
        for part in parts:
            # "2.5mg" is the number 2.5 with its unit: the number alone is a term too.
            split = _NUMBER_UNIT.fullmatch(part)
            if split and split.group(2) in _UNITS:
                out.append(_normalise(split.group(1)))
    return [t for t in out if t]


def ensure(conn: sqlite3.Connection, *, temp: bool = False) -> None:
    """Create and fill the lexical table if this index lacks it (or has an older one).

    Runs in a transaction of its own, or in the caller's when one is open. With ``temp`` the
    table is built in the connection's temporary schema (a read-only index), for this process.
    """
    if temp:
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{_TABLE} USING {_FTS}")
        if conn.execute(f"SELECT COUNT(*) FROM temp.{_TABLE}").fetchone()[0] == 0:
            _fill(conn, conn.execute(_WITH_TITLE).fetchall(), schema="temp")
        return
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    if row is not None and row[0] == LEXICAL_VERSION:
        return
    own = not conn.in_transaction
    if own:
        conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(f"DROP TABLE IF EXISTS {_TABLE}")
        for statement in _CREATE:
            conn.execute(statement)
        _fill(conn, conn.execute(_WITH_TITLE).fetchall())
        conn.execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (META_KEY, LEXICAL_VERSION),
        )
    except BaseException:
        if own:
            conn.execute("ROLLBACK")
        raise
    if own:
        conn.execute("COMMIT")


def is_built(conn: sqlite3.Connection) -> bool:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    return row is not None and row[0] == LEXICAL_VERSION


def _fill(conn: sqlite3.Connection, rows: Iterable[tuple[int, str]], schema: str = "main") -> None:
    conn.executemany(
        f"INSERT INTO {schema}.{_TABLE}(rowid, tokens) VALUES(?, ?)",
        ((pid, " ".join(lexical_tokens(text))) for pid, text in rows),
    )


def add_document(conn: sqlite3.Connection, doc_id: str) -> None:
    """Index a document's passages just inserted, inside the caller's open transaction."""
    _fill(conn, conn.execute(_WITH_TITLE + " WHERE p.doc_id = ?", (doc_id,)).fetchall())


def query_expression(text: str) -> str | None:
    """An FTS5 OR-query of the question's distinct terms (each quoted: no FTS5 syntax leaks)."""
    seen = dict.fromkeys(lexical_tokens(text))
    if not seen:
        return None
    return " OR ".join(f'"{t}"' for t in seen)


def search(
    conn: sqlite3.Connection,
    text: str,
    k: int,
    exclude_doc_ids: Collection[str] = (),
    kinds: Collection[str] | None = None,
    schema: str = "main",
    scope: Scope | None = None,
) -> list[tuple[int, float]]:
    """(passage id, BM25 score, higher is better) of the best ``k`` passages for ``text``;
    ``scope``: only those of the documents it admits, in the query's own WHERE."""
    expression = query_expression(text)
    if expression is None or k <= 0:
        return []
    where, params = [f"{_TABLE} MATCH ?"], [expression]
    if exclude_doc_ids:
        marks = ",".join("?" * len(exclude_doc_ids))
        where.append(f"rowid NOT IN (SELECT id FROM passages WHERE doc_id IN ({marks}))")
        params += list(exclude_doc_ids)
    if scope is not None and scope.restricted:
        condition, bound = scope_condition(scope, "sqlite")
        where.append(
            "+rowid IN (SELECT id FROM passages WHERE doc_id IN "
            f"(SELECT d.doc_id FROM documents d WHERE {condition}))"
        )
        params += list(bound)
    if kinds is not None:
        if _has_kind_column(conn):
            marks = ",".join("?" * len(kinds)) or "NULL"
            where.append(f"+rowid IN (SELECT id FROM passages WHERE kind IN ({marks}))")
            params += list(kinds)
        elif "body" not in kinds:
            return []  # an index without kinds holds body passages only
    sql = (
        f"SELECT rowid, bm25({_TABLE}) AS rank FROM {schema}.{_TABLE} "
        f"WHERE {' AND '.join(where)} ORDER BY rank LIMIT ?"
    )
    rows = conn.execute(sql, [*params, k]).fetchall()
    return [(int(pid), -float(rank)) for pid, rank in rows]


def _has_kind_column(conn: sqlite3.Connection) -> bool:
    return any(row[1] == "kind" for row in conn.execute("PRAGMA table_info(passages)"))


def ready(conn: sqlite3.Connection) -> str:
    """The schema holding a usable lexical table, building it first if this index lacks one."""
    if is_built(conn):
        return "main"
    try:
        ensure(conn)
        return "main"
    except sqlite3.OperationalError as exc:
        if "readonly" not in str(exc) and "read-only" not in str(exc):
            raise
    ensure(conn, temp=True)
    return "temp"
