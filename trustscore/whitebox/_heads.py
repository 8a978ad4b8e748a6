"""Copying heads found from the weights alone (ReDeEP appendix B), cached per model.

For head ``h`` of layer ``l`` the full OV circuit is the vocab x vocab matrix

    M = W_U · W_O^h · W_V^h · W_E^T        (M[i, j]: logit of token i when the head attends to token j)

with the RMSNorm gains folded in (the input norm's gain into W_V, the final norm's into W_U; the
per-token RMS scale is a positive factor and is left out). A head that copies has a large positive
diagonal. The paper ranks heads by |trace(M)| (descending) and by the number of 1.5·IQR outliers
among the Gershgorin disc edges ``M_ii ± sum_{j≠i} |M_ij|`` (ascending) and sums the two ranks:
the lowest sum is the strongest copier. The authors' script is not released (issue #8 of
Jeryi-Sun/ReDEeP-ICLR), so this is our reading of the appendix.

Exact quantities come from the small d_head x d_head matrix ``S = W_V · (W_E^T W_U) · W_O``:
``trace(M) = trace(S)`` and the non-zero eigenvalues of M (= AB) are those of S (= BA). We also
record Elhage et al.'s copying score ``sum(λ) / sum(|λ|)`` from those exact eigenvalues. The
Gershgorin edges need rows of M; on a large vocabulary they are estimated from a seeded sample
of rows and columns (``gershgorin_sample``), exactly when the vocabulary is smaller than it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from trustscore.core._files import MAX_JSON_BYTES, read_capped_text
from trustscore.whitebox._model import LoadedModel, weights_fingerprint

__all__ = [
    "METHOD_VERSION",
    "CopyingHeads",
    "HeadScore",
    "default_cache_dir",
    "iqr_outlier_count",
    "load_or_score_copying_heads",
    "score_copying_heads",
]

METHOD_VERSION = "copying-heads-1"

Head = tuple[int, int]


class HeadScore(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    layer: int
    head: int
    trace: float
    """trace(M), exact."""
    gershgorin_outliers: int
    """1.5·IQR outliers among the Gershgorin disc edges of M (estimated on a sample of a large vocabulary)."""
    eigen_copying: float
    """sum(λ) / sum(|λ|) over M's exact non-zero eigenvalues, in [-1, 1] (Elhage et al.)."""
    rank_sum: int
    """Rank by |trace| (1 = largest) plus rank by outliers (1 = fewest), ties sharing a rank.

    Lower = stronger copier.
    """


