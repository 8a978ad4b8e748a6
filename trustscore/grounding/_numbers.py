"""Numbers as lexical support reads them: one spelling per number, whether written in digits alone
("12,000,000") or with a scale word ("12 million")."""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation

__all__ = ["normalise_number", "scaled_numbers"]

_ORDINAL_SUFFIX = re.compile(r"(st|nd|rd|th)$")
_SCALED_NUMBER = re.compile(
    r"(?<![\d.,\w])(\d+(?:[.,]\d+)*|[^\W\d_]+)\s+(thousand|million|billion)\b", re.IGNORECASE
)
_SCALES = {"thousand": Decimal(10**3), "million": Decimal(10**6), "billion": Decimal(10**9)}
_SHARED_SCALE = re.compile(r"(?<![\d.,\w])(\d+(?:[.,]\d+)*|[^\W\d_]+)\s*(?:-|–|to|and|or)\s*$", re.IGNORECASE)
"""The first number of a range or pair that shares the scale word written after the second ("5 to 6
million", "between 5 and 6 million"), matched on the text before the second; shared only where the
first is then the smaller ("from 900 to 3 million" keeps its 900)."""


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


def scaled_numbers(text: str, number_words: Mapping[str, str]) -> list[tuple[int, int, str]]:
    """Each number written with a scale word ("42 thousand", "3.5 million", "seven million", "one
    million"; a word's value from ``number_words``), and the first number of a range that shares it
    ("5" of "5 to 6 million"): its start and end offsets and the key of the number it writes ("42000",
    "3500000", "7000000", "5000000"), the key its digits alone have."""
    out: list[tuple[int, int, str]] = []
    for m in _SCALED_NUMBER.finditer(text):
        scale = _SCALES[m.group(2).casefold()]
        value = _value(m.group(1), scale, number_words)
        if value is None:
            continue
        first = _SHARED_SCALE.search(text, max(0, m.start() - 40), m.start())
        shared = _value(first.group(1), scale, number_words) if first is not None else None
        if first is not None and shared is not None and Decimal(shared) < Decimal(value):
            out.append((first.start(1), first.end(1), shared))  # not "from 900 to 3 million"
        out.append((m.start(), m.end(), value))
    return out


def _value(written: str, scale: Decimal, number_words: Mapping[str, str]) -> str | None:
    """The key of ``written`` (digits or a number word; "one" too, which no scale word follows as a
    pronoun) times ``scale``, or None when it is no number ("1,2,3 million")."""
    if written[0].isalpha():
        digits = "1" if written.casefold() == "one" else number_words.get(written.casefold())
    else:
        digits = normalise_number(written)
    try:
        return normalise_number(f"{Decimal(digits or '') * scale:f}")
    except InvalidOperation:
        return None
