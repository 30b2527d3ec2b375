"""The candidate stage on ids and scores ranks exactly as the path it replaced.

``old_hybrid`` is the hybrid retrieval of stop 19, kept here verbatim in substance: both
candidate lists as whole passages (``search``/``search_lexical``), cosines of the lexical-only
ones, the fusion, then term coverage over ``TOKEN.findall`` of the head's texts. On a real
index of SciFact abstracts and real claims, ``retrieve(mode="hybrid")`` must return the same
passages in the same order with the same scores, for the shipped tuning and for others.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from lastword.rank import (
    RerankWeights,
    TermWeights,
    present_in_each,
    present_terms,
    proximity,
    rrf,
    score_fusion,
    term_coverage,
    zscore_fusion,
    zscore_order,
)
from lastword.retrieve import RERANK, HybridTuning, retrieve, tuning_from
from lastword.settings import RetrieveSettings, StoreSettings
from lastword.store.local import LocalStore
from lastword.terms import TOKEN

DOCUMENTS = 160
CLAIMS = 40


def old_hybrid(question, query, store, k, tuning, **where):
    """Stop 19's ``retrieve._hybrid``: [(passage, cosine)] of the first k."""
    dense = store.search(query, tuning.candidates, **where)
    lexical = store.search_lexical(question, tuning.candidates, **where)
    passages = {h.passage.passage_id: h.passage for h in (*dense, *lexical)}
    cosines = {h.passage.passage_id: h.score for h in dense}
    if tuning.fusion == "zscore":
        missing = [pid for pid in passages if pid not in cosines]
        cosines.update(store.cosines(query, missing))
        bm25 = {h.passage.passage_id: h.score for h in lexical}
        fused = zscore_fusion(cosines, bm25, tuning.lexical_weight)
    elif tuning.fusion == "rrf":
        fused = rrf([h.passage.passage_id for h in dense], [h.passage.passage_id for h in lexical])
        top = max(fused.values(), default=1.0)
        fused = {pid: score / top for pid, score in fused.items()}
    else:
        bm25 = {h.passage.passage_id: h.score for h in lexical}
        fused = score_fusion(cosines, bm25, tuning.lexical_weight)
    order = sorted(fused.items(), key=lambda item: (-item[1], item[0]))
    if tuning.rerank.coverage or tuning.rerank.proximity:
        head, tail = order[: tuning.rerank_depth], order[tuning.rerank_depth :]
        total, counts = store.lexicon()
        weights = TermWeights.of(question, counts, total)
        scored = []
        for pid, score in head:
            tokens = TOKEN.findall(f"{passages[pid].title}\n{passages[pid].text}".lower())
            extra = tuning.rerank.coverage * term_coverage(weights, tokens)
            if tuning.rerank.proximity:
                extra += tuning.rerank.proximity * proximity(weights, tokens)
            scored.append((pid, score + extra))
        order = sorted(scored, key=lambda item: -item[1]) + tail
    chosen = [pid for pid, _ in order[:k]]
    missing = [pid for pid in chosen if pid not in cosines]
    if missing:
        cosines.update(store.cosines(query, missing))
    return [(passages[pid], round(cosines[pid], 6)) for pid in chosen]


@pytest.fixture(scope="module")
def scifact(tmp_path_factory, datasets_dir, minilm):
    """A real index of SciFact abstracts (those the first dev claims cite, then others), and
    those claims."""
    from lastword.evaluate.datasets.scifact import corpus_record
    from lastword.ingest import ingest_paths
    from lastword.settings import IngestSettings

    folder = datasets_dir / "scifact"
    claims = [json.loads(line) for line in (folder / "claims_dev.jsonl").read_text().splitlines()]
    claims = [c for c in claims if c["cited_doc_ids"]][:CLAIMS]
    cited = {str(d) for c in claims for d in c["cited_doc_ids"]}
    rows = [json.loads(line) for line in (folder / "corpus.jsonl").read_text().splitlines()]
    chosen = [r for r in rows if str(r["doc_id"]) in cited]
    chosen += [r for r in rows if str(r["doc_id"]) not in cited][: DOCUMENTS - len(chosen)]
    path = tmp_path_factory.mktemp("identity") / "abstracts.jsonl"
    path.write_text("".join(json.dumps(corpus_record(r)) + "\n" for r in chosen))
    index = path.parent / "index"
    ingest_paths([path], index, minilm, IngestSettings())
    with LocalStore.open(index) as store:
        yield store, [c["claim"] for c in claims]


TUNINGS = {
    "shipped": tuning_from(RetrieveSettings()),
    "shallow": HybridTuning(candidates=20, rerank_depth=10, rerank=RERANK),
    "proximity": HybridTuning(rerank=RerankWeights(coverage=0.2, proximity=0.1)),
    "rrf": HybridTuning(fusion="rrf", rerank=RERANK),
    "score": HybridTuning(fusion="score", lexical_weight=0.4),
}


@pytest.mark.parametrize("name", list(TUNINGS))
def test_hybrid_ranks_exactly_as_the_old_path(scifact, minilm, name):
    store, claims = scifact
    tuning = TUNINGS[name]
    assert store.info().passages > 2 * tuning.candidates  # the candidate lists are cut
    vectors = minilm.embed_queries(claims)
    for claim, vector in zip(claims, vectors, strict=True):
        found = retrieve(claim, minilm, store, 8, mode="hybrid", tuning=tuning)
        old = old_hybrid(claim, vector, store, 8, tuning)
        assert [(p.passage_id, p.score) for p in found.passages] == [
            (p.passage_id, s) for p, s in old
        ]
        assert [p.text for p in found.passages] == [p.text for p, _ in old]
    # filters reach both candidate lists
    docs = {store.search(vectors[0], 1)[0].passage.doc_id}
    found = retrieve(claims[0], minilm, store, 8, docs, mode="hybrid", tuning=tuning)
    old = old_hybrid(claims[0], vectors[0], store, 8, tuning, exclude_doc_ids=docs)
    assert [p.passage_id for p in found.passages] == [p.passage_id for p, _ in old]
    assert not docs & {p.doc_id for p in found.passages}