class CopyingHeads(BaseModel):
    """Every head of one model, strongest copier first."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    method: str = METHOD_VERSION
    model_fingerprint: str
    gershgorin_sample: int | None
    heads: list[HeadScore] = Field(description="sorted by rank_sum, then by -eigen_copying")

    def top(self, n: int) -> list[Head]:
        """The ``n`` strongest copying heads as (layer, head)."""
        return [(s.layer, s.head) for s in self.heads[:n]]


def iqr_outlier_count(values: np.ndarray) -> int:
    """How many values fall outside ``[Q1 - 1.5·IQR, Q3 + 1.5·IQR]``."""
    q1, q3 = np.percentile(values, [25, 75])
    spread = 1.5 * (q3 - q1)
    return int(np.count_nonzero((values < q1 - spread) | (values > q3 + spread)))


def _ranks(keys: np.ndarray) -> np.ndarray:
    """1-based competition ranks of ``keys`` in ascending order: tied keys share the lowest rank."""
    return np.searchsorted(np.sort(keys, kind="stable"), keys, side="left") + 1


def score_copying_heads(
    loaded: LoadedModel, *, gershgorin_sample: int | None = 4096, seed: int = 0
) -> CopyingHeads:
    """Score every head of the model from its weights (blocking; seconds for 7B-class on a GPU)."""
    import torch

    with torch.no_grad():
        device = loaded.device
        w_e = loaded.embed.weight.float()  # [V, d]
        w_u = loaded.lm_head.weight.float() * loaded.final_norm.weight.float()[None, :]  # [V, d]
        vocab = w_e.shape[0]
        gram = w_e.T @ w_u  # [d, d] = W_E^T W_U
        generator = torch.Generator().manual_seed(seed)
        if gershgorin_sample is None or gershgorin_sample >= vocab:
            rows = cols = torch.arange(vocab)
        else:
            rows = torch.randperm(vocab, generator=generator)[:gershgorin_sample].sort().values
            cols = torch.randperm(vocab, generator=generator)[:gershgorin_sample].sort().values
        rows, cols = rows.to(device), cols.to(device)
        col_scale = (vocab - 1) / max(len(cols) - 1, 1) if len(cols) < vocab else 1.0
        w_u_rows = w_u[rows]
        w_e_rows, w_e_cols = w_e[rows], w_e[cols]
        is_diag = rows[:, None] == cols[None, :]

        dh, group = loaded.head_dim, loaded.n_heads // loaded.n_kv_heads
        raw: list[tuple[int, int, float, int, float]] = []
        for layer in range(loaded.n_layers):
            attn = loaded.attention(layer)
            gain = loaded.input_norm(layer).weight.float()
            w_v_all = attn.v_proj.weight.float() * gain[None, :]  # [H_kv*dh, d]
            w_o_all = attn.o_proj.weight.float()  # [d, H*dh]
            for head in range(loaded.n_heads):
                kv = head // group
                w_v = w_v_all[kv * dh : (kv + 1) * dh]  # [dh, d]
                w_o = w_o_all[:, head * dh : (head + 1) * dh]  # [d, dh]
                small = w_v @ gram @ w_o  # [dh, dh]: same non-zero spectrum as M
                eig = torch.linalg.eigvals(small.double())
                real = eig.real
                eigen_copying = float(real.sum() / eig.abs().sum().clamp_min(1e-30))
                trace = float(torch.trace(small))
                left = w_u_rows @ w_o  # [R, dh]
                block = left @ (w_v @ w_e_cols.T)  # M[rows][:, cols]
                centres = (left * (w_e_rows @ w_v.T)).sum(dim=1)  # exact M_ii
                off = block.abs().masked_fill(is_diag, 0.0).sum(dim=1) * col_scale
                edges = torch.cat([centres - off, centres + off]).cpu().numpy()
                raw.append((layer, head, trace, iqr_outlier_count(edges), eigen_copying))

    traces = np.array([-abs(r[2]) for r in raw])
    outliers = np.array([r[3] for r in raw], dtype=np.float64)
    rank_sum = _ranks(traces) + _ranks(outliers)
    scores = [
        HeadScore(
            layer=r[0], head=r[1], trace=r[2], gershgorin_outliers=r[3], eigen_copying=r[4], rank_sum=int(s)
        )
        for r, s in zip(raw, rank_sum, strict=True)
    ]
    scores.sort(key=lambda s: (s.rank_sum, -s.eigen_copying))
    return CopyingHeads(
        model_fingerprint=weights_fingerprint(loaded), gershgorin_sample=gershgorin_sample, heads=scores
    )


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/trustscore`` (``~/.cache/trustscore`` when unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "trustscore"


def _cache_path(cache_dir: Path, fingerprint: str, gershgorin_sample: int | None) -> Path:
    sample = "all" if gershgorin_sample is None else str(gershgorin_sample)
    return cache_dir / "copying_heads" / f"{METHOD_VERSION}-{fingerprint}-g{sample}.json"


def load_or_score_copying_heads(
    loaded: LoadedModel, *, cache_dir: Path | None = None, gershgorin_sample: int | None = 4096
) -> CopyingHeads:
    """The model's copying heads from the JSON cache (keyed by a weights fingerprint); scored on a miss."""
    fingerprint = weights_fingerprint(loaded)
    path = _cache_path(cache_dir or default_cache_dir(), fingerprint, gershgorin_sample)
    if path.is_file():
        try:
            cached = CopyingHeads.model_validate_json(
                read_capped_text(path, what="copying-heads cache", limit=MAX_JSON_BYTES, error=ValueError)
            )
        except ValueError:
            cached = None  # a torn or foreign file: rescore and overwrite it
        if cached is not None and cached.model_fingerprint == fingerprint:
            return cached
    result = score_copying_heads(loaded, gershgorin_sample=gershgorin_sample)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(result.model_dump(mode="json"), indent=1), encoding="utf-8")
    tmp.replace(path)
    return result
