"""Does the response decline to answer? "The context does not say who founded it", "I don't know",
"This is not mentioned in the passage": an abstention states no claim, so it is neither supported
nor invented, and the grounding signals report it as such (an ``abstention`` outcome) instead of
counting its words as unsupported.

Recognised by English phrasings of declining, anchored on what is missing (the context, the passage,
information, an answer) or on the speaker not knowing; a response that declines in one sentence and
then asserts something else is not an abstention (only short responses, :data:`MAX_WORDS`, qualify).
"""

from __future__ import annotations

import re

__all__ = ["MAX_WORDS", "abstention"]

MAX_WORDS = 40
"""Longer responses are never read as abstentions: they say more than that they cannot answer."""

_SOURCE = (
    r"(?:the\s+)?(?:provided\s+|given\s+)?(?:context|passages?|text|documents?|sources?|articles?"
    r"|information(?:\s+\w+)?|excerpts?|reference)"
)
_NOT = r"(?:does\s+not|doesn['’]t|do\s+not|don['’]t|did\s+not|didn['’]t)"
_IS_NOT = r"(?:(?:is|are|was|were)\s+not|isn['’]t|aren['’]t|wasn['’]t|weren['’]t)"
_INFORMATION = r"(?:information|data|details?|answers?)"
_ENDS = (
    rf"(?=\s*(?:[.!?;:,)]|$|(?:in|from|by|within|based\s+on|given|using|with)\s+{_SOURCE}\b"
    r"|(?:here|anywhere|either)\b))"
)
"""What may follow "is not mentioned" or "cannot be determined" where it declines: the end of the
sentence or where the answer is missing from ("the founder cannot be determined from the text"), not
what goes on to state a fact ("the address can not be found in a few ways", "feedback is not provided
to you on a display")."""
_PATTERNS = (
    # "the context does not say / mention / specify who ...", "none of the passages mention it"
    rf"\b{_SOURCE}\s+(?:provided\s+|given\s+)?{_NOT}"
    r"\s+(?:say|state|mention|specify|provide|include|contain|give|indicate|tell|describe|cover|address)",
    rf"\bnone\s+of\s+{_SOURCE}\s+(?:mentions?|says?|states?|specif(?:y|ies)|provides?|includes?"
    r"|contains?|gives?|indicates?)\b",
    rf"\b{_SOURCE}\s+(?:provided\s+|given\s+)?makes?\s+no\s+mention\b",
    # "is not mentioned / stated / given in the context", "that information isn't in the passage"
    r"\b(?:is|are|was|were)\s+not\s+(?:mentioned|stated|specified|provided|given|included|indicated|"
    rf"described|addressed){_ENDS}",
    rf"\b{_IS_NOT}\s+(?:in|found\s+in|included\s+in|given\s+in|present\s+in|part\s+of)\s+{_SOURCE}",
    # "not available / known" declines only of the information or the source: "WiFi is not available",
    # "it is not known as the gain" state a fact
    r"\b(?:information|details?|answers?|data)\s+(?:is|are|was|were)\s+not\s+(?:available|known)"
    r"\b(?!\s+(?:as|for|to)\b)",
    r"\b(?:it|this|that)\s+(?:is|was)\s+not\s+known\s+(?:who|whom|whose|whether|what|when|where|why|how|if)\b",
    rf"\bnot\s+(?:available|known)\s+(?:in|from)\s+{_SOURCE}",
    r"\bnot\s+(?:mentioned|stated|specified|provided|given)\s+in\b",
    # "there is no information about ...", "no information is given", "there isn't enough information
    # to answer" (but "not enough information to charge him" reports a fact)
    r"\b(?:there\s+is|there['’]s|i\s+have|i\s+found|contains?)\s+no\s+(?:relevant\s+)?"
    r"(?:information|mention|details?|data|answer)\b",
    r"^\s*no\s+(?:relevant\s+)?(?:information|mention|answer|details?)\b",
    rf"(?:\bnot\s+enough|n['’]t\s+enough|\binsufficient)\s+(?:relevant\s+)?(?:information|data|details?|context)"
    rf"(?=\s*(?:[.!;:]|$|to\s+(?:answer|determine|say|tell|know|confirm|provide)\b|in\s+{_SOURCE}"
    r"|(?:is\s+|was\s+)?(?:provided|given|available)\b|(?:about|on|regarding)\s+(?:this|that|it)\b))",
    # "I don't know", "I cannot answer", "I am unable to determine", "I'm not sure.", "I have no idea"
    r"\bi\s+(?:do\s+not|don['’]t)\s+know\b",
    r"\bi\s+(?:cannot|can['’]t|can\s+not|am\s+unable\s+to|am\s+not\s+able\s+to)\s+"
    r"(?:answer|say|tell|determine|find|know|confirm)\b",
    r"\bi\s*(?:am|['’]m)\s+(?:not\s+(?:sure|certain)|unsure|uncertain)"
    r"(?=\s*(?:[.!;:]|$|(?:what|whether|which|who|when|where|why|how|if|about|of)\b))",
    r"\bi\s+(?:have|['’]ve)\s+no\s+idea\b",
    r"\b(?:i|we)\s+(?:could\s+not|couldn['’]t|cannot|can['’]t|did\s+not|didn['’]t|(?:was|were)\s+unable"
    r"\s+to)\s+find\b",
    rf"\b(?:i|we|{_SOURCE})\s+{_NOT}\s+have\s+(?:enough\s+|sufficient\s+|the\s+|that\s+|this\s+|any\s+"
    rf"|access\s+to\s+(?:that\s+|this\s+|the\s+|any\s+)?)?{_INFORMATION}\b",
    rf"\b(?:cannot|can['’]t|can\s+not)\s+be\s+(?:determined|answered|found|inferred|confirmed){_ENDS}",
    r"\bunable\s+to\s+(?:answer|determine|find)\b",
    r"\b(?:unknown|unanswerable)\s+(?:from|based\s+on|given)\s+(?:the\s+)?(?:context|passages?|text)\b",
    rf"\b(?:unclear|not\s+clear|not\s+possible\s+to\s+(?:tell|determine|say|know))\s+(?:from|based\s+on"
    rf"|given|in)\s+{_SOURCE}",
)
_DECLINES = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)


def abstention(response: str) -> str | None:
    """The declining phrase of ``response`` when the response is an abstention, else None."""
    if len(response.split()) > MAX_WORDS:
        return None
    found = _DECLINES.search(response)
    return None if found is None else found.group(0)
