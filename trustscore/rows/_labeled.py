"""Labeled span rows, the input of detector training and ReDeEP profile fitting: our JSONL
(``question``, ``context``, ``response``, ``spans`` = character offsets of unsupported text in the
response, and a group column such as ``source_id``), read and split by group."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from trustscore._types import Sample

__all__ = ["LabeledRow", "read_rows", "split_by_group"]


@dataclass(frozen=True)
class LabeledRow:
    sample: Sample
    spans: list[tuple[int, int]]
    group: str
    task: str

    @property
    def hallucinated(self) -> bool:
        return bool(self.spans)


def read_rows(path: Path, group: str) -> list[LabeledRow]:
    """Labeled rows of one JSONL file; a bad line raises ``ValueError`` naming the file, line and field."""
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            obj = json.loads(line)
            sample = Sample(
                question=obj.get("question", ""),
                context=obj.get("context", []),
                response=obj["response"],
                id=str(obj.get("id") or f"{path.name}:{n}"),
            )
        except (json.JSONDecodeError, KeyError, ValueError) as e:
            raise ValueError(
                f"{where}: not a labeled row ({e}); need question, context, response, spans"
            ) from e
        if "spans" not in obj:
            raise ValueError(f"{where}: no 'spans' (character offsets of unsupported text; [] when none)")
        spans = []
        for s in obj["spans"]:
            start, end = int(s["start"]), int(s["end"])
            if not 0 <= start <= end <= len(sample.response):
                raise ValueError(
                    f"{where}: span [{start}, {end}) is outside the response ({len(sample.response)} chars)"
                )
            spans.append((start, end))
        if group not in obj:
            raise ValueError(f"{where}: no '{group}' column to group the split by (pass --group)")
        rows.append(LabeledRow(sample, spans, str(obj[group]), str(obj.get("task", "all"))))
    return rows


def split_by_group(
    rows: Sequence[LabeledRow], fraction: float, seed: int
) -> tuple[list[LabeledRow], list[LabeledRow]]:
    """(train, held-out), each group whole on one side, about ``fraction`` of the rows held out
    (:func:`trustscore.stats._cv.grouped_split`)."""
    from trustscore.stats._cv import grouped_split

    train, heldout = grouped_split([r.group for r in rows], fraction, seed=seed)
    return [rows[i] for i in train], [rows[i] for i in heldout]
