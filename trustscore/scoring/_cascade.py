"""The cost-aware cascade at scoring time: run the signals stage by stage, stop where the score is sure.

The first stage runs on every sample. After each stage the fused score of the signals so far decides
whether the next stage runs: it does when that score lies inside the next stage's band (or when the
next stage is ``always``, or when no signal so far has a value). A sample that stops gets the score
of the stage it stopped at; the signals of the stages it never reached are *skipped*, which is not
missing (see :class:`~trustscore._types.CascadeStop`). The whole run stays inside the sample's one
time budget: a stage cut by it leaves the sample incomplete, as any cut signal does.

The stage scores come from the fitted cascade (``cascade.calibrator``: one calibrator per stage over
the signals up to it) or, with hand-set bands, from the Scorer's own fuser applied to the signals so far.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from trustscore._config import Config
from trustscore._errors import ConfigError
from trustscore._types import CascadeStop, Signal
from trustscore.fusion._fuser import Fuser
from trustscore.scoring._runners import Source

__all__ = ["Cascade", "CascadeRun", "RuntimeStage", "build_cascade"]


@dataclass(frozen=True)
class RuntimeStage:
    name: str
    sources: list[Source]
    band: tuple[float, float] | None
    """The stage runs when the score after the stage before lies in ``[low, high]``; None: it always
    runs (the first stage, and ``always`` ones)."""
    fuser: Fuser
    """Scores a sample that stops after this stage."""

    def runs_after(self, score: float | None) -> bool:
        if self.band is None or score is None:
            return True
        low, high = self.band
        return low <= score <= high


class CascadeRun:
    """One sample's way through the cascade: the stage reached so far, and whether it ended by choice
    (rather than being cut by the budget)."""

    def __init__(self) -> None:
        self.stage = 0
        self.ended = False


class Cascade:
    def __init__(self, stages: Sequence[RuntimeStage]) -> None:
        self.stages = list(stages)

    async def run(
        self,
        run_sources: Callable[[Sequence[Source]], Awaitable[None]],
        finished: Mapping[str, Signal],
        progress: CascadeRun,
    ) -> None:
        """Run the stages in order through ``run_sources`` (which fills ``finished``), recording in
        ``progress`` how far the sample got."""
        for index, stage in enumerate(self.stages):
            if index > 0:
                before = self.stages[index - 1]
                so_far = {
                    s.name: finished[s.name]
                    for st in self.stages[:index]
                    for s in st.sources
                    if s.name in finished
                }
                if not stage.runs_after(before.fuser.predict(so_far).score):
                    break
            progress.stage = index
            await run_sources(stage.sources)
        progress.ended = True

    def fuser_at(self, progress: CascadeRun) -> Fuser:
        return self.stages[progress.stage].fuser

    def outcome(self, progress: CascadeRun) -> CascadeStop:
        """Where the sample stopped; the later stages' signals are skipped only when it stopped by
        choice (a budget cut leaves them unrun, which the Scorer reports as cut)."""
        later = self.stages[progress.stage + 1 :] if progress.ended else []
        return CascadeStop(
            stage=self.stages[progress.stage].name,
            stage_index=progress.stage,
            skipped=[s.name for stage in later for s in stage.sources],
        )


def build_cascade(config: Config, sources: Sequence[Source], fuser: Fuser) -> Cascade | None:
    """The configured ``[cascade]`` over these sources (None when no stages are configured). With
    ``cascade.calibrator`` the fitted file gives every stage's fuser and band; without, each stage's
    band is the configured one and its scores come from ``fuser``."""
    settings = config.cascade
    if not settings.enabled:
        return None
    by_name = {s.name: s for s in sources}
    staged = [name for stage in settings.stages for name in stage.signals]
    unknown = [name for name in staged if name not in by_name]
    if unknown:
        raise ConfigError(
            f"cascade.stages name signal(s) {unknown} that this scorer does not run (it runs "
            f"{sorted(by_name)}); enable them or fix the names"
        )
    unstaged = [name for name in by_name if name not in staged]
    if unstaged:
        raise ConfigError(
            f"signal(s) {unstaged} run but are in no [[cascade.stages]]: add each to the stage it belongs to"
        )
    names = settings.stage_names
    if settings.calibrator is None:
        return Cascade(
            [
                RuntimeStage(
                    name=name,
                    sources=[by_name[n] for n in stage.signals],
                    band=stage.band,
                    fuser=fuser,
                )
                for name, stage in zip(names, settings.stages, strict=True)
            ]
        )
    from trustscore.fusion._cascade_model import load_cascade

    try:
        fitted = load_cascade(settings.calibrator, settings, {s.name: s.version for s in sources})
    except ValueError as e:
        raise ConfigError(f"cascade.calibrator: {e}") from e
    return Cascade(
        [
            RuntimeStage(
                name=stage.name,
                sources=[by_name[n] for n in stage.signals],
                band=stage.band,
                fuser=stage.calibrator,
            )
            for stage in fitted.stages
        ]
    )
