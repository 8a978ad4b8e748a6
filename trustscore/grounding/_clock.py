"""Clock times read as one value however they are written: "6 pm", "6:00 p.m.", "18:00", a record's
"18:0", "noon", "midnight". A bare "9:30" may be morning or evening, so it is read as both.

Lexical support keys a time by what it may be (:func:`clock_key`) and lets a context's time vouch for
every way a response may write it (:func:`vouched_keys`): "6 pm" and "18:00" support each other, a
bare "6:00" is supported by either, and "7 pm" is no longer supported by a "7" and a "pm" read apart.
The claims signal's opening-hours check reads its times with the same pattern (:data:`TIME`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trustscore.compute._deadline import checkpoint

__all__ = [
    "TIME",
    "ClockTime",
    "clock_key",
    "clock_times",
    "clock_within",
    "hhmm",
    "hours_of",
    "vouched_keys",
]

TIME = (
    r"(?:(?P<h{n}>\d{{1,2}})(?:[:.](?P<m{n}>\d{{2}}))?\s*(?P<ap{n}>[ap])(?:\.\s?m\b\.?|\s?m\b)"
    r"|(?P<hh{n}>\d{{1,2}}):(?P<mm{n}>\d{{1,2}})(?![\d:])"
    r"|(?P<word{n}>noon|midday|midnight)\b)"
)
"""One clock time, its groups suffixed with ``n`` (``TIME.format(n=1)``) so a range can hold two."""
_ONE_TIME = re.compile(rf"(?<![\d:.\w]){TIME.format(n=1)}", re.IGNORECASE)


@dataclass(frozen=True)
class ClockTime:
    start: int
    end: int
    hours: frozenset[float]
    """The hours of the day it may be (17.5 = 17:30): one, or two for a bare "9:30"."""


def hours_of(m: re.Match[str], n: int = 1) -> frozenset[float] | None:
    """The hours of the day the ``n``th time of a match of :data:`TIME` may be, or None when it is no
    time ("13 pm", "9:75")."""
    if m.group(f"word{n}"):
        return frozenset({0.0 if m.group(f"word{n}").casefold() == "midnight" else 12.0})
    if m.group(f"h{n}"):
        hour, minute = int(m.group(f"h{n}")), int(m.group(f"m{n}") or 0)
        evening = m.group(f"ap{n}").casefold() == "p"
        if 13 <= hour <= 23 and evening and minute <= 59:
            return frozenset({hour + minute / 60})  # "20:00 PM": a 24-hour time with its half said again
        if not 1 <= hour <= 12 or minute > 59:
            return None
        return frozenset({hour % 12 + (12 if evening else 0) + minute / 60})
    if m.group(f"hh{n}"):
        hour, minute = int(m.group(f"hh{n}")), int(m.group(f"mm{n}"))
        if hour > 24 or minute > 59:
            return None
        at = hour % 24 + minute / 60
        return frozenset({at, at + 12}) if 1 <= hour <= 11 else frozenset({at})
    return None


def clock_times(text: str) -> list[ClockTime]:
    """Every clock time of ``text`` with its offsets (the budget checked every 4,096 matches); a bare
    time that opens or closes a quoted value is a record's, on the 24-hour clock."""
    out: list[ClockTime] = []
    for n, m in enumerate(_ONE_TIME.finditer(text)):
        if n % 4096 == 0:
            checkpoint()
        hours = hours_of(m)
        if hours is not None and len(hours) == 2 and _quoted(text, m.start(), m.end()):
            hours = frozenset({min(hours)})  # a record's "11:0-21:0" is written on the 24-hour clock
        if hours is not None:
            out.append(ClockTime(m.start(), m.end(), hours))
    return out


def _quoted(text: str, start: int, end: int) -> bool:
    """The time opens or closes a quoted value: a record's field (``"Monday": "11:0-21:0"``)."""
    return text[start - 1 : start] == '"' or text[end : end + 1] == '"'


def clock_key(hours: frozenset[float]) -> str:
    """A time's match key: "clock 18:00" for one reading, "clock 6:00?" for a bare time that may be
    either half of the day."""
    if len(hours) == 1:
        return f"clock {hhmm(min(hours))}"
    return f"clock {hhmm(min(hours))}?"


def vouched_keys(hours: frozenset[float]) -> frozenset[str]:
    """The keys a context's time vouches for: each of its readings, and the bare time that may be
    any of them ("18:00" vouches for "6 pm" and for "6:00"; a bare "6:00" for "6 am" and "6 pm")."""
    keys = {f"clock {hhmm(h)}" for h in hours}
    keys.update(f"clock {hhmm(h % 12)}?" for h in hours if 1 <= int(h % 12) <= 11)
    return frozenset(keys)


def hhmm(hour: float) -> str:
    """A time of day as "H:MM" ("17:30"), on the 24-hour clock."""
    minutes = round(hour * 60) % (24 * 60)
    return f"{minutes // 60}:{minutes % 60:02d}"


def clock_within(stated: str, said: str) -> bool | None:
    """Whether the one clock time of ``said`` lies in the range from the first to the last clock time
    of ``stated`` ("7 pm" is not within "9 am to 6 pm", though 7 lies between 6 and 9; a range past
    midnight wraps), or None when they are not clock times (a range of numbers is read as numbers)."""
    bounds, times = clock_times(stated), clock_times(said)
    if len(bounds) < 2 or len(times) != 1:
        return None
    first, last = min(bounds[0].hours), max(bounds[-1].hours)
    return any(
        first <= h <= last if first <= last else (h >= first or h <= last) for h in times[0].hours
    )
