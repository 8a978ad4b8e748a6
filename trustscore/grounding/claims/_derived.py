"""Values a response works out from the context's instead of copying one: a difference, a total or an
average, and the same duration in another unit. A worked-out value fills no slot of the context, so no
single value of the context contradicts it ("The 1 TB version costs $200 more than the base model" is
no "$200: the context says $1,499").

- **A difference**: a value followed, within a few words of its own sentence, by a comparative
  ("$200 more", "5 more shots", "$30 per night higher", "7 km longer"), or said as a change ("up $70
  million from", "rose by $2,600", "a difference of 12").
- **A total** (or an average): a value in a sentence that says it sums ("in total", "a total of",
  "together", "combined", "altogether", "in all") or spans several periods ("over the three fiscal
  years", "averaged about 5.9% over 2021 and 2022").

Such a value is unsupported: the context does not state it, and which of its values it is worked out
from is not read. Arithmetic over them would support it where any two or three happen to give it, and
working out the wrong ones is the error to catch: on answers written to probe this, a search over every
pair and triple passed 11 of 97 wrong answers ("salary and bonus together came to $70,060": 2022's salary
and 2021's bonus). It is read so only where the context gives two values or more of its kind and unit
to work from (one cost is a total's rival: "The total cost was $600" against "$500"), where the value is
no range ("70-80 percent" gives two values, it works out none), and where the context does not state the
value it is compared with the same way ("$300 more" against "$200 more" stays contradicted).

**A duration in another unit** is the context's where the time is the same (:mod:`._durations`): "60
minutes" where the context says "1 hour", "1 hour and 45 minutes" where it says "105 minutes" are
supported.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Literal

from trustscore.grounding.claims._atoms import Atom
from trustscore.grounding.claims._durations import same_time, seconds
from trustscore.grounding.claims._numeric import is_range
from trustscore.grounding.claims._verdict import Verdict

__all__ = ["derived_verdicts"]

Derivation = Literal["difference", "total"]

_VALUE_KINDS = frozenset({"number", "money", "percent"})
_COMPARATIVES = frozenset(
    [
        "more",
        "less",
        "fewer",
        "higher",
        "lower",
        "longer",
        "shorter",
        "larger",
        "smaller",
        "greater",
        "bigger",
        "cheaper",
        "dearer",
        "older",
        "younger",
        "faster",
        "slower",
        "heavier",
        "lighter",
        "earlier",
        "later",
        "taller",
        "wider",
        "deeper",
        "warmer",
        "colder",
        "hotter",
        "extra",
    ]
)
"""The comparatives that make a value before them a difference ("$200 more than", "7 km longer")."""
_CHANGES = re.compile(
    r"\b(?:(?:up|down)|(?:rose|risen|rises|rise|rising|fell|fallen|falls|fall|falling|increased|increases|"
    r"increase|decreased|decreases|decrease|grew|grown|grows|grow|dropped|drops|drop|declined|declines|"
    r"decline|climbed|climbs|climb|jumped|jumps|jump|gained|gains|gain|lost|loses|shrank|shrunk|cut|raised|"
    r"lowered|reduced|boosted)\s+by|(?:difference|gap|margin)\s+of)"
    r"(?:\s+(?:about|around|roughly|approximately|nearly|almost|some|just))?\s*$",
    re.IGNORECASE,
)
"""The words before a value that say it is a change ("up $70 million", "rose by about $2,600")."""
_TOTALS = re.compile(
    r"\b(?:in\s+total|a\s+total\s+of|totals?|totall?ed|totall?ing|combined|together(?!\s+with)|altogether"
    r"|in\s+all|plus)\b",
    re.IGNORECASE,
)
_SPELL = (
    r"(?:over|across)\s+(?:(?:the|these|those|both)\s+(?!past|last|next|previous|coming|following)"
    r"(?:\w+\s+){0,2}(?:years|months|weeks|days|quarters|seasons|games|matches)\b"
    r"|\d{4}\s+(?:and|to)\s+\d{4})"
)
"""Words that name several periods together ("over the three fiscal years", "across 2021 and 2022"); not a
span ("over 20 years", "over the past decade")."""
_OVER = re.compile(_SPELL, re.IGNORECASE)
_GAP_WORDS = 3
"""How many words may stand between a value and its comparative ("$30 per night higher")."""
Text = tuple[str, list[tuple[int, int]], list[Atom]]
"""A parsed text as the check reads it here: its text, its sentences' offsets and its atoms."""


