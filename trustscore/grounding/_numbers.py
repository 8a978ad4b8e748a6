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
    """Each number written with a scale word ("42 thousand", "3.5 million", "seven million"; a word's
    value from ``number_words``): its start and end offsets and the key of the number it writes
    ("42000", "3500000", "7000000"), the key its digits alone have."""
    out: list[tuple[int, int, str]] = []
    for m in _SCALED_NUMBER.finditer(text):
        written = m.group(1)
        digits = number_words.get(written.casefold()) if written[0].isalpha() else normalise_number(written)
        try:
            value = Decimal(digits or "") * _SCALES[m.group(2).casefold()]
        except InvalidOperation:  # not a number word, or "1,2,3 million": no one number
            continue
        out.append((m.start(), m.end(), normalise_number(f"{value:f}")))
    return out
