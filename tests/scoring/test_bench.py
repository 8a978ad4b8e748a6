"""Smoke run of benchmarks/judges/bench_judges.py on a tiny workload (slow: it starts server processes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def test_bench_judges_smoke(tmp_path: Path) -> None:
    from benchmarks.judges import bench_judges

    out = tmp_path / "bench.json"
    args = [
        "--samples",
        "6",
        "--overhead-samples",
        "2",
        "--rounds",
        "1",
        "--cost-samples",
        "2",
        "--slots",
        "4",
        "--overhead-s",
        "0.01",
        "--out",
        str(out),
    ]
    assert bench_judges.main(args) == 0
    result = json.loads(out.read_text())
    assert result["overhead"]["server_problems"] == [0, []]
    assert result["throughput"]["scorer"]["missing_signals"] == 0
    cost = result["cost"]
    assert cost["n_sampling"]["requests_per_sample"] < cost["one_choice_per_request"]["requests_per_sample"]
