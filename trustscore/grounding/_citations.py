"""Passage citations: the numbers in an answer that say which context passage it read.

"According to Passage 2, ..." and "... 140 metres long [1]." are common in answers to numbered
retrieved passages (a quarter of RAGTruth's QA answers cite one). The number names a place in the
context, not a fact about the world, so the grounding signals must not look it up as a value the
context should state. Only a number within the passages given is a citation: "Passage 7" of three
passages cites nothing and stays a number to check.
"""

from __future__ import annotations

import re
from bisect import bisect_right

__all__ = ["PassageCitations"]

_NUMERALS = r"\d{1,2}(?:\s*(?:and|or|to|&|-|\u2013)\s*\d{1,2})*"
_CITATION = re.compile(
    rf"\b(?:passage|document|source|excerpt|snippet)s?\s*(?:#\s*|no\.\s*)?(?P<named>{_NUMERALS})\b"
    r"|\[(?P<bracketed>\d{1,2}(?:\s*[,\-\u2013]\s*\d{1,2})*)\]",
    re.IGNORECASE,
)
_NUMERAL = re.compile(r"\d{1,2}")
_MEASURED = re.compile(
    r"\s*(?:km|mi|m|cm|mm|ft|kg|g|lbs?|%|percent|miles?|metres?|meters?|feet|inches|hours?|minutes?|days?"
    r"|weeks?|years?|wide|long|high|deep|tall|north|south|east|west)\b",
    re.IGNORECASE,
)
"""A number followed by a unit or measure is a value, whatever word stands before it ("its source 2 km
north")."""


class PassageCitations:
    """The passage citations of one text, for a context of ``passages`` passages (counted from 1):
    "Passage 2", "passages 1 and 3", "Source #2", "[3]", "[1, 2]"."""

    def __init__(self, text: str, passages: int) -> None:
        self._found: list[tuple[int, int, list[tuple[int, int, bool]]]] = []
        if passages < 1:
            return
        for m in _CITATION.finditer(text):
            group = "named" if m.group("named") is not None else "bracketed"
            if group == "named" and _MEASURED.match(text, m.end()):
                continue
            base = m.start(group)
            numbers = [
                (base + n.start(), base + n.end(), 1 <= int(n.group()) <= passages)
                for n in _NUMERAL.finditer(m.group(group))
            ]
            self._found.append((m.start(), m.end(), numbers))
        self._starts = [first for first, _, _ in self._found]

    def __bool__(self) -> bool:
        return bool(self._found)

    def cover(self, start: int, end: int) -> bool:
        """Whether ``text[start:end]`` ("2", "Passage 2") lies inside one citation and every number
        in it names a passage given."""
        at = bisect_right(self._starts, start) - 1  # the citations do not overlap: only this one can
        if at < 0:
            return False
        first, last, numbers = self._found[at]
        if not (first <= start and end <= last):
            return False
        inside = [valid for s, e, valid in numbers if start <= s and e <= end]
        return bool(inside) and all(inside)
