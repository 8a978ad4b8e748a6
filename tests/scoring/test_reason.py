"""Every result leads with its strongest finding in one line (``TrustScore.reason``): each kind of
reason, the ranking between them, and the reason a Scorer puts on its results."""

from __future__ import annotations

from typing import Any

import pytest

from tests.scoring.test_degraded import SAMPLE
from trustscore import Config, Scorer, Signal, Span
from trustscore.scoring._reason import MAX_CHARS, top_reason
from trustscore.testing import Fault, MockRouter, judge_policy, lynx_answer

pytestmark = pytest.mark.anyio


def value(name: str, v: float, **more: Any) -> Signal:
    return Signal(name=name, value=v, **more)


def contradicted(kind: str, text: str, said: str) -> Span:
    return Span(start=0, end=len(text), text=text, score=1.0, label=f"contradicted {kind}: {text}: {said}")


CLAIMS_1935 = value(
    "claims",
    0.15,
    spans=[
        Span(start=0, end=4, text="pool", score=0.5, label="unsupported statement: no sentence says it"),
        contradicted("negation", "has", "the context says has no"),
        contradicted("date", "1935", "the context says 1953"),
    ],
)


def test_a_contradicted_fact_leads_whatever_else_says() -> None:
    signals = {
        "lexical": value("lexical", 0.95),
        "lynx": value("lynx", 0.9, raw="PASS"),
        "claims": CLAIMS_1935,
    }
    reason = top_reason(0.8, signals, judges=["lynx"])
    assert reason == "contradicted: 1935, the context says 1953 (claims)"


def test_a_judge_on_the_scores_side_comes_next_the_most_confident_one() -> None:
    signals = {
        "lexical": value("lexical", 0.9),
        "likert": value("likert", 0.3, raw=2.1),
        "lynx": value("lynx", 0.07, raw="FAIL"),
        "prometheus": value("prometheus", 0.8, raw={"score": 4}),
    }
    assert top_reason(0.3, signals, judges=["likert", "lynx", "prometheus"]) == "judge lynx: FAIL"
    # A verdict that is not a word is given as the side and the value.
    assert (
        top_reason(0.7, signals, judges=["likert", "lynx", "prometheus"]) == "judge prometheus: PASS (0.80)"
    )


def test_a_judge_against_the_score_does_not_lead_it() -> None:
    signals = {"lexical": value("lexical", 0.95), "lynx": value("lynx", 0.4, raw="FAIL")}
    assert top_reason(0.7, signals, judges=["lynx"]) == "supported by the context (lexical 0.95)"


def test_a_contradicted_negation_names_a_low_score_but_never_leads_a_passing_one() -> None:
    claims = value("claims", 0.2, spans=[contradicted("negation", "has", "the context says has no")])
    signals = {"lexical": value("lexical", 0.9), "claims": claims}
    assert top_reason(0.3, signals) == "contradicted: has, the context says has no (claims)"
    assert top_reason(0.6, signals) == "supported by the context (lexical 0.90)"


def test_the_strongest_signal_on_the_scores_side_otherwise() -> None:
    signals = {"lexical": value("lexical", 0.12), "embedding": value("embedding", 0.3)}
    assert top_reason(0.2, signals) == "not supported by the context (lexical 0.12)"
    signals = {"lexical": value("lexical", 0.7), "embedding": value("embedding", 0.91)}
    assert top_reason(0.8, signals) == "supported by the context (embedding 0.91)"


def test_no_signal_on_the_scores_side_alone_names_the_two_nearest_to_it() -> None:
    signals = {
        "lexical": value("lexical", 0.6),
        "embedding": value("embedding", 0.55),
        "claims": value("claims", 0.8),
        "lynx": value("lynx", 0.9, raw="PASS"),
    }
    reason = top_reason(0.45, signals, judges=["lynx"])
    assert reason == "below the line on the signals together (embedding 0.55, lexical 0.60)"
    assert top_reason(0.45, {"lynx": value("lynx", 0.9, raw="PASS")}, judges=["lynx"]) == "below the line"


def test_one_signal_against_the_score_names_the_missing_one_the_fusion_read_as_its_average() -> None:
    """An answer of "r": lexical has nothing to check, and its average, not the embedding's 0.21, is what
    put the score above the line."""
    signals = {
        "lexical": Signal.failed("lexical", "the response has no content words, numbers or names to check"),
        "embedding": value("embedding", 0.21),
        "claims": Signal.failed("claims", "nothing to check: the response states no number"),
    }
    assert top_reason(0.53, signals) == (
        "above the line on embedding 0.21 and lexical at its average "
        "(lexical: the response has no content words, numbers or names to check)"
    )


def test_an_abstention_is_abstained() -> None:
    signals = {
        "lexical": Signal.failed(
            "lexical", "abstention: the response declines", raw={"outcome": "abstention"}
        ),
        "claims": value("claims", 1.0, raw={"outcome": "abstention"}),
    }
    assert top_reason(0.9, signals) == "abstained"


