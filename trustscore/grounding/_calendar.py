"""The words a context's days and opening hours state without writing them.

A record that gives opening hours as clock-time ranges under ``"hours"`` (``"Monday": "11:0-21:0"``)
states that the business opens on those days: "open", "daily", "week". A text that names Monday to
Friday (each of the five days, or the range: "Mon-Fri", "Monday through Friday") states the weekdays,
and one that names Saturday and Sunday the weekend. Lexical support reads these words as written in the
context (:func:`~trustscore.grounding._text.support_keys`).
"""

from __future__ import annotations

import re

__all__ = ["calendar_words"]

_HOURS_RANGE = re.compile(r"\b\d{1,2}:\d{1,2}\s?[-\u2013]\s?\d{1,2}:\d{1,2}\b")
"""A record's opening hours ("11:0-21:0")."""
_HOURS_WORDS: tuple[str, ...] = ("open", "opens", "opened", "opening", "day", "days", "daily", "week")
_HOURS_WORDS += ("weekly", "hours", "operate", "operates")
"""The words that state opening hours; not "closed" ("closes", "closing" share its key), which a record
that leaves a day out never states."""
_DAY = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b", re.IGNORECASE)
_WEEKDAY_RANGE = re.compile(
    r"\bmon(?:day)?\.?\s*(?:-|\u2013|to|through|thru|until)\s*fri(?:day)?\b", re.IGNORECASE
)
_WEEKDAYS = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday"})


def calendar_words(text: str) -> list[str]:
    """The words ``text`` states through its days and opening hours, as written (not folded)."""
    out: list[str] = []
    if '"hours"' in text and _HOURS_RANGE.search(text):
        out.extend(_HOURS_WORDS)
    named = {m.group(1).casefold() for m in _DAY.finditer(text)}
    if named >= _WEEKDAYS or _WEEKDAY_RANGE.search(text):
        out.append("weekday")
    if {"saturday", "sunday"} <= named:
        out.append("weekend")
    return out
