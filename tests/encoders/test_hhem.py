"""The HHEM signal on a tiny random T5 saved in HHEM-2.1-Open's layout, against a hand-computed reference."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("transformers")

from trustscore import Sample
from trustscore.encoders import HHEMConfig, HHEMSignal, build_hhem
from trustscore.encoders._hhem import PROMPT, premise_windows
from trustscore.testing._tiny_encoders import save_tiny_hhem

CONTEXT = ["The Eiffel Tower is in Paris, the capital of France.", "Marie Curie won two Nobel prizes."]
SAMPLE = Sample(question="Where is the Eiffel Tower?", context=CONTEXT, response="It is in Paris.")


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return save_tiny_hhem(tmp_path_factory.mktemp("hhem"), seed=1)


def _signal(dirs: tuple[Path, Path], **kw: object) -> HHEMSignal:
    foundation, hhem = dirs
    return HHEMSignal(HHEMConfig(model=str(hhem), foundation=str(foundation), local_files_only=True, **kw))


def _by_hand(dirs: tuple[Path, Path], premise: str, hypothesis: str) -> float:
    """HHEM's formula written out: T5 encoder -> first token -> linear head -> softmax -> class 1."""
    import torch
    from safetensors.torch import load_file
    from transformers import AutoTokenizer, T5Config, T5EncoderModel

    foundation, hhem = dirs
    tensors = load_file(str(hhem / "model.safetensors"))
    encoder = T5EncoderModel(T5Config.from_pretrained(foundation)).eval()
    encoder.load_state_dict(
        {k.removeprefix("t5.transformer."): v for k, v in tensors.items() if k.startswith("t5.transformer.")},
        strict=False,
    )
    tok = AutoTokenizer.from_pretrained(foundation)
    ids = tok(
        "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: "
        + premise
        + "\n\nHypothesis: "
        + hypothesis,
        return_tensors="pt",
    )
    assert ids["input_ids"][0, 0].item() == tok.pad_token_id  # the head reads the literal <pad>
    with torch.no_grad():
        first = encoder(**ids).last_hidden_state[0, 0]
        logits = first @ tensors["t5.classifier.weight"].T + tensors["t5.classifier.bias"]
    return float(torch.softmax(logits, dim=-1)[1])


def test_consistency_matches_the_formula_by_hand(dirs: tuple[Path, Path]) -> None:
    sig = _signal(dirs)
    premise = "\n\n".join(CONTEXT) + "\n" + SAMPLE.question
    assert sig.pairs(SAMPLE, sig.load().tokenizer) == [(premise, SAMPLE.response)]
    signal = sig.score_batch([SAMPLE])[0]
    assert signal.value == pytest.approx(_by_hand(dirs, premise, SAMPLE.response), abs=1e-5)
    assert signal.raw["weights"] == sig.load().fingerprint  # type: ignore[index]


def test_template_is_hhem_2_1_open() -> None:
    assert PROMPT.format(text1="P", text2="H") == (
        "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: P\n\nHypothesis: H"
    )


def test_premise_without_question_when_asked(dirs: tuple[Path, Path]) -> None:
    sig = _signal(dirs, question_in_premise=False)
    assert sig.pairs(SAMPLE, sig.load().tokenizer) == [("\n\n".join(CONTEXT), SAMPLE.response)]


def test_long_context_is_windowed_and_the_best_window_kept(dirs: tuple[Path, Path]) -> None:
    sig = _signal(dirs, max_premise_tokens=16, batch_size=3)
    tok = sig.load().tokenizer
    windows = premise_windows(tok, SAMPLE.context_text, 16)
    assert len(windows) > 2 and "".join(windows) == SAMPLE.context_text
    signal = sig.score_batch([SAMPLE])[0]
    by_hand = [_by_hand(dirs, w + "\n" + SAMPLE.question, SAMPLE.response) for w in windows]
    assert signal.raw["windows"] == pytest.approx(by_hand, abs=1e-5)  # type: ignore[index]
    assert signal.value == pytest.approx(max(by_hand), abs=1e-5)


def test_batched_samples_score_as_alone(dirs: tuple[Path, Path]) -> None:
    sig = _signal(dirs, batch_size=8)
    other = Sample(
        question="Who won two Nobel prizes?", context=CONTEXT * 3, response="Marie Curie did, twice."
    )
    empty = Sample(question="q", response="no context")
    together = sig.score_batch([SAMPLE, other, empty])
    assert together[0].value == pytest.approx(sig.score_batch([SAMPLE])[0].value, abs=1e-5)
    assert together[1].value == pytest.approx(sig.score_batch([other])[0].value, abs=1e-5)
    assert together[2].missing and "no context" in (together[2].error or "")


@pytest.mark.anyio
async def test_weights_that_do_not_fit_the_foundation_are_a_missing_signal(
    dirs: tuple[Path, Path], tmp_path: Path
) -> None:
    other_foundation, _ = save_tiny_hhem(tmp_path, d_model=48)
    bad = HHEMSignal(HHEMConfig(model=str(dirs[1]), foundation=str(other_foundation), local_files_only=True))
    signal = await bad.run(SAMPLE)
    assert signal.missing and "signals.hhem.foundation" in (signal.error or "")
    no_weights = HHEMSignal(HHEMConfig(model=str(tmp_path), foundation=str(dirs[0]), local_files_only=True))
    assert "model.safetensors" in ((await no_weights.run(SAMPLE)).error or "")
    ok = await build_hhem(HHEMConfig(model=str(dirs[1]), foundation=str(dirs[0]), local_files_only=True)).run(
        SAMPLE
    )
    assert not ok.missing and 0.0 <= (ok.value or 0) <= 1.0
