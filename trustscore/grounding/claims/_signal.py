"""ClaimsCheck: the local signal ``"claims"``: are the numbers, dates, amounts, names and negations of
the response the ones the context states? (:mod:`trustscore.grounding.claims._check` says how.)

``value = (supported + 1) / (supported + unsupported + 1) * contradiction_factor ** contradicted``: an
unsupported atom lowers it as a share, each contradicted one multiplies it down (one wrong year in an
otherwise exact answer leaves 0.15 by default). Every atom not supported is a span whose label says
why ("contradicted: 2001: the context says 14 March 2011"); ``raw`` counts each outcome and lists the
contradictions, and splits the contradicted ones into ``contradicted_facts`` (a number, amount,
percentage, date or name the context states otherwise) and ``contradicted_polarity`` (a negation or
predicate it states the other way): on real answers the first is evidence of a hallucination and the
second is not (docs/calibration.md, "How a contradicted fact enters the score"), so the shipped
calibrator reads them apart. ``unsupported_dates`` counts the calendar dates (a day's number or a
year: "March 21", "2019", not "this weekend" or "Saturday", which point from the day of writing) the
context never states: a summary that moves an event to another day often words the sentence anew, so
the date has no slot to be contradicted in, yet a date an answer adds is seldom right.

A yes or no to a yes/no question is checked as the statement it makes, asserted or denied
(:mod:`trustscore.grounding.claims._polar`).

A number that cites a passage ("According to Passage 2", "[1]":
:mod:`trustscore.grounding._citations`) or numbers a list item ("1." opening a line) is not checked.
Missing, with the reason, when there is no context, when the response states nothing checkable, when
it is in another language than the context (:mod:`trustscore.grounding._language`). A response that
declines to answer (:mod:`trustscore.grounding._abstention`) is the ``abstention`` outcome: it claims
nothing, so nothing in it is unsupported (value 1).
"""

from __future__ import annotations

import time
import unicodedata
from functools import cache
from importlib.metadata import version

import anyio
from pydantic import JsonValue

from trustscore._types import ABSTENTION, Sample, Signal, Span, Usage
from trustscore.compute._deadline import checkpoint
from trustscore.core._hashing import canonical_json, short_hash
from trustscore.grounding._citations import PassageCitations
from trustscore.grounding._polar import PolarReply, polar_reply
from trustscore.grounding._screen import SCREEN, unchecked
from trustscore.grounding._text import is_list_marker
from trustscore.grounding.claims._check import POLARITY_KINDS, Facts, Verdict, check, facts
from trustscore.grounding.claims._config import ClaimsConfig
from trustscore.grounding.claims._parse_cache import ParseCache
from trustscore.grounding.claims._pipeline import Pipeline, find_pipeline
from trustscore.grounding.claims._polar import Asked, asked, reply_verdicts

__all__ = ["ClaimsCheck", "claims_version", "normalise"]

_METHOD = "claims/45"
_CACHE_REVISION = "aligned-slots/4"
"""In the cache identity, not the version: a change that leaves the value as it was but that cached
results from before it must not be replayed (the question's atoms no longer count as the context's
relations; ``raw`` counts contradicted facts and polarity apart and an abstention has its shares, which
the shipped calibrator reads)."""
_release = cache(version)
_PARSED_CHARS = 4_000_000
"""Characters of contexts and questions whose facts the process keeps (a few tens of MB of facts;
RAGTruth's contexts average under 2,500 characters): the answers of one context parse it once."""
_PARSED: ParseCache[Facts] = ParseCache(_PARSED_CHARS)


def claims_version(config: ClaimsConfig) -> str:
    """The signal's version under ``config`` (the method and the settings that change its values)."""
    settings = {"q": config.question_support, "c": config.contradiction_factor}
    return f"{_METHOD}+{short_hash(canonical_json(settings), 8)}"


def normalise(text: str) -> str:
    """NFKC: full-width digits, ligatures and non-breaking spaces read as their plain forms, with the
    same length where the forms map one to one (spans index the response as given otherwise)."""
    return unicodedata.normalize("NFKC", text)


