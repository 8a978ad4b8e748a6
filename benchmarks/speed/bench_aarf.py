"""AARF generation cost per token vs plain greedy ``model.generate`` on the same model and prompt.

    .venv/bin/python -m benchmarks.speed.bench_aarf [--hidden 768 --layers 12 --heads 12 --mlp 2048]
        [--prompt-tokens 512] [--new-tokens 32] [--repeats 3] [--device cpu] [--threads 1]

Model: a random Llama of the given shape (vocab 32000), saved once to a temporary directory and
loaded with eager attention (what AARF needs; plain ``generate`` runs on the same model). Prompt:
a RAG prompt whose context fills ``--prompt-tokens``. Modes, each ``--repeats`` times, side by side:

* ``generate``: ``model.generate(greedy, max_new_tokens)``;
* ``aarf-score``: AARF whose threshold is never passed: the cost of reading the ReDeEP features
  (32 heads or all, a third of the layers) and scoring every token;
* ``aarf-always``: every step passes the threshold: scoring plus the second, intervened pass.

Reported: seconds per generated token (min/median/max) and the median ratio to ``generate``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hidden", type=int, default=768)
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--mlp", type=int, default=2048)
    ap.add_argument("--prompt-tokens", type=int, default=512)
    ap.add_argument("--new-tokens", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()

    import torch

    from trustscore._types import Sample
    from trustscore.testing._tiny import save_tiny_model
    from trustscore.whitebox._model import build_prompt
    from trustscore.whitebox._profile import (
        LogisticCombination,
        ModelIdentity,
        RedeepProfile,
        TrainingSummary,
    )
    from trustscore.whitebox.aarf import AARFSettings, generate_with_aarf, load_for_aarf

    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        path = save_tiny_model(
            Path(tmp) / "m",
            hidden_size=args.hidden,
            num_layers=args.layers,
            num_heads=args.heads,
            num_kv_heads=args.heads,
            intermediate_size=args.mlp,
            max_positions=2 * args.prompt_tokens + args.new_tokens + 256,
            vocab_size=32000,
        )
        loaded = load_for_aarf(path, device=args.device, dtype=args.dtype)
        tok = loaded.tokenizer
        passage = "The river flows north through the valley and the Eiffel Tower is in Paris. "
        context = passage
        while len(tok(context)["input_ids"]) < args.prompt_tokens:
            context += passage
        sample = Sample(question="Where does the river flow?", context=[context], response="-")
        heads = [(layer, head) for head in range(args.heads) for layer in range(args.layers)][:32]
        layers = list(range(0, args.layers, 3))
        n = len(heads) + len(layers)
        profile = RedeepProfile(
            model=ModelIdentity.from_hf_config(loaded.config),
            level="token",
            pks_mode="jsd",
            heads=heads,
            layers=layers,
            combination=LogisticCombination(
                mean=[0.0] * n, scale=[1.0] * n, coef=[0.1] * n, intercept=0.0, l2=1.0
            ),
            training=TrainingSummary(n=1, positive_rate=0.5, data_sha256="0" * 64, split="benchmark"),
        )
        ids = tok(build_prompt(tok, sample), add_special_tokens=False, return_tensors="pt").input_ids.to(
            args.device
        )

        def plain() -> int:
            with torch.no_grad():
                out = loaded.model.generate(
                    ids, max_new_tokens=args.new_tokens, min_new_tokens=args.new_tokens, do_sample=False
                )
            return out.shape[1] - ids.shape[1]

        def aarf(threshold: float) -> int:
            settings = AARFSettings(threshold=threshold, max_new_tokens=args.new_tokens)
            return len(generate_with_aarf(loaded, sample, profile=profile, settings=settings).steps)

        modes = {"generate": plain, "aarf-score": lambda: aarf(2.0), "aarf-always": lambda: aarf(-1.0)}
        for fn in modes.values():  # warm-up
            fn()
        per_token: dict[str, list[float]] = {m: [] for m in modes}
        for _ in range(args.repeats):
            for name, fn in modes.items():
                if args.device != "cpu":
                    torch.cuda.synchronize()
                began = time.perf_counter()
                count = fn()
                if args.device != "cpu":
                    torch.cuda.synchronize()
                per_token[name].append((time.perf_counter() - began) / max(1, count))
        print(
            f"model: random llama hidden {args.hidden}, {args.layers} layers, {args.heads} heads, "
            f"{args.dtype} on {args.device}; prompt {ids.shape[1]} tokens, {args.new_tokens} new; "
            f"{len(heads)} heads, {len(layers)} layers read"
        )
        base = statistics.median(per_token["generate"])
        for name, times in per_token.items():
            print(
                f"{name:12s} ms/token min/median/max {1e3 * min(times):.2f}/"
                f"{1e3 * statistics.median(times):.2f}/{1e3 * max(times):.2f}  "
                f"median ratio to generate {statistics.median(times) / base:.2f}x"
            )


if __name__ == "__main__":
    main()
