"""The extension interface: what a signal is, how it is configured and registered, and what its
factory receives.

A judge or local signal, built-in or third-party, is a :class:`Judge` or :class:`LocalSignal`
built by a factory registered with :func:`register_signal` (a judge class built from its section
alone: :func:`register_judge`); the factory gets the signal's config section (a
:class:`JudgeConfig` / :class:`SignalConfig`) and a :class:`SignalContext`.
"""

from trustscore.signals._config import JudgeConfig, SignalConfig
from trustscore.signals._context import SignalContext, VectorStore
from trustscore.signals._cost import CostModel, JudgeCost
from trustscore.signals._protocols import CachedSignal, DeclaresKind, FamiliarityCheck, Judge, LocalSignal
from trustscore.signals._registry import (
    DEFAULT_WEIGHTS,
    ENTRY_POINT_GROUP,
    ExampleAnswer,
    SignalKind,
    SignalSpec,
    declare_builtins,
    get_signal,
    register_judge,
    register_signal,
    registered_signals,
    resolve_section,
    signal_weights,
)
from trustscore.signals._tables import JudgesConfig, SignalsConfig

__all__ = [
    "DEFAULT_WEIGHTS",
    "ENTRY_POINT_GROUP",
    "CachedSignal",
    "CostModel",
    "DeclaresKind",
    "ExampleAnswer",
    "FamiliarityCheck",
    "Judge",
    "JudgeConfig",
    "JudgeCost",
    "JudgesConfig",
    "LocalSignal",
    "SignalConfig",
    "SignalContext",
    "SignalKind",
    "SignalSpec",
    "SignalsConfig",
    "VectorStore",
    "declare_builtins",
    "get_signal",
    "register_judge",
    "register_signal",
    "registered_signals",
    "resolve_section",
    "signal_weights",
]