class ClaimsCheck:
    """A :class:`~trustscore.signals.LocalSignal` named ``"claims"`` (higher = better supported)."""

    name = "claims"
    kind = "local"

    def __init__(self, config: ClaimsConfig | None = None) -> None:
        self.config = config or ClaimsConfig()
        self.pipeline = Pipeline(find_pipeline(self.config.pipeline))
        self.version = claims_version(self.config)

    def start_loading(self) -> None:
        """Load the spaCy pipeline on a background thread (see :meth:`Pipeline.start_loading`)."""
        self.pipeline.start_loading()

    async def run(self, sample: Sample) -> Signal:
        return await anyio.to_thread.run_sync(self.score, sample)

    def cache_identity(self) -> str:
        """The version, and the releases of spaCy, its pipeline and dateparser that read the texts."""
        return canonical_json(
            [
                self.version,
                _release("spacy"),
                self.pipeline.release,
                _release("dateparser"),
                SCREEN,
                _CACHE_REVISION,
            ]
        )

    def score(self, sample: Sample) -> Signal:
        """The signal for one sample, computed in the calling thread."""
        began = time.perf_counter()
        if not sample.has_context:
            return self._failed("no context: the claims check reads the response against the context", began)
        screened = unchecked(sample)
        if screened is not None and screened[0] == ABSTENTION:
            return Signal(
                name=self.name,
                value=1.0,
                raw={
                    "outcome": ABSTENTION,
                    "atoms": 0,
                    "contradicted": 0,
                    "contradicted_facts": 0,
                    "contradicted_polarity": 0,
                    "unsupported": 0,
                    "supported": 0,
                    "contradicted_share": 0.0,
                    "unsupported_share": 0.0,
                    "unsupported_dates": 0,
                },
                explanation=screened[1],
                usage=Usage(seconds=time.perf_counter() - began),
                version=self.version,
            )
        if screened is not None:
            return self._failed(screened[1], began, raw={"outcome": screened[0]})
        try:
            self.pipeline.nlp()
        except (ImportError, OSError) as e:
            return self._failed(f"the spaCy pipeline {self.pipeline.package} did not load: {e}", began)
        text = normalise(sample.response)
        reply = polar_reply(normalise(sample.question), text)
        statement = self._statement(reply) if reply is not None else None
        read = text
        if reply is not None and statement is not None:
            start, end = reply.reply  # the reply's words name nothing: the statement stands for them
            read = f"{text[:start]}{' ' * (end - start)}{text[end:]}"
        response = facts(self.pipeline.parse(read)) if read.strip() else None
        checkpoint()
        context = self._kept_facts(normalise(sample.context_text))
        question = (  # a reply's question is what it claims, so it supports none of it
            self._kept_facts(normalise(sample.question))
            if self.config.question_support and sample.question.strip() and reply is None
            else None
        )
        cited = PassageCitations(text, sum(1 for p in sample.context if p.strip()))
        found = check(response, context, question) if response is not None else []
        if reply is not None and statement is not None:
            found = reply_verdicts(reply, *statement, context, text) + found
        verdicts = [
            v
            for v in found
            if not (
                cited.cover(v.start, v.end) or (v.text.isdigit() and is_list_marker(text, v.start, v.end))
            )
        ]
        if not verdicts:
            return self._failed(
                "nothing to check: the response states no number, date, amount, name, or sentence that "
                "restates one of the context's",
                began,
                raw={"outcome": "nothing_to_check"},
            )
        return self._signal(verdicts, began)

    def _statement(self, reply: PolarReply) -> tuple[Asked, Facts] | None:
        """The statement a yes/no question asks about, and its facts; None when it reads none."""
        statement = asked(self.pipeline.parse(reply.question), self.pipeline.parse)
        return None if statement is None else (statement, facts(self.pipeline.parse(statement.affirmed)))

    def _signal(self, verdicts: list[Verdict], began: float) -> Signal:
        tally = {
            o: sum(v.outcome == o for v in verdicts) for o in ("supported", "unsupported", "contradicted")
        }
        support = (tally["supported"] + 1) / (tally["supported"] + tally["unsupported"] + 1)
        value = support * self.config.contradiction_factor ** tally["contradicted"]
        contradicted = [v for v in verdicts if v.outcome == "contradicted"]
        contradictions = [v.reason for v in contradicted]
        polarity = sum(v.kind in POLARITY_KINDS for v in contradicted)
        raw: dict[str, JsonValue] = {
            "outcome": "checked",
            "atoms": len(verdicts),
            **{k: n for k, n in tally.items()},
            "contradicted_facts": len(contradicted) - polarity,
            "contradicted_polarity": polarity,
            "contradicted_share": round(tally["contradicted"] / len(verdicts), 6),
            "unsupported_share": round(tally["unsupported"] / len(verdicts), 6),
            "unsupported_dates": sum(_calendar_date(v) for v in verdicts if v.outcome == "unsupported"),
            "contradictions": list[JsonValue](contradictions),
            "kinds": list[JsonValue](sorted({v.kind for v in verdicts})),
        }
        spans = [
            Span(
                start=v.start,
                end=v.end,
                text=v.text,
                score=1.0 if v.outcome == "contradicted" else 0.5,
                label=f"{v.outcome} {v.kind}: {v.reason}",
            )
            for v in verdicts
            if v.outcome != "supported"
        ]
        explanation = (
            f"{tally['contradicted']} contradicted, {tally['unsupported']} unsupported, "
            f"{tally['supported']} supported of {len(verdicts)} checked atoms"
            + (f"; {'; '.join(contradictions[:3])}" if contradictions else "")
        )
        return Signal(
            name=self.name,
            value=min(1.0, max(0.0, value)),
            raw=raw,
            explanation=explanation,
            spans=spans,
            usage=Usage(seconds=time.perf_counter() - began),
            version=self.version,
        )

    def _kept_facts(self, text: str) -> Facts:
        """The facts of a context or question, parsed once per process (answers share them)."""
        return _PARSED.get(f"{self.pipeline.release}|{self.version}", text, self._facts)

    def _facts(self, text: str) -> Facts:
        return facts(self.pipeline.parse(text), checked=False)

    def _failed(self, reason: str, began: float, raw: JsonValue = None) -> Signal:
        return Signal.failed(
            self.name, reason, usage=Usage(seconds=time.perf_counter() - began), raw=raw, version=self.version
        )


def _calendar_date(verdict: Verdict) -> bool:
    """A date with a day's number or a year in it ("March 21", "in 2019"), not one that points from the
    day of writing ("this weekend", "on Saturday")."""
    return verdict.kind == "date" and any(c.isdigit() for c in verdict.text)
