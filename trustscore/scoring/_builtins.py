"""The built-in signals the Scorer composes: the modules whose import registers them, in the order
results list them. The registry imports them on first use, before any plug-in. Adding a built-in
judge = its module in ``trustscore/judges/`` (config, cost model, CPU settings, example answers and
registration), its prompt file, and one import line in ``trustscore/judges/__init__.py``."""

from __future__ import annotations

from trustscore.signals import declare_builtins

__all__ = ["BUILTIN_SIGNAL_MODULES"]

BUILTIN_SIGNAL_MODULES = (
    "trustscore.judges",
    "trustscore.grounding._signals",
    "trustscore.whitebox._signals",
    "trustscore.encoders._signals",
)

declare_builtins(BUILTIN_SIGNAL_MODULES)
