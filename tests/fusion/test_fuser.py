"""The uncalibrated default fusion: a confident judge verdict is not outvoted by grounding heuristics."""

from __future__ import annotations

import itertools

import pytest

from trustscore import Signal
from trustscore.fusion._fuser import DefaultFuser
from trustscore.signals import registered_signals


def signals(**values: float | None) -> dict[str, Signal]:
    return {
        name: Signal(name=name, value=v) if v is not None else Signal.failed(name, "down")
        for name, v in values.items()
    }


def test_a_lynx_fail_pulls_the_score_down_against_lexical_and_embedding() -> None:
    fused = DefaultFuser().predict(signals(lynx=0.07, lexical=1.0, embedding=0.56))
    assert fused.score == pytest.approx(0.285, abs=0.001)  # the plain mean gave 0.544
    assert fused.score < 0.5 and fused.calibrated is False
    assert fused.description == "default:logodds" and fused.used == ["lynx", "lexical", "embedding"]


@pytest.mark.parametrize(("lexical", "embedding"), list(itertools.product([0.0, 0.5, 0.9, 1.0], repeat=2)))
def test_a_confident_judge_decides_the_side_of_one_half(lexical: float, embedding: float) -> None:
    fail = DefaultFuser().predict(signals(lynx=0.09, lexical=lexical, embedding=embedding)).score
    ok = DefaultFuser().predict(signals(lynx=0.91, lexical=lexical, embedding=embedding)).score
    assert fail is not None and ok is not None
    assert fail < 0.5 < ok


def test_the_pool_is_monotone_in_every_signal() -> None:
    base = DefaultFuser().predict(signals(lynx=0.4, likert=0.6, lexical=0.7)).score
    higher = DefaultFuser().predict(signals(lynx=0.5, likert=0.6, lexical=0.7)).score
    assert base is not None and higher is not None and higher > base


def test_missing_signals_are_left_out_and_one_signal_is_its_own_value_clipped() -> None:
    assert DefaultFuser().predict(signals(lynx=None, lexical=0.3)).score == 0.3
    assert DefaultFuser().predict(signals(lynx=None, lexical=0.0)).score == 0.01
    assert DefaultFuser().predict(signals(lynx=None)).score is None
    both = DefaultFuser().predict(signals(lexical=0.7, embedding=0.9, tlm=None))
    assert both.used == ["lexical", "embedding"]


def test_judges_weigh_more_than_heuristics_and_unknown_signals_sit_between() -> None:
    judge_led = DefaultFuser().predict(signals(likert=0.2, lexical=0.8)).score
    unknown_led = DefaultFuser().predict(signals(mine=0.2, lexical=0.8)).score
    assert judge_led is not None and unknown_led is not None and judge_led < unknown_led < 0.5
    weights = DefaultFuser().weights
    assert all(weights[j] == 1.0 for j in registered_signals("judge"))
    assert weights["redeep"] == 0.5 and weights["lexical"] == weights["embedding"] == 0.25
