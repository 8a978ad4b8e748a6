"""A response sentence that copies a context sentence with one thing changed.

A sentence that repeats the context's sentence word for word except one short stretch is the
surest alignment there is: the changed stretch says something else in the very slot the context
fills, whatever the parse makes of it. So the two stretches are compared directly:

- a month, a weekday, a number or a name where the context has another of the same sort ("on
  Saturday" copied as "on Friday", "5th April" as "5th February", "Sgt Rob Taylor" as "Sgt Angela
  Moore", "the Environment Agency" as "the Fire and Rescue Service"): **contradicted** (kind "date",
  "number" or "name");
- the same number with another unit ("30 minutes" copied as "30 hours", "12%" as "12 points", "5
  million" as "5 billion"; units as pint names them, :func:`._lexicon.unit`): **contradicted** (kind
  "number");
- a word where the context has its antonym ("found guilty" copied as "found innocent"; WordNet's
  direct antonyms of either's word or lemma, :func:`._lexicon.antonyms`, and "before" / "after",
  "start" / "end", "over" / "under", "more" / "less", :data:`_ORDER`): **contradicted** (kind
  "predicate");
- a negation added or removed ("was on private land" copied as "was not on private land"; "no" for
  "a", "never" for "always"; "do not travel" for "travel", "did not open" for "opened"), or the first
  half of a contrast ("funded by the government" copied from "funded by the Marine Trust, not by the
  government"): **contradicted** (kind "negation");
- a rank dropped or added before a superlative ("the highest peak" copied from "the second highest
  peak"): **contradicted** (kind "number");
- a material, colour or season in the place of another of its sort ("made of wood" copied from "made
  of iron"): **contradicted** (kind "material", "colour" or "season");
- an amount where the context has a name, or a name where it has an amount ("because £6.40bn makes
  them sign" copied from "because McDonald's makes them sign"): **contradicted** (the context's kind);
- two stretches that exchange places ("Ann sued Bob" copied as "Bob sued Ann") where the parse gives
  the first another slot than the context gives it (a list's items that change order keep theirs):
  **contradicted** (kind "name" for names, else "predicate": the relation is reversed).

Any other change (a paraphrased word, an adjective, punctuation) is not read here: the atom and
clause checks of :mod:`._check` decide as for any sentence. A copy needs enough words in common
(:data:`_MIN_SAME`, and most of the sentence) that the rest cannot be a different statement.

Which context sentences a response sentence is read against, and the reading of a sentence that
copies one only in part, are :mod:`._aligned`'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from trustscore.grounding.claims._lexicon import antonyms, base_forms, unit
from trustscore.grounding.claims._name_variants import one_thing
from trustscore.grounding.claims._numeric import same_amount
from trustscore.grounding.claims._polarity import SYMMETRIC, opposites
from trustscore.grounding.claims._tokens import FUNCTION_WORDS, Token, joined, key_text, words_only, written
from trustscore.grounding.claims._values import MONTH_NAMES, SCALE_WORDS, parse_number
from trustscore.grounding.claims._verdict import Verdict

__all__ = [
    "Known",
    "Side",
    "attribute_swap",
    "changed",
    "name_words",
    "negated_verb",
    "negated_word",
    "negation_verdict",
    "opposite",
    "rank_change",
    "sort_of",
    "unit_change",
    "value_change",
]

_NEGATIONS = frozenset({"not", "n't", "no", "never"})
_MONTHS = frozenset(MONTH_NAMES)
_WEEKDAYS = frozenset(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])
_MIN_SAME = 6
"""Words a copy keeps unchanged at least."""
_SAME_SHARE = 0.75
"""Share of the response sentence's words a copy keeps unchanged at least."""
_MAX_CHANGED = 3
"""Words the changed stretch spans at most, on either side."""
_MAX_NAME = 6
"""Words a changed name spans at most ("Greater Manchester Fire and Rescue Service")."""
_ORDER = {
    "before": frozenset(["after"]),
    "after": frozenset(["before"]),
    "start": frozenset(["end"]),
    "end": frozenset(["start"]),
    "over": frozenset(["under"]),
    "under": frozenset(["over"]),
    "above": frozenset(["below"]),
    "below": frozenset(["above"]),
    "more": frozenset(["less", "fewer"]),
    "less": frozenset(["more"]),
    "fewer": frozenset(["more"]),
}
"""Opposites of order and amount that WordNet does not pair: "before" / "after", "over" / "under" and
"above" / "below" (prepositions, which WordNet leaves out), "more" / "less" and "fewer" (WordNet pairs
"more" with "less" only as adverbs of degree), and "start" / "end" (WordNet pairs "start" with
"finish" and "stop", "end" with "beginning" and "begin"); "the end of the tax year" copied as "the
start of the tax year" says another time, "children under 12 travel free" copied as "children over 12
travel free" another group."""
_APOSTROPHES = frozenset(["'", "\u2019"])
_NAME_LINKS = frozenset(["of", "and", "for", "in", "de", "la", "van", "von", "der", "du", "da", "del"])
"""Lower-case words a name may hold between its capitalised ones ("Department of Public Health",
"Berriedale in Caithness")."""
_ORDINAL_WORDS = (
    "second third fourth fifth sixth seventh eighth ninth tenth 2nd 3rd 4th 5th 6th 7th 8th 9th 10th"
)
_ORDINALS = frozenset(_ORDINAL_WORDS.split())
_WORD = re.compile(r"[^\W\d_]+")
_HYPHENS = frozenset(["-", "\u2010", "\u2011"])
_IRREGULAR_SUPERLATIVES = "best worst most least biggest hottest fattest wettest thinnest saddest"
_SUPERLATIVES = frozenset(_IRREGULAR_SUPERLATIVES.split())
"""Superlatives WordNet's detachment rules do not take back to their adjective."""
_ATTRIBUTE_FORMS = {
    "material": "wood wooden timber, gold golden, wool woollen woolen, aluminium aluminum, iron, steel, "
    "concrete, stone, brick, glass, copper, bronze, brass, silver, plastic, marble, granite, clay, rubber, "
    "leather, cotton, silk, ceramic, porcelain, titanium",
    "colour": "grey gray, purple violet, red, orange, yellow, green, blue, pink, brown, black, white",
    "season": "autumn fall, spring, summer, winter",
}
_ATTRIBUTES = {
    attribute: {form: group.split()[0] for group in groups.split(",") for form in group.split()}
    for attribute, groups in _ATTRIBUTE_FORMS.items()
}
"""Closed sorts of words where one in another's place says another thing ("made of wood" for "made of
iron", "a red door" for "a blue door", "in the summer" for "in the winter"), each word with the first of
its group, the word it is a spelling or form of."""
_CONTRAST_WORDS = "by in on at for to from with of as the a an his her its their"
_CONTRAST_LINKS = frozenset(_CONTRAST_WORDS.split())
"""Words a contrast repeats after its "not" before the alternative it denies ("A, not by the B")."""
_DO = frozenset({"do", "does", "did"})
"""The auxiliary an English negation brings to a verb that had none ("travel" negated is "do not
travel", "opened" is "did not open")."""
_COORDINATORS = frozenset({"and", "or", "&", ","})
"""What joins a list's items: two items of one list that exchange places around them say the same ("4
Targets and 2 Walmarts" copied from "2 Walmarts and 4 Targets"); two clauses a comma joins do not
("Acme sued Initech, Globex settled")."""
_NEGATED = {"no": frozenset(["a", "an", "any", "some"]), "never": frozenset(["always", "ever"])}
"""A negation word and the words it negates in their place ("has no swimming pool" against "has a
swimming pool", "had never collapsed" against "had always collapsed")."""


