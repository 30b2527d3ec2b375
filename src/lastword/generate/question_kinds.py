"""What a question asks for, read from its wording: a number (how many, what dose ...), a name
(which, who), a place (where), two things at once ("..., and what was its FCR?"), or what other
work reported, and the property a yes/no question asks about ("Did X change *the protein
content* of Y?"). ``answering.QuestionProfile`` reads a question with these."""

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
    r"^\s*(which|who|whom|whose)\b|\bwhat\s+(is|was|are|were)\s+the\s+(\w+\s+)?names?\b",
    re.I,
)
#: "which" inside a question ("..., and of which commercial strain?"); in a statement it is a
#: relative pronoun ("antibodies which cross-react with ..."), and so is a "which" followed by
#: a verb in a question ("Did the cows which were fed garlic ...?")
INNER_WHICH = re.compile(
    r"\bwhich\b(?!\s+(is|are|was|were|has|have|had|can|could|may|might|will|would|should|"
    r"do|does|did|also|then|in\s+turn|not)\b)",
    re.I,
)


def asks_name(question: str) -> bool:
    """The question asks for a name: it opens with which / who, asks for "the name", or is a
    question (it carries a "?") with an interrogative "which" inside. A statement asks
    nothing: a SciFact claim with a relative "which" is not a name question."""
    if NAME_QUESTION.search(question):
        return True
    return "?" in question and INNER_WHICH.search(question) is not None


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
#: a question answered yes or no: "Did ...", "Does ...", "Is ...", "Can ..."
YES_NO_QUESTION = re.compile(
    r"^\s*(did|does|do|is|was|were|are|can|could|has|have|had|will|would|should|may)\b", re.I
)
_CHANGE = (
    r"(?:chang|alter|affect|influenc|increas|decreas|reduc|rais|lower|improv|enhanc|modif|"
    r"impact|boost|elevat|diminish)(?:e|es|ed|ing|s|y|ies|ied)?"
)
#: what a yes/no question asks about, as the object of its verb of change: "Did foliar
#: Nutri-phite application change *the protein content* of winter wheat grain?"
ASKED_OBJECT = re.compile(
    rf"\b{_CHANGE}\s+(?:the\s+|its\s+|their\s+)?"
    r"(?!(?:of|in|among|for|at|after|during|between|when|with|by|from|on|across|to)\b)(?P<attr>(?:[\w\-]+\s+){0,3}?[\w\-]+)\s*(?:\b(?:of|in|among|for|at|after|during|between|"
    r"when|with|by|from|on|across|compared)\b|\?|,|$)",
    re.I,
)
#: ... or as the subject of an intransitive one: "Did *post-trial plasma oxytocin* differ
#: between ...?"
ASKED_SUBJECT = re.compile(
    r"^\s*(?:did|does|do|is|was|were|are)\s+(?:the\s+)?(?P<attr>(?:[\w\-]+\s+){0,3}?[\w\-]+)\s+"
    r"(?:differ|change|vary|increase|decrease|rise|fall|decline|improve)\w*\s+"
    r"(?:between|among|across|over|after|with|from|in|when|during|by|\?)",
    re.I,
)


def asked_attribute(question: str) -> str:
    """The property a yes/no question asks about ("the protein content" of "Did foliar
    Nutri-phite application change the protein content of winter wheat grain?"), or "" when it
    asks no yes/no question about a change."""
    if not YES_NO_QUESTION.match(question):
        return ""
    for pattern in (ASKED_SUBJECT, ASKED_OBJECT):
        if (match := pattern.search(question)) is not None:
            return match.group("attr")
    return ""


#: what a wh-question asks the amount of, named before its measure word: "What plasma
#: *cortisol* levels ...?", "What was the *fat* content (%) ...?", "What *nivalenol*
#: concentration ...?"
ASKED_MEASURED = re.compile(
    r"^\s*(?:what|which)\s+(?:(?:is|was|are|were)\s+(?:the\s+|its\s+|their\s+)?)?"
    r"(?P<attr>(?:[\w\-]+\s+){1,3}?)(?:contents?|levels?|concentrations?|amounts?)\b",
    re.I,
)


#: ... or named after it: "What was the maximum non-toxic concentration of *the Ocimum sanctum
#: and Acacia arabica leaf extracts* in SPF embryonated chicken eggs?"
MEASURED_OF = re.compile(
    r"^\s*(?:what|which)\s+(?:(?:is|was|are|were)\s+(?:the\s+|its\s+|their\s+)?)?"
    r"(?:[\w\-]+\s+){0,3}?(?:contents?|levels?|concentrations?|amounts?|doses?)\s+of\s+"
    r"(?:the\s+)?(?P<owner>(?:[\w\-.]+\s+){0,7}?[\w\-]+)\s*(?:\b(?:in|at|on|for|from|during|"
    r"after|among|between|with|by|under|when|that|which|did|does|do|was|were|is|are)\b|[,?;]|$)",
    re.I,
)


def asked_owner(question: str) -> str:
    """The words after "<amount> of" naming what a wh-question asks the amount of ("the
    Ocimum sanctum and Acacia arabica leaf extracts"), or ""."""
    match = MEASURED_OF.search(question)
    return match.group("owner").strip() if match else ""


def asked_measured(question: str) -> str:
    """The words naming what a wh-question asks the content, level, concentration or amount
    of ("plasma cortisol" of "What plasma cortisol levels did ...?"), or ""."""
    match = ASKED_MEASURED.search(question)
    return match.group("attr").strip() if match else ""
