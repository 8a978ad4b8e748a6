"""``trustscore train-detector DATA.jsonl -o DIR [--extra-train FILE] [--base MODEL]``.

Fine-tunes a LettuceDetect-style token classifier (every weight; --lora for an adapter) on labeled
spans, split by group, stopping early when a validation share of the training groups stops improving,
with progress on stderr, a resumable checkpoint in ``DIR/checkpoint`` and the detector in
``DIR/detector`` (with ``training_summary.json``). Prints the held-out report beside the lexical
signal on the same rows, and says plainly when the detector does not beat it. Run it again with the
same arguments to resume.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from trustscore.cli._help_text import plain
from trustscore.core._extras import install_extra

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "train-detector",
        help="fine-tune a hallucination token classifier on labeled spans",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("data", type=Path, nargs="+", help="JSONL rows with question, context, response, spans")
    p.add_argument(
        "-o", "--output", type=Path, required=True, help="directory for checkpoint, detector, report"
    )
    p.add_argument(
        "--extra-train",
        type=Path,
        action="append",
        default=[],
        help="JSONL rows always used for training, never held out (repeatable)",
    )
    p.add_argument(
        "--base", default=None, help="encoder checkpoint to fine-tune (default: the bundled all-MiniLM-L6-v2)"
    )
    p.add_argument(
        "--lora",
        action="store_true",
        help="train a LoRA adapter instead of every weight (then raise --learning-rate, e.g. 5e-4)",
    )
    p.add_argument(
        "--max-length", type=int, default=512, help="tokens per row: the context is cut to fit (default 512)"
    )
    p.add_argument(
        "--epochs", type=float, default=8.0, help="at most this many passes over the training rows (8)"
    )
    p.add_argument("--batch-size", type=int, default=8, help="rows per step (default 8)")
    p.add_argument("--learning-rate", type=float, default=3e-5, help="peak learning rate (default 3e-5)")
    p.add_argument("--lora-r", type=int, default=8, help="LoRA adapter rank (default 8)")
    p.add_argument("--heldout-fraction", type=float, default=0.5, help="share of groups held out")
    p.add_argument(
        "--validation-fraction",
        type=float,
        default=0.15,
        help="share of the training groups scored after each epoch, for early stopping (0: none)",
    )
    p.add_argument(
        "--patience", type=int, default=2, help="epochs without a better validation AUROC before stopping"
    )
    p.add_argument("--group", default="source_id", help="column whose rows stay on one side of the split")
    p.add_argument("--seed", type=int, default=0, help="seed of the split and the training (default 0)")
    p.add_argument("--checkpoint-every", type=int, default=50, help="steps between checkpoints")
    p.add_argument("--max-minutes", type=float, default=None, help="training time budget")
    p.add_argument(
        "--device", default="auto", help="torch device to train on (auto: cuda when present; cpu; cuda)"
    )
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from trustscore._errors import UsageError

    try:
        import torch

        from trustscore.fitting._detector import TrainOptions, train_detector
        from trustscore.fitting._detector_report import lexical_baseline
    except ImportError as e:
        raise UsageError(
            f"train-detector needs the training extra: {install_extra('train')} ({e})"
        ) from e
    if args.threads:
        torch.set_num_threads(args.threads)
    base = args.base
    if base is None:
        from trustscore.textmodels._embedder import bundled_model_path

        base = str(bundled_model_path())
    try:
        options = TrainOptions(
            base=base,
            max_length=args.max_length,
            lora=args.lora,
            lora_r=args.lora_r,
            lora_alpha=2 * args.lora_r,
            epochs=args.epochs,
            batch_size=args.batch_size,
            learning_rate=args.learning_rate,
            heldout_fraction=args.heldout_fraction,
            validation_fraction=args.validation_fraction,
            patience=args.patience,
            group=args.group,
            seed=args.seed,
            max_minutes=args.max_minutes,
            checkpoint_every=args.checkpoint_every,
            device=args.device,
        )
    except ValidationError as e:
        raise UsageError(f"train-detector: {e.errors()[0]['loc'][0]}: {e.errors()[0]['msg']}") from e
    for path in [*args.data, *args.extra_train]:
        if not path.is_file():
            raise UsageError(f"{path}: no such file")
    try:
        report = train_detector(
            args.data, args.output, options, extra_train=args.extra_train, baseline=lexical_baseline
        )
    except ValueError as e:
        raise UsageError(str(e)) from e
    shown = {k: report[k] for k in ("training", "heldout", "beats_baseline", "verdict")}
    print(json.dumps(shown, indent=1))
    print(f"train-detector: {report['verdict']}")
    return 0
