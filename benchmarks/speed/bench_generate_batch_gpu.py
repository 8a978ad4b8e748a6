"""Batched vs one-at-a-time greedy generation at Llama-2-7B's shape on a GPU (torch + transformers only).

    python3 benchmarks/speed/bench_generate_batch_gpu.py [--batch 5,16] [--new-tokens 100] [--repeats 3]

What Self-Familiarity's batching changes, on the hardware it is for: N explanation prompts (about 60
tokens each, random ids) generated greedily for 100 tokens (no early stop), each alone vs all in one
left-padded ``generate`` (as ``LocalFamiliarityBackend._explain_batch`` builds it). A random Llama of
Llama-2-7B's shape (hidden 4096, 32 layers, 32 heads, intermediate 11008) with a 4,096-word vocabulary,
bf16. Random weights: the speed holds, the text means nothing. Needs no trustscore import (the GPU
machine has torch and transformers, not trustscore's other dependencies).
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--batch", default="5,16")
    p.add_argument("--new-tokens", type=int, default=100)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    config = LlamaConfig(
        hidden_size=4096,
        num_hidden_layers=32,
        num_attention_heads=32,
        num_key_value_heads=32,
        intermediate_size=11008,
        vocab_size=4096,
        max_position_embeddings=4096,
    )
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = LlamaForCausalLM(config).to(torch.bfloat16).eval()
    pad, eos = 0, None
    gen = torch.Generator().manual_seed(1)

    def generate(prompts: list[list[int]]) -> torch.Tensor:
        width = max(len(x) for x in prompts)
        ids = torch.tensor([[pad] * (width - len(x)) + x for x in prompts], device="cuda")
        mask = torch.tensor([[0] * (width - len(x)) + [1] * len(x) for x in prompts], device="cuda")
        with torch.inference_mode():
            out = model.generate(
                input_ids=ids,
                attention_mask=mask,
                max_new_tokens=args.new_tokens,
                min_new_tokens=args.new_tokens,
                do_sample=False,
                num_beams=1,
                pad_token_id=pad,
                eos_token_id=eos,
            )
        torch.cuda.synchronize()
        return out[:, width:]

    generate([[5, 6, 7]])  # warm up
    print(
        f"{torch.cuda.get_device_name()}, {sum(p.numel() for p in model.parameters()) / 1e9:.1f}B parameters"
    )
    for n in (int(b) for b in args.batch.split(",")):
        one: list[float] = []
        batched: list[float] = []
        agree = 0.0
        for _ in range(args.repeats):
            prompts = [
                torch.randint(
                    1, config.vocab_size, (int(torch.randint(50, 70, (1,), generator=gen)),), generator=gen
                ).tolist()
                for _ in range(n)
            ]
            started = time.perf_counter()
            alone = [generate([x])[0] for x in prompts]
            one.append(time.perf_counter() - started)
            started = time.perf_counter()
            together = generate(prompts)
            batched.append(time.perf_counter() - started)
            agree = statistics.mean(
                float((a == b).float().mean()) for a, b in zip(alone, together, strict=True)
            )
        ratio = [a / b for a, b in zip(one, batched, strict=True)]
        print(
            f"{n} explanations: one at a time {statistics.median(one):.2f} s, "
            f"batched {statistics.median(batched):.2f} s; "
            f"speed-up min/median/max {min(ratio):.2f} / {statistics.median(ratio):.2f} / {max(ratio):.2f}; "
            f"tokens equal to the one-at-a-time output (last repeat): {agree:.1%}; "
            f"peak GPU memory {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB"
        )


if __name__ == "__main__":
    main()
