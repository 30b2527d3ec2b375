"""The answer model: the signals a candidate sentence is scored on and their fitted weights.

``answering.candidate_features`` reads each signal of a sentence; ``answer_probability`` turns
them into the probability that the sentence states what was asked (``answering.py``'s doc).
"""

from __future__ import annotations

import numpy as np

#: the signals one candidate sentence is scored on, in the order of ``ANSWER_MODEL``
FEATURES = (
    "words",  # IDF-weighted share of the question's words in the sentence
    "around",  # ... found only in the sentence's neighbours (same passage)
    "passage",  # the passage's retrieval score
    "echo",  # share of the sentence's own words that repeat the question (a restatement)
    "novel",  # content words the question does not have (capped): what the sentence adds
    "asked_number",  # a number is asked and the sentence states one the question does not
    "missing_number",  # a number is asked and the sentence states none of its own
    "asked_name",  # a name is asked and the sentence names a code or name the question does not
    "method",  # says what was done or aimed at, not what was found
    "result",  # reports a finding
    "own_result",  # "we", "in the present study"
    "other_study",  # reports another study, and the question is about this one
    "heading",
    "caption",
    "table",
    "authors",
    "bibliography",
    "superlative",  # which is highest / lowest: the table row with the extreme value of the
    # asked column, or a sentence that itself says highest / lowest (``superlative.py``)
)

#: logistic weights over ``FEATURES`` (the intercept first), fitted on the sentences of the
#: DEV (odd-numbered) questions of the real-papers set; a sentence is labelled positive when
#: it states one of its question's required facts. Chosen leaving one paper out on DEV
#: (``bench/answer_cv.py --cv``): ridge 25 over 13 features, ``asked_number``, ``method``,
#: ``other_study``, ``heading`` and ``caption`` left out (weight 0). Out of fold it answers 21
#: DEV questions right with no false accept and ranks sentences at AUC 0.870; the earlier
#: recipe (all 18 features, ridge 3) gave 21, one false accept (u19) and 0.856. Ridge 10-30
#: give the same 21 (10 lets u19 through), 50 gives 20; a ridge of 300 or more shrinks the
#: probabilities under the 0.15 / 0.45 floors (docs/ingest.md, sixth round)
ANSWER_MODEL: dict[str, float] = {
    "intercept": -4.711,
    "words": 6.408,
    "around": 0.38,
    "passage": 0.425,
    "echo": 1.348,
    "novel": 0.27,
    "asked_number": 0.0,
    "missing_number": -1.334,
    "asked_name": 1.337,
    "method": 0.0,
    "result": 0.519,
    "own_result": 0.321,
    "other_study": 0.0,
    "heading": 0.0,
    "caption": 0.0,
    "table": -0.812,
    "authors": -1.308,
    "bibliography": -2.314,
    "superlative": 2.608,
}


def answer_probability(features: np.ndarray, model: dict[str, float] = ANSWER_MODEL) -> np.ndarray:
    """The model's probability that each sentence states what was asked."""
    weights = np.array([model.get(name, 0.0) for name in FEATURES])
    z = model["intercept"] + features @ weights
    return 1.0 / (1.0 + np.exp(-np.clip(z, -500, 500)))
