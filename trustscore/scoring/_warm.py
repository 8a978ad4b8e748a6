"""Warming a Scorer's local signals: load on start-up what they would load on their first sample.

A local signal loads its models and language pipelines on first use (some start that load in the
background when they are built). :func:`warm_up` runs each local signal once on a short built-in
sample, past the cache, and works out its cache identity (which may hash a model's weights), so the
load is paid before the first real sample arrives; no judge is called.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import anyio

from trustscore._types import Sample
from trustscore.scoring._runners import LocalSource, Source
from trustscore.signals._protocols import CachedSignal

__all__ = ["warm_up"]

logger = logging.getLogger("trustscore")

_SAMPLE = Sample(
    id="warm-up",
    question="When was the novel Dune first published?",
    context=["Dune is a novel by the American author Frank Herbert, first published on 1 August 1965."],
    response="Dune was written by Frank Herbert and published on 1 August 1965.",
)
"""Loads what a first sample may need: a full date (a bare year is read without the date parser) and a
response not plainly English by its function words (the language identifier is loaded for it)."""


async def warm_up(sources: Sequence[Source]) -> None:
    """Run every local signal of ``sources`` once, concurrently; a failure is logged and left for
    the first score to report as the signal's missing reason."""

    async def warm(source: LocalSource) -> None:
        try:
            await source.signal.run(_SAMPLE)
            if isinstance(source.signal, CachedSignal):  # what its cache key needs (may hash weights)
                await anyio.to_thread.run_sync(source.signal.cache_identity)
        except Exception as e:
            logger.warning("warming signal %s failed (the first score says why): %s", source.name, e)

    async with anyio.create_task_group() as tg:
        for source in sources:
            if isinstance(source, LocalSource):
                tg.start_soon(warm, source)
