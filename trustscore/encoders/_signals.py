"""Registers the encoder signals (``[signals.lettucedetect]``, ``[signals.hhem]``). Their models, and
torch with them, load only when the Scorer builds a signal that is configured."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trustscore.core._extras import install_extra
from trustscore.encoders._hhem import HHEMConfig
from trustscore.encoders._lettucedetect import LettuceDetectConfig
from trustscore.signals._registry import register_signal

if TYPE_CHECKING:
    from trustscore.signals._context import SignalContext
    from trustscore.signals._protocols import LocalSignal

__all__ = ["build_hhem_signal", "build_lettucedetect_signal"]

_HINT = install_extra("encoders")


@register_signal("lettucedetect", config=LettuceDetectConfig, kind="local", install_hint=_HINT)
def build_lettucedetect_signal(config: LettuceDetectConfig, ctx: SignalContext) -> LocalSignal:
    from trustscore.encoders._lettucedetect import build_lettucedetect

    return build_lettucedetect(config, ctx)


@register_signal("hhem", config=HHEMConfig, kind="local", install_hint=_HINT)
def build_hhem_signal(config: HHEMConfig, ctx: SignalContext) -> LocalSignal:
    from trustscore.encoders._hhem import build_hhem

    return build_hhem(config, ctx)
