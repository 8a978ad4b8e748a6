"""Import torch for local models with OpenMP threads that sleep instead of spinning when idle.

torch's CPU build runs intra-op work on libgomp threads, which by default busy-wait ~300,000 spins
after every parallel region (GOMP_SPINCOUNT). The scoring process also runs the event loop, the
lexical signal and the cache in other threads, so the encoder lane's thread often waits for the GIL
between two ops while its OpenMP partner spins on a core those threads need; on a box shared with
other jobs a spinning thread also waits for one that was descheduled. Measured on 100 RAGTruth rows
(issue 11, 2 cores): with the box loaded (load average 5-6) the encoder threads burned 75 s CPU for
forwards that cost 11-13 s with passive waiting (88 s vs 24 s wall); on a quiet box passive waiting
cut 300 rows' CPU by 5-8 s at the same wall.

A short spin in between was measured against passive waiting (``GOMP_SPINCOUNT=10000``, ~0.1 ms by
libgomp's estimate, against its default of 300,000). Over 15 side-by-side pairs of 300-row cold runs on
a quiet box it changed the wall by -2% at the median (-17% to +18%) and the CPU by +8.5% (-6% to
+26%); with two busy processes beside it, wall -7% to +4% and CPU -2% to +9% (4 pairs of 100 rows).
It does not pay for itself, so the default stays passive; ``python -m benchmarks.bench_offline
[--busy 2]`` keeps the comparison side by side.

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
