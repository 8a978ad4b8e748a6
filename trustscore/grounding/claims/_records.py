"""Contexts that are records (a JSON object: a business's fields, a product's attributes): which field
each short value stands in, so a response's value is compared only with values of its own field ("4.5
stars" with ``"stars": 4.0``, never with ``"review_count": 5``), and which stretches are prose (a
review's text inside the record) and may be read as sentences; its yes/no fields and its opening
hours, which :mod:`._fields` checks the response's statements against.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Flag", "Record", "key_words", "read_record", "slot_unit"]

_PAIR = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)')
_PROSE_WORDS = 8
"""A string value of more words than this is prose (a review, a description), not a field value."""
_COUNT_WORDS = frozenset({"count", "number", "num", "total"})
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


_HOUR_RANGE = re.compile(r"^(\d{1,2}):(\d{1,2})-(\d{1,2}):(\d{1,2})$")


@dataclass(frozen=True)
class Flag:
    """A yes/no field: the words a statement of it must use, and its value."""

    key: str
    """The field as the record names it, with its parent ("BusinessParking.valet")."""
    words: frozenset[str]
    """Words all of which the statement uses (casefolded lemmas: {"outdoor", "seating"})."""
    parent: frozenset[str]
    """Words one of which the statement must use too (the parent's: {"parking"}), or none."""
    value: bool | None
    """Its value; None where the record writes ``null``: a statement of the field is then unsupported."""
    written: str
    """The value as the record writes it ("true", "no"), for a contradiction's reason."""
    joined: str = ""
    """The key's words written as one ("takeout" for ``RestaurantsTakeOut``, "wifi" for ``WiFi``),
    which a statement may use in place of ``words``; empty when the key is one word."""
    topic: bool = False
    """A group of fields ("BusinessParking", "Ambience", "hours"), read only where the response says the
    record leaves it unsaid: ``value`` is whether the record states any of it."""
    leaves: frozenset[str] = frozenset()
    """For a group, the words of its own fields ("valet", "monday"): a sentence that names one speaks
    of that field, not of the group."""


@dataclass(frozen=True)
class Record:
    """Where a record's field values and its prose lie, by character offsets into the text, and its
    yes/no fields and opening hours."""

    fields: list[tuple[int, int, str]]
    """(start, end, key) of each short value."""
    prose: list[tuple[int, int]]
    """(start, end) of each long string value."""
    flags: list[Flag] = field(default_factory=list)
    hours: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Opening hours by day, as hours of the day (17.5 = 17:30)."""

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
    if not fields:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return Record(fields, prose)
    return Record(fields, prose, flags=list(_flags(data, None)), hours=_hours(data.get("hours")))


_GENERIC = frozenset({"restaurant", "business", "good", "for", "has", "is", "attribute"})
_PARENT_WORDS = {
    "ambience": frozenset(
        {"ambience", "ambiance", "atmosphere", "vibe", "setting", "feel", "decor", "environment"}
        | {"dining", "experience"}
    ),
    "parking": frozenset({"parking", "park"}),
}
"""Words that name a parent field in prose: an "Ambience" field's values are said of the atmosphere, the
decor or the dining experience ("an intimate dining experience"), a "BusinessParking"
field's of parking or of where one parks ("park on the street")."""


def _key_parts(key: str) -> list[str]:
    """A key's words in order, casefolded: "RestaurantsTakeOut" -> ["restaurants", "take", "out"]."""
    return [w.casefold() for w in re.split(r"[\s_\-.]+", _CAMEL.sub(" ", key)) if w]


def key_words(key: str) -> frozenset[str]:
    """The words of a field's key, casefolded and singular, less words every field of a business
    record shares ("RestaurantsReservations" -> {"reservation"})."""
    words = _key_parts(key)
    singular = {w.removesuffix("s") if len(w) > 3 and not w.endswith("ss") else w for w in words}
    return frozenset(singular - _GENERIC)


_TOPIC_WORDS = {"ambience": {"ambience", "ambiance", "atmosphere"}}
"""Words that name a group of fields as a whole ("no information about the atmosphere")."""
_GROUP_WORDS = {
    "hours": {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
    | {"weekday", "weekend", "daily", "happy"}
}
"""Words of a group's own parts besides its keys: a day of the hours, a happy hour."""
_YES_NO_WORDS = {"yes": True, "no": False, "true": True, "false": False, "free": True, "paid": True}
"""A field's string values that say whether it has the thing at all (``"WiFi": "no"``, ``"free"``,
``"True"``). Not "none", which some records write for a value they do not know."""
_PYTHON_STRING = re.compile(r"^u?'(.*)'$")
"""A value written as a Python string, as Yelp's open data writes some (``"u'free'"``)."""


def _flags(data: dict[str, Any], parent: str | None) -> list[Flag]:
    out: list[Flag] = []
    for key, value in data.items():
        if isinstance(value, dict) and parent is None:
            out.extend(_flags(value, None if key_words(key) == frozenset() else key))
            out.extend(_group_flags(key, value))
        elif (read := _yes_no(value)) is not None and (words := key_words(key)):
            above = key_words(parent) if parent else frozenset()
            for word in list(above):
                above |= _PARENT_WORDS.get(word, frozenset())
            name = f"{parent}.{key}" if parent else key
            has, said = read
            out.append(Flag(name, words, above, has, said, joined=_joined(key) if len(words) > 1 else ""))
    return out


def _group_flags(key: str, value: dict[str, Any]) -> list[Flag]:
    """A group of fields as a whole, one flag for each word that names it ("ambience", "atmosphere"):
    stated where any of its fields has a value."""
    stated = True if any(v is not None for v in value.values()) else None
    shown = json.dumps(value, separators=(", ", ": "))
    leaves = frozenset(w for k in value for w in key_words(k)) | _GROUP_WORDS.get(key.casefold(), set())
    names = {w for word in key_words(key) for w in _TOPIC_WORDS.get(word, {word})}
    return [
        Flag(key, frozenset({w}), frozenset(), stated, shown, topic=True, leaves=leaves)
        for w in sorted(names)
    ]


def _yes_no(value: Any) -> tuple[bool | None, str] | None:
    """A field value that says yes, no or nothing (``null``), with the value as the record writes it;
    None for any other value."""
    if value is None or isinstance(value, bool):
        return value, "null" if value is None else str(value).lower()
    if isinstance(value, str):
        said = _PYTHON_STRING.sub(r"\1", value.strip())
        if said.casefold() in _YES_NO_WORDS:
            return _YES_NO_WORDS[said.casefold()], said
    return None


def _joined(key: str) -> str:
    """The key's words (less those every field shares) run together: "RestaurantsTakeOut" -> "takeout"."""
    words = _key_parts(key)
    return "".join(w for w in words if w not in _GENERIC and w.removesuffix("s") not in _GENERIC)


def _hours(value: Any) -> dict[str, tuple[float, float]]:
    if not isinstance(value, dict):
        return {}
    out: dict[str, tuple[float, float]] = {}
    for day, span in value.items():
        match = _HOUR_RANGE.match(span) if isinstance(span, str) else None
        if match is not None:
            h1, m1, h2, m2 = (int(g) for g in match.groups())
            out[day.casefold()] = (h1 + m1 / 60, h2 + m2 / 60)
    return out


def slot_unit(key: str) -> str:
    """What a field's value measures, named by its key's last word, singular: "business_stars" ->
    "star"; for a count, the word before: "review_count" and "reviewCount" -> "review"."""
    words = _key_parts(key)
    if len(words) > 1 and words[-1] in _COUNT_WORDS:
        words.pop()
    last = words[-1] if words else key.casefold()
    return last.removesuffix("s") or last
