"""Built-in local signals are configured like any other, as [signals.<name>]; the shared [grounding]
and [whitebox] sections and the prefixed setting names of older releases are refused, naming what to
write instead."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from trustscore import Config, ConfigError, Scorer


def test_grounding_signals_are_configured_as_signals_and_on_by_default() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new spelling warns about nothing
        config = Config.from_dict(
            {"signals": {"lexical": {"enabled": False}, "embedding": {"batch_size": 8}}}
        )
    assert Scorer(config).signal_names == ["embedding", "claims"]
    assert config.signals.get("embedding").batch_size == 8  # type: ignore[union-attr]
    assert Scorer(Config()).signal_names == ["lexical", "embedding", "claims"]


def test_the_removed_grounding_section_is_refused_naming_the_new_sections(tmp_path: Path) -> None:
    toml = tmp_path / "t.toml"
    toml.write_text('[grounding]\nlexical = false\nembedding_model = "mini"\n', encoding="utf-8")
    with pytest.raises(
        ConfigError, match=r"\[grounding\] was removed: write \[signals\.lexical\] .* \[signals\.embedding\]"
    ):
        Config.from_toml(toml)


def test_every_built_in_local_signal_accepts_enabled_false() -> None:
    from trustscore.signals import registered_signals

    for name, spec in registered_signals("local").items():
        assert "enabled" in spec.config.model_fields, name
    config = Config.from_dict(
        {"signals": {"hhem": {"enabled": False}, "lettucedetect": {"enabled": False, "model": "m"}}}
    )
    assert config.signals.get("hhem").enabled is False  # type: ignore[union-attr]


def test_the_lexical_settings_lost_their_prefix_and_the_old_names_are_refused() -> None:
    config = Config.from_dict({"signals": {"lexical": {"prior_weight": 0.5, "question_support": False}}})
    assert config.signals.get("lexical").prior_weight == 0.5  # type: ignore[union-attr]
    with pytest.raises(ConfigError, match="lexical_prior_weight is now prior_weight: rename the setting"):
        Config.from_dict({"signals": {"lexical": {"lexical_prior_weight": 0.5}}})


def test_the_white_box_signals_read_their_own_section_and_the_shared_one_is_refused() -> None:
    from trustscore.whitebox._familiarity_config import FamiliarityConfig
    from trustscore.whitebox._redeep_config import RedeepConfig

    config = Config.from_dict(
        {"signals": {"redeep": {"model_path": "/m", "max_tokens": 64}, "familiarity": {"enabled": True}}}
    )
    redeep, familiarity = config.signals.get("redeep"), config.signals.get("familiarity")
    assert isinstance(redeep, RedeepConfig) and isinstance(familiarity, FamiliarityConfig)
    assert str(redeep.model_path) == "/m" and redeep.max_tokens == 64 and familiarity.enabled
    with pytest.raises(ConfigError, match=r"\[whitebox\] was removed: write \[signals\.redeep\]"):
        Config.from_dict({"whitebox": {"model_path": "/m", "redeep": {"max_tokens": 64}}})


def test_the_embedding_settings_lost_their_prefix_and_the_old_names_are_refused() -> None:
    with pytest.raises(ConfigError) as caught:
        Config.from_dict({"signals": {"embedding": {"embedding_batch_size": 8, "embedding_runtime": "onnx"}}})
    assert "embedding_batch_size is now batch_size; embedding_runtime is now runtime" in str(caught.value)
    with pytest.raises(ConfigError, match=r"embedding\.batch_size"):
        Config.from_dict({"signals": {"embedding": {"batch_size": 0}}})


def test_settings_that_do_not_change_values_leave_the_embedding_version_alone() -> None:
    from trustscore.grounding import EmbeddingConfig, EmbeddingGrounding

    def version(**settings: object) -> str:
        return EmbeddingGrounding(EmbeddingConfig.model_validate(settings)).version

    plain = version()
    assert version(batch_size=4, threads=1, device="auto") == plain
    assert version(runtime="onnx") == plain  # the default runtime is ONNX: the int8 model
    assert version(runtime="torch") != plain  # the fp32 model: a calibrator fitted on int8 must not apply
    assert version(aggregate="min") != plain
