"""Opening hours a response states, read day by day against a record's hours (:mod:`._records`).

A sentence about opening ("open", "close", "hours", "operate", "serve") is read as a run of days and
times. Days: weekday names and their short forms ("Mon", "Thurs"), ranges ("Monday to Saturday",
"Mon-Fri"), lists ("Monday, Wednesday and Friday"), "weekdays", "weekends" and the whole week ("every
day", "daily", "seven days a week"); days after "except" are taken out of the days before them. Times:
"9 am", "5:30 pm", "noon", "midnight", a 24-hour "17:00", and a bare "9:30", which may be either half of
the day; "11 am to 9 pm" and "17:00-21:00" are ranges.

Each time is read with the days it is said of, when only linking words ("on", "from", a comma) stand
between them: the days before it where the sentence opens with days ("Monday to Saturday from 17:00 to
21:00"), else the days after it ("from 11:30 am to 7:30 pm on weekdays and ... on weekends").

- Times said of days hold when each of those days opens and closes at them in the record (a single time
  at either end); they are contradicted when one day does not, or when the record gives no hours for it.
- Times said of no day hold when some day of the record opens or closes at each of them.
- Days named with no time ("open Monday through Sunday") are contradicted when the record gives no hours
  for one of them; days said to be closed ("closed on Mondays") when it gives hours for one of them.

A day whose hours are "0:0-0:0" (around the clock, or unknown) is never compared. A sentence gets one
verdict (kind "hours"): contradicted at its first wrong time or day, else supported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trustscore.grounding._clock import TIME, hours_of
from trustscore.grounding.claims._verdict import Verdict

__all__ = ["hours_verdicts"]

WEEK = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_SHORT = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4, "sat": 5}
_SHORT["sun"] = 6
_DAY = (
    r"(?i:(?P<full>monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?)"
    r"|(?P<short>Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)\.?"
)
_SHORT_ALONE = r"(?=\s*(?:[\d,:&\u2013\u2014-]|and\b|to\b|through\b|thru\b)|\s*\.?\s*$)"
"""A short form ("Sun") stands for a day only before a time, a list or a range, or at the end: "Sun Valley
Grill" names no Sunday."""
_WHOLE_WEEK = r"every\s+day|everyday|daily|seven\s+days|7\s+days|all\s+week"
_DAYS = re.compile(
    rf"\b(?:(?P<week>{_WHOLE_WEEK})|(?P<weekdays>weekdays?)|(?P<weekends>weekends?)"
    rf"|(?P<first>{_DAY.replace('?P<full>', '?P<full1>').replace('?P<short>', '?P<short1>')}{_SHORT_ALONE})"
    rf"(?:\s*(?:to|through|thru|until|till|-|–|—)\s*"
    rf"(?P<last>{_DAY.replace('?P<full>', '?P<full2>').replace('?P<short>', '?P<short2>')}))?)(?!\w)"
)
_TIMES = re.compile(
    rf"(?<![\d:.\w]){TIME.format(n=1)}"
    rf"(?:\s*(?:to|until|till|through|-|–|—)\s*{TIME.format(n=2)})?",
    re.IGNORECASE,
)
_LIST = re.compile(r"\s*(?:,|&|and|or|, and)\s*$", re.IGNORECASE)
_LINKING_WORDS = (
    "on from at between and the every each is are it its they we open opens opened operates operate "
    "serves serve opening closes close closing until till hours during of for all"
)
_LINKING = frozenset(_LINKING_WORDS.split())
_GAP_WORDS = 5
_EXCEPT = re.compile(r"\b(?:except|excluding|but|other than)\b", re.IGNORECASE)
_CLOSED = re.compile(r"\bclosed\b", re.IGNORECASE)
Hours = dict[str, tuple[float, float]]


@dataclass
class _Item:
    start: int
    end: int
    days: frozenset[str] | None = None
    """The days a day item names (None for a time item)."""
    times: tuple[frozenset[float], ...] = ()
    """A time item's one or two times, each as the hours of the day it may be."""
    excepted: bool = False
    closed: bool = False
    paired: bool = False
    said_of: tuple[int, int] | None = None
    """A time item's stretch from its first to its last character with the days it is said of."""


def hours_verdicts(
    text: str, sentences: list[tuple[int, int]], hours: Hours, read: list[tuple[int, int]]
) -> list[Verdict]:
    """One verdict on each of ``sentences`` (offsets into ``text``, those about opening) that states
    days or times; the offsets of every day and time read are added to ``read``: this check answers
    for them, so the atoms' check does not report them again as unsupported."""
    out: list[Verdict] = []
    for start, end in sentences:
        items = _items(text[start:end])
        read.extend((start + item.start, start + item.end) for item in items)
        wrong = next((item for item in items if not _holds(item, hours)), None)
        if wrong is not None:
            s, e = (start + at for at in wrong.said_of or (wrong.start, wrong.end))
            out.append(Verdict("hours", "contradicted", text[s:e], s, e, _listed(wrong, hours)))
        elif items:
            s, e = start + items[0].start, start + items[-1].end
            out.append(Verdict("hours", "supported", text[s:e], s, e))
    return out