def derived_verdicts(verdicts: list[Verdict], response: Text, context: Text) -> list[Verdict]:
    """The verdicts with each contradicted value that the response works out from the context's read as
    unsupported, and each value that is a duration the context states in another unit as supported."""
    atoms = response[2]
    by_start = {a.start: a for a in atoms if a.kind in _VALUE_KINDS and a.number is not None}
    out = []
    for v in verdicts:
        atom = by_start.get(v.start) or _overlapping(v, atoms)
        if v.outcome == "supported" or v.of_polarity or atom is None:
            out.append(v)
        elif seconds(atom) is not None and any(same_time(atom, a) for a in context[2]):
            out.append(replace(v, outcome="supported", context=None))  # a copy read "60 minutes" as changed
        elif v.outcome == "contradicted" and _worked_out(v, atom, response, context):
            out.append(replace(v, outcome="unsupported", context=None))
        else:
            out.append(v)
    return out


def _worked_out(verdict: Verdict, atom: Atom, response: Text, context: Text) -> bool:
    """The response works the value out from two or more of the context's, which does not state the
    value the verdict names the same way."""
    how = derivation(response, atom)
    return how is not None and _from_several(atom, context[2]) and not _said_alike(verdict, how, context)


def _overlapping(verdict: Verdict, atoms: list[Atom]) -> Atom | None:
    """The value atom a verdict's span covers (a bound's words put before it: "about $9,884")."""
    return next(
        (
            a
            for a in atoms
            if a.kind in _VALUE_KINDS and a.number is not None and verdict.start <= a.start < verdict.end
        ),
        None,
    )


def _said_alike(verdict: Verdict, how: Derivation, context: Text) -> bool:
    """The context's value the verdict names is worked out the same way in the context, read from the
    sentence before it on (a stray full stop splits "the total time the temperature. of the food ...
    cannot exceed 2 hours")."""
    said = verdict.context or ""
    return any(
        a.text in said and derivation(context, a, before=1) == how
        for a in context[2]
        if a.kind in _VALUE_KINDS and a.number is not None
    )


def derivation(parsed: Text, atom: Atom, *, before: int = 0) -> Derivation | None:
    """Whether the text states the value as a difference or a total of others, or neither, read in its
    sentence and the ``before`` sentences before it."""
    if is_range(atom):
        return None  # "70-80 percent" gives two values, it works out none
    text, bounds = parsed[0], parsed[1]
    sentence_start, sentence_end = bounds[max(0, atom.sentence - before)][0], bounds[atom.sentence][1]
    after = re.split(r"[,;:()]|\b(?:or|and)\b", text[atom.end : sentence_end], maxsplit=1)[0]
    if any(w.casefold() in _COMPARATIVES for w in after.split()[: _GAP_WORDS + 1]):
        return "difference"
    if _CHANGES.search(text[sentence_start : atom.start]):
        return "difference"
    sentence = text[sentence_start:sentence_end]
    if _TOTALS.search(sentence) or _OVER.search(sentence):
        return "total"
    return None


def _from_several(atom: Atom, stated: list[Atom]) -> bool:
    """The context gives two or more values the atom may be worked out from: of its kind and unit (the
    same unit or both none; durations in any unit), or, for a percentage, two amounts of one unit that
    it may be the change of ("up 4.4%" where the context gives two salaries)."""
    if seconds(atom) is not None:
        return len({s for a in stated if (s := seconds(a)) is not None}) > 1
    alike = {a.number for a in stated if a.kind == atom.kind and a.number is not None and a.unit == atom.unit}
    if len(alike) > 1:
        return True
    amounts: dict[tuple[str, str | None], set[float]] = {}
    for a in stated:
        if a.kind in ("number", "money") and a.unit is not None and a.number is not None:
            amounts.setdefault((a.kind, a.unit), set()).add(a.number)
    return atom.kind == "percent" and any(len(v) > 1 for v in amounts.values())
