"""docs/service.md's console-exporter recipe runs as written and prints the score's spans."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk")

DOC = Path(__file__).parents[2] / "docs" / "service.md"


def test_the_console_recipe_prints_the_score_span() -> None:
    section = DOC.read_text().split("### On the console", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    out = subprocess.run(
        [sys.executable, "-c", code.group(1)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    ).stdout
    assert '"name": "trustscore.score"' in out and '"name": "signal lexical"' in out
    assert "gen_ai.evaluation.result" in out
