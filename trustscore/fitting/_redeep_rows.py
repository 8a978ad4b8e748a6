"""Fitting a ReDeEP profile for one local model from labeled rows (what ``trustscore fit-redeep`` runs).

Rows are the labeled JSONL of :func:`trustscore.fitting._detector.read_rows`: ``question``, ``context``,
``response`` and ``spans`` (character offsets of hallucinated text; ``[]`` when none), plus a group
column (default ``source_id``) that keeps responses to one source on one side of every inner
cross-validation fold. The candidate copying heads are scored from the weights (cached), the features
of every candidate head and every layer are extracted row by row, and :mod:`trustscore.fitting._redeep`
picks the heads, layers and weights. Rows the model cannot read (no context, longer than
``[signals.redeep] max_tokens``) are skipped and counted. Everything runs in the calling thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from trustscore._errors import WhiteboxLoadError, WhiteboxModelError
from trustscore.fitting._redeep import (
    FeatureSet,
    fit_logistic_profile,
    fit_paper_profile,
    label_units,
)
from trustscore.rows._labeled import LabeledRow
from trustscore.whitebox._model import load_model, weights_fingerprint
from trustscore.whitebox._profile import ModelIdentity, RedeepProfile
from trustscore.whitebox._redeep_config import RedeepConfig
from trustscore.whitebox._redeep_extract import extract_features
from trustscore.whitebox._redeep_features import EmbedFn, candidate_recipe

__all__ = ["FitReport", "fit_profile_from_rows"]

Method = Literal["paper", "logistic"]
Progress = Callable[[int, int, float], None]
"""``progress(rows done, rows in all, seconds so far)``, called after each row."""


@dataclass(frozen=True)
class FitReport:
    profile: RedeepProfile
    rows_used: int
    skipped: list[str]
    """One line per skipped row: its id and why."""
    seconds_per_row: float


def fit_profile_from_rows(
    rows: Sequence[LabeledRow],
    model_path: str | Path,
    *,
    method: Method = "paper",
    level: Literal["token", "chunk"] = "token",
    pks_mode: Literal["jsd", "legacy"] = "jsd",
    config: RedeepConfig | None = None,
    n_folds: int = 5,
    seed: int = 0,
    split: str,
    device: str = "cpu",
    dtype: Literal["float32", "bfloat16", "float16"] = "float32",
    embed: EmbedFn | None = None,
    progress: Progress | None = None,
) -> FitReport:
    """Extract the candidate features of ``rows`` on the model in ``model_path`` and fit a profile.

    ``split`` says what the rows are (it is written into the profile's training summary). Chunk level
    embeds chunks with ``embed`` (default: the bundled sentence embedder). Raises ValueError when too
    few rows are usable or both labels are not present, WhiteboxLoadError when the model does not load.
    """
    if not rows:
        raise ValueError("no labeled rows to fit on")
    cfg = config or RedeepConfig()
    loaded = load_model(model_path, device=device, dtype=dtype)
    recipe = candidate_recipe(loaded, cfg, level=level, pks_mode=pks_mode)
    if level == "chunk" and embed is None:
        from trustscore.textmodels import load_embedder

        embed = load_embedder().encode
    ecs, pks, labels, groups, responses = [], [], [], [], []
    skipped: list[str] = []
    began = time.perf_counter()
    for i, row in enumerate(rows, 1):
        key = row.sample.id or str(i)
        if not row.sample.has_context:
            skipped.append(f"{key}: no context")
        else:
            try:
                features = extract_features(
                    loaded, row.sample, recipe, embed=embed, position_chunk=cfg.position_chunk,
                    chunk_chars=cfg.chunk_chars, system_prompt=cfg.system_prompt, max_tokens=cfg.max_tokens,
                )  # fmt: skip
            except WhiteboxLoadError:
                raise
            except WhiteboxModelError as e:
                skipped.append(f"{key}: {e}")
            else:
                ecs.append(features.ecs)
                pks.append(features.pks)
                labels.append(label_units(features.spans, row.spans))
                responses += [key] * features.n_units
                groups += [row.group] * features.n_units
        if progress is not None:
            progress(i, len(rows), time.perf_counter() - began)
    used = len(ecs)
    if used == 0:
        raise ValueError(f"none of the {len(rows)} rows could be read by the model: {skipped[:3]}")
    data = FeatureSet.build(
        np.vstack(ecs), np.vstack(pks), np.concatenate(labels), heads=recipe.heads, layers=recipe.layers,
        groups=groups, responses=responses,
    )  # fmt: skip
    if data.labels.min() == data.labels.max():
        raise ValueError(
            "the rows' units carry one label only: a fit needs responses with hallucinated spans and "
            "responses without"
        )
    identity = ModelIdentity.from_hf_config(
        loaded.config, name=Path(model_path).name, weights_hash=weights_fingerprint(loaded)
    )
    common = {"model": identity, "level": level, "pks_mode": pks_mode, "split": split, "n_folds": n_folds}
    if method == "paper":
        profile = fit_paper_profile(data, seed=seed, **common)  # type: ignore[arg-type]
    else:
        profile = fit_logistic_profile(data, seed=seed, **common)  # type: ignore[arg-type]
    return FitReport(profile, used, skipped, (time.perf_counter() - began) / len(rows))
