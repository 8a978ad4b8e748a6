"""The embedder's forward pass on ONNX Runtime and tokenizers: no torch, no transformers.

An embedding model in this format is a folder with ``model.onnx`` (the transformer's graph, exported by
:mod:`trustscore.textmodels._onnx_export`: input ids, attention mask and token type ids in,
``last_hidden_state`` out), ``model.safetensors`` (its weights), ``tokenizer.json`` and, optionally,
``sentence_bert_config.json`` (the max length). The graph holds no weights: each of its initializers
points into ``model.safetensors`` (ONNX external data, offset and length), so the published weights file
is read as it is, verified by its sha256, and the graph is a few hundred kB. A graph may instead hold
its weights itself (the default int8 model, :func:`~trustscore.textmodels._embedder.bundled_int8_path`).

Mean pooling over the attention mask and L2 normalisation run in numpy, as the torch path runs them
in torch: the vectors agree to ~1e-7 (tests/grounding/test_onnx_parity.py).
"""

from __future__ import annotations

import mmap
import os
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from trustscore._errors import EmbedderError
from trustscore.compute._deadline import checkpoint
from trustscore.textmodels._batching import length_batches

__all__ = ["WEIGHTS_FILE", "OnnxEncoder", "onnx_providers"]

WEIGHTS_FILE = "model.safetensors"
"""The external-data file name every exported graph refers to."""


def import_onnxruntime() -> ModuleType:
    """onnxruntime, imported with its usage reporting to Microsoft off unless the process chose.

    From release 1.29, importing onnxruntime on Linux and macOS writes a device id and a queue of usage
    events into the user's cache folder (``Microsoft/DeveloperTools``) and sends the events to Microsoft;
    ``ORT_DISABLE_TELEMETRY=1`` in the environment before the import stops all of it
    (microsoft/onnxruntime#27379 and #29843). So that scoring writes no file but trustscore's own and
    sends nothing anywhere, this sets it where the environment does not (it stays set, so processes
    started later inherit it): ``ORT_DISABLE_TELEMETRY=0`` keeps onnxruntime's default. An onnxruntime
    the application imported before keeps the setting it started with.
    """
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import onnxruntime

    return onnxruntime


def onnx_providers(device: str) -> list[str]:
    """ONNX Runtime's execution providers for ``device`` ("cpu", "cuda", "cuda:N" or "auto").

    "auto" takes CUDA when the installed onnxruntime has it (the ``onnxruntime-gpu`` build), else CPU;
    "cuda" without it is an error that says how to get it.
    """
    ort = import_onnxruntime()
    available = ort.get_available_providers()
    has_cuda = "CUDAExecutionProvider" in available
    if device == "cpu" or (device == "auto" and not has_cuda):
        return ["CPUExecutionProvider"]
    if device == "auto" or device.startswith("cuda"):
        if not has_cuda:
            raise EmbedderError(
                f"[signals.embedding] device = {device!r}, but this onnxruntime has no CUDAExecutionProvider "
                f"(it has {', '.join(available)}): pip install onnxruntime-gpu in place of onnxruntime, "
                "or set runtime = 'torch' with a CUDA build of torch, or device = 'cpu'"
            )
        return ["CUDAExecutionProvider", "CPUExecutionProvider"]
    raise EmbedderError(
        f"[signals.embedding] device must be 'cpu', 'cuda', 'cuda:N' or 'auto', got {device!r}"
    )


class OnnxEncoder:
    """Tokenizes and runs the forward passes of one exported embedding model (used by
    :class:`~trustscore.textmodels._embedder.Embedder`, on its lane thread)."""

    runtime = "onnxruntime"

    def __init__(
        self,
        graph: Path,
        weights: Path | None,
        tokenizer: Path,
        *,
        max_length: int,
        threads: int | None = None,
        device: str = "cpu",
    ) -> None:
        try:
            ort = import_onnxruntime()
            from tokenizers import Tokenizer
        except ImportError as e:
            raise EmbedderError(
                f"the embedding model needs onnxruntime and tokenizers (trustscore's own dependencies): "
                f"reinstall trustscore ({e})"
            ) from None
        for file, what in ((graph, "model.onnx"), (tokenizer, "tokenizer.json")):
            if not file.is_file():
                raise EmbedderError(
                    f"{file} is missing: an ONNX embedding model folder needs {what} "
                    "(make one with: trustscore export-embedding MODEL_DIR -o OUT_DIR)"
                )
        options = ort.SessionOptions()
        options.log_severity_level = 3  # warnings about unused initializers are no user's business
        # Idle intra-op threads sleep instead of spinning, as torch's OpenMP threads do here
        # (trustscore/compute/_torch_import.py): on a loaded 2-core box 400 RAGTruth sentences took
        # 7.5-8.6 CPU s passive against 10-17 spinning, at the same or better wall time.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if threads is not None:
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
        if weights is not None:
            with weights.open("rb") as f:
                # Mapped, not read: the session copies what it needs; the pages stay in the page cache.
                self._weights = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            buffer = np.frombuffer(self._weights, dtype=np.uint8)
            options.add_external_initializers_from_files_in_memory([WEIGHTS_FILE], [buffer], [len(buffer)])
        try:
            self._session = ort.InferenceSession(
                graph.read_bytes() if weights is not None else str(graph),
                options,
                providers=onnx_providers(device),
            )
            self._tokenizer = Tokenizer.from_file(str(tokenizer))
        except EmbedderError:
            raise
        except Exception as e:  # onnxruntime's and tokenizers' own errors
            raise EmbedderError(f"cannot load the ONNX embedding model {graph}: {e}") from e
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length)
        self._counter: Any = None
        self._counter_lock = threading.Lock()
        self._inputs = [i.name for i in self._session.get_inputs()]
        self._pad_id = self._tokenizer.token_to_id("[PAD]") or 0
        self.dim = int(self._session.get_outputs()[0].shape[-1])
        self.providers: list[str] = self._session.get_providers()
        meta = self._session.get_modelmeta().custom_metadata_map
        self.weights_sha256: str | None = meta.get("weights_sha256")
        """The sha256 of the weights the graph was exported from (its offsets point into that file)."""

    def count_tokens(self, text: str) -> int:
        """Word pieces of ``text``, not truncated (a copy of the tokenizer without its truncation)."""
        with self._counter_lock:
            if self._counter is None:
                self._counter = type(self._tokenizer).from_str(self._tokenizer.to_str())
                self._counter.no_truncation()
            counter = self._counter
        return len(counter.encode(text, add_special_tokens=False).ids)

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        """Unit vectors of ``texts`` (none blank), in batches of similar token counts."""
        encodings = self._tokenizer.encode_batch(texts)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for batch in length_batches([len(encodings[i].ids) for i in range(len(texts))], batch_size):
            checkpoint()  # the score budget can stop a long encode between batches
            width = max(len(encodings[i].ids) for i in batch)
            ids = np.full((len(batch), width), self._pad_id, dtype=np.int64)
            types = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, i in enumerate(batch):
                e = encodings[i]
                ids[row, : len(e.ids)] = e.ids
                types[row, : len(e.ids)] = e.type_ids
                mask[row, : len(e.ids)] = 1
            feed: dict[str, Any] = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            hidden = self._session.run(None, {k: feed[k] for k in self._inputs})[0]
            out[batch] = mean_pool_normalise(hidden, mask)
        return out


def mean_pool_normalise(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean of the unmasked token states, scaled to unit length (sentence-transformers' pooling)."""
    weights = mask[..., None].astype(hidden.dtype)
    pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    result: np.ndarray = (pooled / norms).astype(np.float32)
    return result
