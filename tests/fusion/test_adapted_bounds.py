"""Every number of an adapted calibrator file is finite and within its documented range: a re-sealed
file (edited, then re-hashed) that breaks a rule is refused with one CalibratorError line naming the
field, before it can pin every score to 0.99 or 0.01."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fitting.test_adapt import FEATURES, relabeled
from tests.fusion.test_domain import with_lengths
from trustscore import CalibratorError
from trustscore.fitting import adapt_model, fit_calibrator
from trustscore.fusion import FusionModel, load_model, save_model
from trustscore.rows._scored import rows_from_dicts
from trustscore.testing._synthetic import make_scored_rows


@pytest.fixture(scope="module")
def claiming() -> FusionModel:
    """An adapted calibrator as ``trustscore calibrate --adapt`` writes it."""
    rows = rows_from_dicts(with_lengths(make_scored_rows(80, seed=5)))
    base, _ = fit_calibrator(rows, label="hallucinated", features=FEATURES, name="base", data_name="a.jsonl")
    labeled = rows_from_dicts(relabeled(base, 60, seed=21, slope=1.0, level=-1.0))
    return adapt_model(base, labeled, domain="support", task_kinds=["qa"] * len(labeled), data_name="b.jsonl")


Edit = Callable[[dict[str, Any]], None]


def adaptation(edit: Callable[[dict[str, Any]], None]) -> Edit:
    return lambda data: edit(data["adaptations"][0])


def setter(field: str, value: Any) -> Edit:
    return adaptation(lambda a: a.__setitem__(field, value))


def invert_first_range(a: dict[str, Any]) -> None:
    a["ranges"][0]["low"], a["ranges"][0]["high"] = a["ranges"][0]["high"] + 1, a["ranges"][0]["low"]


def duplicate_range(a: dict[str, Any]) -> None:
    a["ranges"].append(dict(a["ranges"][0]))


EDITS: dict[str, tuple[Edit, str]] = {
    "level 1e308": (setter("level", 1e308), "level"),
    "level -21": (setter("level", -21.0), "level"),
    "slope -1e7": (setter("slope", -1e7), "slope"),
    "n 10^40": (setter("n", 10**40), "n"),
    "n 0": (setter("n", 0), "n"),
    "n as text": (setter("n", "360"), "n"),
    "n 1.5": (setter("n", 1.5), "n"),
    "groups over n": (setter("groups", 10**6), "groups"),
    "auroc 5": (setter("auroc", 5.0), "auroc"),
    "auroc_low -0.1": (setter("auroc_low", -0.1), "auroc_low"),
    "auroc_low above auroc": (setter("auroc_low", 0.999), "auroc_low"),
    "calibration_gap 3": (setter("calibration_gap", 3.0), "calibration_gap"),
    "negative variance": (
        adaptation(lambda a: a.__setitem__("covariance", [[-1.0, 0.0], [0.0, 1.0]])),
        "covariance",
    ),
    "covariance 1e300": (
        adaptation(lambda a: a.__setitem__("covariance", [[1e300, 0.0], [0.0, 1.0]])),
        "covariance",
    ),
    "inverted range": (adaptation(invert_first_range), "high"),
    "range end 1e12": (adaptation(lambda a: a["ranges"][0].__setitem__("high", 1e12)), "high"),
    "same range twice": (adaptation(duplicate_range), "ranges"),
    "domain of 10 MB": (setter("domain", "x" * 10_000_000), "domain"),
    "domain of 300 chars": (setter("domain", "x" * 300), "domain"),
    "domain with a newline": (setter("domain", "support\nFORGED line"), "domain"),
    "data_name with an escape": (setter("data_name", "b.jsonl\x1b[2J"), "data_name"),
    "unknown task kind": (setter("task_kinds", ["poetry"]), "task_kinds"),
    "training n 10^40": (lambda data: data["training"].__setitem__("n", 10**40), "training.n"),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_resealed_file_breaking_a_rule_is_refused_naming_the_field(
    edit: str,
    claiming: FusionModel,
    tmp_path: Path,
) -> None:
    change, field = EDITS[edit]
    data = copy.deepcopy(claiming.model_dump(mode="json"))
    change(data)
    data["content_sha256"] = FusionModel.compute_hash(data)  # re-sealed: the hash matches the edit
    path = tmp_path / "resealed.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CalibratorError) as refused:
        load_model(path)
    message = str(refused.value)
    assert "\n" not in message and field in message, message
    assert "FORGED" not in message and len(message) < 2000


def test_the_file_as_fitted_loads(claiming: FusionModel, tmp_path: Path) -> None:
    assert load_model(save_model(claiming, tmp_path / "mine.json")) == claiming
