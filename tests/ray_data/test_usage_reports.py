"""A Ray that ``score --ray`` starts itself reports no usage to its makers unless the environment asks;
a cluster joined with ``--address`` is left as it is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from trustscore.cli import main

USAGE_ENV = "RAY_USAGE_STATS_ENABLED"


@pytest.fixture(autouse=True)
def _environment_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the command sets in this process's environment is undone after each test."""
    for name in (USAGE_ENV, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)


def _score_a_missing_file(tmp_path: Path, *extra: str) -> int:
    """Runs ``score --ray`` to the input check, which fails whether Ray is installed or not: the
    settings for a Ray of its own are made before either."""
    return main(["score", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "out"), "--ray", *extra])


def test_a_ray_of_its_own_starts_with_usage_reports_off(tmp_path: Path) -> None:
    assert _score_a_missing_file(tmp_path) == 2
    assert os.environ[USAGE_ENV] == "0"


def test_the_users_setting_and_a_joined_cluster_are_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(USAGE_ENV, "1")
    assert _score_a_missing_file(tmp_path) == 2
    assert os.environ[USAGE_ENV] == "1"
    monkeypatch.delenv(USAGE_ENV)
    assert _score_a_missing_file(tmp_path, "--address", "auto") == 2
    assert USAGE_ENV not in os.environ
