"""The words the copy checks compare: a sentence cut into words and punctuation marks with their
character offsets (``"don't"`` into ``"do"`` and ``"n't"``, ``"cannot"`` into ``"can"`` and ``"not"``),
compared case-folded, a contracted modal as its full word (the "ca" of "can't" as "can").

:mod:`._copies` reads a sentence that copies a context sentence with one stretch changed and
:mod:`._aligned` finds which sentence it copies; both read the words as these tokens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trustscore.grounding._places import codes_alike, place_mentions

__all__ = [
    "FUNCTION_WORDS",
    "Token",
    "joined",
    "key_text",
    "place_spellings",
    "places_spelled_out",
    "tokenize",
    "unnumbered",
    "words_only",
    "written",
]

_TOKEN = re.compile(r"\w+(?=n't)|n't|(?i:can)(?=not\b)|\w+|[^\w\s]")
_CONTRACTED = {"ca": "can", "wo": "will", "sha": "shall"}
"""The modals whose "n't" form changes the word ("can't", "won't", "shan't"), by the part before it."""
_FUNCTION_TEXT = "he she it they we i you his her its their our my your this that these those there the a an"
FUNCTION_WORDS = frozenset(_FUNCTION_TEXT.split())
"""Capitalised words at a sentence's start that are no name ("He" where the response names him)."""
_ITEM_ENDS = frozenset([".", ")", ":"])
_STOPS = frozenset([".", "!", "?"])
_CAPITALS = re.compile(r"\b[A-Z]{2,3}\b")
"""A word of two or three capitals, the length of every place code."""
_NAME_GOES_ON = re.compile(r"[ \t]+[A-Z]")
"""A capitalised word right after a place's name: the place is part of a longer name."""


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int
    full: str = ""
    """The word the text is a contraction of, where it is one ("can" for the "ca" of "can't")."""

    @property
    def key(self) -> str:
        return (self.full or self.text).casefold()


def tokenize(text: str, start: int, end: int) -> list[Token]:
    """The tokens of ``text[start:end]``, with offsets into ``text``."""
    tokens = [Token(m.group(), start + m.start(), start + m.end()) for m in _TOKEN.finditer(text[start:end])]
    return [
        Token(t.text, t.start, t.end, _CONTRACTED[t.key])
        if t.key in _CONTRACTED and n + 1 < len(tokens) and tokens[n + 1].key == "n't"
        else t
        for n, t in enumerate(tokens)
    ]


def place_spellings(context: str) -> dict[str, list[Token]]:
    """Each place code that the ``context`` names the place of, with the name's tokens ("UK":
    "United", "Kingdom"; :func:`places_spelled_out`), or writes it with full stops ("USA": "U.S.").
    Not a code the context writes itself (the response may copy the sentence that has it:
    "Tallahassee, FL - 32310"), nor one of a place named only inside a longer name ("the United
    Kingdom Independence Party")."""
    written_codes = {m.group() for m in _CAPITALS.finditer(context)}
    names: dict[str, list[Token]] = {}
    for place in place_mentions(context):
        written = context[place.start : place.end]
        if place.is_code and "." in written:
            codes = sorted(codes_alike(written))
        elif not place.is_code and not _NAME_GOES_ON.match(context, place.end):
            codes = [code for (code,) in place.stands_for]
        else:
            continue
        for code in codes:
            if code not in written_codes:
                names.setdefault(code, tokenize(context, place.start, place.end))
    return names


def places_spelled_out(tokens: list[Token], spellings: dict[str, list[Token]]) -> list[Token]:
    """The tokens with each place's code, as the response writes it in capitals, spelled as the context
    names the place (``spellings``, :func:`place_spellings`: "UK" as "United Kingdom"): a sentence that
    copies the context's with the code for the name is still a copy. The name's words stand at the
    code's offsets, so a change found there points at the code."""
    out: list[Token] = []
    for t in tokens:
        spelled = spellings.get(t.text)
        out.extend([Token(word.text, t.start, t.end) for word in spelled] if spelled else [t])
    return out


def unnumbered(tokens: list[Token], text: str) -> list[Token]:
    """The sentence (``tokens`` of ``text``) without a list item's number opening it ("4  Cook,
    uncovered, ..." copied from "3 Cook, uncovered, ...": the steps are numbered otherwise, the step
    itself is the copy), or closing it where the sentence splitter left the next item's number after
    the full stop ("... against the wall.\n6." copied from "... against the wall. 1"). An item's
    number has one or two digits and no decimals: "2.5 million ..." and "1998 Ford ..." keep theirs."""
    tokens = _without_next_item(tokens, text)
    if len(tokens) < 3 or not (tokens[0].text.isdigit() and len(tokens[0].text) <= 2):
        return tokens
    if tokens[1].text in _ITEM_ENDS and not tokens[2].text[0].isdigit():
        return tokens[2:]
    return tokens[1:] if tokens[1].text[0].isupper() else tokens


def key_text(tokens: list[Token]) -> str:
    """The tokens' keys joined by spaces, with a space at each end: one stretch is inside another
    exactly where its key text is a substring of the other's."""
    return " " + " ".join(t.key for t in tokens) + " "


def words_only(tokens: list[Token]) -> list[Token]:
    """The tokens without punctuation marks."""
    return [t for t in tokens if t.text[0].isalnum()]


def written(tokens: list[Token]) -> list[str]:
    """The tokens' words as written: tokens with nothing between them are one word ("5,000", "$4m")."""
    words: list[str] = []
    for i, t in enumerate(tokens):
        if i and t.start == tokens[i - 1].end:
            words[-1] += t.text
        else:
            words.append(t.text)
    return words


def joined(tokens: list[Token]) -> str:
    """The tokens as written, a space only where the text has one ("5,000 people", "don't")."""
    return " ".join(written(tokens))


def _without_next_item(tokens: list[Token], text: str) -> list[Token]:
    """The sentence without a next item's number after its full stop: the last word, after a stop
    that ends a lower-case word, on a line of its own or with nothing after it ("against the wall.
    1", "against the wall.\n6."). A stop that ends an abbreviation ("ranked No. 2.", "on Sept. 11.")
    or belongs to the number ("rose to 2.5") leaves the number in the sentence."""
    marked = bool(tokens) and tokens[-1].text in _ITEM_ENDS
    body = tokens[:-1] if marked else tokens
    if len(body) < 3:
        return tokens
    word, stop, number = body[-3:]
    ends_sentence = stop.text in _STOPS and word.text.isalpha() and word.text.islower() and len(word.text) > 2
    own_line = "\n" in text[stop.end : number.start]
    if (
        ends_sentence
        and number.text.isdigit()
        and len(number.text) <= 2
        and number.start > stop.end
        and (own_line or not marked)
    ):
        return body[:-1]
    return tokens
