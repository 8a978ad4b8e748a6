"""The metrics of sampled online monitoring (:class:`trustscore.monitor.Monitor`).

``trustscore.monitor.dropped`` counts the submitted samples a Monitor did not queue, by
``trustscore.monitor.drop_reason``: ``sampled_out`` (not drawn by its sample rate) or ``queue_full``
(drawn while its queue was full). ``trustscore.monitor.queue.depth`` is an observable gauge: the samples
waiting in the queues of all live Monitors of the process, read when the meter provider collects.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from trustscore.telemetry._state import instruments, queue_depths

__all__ = ["DROP_REASON", "DropReason", "count_drop", "watch_queue"]

DROP_REASON = "trustscore.monitor.drop_reason"

DropReason = Literal["sampled_out", "queue_full"]


def count_drop(reason: DropReason) -> None:
    """One submitted sample not queued, for ``reason`` (nothing when no meter provider is set up)."""
    meters = instruments()
    if meters is not None:
        meters.monitor_dropped.add(1, {DROP_REASON: reason})


def watch_queue(owner: object, depth: Callable[[], int]) -> Callable[[], None]:
    """Count ``depth()`` in the queue-depth gauge until the returned function is called. Costs a dict
    entry; the gauge calls ``depth`` only when a meter provider collects."""
    instruments()  # with a meter provider set up, the gauge exists from now on
    key = id(owner)
    queue_depths[key] = depth

    def unwatch() -> None:
        queue_depths.pop(key, None)

    return unwatch
