"""Opening hours a response states, read day by day against a record's hours (:mod:`._records`).

A sentence about opening ("open", "close", "hours", "operate", "serve"; not a happy hour) is read as a
run of days and times. Days: weekday names and their short forms ("Mon", "THURS"), ranges ("Monday to
Saturday", "Mon-Fri"), lists ("Monday, Wednesday and Friday"), "weekdays", "weekends" and the whole
week ("every day", "daily", "seven days a week"). Times: "9 am", "5:30 pm", "noon", "midnight", a
24-hour "17:00", and a bare "9:30", which may be either half of the day; "11 am to 9 pm" and
"17:00-21:00" are ranges.

Days after "except" ("but", "apart from") are taken out of the days before them ("every day except
Monday and Tuesday") and are said to be closed, unless a statement of their own follows ("except
Fridays, when it closes at 5 pm"; closed if it says so: "which are closed"). Days said to keep other
hours ("with extended hours on Fridays") are taken out too and said to be open, and longer (shorter)
hours must be longer (shorter) than the middle of the days left. Days right after "closed" or "not
open", or followed by "closed" ("On Mondays, the business remains closed"), are said to be closed.

Each time is read with the days it is said of: of the day items next to it with only linking words
between ("on", "from", a comma), the nearest, a comma and an "and" counting as distance, and on a tie
the one the sentence's order gives (the days before it where the sentence opens with days: "Monday to
Saturday from 17:00 to 21:00"; else the days after it: "from 11:30 am to 7:30 pm on weekdays"). A
narrower statement then takes its days out of a wider one ("from 11 am to 8 pm Monday to Sunday, until
9 pm on Friday and Saturday").

- Times said of days hold when each of those days opens and closes at them in the record (a single time
  at either end); they are contradicted when one day does not, or when the record gives it no hours.
- Times said of no day hold when some day of the record opens or closes at each of them.
- Days said to be open are contradicted when the record gives one of them no hours; days said to be
  closed when it gives one of them hours.

A day whose hours are "0:0-0:0" counts as a day without hours where other days have hours: RAGTruth's
annotators read "open Monday to Sunday" against a Monday of "0:0-0:0" as a conflict. A record whose days
are all "0:0-0:0" gives the days it is open and no times. A sentence gets one verdict (kind "hours"):
contradicted at its first wrong time or day, else supported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trustscore.grounding._clock import TIME, hhmm, hours_of
from trustscore.grounding.claims._verdict import Verdict

__all__ = ["hours_verdicts", "read_as_hours"]

WEEK = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_SHORT = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}
_SHORT_FORMS = r"Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun|MON|TUES?|WED|THU(?:RS?)?|FRI|SAT|SUN"
_SHORT_ALONE = r"(?=\s*(?:[\d,:;&/)\u2013\u2014-]|and\b|to\b|through\b|thru\b)|[\s.]*$)"
"""A short form ("Sun") stands for a day only before a time, a list or a range, or at the end: "Sun Valley
Grill" names no Sunday."""
_DAILY = (
    r"daily(?=[\s,]*(?:[.;:!?)\d]|$|from\b|at\b|until\b|till\b|to\b|except\b|between\b|and\b|with\b"
    r"|open))"
)
""""daily" as the days of a statement ("open daily from 9 am"), not as an adjective ("daily specials")."""
_WHOLE_WEEK = rf"every\s+day|everyday|{_DAILY}|seven\s+days|7\s+days|all\s+week"


def _day(n: int) -> str:
    return (
        rf"(?i:(?P<full{n}>monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?)"
        rf"|(?P<short{n}>{_SHORT_FORMS})\.?"
    )


