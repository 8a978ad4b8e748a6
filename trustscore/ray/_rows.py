"""Rows in and out of the Ray pipeline, as plain JSON text, so every stage agrees with the local CLI.

An input row (a JSONL line, or a Parquet row turned into a dict) is parsed by
:func:`trustscore.rows.parse_row`, as in ``trustscore score`` (same validation, same hashed id for
rows without one). Between stages a row
travels as strings: ``id`` and ``sample`` (the Sample as JSON; the fields carried through to the
output are its ``metadata``, as in the local CLI), or ``id`` plus ``error`` when the row is not a
valid sample: such a row is never dropped, it is written out as the local CLI's error row (its id,
reason and input ``line``), and the run's exit status counts it as the local CLI's does.

The scored row is :func:`trustscore.rows.result_row`, serialised once, plus typed columns
for filtering in Ray. A sample that could not be scored gets ``score`` null, ``complete`` false and
an ``error`` naming why.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from trustscore._errors import InputError
from trustscore._types import Sample, TrustScore
from trustscore.core._hashing import short_hash
from trustscore.rows import parse_row, result_row
from trustscore.rows._input import row_error
from trustscore.rows._output import WrittenRow, unscored_row, written_row

__all__ = [
    "OUTPUT_SCHEMA",
    "PreparedRow",
    "error_result",
    "prepare_line",
    "prepare_record",
    "scored_result",
    "typed_columns",
]

OUTPUT_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("score", pa.float64()),
        ("calibrated", pa.bool_()),
        ("fusion", pa.string()),
        ("complete", pa.bool_()),
        ("seconds", pa.float64()),
        ("error", pa.string()),
        ("result", pa.string()),
    ]
)
"""The columns of a scored row: typed ones for filtering, then ``result``, the local CLI's line."""

PreparedRow = dict[str, str | int | None]
"""``{"id", "sample", "error", "line"}``: ``error`` set means ``sample`` is None; ``line`` is the row's
line in its JSONL file (None for a Parquet row)."""


def prepare_line(text: str, where: str, line: int | None = None) -> PreparedRow:
    """One JSONL line, parsed exactly as the local CLI parses it; ``where`` prefixes an error. An
    invalid line gets the local CLI's error-row id and reason (:func:`trustscore.rows._input.row_error`)."""
    try:
        row = parse_row(text, where, line or 0)
    except InputError as e:
        refused = row_error(text, line or 0, e, where)
        return {"id": refused.id, "sample": None, "error": refused.reason, "line": line}
    return {"id": row.sample.id, "sample": row.sample.model_dump_json(), "error": None, "line": line}


def prepare_record(record: dict[str, Any], where: str) -> PreparedRow:
    """One structured row (Parquet): dropped-null optional fields, then the JSONL path."""
    fields = {k: v for k, v in record.items() if not (v is None and k in ("id", "context"))}
    try:
        text = json.dumps(fields, ensure_ascii=False)
    except (TypeError, ValueError) as e:
        reason = f"a value is not JSON-representable ({e})"
        row_id = "invalid-" + short_hash(repr(record), 16)
        return {"id": row_id, "sample": None, "error": reason, "line": None}
    return prepare_line(text, where)


def scored_result(sample: Sample, result: TrustScore, carry: Sequence[str] = ()) -> dict[str, Any]:
    """The output columns of one scored sample; ``result`` is the local CLI's line, verbatim: the
    sample fields ``carry`` names (question, context, response), then the carried-through fields."""
    texts = {name: getattr(sample, name) for name in carry}
    row = result_row(sample.id or "", result, {**texts, **sample.metadata})
    return _columns(row, error=None)


def error_result(
    sample_id: str, reason: str, carried: dict[str, Any] | None, line: int | None = None
) -> dict[str, Any]:
    """The output columns of a sample that has no score: invalid input (the local CLI's error row,
    with its ``line`` when the input is JSONL), or scoring raised (its carried-through fields, less
    any named like one of the row's own result fields, ``id``, ``score``, ``error``, ``line`` and the
    rest: an input field ``error`` must not hide why the row has no score)."""
    row: dict[str, Any] = {"id": sample_id, **unscored_row(0.0, reason)}
    if line is not None:
        row["line"] = line
    row.update({k: v for k, v in (carried or {}).items() if k not in row})
    return _columns(row, error=reason)


def _columns(row: dict[str, Any], *, error: str | None) -> dict[str, Any]:
    return typed_columns(written_row(row), error)  # a row over the size limit becomes an error row here


def typed_columns(written: WrittenRow, error: str | None) -> dict[str, Any]:
    """The :data:`OUTPUT_SCHEMA` columns of a row as it is written; ``error``: why it has no score
    (None for a scored row), replaced by the size limit's reason when the row was too large."""
    row = written.row
    return {
        "id": row["id"],
        "score": row["score"],
        "calibrated": row["calibrated"],
        "fusion": row["fusion"],
        "complete": row["complete"],
        "seconds": row["seconds"],
        "error": row["error"] if written.too_large else error,
        "result": written.line.removesuffix("\n"),
    }
