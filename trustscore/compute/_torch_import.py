"""Import torch for local models with OpenMP threads that sleep instead of spinning when idle.

torch's CPU build runs intra-op work on libgomp threads, which by default busy-wait ~300,000 spins
after every parallel region (GOMP_SPINCOUNT). The scoring process also runs the event loop, the
lexical signal and the cache in other threads, so the encoder lane's thread often waits for the GIL
between two ops while its OpenMP partner spins on a core those threads need; on a box shared with
other jobs a spinning thread also waits for one that was descheduled. Passive waiting costs less CPU
at the same wall, and a short spin (``GOMP_SPINCOUNT=10000``) does not pay for itself: the figures
and the command that compares them (``python -m benchmarks.speed.bench_offline [--busy 2]``) are in
docs/benchmarks.md.

libgomp reads its wait policy and spin count once, when torch loads it, so :func:`import_torch` sets
``OMP_WAIT_POLICY=PASSIVE`` for that import only and restores the environment (child processes and
the caller's ``os.environ`` do not see it). A policy or spin count the user exported is kept, and a
torch imported before trustscore keeps whatever it loaded with.

Heavy imports and model loads take turns: :func:`loading_models` holds the process's one lock for them.
Two threads that load at once break each other inside transformers: a first ``from transformers import``
in two threads can hand one of them the other's half-initialised module (ImportError "cannot import
name 'AutoModelForCausalLM'"), and ``from_pretrained`` patches process-wide state while it builds a
model (``PreTrainedModel.tie_weights`` turned into a no-op, the default dtype), so a model built beside
another keeps an untied, never-loaded ``lm_head`` on the meta device ("Cannot copy out of meta tensor"),
and two overlapping patches can restore each other's no-op for good. Forward passes do not take the lock.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

from trustscore.compute._deadline import clock_stopped

__all__ = ["import_torch", "loading_models"]

_POLICY = "OMP_WAIT_POLICY"
_USER_CHOICES = (_POLICY, "GOMP_SPINCOUNT")
_LOADING = threading.RLock()
"""Held by whoever imports torch or transformers or loads a model (re-entrant: a load imports torch)."""


@contextmanager
def loading_models() -> Iterator[None]:
    """Hold the process-wide lock for heavy imports (torch, transformers) and model loads: put every
    ``from transformers import ...`` and ``from_pretrained`` of a local model inside it. A one-time
    load is no sample's own work: the bound score budget's clock stops meanwhile."""
    with clock_stopped(), _LOADING:
        yield


def import_torch() -> ModuleType:
    """``import torch``; the first import in the process gets passive OpenMP waiting (see the module
    docstring). Raises ImportError when torch is not installed."""
    with loading_models():
        first = "torch" not in sys.modules and not any(k in os.environ for k in _USER_CHOICES)
        if first:
            os.environ[_POLICY] = "PASSIVE"
        try:
            import torch
        finally:
            if first:
                os.environ.pop(_POLICY, None)
    return torch