_DAYS = re.compile(
    rf"\b(?:(?i:(?P<week>{_WHOLE_WEEK})|(?P<weekdays>weekdays?)|(?P<weekends>weekends?))"
    rf"|(?P<first>{_day(1)}{_SHORT_ALONE})"
    rf"(?:\s*(?:to|through|thru|until|till|-|–|—)\s*(?P<last>{_day(2)}))?)(?!\w)"
)
_TIMES = re.compile(
    rf"(?<![\d:.\w]){TIME.format(n=1)}"
    rf"(?:\s*(?:to|until|till|through|-|–|—)\s*{TIME.format(n=2)})?",
    re.IGNORECASE,
)
_LIST = re.compile(r"\s*(?:,|&|and|or|, and)\s*$", re.IGNORECASE)
_LINKING_WORDS = (
    "on from at between and the every each is are it its they we open opens opened operates operate "
    "serves serve opening closes close closing until till hours during of for all a week"
)
_LINKING = frozenset(_LINKING_WORDS.split())
_GAP_WORDS = 5
_EXCEPT = re.compile(
    r"\b(?:except|excluding|other than|apart from|besides|save|but)\b(?:\s+(?:for|on))?\s*$", re.IGNORECASE
)
_OTHER_HOURS = re.compile(
    r"\b(extended|longer|shorter|later|earlier|different|varying|reduced)\s+(?:hours|closing|opening)\b"
    r"(?:\s+\w+){0,2}\s*$",
    re.IGNORECASE,
)
"""Days said to keep other hours, named with no time ("with extended hours on Fridays"): an exception
with a statement of its own."""
_LONGER = {"extended": True, "longer": True, "later": True, "shorter": False, "reduced": False}
"""Other hours that say which way they differ: longer (or shorter) than the rest of the week's."""
_CLOSING = r"(?:\bclosed|\bnot\s+open|n't\s+open)"
"""The words that say closed ("closed", "not open", "isn't open")."""
_CLOSED = re.compile(rf"{_CLOSING}\b(?:\s+\w+){{0,2}}\s*$", re.IGNORECASE)
_CLOSED_RANGE = re.compile(rf"{_CLOSING}\s+(?:from|between)?\s*$", re.IGNORECASE)
"""A time range said to be closed: "closed from 6 am to 2 pm", "isn't open between" (not "closed
outside", "closed except from")."""
_CLOSED_AFTER = re.compile(r"[\s,]*(?:[^\W\d_]+\s+){0,4}closed\b", re.IGNORECASE)
"""A day said to be closed after it is named ("On Mondays, the business remains closed")."""
_OWN_STATEMENT = re.compile(r"^\s*,?\s*(?:when|where|which|it|they)\b", re.IGNORECASE)
_NOT_OPENING = re.compile(r"\bhappy\s+hours?\b", re.IGNORECASE)
_MAX_ITEMS = 64
"""Days and times a sentence may hold to be read (a longer run is no statement of hours)."""
Hours = dict[str, tuple[float, float]]


@dataclass(eq=False)
class _Item:
    start: int
    end: int
    days: frozenset[str] | None = None
    """The days a day item names, or a time item is said of (None: a time said of no day)."""
    times: tuple[frozenset[float], ...] = ()
    """A time item's one or two times, each as the hours of the day it may be (empty: a day item)."""
    closed: bool = False
    """A day item the sentence says is closed, or a time range it says is closed ("not open from 6 am
    to 2 pm")."""
    closed_at: int | None = None
    """For a closed time range, where the words that close it begin."""
    excepted: int | None = None
    """For a day item after "except" or said to keep other hours, where that phrase starts."""
    longer: bool | None = None
    """For days said to keep longer (True) or shorter (False) hours, which way."""
    others: frozenset[str] = frozenset()
    """For days taken out of a wider statement, the days left in it."""
    paired: bool = False
    """A day item a time is said of (checked through that time)."""
    side: int = 0
    """For a paired day item, the side its time stands on (-1 before it, 1 after)."""
    said_of: tuple[int, int] | None = None
    """A time item's stretch from its first to its last character with the days it is said of."""


