"""What the encoder signals share: loading once per process, one limiter per model, a weights
fingerprint, and running a sample's blocking work in a worker thread that stops between windows
when the caller is cancelled."""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import anyio

from trustscore.hashing import short_hash
from trustscore.types import Sample, Signal, Usage
from trustscore.whitebox.model import model_limiter

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


async def run_in_worker(
    name: str,
    version: str,
    limiter_key: str,
    samples: Sequence[Sample],
    score: Callable[[Sequence[Sample], CheckCancelled], list[Signal]],
) -> list[Signal]:
    """Run ``score`` over ``samples`` in a worker thread behind the model's limiter.

    A failure of the model (load error, bad input) makes every signal missing with the reason;
    cancellation of the caller stops the worker at its next window and propagates.
    """
    began = time.perf_counter()
    try:
        return await anyio.to_thread.run_sync(
            score, samples, anyio.from_thread.check_cancelled, limiter=model_limiter(limiter_key)
        )
    except anyio.get_cancelled_exc_class():
        raise
    except Exception as e:  # a source reports why it cannot answer; only cancellation propagates
        logger.warning("%s failed: %s", name, e)
        usage = Usage(seconds=time.perf_counter() - began)
        return [
            Signal.failed(name, f"{type(e).__name__}: {e}", usage=usage, version=version) for _ in samples
        ]
