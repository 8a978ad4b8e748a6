"""Registers the grounding signals. Both read the shared ``[grounding]`` section; their modules (and
numpy, torch with them) load only when the Scorer builds a signal that is on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trustscore.core.extras import install_extra
from trustscore.grounding.config import GroundingConfig
from trustscore.signals._registry import register_signal

if TYPE_CHECKING:
    from trustscore.signals._context import SignalContext
    from trustscore.signals._protocols import LocalSignal

__all__ = ["build_embedding", "build_lexical"]


@register_signal("lexical", config=GroundingConfig, kind="local", section="grounding")
def build_lexical(config: GroundingConfig, ctx: SignalContext) -> LocalSignal | None:
    if not config.lexical:
        return None
    from trustscore.grounding.lexical import LexicalSupport

    return LexicalSupport(config)


@register_signal(
    "embedding",
    config=GroundingConfig,
    kind="local",
    section="grounding",
    install_hint=install_extra("embed"),
)
def build_embedding(config: GroundingConfig, ctx: SignalContext) -> LocalSignal | None:
    if not config.embedding:
        return None
    from trustscore.grounding.embedding import EmbeddingGrounding

    return EmbeddingGrounding(config, store=ctx.local_cache)
