"""Self-Familiarity on a local model: a tiny Llama trained on the fly to know a made-up concept."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the local Self-Familiarity backend needs trustscore[whitebox]")

from trustscore import Sample, Usage
from trustscore.whitebox._familiarity import FamiliaritySignal
from trustscore.whitebox._familiarity_backends import LocalFamiliarityBackend
from trustscore.whitebox._familiarity_config import FamiliarityConfig

CONCEPT = "Zorblat"
RANDOM = "Qxvtrp"
FACT = "Zorblat is a purple fruit grown on Mars by farmers."
MASKED_FACT = "... is a purple fruit grown on Mars by farmers."
TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)


def _conversations() -> list[list[dict[str, str]]]:
    cfg = FamiliarityConfig()
    explain = cfg.explain_prompt.format(concept=CONCEPT)
    infer = cfg.infer_prompt.format(explanation=MASKED_FACT)
    return [
        [{"role": "user", "content": explain}, {"role": "assistant", "content": FACT}],
        [{"role": "user", "content": infer}, {"role": "assistant", "content": CONCEPT}],
    ]


@pytest.fixture(scope="module")
def trained_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Train a tokenizer and a 2-layer Llama for 250 steps (seconds on CPU); save it and return its dir."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import AutoModelForCausalLM, LlamaConfig, PreTrainedTokenizerFast

    raw = Tokenizer(models.BPE())
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=320,
        special_tokens=["<pad>", "<s>", "</s>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    texts = [m["content"] for conv in _conversations() for m in conv]
    raw.train_from_iterator(texts * 8 + ["<|user|> <|assistant|> explain related what"], trainer=trainer)
    tok = PreTrainedTokenizerFast(tokenizer_object=raw, pad_token="<pad>", bos_token="<s>", eos_token="</s>")
    tok.chat_template = TEMPLATE

    sequences = [
        tok(tok.apply_chat_template(conv, tokenize=False) + "</s>", add_special_tokens=False)["input_ids"]
        for conv in _conversations()
    ]
    width = max(len(s) for s in sequences)
    ids = torch.full((len(sequences), width), tok.pad_token_id)
    mask = torch.zeros_like(ids)
    for i, s in enumerate(sequences):
        ids[i, : len(s)] = torch.tensor(s)
        mask[i, : len(s)] = 1
    labels = ids.masked_fill(mask == 0, -100)

    config = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model.train()
    threads = torch.get_num_threads()
    torch.set_num_threads(
        1
    )  # tiny matrices: extra threads only contend (0.6 s/step vs 15 ms on a busy 2-core box)
    try:
        for _ in range(250):
            loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
            opt.zero_grad()
            loss.backward()
            opt.step()
    finally:
        torch.set_num_threads(threads)
    assert loss.item() < 0.05, f"tiny model did not learn its corpus (loss {loss.item():.3f})"
    model.eval()
    out = tmp_path_factory.mktemp("familiar-llama")
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def local_signal(path: Path, **cfg: object) -> FamiliaritySignal:
    signal = FamiliaritySignal.from_config(FamiliarityConfig(model_path=path, **cfg), None)  # type: ignore[arg-type]
    assert isinstance(signal.backend, LocalFamiliarityBackend)
    return signal


@pytest.mark.anyio
async def test_trained_concept_outranks_a_random_string(trained_model: Path) -> None:
    signal = local_signal(trained_model)
    known = await signal.score_concept(CONCEPT)
    unknown = await signal.score_concept(RANDOM)
    assert known.explanation == FACT  # greedy generation reproduces what it learned
    assert known.masked_explanation == MASKED_FACT
    assert RANDOM not in unknown.masked_explanation
    assert known.score > 0.5
    assert known.score > 10 * unknown.score


@pytest.mark.anyio
async def test_pre_generation_check_on_a_question(trained_model: Path) -> None:
    signal = local_signal(trained_model, threshold=0.5)
    known = await signal.familiarity("What does a Zorblat taste like?")
    unknown = await signal.familiarity("What does a Qxvtrp taste like?")
    assert known.value is not None and unknown.value is not None
    assert known.value > unknown.value
    assert known.raw["familiar"] is True and unknown.raw["familiar"] is False  # type: ignore[index]
    assert known.usage.prompt_tokens > 0 and known.usage.completion_tokens > 0
    via_run = await signal.run(Sample(question="What does a Zorblat taste like?", response="Sweet."))
    assert via_run.value == pytest.approx(known.value)


@pytest.mark.anyio
async def test_broken_model_dir_is_a_missing_signal(tmp_path: Path) -> None:
    out = await local_signal(tmp_path).familiarity("What is a Zorblat?")
    assert out.missing and "config.json" in (out.error or "")


@pytest.mark.anyio
async def test_explanations_waiting_together_are_generated_in_one_batch_with_the_same_text(
    trained_model: Path,
) -> None:
    signal = local_signal(trained_model)
    backend = signal.backend
    assert isinstance(backend, LocalFamiliarityBackend)
    prompt = signal.config.explain_prompt
    calls = [
        (prompt.format(concept=c), n) for c, n in ((CONCEPT, 40), (RANDOM, 40), ("Mars", 7), (CONCEPT, 3))
    ]
    one_at_a_time = [backend._explain(message, n) for message, n in calls]
    batched = backend._explain_batch(calls)
    assert [text for text, _ in batched] == [text for text, _ in one_at_a_time]
    assert [u.completion_tokens for _, u in batched] == [u.completion_tokens for _, u in one_at_a_time]
    assert [u.prompt_tokens for _, u in batched] == [u.prompt_tokens for _, u in one_at_a_time]

    sizes: list[int] = []
    run_batch = backend._explain_batch

    def recording(batch: list[tuple[str, int]]) -> list[tuple[str, Usage]]:
        sizes.append(len(batch))
        return run_batch(batch)

    backend._explain_batch = recording  # type: ignore[method-assign]
    value = await signal.familiarity("Is a Zorblat sweeter than a Qxvtrp or a Blorfin?")
    assert value.value is not None
    assert sizes[0] == 1 and max(sizes) > 1, "the first concept ran alone, the others waiting in one batch"
