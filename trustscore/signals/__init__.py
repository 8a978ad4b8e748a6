"""The extension interface: what a signal is, how it is registered, and what its factory receives.

A judge or local signal, built-in or third-party, is a :class:`Judge` or :class:`LocalSignal`
built by a factory registered with :func:`register_signal`; the factory gets the signal's config
section and a :class:`SignalContext`.
"""

from trustscore.signals._context import SignalContext
from trustscore.signals._protocols import FamiliarityCheck, Judge, LocalSignal
from trustscore.signals._registry import (
    ENTRY_POINT_GROUP,
    SignalKind,
    SignalSpec,
    get_signal,
    register_signal,
    registered_signals,
    resolve_section,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "FamiliarityCheck",
    "Judge",
    "LocalSignal",
    "SignalContext",
    "SignalKind",
    "SignalSpec",
    "get_signal",
    "register_signal",
    "registered_signals",
    "resolve_section",
]
