"""The calibrated promise, checked per kind of data: never pooled."""

from __future__ import annotations

import numpy as np

from trustscore.fitting._claims import ECE_LIMIT, MIN_CLAIMS, check_claims, check_claims_by, noise_floor


def _domain(rng: np.random.Generator, n: int, rate: float, said: float) -> tuple[np.ndarray, np.ndarray]:
    """n rows, a share ``rate`` of them positive, all scored about ``said``."""
    return (rng.random(n) < rate).astype(float), said + rng.normal(0, 0.005, n)


def test_a_pooled_mixture_can_look_calibrated_while_each_domain_is_not() -> None:
    rng = np.random.default_rng(0)
    y1, p1 = _domain(rng, 400, 0.2, 0.5)
    y2, p2 = _domain(rng, 400, 0.8, 0.5)
    y, p = np.r_[y1, y2], np.r_[p1, p2]
    claimed = np.ones(y.size, dtype=bool)
    pooled = check_claims(y, p, claimed)
    assert pooled.holds and pooled.ece_claimed is not None and pooled.ece_claimed < ECE_LIMIT
    per = check_claims_by(y, p, claimed, ["a"] * 400 + ["b"] * 400)
    assert set(per) == {"a", "b"}
    assert not per["a"].holds and not per["b"].holds
    assert per["a"].ece_claimed is not None and per["a"].ece_claimed > 0.25


def test_only_the_rows_that_claim_are_held_to_the_promise() -> None:
    rng = np.random.default_rng(1)
    y_good, p_good = _domain(rng, 300, 0.3, 0.3)
    y_bad, p_bad = _domain(rng, 300, 0.9, 0.1)
    y, p = np.r_[y_good, y_bad], np.r_[p_good, p_bad]
    claimed = np.r_[np.ones(300, dtype=bool), np.zeros(300, dtype=bool)]
    check = check_claims(y, p, claimed)
    assert check.claimed == 300 and check.claimed_share == 0.5 and check.holds
    assert check.ece_all is not None and check.ece_all > ECE_LIMIT


def test_fewer_than_the_minimum_claiming_rows_cannot_break_the_promise() -> None:
    rng = np.random.default_rng(2)
    y, p = _domain(rng, 200, 0.9, 0.1)
    few = np.zeros(200, dtype=bool)
    few[: MIN_CLAIMS - 1] = True
    assert check_claims(y, p, few).holds
    few[:MIN_CLAIMS] = True
    assert not check_claims(y, p, few).holds
    none = check_claims(y, p, np.zeros(200, dtype=bool))
    assert none.holds and none.claimed == 0 and none.ece_claimed is None


def _with_ece(n: int, target: float) -> tuple[np.ndarray, np.ndarray]:
    """n rows whose ECE(10, equal mass) is exactly ``target``: each bin's labels are its share, the
    scores sit ``target`` above it."""
    per_bin = np.array_split(np.arange(n), 10)
    y = np.zeros(n)
    p = np.zeros(n)
    for k, idx in enumerate(per_bin):
        share = 0.15 + 0.07 * k
        ones = round(share * idx.size)
        y[idx[:ones]] = 1
        p[idx] = ones / idx.size + target + k * 1e-4
    return y, p


def test_the_verdict_reads_ece_against_the_noise_floor_at_that_many_rows() -> None:
    """ECE 0.107 on 151 claiming rows: a perfectly calibrated score shows more than that one time in
    ten, so nothing refutes the claim."""
    y, p = _with_ece(151, 0.107)
    check = check_claims(y, p, np.ones(151, dtype=bool))
    assert check.ece_claimed is not None and abs(check.ece_claimed - 0.107) < 1e-3
    assert check.verdict == "holds" and check.floor_p90 is not None and check.floor_p90 > 0.107
    y, p = _with_ece(151, 0.18)
    assert check_claims(y, p, np.ones(151, dtype=bool)).verdict == "broken"
    y, p = _with_ece(1000, 0.107)
    assert check_claims(y, p, np.ones(1000, dtype=bool)).verdict == "broken", "the floor is 0.047 at 1000"


def test_the_noise_floor_matches_a_direct_simulation_and_falls_with_n() -> None:
    from trustscore.stats._metrics import ece

    rng = np.random.default_rng(5)
    direct = []
    for _ in range(1000):
        p = rng.beta(2, 2, 100)
        direct.append(ece((rng.random(100) < p).astype(float), p, n_bins=10, strategy="mass").value)
    floor = noise_floor(100)
    assert abs(floor.median - np.median(direct)) < 0.006
    assert abs(floor.p90 - np.percentile(direct, 90)) < 0.008
    floors = [noise_floor(n).p90 for n in (50, 150, 1000, 5000, 20000)]
    assert floors == sorted(floors, reverse=True) and noise_floor(151) == noise_floor(151)


def test_the_published_noise_floor_table_is_the_function_s_output() -> None:
    """docs/calibration.md's table and eval's verdict come from one function."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "calibration.md").read_text(encoding="utf-8")
    header = next(line for line in text.splitlines() if line.startswith("| rows |"))
    row = next(line for line in text.splitlines() if line.startswith("| ECE of a perfect score |"))
    sizes = [int(c) for c in header.strip("|").split("|")[1:]]
    cells = [c.strip() for c in row.strip("|").split("|")[1:]]
    assert len(sizes) == len(cells) >= 5
    for n, cell in zip(sizes, cells, strict=True):
        floor = noise_floor(n)
        assert cell == f"{floor.median:.3f} / {floor.p90:.3f}", f"docs say {cell} at {n} rows"
