"""What the encoder signals share: loading once per process, one lane (a dedicated thread) per model,
a weights fingerprint, and running blocking work on that lane: samples of concurrent callers are
merged into one call, which stops between windows once every caller it serves is cancelled or out of
its score budget."""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import anyio

from trustscore._errors import BudgetExceeded
from trustscore._types import Sample, Signal, Usage
from trustscore.compute._deadline import bound, checkpoint, clock_stopped, current_deadline
from trustscore.compute._lane import AllGaveUp, Lane, LaneRequest
from trustscore.compute._torch_import import loading_models
from trustscore.core._hashing import short_hash

__all__ = ["batches", "cached_load", "fingerprint", "never_cancelled", "run_in_worker"]

logger = logging.getLogger("trustscore.encoders")

T = TypeVar("T")
CheckCancelled = Callable[[], None]
"""Called between windows; raises to stop (``anyio.from_thread.check_cancelled`` in a worker)."""


def never_cancelled() -> None:
    """The cancellation check for direct (synchronous) calls: nothing to stop for."""


_loaded: dict[str, Any] = {}
_load_lock = threading.Lock()


def cached_load(key: str, load: Callable[[], T]) -> T:
    """``load()`` once per process per ``key`` (a model is shared by every signal instance using it),
    under the process-wide :func:`~trustscore.compute._torch_import.loading_models` lock. The one-time
    load is no sample's own work: the bound score budget's clock stops meanwhile."""
    with clock_stopped(), _load_lock:
        if key not in _loaded:
            with loading_models():
                _loaded[key] = load()
        return _loaded[key]  # type: ignore[no-any-return]


def fingerprint(model: Any) -> str:
    """A cheap identity of loaded weights: the config plus a strided sample of every tensor."""
    import torch

    h = hashlib.sha256(model.config.to_json_string(use_diff=False).encode())
    with torch.no_grad():
        for name, tensor in sorted(model.state_dict().items()):
            flat = tensor.detach().reshape(-1)
            h.update(name.encode())
            h.update(str(tuple(tensor.shape)).encode())
            h.update(flat[:: max(1, flat.numel() // 4096)].float().cpu().numpy().tobytes())
    return short_hash(h.hexdigest(), 16)


def describe_source(model: str) -> str:
    """How a checkpoint reference reads in logs: a resolved local path, or the hub id as given."""
    path = Path(model).expanduser()
    return str(path.resolve()) if path.exists() else f"hub:{model}"


def batches(items: Sequence[T], size: int) -> list[Sequence[T]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


_POLL_S = 0.05  # how often a waiting caller looks at its own cancellation and budget
Score = Callable[[Sequence[Sample], CheckCancelled], list[Signal]]


@dataclass(eq=False, kw_only=True)
class _Request(LaneRequest):
    """One caller's samples, waiting on its model's lane."""

    samples: Sequence[Sample]
    score: Score


def _serve_round(requests: list[_Request]) -> None:
    """One round of a model's lane: requests with the same ``score`` become one call over
    all their samples, so windows of many samples share padded batches; each caller gets its slice."""
    groups: dict[Score, list[_Request]] = {}
    for r in requests:
        groups.setdefault(r.score, []).append(r)
    for score, group in groups.items():
        _serve(score, group)


def _serve(score: Score, requests: list[_Request]) -> None:
    samples = [s for r in requests for s in r.samples]
    try:
        with bound(AllGaveUp(requests)):  # checkpoint() inside the forward sees the merged budget
            signals = score(samples, checkpoint)
        if len(signals) != len(samples):
            raise RuntimeError(f"{len(signals)} signals for {len(samples)} samples")
    except BaseException as e:  # handed to every waiting caller; the lane keeps serving
        for r in requests:
            r.fail_waiting(e)
        return
    at = 0
    for r in requests:
        if not r.future.done():
            r.future.set_result(signals[at : at + len(r.samples)])
        at += len(r.samples)


_lanes: dict[str, Lane[_Request]] = {}


def _lane(key: str) -> Lane[_Request]:
    """The one thread that runs every forward of the model ``key`` (see :mod:`trustscore.compute._lane`)."""
    with _load_lock:
        lane = _lanes.get(key)
        if lane is None:
            lane = _lanes[key] = Lane(_serve_round, "trustscore-encoder")
        return lane


def _wait(request: _Request) -> list[Signal]:
    """Wait (in an anyio worker thread) for the lane; a cancelled caller, or one whose budget is
    over, stops waiting at once and marks its request abandoned."""
    while True:
        try:
            return request.future.result(timeout=_POLL_S)
        except TimeoutError:
            try:
                anyio.from_thread.check_cancelled()
                if request.deadline is not None and request.deadline.over:
                    raise BudgetExceeded("time budget over")
            except BaseException:
                request.abandoned.set()
                request.future.cancel()  # the lane skips it if it has not started it yet
                raise


async def run_in_worker(
    name: str,
    version: str,
    limiter_key: str,
    samples: Sequence[Sample],
    score: Score,
) -> list[Signal]:
    """Run ``score`` over ``samples`` on the model's lane (one thread per ``limiter_key``), merged
    with the samples of other callers waiting for the same lane and ``score``.

    A failure of the model (load error, bad input) makes every signal missing with the reason;
    a cancelled caller, or one whose bound score budget is over, stops waiting and propagates; the
    merged forward stops at its next window only once every caller it serves has given up.
    """
    began = time.perf_counter()
    request = _Request(samples=list(samples), score=score, deadline=current_deadline())
    _lane(limiter_key).submit(request)
    try:
        return await anyio.to_thread.run_sync(_wait, request)
    except (anyio.get_cancelled_exc_class(), BudgetExceeded):
        raise
    except Exception as e:  # a source reports why it cannot answer; only cancellation propagates
        logger.warning("%s failed: %s", name, e)
        usage = Usage(seconds=time.perf_counter() - began)
        return [
            Signal.failed(name, f"{type(e).__name__}: {e}", usage=usage, version=version) for _ in samples
        ]