def _items(sentence: str) -> list[_Item]:
    """The sentence's day and time items in order, lists of days merged and excepted days taken out."""
    found = [_day_item(m) for m in _DAYS.finditer(sentence)]
    found += [item for m in _TIMES.finditer(sentence) if (item := _time_item(m)).times]
    found.sort(key=lambda item: item.start)
    items: list[_Item] = []
    for item in found:
        before = items[-1] if items else None
        gap = sentence[before.end if before else 0 : item.start]
        if item.days is not None:
            item.excepted = bool(_EXCEPT.search(gap))
            item.closed = bool(_CLOSED.search(gap))
            if before is not None and before.days is not None and not item.excepted and _LIST.match(gap):
                before.days, before.end = before.days | item.days, item.end
                continue
            if item.excepted and before is not None and before.days is not None:
                before.days = before.days - item.days
        items.append(item)
    _pair(items, sentence)
    return items


def _day_item(m: re.Match[str]) -> _Item:
    if m.group("week"):
        days = frozenset(WEEK)
    elif m.group("weekdays"):
        days = frozenset(WEEK[:5])
    elif m.group("weekends"):
        days = frozenset(WEEK[5:])
    else:
        first = _day_index(m.group("full1"), m.group("short1"))
        last = _day_index(m.group("full2"), m.group("short2")) if m.group("last") else first
        days = frozenset(WEEK[(first + k) % 7] for k in range((last - first) % 7 + 1))
    return _Item(m.start(), m.end(), days=days)


def _day_index(full: str | None, short: str | None) -> int:
    return WEEK.index(full.casefold()) if full else _SHORT[(short or "").casefold()]


def _time_item(m: re.Match[str]) -> _Item:
    times = tuple(t for n in (1, 2) if (t := hours_of(m, n)) is not None)
    return _Item(m.start(), m.end(), times=times)


def _pair(items: list[_Item], sentence: str) -> None:
    """Give each time item the days it is said of (:attr:`_Item.days` stays None where none are), then
    take out of a wider statement the days a narrower one of the sentence gives times for ("from 11 am
    to 8 pm Monday to Sunday, until 9 pm on Friday and Saturday")."""
    if not items:
        return
    opens_with_days = items[0].days is not None
    for n, item in enumerate(items):
        if item.days is not None or not item.times:
            continue
        for k in (n - 1, n + 1) if opens_with_days else (n + 1, n - 1):
            other = items[k] if 0 <= k < len(items) else None
            if other is None or other.days is None or other.excepted or _owned(items, k, n, opens_with_days):
                continue
            if _linking(sentence[min(item.end, other.end) : max(item.start, other.start)]):
                item.days, other.paired = other.days, True
                item.said_of = (min(item.start, other.start), max(item.end, other.end))
                break
    said = [item for item in items if item.times and item.days is not None]
    for item in said:
        assert item.days is not None
        for other in said:
            if other is not item and other.days is not None and len(other.days) < len(item.days):
                item.days = item.days - other.days


def _owned(items: list[_Item], day: int, time: int, days_first: bool) -> bool:
    """The day item stands between the time and another time on its far side, which it is said of in
    the sentence's order ("on Saturdays, they open from 11:30 am to 10 pm, and on Sundays, ... 9 pm")."""
    far = day + (day - time)
    return 0 <= far < len(items) and bool(items[far].times) and (far > day) == days_first


def _linking(gap: str) -> bool:
    words = re.findall(r"[^\W\d_]+|\d+", gap.casefold())
    return len(words) <= _GAP_WORDS and all(w in _LINKING for w in words) and ";" not in gap


def _holds(item: _Item, hours: Hours) -> bool:
    known = {day: span for day, span in hours.items() if span != (0.0, 0.0)}
    if item.times and item.days is None:
        given = {t % 24 for span in known.values() for t in span}
        return all(_at(t, given) for t in item.times)
    if item.days is None or item.excepted:
        return True
    if item.times:
        return all(day in hours for day in item.days) and all(
            _matches(item.times, known[day]) for day in item.days if day in known
        )
    if item.paired:
        return True
    if item.closed:
        return not any(day in known for day in item.days)
    return all(day in hours for day in item.days)


def _matches(times: tuple[frozenset[float], ...], span: tuple[float, float]) -> bool:
    """A range matches a day that opens at its first time and closes at its second; one time matches
    either end."""
    if len(times) == 2:
        return _at(times[0], {span[0] % 24}) and _at(times[1], {span[1] % 24})
    return _at(times[0], {span[0] % 24, span[1] % 24})


def _at(candidates: frozenset[float], given: set[float]) -> bool:
    return any(abs(c % 24 - g) < 1e-6 for c in candidates for g in given)


def _listed(wrong: _Item, hours: Hours) -> str:
    """The record's hours for the days the wrong item is said of (all of them where it names none, or
    names a day the record leaves out)."""
    days = wrong.days if wrong.days is not None and all(d in hours for d in wrong.days) else None
    shown = [(d, hours[d]) for d in WEEK if d in hours and (days is None or d in days)]
    shown += [(d, span) for d, span in hours.items() if d not in WEEK and days is None]
    return "the hours are " + ", ".join(f"{d.title()} {_clock(a)}-{_clock(b)}" for d, (a, b) in shown)


def _clock(hour: float) -> str:
    return f"{int(hour)}:{round(hour % 1 * 60):02d}"
