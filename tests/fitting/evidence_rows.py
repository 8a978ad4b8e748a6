"""The scored-row shape the evidence-fit tests generate: a lexical value and a claims count."""

from __future__ import annotations

from typing import Any

from trustscore.fitting import FitOptions, fit_calibrator
from trustscore.fusion import FusionModel
from trustscore.rows._scored import rows_from_dicts

FACTS = "claims:raw.contradicted_facts|identity"
FEATURES = ["lexical", FACTS]


def evidence_row(
    i: int, *, source_id: str, dataset: str, hallucinated: bool, overlap: float, contradicted: bool
) -> dict[str, Any]:
    """One scored row: ``overlap`` as the lexical value, ``contradicted`` as the claims count (0 or 1)."""
    return {
        "id": f"r{i}",
        "source_id": source_id,
        "dataset": dataset,
        "hallucinated": hallucinated,
        "score": None,
        "calibrated": False,
        "signals": {
            "lexical": {"value": overlap, "version": "lex/1"},
            "claims": {"value": 0.5, "raw": {"contradicted_facts": int(contradicted)}, "version": "c/1"},
        },
    }


def fit_rows(rows: list[dict[str, Any]], options: FitOptions) -> FusionModel:
    """The calibrator fitted on ``rows`` (label ``hallucinated``, the lexical value and the claims count)."""
    model, _ = fit_calibrator(rows_from_dicts(rows), label="hallucinated", features=FEATURES, options=options)
    return model
