"""Optional capabilities are declared as protocols a plug-in author can see and mypy can check, not
found by attribute lookups."""

from __future__ import annotations

from collections.abc import Mapping

from trustscore import Sample, Signal
from trustscore._types import DomainCheck
from trustscore.fusion._fuser import AssessingFuser, DefaultFuser, FusedScore
from trustscore.signals import CachedSignal, LocalSignal


class Plain:
    name, version = "plain", "1"

    async def run(self, sample: Sample) -> Signal:
        return Signal(name=self.name, value=0.5)


class Cached(Plain):
    def cache_identity(self) -> str | None:
        return "plain@1"


class Checked:
    def predict(self, signals: Mapping[str, Signal]) -> FusedScore:
        return DefaultFuser().predict(signals)

    def assess(self, sample: Sample, signals: Mapping[str, Signal]) -> tuple[FusedScore, DomainCheck | None]:
        return self.predict(signals), None


def test_a_local_signal_declares_that_its_results_may_be_cached() -> None:
    assert isinstance(Plain(), LocalSignal) and not isinstance(Plain(), CachedSignal)
    assert isinstance(Cached(), CachedSignal)


def test_a_fuser_declares_that_it_assesses_the_sample() -> None:
    assert not isinstance(DefaultFuser(), AssessingFuser)
    assert isinstance(Checked(), AssessingFuser)
