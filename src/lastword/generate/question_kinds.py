"""What a question asks for, read from its wording: a number (how many, what dose ...), a name
(which, who), a place (where), two things at once ("..., and what was its FCR?"), or what other
work reported. ``answering.QuestionProfile`` reads a question with these."""

from __future__ import annotations

import re

NUMBER_QUESTION = re.compile(
    r"\bhow\s+(many|much|long|large|old|often|far|high|low|big|fast|severe|strong)\b"
    r"|\bwhat\s+(?:[\w\-]+\s+){0,4}?(percentage|proportion|share|fraction|temperature|dose|doses|"
    r"concentration|concentrations|level|levels|ratio|rate|titre|titer|yield|amount|number|"
    r"mics?|mfcs?|km|ki|ic50|ec50|ld50|noael|count|counts|size|length|duration|age|"
    r"weight|mass|factor|composition|value|values|quantity|content)s?\b"
    r"|\bat\s+what\b|\bby\s+(roughly\s+)?what\b|\bhow\s+much\b",
    re.I,
)
NAME_QUESTION = re.compile(
    r"^\s*(which|who|whom|whose)\b|\bwhich\b|\bwhat\s+(is|was|are|were)\s+the\s+(\w+\s+)?names?\b",
    re.I,
)
#: a question that asks two things: "which group ..., and what were its weight gain and FCR?"
SECOND_ASK = re.compile(
    r"\band\s+(what|which|how|who|whom|whose|where|when|why|whether|of\s+which|at\s+what|"
    r"by\s+what|in\s+what|in\s+which|from\s+which|with\s+what|did|does|do|was|were|is|are)\b"
    r"|\?\s*\S",
    re.I,
)
PLACE_QUESTION = re.compile(r"^\s*where\b|\bfrom\s+where\b|\bwhere\s+was\b", re.I)
OTHER_WORK_QUESTION = re.compile(
    r"\bet\s+al\b|\breview\b|\bcited\b|\baccording\s+to\b|\breported\b|\bthe\s+eu\b", re.I
)
