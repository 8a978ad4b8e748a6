"""The signal registry: user judges and local signals registered by decorator, configured by name,
run and fused beside the built-ins; every misuse is a ConfigError naming the fix."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field
from scorer_fakes import GROUNDING_OFF, FakeLLM, FakeLocal, install_fake_grounding

from trustscore import (
    Config,
    ConfigError,
    JudgeConfig,
    Sample,
    Scorer,
    Signal,
    SignalContext,
    register_signal,
    registered_signals,
)
from trustscore.fusion._fuser import DefaultFuser
from trustscore.judges import build_judge
from trustscore.llm import ChatRequest
from trustscore.signals import ExampleAnswer, get_signal

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("signal_registry")]

Q, R, C = "Who wrote Dune?", "Frank Herbert wrote Dune.", ["Dune is by Frank Herbert."]
ENDPOINT = {"base_url": "http://127.0.0.1:9/v1", "model": "m"}


class EchoConfig(JudgeConfig):
    value: float = Field(default=0.3, ge=0.0, le=1.0, description="what the judge answers")


class EchoJudge:
    version, kind = "echo@1", "judge"

    def __init__(self, config: EchoConfig) -> None:
        self.name = "echo"
        self.config = config

    async def run(self, sample: Sample, llm: Any) -> Signal:
        out = await llm.generate(ChatRequest(prompt=sample.question))
        return Signal(name=self.name, value=self.config.value, raw=out.text, version=self.version)


class LengthConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    enabled: bool = True
    max_words: int = Field(default=10, ge=1)


class LengthSignal:
    name = "length"
    version = "length@1"

    def __init__(self, config: LengthConfig) -> None:
        self.config = config

    async def run(self, sample: Sample) -> Signal:
        words = len(sample.response.split())
        return Signal(name=self.name, value=min(1.0, self.config.max_words / words), version=self.version)


def register_echo() -> list[SignalContext]:
    contexts: list[SignalContext] = []

    @register_signal("echo", config=EchoConfig, kind="judge")
    def build_echo(config: EchoConfig, ctx: SignalContext) -> EchoJudge:
        contexts.append(ctx)
        return EchoJudge(config)

    return contexts


def register_length() -> None:
    @register_signal("length", config=LengthConfig, kind="local")
    def build_length(config: LengthConfig, ctx: SignalContext) -> LengthSignal:
        return LengthSignal(config)


async def test_a_registered_judge_is_configured_by_name_and_fused_with_the_built_ins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install_fake_grounding(monkeypatch)
    contexts = register_echo()
    config = Config.from_dict(
        {"endpoints": {"e": ENDPOINT}, "judges": {"echo": {"endpoint": "e", "value": 0.6}}}
    )
    assert isinstance(config.judges.get("echo"), EchoConfig)
    llm = FakeLLM()
    scorer = Scorer(config, llms={"e": llm})
    assert scorer.signal_names == ["echo", "lexical", "embedding"]
    assert contexts[0].llm("e") is llm and contexts[0].endpoint_names == ["e"]  # never the Config
    r = await scorer.score(question=Q, context=C, response=R)
    assert llm.calls == 1 and r.signals["echo"].raw == "PASS"
    assert r.signals["echo"].value == 0.6 and r.used_signals == ["echo", "lexical", "embedding"]
    assert r.score == pytest.approx(DefaultFuser().predict(r.signals).score)  # fused like the others


async def test_a_registered_local_signal_reads_its_own_section() -> None:
    register_length()
    config = Config.from_dict(
        {
            "signals": {
                "lexical": {"enabled": False},
                "embedding": {"enabled": False},
                "claims": {"enabled": False},
                "length": {"max_words": 2},
            }
        }
    )
    scorer = Scorer(config)
    assert scorer.signal_names == ["length"]
    r = await scorer.score(question=Q, response="one two three four")
    assert r.signals["length"].value == 0.5
    off = Config.from_dict(
        {
            "signals": {
                "lexical": {"enabled": False},
                "embedding": {"enabled": False},
                "claims": {"enabled": False},
                "length": {"enabled": False},
            }
        }
    )
    assert Scorer(off).signal_names == []


def test_a_section_is_validated_by_the_signals_own_model_and_located() -> None:
    register_length()
    with pytest.raises(
        ConfigError, match=r"signals\.length\.max_words: Input should be greater than or equal"
    ):
        Config.from_dict({"signals": {"length": {"max_words": 0}}})
    with pytest.raises(ConfigError, match=r"signals\.length\.colour: unknown setting") as e:
        Config.from_dict({"signals": {"length": {"colour": "red"}}})
    assert "docs/config.md" in str(e.value)


def test_an_unknown_name_lists_the_registered_ones_and_suggests_the_closest() -> None:
    with pytest.raises(
        ConfigError, match=r"unknown judge 'lynxx'; did you mean 'lynx'\? \(registered: likert, "
    ):
        Config.from_dict({"judges": {"lynxx": {"endpoint": "e"}}})
    with pytest.raises(ConfigError, match=r"unknown local signal 'lexicl'; did you mean 'lexical'\?"):
        Config.from_dict({"signals": {"lexicl": {}}})
    with pytest.raises(
        ConfigError, match=r"'lexical' is a local signal, configured under \[signals\.lexical\]"
    ):
        Config.from_dict({"judges": {"lexical": {"endpoint": "e"}}})
    with pytest.raises(ConfigError, match=r"'hhem' is a local signal, configured under \[signals\.hhem\]"):
        Config.from_dict({"judges": {"hhem": {"endpoint": "e"}}})
    with pytest.raises(ConfigError, match=r"unknown judge 'nope' \(registered"):
        build_judge("nope", {"endpoint": "e"})


def test_the_built_ins_register_like_any_other_signal() -> None:
    judges = registered_signals("judge")
    for name, spec in judges.items():
        assert spec.section == f"judges.{name}" and spec.origin == f"trustscore.judges._{name}"
    assert all(spec.weight == 1.0 and spec.example_answers for spec in judges.values())
    local = registered_signals("local")
    sections = {n: s.section for n, s in local.items() if s.origin.startswith("trustscore.")}
    assert (
        sections.items()
        >= {
            "lexical": "signals.lexical",
            "embedding": "signals.embedding",
            "redeep": "signals.redeep",
            "familiarity": "signals.familiarity",
        }.items()
    )
    assert "onnxruntime" in (get_signal("embedding").install_hint or "")
    weights = {n: s.weight for n, s in local.items() if s.origin.startswith("trustscore.")}
    assert weights == {
        "lexical": 0.25, "embedding": 0.25, "redeep": 0.5, "familiarity": 0.25,
        "lettucedetect": 0.5, "hhem": 0.5, "claims": 0.5,
    }  # fmt: skip


def test_registration_misuse_is_refused_with_the_fix() -> None:
    def factory(config: Any, ctx: SignalContext) -> None:
        return None

    with pytest.raises(ConfigError, match=r"already registered by trustscore\.judges\._lynx"):
        register_signal("lynx", config=EchoConfig, kind="judge")(factory)
    with pytest.raises(ConfigError, match=r"must extend trustscore\.JudgeConfig"):
        register_signal("mine", config=LengthConfig, kind="judge")
    with pytest.raises(ConfigError, match="kind must be 'judge' or 'local'"):
        register_signal("mine", config=LengthConfig, kind="remote")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="must be a Python identifier"):
        register_signal("my-signal", config=LengthConfig, kind="local")
    with pytest.raises(ConfigError, match="must be a pydantic model class"):
        register_signal("mine", config=dict, kind="local")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="weight must be a positive number"):
        register_signal("mine", config=LengthConfig, kind="local", weight=0.0)
    with pytest.raises(ConfigError, match=r"keyed by request kind, 'echo2' or 'echo2\.<step>', not 'lynx'"):
        answers = {"lynx": ExampleAnswer("x")}
        register_signal("echo2", config=EchoConfig, kind="judge", example_answers=answers)
    register_signal("mine", config=LengthConfig, kind="local")(factory)
    register_signal("mine", config=LengthConfig, kind="local")(factory)  # a module imported twice
    assert get_signal("mine").build is factory


async def test_signals_add_to_the_configured_ones_and_replacing_is_explicit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install_fake_grounding(monkeypatch)
    extra = FakeLocal("extra", lambda s: 0.2)
    added = Scorer(Config(), signals=[extra])
    assert added.signal_names == ["lexical", "embedding", "extra"]
    replaced = Scorer(Config(), local_signals=[extra])
    assert replaced.signal_names == ["extra"]
    judge = EchoJudge(EchoConfig(endpoint="e"))
    both = Scorer(Config(), signals=[judge, extra], local_signals=[], llms={"e": FakeLLM()})
    assert both.signal_names == ["echo", "extra"]
    r = await both.score(question=Q, response=R)
    assert r.signals["echo"].value == 0.3 and r.signals["extra"].value == 0.2
    with pytest.raises(
        ConfigError, match=r"share the name\(s\) \['lexical'\].*local_signals=\[\.\.\.\] to replace"
    ):
        Scorer(Config(), signals=[FakeLocal("lexical")])


def test_a_factory_that_fails_is_a_config_error_naming_its_section() -> None:
    @register_signal("fragile", config=LengthConfig, kind="local")
    def build(config: LengthConfig, ctx: SignalContext) -> LengthSignal:
        raise ValueError("model file is corrupt")

    config = Config.from_dict(
        {"signals": {**GROUNDING_OFF, "fragile": {}}}
    )
    with pytest.raises(ConfigError, match=r"signals\.fragile: model file is corrupt"):
        Scorer(config)


def test_a_factory_whose_imports_fail_makes_the_signal_missing_with_the_install_hint() -> None:
    @register_signal("needs_gpu", config=LengthConfig, kind="local", install_hint="pip install gpu-thing")
    def build(config: LengthConfig, ctx: SignalContext) -> LengthSignal:
        raise ImportError("No module named 'gpu_thing'")

    config = Config.from_dict(
        {"signals": {**GROUNDING_OFF, "needs_gpu": {}}}
    )
    scorer = Scorer(config)
    assert "No module named 'gpu_thing'" in scorer.unavailable["needs_gpu"]
    assert scorer.unavailable["needs_gpu"].endswith("install it with pip install gpu-thing")


def test_a_config_with_registered_sections_round_trips_through_json() -> None:
    register_length()
    config = Config.from_dict(
        {
            "endpoints": {"e": ENDPOINT},
            "judges": {"lynx": {"endpoint": "e", "max_tokens": 99}},
            "signals": {"length": {"max_words": 4}},
        }
    )
    data = config.model_dump(mode="json")
    assert data["judges"]["lynx"]["max_tokens"] == 99 and data["signals"]["length"]["max_words"] == 4
    again = Config.model_validate(data)
    assert again == config and isinstance(again.signals.get("length"), LengthConfig)
