"""What a denial does in a sentence that copies a context sentence in part (:mod:`._aligned`).

A negation added or removed in a copy says the opposite of the context, unless the denial only moved:
into the subject ("No trains run" for "Trains do not run"), or to the words it denies elsewhere in the
sentence ("Glass can go in, but not plastic bags" for "..., but plastic bags and batteries are not").
A sentence that denies a report ("did not say") claims nothing of what the report would have said, and
a negation bounded by "until" says when, not whether.
"""

from __future__ import annotations

from itertools import pairwise

from trustscore.grounding._function_words import STOPWORDS
from trustscore.grounding.claims._tokens import Token, words_only

__all__ = ["TURNS", "denials", "denies_saying", "moved_denial", "moved_to_subject", "until_bounded"]

_SAYING = frozenset(
    [
        *("say", "says", "said", "tell", "tells", "told", "report", "reports", "reported"),
        *("mention", "mentions", "mentioned", "state", "states", "stated", "announce", "announces"),
        *("announced", "claim", "claims", "claimed"),
    ]
)
"""Verbs of saying as written: "did not say" denies a report, not what it would have said."""
DENIALS = frozenset({"not", "n't", "never"})
"""Words that deny a verb: the copy check's negations but "no", which denies a noun ("no report of
injuries" denies no report)."""
_UNTIL = frozenset({"until", "till"})
TURNS = frozenset(
    {"not", "n't", "no", "never", "non", "without", "nor", "neither", "none", "nothing"}
    | {"unable", "fail", "fails", "failed", "lack", "lacks", "lacked", "refuse", "refused"}
    | {"hardly", "barely", "rarely", "seldom"}
)
"""Words a change turns a statement with: two such changes side by side may agree ("Non-members do not
get free entry"), and "unable to make much headway" is "little headway"."""
_NEAR = 4
"""Words on each side of a denial that say what it denies."""


def until_bounded(changed: list[Token], rest: list[Token]) -> bool:
    """The negation changed on this side is bounded by "until" after it ("does not arrive ... until
    after noon"); a context's "frozen until June" bounds no negation."""
    return any(t.key in DENIALS for t in changed) and any(t.key in _UNTIL for t in words_only(rest))


def denials(sentence: list[Token]) -> int:
    return sum(t.key in DENIALS for t in words_only(sentence))


def moved_to_subject(mine: list[Token], theirs: list[Token]) -> bool:
    """One sentence opens with a "no" that denies its subject ("No trains run on Christmas Day"), and
    with it both deny as often: "Trains do not run on Christmas Day" moved the denial, it added none."""
    opens = [_opens_with_no(mine), _opens_with_no(theirs)]
    return opens[0] != opens[1] and (denials(mine) + opens[0]) % 2 == (denials(theirs) + opens[1]) % 2


def _opens_with_no(sentence: list[Token]) -> bool:
    """ "No" opens the sentence before a word ("No trains"), not an answer's "No," or "No."."""
    return len(sentence) > 1 and sentence[0].key == "no" and sentence[1].key[:1].isalnum()


def denies_saying(sentence: list[Token]) -> bool:
    """The sentence denies a report ("did not say", "never said"): what the report would have said is
    no claim of it, so no change inside it is one, a negation moved into or out of it neither ("did not
    say the budget was loose" against "said the budget was tight"; the polarity check reads "did not
    say" against "said" with the report's words)."""
    return any(a.key in DENIALS and b.key in _SAYING for a, b in pairwise(words_only(sentence)))


def moved_denial(mine: list[Token], theirs: list[Token], span: tuple[int, int, int, int]) -> bool:
    """The denial the change at ``span`` adds or drops stands elsewhere in the other sentence, beside
    the words it denies on this side: "Glass can go in, but not plastic bags, textiles or batteries" for
    "Glass is accepted, but plastic bags, textiles and batteries are not" moves the "not"; "While the
    ACLU is satisfied ... the old rules did not work" for "The ACLU isn't satisfied" denies another thing."""
    i1, i2, j1, j2 = span
    for one, other, changed in ((mine, theirs, mine[i1:i2]), (theirs, mine, theirs[j1:j2])):
        denial = next((t for t in changed if t.key in DENIALS), None)
        if denial is not None and any(
            _denied(one, denial) & _denied(other, t) for t in other if t.key in DENIALS
        ):
            return True
    return False


def _denied(sentence: list[Token], denial: Token) -> set[str]:
    """The content words within :data:`_NEAR` words of the denial."""
    words = words_only(sentence)
    n = words.index(denial)
    return {t.key for t in words[max(0, n - _NEAR) : n + _NEAR + 1] if t.key not in STOPWORDS | DENIALS}
