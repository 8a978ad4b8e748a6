"""Both encoder signals run inside the Scorer like any local signal and feed the fused score."""

from __future__ import annotations

from pathlib import Path

import pytest

from trustscore import Config, Sample, Scorer
from trustscore.encoders import HHEMConfig, HHEMSignal, LettuceDetectConfig, LettuceDetectSignal
from trustscore.testing._tiny_encoders import save_tiny_hhem, save_tiny_lettucedetect

pytest.importorskip("transformers")
pytestmark = pytest.mark.anyio


async def test_encoder_signals_fuse_with_the_others(tmp_path: Path) -> None:
    lettuce = save_tiny_lettucedetect(tmp_path / "ld")
    foundation, hhem = save_tiny_hhem(tmp_path / "hhem")
    signals = [
        LettuceDetectSignal(LettuceDetectConfig(model=str(lettuce), local_files_only=True)),
        HHEMSignal(HHEMConfig(model=str(hhem), foundation=str(foundation), local_files_only=True)),
    ]
    sample = Sample(
        question="Where is the tower?", context=["The Eiffel Tower is in Paris."], response="It is in Paris."
    )
    async with Scorer(Config(), judges=[], local_signals=signals) as scorer:
        results = await scorer.score_many([sample, sample.model_copy(update={"context": []})])
    first, no_context = results
    assert set(first.used_signals) == {"lettucedetect", "hhem"}
    assert first.score is not None and 0.0 <= first.score <= 1.0
    assert set(no_context.missing) == {"lettucedetect", "hhem"}
    assert no_context.score is None


async def test_encoder_signals_are_configured_from_toml(tmp_path: Path) -> None:
    lettuce = save_tiny_lettucedetect(tmp_path / "ld")
    foundation, hhem = save_tiny_hhem(tmp_path / "hhem")
    toml = tmp_path / "trustscore.toml"
    toml.write_text(
        "[signals.lexical]\nenabled = false\n[signals.embedding]\nenabled = false\n"
        "[signals.claims]\nenabled = false\n"
        f"[signals.lettucedetect]\nmodel = {str(lettuce)!r}\nlocal_files_only = true\n"
        f"[signals.hhem]\nmodel = {str(hhem)!r}\nfoundation = {str(foundation)!r}\nlocal_files_only = true\n"
    )
    sample = Sample(question="Where?", context=["The Eiffel Tower is in Paris."], response="In Paris.")
    async with Scorer.from_config(toml) as scorer:
        result = await scorer.score(
            question=sample.question, context=sample.context, response=sample.response
        )
    assert set(result.used_signals) == {"lettucedetect", "hhem"}
    assert result.signals["lettucedetect"].version == LettuceDetectSignal(
        LettuceDetectConfig(model=str(lettuce), local_files_only=True)
    ).version


def test_a_misspelt_encoder_section_is_named_with_a_suggestion(tmp_path: Path) -> None:
    from trustscore import ConfigError

    toml = tmp_path / "trustscore.toml"
    toml.write_text("[signals.lettucedetct]\nmodel = 'x'\n")
    with pytest.raises(ConfigError, match="lettucedetect"):
        Scorer.from_config(toml)
