"""What the encoder signals share: loading once per process, one lane (a dedicated thread) per model,
a weights fingerprint, and running a sample's blocking work on that lane, stopping between windows
when the caller is cancelled or its score budget is over."""

from __future__ import annotations

import contextvars
import hashlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import anyio

from trustscore.deadline import BudgetExceeded, checkpoint
from trustscore.hashing import short_hash
from trustscore.types import Sample, Signal, Usage

__all__ = ["EncoderLoadError", "batches", "cached_load", "fingerprint", "never_cancelled", "run_in_worker"]

logger = logging.getLogger("trustscore.encoders")

T = TypeVar("T")
CheckCancelled = Callable[[], None]
"""Called between windows; raises to stop (``anyio.from_thread.check_cancelled`` in a worker)."""


class EncoderLoadError(ValueError):
    """The encoder checkpoint cannot be loaded as configured; the message names the setting and the fix."""


def never_cancelled() -> None:
    """The cancellation check for direct (synchronous) calls: nothing to stop for."""


_loaded: dict[str, Any] = {}
_load_lock = threading.Lock()


def cached_load(key: str, load: Callable[[], T]) -> T:
    """``load()`` once per process per ``key`` (a model is shared by every signal instance using it)."""
    with _load_lock:
        if key not in _loaded:
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


_lanes: dict[str, ThreadPoolExecutor] = {}
_POLL_S = 0.05


def _lane(key: str) -> ThreadPoolExecutor:
    """The one thread that runs every forward of the model ``key``: in whichever worker thread a
    sample got, each thread's allocator arena kept its own peak (issue 11)."""
    with _load_lock:
        lane = _lanes.get(key)
        if lane is None:
            lane = _lanes[key] = ThreadPoolExecutor(1, thread_name_prefix="trustscore-encoder")
        return lane


class _Abandoned(Exception):
    """The caller stopped waiting (cancelled): the lane drops the job at its next window."""


def _wait(job: Future[list[Signal]], abandoned: threading.Event) -> list[Signal]:
    """Wait (in an anyio worker thread) for the lane's job; a cancelled caller abandons it."""
    while True:
        try:
            return job.result(timeout=_POLL_S)
        except TimeoutError:
            try:
                anyio.from_thread.check_cancelled()
            except BaseException:
                abandoned.set()
                job.cancel()
                raise


async def run_in_worker(
    name: str,
    version: str,
    limiter_key: str,
    samples: Sequence[Sample],
    score: Callable[[Sequence[Sample], CheckCancelled], list[Signal]],
) -> list[Signal]:
    """Run ``score`` over ``samples`` on the model's lane (one thread per ``limiter_key``).

    A failure of the model (load error, bad input) makes every signal missing with the reason;
    cancellation of the caller stops the job at its next window and propagates, and the score
    budget bound by the caller reaches the lane with the job's context.
    """
    began = time.perf_counter()
    abandoned = threading.Event()

    def check() -> None:
        if abandoned.is_set():
            raise _Abandoned("the caller was cancelled")
        checkpoint()

    context = contextvars.copy_context()  # carries the caller's deadline onto the lane
    job = _lane(limiter_key).submit(context.run, score, samples, check)
    try:
        return await anyio.to_thread.run_sync(_wait, job, abandoned)
    except (anyio.get_cancelled_exc_class(), BudgetExceeded):
        raise
    except Exception as e:  # a source reports why it cannot answer; only cancellation propagates
        logger.warning("%s failed: %s", name, e)
        usage = Usage(seconds=time.perf_counter() - began)
        return [
            Signal.failed(name, f"{type(e).__name__}: {e}", usage=usage, version=version) for _ in samples
        ]
