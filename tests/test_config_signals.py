"""Built-in local signals are configured like any other, as [signals.<name>]; the shared [grounding]
section they used to read still works, with a DeprecationWarning that names the new spelling."""

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


def test_the_grounding_section_still_works_with_a_deprecation_warning_naming_the_new_spelling(
    tmp_path: Path,
) -> None:
    toml = tmp_path / "t.toml"
    toml.write_text('[grounding]\nlexical = false\nembedding_model = "mini"\n', encoding="utf-8")
    with pytest.warns(DeprecationWarning, match=r"write \[signals\.lexical\] .* \[signals\.embedding\]"):
        config = Config.from_toml(toml)
    assert Scorer(config).signal_names == ["embedding", "claims"]
    assert config.signals.get("embedding").model == tmp_path / "mini"  # type: ignore[union-attr]
    both = r"keep \[signals\.lexical\]"
    with pytest.warns(DeprecationWarning), pytest.raises(ConfigError, match=both):
        Config.from_dict({"grounding": {"lexical": False}, "signals": {"lexical": {}}})
    bad = r"grounding\.batch_size"
    with pytest.warns(DeprecationWarning), pytest.raises(ConfigError, match=bad):
        Config.from_dict({"grounding": {"embedding_batch_size": 0}})


def test_every_built_in_local_signal_accepts_enabled_false() -> None:
    from trustscore.signals import registered_signals

    for name, spec in registered_signals("local").items():
        assert "enabled" in spec.config.model_fields, name
    config = Config.from_dict(
        {"signals": {"hhem": {"enabled": False}, "lettucedetect": {"enabled": False, "model": "m"}}}
    )
    assert config.signals.get("hhem").enabled is False  # type: ignore[union-attr]


def test_the_lexical_settings_lose_their_prefix_and_the_old_names_still_read() -> None:
    config = Config.from_dict({"signals": {"lexical": {"prior_weight": 0.5, "question_support": False}}})
    assert config.signals.get("lexical").prior_weight == 0.5  # type: ignore[union-attr]
    with pytest.warns(DeprecationWarning, match="lexical_prior_weight is deprecated: write prior_weight"):
        old = Config.from_dict({"signals": {"lexical": {"lexical_prior_weight": 0.5}}})
    assert old.signals.get("lexical").prior_weight == 0.5  # type: ignore[union-attr]
    with pytest.raises(ConfigError, match="give prior_weight only"):
        Config.from_dict({"signals": {"lexical": {"lexical_prior_weight": 0.5, "prior_weight": 0.5}}})


def test_the_white_box_signals_read_their_own_section() -> None:
    from trustscore.whitebox._familiarity_config import FamiliarityConfig
    from trustscore.whitebox._redeep_config import RedeepConfig

    with pytest.warns(DeprecationWarning):
        config = Config.from_dict(
            {"whitebox": {"model_path": "/m", "redeep": {"max_tokens": 64}, "familiarity": {"enabled": True}}}
        )
    redeep, familiarity = config.signals.get("redeep"), config.signals.get("familiarity")
    assert isinstance(redeep, RedeepConfig) and isinstance(familiarity, FamiliarityConfig)
    assert str(redeep.model_path) == "/m" and redeep.max_tokens == 64 and familiarity.enabled
    with pytest.warns(DeprecationWarning), pytest.raises(ConfigError, match=r"whitebox\.modelpath: unknown"):
        Config.from_dict({"whitebox": {"modelpath": "/m"}})


def test_the_embedding_settings_lose_their_prefix_and_the_old_names_still_read() -> None:
    with pytest.warns(DeprecationWarning) as caught:
        old = Config.from_dict(
            {"signals": {"embedding": {"embedding_batch_size": 8, "embedding_runtime": "onnx"}}}
        )
    assert sorted(str(w.message) for w in caught) == [
        "[signals.embedding] embedding_batch_size is deprecated: write batch_size",
        "[signals.embedding] embedding_runtime is deprecated: write runtime",
    ]
    embedding = old.signals.get("embedding")
    assert embedding.batch_size == 8 and embedding.runtime == "onnx"  # type: ignore[union-attr]
    with pytest.raises(ConfigError, match="give device only"):
        Config.from_dict({"signals": {"embedding": {"embedding_device": "cpu", "device": "cpu"}}})
    with pytest.raises(ConfigError, match=r"embedding\.batch_size"):
        Config.from_dict({"signals": {"embedding": {"batch_size": 0}}})


def test_settings_that_do_not_change_values_leave_the_embedding_version_alone() -> None:
    from trustscore.grounding._config import EmbeddingConfig
    from trustscore.grounding._embedding import EmbeddingGrounding

    def version(**settings: object) -> str:
        return EmbeddingGrounding(EmbeddingConfig.model_validate(settings)).version

    plain = version()
    assert version(batch_size=4, threads=1, device="auto") == plain
    assert version(runtime="onnx") == plain  # the default runtime is ONNX: the int8 model
    assert version(runtime="torch") != plain  # the fp32 model: a calibrator fitted on int8 must not apply
    assert version(aggregate="min") != plain
