"""Tiny random causal LMs with a locally trained tokenizer, for offline tests of white-box code.

Nothing is downloaded: the tokenizer is a byte-level BPE trained on a few sentences with
``tokenizers`` and the model is a randomly initialised Llama / Qwen2 / Mistral config. The saved
directory loads with ``from_pretrained(path, local_files_only=True)`` like a real checkpoint.

    path = save_tiny_model(tmp_path / "llama", model_type="llama")
    loaded = load_model(path)          # trustscore.whitebox._model

It lives in the package (not under tests/) so users can test their own pipelines offline too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

__all__ = ["CHAT_TEMPLATE", "TINY_CORPUS", "TinyModelType", "build_tiny_tokenizer", "save_tiny_model"]

TinyModelType = Literal["llama", "qwen2", "mistral"]

CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)
"""A minimal chat template: BOS, then ``<|role|>`` headers; the generation prompt opens the assistant turn."""

TINY_CORPUS = [
    "The Eiffel Tower is in Paris, the capital of France.",
    "Marie Curie won two Nobel prizes, in physics and in chemistry.",
    "Context: the river flows north through the valley. Question: where does it flow? Answer: north.",
    "You are a helpful assistant. Answer the question from the passages.",
    "Water boils at 100 degrees Celsius at sea level; it freezes at 0 degrees.",
    "The quick brown fox jumps over the lazy dog 0123456789 times!",
]


def build_tiny_tokenizer(*, vocab_size: int = 400, chat_template: str | None = CHAT_TEMPLATE) -> Any:
    """A byte-level BPE ``PreTrainedTokenizerFast`` (covers any UTF-8 text, no UNK) with offsets."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<pad>", "<s>", "</s>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(TINY_CORPUS * 4, trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", bos_token="<s>", eos_token="</s>")
    if chat_template is not None:
        fast.chat_template = chat_template
    return fast


def save_tiny_model(
    path: str | Path,
    *,
    model_type: TinyModelType = "llama",
    hidden_size: int = 64,
    num_layers: int = 2,
    num_heads: int = 4,
    num_kv_heads: int = 2,
    intermediate_size: int = 128,
    max_positions: int = 512,
    tie_word_embeddings: bool = False,
    vocab_size: int | None = None,
    chat_template: str | None = CHAT_TEMPLATE,
    seed: int = 0,
) -> Path:
    """Build a random model + tokenizer and save both to ``path``; returns ``path``.

    ``vocab_size`` larger than the tokenizer's pads the embedding (e.g. 32000 to benchmark a
    Llama-2-sized unembedding); ids beyond the tokenizer are simply never produced.
    """
    import torch
    from transformers import AutoModelForCausalLM, LlamaConfig, MistralConfig, Qwen2Config

    tokenizer = build_tiny_tokenizer(chat_template=chat_template)
    config_class = {"llama": LlamaConfig, "qwen2": Qwen2Config, "mistral": MistralConfig}[model_type]
    config = config_class(
        vocab_size=max(vocab_size or 0, len(tokenizer)),
        hidden_size=hidden_size,
        intermediate_size=intermediate_size,
        num_hidden_layers=num_layers,
        num_attention_heads=num_heads,
        num_key_value_heads=num_kv_heads,
        max_position_embeddings=max_positions,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        tie_word_embeddings=tie_word_embeddings,
    )
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config)
    # RMSNorm gains start at exactly 1; perturb them so tests notice a norm applied twice or not at all.
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name.endswith("norm.weight"):
                param.uniform_(0.5, 1.5)
    out = Path(path)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out
