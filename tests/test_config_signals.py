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
            {"signals": {"lexical": {"enabled": False}, "embedding": {"embedding_batch_size": 8}}}
        )
    assert Scorer(config).signal_names == ["embedding", "claims"]
    assert config.signals.get("embedding").embedding_batch_size == 8  # type: ignore[union-attr]
    assert Scorer(Config()).signal_names == ["lexical", "embedding", "claims"]


def test_the_grounding_section_still_works_with_a_deprecation_warning_naming_the_new_spelling(
    tmp_path: Path,
) -> None:
    toml = tmp_path / "t.toml"
    toml.write_text('[grounding]\nlexical = false\nembedding_model = "mini"\n', encoding="utf-8")
    with pytest.warns(DeprecationWarning, match=r"write \[signals\.lexical\] .* \[signals\.embedding\]"):
        config = Config.from_toml(toml)
    assert Scorer(config).signal_names == ["embedding", "claims"]
    assert config.signals.get("embedding").embedding_model == tmp_path / "mini"  # type: ignore[union-attr]
    both = r"keep \[signals\.lexical\]"
    with pytest.warns(DeprecationWarning), pytest.raises(ConfigError, match=both):
        Config.from_dict({"grounding": {"lexical": False}, "signals": {"lexical": {}}})
    bad = r"grounding\.embedding_batch_size"
    with pytest.warns(DeprecationWarning), pytest.raises(ConfigError, match=bad):
        Config.from_dict({"grounding": {"embedding_batch_size": 0}})
