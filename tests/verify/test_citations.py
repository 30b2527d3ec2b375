"""Marker parsing and bibliography-copy detection (no model needed)."""

from __future__ import annotations

import pytest

from lastword.generate.prompt import neutralise_reference_markers
from lastword.verify.citations import (
    BibliographyIndex,
    find_markers,
    marker_context,
    parse_marker_numbers,
    strip_markers,
)


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("reduced mortality [3].", [(3,)]),
        ("reduced mortality [1, 3].", [(1, 3)]),
        ("reduced mortality [1,3].", [(1, 3)]),
        ("reduced mortality [2-4].", [(2, 3, 4)]),
        ("reduced mortality [2–4].", [(2, 3, 4)]),
        ("reduced mortality [1][2].", [(1,), (2,)]),
        ("reduced mortality [1; 5-6].", [(1, 5, 6)]),
        ("reduced mortality [ 7 ].", [(7,)]),
    ],
)
def test_marker_forms_are_parsed(text: str, numbers: list[tuple[int, ...]]) -> None:
    assert [m.numbers for m in find_markers(text)] == numbers


@pytest.mark.parametrize(
    "text",
    [
        "OR 1.25 [1.14-1.37]",
        "risk ratio [95% CI 0.86-0.99]",
        "serum 25-hydroxyvitamin D [25(OH)D]",
        "kappa 0.39 CI [0.24; 0.57]",
        "as written [sic]",
    ],
)
def test_bracketed_statistics_are_not_markers(text: str) -> None:
    assert find_markers(text) == []


def test_wide_range_is_not_expanded() -> None:
    assert parse_marker_numbers("1-5000") == (1, 5000)


def test_strip_markers_tidies_spacing() -> None:
    assert strip_markers("Aspirin cut events [2], mostly strokes [3-4].") == (
        "Aspirin cut events, mostly strokes."
    )


# Real PubMedQA text (PMID 25819796) that carries the source's own reference numbers.
HEMISPHERECTOMY = (
    "Verbal memory, a component of phonological processing skills, together with receptive "
    "vocabulary size, positively correlated with reading levels similar to those reported in "
    "average readers. Receptive vocabulary, a bilateral function, was preserved to a certain "
    "degree similar to that of strongly left-lateralized phonological skills [3]. Later seizure "
    "onset was associated with better reading levels."
)
UNRELATED = "Metformin lowered fasting glucose in adults with type 2 diabetes over one year."


def _index() -> BibliographyIndex:
    # passage 6 holds the copy source; passage 3 is about something else
    return BibliographyIndex({3: UNRELATED, 6: HEMISPHERECTOMY})


def _copied(sentence: str, number: int) -> int | None:
    marker = next(m for m in find_markers(sentence) if number in m.numbers)
    return _index().copied_from(number, marker_context(sentence, marker.start))


def test_copied_reference_number_is_caught_even_in_range() -> None:
    copy = (
        "Receptive vocabulary was preserved similar to strongly left-lateralized "
        "phonological skills [3]."
    )
    assert _copied(copy, 3) == 6


def test_copy_with_the_marker_moved_to_the_end_is_caught() -> None:
    copy = (
        "Vocabulary was similar to that of strongly left-lateralized phonological skills "
        "overall [3]."
    )
    assert _copied(copy, 3) == 6


def test_verbatim_sentence_with_our_own_number_passes() -> None:
    # What the extractive generator writes: the source's [3] neutralised, our [6] appended.
    source = HEMISPHERECTOMY.split(". ")[1]
    sentence = neutralise_reference_markers(source).rstrip(".") + " [6]."
    assert "(ref. 3)" in sentence
    assert _copied(sentence, 6) is None


def test_neutralised_reference_turned_back_into_a_marker_is_caught() -> None:
    sentence = (
        "Vocabulary was similar to that of strongly left-lateralized phonological skills "
        "(ref. 3) [3]."
    )
    assert _copied(sentence, 3) == 6


def test_a_genuine_citation_of_an_unrelated_wording_is_not_a_copy() -> None:
    sentence = "Metformin reduced glucose levels in diabetic adults [3]."
    assert _copied(sentence, 3) is None


def test_copied_number_pointing_at_the_passage_that_holds_the_words_is_a_citation() -> None:
    # passage 3 itself says "... phonological skills [3]": the number names the right passage
    index = BibliographyIndex({3: HEMISPHERECTOMY})
    sentence = (
        "Vocabulary was preserved similar to strongly left-lateralized phonological skills [3]."
    )
    marker = find_markers(sentence)[0]
    assert index.copied_from(3, marker_context(sentence, marker.start)) is None