Known = tuple[frozenset[str], frozenset[str]]
"""What the copy check knows for names of the context: its names' words, and the words it writes
capitalised and never in lower case (:mod:`._context_words`)."""


@dataclass(frozen=True)
class Side:
    """What the copy check reads of one parsed text."""

    text: str
    bounds: list[tuple[int, int]]
    """Each sentence's character offsets."""
    names: list[tuple[int, int]]
    """The character spans of the names the recogniser found."""
    tokens: dict[int, tuple[str, str | None]]
    """Each word's lemma and slot, by its first character's offset."""


def changed(mine: list[Token], theirs: list[Token], sides: tuple[Side, Side], known: Known) -> Verdict | None:
    exchanged = _exchanged(mine, theirs, sides)
    if exchanged is not None:
        return exchanged
    theirs = _copied_part(mine, theirs)
    matcher = SequenceMatcher(None, [t.key for t in mine], [t.key for t in theirs], autojunk=False)
    ops = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    same = sum(i2 - i1 for tag, i1, i2, _, _ in matcher.get_opcodes() if tag == "equal")
    if (
        len({(key_text(mine[i1:i2]), key_text(theirs[j1:j2])) for _, i1, i2, j1, j2 in ops}) != 1
        or same < _MIN_SAME
    ):
        return None  # one change, or one name changed the same way wherever the sentence repeats it
    _, i1, i2, j1, j2 = ops[0]
    said, stated = mine[i1:i2], theirs[j1:j2]
    # a copy keeps most of the sentence, a changed name counted as one word however long it is
    if same < _SAME_SHARE * (len(mine) - max(0, len(said) - 1) * (sort_of(said) == "name")):
        return None
    around = mine[max(0, i1 - 3) : i2 + 3], theirs[max(0, j1 - 3) : j2 + 3]
    if negated_word(said, stated) or negated_verb(said, stated, sides):
        return negation_verdict(*around, [])
    if not said or not stated:
        return rank_change(said, stated, mine[i2 : i2 + 1]) or negation_verdict(*around, said or stated)
    if i1 > 0 and j1 > 0 and parse_number([mine[i1 - 1].text]) is not None:
        changed_unit = unit_change(mine[i1 - 1 : i2], theirs[j1 - 1 : j2])
        if changed_unit is not None:
            return changed_unit
    if len(said) == len(stated) == 1 and opposite(said[0], stated[0], sides):
        return Verdict("predicate", "contradicted", said[0].text, said[0].start, said[0].end, stated[0].text)
    if (
        len(said) == len(stated) == 1
        and (swapped := attribute_swap(said[0], stated[0], sides[1].text)) is not None
    ):
        return swapped
    if {sort_of(said), sort_of(stated)} == {"name", "number"} and i1 > 0 and j1 > 0:
        return _sort_swap(said, stated, sides, known)
    return value_change(said, stated, i1 == 0 or j1 == 0, sides, known)


