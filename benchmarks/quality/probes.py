"""Probes: answers in the styles real answers take, each flagged (or not) by the offline default.

    .venv/bin/python -m benchmarks.quality.probes            # every answer, then the tally per kind

A second hand-written set beside the contrast set (``benchmarks.quality.contrast``), written after it
and unlike it: seven invented contexts of three or four sentences (a ferry, a survey, a company's
quarter, a trail, two bridges, a library, a mountain) and 69 answers to them, 22 of them correct. The
correct ones reword or respell what the context says ("42 thousand" for "42,000", "18:00" for "6 pm",
"kids younger than twelve" for "children under 12"), or answer in a word or two; the wrong ones change
one thing the way a generator does: a number, a date or month, a name, a unit or currency, a negation
("do not travel", "are not allowed"), an antonym or opposite ("over" for "under", "fell" for "up"), a
material, a rank ("the highest" for "the second highest"), or two values exchanged. Then 18 answers
of "yes" or "no" to yes/no questions of their own over the same contexts, nine of them correct ("Was
the survey funded by the government?" answered "No, it was not.").

An answer is read right when a wrong one scores under 0.5 and a correct one at or above it (the
README's line). Each row prints its score and ``result.reason``: what the offline default said.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["PROBES", "Probe", "main", "tally"]


@dataclass(frozen=True)
class Probe:
    """One answer to a question over a context; ``faithful`` says whether it is correct."""

    context: str
    question: str
    kind: str
    faithful: bool
    answer: str


_FERRY = (
    "The Harlow river ferry carries up to 80 passengers. It runs every 20 minutes between 6 am and 11 pm. "
    "A single ticket costs 3.50 euros; children under 12 travel free. The ferry was replaced in 2019 by an "
    "electric boat built in Gdansk."
)
_SURVEY = (
    "Dr. Amara Osei led the 2021 survey of coral reefs off the coast of Ghana. Her team found that 38 "
    "percent of the reefs were bleached, up from 22 percent in 2015. The survey was funded by the Marine "
    "Trust, not by the government."
)
_QUARTER = (
    "Orbis Labs reported revenue of $412 million for the third quarter, an increase of 9% over the same "
    "quarter last year. Net profit fell to $31 million. The company's chief executive, Lena Park, said "
    "hiring would be frozen until March."
)
_TRAIL = (
    "The Tessaly trail is 14 kilometres long and climbs 600 metres. It is closed from November to April "
    "because of snow. Dogs are allowed on a lead. There is no drinking water along the route."
)
_GORGE = (
    "In 1887 the engineer Tomas Reyes built the first bridge across the Salto gorge. It was made of iron "
    "and stood for 61 years before a flood destroyed it in 1948. The current concrete bridge opened in 1952."
)
_LIBRARY = (
    "The Alder Street Library opened on 14 March 2011. It was designed by the architect Clara Voss and "
    "cost 12 million pounds. It holds about 42,000 books and is open from 9 am to 6 pm on weekdays. It is "
    "closed on Sundays."
)
_MOUNTAIN = (
    "Mount Kerel is 3,412 metres high, the second highest peak in the range after Mount Idris. The first "
    "recorded ascent was made in 1921 by a British team led by George Hale. Climbing permits cost 150 "
    "dollars and are required all year."
)

_ANSWERS: tuple[tuple[str, str, tuple[tuple[str, bool, str], ...]], ...] = (
    (
        _FERRY,
        "Tell me about the Harlow ferry.",
        (
            (
                "verbatim",
                True,
                "The ferry carries up to 80 passengers and runs every 20 minutes between 6 am and 11 pm.",
            ),
            (
                "paraphrase",
                True,
                "Kids younger than twelve ride for free, while adults pay 3.50 euros for a single ticket.",
            ),
            ("paraphrase", True, "Since 2019 an electric boat, built in Gdansk, has served as the ferry."),
            ("number", False, "The ferry carries up to 180 passengers."),
            ("number", False, "A single ticket costs 5.30 euros."),
            ("date", False, "The ferry was replaced in 2016 by an electric boat."),
            ("name", False, "The electric boat was built in Rotterdam."),
            ("negation", False, "Children under 12 do not travel free."),
            ("opposite", False, "Children over 12 travel free."),
            ("unit", False, "It runs every 20 hours."),
        ),
    ),
    (
        _SURVEY,
        "What did the survey find?",
        (
            (
                "verbatim",
                True,
                "Her team found that 38 percent of the reefs were bleached, up from 22 percent in 2015.",
            ),
            (
                "paraphrase",
                True,
                "Bleaching rose from 22% of reefs in 2015 to 38% in the 2021 survey led by Dr. Osei.",
            ),
            ("paraphrase", True, "The Marine Trust paid for the survey; the government did not."),
            ("number", False, "Her team found that 83 percent of the reefs were bleached."),
            ("date", False, "Dr. Amara Osei led the 2012 survey of coral reefs off the coast of Ghana."),
            ("name", False, "Dr. Kofi Mensah led the 2021 survey of coral reefs off the coast of Ghana."),
            ("negation", False, "The survey was funded by the government."),
            ("opposite", False, "Bleaching fell from 22 percent in 2015 to 38 percent."),
            (
                "exchanged",
                False,
                "Her team found that 22 percent of the reefs were bleached, up from 38 percent in 2015.",
            ),
        ),
    ),
    (
        _QUARTER,
        "How did Orbis Labs do in the third quarter?",
        (
            (
                "verbatim",
                True,
                "Orbis Labs reported revenue of $412 million for the third quarter, an increase of 9% "
                "over the same quarter last year.",
            ),
            (
                "paraphrase",
                True,
                "Third-quarter revenue grew 9% year on year to $412 million, but net profit dropped to "
                "$31 million.",
            ),
            ("number", False, "Orbis Labs reported revenue of $421 million for the third quarter."),
            ("number", False, "Revenue rose 19% over the same quarter last year."),
            ("opposite", False, "Net profit rose to $31 million."),
            ("name", False, "The chief executive, Maria Lopez, said hiring would be frozen until March."),
            ("date", False, "Lena Park said hiring would be frozen until June."),
            ("negation", False, "Lena Park said hiring would not be frozen."),
            ("unit", False, "Orbis Labs reported revenue of $412 billion for the third quarter."),
        ),
    ),
    (
        _TRAIL,
        "What should hikers know about the Tessaly trail?",
        (
            ("verbatim", True, "The Tessaly trail is 14 kilometres long and climbs 600 metres."),
            ("paraphrase", True, "Bring your own water: none is available on the trail."),
            (
                "paraphrase",
                True,
                "Snow keeps the trail shut between November and April, and dogs must stay on a lead.",
            ),
            ("number", False, "The Tessaly trail is 41 kilometres long."),
            ("unit", False, "The Tessaly trail is 14 miles long and climbs 600 metres."),
            ("negation", False, "There is drinking water along the route."),
            ("negation", False, "Dogs are not allowed on the trail."),
            ("date", False, "It is closed from December to May because of snow."),
            ("opposite", False, "It is open from November to April."),
        ),
    ),
    (
        _GORGE,
        "What is the history of the Salto gorge bridges?",
        (
            (
                "verbatim",
                True,
                "In 1887 the engineer Tomas Reyes built the first bridge across the Salto gorge.",
            ),
            (
                "paraphrase",
                True,
                "Tomas Reyes's iron bridge lasted 61 years until a flood swept it away in 1948.",
            ),
            ("paraphrase", True, "A concrete bridge has spanned the gorge since 1952."),
            (
                "date",
                False,
                "In 1878 the engineer Tomas Reyes built the first bridge across the Salto gorge.",
            ),
            (
                "name",
                False,
                "In 1887 the engineer Pablo Ortiz built the first bridge across the Salto gorge.",
            ),
            ("number", False, "It was made of iron and stood for 16 years."),
            ("material", False, "It was made of wood and stood for 61 years."),
            ("negation", False, "The first bridge was not destroyed by a flood."),
            ("material", False, "The current iron bridge opened in 1952."),
        ),
    ),
    (
        _LIBRARY,
        "When did the library open and who designed it?",
        (
            ("paraphrase", True, "It opened on March 14, 2011, and Clara Voss was the architect."),
            ("paraphrase", True, "Clara Voss designed it; it opened in March 2011."),
            ("paraphrase", True, "The library cost £12 million and has roughly 42 thousand books."),
            ("paraphrase", True, "On weekdays it opens at 9:00 and closes at 18:00."),
            ("bare answer", True, "14 March 2011."),
            ("number", False, "It cost 21 million pounds."),
            ("unit", False, "The library cost £12 billion."),
            ("date", False, "It opened on March 4, 2011."),
            ("date", False, "It opened in 2001, designed by Clara Voss."),
            ("number", False, "It is open from 9 am to 8 pm on weekdays."),
            ("name", False, "It was designed by the architect Clara Vance."),
            ("opposite", False, "It is open on Sundays."),
            ("bare answer", False, "14 March 2012."),
        ),
    ),
    (
        _MOUNTAIN,
        "Tell me about Mount Kerel.",
        (
            ("paraphrase", True, "Only Mount Idris is higher than Mount Kerel in the range."),
            (
                "paraphrase",
                True,
                "George Hale led the British team that made the first recorded climb, in 1921.",
            ),
            ("paraphrase", True, "You need a permit to climb it at any time of year; it costs $150."),
            ("rank", False, "Mount Kerel is the highest peak in the range."),
            ("number", False, "Mount Kerel is 3,142 metres high."),
            (
                "name",
                False,
                "The first recorded ascent was made in 1921 by a French team led by George Hale.",
            ),
            (
                "name",
                False,
                "The first recorded ascent was made in 1921 by a British team led by Edmund Hale.",
            ),
            ("negation", False, "Climbing permits are not required in winter."),
            ("exchanged", False, "Mount Idris is the second highest peak in the range after Mount Kerel."),
            ("unit", False, "Climbing permits cost 150 euros."),
        ),
    ),
)

_REPLIES: tuple[tuple[str, str, bool, str], ...] = (
    (_FERRY, "Does the ferry run every 20 minutes?", True, "Yes."),
    (_FERRY, "Does a single ticket cost 5 euros?", False, "Yes, it does."),
    (_FERRY, "Was the ferry replaced in 2019?", False, "No."),
    (_SURVEY, "Was the survey funded by the government?", True, "No, it was not."),
    (_SURVEY, "Was the survey funded by the government?", False, "Yes."),
    (_SURVEY, "Did Dr. Amara Osei lead the 2021 survey?", True, "Yes, she did."),
    (_QUARTER, "Did net profit fall?", False, "No."),
    (_QUARTER, "Did revenue increase by 9%?", True, "Yes, it did."),
    (_TRAIL, "Is there drinking water along the route?", False, "Yes, there is."),
    (_TRAIL, "Are dogs allowed on a lead?", True, "Yes."),
    (_GORGE, "Was the first bridge made of iron?", True, "Yes, it was."),
    (_GORGE, "Did Tomas Reyes build the first bridge in 1897?", False, "Yes."),
    (_GORGE, "Did a flood destroy the bridge in 1948?", False, "No, it did not."),
    (_LIBRARY, "Is the library closed on Sundays?", True, "Yes."),
    (_LIBRARY, "Was the library designed by the architect Maria Lang?", True,
     "No, it was designed by the architect Clara Voss."),
    (_MOUNTAIN, "Is Mount Kerel the highest peak in the range?", True, "No."),
    (_MOUNTAIN, "Are climbing permits required all year?", False, "No, they are not."),
    (_MOUNTAIN, "Did George Hale lead the first recorded ascent?", True, "Yes."),
)  # fmt: skip
"""Yes or no to a yes/no question of its own, nine right and nine wrong."""

PROBES: tuple[Probe, ...] = tuple(
    Probe(context, question, kind, faithful, answer)
    for context, question, answers in _ANSWERS
    for kind, faithful, answer in answers
) + tuple(Probe(context, question, "yes/no", right, answer) for context, question, right, answer in _REPLIES)


def tally(probes: Sequence[Probe], scores: Sequence[float | None]) -> dict[str, tuple[int, int]]:
    """Per kind (and "all correct" / "all wrong"), how many answers were read right out of how many: a
    wrong answer under 0.5, a correct one at or above it. An answer with no score is not read right."""
    right: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    for probe, score in zip(probes, scores, strict=True):
        ok = score is not None and (score >= 0.5) == probe.faithful
        for key in (probe.kind, "all correct" if probe.faithful else "all wrong"):
            total[key] += 1
            right[key] += ok
    return {key: (right[key], total[key]) for key in total}


def main(argv: Sequence[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    import anyio

    import trustscore as ts

    async def run() -> list[ts.TrustScore]:
        async with ts.Scorer() as scorer:
            samples = [ts.Sample(question=p.question, context=[p.context], response=p.answer) for p in PROBES]
            return await scorer.score_many(samples)

    results = anyio.run(run)
    print("| kind | correct | score | read right | reason | answer |\n|---|---|---|---|---|---|")
    for probe, result in zip(PROBES, results, strict=True):
        score = result.score
        ok = score is not None and (score >= 0.5) == probe.faithful
        shown = "–" if score is None else f"{score:.3f}"
        read = "yes" if ok else "NO"
        print(f"| {probe.kind} | {probe.faithful} | {shown} | {read} | {result.reason} | {probe.answer} |")
    print("\n| kind | read right |\n|---|---|")
    for kind, (right, total) in sorted(tally(PROBES, [r.score for r in results]).items()):
        print(f"| {kind} | {right} of {total} |")
    print(f"\nfusion: {results[0].fusion}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
