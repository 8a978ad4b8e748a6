"""docs/service.md's console-exporter recipe runs as written and prints the score's spans."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk")

DOC = Path(__file__).parents[2] / "docs" / "service.md"


def test_the_console_recipe_prints_the_score_span(tmp_path: Path) -> None:
    section = DOC.read_text().split("### On the console", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = subprocess.run(
        [sys.executable, "-c", code.group(1)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=True,
    ).stdout
    assert '"name": "trustscore.score"' in out and '"name": "signal lexical"' in out
    assert "gen_ai.evaluation.result" in out
