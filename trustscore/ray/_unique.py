"""Duplicate ids in a Ray Dataset of prepared rows, found in a streaming pass with 8 bytes per row.

Ids are how a run resumes, so ``trustscore score`` refuses an input that repeats one. The local
command keeps the ids in a dict; a Ray input may hold hundreds of millions of rows, so here the
tasks that parse the rows send only a 64-bit hash of each id to the driver (8 bytes a row: 800 MB
for 100 million rows, against ~100 bytes a row for a set of strings). Sorted, equal neighbours are
candidate duplicates; a second pass brings back the ids whose hash is a candidate, and only ids
seen more than once there are reported, so a hash collision never refuses a valid input.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Collection
from typing import TYPE_CHECKING

import pyarrow as pa

if TYPE_CHECKING:
    import ray.data

__all__ = ["duplicate_ids"]


def duplicate_ids(prepared: ray.data.Dataset, *, limit: int = 5, hash_bytes: int = 8) -> list[str]:
    """Up to ``limit`` ids that occur more than once in ``prepared`` (column ``id``), sorted.
    ``hash_bytes`` (1 to 8) is the width of the hash sent per row; narrower ones collide more often,
    which only costs a larger second pass."""
    import numpy as np

    if not 1 <= hash_bytes <= 8:
        raise ValueError(f"hash_bytes must be 1 to 8 (got {hash_bytes})")
    ids = prepared.select_columns(["id"])
    width = {"size": hash_bytes}
    parts = [
        batch["h"]
        # ray types map_batches' fn as taking the batch alone, though fn_kwargs supplies the rest
        for batch in ids.map_batches(_hashes, batch_format="pyarrow", fn_kwargs=width).iter_batches(  # type: ignore[arg-type]
            batch_format="numpy", batch_size=None
        )
    ]
    if not parts:
        return []
    hashes = np.concatenate(parts)
    del parts
    hashes.sort()
    candidates = frozenset(np.unique(hashes[1:][hashes[1:] == hashes[:-1]]).tolist())
    del hashes
    if not candidates:
        return []
    seen: Counter[str] = Counter()
    wanted = {"wanted": candidates, **width}
    matching = ids.map_batches(_matching, batch_format="pyarrow", fn_kwargs=wanted)  # type: ignore[arg-type]
    for batch in matching.iter_batches(batch_format="pyarrow", batch_size=None):
        # ray types every batch as the union of all batch formats; these are pyarrow Tables
        seen.update(batch.column("id").to_pylist())  # type: ignore[union-attr]
    return sorted(i for i, n in seen.items() if n > 1)[:limit]


def _hash(text: str, size: int) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=size).digest(), "little")


def _hashes(batch: pa.Table, size: int) -> pa.Table:
    values = [_hash(i, size) for i in batch.column("id").to_pylist()]
    return pa.table({"h": pa.array(values, pa.uint64())})


def _matching(batch: pa.Table, wanted: Collection[int], size: int) -> pa.Table:
    ids = [i for i in batch.column("id").to_pylist() if _hash(i, size) in wanted]
    return pa.table({"id": pa.array(ids, pa.string())})
