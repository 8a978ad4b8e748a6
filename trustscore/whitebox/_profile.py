"""A fitted ReDeEP profile: which copying heads (A) and knowledge layers (F) to read, and how to combine them.

A profile belongs to one model architecture and one feature recipe (token or chunk level, PKS as a
true Jensen-Shannon divergence or in the released code's "legacy" units, top-k fraction of context
keys). It is stored as versioned JSON with a checksum over its content, validated on load, and never
pickled. Two combinations are supported:

* ``paper``: ReDeEP's score ``alpha * norm(sum_F PKS) - beta * norm(sum_A ECS)`` with min-max
  normalisers (Sun et al., ICLR 2025, eq. 9 and appendix I; alpha = 1 there), followed by a final
  min-max range or, when fitted, a Platt map to a probability;
* ``logistic``: standardised features, then an L2-regularised logistic regression
  (:func:`trustscore.stats._logistic.fit_logistic`).

Both return P(hallucination) for one unit (token or chunk); :meth:`RedeepProfile.aggregate` turns the
units of one response into the response's probability.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from trustscore._errors import ProfileError
from trustscore.core._files import MAX_JSON_BYTES, loads_json, read_capped_text
from trustscore.core._fitted_output import write_fitted_file
from trustscore.core._hashing import canonical_json, sha256_hex
from trustscore.stats._logistic import sigmoid

__all__ = [
    "SCHEMA_VERSION",
    "LogisticCombination",
    "ModelIdentity",
    "PaperCombination",
    "ProfileError",
    "RedeepProfile",
    "TrainingSummary",
    "transform_pks",
]

SCHEMA_VERSION = 1

Head = tuple[int, int]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ModelIdentity(_Frozen):
    """What a profile was fitted on. Heads and layers only mean something on this architecture."""

    model_type: str
    n_layers: int = Field(ge=1)
    n_heads: int = Field(ge=1)
    hidden_size: int = Field(ge=1)
    name: str | None = None
    """Human-readable model name, e.g. "meta-llama/Llama-2-7b-chat-hf" (informative only)."""
    weights_hash: str | None = None
    """Hash of the weights, when known; if both sides have one they must agree."""

    @classmethod
    def from_hf_config(
        cls, config: Any, *, name: str | None = None, weights_hash: str | None = None
    ) -> ModelIdentity:
        """Read the identity from a transformers ``PretrainedConfig`` (or a look-alike)."""
        return cls(
            model_type=str(config.model_type),
            n_layers=int(config.num_hidden_layers),
            n_heads=int(config.num_attention_heads),
            hidden_size=int(config.hidden_size),
            name=name if name is not None else getattr(config, "_name_or_path", None) or None,
            weights_hash=weights_hash,
        )


class PaperCombination(_Frozen):
    """ReDeEP's own combination: ``alpha * norm(P_sum) - beta * norm(E_sum)``, then a map to [0, 1].

    The normalisers are ``(max, min)`` pairs as in the released ``token_hyperparameter.json``.
    ``platt`` = ``(slope, intercept)`` turns the score into a probability when it was fitted; without
    it the final min-max range is applied and clipped (a ranking score, not a calibrated probability).
    """

    kind: Literal["paper"] = "paper"
    alpha: float = 1.0
    beta: float = Field(ge=0.0)
    pks_max_min: tuple[float, float]
    ecs_max_min: tuple[float, float]
    final_max_min: tuple[float, float]
    platt: tuple[float, float] | None = None

    @model_validator(mode="after")
    def _ranges(self) -> PaperCombination:
        for field in ("pks_max_min", "ecs_max_min", "final_max_min"):
            hi, lo = getattr(self, field)
            if not (np.isfinite(hi) and np.isfinite(lo)) or hi <= lo:
                raise ValueError(f"{field} must be (max, min) with max > min, got {(hi, lo)}")
        return self

    def raw_score(self, ecs: NDArray[np.float64], pks: NDArray[np.float64]) -> NDArray[np.float64]:
        """The un-mapped ReDeEP score per row (higher = more likely hallucinated)."""
        p_hi, p_lo = self.pks_max_min
        e_hi, e_lo = self.ecs_max_min
        p_norm = (pks.sum(axis=1) - p_lo) / (p_hi - p_lo)
        e_norm = (ecs.sum(axis=1) - e_lo) / (e_hi - e_lo)
        return self.alpha * p_norm - self.beta * e_norm

    def probability(self, ecs: NDArray[np.float64], pks: NDArray[np.float64]) -> NDArray[np.float64]:
        s = self.raw_score(ecs, pks)
        if self.platt is not None:
            return sigmoid(self.platt[0] * s + self.platt[1])
        hi, lo = self.final_max_min
        return np.clip((s - lo) / (hi - lo), 0.0, 1.0)


def transform_pks(pks: NDArray[np.float64], how: Literal["none", "log1p"]) -> NDArray[np.float64]:
    """PKS as the logistic model reads it: raw, or ``sign(x) * log1p(|x|)`` (tames legacy units' tail)."""
    return pks if how == "none" else np.sign(pks) * np.log1p(np.abs(pks))


class LogisticCombination(_Frozen):
    """``sigmoid(coef . (x - mean) / scale + intercept)``; x = ECS (heads order), then PKS (layers order).

    ``pks_transform`` is applied to the PKS columns before standardising.
    """

    kind: Literal["logistic"] = "logistic"
    pks_transform: Literal["none", "log1p"] = "none"
    mean: list[float]
    scale: list[float]
    coef: list[float]
    intercept: float
    l2: float = Field(ge=0.0)
    """The L2 strength it was fitted with (scikit-learn's 1/C), kept for the record."""

    @model_validator(mode="after")
    def _shapes(self) -> LogisticCombination:
        n = len(self.coef)
        if len(self.mean) != n or len(self.scale) != n:
            raise ValueError(
                f"mean ({len(self.mean)}), scale ({len(self.scale)}), coef ({n}) need one entry per feature"
            )
        if any(not s > 0 for s in self.scale):
            raise ValueError("every scale must be > 0 (constant features get scale 1)")
        values = [*self.mean, *self.scale, *self.coef, self.intercept]
        if not all(np.isfinite(values)):
            raise ValueError("logistic parameters must be finite numbers")
        return self

    def probability(self, ecs: NDArray[np.float64], pks: NDArray[np.float64]) -> NDArray[np.float64]:
        x = np.hstack([ecs, transform_pks(pks, self.pks_transform)])
        z = (x - np.asarray(self.mean)) / np.asarray(self.scale)
        return sigmoid(z @ np.asarray(self.coef) + self.intercept)


Combination = Annotated[PaperCombination | LogisticCombination, Field(discriminator="kind")]


class TrainingSummary(_Frozen):
    """What the profile was fitted on (never the data itself)."""

    n: int = Field(ge=1)
    """Rows (tokens or chunks) in the training split."""
    n_responses: int | None = None
    positive_rate: float = Field(ge=0.0, le=1.0)
    data_sha256: str
    split: str
    """How the training split was drawn, e.g. "RAGTruth train, grouped by source_id, seed 0"."""
    selection: str = ""
    """How A, F and the weights were chosen, e.g. "top-k by train AUROC, sizes by 5-fold grouped CV"."""


class RedeepProfile(_Frozen):
    schema_version: Literal[1] = 1
    model: ModelIdentity
    level: Literal["token", "chunk"]
    pks_mode: Literal["jsd", "legacy"]
    top_k_fraction: float = Field(default=0.1, gt=0.0, le=1.0)
    heads: list[Head]
    """A: the copying heads read, as (layer, head); column order of the ECS features."""
    layers: list[int]
    """F: the layers whose FFN's parametric knowledge is measured; column order of the PKS features."""
    combination: Combination
    response_aggregation: Literal["mean", "max"] = "max"
    """How unit probabilities become the response's: "max" matches the label "any unit hallucinated"."""
    training: TrainingSummary
    metrics: dict[str, float] = Field(default_factory=dict)
    """Held-out metrics, e.g. {"auroc_response": 0.73}; name the split in ``training.split``."""

    @model_validator(mode="after")
    def _consistent(self) -> RedeepProfile:
        if not self.heads and not self.layers:
            raise ValueError("a profile needs at least one head or one layer")
        if len(set(self.heads)) != len(self.heads):
            raise ValueError("heads contain duplicates")
        if len(set(self.layers)) != len(self.layers):
            raise ValueError("layers contain duplicates")
        for layer, head in self.heads:
            if not (0 <= layer < self.model.n_layers and 0 <= head < self.model.n_heads):
                raise ValueError(
                    f"head ({layer}, {head}) is outside the model "
                    f"({self.model.n_layers} layers x {self.model.n_heads} heads)"
                )
        for layer in self.layers:
            if not 0 <= layer < self.model.n_layers:
                raise ValueError(f"layer {layer} is outside the model ({self.model.n_layers} layers)")
        c = self.combination
        if isinstance(c, LogisticCombination) and len(c.coef) != len(self.heads) + len(self.layers):
            raise ValueError(
                f"logistic combination has {len(c.coef)} coefficients but the profile reads "
                f"{len(self.heads)} heads + {len(self.layers)} layers"
            )
        if isinstance(c, PaperCombination) and (not self.heads or not self.layers):
            raise ValueError("the paper combination needs at least one head and one layer")
        return self

    # ---- scoring -----------------------------------------------------------------------------

    def token_scores(self, ecs: ArrayLike, pks: ArrayLike) -> NDArray[np.float64]:
        """P(hallucination) per row of ``ecs`` [T, |A|] and ``pks`` [T, |F|] (heads/layers order)."""
        e = np.asarray(ecs, dtype=np.float64)
        p = np.asarray(pks, dtype=np.float64)
        if e.ndim != 2 or e.shape[1] != len(self.heads):
            raise ValueError(
                f"ecs must have shape [T, {len(self.heads)}] (one column per profile head), got {e.shape}"
            )
        if p.ndim != 2 or p.shape[1] != len(self.layers):
            raise ValueError(
                f"pks must have shape [T, {len(self.layers)}] (one column per profile layer), got {p.shape}"
            )
        if e.shape[0] != p.shape[0]:
            raise ValueError(f"ecs has {e.shape[0]} rows but pks has {p.shape[0]}")
        if not (np.all(np.isfinite(e)) and np.all(np.isfinite(p))):
            raise ValueError("ecs and pks must be finite (a NaN feature means the extraction failed)")
        return self.combination.probability(e, p)

    def hallucination_probability(self, ecs: Mapping[Head, float], pks: Mapping[int, float]) -> float:
        """P(hallucination) of one unit from its ECS per (layer, head) and PKS per layer (extras ignored)."""
        missing_heads = [h for h in self.heads if h not in ecs]
        missing_layers = [layer for layer in self.layers if layer not in pks]
        if missing_heads or missing_layers:
            raise ValueError(
                f"features missing for this profile: heads {missing_heads}, layers {missing_layers}; "
                "extract ECS for every profile head and PKS for every profile layer"
            )
        e = np.array([[ecs[h] for h in self.heads]], dtype=np.float64).reshape(1, len(self.heads))
        p = np.array([[pks[layer] for layer in self.layers]], dtype=np.float64).reshape(1, len(self.layers))
        return float(self.token_scores(e, p)[0])

    def aggregate(self, unit_probabilities: Sequence[float] | NDArray[np.float64]) -> float:
        """The response's P(hallucination) from its units' probabilities."""
        p = np.asarray(unit_probabilities, dtype=np.float64)
        if p.size == 0:
            raise ValueError("no units to aggregate: the response produced no tokens/chunks")
        return float(p.max() if self.response_aggregation == "max" else p.mean())

    def check_model(self, identity: ModelIdentity) -> None:
        """Refuse to score a model other than the one this profile was fitted for."""
        mine, theirs = self.model, identity
        diffs = [
            f"{field}: profile {getattr(mine, field)!r} vs model {getattr(theirs, field)!r}"
            for field in ("model_type", "n_layers", "n_heads", "hidden_size")
            if getattr(mine, field) != getattr(theirs, field)
        ]
        if mine.weights_hash and theirs.weights_hash and mine.weights_hash != theirs.weights_hash:
            diffs.append(f"weights_hash: profile {mine.weights_hash!r} vs model {theirs.weights_hash!r}")
        if diffs:
            raise ProfileError(
                "this ReDeEP profile was fitted for another model (" + "; ".join(diffs) + "); "
                "fit a profile for this model with `trustscore fit-redeep`"
            )

    # ---- storage -----------------------------------------------------------------------------

    def checksum(self) -> str:
        return sha256_hex(canonical_json(self.model_dump(mode="json")))

    def to_json(self) -> str:
        body = self.model_dump(mode="json")
        return json.dumps({"checksum": self.checksum(), "profile": body}, indent=2, sort_keys=True) + "\n"

    def save(self, path: str | Path) -> None:
        """Write the profile; only a new path or an earlier profile is written (else ``ProfileError``)."""
        write_fitted_file(Path(path), self.to_json(), "ReDeEP profile", error=ProfileError)

    @classmethod
    def from_json(cls, text: str, *, source: str = "profile") -> RedeepProfile:
        if len(text) > MAX_JSON_BYTES:
            raise ProfileError(f"{source} holds {len(text):,} characters; a ReDeEP profile is far smaller")
        doc = loads_json(text, what=source, error=ProfileError)
        if (
            not isinstance(doc, dict)
            or set(doc) != {"checksum", "profile"}
            or not isinstance(doc["profile"], dict)
        ):
            raise ProfileError(f"{source} is not a ReDeEP profile (expected keys 'checksum' and 'profile')")
        version = doc["profile"].get("schema_version")
        if version != SCHEMA_VERSION:
            raise ProfileError(
                f"{source} has schema_version {version!r}; this trustscore reads version {SCHEMA_VERSION} "
                "(refit the profile or upgrade trustscore)"
            )
        try:
            profile = cls.model_validate(doc["profile"])
        except ValidationError as e:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(top)'}: {err['msg']}" for err in e.errors()
            )
            raise ProfileError(f"{source} is not a valid ReDeEP profile: {problems}") from None
        if profile.checksum() != doc["checksum"]:
            raise ProfileError(
                f"{source} was modified after it was written (checksum mismatch); refit or restore it"
            )
        return profile

    @classmethod
    def load(cls, path: str | Path) -> RedeepProfile:
        path = Path(path)
        text = read_capped_text(path, what="ReDeEP profile", limit=MAX_JSON_BYTES, error=ProfileError)
        return cls.from_json(text, source=f"ReDeEP profile {path}")
