"""Reading the JSONL that ``trustscore score`` writes, and pulling labels and groups out of it.

One row per sample: ``id``, ``score``, ``calibrated``, ``signals`` ({name: Signal as JSON}) and any
input fields carried through (``label``, ``task``, ``source_id``, ...), kept here in ``fields``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, ValidationError

from trustscore._errors import InputError
from trustscore._types import Signal
from trustscore.fusion._model import LabelPolarity

__all__ = ["ScoredRow", "group_column", "label_column", "read_scored", "rows_from_dicts", "trust_target"]

_CORE = ("id", "score", "calibrated", "signals")
_ROW_START = b'{"id": '
"""How every row `trustscore score` writes begins."""


class ScoredRow(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str | None
    score: float | None
    calibrated: bool
    signals: dict[str, Signal]
    fields: dict[str, Any]
    """Every other field of the row (labels, task, source_id, ...)."""


def _row(data: Any, where: str) -> ScoredRow:
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected a JSON object per line, got {type(data).__name__}")
    raw_signals = data.get("signals")
    if not isinstance(raw_signals, dict):
        raise InputError(f"{where}: no 'signals' object; is this the output of `trustscore score`?")
    signals: dict[str, Signal] = {}
    for name, sig in raw_signals.items():
        if not isinstance(sig, dict):
            raise InputError(f"{where}: signals.{name} is not an object")
        try:
            signals[name] = Signal.model_validate({"name": name, **sig})
        except ValidationError as e:
            raise InputError(
                f"{where}: signals.{name} is not a valid signal: {e.errors()[0]['msg']}"
            ) from None
    score = data.get("score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
        raise InputError(f"{where}: score must be a number or null, got {score!r}")
    row_id = data.get("id")
    return ScoredRow(
        id=None if row_id is None else str(row_id),
        score=None if score is None else float(score),
        calibrated=bool(data.get("calibrated", False)),
        signals=signals,
        fields={k: v for k, v in data.items() if k not in _CORE},
    )


def _is_error_row(data: Any) -> bool:
    """An error row of ``trustscore score`` (local or Ray): a reason, no score, no signals."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("error"), str)
        and data.get("score") is None
        and not data.get("signals")
    )


def rows_from_dicts(items: Iterable[Any]) -> list[ScoredRow]:
    """Parse already-loaded scored rows (dicts as ``trustscore score`` writes them)."""
    return [_row(item, f"row {i + 1}") for i, item in enumerate(items)]


def read_scored(path: str | Path) -> list[ScoredRow]:
    """Read a scored JSONL file; blank lines and error rows (input rows that could not be scored: an
    ``error``, no score and no signals) are skipped, a line that begins like a result row but is not
    JSON (a damaged row) is skipped and reported on stderr with its line number, any other malformed
    line is an error, and so is an id on two rows (two runs wrote one file, or files were joined):
    counting a sample twice would bias every metric."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"scored file {path} does not exist")
    if path.is_dir():
        raise InputError(f"scored file {path} is a directory; give the JSONL file `trustscore score` wrote")
    rows: list[ScoredRow] = []
    line_of: dict[str, int] = {}
    for lineno, raw in enumerate(path.read_bytes().split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
            why = "nested too deeply" if isinstance(e, RecursionError) else str(e).split(":")[0]
            if raw.startswith(_ROW_START):
                # One damaged row (a torn write, a bad disk block) costs that row, not the file.
                print(f"trustscore: {path}:{lineno}: skipping a damaged result row ({why})", file=sys.stderr)
                continue
            raise InputError(f"{path}:{lineno}: not valid JSON ({why})") from None
        if _is_error_row(data):
            continue  # an input row that could not be scored: nothing to evaluate or fit on
        row = _row(data, f"{path}:{lineno}")
        if row.id is not None:
            first = line_of.setdefault(row.id, lineno)
            if first != lineno:
                raise InputError(
                    f"{path}: id {row.id!r} is on line {first} and line {lineno}; a scored file holds one "
                    "row per sample (were two runs writing it at once?): score again into a new file"
                )
        rows.append(row)
    if not rows:
        raise InputError(f"scored file {path} has no rows")
    return rows


def _as_label(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and value in (0, 1):
        return float(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "0", "1"):
        return 1.0 if value.strip().lower() in ("true", "1") else 0.0
    return None


def label_column(rows: Sequence[ScoredRow], label: str) -> NDArray[np.float64]:
    """The 0/1 label of every row; refuses rows without a readable label, naming them."""
    out = np.empty(len(rows))
    bad: list[str] = []
    for i, r in enumerate(rows):
        v = _as_label(r.fields.get(label))
        if v is None:
            bad.append(r.id or f"row {i + 1}")
        else:
            out[i] = v
    if bad:
        shown = ", ".join(bad[:5]) + (" ..." if len(bad) > 5 else "")
        known = ", ".join(sorted({k for r in rows[:50] for k in r.fields})) or "none"
        raise InputError(
            f"{len(bad)} {'row has' if len(bad) == 1 else 'rows have'} no 0/1 (or true/false) value in "
            f"label column {label!r} ({shown}); "
            f"columns present: {known}"
        )
    return out


def trust_target(labels: NDArray[np.float64], label_means: LabelPolarity) -> NDArray[np.float64]:
    """1 = trustworthy, whatever the label column's polarity."""
    return 1.0 - labels if label_means == "untrustworthy" else labels.copy()


def group_column(rows: Sequence[ScoredRow], column: str) -> list[str]:
    """The group key of every row (as text); refuses rows that lack it."""
    missing = [r.id or f"row {i + 1}" for i, r in enumerate(rows) if r.fields.get(column) is None]
    if missing:
        raise InputError(
            f"{len(missing)} rows have no {column!r} field ({', '.join(missing[:5])}); "
            "pick a column every row has, or carry it through `trustscore score`"
        )
    return [str(r.fields[column]) for r in rows]
