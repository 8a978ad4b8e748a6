"""Does the response decline to answer? "The context does not say who founded it", "I don't know",
"This is not mentioned in the passage": an abstention states no claim, so it is neither supported
nor invented, and the grounding signals report it as such (an ``abstention`` outcome) instead of
counting its words as unsupported.

Recognised by English phrasings of declining, anchored on what is missing (the context, the passage,
information, an answer) or on the speaker not knowing or not finding it. A response is an abstention
only when every sentence declines (or is only courtesy, "Sorry.") and none also sets something against
it ("..., but the payment was 3 million dollars"): one that declines and also asserts something is
checked like any answer. Only short responses (:data:`MAX_WORDS`) qualify.
"""

from __future__ import annotations

import re

from trustscore.grounding._text import split_sentences

__all__ = ["MAX_WORDS", "abstention"]

MAX_WORDS = 40
"""Longer responses are never read as abstentions: they say more than that they cannot answer."""

_SOURCE = (
    r"(?:the\s+)?(?:provided\s+|given\s+)?(?:context|passages?|text|documents?|sources?|articles?"
    r"|information(?:\s+(?:provided|given|above|available|here))?|excerpts?|reference)\b"
)
_NOT = r"(?:does\s+not|doesn['’]t|do\s+not|don['’]t|did\s+not|didn['’]t)"
_IS_NOT = r"(?:(?:is|are|was|were)\s+not|isn['’]t|aren['’]t|wasn['’]t|weren['’]t)"
_ADVERB = r"(?:specifically|explicitly|directly|clearly|actually)"
_CANNOT = r"(?:cannot|can['’]t|can\s+not)"
_INFORMATION = r"(?:information|info|data|details?|answers?)"
_END = r"\s*(?:[.!?)]|$)"
_ENDS = (
    rf"(?={_END}|\s*(?:in|from|by|within|based\s+on|given|using|with)\s+{_SOURCE}"
    r"|\s*(?:here|anywhere|either)\b)"
)
"""What may follow "is not mentioned" or "cannot be determined from" where it declines: the end of
the sentence, or where the answer is missing from ("the founder cannot be determined from the text"),
not what goes on to state a fact ("the address can not be found in a few ways")."""
_ON_IT = rf"(?:{_END}|\s+to\s+(?:answer|determine|say|tell|know|confirm)\b|\s+(?:in|from)\s+{_SOURCE}" + (
    r"|\s+(?:about|on|regarding|concerning)\b)"
)
"""What may follow the missing information where it declines: the end, "to answer", the source, or
what it is about ("I don't have that information", "no information about the founder"), not a fact
("we do not have data caps", "there is no data fee")."""
_PATTERNS = (
    # "the context does not say / mention / specify who ...", "none of the passages mention it"
    rf"\b{_SOURCE}\s+(?:provided\s+|given\s+)?{_NOT}"
    r"\s+(?:say|state|mention|specify|provide|include|contain|give|indicate|tell|describe|cover|address)\b",
    rf"\bnone\s+of\s+{_SOURCE}\s+(?:mentions?|says?|states?|specif(?:y|ies)|provides?|includes?"
    r"|contains?|gives?|indicates?)\b",
    rf"\b{_SOURCE}\s+(?:provided\s+|given\s+)?makes?\s+no\s+mention\b",
    # "this is not mentioned", "it isn't stated in the context", "that information isn't in the passage";
    # "given" and "included" only with the source ("breakfast is not included" states a fact)
    rf"\b{_IS_NOT}\s+(?:{_ADVERB}\s+)?(?:mentioned|stated|specified|indicated|described|addressed){_ENDS}",
    rf"\b{_IS_NOT}\s+(?:provided\s+|given\s+|included\s+|found\s+|present\s+|part\s+of\s+)?"
    rf"(?:in\s+|within\s+)?{_SOURCE}(?:\s+(?:provided|given|above))?(?=\s*(?:[.!?),;:]|$))",
    # "not available / known" declines only of the information or the source: "WiFi is not available",
    # "it is not known as the gain" state a fact
    r"\b(?:information|details?|answers?|data)\s+(?:is|are|was|were)\s+not\s+(?:available|known)"
    r"\b(?!\s+(?:as|for|to)\b)",
    r"\b(?:it|this|that)\s+(?:is|was)\s+not\s+known\s+(?:who|whom|whose|whether|what|when|where|why|how|if)\b",
    rf"\bnot\s+(?:available|known)\s+(?:in|from)\s+{_SOURCE}",
    # "there is no information about ...", "no relevant information was found"
    rf"\b(?:there\s+is|there['’]s|i\s+have|i\s+found|contains?)\s+no\s+(?:relevant\s+)?(?:mention\b"
    rf"|{_INFORMATION}(?={_ON_IT}|\s+(?:is|was)\s+(?:given|provided|available)\b))",
    r"^\s*no\s+(?:relevant\s+)?(?:information|mention|answers?|details?)"
    rf"(?={_END}|\s+(?:about|on|regarding|concerning|in)\b|\s+(?:is|was|were)\s+(?:found|given|provided"
    r"|available|mentioned)\b)",
    # "there isn't enough information to answer", "not enough information." (but "not enough
    # information to charge him", "insufficient information was provided by the contractor" report facts)
    rf"(?:\bnot\s+enough|n['’]t\s+enough|\binsufficient)\s+(?:relevant\s+)?{_INFORMATION}"
    rf"(?=(?:\s+(?:is|was)\s+(?:provided|given|available))?(?:{_END}|\s+to\s+(?:answer|determine|say|tell"
    rf"|know|confirm)\b|\s+in\s+{_SOURCE}|\s+(?:about|on|regarding)\s+(?:this|that|it){_END}))",
    # "I don't know", "I cannot answer", "I am unable to determine", "I'm not sure.", "I have no idea"
    r"\bi\s+(?:do\s+not|don['’]t)\s+know\b",
    r"\bi\s+(?:cannot|can['’]t|can\s+not|am\s+unable\s+to|am\s+not\s+able\s+to)\s+"
    r"(?:answer|say|tell|determine|find|know|confirm)\b",
    r"\bi\s*(?:am|['’]m)\s+(?:not\s+(?:sure|certain)|unsure|uncertain)"
    rf"(?={_END}|\s+(?:what|whether|which|who|when|where|why|how)\b)",
    r"\bi\s+(?:have|['’]ve)\s+no\s+idea\b",
    # "I couldn't find that in the context", "unable to find the answer" (but "we could not find any
    # survivors" states a fact)
    rf"(?:\b(?:i|we)\s+(?:could\s+not|couldn['’]t|{_CANNOT}|did\s+not|didn['’]t|(?:was|were)\s+unable"
    r"\s+to)|\bunable\s+to)\s+find\s+(?:that|it|this|the\s+answer|an\s+answer|anything|any\s+mention"
    rf"|(?:any|the|that|this)?\s*information)(?={_ON_IT})",
    rf"\b(?:i|we|{_SOURCE})\s+{_NOT}\s+have\s+(?:enough\s+|sufficient\s+|the\s+|that\s+|this\s+|any\s+"
    rf"|access\s+to\s+(?:that\s+|this\s+|the\s+|any\s+)?)?{_INFORMATION}(?={_ON_IT})",
    # "the question cannot be answered", "it cannot be determined from the text" (but "the cause
    # cannot be determined" may report what investigators found)
    rf"\b{_CANNOT}\s+be\s+answered{_ENDS}",
    rf"\b(?:it|this|that|which|who|what|when|where|how\s+\w+|the\s+answer|the\s+question)\s+{_CANNOT}"
    r"\s+be\s+(?:determined|found"
    rf"|inferred|confirmed|said|told){_ENDS}",
    rf"\b{_CANNOT}\s+be\s+(?:determined|found|inferred|confirmed)\s+(?:from|in|by|based\s+on|given|using"
    rf"|with)\s+{_SOURCE}",
    # "Unable to answer based on given passages", "we are unable to determine"
    r"(?:^|[.!?]\s+|\b(?:i|we|it)\s+(?:am|['’]m|are|['’]re|is|was|were)\s+)unable\s+to\s+(?:answer|determine)\b",
    r"\b(?:unknown|unanswerable)\s+(?:from|based\s+on|given)\s+(?:the\s+)?(?:context|passages?|text)\b",
    rf"\b(?:unclear|not\s+clear|not\s+possible\s+to\s+(?:tell|determine|say|know))\s+(?:from|based\s+on"
    rf"|given|in)\s+{_SOURCE}",
)
_DECLINES = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)
_CONTRAST = re.compile(r"\b(?:but|however|although|though|while|whereas|yet|instead)\b", re.IGNORECASE)
"""A declining sentence that also sets something against it ("it was not clear from the documents,
but the payment was 3 million dollars") states that something."""
_LEAD = re.compile(
    r"^\s*(?:(?:(?:i\s*(?:am|['’]m)\s+)?sorry|unfortunately|apologies)\s*,?\s*(?:but\s+)?"
    r"|(?:however|but|yet|still|also|therefore|so)\b\s*,?\s*)",
    re.IGNORECASE,
)
"""Courtesy or a link to the sentence before, opening a declining sentence ("I'm sorry, but I can't
answer that", "However, the passages do not say"): no contrast inside it."""
_COURTESY = re.compile(
    r"^\s*(?:(?:i\s*(?:am|['’]m)\s+)?sorry|i\s+apologi[sz]e|unfortunately|apologies|thank\s+you|thanks"
    r"|i\s+hope\s+this\s+helps)\W*$",
    re.IGNORECASE,
)
"""A sentence that says nothing but courtesy beside a declining one ("Sorry." "I apologise.")."""


def abstention(response: str) -> str | None:
    """The declining phrase of ``response`` when the response is an abstention, else None: every
    sentence declines to answer (or is only courtesy, "Sorry."), and none also sets something against
    it ("but ...")."""
    if len(response.split()) > MAX_WORDS:
        return None
    first: str | None = None
    for sentence in split_sentences(response):
        if _COURTESY.match(sentence.text):
            continue
        found = _DECLINES.search(sentence.text)
        if found is None or _CONTRAST.search(_LEAD.sub("", sentence.text)):
            return None
        first = first or found.group(0)
    return first
