"""The shipped calibrator for Scorers that run the claims signal, and the choice between the two."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from trustscore import Config, Scorer
from trustscore.calibrators import shipped_calibrator
from trustscore.fusion.store import load_model
from trustscore.grounding.claims.config import ClaimsConfig
from trustscore.grounding.claims.signal import claims_version
from trustscore.types import Sample, Signal

from .test_shipped import CONTEXT, PACKAGED, RESPONSE, default_versions, local_pair

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]
PACKAGED_CLAIMS = REPO / "trustscore" / "calibrators" / "local_multidomain_claims.json"


class ClaimsReplay:
    """A claims signal replaying a fixed value (None: missing, nothing to check)."""

    name = "claims"

    def __init__(self, value: float | None) -> None:
        self.version = claims_version(ClaimsConfig())
        self.value = value

    async def run(self, sample: Sample) -> Signal:
        if self.value is None:
            return Signal.failed("claims", "nothing to check", version=self.version)
        return Signal(name="claims", value=self.value, raw={"outcome": "checked"}, version=self.version)


def claims_versions() -> dict[str, str]:
    return {**default_versions(), "claims": claims_version(ClaimsConfig())}


def test_the_claims_model_is_fitted_on_the_three_signals_at_the_code_versions() -> None:
    model = load_model(PACKAGED_CLAIMS)
    assert model.name == "local_multidomain_claims"
    assert model.signal_versions == claims_versions()
    assert "claims" in {f.spec.signal for f in model.features}
    assert model.not_calibrated_reason == load_model(PACKAGED).not_calibrated_reason
    assert shipped_calibrator(claims_versions()) == model


async def score(value: float | None) -> float | None:
    signals = [*local_pair(default_versions(), grounded=True), ClaimsReplay(value)]
    result = await Scorer(Config(), local_signals=signals).score(
        question="q", context=CONTEXT, response=RESPONSE
    )
    assert result.fusion.startswith("calibrator:local_multidomain_claims@"), result.fusion
    return result.score


async def test_a_contradiction_lowers_the_fused_score_and_a_missing_claims_signal_still_scores() -> None:
    supported, contradicted, missing = await score(1.0), await score(0.15), await score(None)
    assert supported is not None and contradicted is not None and missing is not None
    assert contradicted < supported
    # Missing (nothing to check) is imputed with the indicator the fit learned; it still scores.
    assert 0.0 < missing < 1.0


async def test_without_the_claims_extra_the_claims_signal_is_missing_and_the_pair_model_applies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "spacy", None)  # as if the claims extra were not installed
    monkeypatch.setitem(sys.modules, "spacy.util", None)
    scorer = Scorer(Config(), local_signals=None)
    assert "claims" in scorer.signal_names
    assert "pip install '/path/to/trustscore[claims]'" in scorer.unavailable["claims"]
    result = await scorer.score(question="q", context=CONTEXT, response=RESPONSE)
    assert result.signals["claims"].missing
    assert result.fusion == load_model(PACKAGED).description