def _sort_swap(
    said: list[Token], stated: list[Token], sides: tuple[Side, Side], known: Known
) -> Verdict | None:
    """A name where the copied sentence has an amount or the reverse ("because £6.40bn makes them sign"
    for "because McDonald's makes them sign"); the slot's kind is the context's."""
    name, amount = (said, stated) if sort_of(said) == "name" else (stated, said)
    words = name_words(name)
    if len(words_only(amount)) > _MAX_CHANGED or len(words) > _MAX_NAME:
        return None
    side = 0 if name is said else 1
    if not _named(words, side, sides, known):
        return None
    kind = "name" if name is stated else "number"
    said, stated = _words(said), _words(stated)
    text = sides[0].text[said[0].start : said[-1].end]
    context = sides[1].text[stated[0].start : stated[-1].end]
    return Verdict(kind, "contradicted", text, said[0].start, said[-1].end, context)


def _named(words: list[Token], side: int, sides: tuple[Side, Side], known: Known) -> bool:
    """The stretch is a name: the recogniser found it, the context names it, or its words are the
    context's proper words."""
    names, proper = known
    return (
        _within(words, sides[side].names)
        or key_text(words) in names
        or all(t.key in proper or t.key in _NAME_LINKS for t in words)
    )


def negated_word(said: list[Token], stated: list[Token]) -> bool:
    """A negation word on one side where the other has the word it negates ("no" for "a", "never"
    for "always")."""
    if len(said) != 1 or len(stated) != 1:
        return False
    one, two = said[0].key, stated[0].key
    return two in _NEGATED.get(one, ()) or one in _NEGATED.get(two, ())


