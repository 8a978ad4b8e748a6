"""Registers the white-box signals, ``[signals.redeep]`` and ``[signals.familiarity]``; each section
names the local model it reads. torch loads only when one is built. ReDeEP is a fitted logistic
model on the generator's internals (a probability, less direct than a judge's: weight 0.5);
Self-Familiarity is a similarity (0.25)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from trustscore._errors import EndpointUnavailable
from trustscore.core._extras import install_extra
from trustscore.signals._registry import register_signal
from trustscore.whitebox._familiarity_config import FamiliarityConfig
from trustscore.whitebox._redeep_config import RedeepConfig

if TYPE_CHECKING:
    from trustscore.llm._protocol import LLM
    from trustscore.signals._context import SignalContext
    from trustscore.signals._protocols import LocalSignal

__all__ = ["build_familiarity", "build_redeep"]

logger = logging.getLogger("trustscore")

_WHITEBOX = install_extra("whitebox")


@register_signal("redeep", config=RedeepConfig, kind="local", install_hint=_WHITEBOX)
def build_redeep(config: RedeepConfig, ctx: SignalContext) -> LocalSignal:
    from trustscore.whitebox._redeep import RedeepSignal

    return RedeepSignal.from_config(config)


@register_signal("familiarity", config=FamiliarityConfig, kind="local", install_hint=_WHITEBOX, weight=0.25)
def build_familiarity(config: FamiliarityConfig, ctx: SignalContext) -> LocalSignal:
    """The LLM it asks (concept extraction, remote backend) is its ``endpoint``, else the only endpoint."""
    endpoint = config.endpoint
    if endpoint is None and len(ctx.endpoint_names) == 1:
        endpoint = ctx.endpoint_names[0]
    llm: LLM | None = None
    if endpoint is not None:
        try:
            llm = ctx.llm(endpoint)
        except EndpointUnavailable as e:
            logger.warning("familiarity runs without endpoints.%s: %s", endpoint, e)
    from trustscore.whitebox._familiarity import FamiliaritySignal

    return FamiliaritySignal.from_config(config, llm)
