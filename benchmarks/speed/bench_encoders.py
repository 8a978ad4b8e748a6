"""Throughput of the encoder signals on random models of the real shapes.

    .venv/bin/python -m benchmarks.speed.bench_encoders [--signal lettucedetect|hhem] [--size base|large]
        [--context-words 300 1200] [--samples 16] [--repeats 3] [--device cpu] [--threads 1]

* ``lettucedetect``: a random ModernBERT token classifier (base: hidden 768, 22 layers; large: hidden
  1024, 28 layers; vocabulary 50,368) behind :class:`LettuceDetectSignal`, 4,096-token windows.
* ``hhem``: a random T5 of FLAN-T5-base's shape (d_model 768, 12 layers, 12 heads, d_ff 2048,
  vocabulary 32,128) in HHEM's layout behind :class:`HHEMSignal`.

Tokenizers are small ones trained on the fly, so a "word" is several tokens; the token count of each
context is printed. Reported: samples per second (min/median/max over ``--repeats``) after one
warm-up batch.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

_MODERNBERT = {
    "base": {
        "hidden_size": 768,
        "intermediate_size": 1152,
        "num_hidden_layers": 22,
        "num_attention_heads": 12,
    },
    "large": {
        "hidden_size": 1024,
        "intermediate_size": 2624,
        "num_hidden_layers": 28,
        "num_attention_heads": 16,
    },
}


def _lettucedetect(tmp: Path, size: str, device: str):  # type: ignore[no-untyped-def]
    import torch
    from transformers import ModernBertConfig, ModernBertForTokenClassification

    from trustscore.encoders._lettucedetect import LettuceDetectConfig, LettuceDetectSignal
    from trustscore.testing._tiny_encoders import build_bert_style_tokenizer

    tok = build_bert_style_tokenizer()
    cfg = ModernBertConfig(
        vocab_size=50368,
        max_position_embeddings=8192,
        pad_token_id=tok.pad_token_id,
        cls_token_id=tok.cls_token_id,
        sep_token_id=tok.sep_token_id,
        num_labels=2,
        **_MODERNBERT[size],
    )
    torch.manual_seed(0)
    ModernBertForTokenClassification(cfg).save_pretrained(tmp / "m")
    tok.save_pretrained(tmp / "m")
    return LettuceDetectSignal(
        LettuceDetectConfig(model=str(tmp / "m"), local_files_only=True, device=device)
    ), tok


def _hhem(tmp: Path, device: str):  # type: ignore[no-untyped-def]
    import torch
    from safetensors.torch import save_file
    from transformers import T5Config, T5ForTokenClassification

    from trustscore.encoders._hhem import HHEMConfig, HHEMSignal
    from trustscore.testing._tiny_encoders import save_tiny_hhem

    foundation, hhem = save_tiny_hhem(tmp)
    config = T5Config.from_pretrained(foundation)
    config.update(
        {
            "vocab_size": 32128,
            "d_model": 768,
            "d_kv": 64,
            "d_ff": 2048,
            "num_layers": 12,
            "num_heads": 12,
            "num_labels": 2,
        }
    )
    config.save_pretrained(foundation)
    torch.manual_seed(0)
    model = T5ForTokenClassification(config)
    state = {
        f"t5.{k}": v.contiguous()
        for k, v in model.state_dict().items()
        if k != "transformer.encoder.embed_tokens.weight"
    }
    save_file(state, str(hhem / "model.safetensors"))
    signal = HHEMSignal(
        HHEMConfig(
            model=str(hhem),
            foundation=str(foundation),
            local_files_only=True,
            device=device,
            max_premise_tokens=8192,
        )
    )
    return signal, signal.load().tokenizer


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--signal", choices=["lettucedetect", "hhem"], default="lettucedetect")
    ap.add_argument("--size", choices=["base", "large"], default="base")
    ap.add_argument("--context-words", type=int, nargs="+", default=[300, 1200])
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()

    import torch

    from trustscore._types import Sample

    torch.set_num_threads(args.threads)
    words = (
        "The Eiffel Tower is in Paris and Marie Curie won two Nobel prizes in physics and chemistry . " * 400
    ).split()
    with tempfile.TemporaryDirectory() as tmp:
        if args.signal == "lettucedetect":
            signal, tok = _lettucedetect(Path(tmp), args.size, args.device)
            shape = f"ModernBERT-{args.size} shape"
        else:
            signal, tok = _hhem(Path(tmp), args.device)
            shape = "FLAN-T5-base shape"
        for n in args.context_words:
            samples = [
                Sample(
                    question="Where is the tower?",
                    context=[" ".join(words[k : k + n])],
                    response="The tower is in Paris, and Marie Curie won three Nobel prizes in 1920. " * 3,
                )
                for k in range(args.samples)
            ]
            signal.score_batch(samples[:2])
            rates = []
            for _ in range(args.repeats):
                if args.device != "cpu":
                    torch.cuda.synchronize()
                began = time.perf_counter()
                out = signal.score_batch(samples)
                if args.device != "cpu":
                    torch.cuda.synchronize()
                rates.append(len(samples) / (time.perf_counter() - began))
                assert not any(s.missing for s in out), out[0].error
            n_tok = len(tok(samples[0].context[0])["input_ids"])
            print(
                f"{args.signal} ({shape}, fp32, {args.device}, {args.threads} thread(s)) "
                f"context ~{n_tok} tokens: "
                f"samples/s min/median/max {min(rates):.2f}/{statistics.median(rates):.2f}/{max(rates):.2f}"
            )


if __name__ == "__main__":
    main()