def negated_verb(said: list[Token], stated: list[Token], sides: tuple[Side, Side]) -> bool:
    """One side is the other's verb negated with "do" ("does not run" for "runs", "didn't open" for
    "opened"): the same lemma after "do" and a negation."""
    for negated, plain, n in ((said, stated, 0), (stated, said, 1)):
        if (
            len(negated) == 3
            and len(plain) == 1
            and negated[0].key in _DO
            and negated[1].key in _NEGATIONS
            and _lemma(negated[2], sides[n]) == _lemma(plain[0], sides[1 - n])
        ):
            return True
    return False


def _lemma(token: Token, side: Side) -> str:
    """The parse's lemma of the word, or the word itself where the parse gave none."""
    return side.tokens.get(token.start, (token.key, None))[0]


def _copied_part(mine: list[Token], theirs: list[Token]) -> list[Token]:
    """The part of the context's sentence the response's sentence copies: without the words before
    its first and after its last word in common (the context's sentence runs on, or the sentence
    splitter joined two of its sentences)."""
    ops = SequenceMatcher(None, [t.key for t in mine], [t.key for t in theirs], autojunk=False).get_opcodes()
    start = ops[0][4] if ops and ops[0][0] == "insert" and ops[0][1] == 0 else 0
    end = ops[-1][3] if ops and ops[-1][0] == "insert" and ops[-1][1] == len(mine) else len(theirs)
    return theirs[start:end]


def value_change(
    said: list[Token],
    stated: list[Token],
    opening: bool,
    sides: tuple[Side, Side],
    known: Known,
) -> Verdict | None:
    """A changed month, weekday, number or name."""
    kind = sort_of(said)
    if kind is None or kind != sort_of(stated) or (kind == "number" and opening):
        return None  # a number opening the sentence numbers a list's item: "4." for "Step 2:"
    if kind == "date" and _calendar(said) != _calendar(stated):
        return None  # "Friday" may be "April 14": a weekday says another thing than a month
    if kind == "name":
        said, stated = name_words(said), name_words(stated)
        if len(said) > _MAX_NAME or len(stated) > _MAX_NAME or one_thing(said, stated, known[0]):
            return None
        names, proper = known
        if not (
            _within(said, sides[0].names)
            or _within(stated, sides[1].names)
            or key_text(said) in names
            or all(t.key in proper or t.key in _NAME_LINKS for t in said + stated)
        ):
            return None
    elif len(said) > _MAX_CHANGED or len(stated) > _MAX_CHANGED:
        return None
    elif kind == "number" and same_amount(written(said), written(stated)):
        return None  # "£6.4bn" copied as "£6.4 billion", "$4m" as "$4 million"
    return Verdict(kind, "contradicted", joined(said), said[0].start, said[-1].end, joined(stated))


def unit_change(said: list[Token], stated: list[Token]) -> Verdict | None:
    """The same number (the first token of both) with another unit or scale word after it."""
    if len(said) != 2 or len(stated) != 2:
        return None
    one, two = said[1].key, stated[1].key
    units = unit(said[1].text), unit(stated[1].text)
    scales = one in SCALE_WORDS and two in SCALE_WORDS
    if not scales and (None in units or units[0] == units[1]):
        return None
    if scales and one == two:
        return None
    return Verdict("number", "contradicted", joined(said), said[0].start, said[-1].end, joined(stated))


