"""Does the response decline to answer? "The context does not say who founded it", "I don't know",
"This is not mentioned in the passage": an abstention states no claim, so it is neither supported
nor invented, and the grounding signals report it as such (an ``abstention`` outcome) instead of
counting its words as unsupported.

Recognised by English phrasings of declining, anchored on what is missing (the context, the passage,
information, an answer) or on the speaker not knowing or not finding it. A response is an abstention
only when every sentence declines (or is only courtesy, "Sorry.") and none goes on to state something:
a "but ..." ("..., but the payment was 3 million dollars"), a clause after the declining words ("...,
who was John Smith"), a guess or what the source says after them and a comma ("I don't know, the
context says 240 pupils", "..., maybe 240"), or a quote or report of what someone said ("Police said
there is no information about the victims"). One that declines and also asserts something is checked
like any answer. Only short responses (:data:`MAX_WORDS`) qualify.
"""

from __future__ import annotations

import re

from trustscore.grounding._text import split_sentences

__all__ = ["MAX_WORDS", "abstention"]

MAX_WORDS = 40
"""Longer responses are never read as abstentions: they say more than that they cannot answer."""

_SOURCE = (
    r"(?:the\s+)?(?:provided\s+|given\s+|above\s+|two\s+|three\s+)?(?:context|passages?|text|documents?"
    r"|sources?|articles?|information(?:\s+(?:provided|given|above|available|here))?|excerpts?|reference)\b"
)
_NOT = r"(?:does\s+not|doesn['’]t|do\s+not|don['’]t|did\s+not|didn['’]t)"
_WRITING = r"(?:the\s+)?(?:provided\s+|given\s+|above\s+)?(?:context|passages?|text|excerpts?|extract|faq)\b"
"""What can only be the text the answer was to come from: "the text does not give the price" declines,
where "the source does not provide funding" states a fact."""
_IS_NOT = r"(?:(?:is|are|was|were)\s+not|isn['’]t|aren['’]t|wasn['’]t|weren['’]t)"
_ADVERB = r"(?:specifically|explicitly|directly|clearly|actually)"
_CANNOT = r"(?:cannot|can['’]t|can\s+not)"
_INFORMATION = r"(?:information|info|data|details?|answers?)"
_END = r"\s*(?:[.!?)]|$)"
_FROM_SOURCE = rf"\s+(?:in|from|by|within|based\s+on|given|using|with)\s+{_SOURCE}"
_ENDS = rf"(?={_END}|{_FROM_SOURCE}|\s*(?:here|anywhere|either)(?:{_END}|\s+in\s+{_SOURCE}))"
"""What may follow "is not mentioned" or "cannot be determined from" where it declines: the end of
the sentence, or where the answer is missing from ("the founder cannot be determined from the text"),
not what goes on to state a fact ("the address can not be found in a few ways", "tax is not mentioned
anywhere on the receipt")."""
_ON_IT = rf"(?:{_END}|\s+to\s+(?:answer|determine|say|tell|know|confirm)\b|\s+(?:in|from)\s+{_SOURCE}" + (
    r"|\s+(?:(?:provided|given|available)\s+)?(?:about|on|regarding|concerning)\b)"
)
"""What may follow the missing information where it declines: the end, "to answer", the source, or
what it is about ("I don't have that information", "no information provided about the founder"), not
a fact ("we do not have data caps", "there is no data fee")."""
_AN_ANSWER = (
    rf"(?={_END}|\s*[,:;]|\s+(?:what|who|whom|whose|when|where|why|how|whether|if|which)\b"
    rf"|\s+(?:that|this|it|the\s+answer|an\s+answer|the\s+question|this\s+question|for\s+(?:sure|certain))"
    rf"(?:{_END}|\s*,|{_FROM_SOURCE})|(?:\s+[\w'’-]+){{1,6}}?{_FROM_SOURCE})"
)
"""What may follow "I don't know", "I cannot answer": the end, a question ("who paid for it"), the
answer or the source ("I cannot determine the founder from the passages"), not a fact about the speaker
("I don't know much about cars", "I can't find my keys", "I can't say enough good things")."""
_PATTERNS = (
    # "the context does not say / mention who ...", "the passages do not provide any information";
    # but "the source does not provide funding", "the text does not contain errors" state facts
    rf"\b{_SOURCE}\s+(?:provided\s+|given\s+)?{_NOT}\s+(?:{_ADVERB}\s+)?(?:say|state|mention|specify|indicate"
    r"|tell|describe|address|answer|discuss|explain|name|identify)\b",
    rf"\b{_SOURCE}\s+(?:provided\s+|given\s+)?{_NOT}\s+(?:{_ADVERB}\s+)?(?:provide|include|contain|give|cover"
    rf"|offer|have)(?:\s+[\w'’-]+){{0,3}}?\s+(?:{_INFORMATION}|mention|specifics|explanation|instructions?"
    r"|guidance)\b",
    rf"\b{_WRITING}\s+{_NOT}\s+(?:{_ADVERB}\s+)?(?:say|state|mention|specify|give|list|reveal|quote|report)\b",
    rf"\b(?:none\s+of|neither\s+of|neither|nothing\s+in)\s+{_SOURCE}\s+(?:mentions?|says?|states?|specif(?:y|ies)"
    r"|provides?|includes?|contains?|gives?|indicates?|answers?)\b",
    rf"\b{_SOURCE}\s+(?:provided\s+|given\s+)?(?:makes?\s+no\s+mention|says?\s+nothing|mentions?\s+nothing)\b",
    # "this is not mentioned", "it isn't stated in the context", "that information isn't in the passage";
    # "given" and "included" only with the source ("breakfast is not included" states a fact)
    rf"\b{_IS_NOT}\s+(?:{_ADVERB}\s+)?(?:mentioned|stated|specified|indicated|described|addressed){_ENDS}",
    rf"\b{_IS_NOT}\s+(?:{_ADVERB}\s+)?(?:provided\s+|given\s+|included\s+|found\s+|present\s+|part\s+of\s+"
    rf"|named\s+|identified\s+)?(?:in\s+|within\s+)?{_SOURCE}(?:\s+(?:provided|given|above))?"
    r"(?=\s*(?:[.!?),;:]|$))",
    # "not available / known" declines only of the information or the source: "WiFi is not available",
    # "details are not available until Monday" state a fact
    rf"\b{_INFORMATION}\s+(?:is|are|was|were)\s+not\s+(?:available|known)(?={_END}|\s+(?:in|from)\s+{_SOURCE}"
    r"|\s+(?:about|on|regarding)\b)",
    r"\b(?:it|this|that)\s+(?:is|was)\s+not\s+known\s+(?:who|whom|whose|whether|what|when|where|why|how|if)\b",
    rf"\bnot\s+(?:available|known)\s+(?:in|from)\s+{_SOURCE}",
    # "there is no information about ...", "no relevant information was found"
    rf"\b(?:there\s+is|there['’]s|i\s+have|i\s+found|{_SOURCE}\s+contains?)\s+no\s+(?:relevant\s+)?"
    rf"(?:mention\b|{_INFORMATION}(?={_ON_IT}|\s+(?:is|was)\s+(?:given|provided|available)\b))",
    r"^\s*no\s+(?:relevant\s+)?(?:information|mention|answers?|details?)"
    rf"(?={_END}|\s+(?:about|on|regarding|concerning|in)\b|\s+(?:is|was|were|can\s+be)\s+(?:found|given"
    r"|provided|available|mentioned)\b(?!\s+by\b))",
    rf"^\s*no\s+(?:[\w'’-]+\s+){{1,3}}?(?:is|are|was|were)\s+(?:mentioned|stated|specified|given|listed){_ENDS}",
    r"^\s*(?:not\s+(?:mentioned|specified|stated|given|provided|available|known)|unknown|n/?a|no\s+answer)"
    r"\s*[.!]?\s*$",
    # "there isn't enough information to answer", "not enough information." (but "not enough
    # information to charge him", "insufficient information was provided by the contractor" report facts)
    rf"(?:\bnot\s+enough|n['’]t\s+enough|\binsufficient)\s+(?:relevant\s+)?{_INFORMATION}"
    rf"(?=(?:\s+(?:is|was)\s+(?:provided|given|available))?(?:{_END}|\s+to\s+(?:answer|determine|say|tell"
    rf"|know|confirm)\b|\s+in\s+{_SOURCE}|\s+(?:about|on|regarding)\s+(?:this|that|it){_END}))",
    # "I don't know.", "I cannot answer that", "I'm not sure.", "I have no idea", "I couldn't find that"
    rf"\bi\s+(?:do\s+not|don['’]t)\s+know{_AN_ANSWER}",
    r"\bi(?:\s+(?:cannot|can['’]t|can\s+not|am\s+unable\s+to|am\s+not\s+able\s+to)|\s*['’]m\s+(?:unable|not\s+able)"
    r"\s+to)\s+"
    rf"(?:(?:answer|say|tell|determine|find|know|confirm){_AN_ANSWER}|help\s+with\s+(?:that|this)(?={_END}))",
    rf"^\s*(?:based\s+on|from|given)\s+{_SOURCE}\s*,?\s*i\s+{_CANNOT}\s+(?:answer|say|tell|determine|know"
    r"|confirm)\b",
    r"\bi\s*(?:am|['’]m)\s+(?:not\s+(?:sure|certain)|unsure|uncertain)"
    rf"(?={_END}|\s+(?:what|whether|which|who|when|where|why|how)\b)",
    rf"\bi\s+(?:have|['’]ve)\s+no\s+idea{_AN_ANSWER}",
    rf"(?:\b(?:i|we)\s+(?:could\s+not|couldn['’]t|{_CANNOT}|did\s+not|didn['’]t|(?:was|were)\s+unable"
    r"\s+to)|\bunable\s+to)\s+find\s+(?:that|it|this|the\s+answer|an\s+answer|anything|any\s+mention"
    rf"|(?:any|the|that|this)?\s*information)(?={_ON_IT})",
    rf"\b(?:i|we|{_SOURCE})\s+{_NOT}\s+have\s+(?:enough\s+|sufficient\s+|the\s+|that\s+|this\s+|any\s+"
    rf"|access\s+to\s+(?:that\s+|this\s+|the\s+|any\s+)?)?{_INFORMATION}(?={_ON_IT})",
    # "the question cannot be answered", "it cannot be determined from the text", "it is not possible
    # to determine from the passages" (but "the cause of death cannot be determined" reports a finding)
    rf"\b{_CANNOT}\s+be\s+answered{_ENDS}",
    rf"(?:^|[.!?,;:]\s*|\b(?:but|so|therefore|and)\s+)(?:it|this|that|the\s+answer|the\s+question)\s+{_CANNOT}"
    rf"\s+be\s+(?:determined|found|inferred|confirmed|said|told){_ENDS}",
    rf"\b{_CANNOT}\s+be\s+(?:determined|found|inferred|confirmed){_FROM_SOURCE}",
    rf"\b(?:not\s+possible|impossible)\s+to\s+(?:determine|tell|say|know|answer)(?:{_END}|(?:\s+[\w'’-]+){{0,6}}?"
    rf"{_FROM_SOURCE})",
    # "Unable to answer based on given passages", "we are unable to determine that"
    r"(?:^\s*(?:answer\s*:\s*)?|[.!?]\s+|\b(?:i|we|it)(?:\s+(?:am|are|is|was|were)|\s*['’](?:m|re|s))\s+)unable\s+to\s+"
    rf"(?:answer|determine{_AN_ANSWER})",
    rf"\b(?:unknown|unanswerable)\s+(?:from|based\s+on|given|with)\s+{_SOURCE}",
    rf"\b(?:unclear|not\s+clear|not\s+possible\s+to\s+(?:tell|determine|say|know))\s+(?:from|based\s+on"
    rf"|given|in)\s+{_SOURCE}",
)
_DECLINES = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)
_CONTRAST = re.compile(r"\b(?:but|however|although|though|while|whereas|yet|instead)\b", re.IGNORECASE)
"""A declining sentence that also sets something against it ("it was not clear from the documents,
but the payment was 3 million dollars") states that something."""
_GOES_ON = re.compile(
    r"[;:()]|\s[-–—]\s|,\s*(?:who|which|whose|where|and|as|since|because|so|i|we|you|he|she|it|they|there)\b"
    r"|\b(?:because|since)\b",
    re.IGNORECASE,
)
"""After the declining words, a clause of its own ("..., who was John Smith", "...; the king died in
1066", "... because she asked not to be named"): it states something."""
_GUESS_AFTER = re.compile(
    r",\s*(?:but\s+)?(?:(?:maybe|perhaps|probably|possibly|likely|about|around|roughly|approximately)\b"
    r"|i\s+(?:think|guess|believe|suppose)\b"
    rf"|(?:it|{_SOURCE})\s+(?:says?|states?|mentions?|shows?|lists?|notes?|reports?|indicates?|gives?)\s+"
    r"(?:that\s+)?(?!(?:about|of|on|regarding|concerning|anything|nothing|so)\b)\S)",
    re.IGNORECASE,
)
"""After the declining words and a comma, a guess or what the source says ("I don't know, maybe 240",
"I don't know, probably Paris", "I don't know, the context says 240 pupils"): the answer after all, to
be checked like any other. Words inside the declined question are no answer ("I don't know which of
the 3 options is right", "the context does not say what happened in 2019", "I don't know what the
report says")."""
_REPORTED = re.compile(
    r"[\"“”]|\b(?:said|told|wrote|according\s+to|reported|announced|added)\b",
    re.IGNORECASE,
)
"""Quoted or reported words ("Police said there is no information about the victims"): a report of
what someone else does not know, which is a claim."""
_LEAD = re.compile(
    r"^\s*(?:(?:(?:i\s*(?:am|['’]m)\s+)?sorry|unfortunately|apologies)\s*,?\s*(?:but\s+)?"
    r"|(?:however|but|yet|still|also|therefore|so)\b\s*,?\s*|answer\s*:\s*)",
    re.IGNORECASE,
)
"""Courtesy, a link to the sentence before, or an "Answer:" label opening a declining sentence ("I'm
sorry, but I can't answer that", "However, the passages do not say"): no contrast inside it."""
_COURTESY = re.compile(
    r"^\s*(?:(?:(?:i\s*(?:am|['’]m)\s+)?sorry|i\s+apologi[sz]e|unfortunately|apologies|thank\s+you|thanks"
    r"|i\s+hope\s+this\s+helps)\W*|(?:please\s+(?:consult|check|refer\s+to|provide|let\s+me\s+know)|you\s+(?:may"
    r"|might|could|can)\s+(?:want\s+to\s+)?(?:check|consult|refer\s+to|look|search|contact)|is\s+there\s+"
    r"anything\s+else|let\s+me\s+know)\b.*)$",
    re.IGNORECASE,
)
"""A sentence that says nothing but courtesy beside a declining one ("Sorry.", "Please consult another
source.", "Is there anything else I can help with?"), unless it holds a number or a clause of its own
("Please check the website, it says the museum opened in 1998")."""
_DIGIT = re.compile(r"\d")
_ASKED = re.compile(
    r"\s+(?:what|who|whom|whose|when|where|why|how|whether|if|which)\b[^,;:\"“”]*", re.IGNORECASE
)
"""The question a declining phrase names ("does not say how many books she wrote"), up to a comma."""


def _unasked(text: str, end: int) -> str:
    """``text`` without the question named right after its declining words (``end``): a report's word
    there ("wrote", "said") is the question's, not a report of what someone said."""
    asked = _ASKED.match(text, end)
    return text if asked is None else text[: asked.start()] + text[asked.end() :]


def abstention(response: str) -> str | None:
    """The declining phrase of ``response`` when the response is an abstention, else None: every
    sentence declines to answer (or is only courtesy, "Sorry."), and none goes on to state something
    (a "but ...", a clause after the declining words, a report of what someone said)."""
    if len(response.split()) > MAX_WORDS:
        return None
    first: str | None = None
    for sentence in split_sentences(response):
        text = sentence.text
        if _COURTESY.match(text) and not _DIGIT.search(text) and not _GOES_ON.search(text):
            continue
        found = list(_DECLINES.finditer(text))
        if (
            not found
            or _CONTRAST.search(_LEAD.sub("", text))
            or _REPORTED.search(_unasked(text, found[-1].end()))
        ):
            return None
        end = found[-1].end()
        if _GOES_ON.search(text, end) or _GUESS_AFTER.search(text, end):
            return None
        first = first or found[0].group(0)
    return first
