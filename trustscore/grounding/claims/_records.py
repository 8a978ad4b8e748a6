"""Contexts that are records (a JSON object: a business's fields, a product's attributes): which field
each short value stands in, so a response's value is compared only with values of its own field ("4.5
stars" with ``"stars": 4.0``, never with ``"review_count": 5``), and which stretches are prose (a
review's text inside the record) and may be read as sentences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Record", "read_record", "slot_unit"]

_PAIR = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)')
_PROSE_WORDS = 8
"""A string value of more words than this is prose (a review, a description), not a field value."""
_COUNT_WORDS = frozenset({"count", "number", "num", "total"})
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


@dataclass(frozen=True)
class Record:
    """Where a record's field values and its prose lie, by character offsets into the text."""

    fields: list[tuple[int, int, str]]
    """(start, end, key) of each short value."""
    prose: list[tuple[int, int]]
    """(start, end) of each long string value."""

    def slot(self, start: int, end: int) -> str | None:
        """The key of the field value holding ``start:end``, or None."""
        return next((key for s, e, key in self.fields if s <= start and end <= e), None)

    def in_prose(self, start: int, end: int) -> bool:
        return any(s <= start and end <= e for s, e in self.prose)


def read_record(text: str) -> Record | None:
    """The record ``text`` holds, or None when it is not a JSON object."""
    if not text.lstrip().startswith("{"):
        return None
    fields: list[tuple[int, int, str]] = []
    prose: list[tuple[int, int]] = []
    for match in _PAIR.finditer(text):
        start, end = match.span(2)
        if match.group(2).startswith('"') and len(match.group(2).split()) > _PROSE_WORDS:
            prose.append((start + 1, end - 1))
        else:
            fields.append((start, end, match.group(1)))
    return Record(fields, prose) if fields else None


def slot_unit(key: str) -> str:
    """What a field's value measures, named by its key's last word, singular: "business_stars" ->
    "star"; for a count, the word before: "review_count" and "reviewCount" -> "review"."""
    words = [w.casefold() for w in re.split(r"[\s_\-.]+", _CAMEL.sub(" ", key)) if w]
    if len(words) > 1 and words[-1] in _COUNT_WORDS:
        words.pop()
    last = words[-1] if words else key.casefold()
    return last.removesuffix("s") or last