def test_no_score_says_why_another_language_first() -> None:
    why = "other language: the response is in 'de' and the context in 'en' (py3langid); words cannot match"
    signals = {
        "lexical": Signal.failed("lexical", why, raw={"outcome": "other_language"}),
        "embedding": Signal.failed("embedding", why, raw={"outcome": "other_language"}),
    }
    expected = "unscored: other language: the response is in 'de' and the context in 'en' (py3langid)"
    assert top_reason(None, signals) == expected
    signals = {"lynx": Signal.failed("lynx", "HTTP 500 from the server; retried 0 times")}
    assert top_reason(None, signals, judges=["lynx"]) == "unscored: lynx: HTTP 500 from the server"
    assert top_reason(None, {}) == "unscored: no signal was run"
    signals = {"likert": Signal.failed("likert", "likert call failed: connection refused")}
    assert top_reason(None, signals, judges=["likert"]) == "unscored: likert call failed: connection refused"


def test_a_signal_a_rerun_may_fix_is_named_before_the_supporting_signal() -> None:
    signals = {
        "lexical": value("lexical", 0.9),
        "lynx": Signal.failed("lynx", "timed out after 30s (judges.timeout_s)"),
    }
    reason = top_reason(0.9, signals, judges=["lynx"], incomplete=["lynx"])
    assert reason == "degraded: lynx timed out after 30s (judges.timeout_s)"
    # Missing for a reason of the sample itself: not a finding that outranks the context's support.
    assert top_reason(0.9, signals, judges=["lynx"]) == "supported by the context (lexical 0.90)"
    signals["lynx"] = Signal.failed("lynx", "lynx call failed: connection refused; retried 3 times")
    reason = top_reason(0.9, signals, judges=["lynx"], incomplete=["lynx"])
    assert reason == "degraded: lynx call failed: connection refused"  # the name once


def test_a_long_finding_is_cut_to_one_line() -> None:
    name = "Sir Bartholomew Augustus Fitzwilliam-Montgomery\nof the Northern Reaches " * 4
    claims = value("claims", 0.1, spans=[contradicted("name", name, "the context says Ruth Abara")])
    reason = top_reason(0.1, {"claims": claims})
    assert "\n" not in reason and len(reason) <= MAX_CHARS and reason.endswith("...")


def _config(router: MockRouter, **fusion: str) -> Config:
    return Config.from_dict(
        {
            "endpoints": {"judge": {"base_url": router.base_url, "model": "fake-judge", "max_retries": 0}},
            "judges": {"lynx": {"endpoint": "judge"}},
            "signals": {"embedding": {"enabled": False}, "claims": {"enabled": False}},
            "cache": {"mode": "off"},
            "fusion": fusion,
        }
    )


async def test_a_scorer_puts_the_judges_verdict_on_its_result() -> None:
    router = MockRouter(judge_policy({"lynx": lynx_answer("FAIL")}))
    async with Scorer(_config(router), transport=router.transport) as scorer:
        result = await scorer.score(**SAMPLE)
    assert result.score is not None and result.score < 0.5
    assert result.reason == "judge lynx: FAIL"
    assert result.model_dump()["reason"] == "judge lynx: FAIL"


async def test_a_scorer_names_the_failed_judge_and_no_score_when_on_missing_is_none() -> None:
    router = MockRouter()
    router.faults.add(Fault.server_error())
    async with Scorer(_config(router), transport=router.transport) as scorer:
        degraded = await scorer.score(**SAMPLE)
    assert degraded.reason is not None and degraded.reason.startswith("degraded: lynx call failed: HTTP 500")
    async with Scorer(_config(router, on_missing="none"), transport=router.transport) as scorer:
        unscored = await scorer.score(**SAMPLE)
    assert unscored.score is None
    assert unscored.reason is not None and unscored.reason.startswith("unscored: lynx call failed: HTTP 500")


async def test_a_scorer_says_abstained_for_a_refusal() -> None:
    config = Config.from_dict({"signals": {"embedding": {"enabled": False}, "claims": {"enabled": False}}})
    async with Scorer(config) as scorer:
        result = await scorer.score(
            question="Who paid for it?",
            context=["The bridge opened in 1998."],
            response="I don't know: the passage does not mention who paid for it.",
        )
    assert result.reason == "abstained"


def test_rich_shows_the_line_as_text_not_markup() -> None:
    from rich.console import Console

    from trustscore import TrustScore

    result = TrustScore(
        score=0.2,
        calibrated=False,
        signals={"claims": CLAIMS_1935},
        used_signals=["claims"],
        fusion="default:logodds",
        reason="contradicted: [b]1935[/b], the context says 1953 (claims)",
    )
    console = Console(record=True, width=300)
    console.print(result)
    assert console.export_text().strip() == str(result)
    assert str(result) == (
        "TrustScore(0.20 not calibrated: contradicted: [b]1935[/b], the context says 1953 (claims); claims)"
    )