def opposite(said: Token, stated: Token, sides: tuple[Side, Side], every_antonym: bool = True) -> bool:
    """One word is an antonym of the other, compared as written, as lemmas and as the adjective of a
    comparative ("later" / "earlier"): WordNet's direct antonyms of any part of speech, or, without
    ``every_antonym``, only the listed pairs and adjectives' (:func:`._polarity.opposites`: WordNet's
    verb pairs include "sit" / "stand", which "let it sit" and "let it stand" use alike)."""
    mine = {said.key, _lemma(said, sides[0])}
    theirs = {stated.key, _lemma(stated, sides[1])}
    mine |= base_forms(said.key)
    theirs |= base_forms(stated.key)
    return any(
        theirs
        & (
            (antonyms(word) if every_antonym else frozenset())
            | opposites(word)
            | _ORDER.get(word, frozenset())
        )
        for word in mine
    )


def _exchanged(mine: list[Token], theirs: list[Token], sides: tuple[Side, Side]) -> Verdict | None:
    """Two stretches that exchange places (the context's "A ... B" written "B ... A", all else the
    same), the first in another slot than the context gives it."""
    if [t.key for t in mine] == [t.key for t in theirs] or len(mine) != len(theirs):
        return None
    head = next(i for i, (a, b) in enumerate(zip(mine, theirs, strict=True)) if a.key != b.key)
    tail = next(i for i, (a, b) in enumerate(zip(mine[::-1], theirs[::-1], strict=True)) if a.key != b.key)
    said, stated = mine[head : len(mine) - tail], theirs[head : len(theirs) - tail]
    keys, other = [t.key for t in said], [t.key for t in stated]
    for first in range(1, min(_MAX_NAME, len(said) - 1) + 1):
        for second in range(1, min(_MAX_NAME, len(said) - first) + 1):
            if (
                keys[:first] == other[-first:]
                and keys[-second:] == other[:second]
                and keys[first:-second] == other[second:-first]
            ):
                listed = bool(keys[first:-second]) and set(keys[first:-second]) <= _COORDINATORS
                if any(_lemma(t, sides[0]) in SYMMETRIC for t in said[first:-second]):
                    return None  # "the governor met the mayor" says what "the mayor met the governor" does
                return _reversed(said[:first], said[-second:], stated[-first], stated[:second], sides, listed)
    return None


def _reversed(
    first: list[Token],
    second: list[Token],
    was: Token,
    instead: list[Token],
    sides: tuple[Side, Side],
    listed: bool,
) -> Verdict | None:
    """The exchange of ``first`` and ``second`` when the parse puts ``first`` in another slot than the
    context's parse puts it (``was``: its first word there), unless the two are items of one list
    (``listed``: only coordinators between them, and the parse makes one a conjunct of the other)."""
    now = sides[0].tokens.get(first[0].start, ("", None))[1]
    before = sides[1].tokens.get(was.start, ("", None))[1]
    if now is None or before is None or now == before or (listed and "conj" in (now, before)):
        return None
    kind = "name" if sort_of(first) == sort_of(second) == "name" else "predicate"
    return Verdict(kind, "contradicted", joined(first), first[0].start, first[-1].end, joined(instead))


def name_words(tokens: list[Token]) -> list[Token]:
    """A name's stretch without an opening "the", a closing possessive "'s" and punctuation at its
    ends."""
    words = _words(tokens)
    while len(words) > 1 and words[0].key == "the":
        words = words[1:]
    if len(words) > 2 and words[-1].key == "s" and words[-2].text in _APOSTROPHES:
        words = _words(words[:-2])
    return words


def negation_verdict(around: list[Token], stated: list[Token], changed: list[Token]) -> Verdict | None:
    """An added or removed negation ("not", or "do not" where the verb had no auxiliary): the verdict
    spans the response's words around it."""
    negation = changed[1:] if len(changed) > 1 and changed[0].key in _DO else changed
    if not all(t.key in _NEGATIONS for t in negation) and not _contrast(changed):
        return None
    around, stated = _words(around), _words(stated)
    text, said = joined(around), joined(stated)
    return Verdict("negation", "contradicted", text, around[0].start, around[-1].end, said)


