"""The shipped calibrator for Scorers that run the claims signal, and the choice between the two."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from trustscore import Config, Sample, Scorer, Signal
from trustscore.calibrators import shipped_calibrator
from trustscore.fusion import load_model
from trustscore.grounding.claims import ClaimsConfig
from trustscore.grounding.claims._signal import claims_version

from .test_shipped import CONTEXT, PACKAGED, RESPONSE, default_versions, local_pair

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]
PACKAGED_CLAIMS = REPO / "trustscore" / "calibrators" / "local_multidomain_claims.json"


class ClaimsReplay:
    """A claims signal replaying fixed counts of contradicted facts and polarity, an unsupported share and
    a count of unstated dates (facts None: missing, nothing to check), with the value the signal gives
    such atoms."""

    name = "claims"

    def __init__(
        self, facts: int | None, polarity: int = 0, unsupported: float = 0.0, dates: int = 0
    ) -> None:
        self.version = claims_version(ClaimsConfig())
        self.facts = facts
        self.polarity = polarity
        self.unsupported = unsupported
        self.dates = dates

    async def run(self, sample: Sample) -> Signal:
        if self.facts is None:
            return Signal.failed("claims", "nothing to check", version=self.version)
        contradicted = self.facts + self.polarity
        raw = {
            "outcome": "checked",
            "contradicted": contradicted,
            "contradicted_facts": self.facts,
            "contradicted_polarity": self.polarity,
            "unsupported_share": self.unsupported,
            "unsupported_dates": self.dates,
        }
        value = (1 - self.unsupported) * 0.15**contradicted
        return Signal(name="claims", value=value, raw=raw, version=self.version)


def claims_versions() -> dict[str, str]:
    return {**default_versions(), "claims": claims_version(ClaimsConfig())}


def test_the_claims_model_is_fitted_on_the_three_signals_at_the_code_versions() -> None:
    model = load_model(PACKAGED_CLAIMS)
    assert model.name == "local_multidomain_claims"
    assert model.signal_versions == claims_versions()
    assert "claims" in {f.spec.signal for f in model.features}
    assert model.not_calibrated_reason == load_model(PACKAGED).not_calibrated_reason
    assert shipped_calibrator(claims_versions()) == model


async def score(
    facts: int | None, polarity: int = 0, unsupported: float = 0.0, dates: int = 0
) -> float | None:
    signals = [
        *local_pair(default_versions(), grounded=True),
        ClaimsReplay(facts, polarity, unsupported, dates),
    ]
    result = await Scorer(Config(), local_signals=signals).score(
        question="q", context=CONTEXT, response=RESPONSE
    )
    assert result.fusion.startswith("calibrator:local_multidomain_claims@"), result.fusion
    return result.score


def test_the_claims_model_reads_the_counts_by_kind_not_the_mixed_value_and_lets_them_decide() -> None:
    model = load_model(PACKAGED_CLAIMS)
    claims = [f.spec.key for f in model.features if f.spec.signal == "claims"]
    assert claims == [
        "claims:raw.contradicted_facts|identity",
        "claims:raw.unsupported_share|identity",
        "claims:raw.contradicted_polarity|identity",
        "claims:raw.unsupported_dates|identity",
    ]
    assert [t.feature for t in model.evidence] == [claims[0], claims[2], claims[3]]
    assert all(0.0 < t.precision < 1.0 for t in model.evidence)


async def test_contradicted_facts_and_unsupported_atoms_lower_it_and_a_missing_signal_still_scores() -> None:
    supported, one, two, missing = await score(0), await score(1), await score(2), await score(None)
    assert supported is not None and one is not None and two is not None and missing is not None
    # One contradicted fact decides (its evidence term); a second never raises the score (the count's
    # linear weight is held at or below 0 by the fit) and adds nothing where that weight is 0.
    assert two <= one < supported
    unsupported = await score(0, unsupported=0.5)
    assert unsupported is not None and unsupported < supported
    # A contradicted negation or antonym is evidence too (an evidence term, docs/calibration.md).
    polarity = await score(0, polarity=1)
    assert polarity is not None and polarity < supported
    # So is a calendar date the context never states (a summary that moves an event to another day).
    dated = await score(0, dates=1)
    assert dated is not None and dated < supported
    # Missing (nothing to check) is imputed with the indicator the fit learned; it still scores.
    assert 0.0 < missing < 1.0


async def test_without_the_claims_extra_the_claims_signal_is_skipped_and_the_pair_model_applies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "spacy", None)  # as if the claims extra were not installed
    monkeypatch.setitem(sys.modules, "spacy.util", None)
    scorer = Scorer(Config(), local_signals=None)
    assert "claims" not in scorer.signal_names
    assert "pip install '/path/to/trustscore[claims]'" in scorer.skipped["claims"]
    result = await scorer.score(question="q", context=CONTEXT, response=RESPONSE)
    assert "claims" not in result.signals and not result.degraded
    assert result.fusion == load_model(PACKAGED).description
    named = Scorer(Config.from_dict({"signals": {"claims": {}}}), local_signals=None)
    assert "pip install '/path/to/trustscore[claims]'" in named.unavailable["claims"]
    result = await named.score(question="q", context=CONTEXT, response=RESPONSE)
    assert result.signals["claims"].missing and result.degraded
    assert result.fusion == load_model(PACKAGED).description
