"""The embedder's forward pass on torch and transformers (``runtime = "torch"``, the
``embed-torch`` extra): any local sentence-transformers folder, on CPU or a CUDA device, no export."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from trustscore._errors import EmbedderError
from trustscore.compute._deadline import check_in_every_leaf, checkpoint
from trustscore.compute._quiet_loading import quiet_model_loading
from trustscore.compute._torch_import import import_torch, loading_models
from trustscore.core._extras import install_extra
from trustscore.textmodels._batching import length_batches

if TYPE_CHECKING:
    import torch

__all__ = ["TorchEncoder"]


class TorchEncoder:
    """Tokenizes and runs the forward passes of a transformers encoder (on the embedder's lane thread)."""

    runtime = "torch"

    def __init__(
        self, path: Path, *, max_length: int, threads: int | None = None, device: str = "cpu"
    ) -> None:
        with loading_models():
            try:
                torch = import_torch()
                from transformers import AutoModel, AutoTokenizer
            except ImportError as e:
                raise EmbedderError(
                    f"runtime = 'torch' needs torch and transformers: {install_extra('embed-torch')} ({e})"
                ) from None
            if device == "auto":
                device = "cuda" if torch.cuda.is_available() else "cpu"
            if device.startswith("cuda") and not torch.cuda.is_available():
                raise EmbedderError(
                    f"device = {device!r}, but this torch sees no CUDA device: install a CUDA "
                    "build of torch (pytorch.org/get-started/locally) or set device = 'cpu'"
                )
            try:
                with quiet_model_loading():
                    self._tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
                    model = AutoModel.from_pretrained(str(path), local_files_only=True).eval()
                    self._model = model.to(device)
            except Exception as e:  # a corrupt file raises the reader's own errors (SafetensorError, ...)
                raise EmbedderError(f"cannot load the embedding model from {path}: {e}") from e
        self._torch = torch
        self._device = device
        self.max_length = max_length
        self.threads = threads
        check_in_every_leaf(self._model)  # the score budget reaches inside a forward pass
        self.dim: int = int(self._model.config.hidden_size)

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer(text, add_special_tokens=False)["input_ids"])

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        """Unit vectors of ``texts`` (none blank), in batches of similar token counts."""
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
                    out[batch] = _mean_pool_normalise(hidden, inputs["attention_mask"]).cpu().numpy()
            return out
        finally:
            if self.threads is not None:
                torch.set_num_threads(previous_threads)

    def _padded(self, rows: list[list[int]], width: int, column: str) -> torch.Tensor:
        """``rows`` of one tokenizer output column, right-padded to ``width`` as the tokenizer pads them."""
        tokenizer = self._tokenizer
        pads = {"input_ids": tokenizer.pad_token_id, "token_type_ids": tokenizer.pad_token_type_id}
        pad = int(pads.get(column) or 0)  # attention_mask pads with 0
        padded = [row + [pad] * (width - len(row)) for row in rows]
        return self._torch.tensor(padded, dtype=self._torch.long, device=self._device)


def _mean_pool_normalise(hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    weights = mask.unsqueeze(-1).to(hidden.dtype)
    pooled = (hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)
    normalised: torch.Tensor = pooled / pooled.norm(dim=1, keepdim=True).clamp(min=1e-12)
    return normalised
