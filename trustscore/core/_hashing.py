"""Canonical JSON and content hashes: what cache keys, prompt versions and data hashes are made of."""

from __future__ import annotations

import hashlib
import json
from typing import Any

__all__ = ["canonical_json", "sha256_hex", "short_hash"]


def canonical_json(obj: Any) -> str:
    """One text per value: sorted keys, no spaces, unicode kept."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(data: str | bytes) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


def short_hash(data: str | bytes, length: int = 12) -> str:
    """A short content hash, used as a prompt or method version."""
    return sha256_hex(data)[:length]
