"""Import torch for local models with OpenMP threads that spin only briefly before they sleep.

torch's CPU build runs intra-op work on libgomp threads. When a parallel region ends, libgomp's default
makes each idle thread busy-wait ~300,000 spins (GOMP_SPINCOUNT, about 3 ms) before it sleeps. The
scoring process also runs the event loop, the lexical signal and the cache in other threads, so the
encoder lane's thread often waits for the GIL between two ops while its OpenMP partner spins on a core
those threads need; on a box shared with other jobs a spinning thread also waits for one that was
descheduled. Measured on 100 RAGTruth rows (issue 11, 2 cores): with the box loaded (load average
5-6) the encoder threads burned 75 s CPU for forwards that cost 11-13 s with passive waiting (88 s vs
24 s wall).

Passive waiting (no spin at all) has its own price: every op of a forward then wakes the partner thread
through the kernel, and on a quiet box the cold 300-row run took ~1.1-1.3x the wall of the same run
with a short spin. :data:`SPIN_COUNT` spins (~0.1 ms by libgomp's estimate) bridge the gap between two
ops of one forward, yet give the core back within a fraction of a millisecond when the lane thread
stalls (``python -m benchmarks.bench_offline`` compares the floor with this setting; the side-by-side
runs behind the choice are in the README's speed notes).

libgomp reads these variables once, when torch loads it, so :func:`import_torch` sets
``GOMP_SPINCOUNT`` for that import only and restores the environment (child processes and the
caller's ``os.environ`` do not see it). A wait policy or spin count the user exported is kept, and a
torch imported before trustscore keeps whatever it loaded with. (Builds on Intel's OpenMP read
``KMP_BLOCKTIME`` instead and are left as they are.)
"""

from __future__ import annotations

import os
import sys
import threading
from types import ModuleType

__all__ = ["SPIN_COUNT", "import_torch"]

SPIN_COUNT = 10_000
"""libgomp spins of an idle OpenMP thread before it sleeps (its default: 300,000)."""

_USER_CHOICES = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
_IMPORTING = threading.Lock()


def import_torch() -> ModuleType:
    """``import torch``; the first import in the process gets a short OpenMP spin (see the module
    docstring). Raises ImportError when torch is not installed."""
    with _IMPORTING:
        first = "torch" not in sys.modules and not any(k in os.environ for k in _USER_CHOICES)
        if first:
            os.environ["GOMP_SPINCOUNT"] = str(SPIN_COUNT)
        try:
            import torch
        finally:
            if first:
                os.environ.pop("GOMP_SPINCOUNT", None)
    return torch
