"""Registers the white-box signals. Both read their part of the shared ``[whitebox]`` section (the
model they read is ``whitebox.model_path``); torch loads only when one is built."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from trustscore.core.extras import install_extra
from trustscore.errors import EndpointUnavailable
from trustscore.signals._registry import register_signal
from trustscore.whitebox.familiarity_config import FamiliarityConfig
from trustscore.whitebox.redeep_config import RedeepConfig

if TYPE_CHECKING:
    from trustscore.llm.protocol import LLM
    from trustscore.signals._context import SignalContext
    from trustscore.signals._protocols import LocalSignal

__all__ = ["build_familiarity", "build_redeep"]

logger = logging.getLogger("trustscore")

_WHITEBOX = install_extra("whitebox")


@register_signal(
    "redeep", config=RedeepConfig, kind="local", section="whitebox.redeep", install_hint=_WHITEBOX
)
def build_redeep(config: RedeepConfig, ctx: SignalContext) -> LocalSignal | None:
    """On when ``[whitebox.redeep] enabled`` (the default) and ``whitebox.model_path`` is set."""
    if ctx.config.whitebox.model_path is None:
        return None
    from trustscore.whitebox.redeep import RedeepSignal

    return RedeepSignal.from_config(ctx.config.whitebox)


@register_signal(
    "familiarity",
    config=FamiliarityConfig,
    kind="local",
    section="whitebox.familiarity",
    install_hint=_WHITEBOX,
)
def build_familiarity(config: FamiliarityConfig, ctx: SignalContext) -> LocalSignal:
    """The LLM it asks (concept extraction, remote backend) is ``endpoint``, else the only endpoint."""
    endpoint = config.endpoint
    if endpoint is None and len(ctx.config.endpoints) == 1:
        endpoint = next(iter(ctx.config.endpoints))
    llm: LLM | None = None
    if endpoint is not None:
        try:
            llm = ctx.llm(endpoint)
        except EndpointUnavailable as e:
            logger.warning("familiarity runs without endpoints.%s: %s", endpoint, e)
    from trustscore.whitebox.familiarity import FamiliaritySignal

    return FamiliaritySignal.from_config(ctx.config.whitebox, llm)