def test_the_int8_first_pass_ranks_exactly_as_the_whole_product(scifact, minilm):
    """The store's int8 pass on (store/int8.py) against the old path on the whole product."""
    store, claims = scifact
    vectors = minilm.embed_queries(claims)
    exact = StoreSettings(int8_min_passages=10**9)
    with (
        LocalStore.open(store.directory, StoreSettings(int8_min_passages=1)) as fast,
        LocalStore.open(store.directory, exact) as whole,
    ):
        for name in ("shipped", "rrf"):
            for claim, vector in zip(claims, vectors, strict=True):
                found = retrieve(claim, minilm, fast, 8, mode="hybrid", tuning=TUNINGS[name])
                old = old_hybrid(claim, vector, whole, 8, TUNINGS[name])
                assert [(p.passage_id, p.score) for p in found.passages] == [
                    (p.passage_id, s) for p, s in old
                ]
        for claim, vector in zip(claims, vectors, strict=True):
            found = retrieve(claim, minilm, fast, 8, mode="dense", context=True)
            dense = whole.search(vector, 50)
            assert [p.passage_id for p in found.passages] == [
                h.passage.passage_id for h in dense[:8]
            ]
            assert found.background == tuple(h.score for h in dense[8:50])
        assert fast.int8_counts["proved"] >= 3 * len(claims)
        assert fast.int8_counts["whole"] == 0


def test_context_and_other_modes_keep_their_results(scifact, minilm):
    store, claims = scifact
    for claim in claims[:10]:
        vector = minilm.embed_queries([claim])[0]
        dense = store.search(vector, 50)
        lexical = store.search_lexical(claim, 50)
        for mode in ("dense", "lexical"):
            found = retrieve(claim, minilm, store, 8, mode=mode, context=True)
            expected = dense[:8] if mode == "dense" else lexical[:8]
            ids = [h.passage.passage_id for h in expected]
            assert [p.passage_id for p in found.passages] == ids
            assert found.background == tuple(h.score for h in dense[8:50])
            assert found.lexical_docs == tuple(dict.fromkeys(h.passage.doc_id for h in lexical))
        shipped = TUNINGS["shipped"]
        found = retrieve(claim, minilm, store, 8, mode="hybrid", tuning=shipped, context=True)
        deep = store.search_lexical(claim, 100)
        assert found.lexical_docs == tuple(dict.fromkeys(h.passage.doc_id for h in deep))
        assert set(found.stages_ms) == {"dense", "lexical", "fuse", "rerank", "context", "passages"}


def test_present_terms_is_term_coverage_over_every_word():
    """The one-scan presence test agrees with tokenising the whole text, on tricky strings."""
    rng = random.Random(7)
    alphabet = "ab-' 0\n.Aé/"
    words = ["ab", "a", "b", "a-b", "ab'a", "0", "b0", "a-'b", "ba"]
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        weights = TermWeights({t: rng.random() for t in rng.sample(words, 4)})
        tokens = set(TOKEN.findall(text.lower()))
        assert present_terms(weights)(text) == {t for t in weights.weights if t in tokens}
    assert present_terms(TermWeights({}))("anything") == set()


def test_present_in_each_is_present_terms_of_each_text():
    """The one scan over the joined texts agrees with looking in each text alone."""
    rng = random.Random(11)
    alphabet = "ab-' 0\n.Aé/İΣ"
    words = ["ab", "a", "b", "a-b", "ab'a", "0", "b0", "a-'b", "ba", "σ", "ς", "aς"]
    # a final sigma at a text's ends, next to a cased letter or a case-ignorable apostrophe
    edges = ["AΣ", "Σa", "A'Σ", "Σ'a", "aΣ'", "'Σ", "İΣ", "Σİ"]
    for left in edges:
        for right in edges:
            weights = TermWeights(dict.fromkeys(["σ", "ς", "aς", "a"], 1.0))
            expected = [present_terms(weights)(text) for text in (left, right)]
            assert present_in_each(weights, [left, right]) == expected
    for _ in range(6000):
        texts = [
            "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
            for _ in range(rng.randint(0, 6))
        ]
        weights = TermWeights({t: rng.random() for t in rng.sample(words, 4)})
        assert present_in_each(weights, texts) == [present_terms(weights)(t) for t in texts]


def test_zscore_over_arrays_is_zscore_over_dicts_to_the_bit():
    rng = random.Random(3)
    for size in (0, 1, 2, 7, 200):
        ids = rng.sample(range(10_000), size)
        cosines = {pid: rng.uniform(-0.2, 0.9) for pid in ids}
        bm25 = {pid: rng.uniform(0, 30) for pid in ids if rng.random() < 0.6}
        if size == 2:
            cosines = dict.fromkeys(ids, 0.5)  # no spread: every standard score is 0
        for weight in (0.0, 0.3, 0.5):
            fused = zscore_fusion(cosines, bm25, weight)
            expected = sorted(fused.items(), key=lambda item: (-item[1], item[0]))
            got = zscore_order(
                np.array(list(cosines), dtype=np.int64),
                np.array(list(cosines.values()), dtype=np.float64),
                np.array([bm25.get(pid, 0.0) for pid in cosines], dtype=np.float64),
                weight,
            )
            assert got == expected