def rank_change(said: list[Token], stated: list[Token], following: list[Token]) -> Verdict | None:
    """A rank added or dropped before a superlative: "the highest peak" copied from "the second highest
    peak", or the reverse. A rank is a number (the first against the second), so the kind is
    "number"."""
    rank = [t for t in said or stated if t.text not in _HYPHENS]  # "second-highest"
    if len(rank) != 1 or rank[0].key not in _ORDINALS or not following:
        return None
    word = following[0]
    if word.key not in _SUPERLATIVES and not (word.key.endswith("est") and base_forms(word.key)):
        return None
    if said:
        return Verdict(
            "number", "contradicted", f"{rank[0].text} {word.text}", rank[0].start, word.end, word.text
        )
    return Verdict("number", "contradicted", word.text, word.start, word.end, f"{rank[0].text} {word.text}")


def attribute_swap(said: Token, stated: Token, context: str) -> Verdict | None:
    """A material, colour or season in the place of another of its sort (kind: the sort), where the
    context names the response's word nowhere (a list said in another order, a question repeated, an
    answer that speaks of two bridges). Words in lower case only: "the Red Sox" for "the White Sox" is
    a name, read as one."""
    if not (said.text.islower() and stated.text.islower()):
        return None
    for attribute, words in _ATTRIBUTES.items():
        mine, theirs = words.get(said.key), words.get(stated.key)
        if mine is None or theirs is None or mine == theirs:
            continue
        if any(words.get(w) == mine for w in _WORD.findall(context.casefold())):
            return None
        return Verdict(attribute, "contradicted", said.text, said.start, said.end, stated.text)
    return None


def _contrast(changed: list[Token]) -> bool:
    """The stretch is the first half of a contrast, "A, not (by the)": the sentence without it asserts
    what the one with it denies ("funded by the government" copied from "funded by the Marine Trust,
    not by the government")."""
    keys = [t.key for t in changed]
    if "not" not in keys:
        return False
    k = len(keys) - 1 - keys[::-1].index("not")
    tail = [t for t in changed[k + 1 :] if t.text[0].isalnum()]
    return k > 1 and keys[k - 1] == "," and all(t.key in _CONTRAST_LINKS for t in tail)


def _words(tokens: list[Token]) -> list[Token]:
    """The stretch without punctuation at its ends."""
    kept = [i for i, t in enumerate(tokens) if t.text[0].isalnum()]
    return tokens[kept[0] : kept[-1] + 1] if kept else tokens


def _within(tokens: list[Token], spans: list[tuple[int, int]]) -> bool:
    """The stretch lies in one of ``spans`` (the names the recogniser found)."""
    return any(start <= tokens[0].start and tokens[-1].end <= end for start, end in spans)


def sort_of(tokens: list[Token]) -> str | None:
    """What a changed stretch is: a date word, a number, a name, or None for anything else."""
    words = [t for t in name_words(tokens) if t.text[0].isalnum()]
    if not words:
        return None
    if any(t.key in _MONTHS or t.key in _WEEKDAYS for t in words):
        return "date"
    if any(c.isdigit() for t in words for c in t.text):
        return "number"
    if (
        words[0].key not in FUNCTION_WORDS
        and words[0].text[0].isupper()
        and words[-1].text[0].isupper()
        and all(t.text[0].isupper() or t.key in _NAME_LINKS for t in words)
    ):
        return "name"
    return None


def _calendar(tokens: list[Token]) -> tuple[bool, bool]:
    """Whether a stretch names a month, and whether it names a weekday."""
    keys = {t.key for t in tokens}
    return bool(keys & _MONTHS), bool(keys & _WEEKDAYS)
