"""The LettuceDetect signal against the reference package, on a tiny random ModernBERT checkpoint."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

pytest.importorskip("transformers")

from trustscore import Sample
from trustscore.encoders import LettuceDetectConfig, LettuceDetectSignal, build_lettucedetect
from trustscore.encoders._lettucedetect import format_prompt, plan_windows
from trustscore.testing._tiny_encoders import save_tiny_lettucedetect

QUESTION = "Where is the Eiffel Tower and who won two Nobel prizes?"
PASSAGES = [
    "The Eiffel Tower is in Paris, the capital of France.",
    "Marie Curie won two Nobel prizes, in physics and in chemistry.",
    "Water boils at 100 degrees Celsius at sea level; it freezes at 0 degrees.",
]
ANSWER = "The tower is in Paris. Marie Curie won three Nobel prizes in 1920."


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_lettucedetect(tmp_path_factory.mktemp("lettuce") / "model", seed=3)


def _signal(checkpoint: Path, **kw: object) -> LettuceDetectSignal:
    return LettuceDetectSignal(LettuceDetectConfig(model=str(checkpoint), local_files_only=True, **kw))


def _reference(checkpoint: Path, max_length: int):  # type: ignore[no-untyped-def]
    ref = pytest.importorskip("lettucedetect.models.inference")
    return ref.HallucinationDetector(
        method="transformer", model_path=str(checkpoint), max_length=max_length, device="cpu"
    )


@pytest.mark.parametrize("max_length", [4096, 320], ids=["one-window", "passage-windows"])
def test_token_probabilities_and_spans_match_the_reference(checkpoint: Path, max_length: int) -> None:
    sig = _signal(checkpoint, max_length=max_length)
    sample = Sample(question=QUESTION, context=PASSAGES, response=ANSWER)
    ref = _reference(checkpoint, max_length)
    ref_tokens = ref.predict(PASSAGES, ANSWER, QUESTION, output_format="tokens")
    ref_spans = ref.predict(PASSAGES, ANSWER, QUESTION, output_format="spans")
    ours = sig.token_scores([sample])[0]
    groups = plan_windows(
        sig.load().tokenizer, PASSAGES, QUESTION, ANSWER, max_length=max_length, template="qa"
    )
    assert ours.windows == len(groups) == (1 if max_length == 4096 else len(groups))
    if max_length != 4096:
        assert ours.windows > 1, "the short window must force several passage groups"
    # The reference also lists the trailing [SEP] among answer tokens; we read the answer's own tokens.
    assert ref_tokens[-1]["token"] == "[SEP]"
    assert len(ours.probs) == len(ref_tokens) - 1
    assert ours.probs == pytest.approx([t["prob"] for t in ref_tokens[:-1]], abs=1e-5)
    assert ref_spans, "the random checkpoint must flag something for the span comparison to mean anything"
    signal = sig.score_batch([sample])[0]
    assert [(s.start, s.end, s.text) for s in signal.spans] == [
        (r["start"], r["end"], r["text"]) for r in ref_spans
    ]
    assert [s.score for s in signal.spans] == pytest.approx([r["confidence"] for r in ref_spans], abs=1e-5)
    for span in signal.spans:
        assert ANSWER[span.start : span.end] == span.text
    assert signal.value == pytest.approx(1 - max(ours.probs))
    assert signal.raw["windows"] == ours.windows  # type: ignore[index]


def test_prompt_is_the_reference_template(checkpoint: Path) -> None:
    utils = pytest.importorskip("lettucedetect.detectors.prompt_utils")
    assert format_prompt(PASSAGES, QUESTION, "qa") == utils.PromptUtils.format_context(
        PASSAGES, QUESTION, "en"
    )
    assert format_prompt(PASSAGES, QUESTION, "summary") == utils.PromptUtils.format_context(
        PASSAGES, None, "en"
    )


def test_a_passage_longer_than_a_window_is_cut_not_truncated(checkpoint: Path) -> None:
    sig = _signal(checkpoint, max_length=300)
    long_passage = " ".join(PASSAGES * 12)
    tok = sig.load().tokenizer
    groups = plan_windows(tok, [long_passage], QUESTION, ANSWER, max_length=300, template="qa")
    assert len(groups) > 1
    assert "".join(p for g in groups for p in g) == long_passage  # nothing dropped
    for g in groups:
        assert len(tok(format_prompt(g, QUESTION, "qa"), ANSWER)["input_ids"]) <= 300
    signal = sig.score_batch([Sample(question=QUESTION, context=[long_passage], response=ANSWER)])[0]
    assert signal.raw["windows"] == len(groups)  # type: ignore[index]
    assert signal.warnings == [f"context read in {len(groups)} windows"]


def test_samples_batched_together_score_as_alone(checkpoint: Path) -> None:
    sig = _signal(checkpoint, max_length=320, batch_size=16)
    samples = [
        Sample(question=QUESTION, context=PASSAGES, response=ANSWER),
        Sample(question="Where is the tower?", context=PASSAGES[:1], response="In Paris."),
        Sample(question="q", context=[], response="no context here"),
    ]
    together = sig.score_batch(samples)
    alone = [sig.score_batch([s])[0] for s in samples]
    assert [s.value for s in together[:2]] == pytest.approx([s.value for s in alone[:2]], abs=1e-5)
    assert together[2].missing and "no context" in (together[2].error or "")


@pytest.mark.anyio
async def test_run_reports_an_answer_too_long_for_the_window_as_missing(checkpoint: Path) -> None:
    sig = _signal(checkpoint, max_length=64)
    signal = await sig.run(Sample(question=QUESTION, context=PASSAGES, response=ANSWER * 3))
    assert signal.missing and "max_length" in (signal.error or "")
    ok = await build_lettucedetect(
        LettuceDetectConfig(model=str(checkpoint), local_files_only=True)
    ).score_many([Sample(question=QUESTION, context=PASSAGES, response=ANSWER)] * 2)
    assert all(not s.missing and s.version and s.version.startswith("lettucedetect/") for s in ok)


@pytest.mark.anyio
async def test_a_missing_checkpoint_is_a_missing_signal_naming_the_setting(tmp_path: Path) -> None:
    sig = _signal(tmp_path / "nowhere")
    signal = await sig.run(Sample(question=QUESTION, context=PASSAGES, response=ANSWER))
    assert signal.missing and "signals.lettucedetect.model" in (signal.error or "")


def test_cancellation_is_checked_between_windows(checkpoint: Path) -> None:
    sig = _signal(checkpoint, max_length=320, batch_size=1)
    calls = []

    def check() -> None:
        calls.append(1)
        if len(calls) == 2:
            raise anyio.get_cancelled_exc_class()()

    with pytest.raises(BaseException) as info:
        sig.token_scores([Sample(question=QUESTION, context=PASSAGES, response=ANSWER)], check)
    assert len(calls) == 2 and not isinstance(info.value, AssertionError)


def test_config_refuses_unknown_fields() -> None:
    with pytest.raises(ValueError, match="max_len"):
        LettuceDetectConfig(model="x", max_len=10)  # type: ignore[call-arg]
