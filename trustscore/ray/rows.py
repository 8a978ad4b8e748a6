"""Rows in and out of the Ray pipeline, as plain JSON text, so every stage agrees with the local CLI.

An input row (a JSONL line, or a Parquet row turned into a dict) is parsed by
:func:`trustscore.rows.parse_row`, as in ``trustscore score`` (same validation, same hashed id for
rows without one). Between stages a row
travels as strings: ``id`` and ``sample`` (the Sample as JSON; the fields carried through to the
output are its ``metadata``, as in the local CLI), or ``id`` plus ``error`` when the row is not a
valid sample: such a row is never dropped, it is written out with its reason.

The scored row is :func:`trustscore.rows.result_row`, serialised once, plus typed columns
for filtering in Ray. A sample that could not be scored gets ``score`` null, ``complete`` false and
an ``error`` naming why.
"""

from __future__ import annotations

import json
from typing import Any

from trustscore.core.hashing import short_hash
from trustscore.errors import InputError
from trustscore.rows import parse_row, result_row
from trustscore.rows.output import unscored_row, written_row
from trustscore.types import Sample, TrustScore

__all__ = ["PreparedRow", "error_result", "prepare_line", "prepare_record", "scored_result"]

PreparedRow = dict[str, str | None]
"""``{"id", "sample", "error"}``: ``error`` set means ``sample`` is None."""

def prepare_line(line: str, where: str) -> PreparedRow:
    """One JSONL line, parsed exactly as the local CLI parses it; ``where`` prefixes an error."""
    try:
        row = parse_row(line, where)
    except InputError as e:
        return _invalid(line, str(e))
    return {"id": row.sample.id, "sample": row.sample.model_dump_json(), "error": None}


def prepare_record(record: dict[str, Any], where: str) -> PreparedRow:
    """One structured row (Parquet): dropped-null optional fields, then the JSONL path."""
    fields = {k: v for k, v in record.items() if not (v is None and k in ("id", "context"))}
    try:
        line = json.dumps(fields, ensure_ascii=False)
    except (TypeError, ValueError) as e:
        return _invalid(repr(record), f"{where}: a value is not JSON-representable ({e})")
    return prepare_line(line, where)


def _invalid(raw: str, reason: str) -> PreparedRow:
    """A row that is not a sample keeps a stable id (from its text) so a rerun skips it too."""
    given = _given_id(raw)
    return {
        "id": given if given is not None else "invalid-" + short_hash(raw, 16),
        "sample": None,
        "error": reason,
    }


def _given_id(raw: str) -> str | None:
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, TypeError):
        return None
    value = data.get("id") if isinstance(data, dict) else None
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return str(value)
    return None


def scored_result(sample: Sample, result: TrustScore) -> dict[str, Any]:
    """The output columns of one scored sample; ``result`` is the local CLI's line, verbatim."""
    row = result_row(sample.id or "", result, dict(sample.metadata))
    return _columns(row, error=None)


def error_result(sample_id: str, reason: str, carried: dict[str, Any] | None) -> dict[str, Any]:
    """The output columns of a sample that has no score: invalid input, or scoring raised."""
    row: dict[str, Any] = {"id": sample_id, **unscored_row(0.0, reason)}
    row.update(carried or {})
    return _columns(row, error=reason)


def _columns(row: dict[str, Any], *, error: str | None) -> dict[str, Any]:
    row, line, too_large = written_row(row)  # a row over the size limit becomes an error row here
    return {
        "id": row["id"],
        "score": row["score"],
        "calibrated": row["calibrated"],
        "fusion": row["fusion"],
        "complete": row["complete"],
        "seconds": row["seconds"],
        "error": row["error"] if too_large else error,
        "result": line.removesuffix("\n"),
    }
