"""Registers the white-box signals. Both read the shared ``[whitebox]`` section (the model they read,
``whitebox.model_path``, and their own ``[whitebox.redeep]`` / ``[whitebox.familiarity]`` part);
torch loads only when one is built. ReDeEP is a fitted logistic model on the generator's internals
(a probability, less direct than a judge's: weight 0.5); Self-Familiarity is a similarity (0.25)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from trustscore.errors import EndpointUnavailable
from trustscore.signals._registry import register_signal
from trustscore.whitebox.config import WhiteboxConfig

if TYPE_CHECKING:
    from trustscore.llm.protocol import LLM
    from trustscore.signals._context import SignalContext
    from trustscore.signals._protocols import LocalSignal

__all__ = ["build_familiarity", "build_redeep"]

logger = logging.getLogger("trustscore")

_WHITEBOX = "pip install 'trustscore[whitebox]'"


@register_signal("redeep", config=WhiteboxConfig, kind="local", section="whitebox", install_hint=_WHITEBOX)
def build_redeep(config: WhiteboxConfig, ctx: SignalContext) -> LocalSignal | None:
    """On when ``[whitebox.redeep] enabled`` (the default) and ``whitebox.model_path`` is set."""
    if config.model_path is None or not config.redeep.enabled:
        return None
    from trustscore.whitebox.redeep import RedeepSignal

    return RedeepSignal.from_config(config)


@register_signal(
    "familiarity",
    config=WhiteboxConfig,
    kind="local",
    section="whitebox",
    install_hint=_WHITEBOX,
    weight=0.25,
)
def build_familiarity(config: WhiteboxConfig, ctx: SignalContext) -> LocalSignal | None:
    """On when ``[whitebox.familiarity] enabled``. The LLM it asks (concept extraction, remote
    backend) is its ``endpoint``, else the only endpoint."""
    if not config.familiarity.enabled:
        return None
    endpoint = config.familiarity.endpoint
    if endpoint is None and len(ctx.endpoint_names) == 1:
        endpoint = ctx.endpoint_names[0]
    llm: LLM | None = None
    if endpoint is not None:
        try:
            llm = ctx.llm(endpoint)
        except EndpointUnavailable as e:
            logger.warning("familiarity runs without endpoints.%s: %s", endpoint, e)
    from trustscore.whitebox.familiarity import FamiliaritySignal

    return FamiliaritySignal.from_config(config, llm)
