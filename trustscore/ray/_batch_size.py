"""How many samples one Ray actor call scores (shared by ``score_dataset`` and ``trustscore score --ray``)."""

from __future__ import annotations

__all__ = ["DEFAULT_BATCH_SIZE"]

DEFAULT_BATCH_SIZE = 64
"""Samples per actor call, the unit Ray retries: enough to keep ``max_concurrent_samples`` busy for
most of a batch, few enough that a batch lost with its actor costs little and output files appear
steadily."""
