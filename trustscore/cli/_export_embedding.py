"""``trustscore export-embedding MODEL_DIR -o OUT_DIR``.

Exports a local sentence-transformers model folder to the ONNX format that the default embedding
runtime reads (no torch at scoring time): OUT_DIR gets model.onnx (the graph, opset 17, whose weights
point into model.safetensors), model.safetensors, the tokenizer and config files. Then set
``[signals.embedding] model = "OUT_DIR"``. Exporting needs the embed-torch extra (torch,
transformers, onnx); scoring with the result does not.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from trustscore.cli._help_text import plain

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = subparsers.add_parser(
        "export-embedding",
        help="export a sentence-transformers model to ONNX for the torch-free embedding signal",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("model", type=Path, help="local sentence-transformers model folder (model.safetensors)")
    p.add_argument("-o", "--output", type=Path, required=True, help="folder to write the ONNX model into")
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    from trustscore._errors import EmbedderError, UsageError
    from trustscore.textmodels._onnx_export import export_embedding

    try:
        graph = export_embedding(args.model, args.output)
    except EmbedderError as e:
        raise UsageError(str(e)) from e
    print(
        f'exported {args.model} to {graph.parent}: set [signals.embedding] model = "{graph.parent}"'
    )
    return 0