def _statement_sentences(text: str, sentences: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The sentences (offsets into ``text``) whose times state the business's hours: not a happy
    hour's."""
    return [(s, e) for s, e in sentences if not _NOT_OPENING.search(text, s, e)]


def hours_verdicts(
    text: str, sentences: list[tuple[int, int]], hours: Hours, read: list[tuple[int, int]]
) -> list[Verdict]:
    """One verdict on each of ``sentences`` (offsets into ``text``, those about opening) that states
    days or times; the offsets of every day and time read are added to ``read``: this check answers
    for them, so the atoms' check does not report them again as unsupported."""
    hours = {WEEK[k]: span for day, span in hours.items() if (k := _day_index(day)) is not None}
    timed = {day: span for day, span in hours.items() if span != (0.0, 0.0)}
    open_days = set(timed) if timed else set(hours)  # a record of "0:0-0:0" alone: open, times unknown
    out: list[Verdict] = []
    for start, end in _statement_sentences(text, sentences):
        items = _items(text[start:end])
        read.extend((start + item.start, start + item.end) for item in items)
        wrong = next((item for item in items if not _holds(item, timed, open_days)), None)
        if wrong is not None:
            s, e = (start + at for at in wrong.said_of or (wrong.start, wrong.end))
            s = min(s, start + wrong.closed_at) if wrong.closed_at is not None else s
            out.append(Verdict("hours", "contradicted", text[s:e], s, e, _listed(wrong, hours)))
        elif items:
            s, e = start + items[0].start, start + items[-1].end
            out.append(Verdict("hours", "supported", text[s:e], s, e))
    return out


def read_as_hours(verdict: Verdict, read: list[tuple[int, int]]) -> bool:
    """An unsupported number or date that overlaps a time or day an hours statement read
    (:func:`hours_verdicts`): this check answers for it. A contradicted one stays."""
    if verdict.outcome != "unsupported" or verdict.kind not in ("number", "date"):
        return False
    return any(s < verdict.end and verdict.start < e for s, e in read)


def _items(sentence: str) -> list[_Item]:
    """The sentence's day and time items in order: lists of days merged, excepted days taken out of the
    days before them, each time given the days it is said of."""
    found = [item for m in _DAYS.finditer(sentence) if (item := _day_item(m)) is not None]
    found += [item for m in _TIMES.finditer(sentence) if (item := _time_item(m)).times]
    if len(found) > _MAX_ITEMS:
        return []
    found.sort(key=lambda item: item.start)
    items = _merged(found, sentence)
    for n, item in enumerate(items):
        if len(item.times) == 2 and (
            closing := _CLOSED_RANGE.search(sentence, items[n - 1].end if n else 0, item.start)
        ):
            # "is not open from 6 am to 2 pm", "isn't open from": the span begins with the word
            item.closed, item.closed_at = True, sentence.rfind(" ", 0, closing.start()) + 1
        after = items[n + 1] if n + 1 < len(items) else None
        if (
            item.days is not None
            and _CLOSED_AFTER.match(sentence, item.end, after.start if after else len(sentence))
            and not (after is not None and after.days is not None and after.closed)  # "and closed on X"
        ):
            item.closed = True
    stated, unsaid = [], sentence
    for n, item in enumerate(items):
        if item.excepted is None:
            stated.append(item)
            continue
        wider = next((i for i in reversed(stated) if not i.times), None)
        if wider is not None and wider.days is not None and item.days is not None:
            wider.days = wider.days - item.days  # "every day except Monday"
            item.others = wider.days
        clause = sentence[item.end : items[n + 1].start if n + 1 < len(items) else len(sentence)]
        if _OWN_STATEMENT.match(clause):  # "except Fridays, when it closes at 5 pm" / "which are closed"
            item.closed = re.search(r"\bclosed\b", clause, re.IGNORECASE) is not None
        else:
            item.closed = _EXCEPT.search(sentence, item.excepted, item.start) is not None
        unsaid = unsaid[: item.excepted] + " " * (item.end - item.excepted) + unsaid[item.end :]
    _pair(stated, unsaid)  # a time reaches over an exception to the days it is said of
    return items


def _merged(found: list[_Item], sentence: str) -> list[_Item]:
    """The items with lists of days merged ("Monday, Wednesday and Friday"), except a day that has its
    own time where the list before it has one ("from 11 am to 9 pm Monday to Thursday and Friday from 11
    am to 10 pm"); days after "except" or said to keep other hours marked."""
    items: list[_Item] = []
    for n, item in enumerate(found):
        before = items[-1] if items else None
        at = before.end if before else 0
        gap = sentence[at : item.start]
        if item.days is not None and before is not None and before.days is not None and _LIST.match(gap):
            after = found[n + 1] if n + 1 < len(found) else None
            timed_before = len(items) > 1 and items[-2].times and _near(sentence, items[-2], before)
            if not (timed_before and after is not None and after.times and _near(sentence, item, after)):
                before.days, before.end = before.days | item.days, item.end
                continue
        if item.days is not None:
            excepting = _EXCEPT.search(gap)
            hedged = _OTHER_HOURS.search(gap) if excepting is None else None
            if excepting is not None or hedged is not None:
                item.excepted = at + (excepting or hedged).start()  # type: ignore[union-attr]
                item.longer = None if hedged is None else _LONGER.get(hedged.group(1).casefold())
            item.closed = bool(_CLOSED.search(gap))
        items.append(item)
    return items


def _near(sentence: str, first: _Item, second: _Item) -> bool:
    distance = _distance(sentence[first.end : second.start])
    return distance is not None and distance <= 1


def _day_item(m: re.Match[str]) -> _Item | None:
    if m.group("week"):
        days = frozenset(WEEK)
    elif m.group("weekdays"):
        days = frozenset(WEEK[:5])
    elif m.group("weekends"):
        days = frozenset(WEEK[5:])
    else:
        first = _day_index(m.group("full1") or m.group("short1"))
        last = _day_index(m.group("full2") or m.group("short2")) if m.group("last") else first
        if first is None or last is None:
            return None
        days = frozenset(WEEK[(first + k) % 7] for k in range((last - first) % 7 + 1))
    return _Item(m.start(), m.end(), days=days)


def _day_index(name: str) -> int | None:
    """A day's place in the week by its first three letters (None for a name that folds to none:
    a dotted capital I, "FRİDAY", folds to two characters)."""
    return _SHORT.get(name.casefold()[:3])


def _time_item(m: re.Match[str]) -> _Item:
    times = tuple(t for n in (1, 2) if (t := hours_of(m, n)) is not None)
    if len(times) == 2 and m.group("hh1") and m.group("hh2") and any(len(t) == 1 for t in times):
        times = tuple(frozenset({min(t)}) for t in times)  # "5:00 to 20:30" is on the 24-hour clock
    written = 2 if m.group("h2") or m.group("hh2") or m.group("word2") else 1
    return _Item(m.start(), m.end(), times=times if len(times) == written else ())  # "13 am": no time


def _pair(items: list[_Item], sentence: str) -> None:
    """Give each time item the days it is said of (:attr:`_Item.days` stays None where none are), then
    take out of a wider statement the days a narrower one of the sentence gives times for."""
    if not items:
        return
    days_first = not items[0].times
    candidates: list[tuple[float, int, int]] = []
    for n, item in enumerate(items):
        if not item.times:
            continue
        for k in (n - 1, n + 1):
            other = items[k] if 0 <= k < len(items) else None
            if other is None or other.times or other.closed:
                continue
            gap = sentence[min(item.end, other.end) : max(item.start, other.start)]
            distance = _distance(gap)
            if distance is not None:
                against_order = (k > n) == days_first
                candidates.append((distance + 0.5 * against_order, n, k))
    for _, n, k in sorted(candidates):
        item, other = items[n], items[k]
        side = -1 if n < k else 1
        if item.days is not None or (other.paired and other.side != side):
            continue
        item.days, other.paired, other.side = other.days, True, side
        item.said_of = (min(item.start, other.start), max(item.end, other.end))
    said = [item for item in items if item.times and item.days is not None]
    for item in said:
        for other in said:
            if other is not item and item.days and other.days and len(other.days) < len(item.days):
                item.days = item.days - other.days


def _distance(gap: str) -> float | None:
    """How far apart a gap of linking words sets a time and a day (None: no link): a word counts one,
    "and" two (it joins two statements more often than a time to its day), a comma two."""
    words = re.findall(r"[^\W\d_]+|\d+", gap.casefold())
    if len(words) > _GAP_WORDS or ";" in gap or any(w not in _LINKING for w in words):
        return None
    return len(words) + words.count("and") + 2 * gap.count(",")


def _holds(item: _Item, timed: Hours, open_days: set[str]) -> bool:
    if item.times and item.closed:  # closed when a day of the record opens and closes at those times
        days = timed if item.days is None else {d: timed[d] for d in item.days if d in timed}
        return not any(_matches(item.times, span) for span in days.values())
    if item.times and item.days is None:
        given = {t % 24 for span in timed.values() for t in span}
        return not timed or all(_at(t, given) for t in item.times)
    if item.days is None:
        return True
    if item.times:
        return all(
            day in open_days and (day not in timed or _matches(item.times, timed[day])) for day in item.days
        )
    if item.closed:
        return not any(day in timed for day in item.days)
    if item.longer is not None and not _longer_or_shorter(item, timed):
        return False
    return item.paired or all(day in open_days for day in item.days)


def _longer_or_shorter(item: _Item, timed: Hours) -> bool:
    """Days said to keep longer (shorter) hours are open longer (shorter) than the middle of the days
    their statement leaves in ("open daily from 9 am to 9 pm, with extended hours on weekends")."""
    rest = sorted(_length(timed[d]) for d in item.others if d in timed)
    named = [_length(timed[d]) for d in item.days or () if d in timed]
    if not rest or not named:
        return True
    middle = rest[len(rest) // 2]
    return all((n > middle) if item.longer else (n < middle) for n in named)


def _length(span: tuple[float, float]) -> float:
    return (span[1] - span[0]) % 24 or 24.0


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
    names a day the record gives no hours)."""
    days = wrong.days if wrong.days and all(d in hours for d in wrong.days) else None
    shown = [(d, hours[d]) for d in WEEK if d in hours and (days is None or d in days)]
    return "the hours are " + ", ".join(f"{d.title()} {hhmm(a)}-{hhmm(b)}" for d, (a, b) in shown)
