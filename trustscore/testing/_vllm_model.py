"""A tiny random Llama that a real vLLM engine can serve, built here without any download.

The directory holds what ``vllm serve DIR`` reads: ``config.json`` (LlamaForCausalLM), random
``model.safetensors``, a byte-level BPE ``tokenizer.json`` trained on the fly on trustscore's own
prompt templates, and a ``tokenizer_config.json`` with a small Jinja chat template. It is written with
numpy, safetensors and tokenizers only (no transformers), so the files read the same under whichever
transformers version the engine's environment pins.

Shape: hidden 128, 2 heads of 64 (vLLM's CPU attention rejects head_dim 16), 1 KV head, 2 layers.
Weights and tokenizer are deterministic for a given seed, so the engine's outputs are repeatable.
"""

from __future__ import annotations

import json
from pathlib import Path

from trustscore.judges._templates import prompts_folder

__all__ = ["CHAT_TEMPLATE", "TinyModelSpec", "build_tiny_vllm_model"]

CHAT_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}"
    "{% if not loop.last or m['role'] != 'assistant' %}<|end|>\n{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)
"""Role-tagged turns. A last assistant turn is left open, which is what ``continue_final_message``
needs (vLLM then renders without a generation prompt and continues the text)."""

SPECIAL_TOKENS = ["<|bos|>", "<|end|>", "<|pad|>", "<|system|>", "<|user|>", "<|assistant|>"]


class TinyModelSpec:
    """The architecture of the tiny model (fixed: tests and CI rely on these numbers)."""

    hidden_size = 128
    num_heads = 2
    num_kv_heads = 1
    head_dim = 64
    num_layers = 2
    intermediate_size = 256
    vocab_size = 512
    """Small on purpose: verdict words (PASS, supported, contradict) split into several tokens, as
    they do in real tokenizers, so the multi-token paths of the parsers are exercised."""
    max_position_embeddings = 8192


def _corpus() -> list[str]:
    texts = [p.read_text(encoding="utf-8") for p in sorted(prompts_folder().iterdir(), key=lambda p: p.name)
             if p.name.endswith(".txt")]
    return texts


def _train_tokenizer(vocab_size: int) -> object:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_corpus(), trainer=trainer)
    return tok


def _weights(spec: type[TinyModelSpec], vocab: int, seed: int) -> dict[str, object]:
    import numpy as np

    rng = np.random.default_rng(seed)
    h, kv = spec.hidden_size, spec.num_kv_heads * spec.head_dim

    def w(rows: int, cols: int) -> object:
        return (rng.standard_normal((rows, cols)) * 0.02).astype(np.float32)

    out: dict[str, object] = {"model.embed_tokens.weight": w(vocab, h), "lm_head.weight": w(vocab, h)}
    for i in range(spec.num_layers):
        p = f"model.layers.{i}."
        out |= {
            p + "self_attn.q_proj.weight": w(spec.num_heads * spec.head_dim, h),
            p + "self_attn.k_proj.weight": w(kv, h),
            p + "self_attn.v_proj.weight": w(kv, h),
            p + "self_attn.o_proj.weight": w(h, spec.num_heads * spec.head_dim),
            p + "mlp.gate_proj.weight": w(spec.intermediate_size, h),
            p + "mlp.up_proj.weight": w(spec.intermediate_size, h),
            p + "mlp.down_proj.weight": w(h, spec.intermediate_size),
            p + "input_layernorm.weight": np.ones(h, dtype=np.float32),
            p + "post_attention_layernorm.weight": np.ones(h, dtype=np.float32),
        }
    out["model.norm.weight"] = np.ones(h, dtype=np.float32)
    return out


def build_tiny_vllm_model(directory: str | Path, *, seed: int = 0) -> Path:
    """Write the tiny model into ``directory`` (created; reused as is when already complete)."""
    from safetensors.numpy import save_file

    root = Path(directory)
    done = root / ".complete"
    if done.exists():
        return root
    root.mkdir(parents=True, exist_ok=True)
    spec = TinyModelSpec
    tok = _train_tokenizer(spec.vocab_size)
    tok.save(str(root / "tokenizer.json"))  # type: ignore[attr-defined]
    vocab = tok.get_vocab_size()  # type: ignore[attr-defined]
    ids = {t: tok.token_to_id(t) for t in SPECIAL_TOKENS}  # type: ignore[attr-defined]
    config = {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": spec.hidden_size,
        "intermediate_size": spec.intermediate_size,
        "num_attention_heads": spec.num_heads,
        "num_key_value_heads": spec.num_kv_heads,
        "head_dim": spec.head_dim,
        "num_hidden_layers": spec.num_layers,
        "vocab_size": vocab,
        "max_position_embeddings": spec.max_position_embeddings,
        "rms_norm_eps": 1e-5,
        "rope_theta": 10000.0,
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "bos_token_id": ids["<|bos|>"],
        "eos_token_id": ids["<|end|>"],
        "pad_token_id": ids["<|pad|>"],
        "torch_dtype": "float32",
    }
    (root / "config.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    (root / "generation_config.json").write_text(
        json.dumps({"bos_token_id": ids["<|bos|>"], "eos_token_id": ids["<|end|>"]}), encoding="utf-8"
    )
    tok_config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": "<|bos|>",
        "eos_token": "<|end|>",
        "pad_token": "<|pad|>",
        "add_bos_token": False,
        "model_max_length": spec.max_position_embeddings,
        "chat_template": CHAT_TEMPLATE,
    }
    (root / "tokenizer_config.json").write_text(json.dumps(tok_config, indent=1), encoding="utf-8")
    (root / "special_tokens_map.json").write_text(
        json.dumps({"bos_token": "<|bos|>", "eos_token": "<|end|>", "pad_token": "<|pad|>"}), encoding="utf-8"
    )
    save_file(_weights(spec, vocab, seed), str(root / "model.safetensors"),  # type: ignore[arg-type]
              metadata={"format": "pt"})
    done.write_text("ok", encoding="utf-8")
    return root
