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
    r"(?:the\s+)?(?:context|passages?|text|documents?|sources?|articles?|information(?:\s+\w+)?"
    r"|excerpts?|reference)"
)
_PATTERNS = (
    # "the context does not say / mention / specify who ..."
    rf"\b{_SOURCE}\s+(?:provided\s+|given\s+)?(?:does\s+not|doesn['’]t|do\s+not|don['’]t|did\s+not|didn['’]t)"
    r"\s+(?:say|state|mention|specify|provide|include|contain|give|indicate|tell|describe|cover|address)",
    # "is not mentioned / stated / given in the context"
    r"\b(?:is|are|was|were)\s+not\s+(?:mentioned|stated|specified|provided|given|included|indicated|"
    r"described|addressed)\b",
    # "not available / known" declines only of the information or the source: "WiFi is not available",
    # "it is not known as the gain" state a fact
    r"\b(?:information|details?|answers?|data)\s+(?:is|are|was|were)\s+not\s+(?:available|known)"
    r"\b(?!\s+(?:as|for|to)\b)",
    r"\b(?:it|this|that)\s+(?:is|was)\s+not\s+known\s+(?:who|whom|whose|whether|what|when|where|why|how|if)\b",
    rf"\bnot\s+(?:available|known)\s+(?:in|from)\s+{_SOURCE}",
    r"\bnot\s+(?:mentioned|stated|specified|provided|given)\s+in\b",
    # "there is no information about ...", "no information is given"
    r"\b(?:there\s+is|there['’]s|i\s+have|i\s+found|contains?)\s+no\s+(?:information|mention|details?|data|answer)\b",
    r"^\s*no\s+(?:information|mention|answer|details?)\b",
    # "I don't know", "I cannot answer", "I am unable to determine"
    r"\bi\s+(?:do\s+not|don['’]t)\s+know\b",
    r"\bi\s+(?:cannot|can['’]t|can\s+not|am\s+unable\s+to|am\s+not\s+able\s+to)\s+"
    r"(?:answer|say|tell|determine|find|know|confirm)\b",
    r"\b(?:cannot|can['’]t|can\s+not)\s+be\s+(?:determined|answered|found|inferred|confirmed)\b",
    r"\bunable\s+to\s+(?:answer|determine|find)\b",
    r"\b(?:unknown|unanswerable)\s+(?:from|based\s+on|given)\s+(?:the\s+)?(?:context|passages?|text)\b",
)
_DECLINES = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)


def abstention(response: str) -> str | None:
    """The declining phrase of ``response`` when the response is an abstention, else None."""
    if len(response.split()) > MAX_WORDS:
        return None
    found = _DECLINES.search(response)
    return None if found is None else found.group(0)
