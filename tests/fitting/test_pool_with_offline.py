"""The default pool beside a judge: the shipped offline model as one voice, its evidence deciding after."""

from __future__ import annotations

import math

import pytest

from tests.fitting.test_evidence import FACTS, fit
from trustscore import Signal
from trustscore.fusion._fuser import OFFLINE_WEIGHT, DefaultFuser

WEIGHTS = {"lynx": 1.0, "lexical": 0.25, "claims": 0.5}


def signals(p_pass: float, overlap: float, contradicted: int) -> dict[str, Signal]:
    return {
        "lynx": Signal(name="lynx", value=p_pass, version="lynx/1"),
        "lexical": Signal(name="lexical", value=overlap, version="lex/1"),
        "claims": Signal(name="claims", value=0.5, raw={"contradicted_facts": contradicted}, version="c/1"),
    }


def test_a_sure_contradiction_pulls_a_wrongly_passed_answer_under_the_line() -> None:
    model = fit((FACTS,))
    assert model.evidence[0].precision > 0.5
    pool = DefaultFuser(WEIGHTS, offline=model)
    assert pool.predict(signals(0.9, 0.95, 1)).score < 0.5  # type: ignore[operator]
    assert pool.predict(signals(0.9, 0.95, 0)).score > 0.5  # type: ignore[operator]
    plain = DefaultFuser(WEIGHTS)
    assert plain.predict(signals(0.9, 0.95, 1)).score > 0.5  # type: ignore[operator]


def test_the_offline_model_is_one_local_voice() -> None:
    model = fit((FACTS,))
    pool = DefaultFuser(WEIGHTS, offline=model)
    s = signals(0.8, 0.9, 0)
    linear, factor = model.linear_and_evidence({k: v for k, v in s.items() if k != "lynx"})
    assert factor == 1.0 and linear is not None

    def logit(p: float) -> float:
        return math.log(p / (1 - p))

    w = OFFLINE_WEIGHT
    expected = 1 / (1 + math.exp(-(1.0 * logit(0.8) + w * logit(min(0.99, linear))) / (1.0 + w)))
    fused = pool.predict(s)
    assert fused.score == pytest.approx(expected)
    assert fused.used == ["lynx", "lexical", "claims"] and not fused.calibrated


def test_without_the_offline_signals_the_pool_is_the_plain_one() -> None:
    pool = DefaultFuser(WEIGHTS, offline=fit((FACTS,)))
    only_judge = {"lynx": Signal(name="lynx", value=0.3, version="lynx/1")}
    assert pool.predict(only_judge).score == pytest.approx(0.3)


def test_the_offline_voice_weighs_what_it_is_given() -> None:
    model = fit((FACTS,))
    s = signals(0.8, 0.9, 0)
    linear, _ = model.linear_and_evidence({k: v for k, v in s.items() if k != "lynx"})
    assert linear is not None

    def logit(p: float) -> float:
        return math.log(p / (1 - p))

    heavy = DefaultFuser(WEIGHTS, offline=model, offline_weight=2.0).predict(s).score
    expected = 1 / (1 + math.exp(-(1.0 * logit(0.8) + 2.0 * logit(min(0.99, linear))) / 3.0))
    assert heavy == pytest.approx(expected)


@pytest.mark.parametrize("weight", [0.0, -1.0, float("nan")])
def test_an_offline_weight_that_is_not_positive_is_refused(weight: float) -> None:
    with pytest.raises(ValueError, match="offline_weight must be above 0"):
        DefaultFuser(WEIGHTS, offline=fit((FACTS,)), offline_weight=weight)


def test_a_confident_judge_still_flags_what_the_offline_model_passes_at_0_9() -> None:
    model = fit((FACTS,))
    pool = DefaultFuser(WEIGHTS, offline=model)

    def offline(overlap: float) -> float:
        linear, _ = model.linear_and_evidence(
            {k: v for k, v in signals(0.5, overlap, 0).items() if k != "lynx"}
        )
        assert linear is not None
        return linear

    overlap = max((o / 100 for o in range(1, 100)), key=lambda o: offline(o) if offline(o) <= 0.9 else 0.0)
    assert offline(overlap) == pytest.approx(0.9, abs=0.02)
    assert pool.predict(signals(0.05, overlap, 0)).score < 0.5  # type: ignore[operator]
