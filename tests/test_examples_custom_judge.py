"""examples/custom_judge.py: a user's judge, registered by decorator and configured from TOML, runs
through the fake vLLM server and is fused with a built-in signal."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from trustscore import registered_signals
from trustscore.fusion._fuser import DefaultFuser

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "custom_judge.py"


@pytest.mark.usefixtures("signal_registry")
def test_the_custom_judge_example_registers_runs_and_is_fused(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("custom_judge_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert registered_signals("judge")["yes_no"].config is module.YesNoConfig

    result = module.main()
    assert result.signals["yes_no"].usage.requests == 1  # one HTTP request to the fake server
    assert result.used_signals == ["yes_no", "lexical"]
    assert result.signals["yes_no"].value == pytest.approx(0.8, abs=1e-6)
    assert result.signals["yes_no"].raw == "yes"
    assert result.score == pytest.approx(DefaultFuser().predict(result.signals).score)
    assert "yes_no = 0.80" in capsys.readouterr().out
