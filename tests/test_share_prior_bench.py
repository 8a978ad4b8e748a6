"""benchmarks.quality.share_prior: the share at each prior is worked out from lexical support's raw counts,
and each prior's features are the shipped claims form's with that share in place of the shrunk one."""

from __future__ import annotations

import pytest

import benchmarks.quality.share_prior as bench
from trustscore.fitting._shipped import SHRUNK_SHARE
from trustscore.grounding._lexical import SHARE_PRIOR_WORDS
from trustscore.rows._scored import rows_from_dicts


def test_the_share_at_each_prior_is_the_unsupported_count_over_the_checked_words_and_the_prior() -> None:
    counts = {"numbers": 1, "numbers_unsupported": 1, "names": 2, "names_unsupported": 0}
    raw = {**counts, "words": 2, "words_unsupported": 1, "unsupported_share": 0.4}
    rows = rows_from_dicts(
        [
            {"id": "a", "score": None, "signals": {"lexical": {"value": 0.7, "raw": raw}}},
            {"id": "b", "score": None, "signals": {"lexical": {"value": None, "error": "no context"}}},
        ]
    )
    shared, missing = (bench.with_priors(r).signals["share_prior"] for r in rows)
    assert shared.raw == {f"k{k}": 2 / (5 + k) for k in bench.PRIORS if k}
    assert missing.value is None


def test_each_prior_swaps_the_shipped_share_and_the_shipped_prior_is_among_them() -> None:
    assert SHARE_PRIOR_WORDS in bench.PRIORS and 0 in bench.PRIORS
    assert "lexical:raw.unsupported_share|identity" in bench.features_for(0)
    shipped = bench.features_for(SHARE_PRIOR_WORDS)
    assert SHRUNK_SHARE not in shipped and f"share_prior:raw.k{SHARE_PRIOR_WORDS}|identity" in shipped
    assert len(shipped) == len(bench.forms.SHIPPED)


def test_a_row_without_the_counts_is_refused_not_read_as_zero() -> None:
    row = rows_from_dicts([{"id": "old", "score": None, "signals": {"lexical": {"value": 0.7, "raw": {}}}}])
    with pytest.raises(ValueError, match=r"row old: lexical raw\.numbers is None"):
        bench.with_priors(row[0])
