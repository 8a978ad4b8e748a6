"""Texts grouped into forward passes of similar token counts (both embedding runtimes use it)."""

from __future__ import annotations

__all__ = ["BATCH_TOKENS", "length_batches"]

_PADDING_ALLOWED = 1.05
"""A batch may hold at most 5% padding over its real tokens, about what one global length sort of a
whole file's texts achieves (docs/benchmarks.md)."""

BATCH_TOKENS = 4096
"""At most this many (padded) tokens a forward pass: activations grow with batch x width, while per
token smaller batches cost the same on CPU (docs/benchmarks.md)."""


def length_batches(lengths: list[int], batch_size: int) -> list[list[int]]:
    """Indices of ``lengths`` (token counts) grouped into batches, shortest first: at most ``batch_size``
    texts and :data:`BATCH_TOKENS` padded tokens a batch (a longer text goes alone), each padded
    (count x longest) to at most 5% over its real tokens. A text that would break a bound starts the
    next batch."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    batch: list[int] = []
    real = 0
    for i in order:
        n = lengths[i]
        padded = (len(batch) + 1) * n
        full = len(batch) == batch_size or padded > BATCH_TOKENS
        if batch and (full or padded > _PADDING_ALLOWED * (real + n)):
            batches.append(batch)
            batch, real = [], 0
        batch.append(i)
        real += n
    if batch:
        batches.append(batch)
    return batches
