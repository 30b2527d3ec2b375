"""The pre-search gate: four categories refused outright, in English and Spanish.

The lists live here, in code, on purpose: changing them is a code change and a review. There
is no threshold, score or switch an operator can lower. Matching runs on a normalised copy of
the message (lower case, accents removed, punctuation turned into spaces), on whole words.

Matching runs on every reading ``lastword.readable.readings`` gives of the message (Unicode
folded, invisible characters removed, look-alike letters mapped, digits and symbols read as
letters, markup inside words dropped, spaced letters joined, loose spellings rewritten): a
match in any reading refuses. The assistant screens the member's message and, again, the exact
query it would send (``lastword.chat.hygiene``), so removing a name or a trigger can never
assemble a refused phrase that the gate did not see.

Known limits (docs/chat.md): a paraphrase the lists do not contain passes; only English and
Spanish are covered; some innocent messages are refused (false refusals), e.g. a question
about the effects of pornography. Terms that are ordinary in a biomedical lab ("nude mice",
"suicide rates", "sexual development", "bomba de insulina") are deliberately absent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from lastword.readable import normalise, readings, spaced_readings

__all__ = ["Category", "GateRefusal", "normalise", "screen"]


class Category(StrEnum):
    SEXUAL_MINORS = "sexual_minors"
    SEXUALLY_EXPLICIT = "sexually_explicit"
    SELF_HARM_METHODS = "self_harm_methods"
    VIOLENT_EXTREMISM = "violent_extremism"


_MEDIA = r"(?:photos?|pics?|pictures?|images?|videos?|selfies?|fotos?|imagenes?|videos?)"

# Explicit sexual material. Also the "explicit" half of the minors rule below.
SEXUALLY_EXPLICIT_EN = (
    r"porn\w*",
    r"xxx",
    r"hentai",
    r"nsfw",
    r"nudes",
    rf"(?:nude|naked) {_MEDIA}",
    r"(?:nude|naked) (?:girls?|women|woman|boys?|men|teens?)",
    r"sex (?:tapes?|videos?|scenes?|cams?|chats?|clips?)",
    r"explicit sex\w*",
    r"erotic (?:stories|story|fiction|videos?|photos?)",
    r"onlyfans",
    r"pr[o0]n",
    r"cam ?girls?",
    r"blow ?jobs?",
    r"hand ?jobs?",
    r"cum ?shots?",
    r"gang ?bangs?",
)
SEXUALLY_EXPLICIT_ES = (
    r"porno\w*",
    r"desnud[oa]s? (?:fotos?|videos?|imagenes?)",
    rf"{_MEDIA} (?:de )?(?:desnud[oa]s?|sexuales|eroticas?|eroticos?|porno|xxx)",
    r"sexo explicito",
    r"(?:relatos|cuentos|historias) eroticos?a?s?",
    r"contenido (?:sexual explicito|para adultos)",
)

# Sexual content involving minors: named outright, or any explicit term next to a minor term.
SEXUAL_MINORS_EN = (
    r"child ?porn\w*",
    r"kiddie ?porn\w*",
    r"csam",
    r"child sexual abuse material",
    r"lolicon",
    r"shotacon",
    r"jail ?bait",
    r"pedo ?(?:porn\w*|videos?|pics?|photos?)",
    r"(?:underage|preteen|pre teen) (?:sex|nudes?|naked|porn\w*|girls?|boys?)",
    r"sex (?:with|con) (?:a )?(?:minors?|child|children|kids?|underage)",
)
SEXUAL_MINORS_ES = (
    r"pornografia infantil",
    r"porno infantil",
    r"material de abuso sexual infantil",
    r"(?:menores|ninos|ninas|nino|nina) desnud[oa]s?",
    r"desnud[oa]s? de (?:menores|ninos|ninas|adolescentes)",
    r"sexo con (?:menores|un menor|una menor|ninos|ninas|un nino|una nina)",
)
MINOR_TERMS = (
    r"child",
    r"children",
    r"kids?",
    r"minors?",
    r"underage",
    r"preteens?",
    r"teens?",
    r"teenagers?",
    r"school ?girls?",
    r"school ?boys?",
    r"toddlers?",
    r"ninos?",
    r"ninas?",
    r"menor(?:es)?",
    r"infantil(?:es)?",
    r"adolescentes?",
    r"colegialas?",
    r"preadolescentes?",
)

# Methods of self-harm and suicide. Epidemiology ("suicide rates") is not listed.
SELF_HARM_EN = (
    r"(?:how|ways?|best way|easiest way|quickest way) (?:to|do i|can i|should i|could i) "
    r"(?:kill|hurt|harm|cut|hang|poison|drown|shoot) myself",
    r"(?:ways?|methods?|how) to (?:kill|hurt|harm) (?:myself|yourself|oneself)",
    r"(?:how|ways?|best way|easiest way) (?:to|do i|can i) (?:commit |do )?suicide",
    r"(?:ways?|methods?|how) to (?:end my life|end it all|take my (?:own )?life)",
    r"suicide (?:methods?|techniques?|instructions?|guides?|how to)",
    r"methods? (?:of|for) (?:suicide|killing myself)",
    r"(?:best|easiest|quickest|painless|surest) ways? to (?:die|end my life|end it all)",
    r"painless (?:suicide|death|ways? to die)",
    r"how (?:to|do i|can i) end my life",
    r"how to (?:overdose|slit my wrists?)",
    r"how many (?:pills|tablets) (?:to|would|will|does it take to) (?:die|kill)",
    r"lethal dose (?:to|for) (?:die|dying|kill myself|suicide)",
    # first-person intent with a method verb, however it is spelled ("kill my self")
    r"(?:kill|killing|hang|hanging|poison|poisoning|shoot|shooting|drown|drowning) myself",
)
SELF_HARM_ES = (
    r"como (?:suicidarme|suicidarse|matarme|ahorcarme|envenenarme|quitarme la vida)",
    r"como (?:me )?(?:suicido|mato|ahorco|enveneno)",
    r"como (?:me )?(?:puedo |debo )?(?:suicidar|matar|ahorcar|quitar la vida)",
    r"me (?:quiero|voy a|puedo|debo) (?:suicidar|matar|ahorcar|quitar la vida)",
    r"(?:quiero|voy a|debo|puedo) (?:suicidarme|matarme|ahorcarme|quitarme la vida)",
    r"(?:formas?|maneras?|metodos?) (?:de|para) (?:suicidarme|suicidarse|matarme|"
    r"quitarme la vida|suicidio)",
    r"(?:cortarme|cortarse) las venas",
    r"(?:suicidio|muerte|morir) sin dolor",
    r"(?:cuantas|cuantos) (?:pastillas|pildoras|comprimidos) (?:para|hacen falta para) "
    r"(?:morir|matarme)",
    r"sobredosis para (?:morir|matarme)",
    r"dosis letal para (?:morir|matarme|suicidarme)",
)

# Violent extremism: attack instructions, recruitment, propaganda.
_GROUPS = r"(?:isis|isil|daesh|al qaeda|al qaida|the islamic state|islamic state|estado islamico)"
VIOLENT_EXTREMISM_EN = (
    r"(?:how to|ways to|instructions to|guide to|how (?:do|can|could|would|should) "
    r"(?:i|you|we|one|someone)) (?:make|build|assemble|construct|create) "
    r"(?:a |an )?(?:homemade |home made |pipe |nail )?"
    r"(?:bomb|ied|explosive device|suicide vest)s?(?! calorimet)",
    r"bomb ?making",
    r"(?:homemade|home made|diy) (?:bombs?|explosives?|ieds?|napalm)",
    r"(?:bombs?|explosives?|ieds?) (?:recipes?|instructions|tutorials?|blueprints?)",
    r"recipes? for (?:a |an )?(?:bombs?|explosives?)",
    r"pipe bombs?",
    r"(?:make|making|build|building) (?:homemade )?explosives",
    rf"(?:join|joining|recruit for|recruiting for|support for) {_GROUPS}",
    rf"{_GROUPS} (?:propaganda|recruitment|recruiting|manifesto)",
    r"jihadi(?:st)? (?:propaganda|recruitment|videos?|manifesto)",
    r"beheading videos?",
    r"(?:christchurch|shooter'?s?|terrorist) manifesto",
    r"(?:how to )?(?:plan|carry out|commit) (?:a |an )?(?:terrorist attack|terror attack|"
    r"mass shooting|massacre)",
    r"(?:terrorist|terror) attack (?:plans?|instructions|guide)",
    r"race war now",
)
VIOLENT_EXTREMISM_ES = (
    r"como (?:hacer|fabricar|construir|armar|se hace|se fabrica|se construye|se arma|hago|"
    r"fabrico|construyo|armo|puedo hacer|puedo fabricar) (?:una |un )?(?:bomba|explosivo|"
    r"artefacto explosivo|chaleco bomba)s?(?! de insulina)(?! calorimetrica)",
    r"fabricar explosivos",
    rf"(?:unirme|unirse) (?:al |a )?{_GROUPS}",
    rf"propaganda (?:yihadista|terrorista|del {_GROUPS}|de {_GROUPS})",
    r"reclutamiento (?:yihadista|terrorista)",
    r"videos? de decapitaciones",
    r"(?:planear|cometer|realizar|preparar) un (?:atentado|tiroteo masivo|ataque terrorista)",
    r"manifiesto (?:terrorista|del tirador)",
)


def _compile(patterns: tuple[str, ...], spaceless: bool = False) -> re.Pattern[str]:
    # spaceless: the phrase's spaces made optional, for letters joined from a spaced run
    # ("k i l l m y s e l f" reads "killmyself")
    body = "|".join(p.replace(" ", " ?") if spaceless else p for p in patterns)
    return re.compile(r"\b(?:" + body + r")\b")


_LISTS = {
    "explicit": SEXUALLY_EXPLICIT_EN + SEXUALLY_EXPLICIT_ES,
    "minors": SEXUAL_MINORS_EN + SEXUAL_MINORS_ES,
    "minor_term": MINOR_TERMS,
    "self_harm": SELF_HARM_EN + SELF_HARM_ES,
    "extremism": VIOLENT_EXTREMISM_EN + VIOLENT_EXTREMISM_ES,
}
_SPACED = {name: _compile(patterns) for name, patterns in _LISTS.items()}
_SPACELESS = {name: _compile(patterns, spaceless=True) for name, patterns in _LISTS.items()}


@dataclass(frozen=True)
class GateRefusal:
    category: Category
    matched: str  # the normalised words that matched, for the log (never sent anywhere)


def screen(text: str) -> GateRefusal | None:
    """The category ``text`` falls in, or None when it may proceed."""
    joined = spaced_readings(text)
    for norm in readings(text):
        refusal = _screen_reading(norm, _SPACELESS if norm in joined else _SPACED)
        if refusal is not None:
            return refusal
    return None


def _screen_reading(norm: str, lists: dict[str, re.Pattern[str]]) -> GateRefusal | None:
    if hit := lists["minors"].search(norm):
        return GateRefusal(Category.SEXUAL_MINORS, hit.group(0))
    explicit = lists["explicit"].search(norm)
    if explicit and (minor := lists["minor_term"].search(norm)):
        return GateRefusal(Category.SEXUAL_MINORS, f"{explicit.group(0)} + {minor.group(0)}")
    if explicit:
        return GateRefusal(Category.SEXUALLY_EXPLICIT, explicit.group(0))
    if hit := lists["self_harm"].search(norm):
        return GateRefusal(Category.SELF_HARM_METHODS, hit.group(0))
    if hit := lists["extremism"].search(norm):
        return GateRefusal(Category.VIOLENT_EXTREMISM, hit.group(0))
    return None
