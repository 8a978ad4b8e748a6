"""An example plug-in signal: an answer that hedges ("I think", "probably") is trusted less.

Configured like any registered local signal once the package is installed:

    [signals.hedges]
    per_hedge = 0.25
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

import trustscore as ts

_HEDGES = re.compile(r"\b(i think|i believe|probably|possibly|might|maybe|perhaps|not sure)\b", re.IGNORECASE)


class HedgesConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    per_hedge: float = Field(default=0.25, gt=0.0, le=1.0, description="trust lost per hedging phrase")


class Hedges:
    name, version, kind = "hedges", "hedges@1", "local"

    def __init__(self, config: HedgesConfig) -> None:
        self.config = config

    async def run(self, sample: ts.Sample) -> ts.Signal:
        found = [m.group(0) for m in _HEDGES.finditer(sample.response)]
        value = max(0.0, 1.0 - self.config.per_hedge * len(found))
        return ts.Signal(name=self.name, value=value, raw={"hedges": found}, version=self.version)


@ts.register_signal("hedges", config=HedgesConfig, kind="local")
def build_hedges(config: HedgesConfig, ctx: ts.SignalContext) -> Hedges:
    return Hedges(config)
