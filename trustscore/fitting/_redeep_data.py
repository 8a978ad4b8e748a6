"""The rows a ReDeEP profile is fitted on: per unit (token or chunk) ECS and PKS features of labeled
samples, read through the white-box model (:func:`collect_features`), with their labels, groups and
responses (:class:`FeatureSet`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trustscore._types import Sample
from trustscore.core._hashing import sha256_hex
from trustscore.whitebox._model import LoadedModel
from trustscore.whitebox._profile import Head, RedeepProfile
from trustscore.whitebox._redeep_extract import extract_features
from trustscore.whitebox._redeep_features import FeatureRecipe

__all__ = ["FeatureSet", "collect_features", "label_units"]


@dataclass(frozen=True)
class FeatureSet:
    """Per-unit ReDeEP features with labels.

    ``ecs`` [N, |heads|] and ``pks`` [N, |layers|] are the candidate features in ``heads`` / ``layers``
    order; ``labels`` [N] are 0/1 (1 = hallucinated unit); ``groups`` [N] keep related rows together in
    cross-validation; ``responses`` [N] say which response each unit belongs to.
    """

    ecs: NDArray[np.float64]
    pks: NDArray[np.float64]
    labels: NDArray[np.int64]
    groups: NDArray[np.str_]
    responses: NDArray[np.str_]
    heads: tuple[Head, ...]
    layers: tuple[int, ...]

    @classmethod
    def build(
        cls,
        ecs: ArrayLike,
        pks: ArrayLike,
        labels: ArrayLike,
        *,
        heads: Sequence[Head],
        layers: Sequence[int],
        groups: Sequence[str] | None = None,
        responses: Sequence[str] | None = None,
    ) -> FeatureSet:
        """Validate shapes and labels.

        Without ``responses`` every row is its own response; without ``groups`` groups = responses.
        """
        e = np.asarray(ecs, dtype=np.float64)
        p = np.asarray(pks, dtype=np.float64)
        y = np.asarray(labels)
        n = y.shape[0]
        if e.ndim != 2 or e.shape != (n, len(heads)):
            raise ValueError(f"ecs must have shape [{n}, {len(heads)}] (rows x heads), got {e.shape}")
        if p.ndim != 2 or p.shape != (n, len(layers)):
            raise ValueError(f"pks must have shape [{n}, {len(layers)}] (rows x layers), got {p.shape}")
        if n == 0:
            raise ValueError("labels is empty: there is nothing to fit")
        if not np.all((y == 0) | (y == 1)):
            raise ValueError("labels must be 0/1 (1 = hallucinated)")
        if not (np.all(np.isfinite(e)) and np.all(np.isfinite(p))):
            raise ValueError("ecs and pks must be finite; drop rows whose extraction failed")
        resp = np.asarray([str(i) for i in range(n)] if responses is None else [str(r) for r in responses])
        grp = resp.copy() if groups is None else np.asarray([str(g) for g in groups])
        if resp.shape[0] != n or grp.shape[0] != n:
            raise ValueError(f"groups and responses need one entry per row ({n})")
        return cls(
            e,
            p,
            y.astype(np.int64),
            grp,
            resp,
            tuple((int(a), int(b)) for a, b in heads),
            tuple(int(x) for x in layers),
        )

    @property
    def n(self) -> int:
        return int(self.labels.shape[0])

    def subset(self, mask: NDArray[np.bool_]) -> FeatureSet:
        return FeatureSet(
            self.ecs[mask],
            self.pks[mask],
            self.labels[mask],
            self.groups[mask],
            self.responses[mask],
            self.heads,
            self.layers,
        )

    def columns_for(self, profile: RedeepProfile) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The ECS and PKS columns a profile reads, in its heads/layers order."""
        head_index = {h: i for i, h in enumerate(self.heads)}
        layer_index = {layer: i for i, layer in enumerate(self.layers)}
        missing = [h for h in profile.heads if h not in head_index] + [
            x for x in profile.layers if x not in layer_index
        ]
        if missing:
            raise ValueError(f"the profile reads features this set does not have: {missing}")
        return (
            self.ecs[:, np.array([head_index[h] for h in profile.heads], dtype=np.intp)],
            self.pks[:, np.array([layer_index[x] for x in profile.layers], dtype=np.intp)],
        )

    def data_sha256(self) -> str:
        """A hash of exactly what was fitted on (features, labels, groups), for the training summary."""
        parts = [
            self.ecs.tobytes(),
            self.pks.tobytes(),
            self.labels.tobytes(),
            "\x1f".join(self.groups.tolist()).encode(),
            "\x1f".join(self.responses.tolist()).encode(),
            repr((self.heads, self.layers)).encode(),
        ]
        return sha256_hex(b"\x1e".join(parts))


def label_units(
    unit_spans: Sequence[tuple[int, int]], hallucinated: Sequence[tuple[int, int]]
) -> NDArray[np.int64]:
    """1 for each unit (``[start, end)`` characters in the response) overlapping an annotated
    hallucinated span, else 0: RAGTruth-style character labels turned into token/chunk labels."""
    return np.array(
        [int(any(s < b and a < e for a, b in hallucinated)) for s, e in unit_spans], dtype=np.int64
    )


def collect_features(
    loaded: LoadedModel,
    samples: Sequence[Sample],
    hallucinated: Sequence[Sequence[tuple[int, int]]],
    recipe: FeatureRecipe,
    *,
    groups: Sequence[str] | None = None,
    **extract: Any,
) -> FeatureSet:
    """The training rows for a fit: ``recipe``'s features of every sample, each unit labeled (blocking).

    ``hallucinated[i]`` are the annotated spans of ``samples[i].response``; responses are keyed by
    ``Sample.id`` (else their index); ``groups`` (e.g. source ids, one per sample) default to the
    responses. ``extract`` is passed to :func:`~trustscore.whitebox._redeep.extract_features`
    (``embed`` for chunk level, ``system_prompt``, ...). Use ``candidate_recipe`` to extract every
    candidate head and layer, then let the fit choose among them.
    """
    if len(hallucinated) != len(samples) or (groups is not None and len(groups) != len(samples)):
        raise ValueError("hallucinated (and groups, when given) need one entry per sample")
    ecs, pks, labels, unit_groups, responses = [], [], [], [], []
    for i, sample in enumerate(samples):
        features = extract_features(loaded, sample, recipe, **extract)
        key = sample.id if sample.id is not None else str(i)
        ecs.append(features.ecs)
        pks.append(features.pks)
        labels.append(label_units(features.spans, hallucinated[i]))
        responses += [key] * features.n_units
        unit_groups += [groups[i] if groups is not None else key] * features.n_units
    return FeatureSet.build(
        np.vstack(ecs),
        np.vstack(pks),
        np.concatenate(labels),
        heads=recipe.heads,
        layers=recipe.layers,
        groups=unit_groups,
        responses=responses,
    )


# ---- metrics -------------------------------------------------------------------------------------
