"""A gate signal for long documents: does one passage hold what the question asks *specifically*?

A real paper is many passages on one topic. A question about it that the paper cannot answer
asks for a specific it does not state, in the paper's own words otherwise: "what plasma
cortisol levels did the weaned grey seal pups have after the stranger trials?" of a paper on
grey seal pups and stranger trials that never measured cortisol. Document-level signals
(coverage of the whole top document, MaxSim, the top cosine) see the topic and score it high.

``specific`` weighs each question term by its corpus IDF *and* by how rare it is inside the top
document (over the document's passages: a term in every passage is the paper's topic, one in
few is a specific), and returns the best single passage's share of those weights among the
passages the gate reads. The asked specific has to stand in one passage with the rest of the
question for the share to be high. On PubMedQA's one-passage abstracts the in-document weight
is flat and the signal is close to plain coverage.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping


def specific(
    weights: Mapping[str, float],
    document_blocks: Iterable[set[str]],
    passages: Iterable[set[str]],
) -> float:
    """Best passage's share of the question's in-document-weighted terms, in [0, 1].

    ``weights``: each question term's corpus IDF; ``document_blocks``: the terms of each of the
    top document's passages; ``passages``: the terms of each passage the gate reads.
    """
    blocks = list(document_blocks)
    n = len(blocks)
    asked = set(weights)
    df = Counter(t for block in blocks for t in block & asked)
    local = {t: w * math.log1p((n + 1) / (df[t] + 1)) for t, w in weights.items()}
    total = math.fsum(local.values())
    if total == 0:
        return 0.0
    return max(
        (math.fsum(local[t] for t in asked & passage) / total for passage in passages),
        default=0.0,
    )
