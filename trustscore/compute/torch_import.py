"""Import torch for local models with OpenMP threads that sleep instead of spinning when idle.

torch's CPU build runs intra-op work on libgomp threads, which by default busy-wait ~300,000 spins
after every parallel region (GOMP_SPINCOUNT). The scoring process also runs the event loop, the
lexical signal and the cache in other threads, so the encoder lane's thread often waits for the GIL
between two ops while its OpenMP partner spins on a core those threads need; on a box shared with
other jobs a spinning thread also waits for one that was descheduled. Passive waiting costs less CPU
at the same wall, and a short spin (``GOMP_SPINCOUNT=10000``) does not pay for itself: the figures
and the command that compares them (``python -m benchmarks.bench_offline [--busy 2]``) are in
docs/benchmarks.md.

libgomp reads its wait policy and spin count once, when torch loads it, so :func:`import_torch` sets
``OMP_WAIT_POLICY=PASSIVE`` for that import only and restores the environment (child processes and
the caller's ``os.environ`` do not see it). A policy or spin count the user exported is kept, and a
torch imported before trustscore keeps whatever it loaded with.
"""

from __future__ import annotations

import os
import sys
import threading
from types import ModuleType

__all__ = ["import_torch"]

_POLICY = "OMP_WAIT_POLICY"
_USER_CHOICES = (_POLICY, "GOMP_SPINCOUNT")
_IMPORTING = threading.Lock()


def import_torch() -> ModuleType:
    """``import torch``; the first import in the process gets passive OpenMP waiting (see the module
    docstring). Raises ImportError when torch is not installed."""
    with _IMPORTING:
        first = "torch" not in sys.modules and not any(k in os.environ for k in _USER_CHOICES)
        if first:
            os.environ[_POLICY] = "PASSIVE"
        try:
            import torch
        finally:
            if first:
                os.environ.pop(_POLICY, None)
    return torch
