"""Loading a local Hugging Face causal LM and reaching into it, one layout per ``model_type``.

Everything here imports torch/transformers inside functions, so importing the module is cheap;
``import trustscore`` never imports it.

The teacher-forced input is ``prompt + response``: the prompt is the tokenizer's chat template
applied to (system, user = context + question) with the generation prompt opened, or, when the
tokenizer has no template, the plain layout documented in :func:`build_prompt`. The whole text is
tokenised once with character offsets, so every token is located exactly in the response and in
the context passages.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from anyio.lowlevel import RunVar

from trustscore._errors import WhiteboxLoadError, WhiteboxModelError
from trustscore._types import Sample
from trustscore.compute._deadline import check_in_every_leaf
from trustscore.compute._quiet_loading import quiet_model_loading
from trustscore.compute._torch_import import import_torch, loading_models
from trustscore.core._extras import install_extra
from trustscore.core._hashing import short_hash
from trustscore.whitebox._untrusted import neutral_sample, original_offset

if TYPE_CHECKING:
    import torch

__all__ = [
    "SUPPORTED_MODEL_TYPES",
    "EncodedSample",
    "LoadedModel",
    "ModelLayout",
    "build_prompt",
    "encode_sample",
    "load_model",
    "load_pretrained",
    "model_key",
    "model_limiter",
    "weights_fingerprint",
]


@dataclass(frozen=True)
class ModelLayout:
    """Where the parts ReDeEP reads live in one family of decoder-only models.

    Llama, Mistral and Qwen2 share one layout: ``pre-norm -> attention -> add -> pre-norm -> MLP -> add``
    with a final RMSNorm before the unembedding.
    """

    decoder: str = "model"
    layers: str = "layers"
    final_norm: str = "norm"
    embed: str = "embed_tokens"
    rotary: str = "rotary_emb"
    attention: str = "self_attn"
    input_norm: str = "input_layernorm"
    pre_ffn_norm: str = "post_attention_layernorm"
    lm_head: str = "lm_head"


_LLAMA_LAYOUT = ModelLayout()
_LAYOUTS: dict[str, ModelLayout] = {"llama": _LLAMA_LAYOUT, "mistral": _LLAMA_LAYOUT, "qwen2": _LLAMA_LAYOUT}
SUPPORTED_MODEL_TYPES = tuple(sorted(_LAYOUTS))


def layout_for(model_type: str) -> ModelLayout:
    try:
        return _LAYOUTS[model_type]
    except KeyError:
        raise WhiteboxModelError(
            f"model_type {model_type!r} is not supported by the white-box signals "
            f"(supported: {', '.join(SUPPORTED_MODEL_TYPES)}); use a model of a supported family"
        ) from None


@dataclass(eq=False)
class LoadedModel:
    """A causal LM, its tokenizer and typed access to its parts. Shared by every white-box signal."""

    model: Any
    tokenizer: Any
    layout: ModelLayout
    path: Path
    key: str
    """Identity of (path, device, dtype): the registry and limiter key."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    """Held for a whole hooked forward: hooks live on shared modules, so two passes must not overlap."""

    @property
    def config(self) -> Any:
        return self.model.config

    @property
    def decoder(self) -> Any:
        return getattr(self.model, self.layout.decoder)

    @property
    def layers(self) -> Any:
        return getattr(self.decoder, self.layout.layers)

    @property
    def final_norm(self) -> Any:
        return getattr(self.decoder, self.layout.final_norm)

    @property
    def embed(self) -> Any:
        return getattr(self.decoder, self.layout.embed)

    @property
    def rotary(self) -> Any:
        return getattr(self.decoder, self.layout.rotary)

    @property
    def lm_head(self) -> Any:
        return getattr(self.model, self.layout.lm_head)

    def attention(self, layer: int) -> Any:
        return getattr(self.layers[layer], self.layout.attention)

    def input_norm(self, layer: int) -> Any:
        return getattr(self.layers[layer], self.layout.input_norm)

    def pre_ffn_norm(self, layer: int) -> Any:
        return getattr(self.layers[layer], self.layout.pre_ffn_norm)

    @property
    def n_layers(self) -> int:
        return int(self.config.num_hidden_layers)

    @property
    def n_heads(self) -> int:
        return int(self.config.num_attention_heads)

    @property
    def n_kv_heads(self) -> int:
        return int(getattr(self.config, "num_key_value_heads", None) or self.n_heads)

    @property
    def head_dim(self) -> int:
        return int(getattr(self.config, "head_dim", None) or self.config.hidden_size // self.n_heads)

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def logit_lens(self, residual: torch.Tensor) -> torch.Tensor:
        """fp32 logits of a residual-stream state: final norm applied once, then the unembedding."""
        return self.lm_head(self.final_norm(residual)).float()


def model_key(path: str | Path, *, device: str = "cpu", dtype: str = "float32") -> str:
    """The identity of one loaded model in this process: (resolved path, device, dtype)."""
    return f"{Path(path).expanduser().resolve()}|{device}|{dtype}"


_registry: dict[str, LoadedModel] = {}
_registry_lock = threading.Lock()


def load_model(path: str | Path, *, device: str = "cpu", dtype: str = "float32") -> LoadedModel:
    """Load (once per process) the model and tokenizer saved in ``path``, offline, with SDPA attention.

    Blocking: call it from a worker thread in async code.
    """
    path = Path(path).expanduser().resolve()
    key = model_key(path, device=device, dtype=dtype)
    with _registry_lock:
        if key in _registry:
            return _registry[key]
        if not (path / "config.json").is_file():
            raise WhiteboxLoadError(
                f"model_path {path} has no config.json: "
                "point it at a saved Hugging Face model directory"
            )
        tokenizer, model = load_pretrained(path, device=device, dtype=dtype, attention="sdpa")
        check_in_every_leaf(model)  # the score budget reaches inside a forward pass
        layout = layout_for(str(model.config.model_type))
        loaded = LoadedModel(model=model, tokenizer=tokenizer, layout=layout, path=path, key=key)
        _registry[key] = loaded
        return loaded


def load_pretrained(path: Path, *, device: str, dtype: str, attention: str) -> tuple[Any, Any]:
    """(tokenizer, model in eval mode on ``device``) from a saved folder, loaded under
    :func:`~trustscore.compute._torch_import.loading_models`; any failure is a
    :class:`~trustscore._errors.WhiteboxLoadError` naming the folder (the cause chained). Blocking."""
    with loading_models():
        return _load_pretrained(path, device=device, dtype=dtype, attention=attention)


def _load_pretrained(path: Path, *, device: str, dtype: str, attention: str) -> tuple[Any, Any]:
    try:
        torch = import_torch()
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as e:
        raise WhiteboxLoadError(
            f"the white-box signals need torch and transformers: {install_extra('whitebox')} ({e})"
        ) from e
    torch_dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dtype]
    try:
        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        with quiet_model_loading():
            model = AutoModelForCausalLM.from_pretrained(
                path, local_files_only=True, dtype=torch_dtype, attn_implementation=attention
            )
        model = model.to(device).eval()  # type: ignore[arg-type]  # transformers types .to oddly
    except Exception as e:  # a corrupt file raises the reader's own errors (SafetensorError, ...)
        raise WhiteboxLoadError(f"cannot load the model in model_path {path}: {e}") from e
    if not getattr(tokenizer, "is_fast", False):
        raise WhiteboxLoadError(
            f"the tokenizer in {path} is not a fast tokenizer: ReDeEP needs character offsets "
            "(save a tokenizer.json next to the model)"
        )
    return tokenizer, model


_limiters: RunVar[dict[str, anyio.CapacityLimiter]] = RunVar("trustscore_whitebox_limiters")


def model_limiter(key: str) -> anyio.CapacityLimiter:
    """The one limiter (1 slot) guarding the model with this :func:`model_key` in the running event loop."""
    try:
        limiters = _limiters.get()
    except LookupError:
        limiters = {}
        _limiters.set(limiters)
    if key not in limiters:
        limiters[key] = anyio.CapacityLimiter(1)
    return limiters[key]


DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant."


def user_message(sample: Sample) -> str:
    """The user turn: the passages, then the question (the order RAGTruth prompts use)."""
    return f"Context:\n{sample.context_text}\n\nQuestion: {sample.question}"


def build_prompt(tokenizer: Any, sample: Sample, *, system_prompt: str = DEFAULT_SYSTEM_PROMPT) -> str:
    """The text before the response.

    With a chat template: ``apply_chat_template([system, user], add_generation_prompt=True)``.
    Without one, the plain layout (``{bos}`` is the tokenizer's BOS text, when it has one)::

        {bos}{system_prompt}\\n\\nContext:\\n{passages}\\n\\nQuestion: {question}\\n\\nAnswer:
    """
    if getattr(tokenizer, "chat_template", None):
        messages = [{"role": "user", "content": user_message(sample)}]
        if system_prompt:
            messages.insert(0, {"role": "system", "content": system_prompt})
        text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return str(text)
    bos = getattr(tokenizer, "bos_token", None) or ""
    head = f"{system_prompt}\n\n" if system_prompt else ""
    return f"{bos}{head}{user_message(sample)}\n\nAnswer: "


@dataclass(frozen=True)
class EncodedSample:
    """The token ids of ``prompt + response`` and where each part lies."""

    input_ids: list[int]
    prompt: str
    response_start: int
    """Index of the first response token (one straddling the prompt/response border counts as response)."""
    response_spans: list[tuple[int, int]]
    """Per response token, its ``[start, end)`` characters in ``Sample.response``."""
    context_token_mask: list[bool]
    """Per token, whether it overlaps a context passage's characters in the prompt."""
    passage_char_ranges: list[tuple[int, int]]
    """Each non-empty passage's ``[start, end)`` in ``prompt``."""
    token_char_ranges: list[tuple[int, int]]
    """Per token, its ``[start, end)`` in ``prompt + response`` (``(0, 0)`` for special tokens)."""

    @property
    def n_tokens(self) -> int:
        return len(self.input_ids)

    @property
    def n_response_tokens(self) -> int:
        return len(self.input_ids) - self.response_start


def encode_sample(
    tokenizer: Any, sample: Sample, *, system_prompt: str = DEFAULT_SYSTEM_PROMPT
) -> EncodedSample:
    # Sample text is data: its special-token strings must not become control tokens.
    safe = neutral_sample(tokenizer, sample)
    prompt = build_prompt(tokenizer, safe, system_prompt=system_prompt)
    text = prompt + safe.response
    # Both layouts write BOS as text, so the tokenizer must not add a second one.
    enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids: list[int] = list(enc["input_ids"])
    offsets: list[tuple[int, int]] = [(int(a), int(b)) for a, b in enc["offset_mapping"]]
    border = len(prompt)
    response_start = next((i for i, (_, end) in enumerate(offsets) if end > border), len(ids))
    if response_start == len(ids):
        raise WhiteboxModelError("the response produced no tokens after the prompt (is the response empty?)")
    response_spans = [(max(a - border, 0), max(b - border, 0)) for a, b in offsets[response_start:]]
    if safe.response != sample.response:  # spans point into the response as given
        back = original_offset(sample.response, safe.response)
        response_spans = [(back[a], back[b]) for a, b in response_spans]

    ranges: list[tuple[int, int]] = []
    cursor = 0
    for passage in safe.context:
        if not passage.strip():
            continue
        at = prompt.find(passage, cursor)
        if at < 0:
            raise WhiteboxModelError(
                "a context passage does not appear verbatim in the chat-templated prompt "
                "(the tokenizer's template rewrites it); use a template that keeps message text as is"
            )
        ranges.append((at, at + len(passage)))
        cursor = at + len(passage)
    mask = [
        i < response_start and b > a and any(a < r_end and b > r_start for r_start, r_end in ranges)
        for i, (a, b) in enumerate(offsets)
    ]
    return EncodedSample(
        input_ids=ids,
        prompt=prompt,
        response_start=response_start,
        response_spans=response_spans,
        context_token_mask=mask,
        passage_char_ranges=ranges,
        token_char_ranges=offsets,
    )


def weights_fingerprint(loaded: LoadedModel) -> str:
    """A cheap identity of the weights: config plus a strided sample of every tensor.

    Hashing every byte of an 8B model takes tens of seconds; a few thousand values per tensor
    tell two checkpoints of the same architecture apart just as well in practice.
    """
    import hashlib

    import torch

    h = hashlib.sha256(loaded.config.to_json_string(use_diff=False).encode())
    with torch.no_grad():
        for name, tensor in sorted(loaded.model.state_dict().items()):
            flat = tensor.detach().reshape(-1)
            step = max(1, flat.numel() // 4096)
            h.update(name.encode())
            h.update(str(tuple(tensor.shape)).encode())
            h.update(flat[::step].float().cpu().numpy().tobytes())
    return short_hash(h.hexdigest(), 16)
