"""A yes or no to a yes/no question: the answer states the question, asserted or denied.

"Was the school founded in 1953?" answered "No, it was not." says "the school was not founded in
1953"; its own words ("No", "it was not") name nothing to check, and a word match reads the "no" as
a word the context holds. The grounding signals check the question's statement in their place:
:func:`polar_reply` finds the reply, :class:`PolarReply` gives the text to check and maps what is
found in it back to the response.

Only a plain reading is taken: a question of a few words that opens with an auxiliary ("is",
"does", "can", ...) and ends with a question mark, states no negation of its own ("Isn't it ...?"
answered "No" is ambiguous), asks with no question word ("Will Smith acted in which film?") and offers
no alternatives ("Is it open on Saturday or Sunday?"), answered by "Yes" or "No" standing alone or
followed by punctuation ("No. 1" is a rank), optionally echoed ("Yes, it was.", "No, it doesn't.").
Anything else is read as written.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from trustscore._types import Sample
from trustscore.grounding._text import split_sentences

__all__ = ["PolarReply", "polar_reply"]

_AUXILIARIES = "is|are|was|were|am|do|does|did|has|have|had|can|could|will|would|shall|should|may|might|must"
_POLAR_QUESTION = re.compile(rf"(?:{_AUXILIARIES})\b", re.IGNORECASE)
_ASKS_OTHERWISE = re.compile(
    r"\b(?:or|not|never|no|none|nothing|nobody|neither|nor|without|which|what|who|whom|whose|when|where|why|how)"
    r"\b|n't\b",
    re.IGNORECASE,
)
"""A question with alternatives, a negation of its own (its "no" is ambiguous) or a question word
("Will Smith acted in which film?"): no yes or no answers it plainly."""
_OPENER = re.compile(
    r"\s*(?P<word>yes|no)(?=\s*(?:[,!;:\u2013\u2014]|\.(?!\s*\d)|\s-\s|$))[,.!;:\u2013\u2014\s-]*",
    re.IGNORECASE,
)
"""A yes or no standing alone or before punctuation; not "No one", "No-one" or "No. 1"."""
_MAX_QUESTION_WORDS = 40
"""Longer questions are read as written: a yes or no to them states too much to be one statement, and
turning them into one costs a parse per word."""
_ECHO = re.compile(
    rf"(?:it|he|she|they|there|this|that|you|we|i)\s+"
    rf"(?:(?P<aux>{_AUXILIARIES})(?P<neg>\s+not|n['\u2019]t)?|(?P<negated>(?:can|won|shan)['\u2019]t|cannot))"
    r"\s*(?:[.!]\s*|$)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class PolarReply:
    """A response that opens with a yes or no to a yes/no question."""

    question: str
    """The question's sentence, as asked (without its question mark)."""
    denied: bool
    """The reply is a no: the response denies the question's statement."""
    reply: tuple[int, int]
    """Where the yes or no, with its echo, stands in the response."""
    rest: str
    """The rest of the response, read as written."""
    rest_start: int

    @property
    def text(self) -> str:
        """What a word or sentence match checks: the question's statement, then the rest."""
        asked = f"{self.question}?"
        return f"{asked}\n{self.rest}" if self.rest.strip() else asked

    def sample(self, sample: Sample) -> Sample:
        """``sample`` with :attr:`text` as its response and no question: the question is now what the
        response claims, so it cannot also be what supports it."""
        return sample.model_copy(update={"response": self.text, "question": ""})

    def asks(self, start: int) -> bool:
        """Whether ``text[start]`` lies in the question's statement, not in the rest of the response."""
        return start <= len(self.question) + 1

    def in_response(self, start: int, end: int) -> tuple[int, int]:
        """The response's span for ``text[start:end]``: the reply for what lies in the question."""
        if self.asks(start):
            return self.reply
        shift = self.rest_start - (len(self.question) + 2)
        return start + shift, end + shift


def polar_reply(question: str, response: str) -> PolarReply | None:
    """The response's yes or no to ``question``, when it is a yes/no question plainly answered."""
    asked = _last_sentence(question)
    if asked is None:
        return None
    response = _folded(response)
    opener = _OPENER.match(response)
    if opener is None:
        return None
    denied = opener.group("word").lower() == "no"
    end = opener.end()
    echo = _ECHO.match(response, end)
    if echo is not None:
        echo_denies = echo.group("neg") is not None or echo.group("negated") is not None
        if echo_denies != denied:
            return None  # "Yes, it isn't." or "No, it is.": no plain reading
        end = echo.end()
    reply_end = len(response[:end].rstrip(" \t\r\n,;:\u2013\u2014-"))
    return PolarReply(
        question=asked,
        denied=denied,
        reply=(len(response) - len(response.lstrip()), reply_end),
        rest=response[end:],
        rest_start=end,
    )


def _last_sentence(question: str) -> str | None:
    sentences = split_sentences(_folded(question).replace("\u2019", "'"))
    if not sentences or not sentences[-1].text.rstrip().endswith("?"):
        return None
    asked = sentences[-1].text.rstrip().rstrip("?").strip()
    words = len(asked.split())
    if (
        not _POLAR_QUESTION.match(asked)
        or _ASKS_OTHERWISE.search(asked)
        or not 3 <= words <= _MAX_QUESTION_WORDS
    ):
        return None
    return asked


def _folded(text: str) -> str:
    """``text`` in NFKC ("ＮＯ，" as "NO,"), where that keeps every offset; else as given."""
    folded = unicodedata.normalize("NFKC", text)
    return folded if len(folded) == len(text) else text
