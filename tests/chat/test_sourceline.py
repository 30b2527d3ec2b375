"""The source line is minted from declared results that exist; refusals cite nothing."""

from __future__ import annotations

from lastword.chat.sourceline import PREFIX, corpus_source_line, source_line, states_number
from lastword.result import Mechanism, Refusal, Result, RetrievedPassage, Status


def web_passage(n: int, url: str) -> RetrievedPassage:
    return RetrievedPassage(
        n=n,
        passage_id=0,
        doc_id=url,
        title=f"t{n}",
        page=None,
        score=0.7,
        text="snippet",
        metadata={"url": url},
    )


PASSAGES = (
    web_passage(1, "https://www.nature.com/articles/x1"),
    web_passage(2, "https://who.int/news (2026)"),
    web_passage(3, "javascript:alert(1)"),
)


def answered(citations: tuple[int, ...]) -> Result:
    return Result(
        question="q",
        status=Status.ANSWERED,
        passages=PASSAGES,
        answer="a [1]",
        citations=citations,
    )


def test_names_only_declared_results_that_exist_and_are_cited():
    result = answered((1, 2))
    assert source_line(result, (1, 7)) == (
        f"{PREFIX} nature.com [1](https://www.nature.com/articles/x1)"
    )
    line = source_line(result, (2, 1))
    assert line.endswith(
        "nature.com [1](https://www.nature.com/articles/x1), "
        "who.int [2](https://who.int/news%20%282026%29)"
    )


def test_no_source_line_without_declaration_or_for_non_http_links():
    assert source_line(answered((1,)), None) is None
    assert source_line(answered((1,)), ()) is None
    assert source_line(answered((3,)), (3,)) is None  # a javascript: link is never shown
    assert source_line(answered((1,)), (2,)) is None  # declared but not cited


def test_a_refusal_has_no_source_line():
    refused = Result(
        question="q",
        status=Status.REFUSED,
        decided_by=Mechanism.VERIFIER,
        passages=PASSAGES,
        refusal=Refusal(reason="unsupported_answer", message="no"),
    )
    assert source_line(refused, (1, 2)) is None
    assert corpus_source_line(refused) is None


def test_number_detection_ignores_citation_markers():
    assert states_number("Its half-life is 5 hours [1].")
    assert not states_number("It lasts several hours [1][2].")
    assert not states_number(None)


def test_corpus_source_line_names_cited_papers():
    passage = RetrievedPassage(
        n=2, passage_id=9, doc_id="d", title="Lace  plant PCD", page=3, score=0.8, text="x"
    )
    result = Result(
        question="q",
        status=Status.ANSWERED,
        passages=(passage,),
        answer="x [2]",
        citations=(2,),
    )
    assert corpus_source_line(result) == "📚 From our papers: Lace plant PCD, p. 3 [2]"
