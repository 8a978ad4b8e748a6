"""A value's frame: the words written right around it, which name its slot where the parse names none.

"located at 3561 Coast Village Rd" and the record's ``"address": "1187 Coast Village Rd"``, "in
aerospace they earn about $32 per hour or $99,450 per year on average" and "... $66,300 per year on
average": the response's value and the context's stand between the same words, and those words say
which slot the value fills, however differently the two sentences go on or are parsed. A number the
context never states meets a context number of the same kind in its frame as a rival
(:func:`framed_rival`): its slot holds another value there.

A frame holds when the words touching the two values agree, on their left and on their right (their
lemmas, punctuation included, up to :data:`REACH` words a side), and the agreeing words hold at least
:data:`CONTENT` words that are neither function words nor years: "per year", "a total of" or "in
fiscal 2023" name no slot, "Coast Village Rd" and "$32 per hour or" do. The same number in another
unit of measure needs one ("simmer for 15 hours" where the context simmers "for 15 minutes"): the
number agrees already. No frame:

- one that two of the context's values share: the response's may be their sum or another's;
- around a bound or an estimate ("at least $144 per night", "about $66,000 per year"), which may be a
  sum or a rounding of the values it stands among;
- around a number set off by commas: "Magnus Carlsen, 3," may give his score where "Magnus Carlsen,
  33," gives his age (:mod:`._ages` reads a person's age).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence

from trustscore.grounding._function_words import STOPWORDS
from trustscore.grounding.claims._atoms import Atom
from trustscore.grounding.claims._numeric import another_measure, of_other_things, one_amount, same_number
from trustscore.grounding.claims._values import DIGITS

__all__ = ["Words", "framed_rival"]

REACH = 4
"""The most words read on each side of a value."""
CONTENT = 2
"""The fewest agreeing content words (not function words, not the value's own unit) a frame needs."""
_FRAMED = frozenset({"number", "money", "percent"})
"""The kinds of atom a frame gives a slot (see :func:`framed_rival`)."""
_SET_OFF = frozenset({",", ".", ")", ";"})
"""What closes a number set off by a comma before it ("Lu, 23, a student"; "Lu, 23.")."""

Words = tuple[Sequence[int], Mapping[int, tuple[str, str | None]]]
"""A text's word offsets in order, and each word's lemma (and slot) by offset (``Facts.tokens``)."""


def framed_rival(
    atom: Atom, stated: Sequence[Atom], words: tuple[Words, Words], texts: tuple[str, str]
) -> Atom | None:
    """The atom of ``stated`` (the context's atoms the response does not state itself) in the atom's
    frame, if it says another value: of the same kind and unit, or the same number in another unit of
    measure, not of another thing (:func:`._numeric.of_other_things`); the one whose words agree most.
    None where two of the context's values agree that well: the frame then holds several values ("Smith
    spent $12 million on the campaign, while Jones spent $8.5 million on the campaign"), and the
    response's may be their sum or another's. ``words`` and ``texts``: the response's and the context's.
    Only numbers, amounts and percentages: a date is read by its own checks, and a name's words say less
    of its slot ("A CNN report from Kavre District" and "Arwa Damon reported from Kavre District" name the
    outlet and the reporter)."""
    if atom.kind not in _FRAMED:
        return None
    mine = _around((atom.start, atom.end), words[0])
    if mine is None:
        return None
    found: dict[int, list[Atom]] = {}
    for other in stated:
        if other.kind != atom.kind:
            continue
        if not same_number(other, atom):
            exact = atom.bound is None and not _scaled_otherwise(atom, other)
            needed = CONTENT if exact and other.unit == atom.unit else None
        elif (
            another_measure(atom.unit, other.unit)
            and one_amount(atom, texts[0])
            and one_amount(other, texts[1])
            and not of_other_things(atom, other, texts, (words[0][1], words[1][1]))
        ):
            needed = 1
        else:
            needed = None
        if needed is None:
            continue
        theirs = _around((other.start, other.end), words[1])
        shared = 0 if theirs is None else _shared(mine, theirs, atom.unit)
        if shared >= needed:
            found.setdefault(shared, []).append(other)
    if not found:
        return None
    best = found[max(found)]
    return best[0] if len({(a.number, a.unit) for a in best}) == 1 else None


def _scaled_otherwise(one: Atom, other: Atom) -> bool:
    """The two write the same digits, which the parse read at different scales ("an estimated 10
    million" against the context's "an estimated 10 million" read as "10"): no sure rival."""
    written = DIGITS.findall(one.text)
    return bool(written) and written == DIGITS.findall(other.text)


Around = tuple[list[str], list[str]]
"""The lemmas before a value and after it, nearest first."""


def _around(span: tuple[int, int], words: Words) -> Around | None:
    """The words on each side of a value; None for a number set off by commas, which has no frame."""
    before, after = _side(span, words, before=True), _side(span, words, before=False)
    return None if _set_off(before, after) else (before, after)


def _shared(one: Around, other: Around, own: str | None) -> int:
    """How many content words two values have around them alike (``own``, the response value's unit,
    is not one: "19 hours" and "24 hours" share it already)."""
    agreeing = [*_agreeing(one[0], other[0]), *_agreeing(one[1], other[1])]
    return sum(_content(w, own) for w in agreeing)


def _side(span: tuple[int, int], words: Words, *, before: bool) -> list[str]:
    """The lemmas next to the span, nearest first."""
    starts, lemma = words
    if before:
        i = bisect_left(starts, span[0])
        return [lemma[s][0] for s in reversed(starts[max(0, i - REACH) : i])]
    j = bisect_left(starts, span[1])
    return [lemma[s][0] for s in starts[j : j + REACH]]


def _set_off(before: list[str], after: list[str]) -> bool:
    return bool(before) and before[0] == "," and (not after or after[0] in _SET_OFF)


def _agreeing(one: list[str], other: list[str]) -> list[str]:
    """The words both sides have, nearest first, up to the first that differs."""
    out = []
    for a, b in zip(one, other, strict=False):
        if a != b:
            break
        out.append(a)
    return out


def _content(word: str, own: str | None) -> bool:
    """A word that may name a slot: not a function word, the value's own unit or a year ("in fiscal
    2023", "in the first quarter of 2024" say when a value holds, not which value it is); a number
    beside it may ("$32 per hour or $66,300 per year": the row of 32 an hour)."""
    bare = word.replace(".", "").replace(",", "")
    if not bare.isalnum() or len(bare) < 2 or word in STOPWORDS or word == own:
        return False
    return not (bare.isdigit() and len(bare) == 4 and 1500 <= int(bare) <= 2099)
