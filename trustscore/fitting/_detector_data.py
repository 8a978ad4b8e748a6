"""The detector's training data: labeled rows as LettuceDetect inputs, the split by group, batches.

A row becomes LettuceDetect's input (:func:`~trustscore.encoders._lettucedetect.format_prompt` + the
response as the second segment, context truncated to ``max_length``); answer tokens are labeled 1 when
they overlap a span, every other token is left out of the loss (-100). The split is by group: every
row of one source is on the same side (see :mod:`trustscore.fitting._detector`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trustscore.encoders._lettucedetect import format_prompt
from trustscore.rows._labeled import LabeledRow, read_rows, split_by_group

__all__ = ["DetectorSplit", "data_hash", "encode_row", "pad_batch", "split_rows"]


def encode_row(tokenizer: Any, row: LabeledRow, max_length: int) -> dict[str, list[int]] | None:
    """Input ids and labels (-100 off the answer, 1 on a span); None when the answer alone does not fit."""
    s = row.sample
    if len(tokenizer(s.response, add_special_tokens=False)["input_ids"]) + 4 > max_length:
        return None
    enc = tokenizer(
        format_prompt(list(s.context), s.question, "qa"),
        s.response,
        truncation="only_first",
        max_length=max_length,
        return_offsets_mapping=True,
    )
    seq = enc.sequence_ids()
    if 0 not in seq:
        return None
    labels = []
    for sid, (a, b) in zip(seq, enc["offset_mapping"], strict=True):
        if sid != 1:
            labels.append(-100)
        else:
            labels.append(int(any(b > start and a < end for start, end in row.spans)))
    return {"input_ids": list(enc["input_ids"]), "labels": labels}


def data_hash(paths: Sequence[Path]) -> str:
    h = hashlib.sha256()
    for p in paths:
        h.update(p.read_bytes())
    return h.hexdigest()


@dataclass(frozen=True)
class DetectorSplit:
    train: list[LabeledRow]
    validation: list[LabeledRow]
    heldout: list[LabeledRow]

    @property
    def held_groups(self) -> set[str]:
        return {r.group for r in self.heldout}


def split_rows(
    data: Sequence[Path],
    extra_train: Sequence[Path],
    *,
    group: str,
    heldout_fraction: float,
    validation_fraction: float,
    seed: int,
) -> DetectorSplit:
    """Training, validation and held-out rows, split by group; ``extra_train`` rows only ever train."""
    rows = [r for p in data for r in read_rows(p, group)]
    train, heldout = split_by_group(rows, heldout_fraction, seed)
    validation: list[LabeledRow] = []
    if validation_fraction > 0 and len({r.group for r in train}) > 1:
        train, validation = split_by_group(train, validation_fraction, seed + 1)
    split = DetectorSplit([r for p in extra_train for r in read_rows(p, group)] + train, validation, heldout)
    if overlap := {r.group for r in split.train} & split.held_groups:
        raise ValueError(
            f"{len(overlap)} group(s) are both in --extra-train and held out, e.g. {sorted(overlap)[:3]}"
        )
    if not split.train or not heldout:
        raise ValueError(
            f"the split left {len(split.train)} training and {len(heldout)} held-out rows: "
            "change --heldout-fraction"
        )
    return split


def pad_batch(batch: Sequence[dict[str, list[int]]], pad: int) -> tuple[Any, Any, Any]:
    """Input ids (padded with ``pad``), labels (padded with -100) and the attention mask of a batch."""
    import torch

    width = max(len(e["input_ids"]) for e in batch)
    ids = torch.full((len(batch), width), pad, dtype=torch.long)
    labels = torch.full((len(batch), width), -100, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for k, e in enumerate(batch):
        n = len(e["input_ids"])
        ids[k, :n], labels[k, :n], mask[k, :n] = torch.tensor(e["input_ids"]), torch.tensor(e["labels"]), 1
    return ids, labels, mask
