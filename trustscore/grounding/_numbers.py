"""Numbers as lexical support reads them: one spelling per number, and the other spellings a
context's numbers vouch for."""

from __future__ import annotations

import re

__all__ = ["normalise_number", "number_spellings"]

_ORDINAL_SUFFIX = re.compile(r"(st|nd|rd|th)$")


def normalise_number(text: str) -> str:
    """One spelling per number: "1,000" = "1000", "4.0" = "4", "2.50" = "2.5", "3rd" = "3"."""
    t = _ORDINAL_SUFFIX.sub("", text.lower())
    if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", t):
        t = t.replace(",", "")
    t = t.replace(",", ".") if re.fullmatch(r"\d+,\d{1,2}", t) else t
    if "." in t:
        whole, _, frac = t.partition(".")
        frac = frac.rstrip("0")
        t = f"{whole}.{frac}" if frac else whole
    stripped = t.lstrip("0")
    return stripped if stripped and not stripped.startswith(".") else ("0" + stripped if stripped else "0")


_BIG_NUMBER = re.compile(r"(?<![\d.,])(?:\d{1,3}(?:,\d{3})+|\d{5,})(?:\.\d+)?(?![\d,]*\d)")
_SCALED_NUMBER = re.compile(r"(?<![\d.,])(\d+(?:\.\d+)?)\s+(thousand|million|billion)\b", re.IGNORECASE)
_TWELVE_HOUR = re.compile(r"(?<![\d:])(\d{1,2})(?::(\d{2}))?\s?([ap])\.?m\b", re.IGNORECASE)
_SCALES = {"thousand": (1e3, "1000"), "million": (1e6, "million"), "billion": (1e9, "billion")}
"""Scale words: their size and their match key in :mod:`._text` ("thousand" is a number word, "1000")."""


def number_spellings(text: str) -> list[tuple[int, tuple[str, ...]]]:
    """The other ways a writer spells the numbers of ``text``, as match-key sequences by the offset of
    the number they spell: a large number with a scale word ("42,000" -> "42", "thousand"; "3,500,000"
    -> "3.5", "million"), a number with a scale word in digits ("12 million" -> "12000000"), and a
    12-hour time on the 24-hour clock ("6 pm" -> "18", "00"; "9:30 am" -> "9", "30")."""
    out: list[tuple[int, tuple[str, ...]]] = []
    for m in _BIG_NUMBER.finditer(text):
        value = float(m.group().replace(",", ""))
        for size, key in _SCALES.values():
            scaled = value / size
            if scaled >= 1 and abs(scaled * 100 - round(scaled * 100)) < 1e-6:
                out.append((m.start(), (normalise_number(f"{scaled:.2f}"), key)))
    for m in _SCALED_NUMBER.finditer(text):
        value = float(m.group(1)) * _SCALES[m.group(2).casefold()][0]
        out.append((m.start(), (normalise_number(f"{value:.0f}"),)))
    for m in _TWELVE_HOUR.finditer(text):
        hour = int(m.group(1))
        if 1 <= hour <= 12:
            clock = hour % 12 + (12 if m.group(3).casefold() == "p" else 0)
            out.append((m.start(), (str(clock), normalise_number(m.group(2) or "0"))))
    return out
