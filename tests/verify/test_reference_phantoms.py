"""A marker that names a paper from a document's own reference list is a phantom."""

from __future__ import annotations

from lastword.result import RetrievedPassage
from lastword.settings import VerifySettings
from lastword.store.protocol import ReferenceEntry
from lastword.verify import verify_draft

PASSAGE = RetrievedPassage(
    n=1,
    passage_id=1,
    doc_id="paper",
    title="Drought Tolerance of Wild Emmer Wheat Roots",
    page=2,
    score=0.7,
    text=(
        "Roots of droughted wild emmer wheat were thirty percent longer than those of watered "
        "plants. Hormone-related genes were studied before [2]."
    ),
)
OTHER = RetrievedPassage(
    n=2,
    passage_id=2,
    doc_id="paper",
    title="Drought Tolerance of Wild Emmer Wheat Roots",
    page=3,
    score=0.6,
    text="Seeds were sown in early spring on every plot of the field station.",
)
REFERENCES = {
    "paper": [
        ReferenceEntry(1, "1. Lee A. Root architecture under drought stress in durum wheat."),
        ReferenceEntry(
            2,
            "2. Smith J. Alteration in expression of hormone-related genes in wild emmer wheat "
            "roots associated with drought adaptation mechanisms. Plant J. 2019.",
        ),
    ]
}


def test_a_cited_papers_title_is_a_phantom_only_with_the_reference_lists(minilm):
    draft = (
        "Alteration in expression of hormone-related genes in wild emmer wheat roots associated "
        "with drought adaptation mechanisms [2]."
    )  # [2] is the paper's reference 2, not retrieved passage 2
    without = verify_draft(draft, (PASSAGE, OTHER), minilm, VerifySettings())
    assert not without.phantoms
    checked = verify_draft(draft, (PASSAGE, OTHER), minilm, VerifySettings(), REFERENCES)
    assert [(p.number, p.reason) for p in checked.phantoms] == [(2, "bibliography")]
    assert not checked.supported


def test_a_finding_of_the_passage_is_not_a_phantom(minilm):
    draft = "Roots of droughted wild emmer wheat were thirty percent longer than watered ones [1]."
    checked = verify_draft(draft, (PASSAGE, OTHER), minilm, VerifySettings(), REFERENCES)
    assert not checked.phantoms and checked.supported
