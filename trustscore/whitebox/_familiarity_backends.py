"""Where Self-Familiarity's model runs: the local model (transformers, in a worker thread behind the
model's one limiter, explanations batched) or a served model through the
:class:`~trustscore.llm._protocol.LLM` protocol (chat for the explanation, completions with
``prompt_logprobs`` for teacher forcing, as vLLM offers). The signal is
:mod:`trustscore.whitebox._familiarity`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

import anyio

from trustscore._types import Usage
from trustscore.core._hashing import short_hash
from trustscore.llm._protocol import LLM, ChatRequest, Message
from trustscore.llm._special_tokens import neutralise
from trustscore.whitebox._batching import MicroBatcher, loop_batcher
from trustscore.whitebox._untrusted import neutral_text

__all__ = ["EXPLAIN_BATCH", "FamiliarityBackend", "LocalFamiliarityBackend", "RemoteFamiliarityBackend"]


EXPLAIN_BATCH = 16
"""Most explanations generated in one batch."""


class FamiliarityBackend(Protocol):
    """Where the model runs: explanation by greedy generation, concept log-probs by teacher forcing."""

    identity: str

    async def explain(self, message: str, max_tokens: int) -> tuple[str, Usage]: ...

    async def continuation_logprobs(
        self, message: str, continuations: Sequence[str]
    ) -> tuple[list[list[float]], Usage]:
        """Per continuation, the log-probability of each of its tokens answering ``message``."""
        ...


class LocalFamiliarityBackend:
    """The local model (``model_path``), shared with the other white-box signals."""

    def __init__(
        self,
        model_path: str | Path,
        *,
        device: str = "cpu",
        dtype: Literal["float32", "bfloat16", "float16"] = "float32",
    ) -> None:
        from trustscore.whitebox._model import model_key

        self.model_path = Path(model_path)
        self.device = device
        self.dtype = dtype
        self._key = model_key(self.model_path, device=device, dtype=dtype)
        self.identity = f"local:{self.model_path.name}|{dtype}"

    async def explain(self, message: str, max_tokens: int) -> tuple[str, Usage]:
        """Greedy explanation; calls that wait for the model together are generated as one batch
        (the concepts of a question, and of the samples in flight)."""
        return await self._explainer().submit((message, max_tokens))

    def _explainer(self) -> MicroBatcher[tuple[str, int], tuple[str, Usage]]:
        from trustscore.whitebox._model import model_limiter

        key = self._key
        return loop_batcher(self, "explain", self._explain_batch, lambda: model_limiter(key), EXPLAIN_BATCH)

    async def continuation_logprobs(
        self, message: str, continuations: Sequence[str]
    ) -> tuple[list[list[float]], Usage]:
        return await self._in_worker(self._logprobs, message, list(continuations))

    async def _in_worker(self, fn: Any, *args: Any) -> Any:
        from trustscore.whitebox._model import model_limiter

        return await anyio.to_thread.run_sync(fn, *args, limiter=model_limiter(self._key))

    def _loaded(self) -> Any:
        from trustscore.whitebox._model import load_model

        return load_model(self.model_path, device=self.device, dtype=self.dtype)

    @staticmethod
    def _prompt(tokenizer: Any, message: str) -> tuple[str, bool, str]:
        """(prompt text, add special tokens, separator before the answer). The message holds sample
        text: its special-token strings are neutralised, never read as control tokens."""
        message = neutral_text(tokenizer, message)
        if getattr(tokenizer, "chat_template", None):
            text = tokenizer.apply_chat_template(
                [{"role": "user", "content": message}], tokenize=False, add_generation_prompt=True
            )
            return str(text), False, ""
        return f"USER: {message}\nASSISTANT:", True, " "

    def _explain(self, message: str, max_tokens: int) -> tuple[str, Usage]:
        import torch

        started = time.perf_counter()
        loaded = self._loaded()
        tok = loaded.tokenizer
        prompt, special, _ = self._prompt(tok, message)
        ids = tok(prompt, add_special_tokens=special, return_tensors="pt")["input_ids"].to(loaded.device)
        pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
        with loaded.lock, torch.inference_mode():
            out = loaded.model.generate(
                input_ids=ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=max_tokens,
                do_sample=False,
                num_beams=1,
                pad_token_id=pad,
                eos_token_id=tok.eos_token_id,
            )
        new = out[0, ids.shape[1] :]
        text = tok.decode(new, skip_special_tokens=True).strip()
        return text, Usage(
            prompt_tokens=int(ids.shape[1]),
            completion_tokens=int(new.shape[0]),
            seconds=time.perf_counter() - started,
        )

    def _explain_batch(self, calls: list[tuple[str, int]]) -> list[tuple[str, Usage]]:
        """Greedy explanations of several messages in one ``generate``: prompts left-padded, each
        output cut at its own ``max_tokens`` and first end-of-sequence token. The texts equal
        :meth:`_explain`'s up to float rounding of the padded batch (docs/whitebox.md)."""
        import torch

        if len(calls) == 1:
            return [self._explain(*calls[0])]
        started = time.perf_counter()
        loaded = self._loaded()
        tok = loaded.tokenizer
        prompts = []
        for message, _ in calls:
            prompt, special, _ = self._prompt(tok, message)
            prompts.append(list(tok(prompt, add_special_tokens=special)["input_ids"]))
        width = max(len(p) for p in prompts)
        pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
        ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts], device=loaded.device)
        mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts], device=loaded.device)
        with loaded.lock, torch.inference_mode():
            out = loaded.model.generate(
                input_ids=ids,
                attention_mask=mask,
                max_new_tokens=max(limit for _, limit in calls),
                do_sample=False,
                num_beams=1,
                pad_token_id=pad,
                eos_token_id=tok.eos_token_id,
            )
        share = (time.perf_counter() - started) / len(calls)
        results = []
        for row, (prompt_ids, (_, limit)) in enumerate(zip(prompts, calls, strict=True)):
            new = out[row, width:].tolist()[:limit]
            if tok.eos_token_id in new:
                new = new[: new.index(tok.eos_token_id) + 1]
            text = tok.decode(new, skip_special_tokens=True).strip()
            results.append(
                (text, Usage(prompt_tokens=len(prompt_ids), completion_tokens=len(new), seconds=share))
            )
        return results

    def _logprobs(self, message: str, continuations: list[str]) -> tuple[list[list[float]], Usage]:
        import torch

        started = time.perf_counter()
        loaded = self._loaded()
        tok = loaded.tokenizer
        prompt, special, sep = self._prompt(tok, message)
        out: list[list[float]] = []
        n_tokens = 0
        for cont in (neutral_text(tok, c) for c in continuations):
            enc = tok(prompt + sep + cont, add_special_tokens=special, return_offsets_mapping=True)
            ids: list[int] = list(enc["input_ids"])
            start = next(
                (i for i, (_, end) in enumerate(enc["offset_mapping"]) if end > len(prompt)), len(ids)
            )
            if start == len(ids) or start == 0:
                raise ValueError(f"the continuation {cont!r} produced no tokens to score")
            n_tokens += len(ids)
            x = torch.tensor([ids], device=loaded.device)
            with loaded.lock, torch.inference_mode():
                logits = loaded.model(input_ids=x).logits[0].float()
            logp = torch.log_softmax(logits[start - 1 : -1], dim=-1)
            target = x[0, start:]
            out.append(logp.gather(1, target[:, None])[:, 0].tolist())
        return out, Usage(prompt_tokens=n_tokens, seconds=time.perf_counter() - started)


_BYTE_LEVEL_SPACE = str.maketrans({"Ġ": " ", "▁": " ", "Ċ": "\n"})


class RemoteFamiliarityBackend:
    """A served model through the LLM protocol; teacher forcing by ``prompt_logprobs`` (vLLM)."""

    def __init__(self, llm: LLM, *, template: str | None = None) -> None:
        self.llm = llm
        self.template = template
        self.identity = f"remote:{llm.model}"
        self._tag = f"familiarity@{short_hash(template or 'chat-template')}"

    async def explain(self, message: str, max_tokens: int) -> tuple[str, Usage]:
        result = await self.llm.generate(
            ChatRequest(
                messages=[Message(role="user", content=message)],
                temperature=0.0,
                max_tokens=max_tokens,
                tag=self._tag + ":explain",
            )
        )
        return result.text.strip(), result.usage

    async def continuation_logprobs(
        self, message: str, continuations: Sequence[str]
    ) -> tuple[list[list[float]], Usage]:
        out: list[list[float]] = []
        usage = Usage()
        for cont in continuations:
            result = await self.llm.generate(self._teacher_forcing(message, cont))
            usage = usage + result.usage
            out.append(_suffix_logprobs(result.prompt_logprobs, result.prompt_token_strs, cont))
        return out, usage

    def _teacher_forcing(self, message: str, continuation: str) -> ChatRequest:
        """The continuation as the model's own answer to ``message``, its prompt tokens scored.

        Without a ``template`` the server renders the model's chat template (the same one the
        explanation request went through), with the continuation as the open assistant turn;
        a ``template`` is a hand-written turn format for a model served without one.
        """
        if self.template is None:
            return ChatRequest(
                messages=[
                    Message(role="user", content=message),
                    Message(role="assistant", content=continuation),
                ],
                continue_final_message=True,
                max_tokens=1,
                temperature=0.0,
                prompt_logprobs=0,
                tag=self._tag + ":teacher-forcing",
            )
        return ChatRequest(
            # A raw prompt is sent as written: the message (built from the sample) must not carry
            # turn markers into the hand-written turn format.
            prompt=f"{self.template.format(message=neutralise(message))} {continuation}",
            max_tokens=1,
            temperature=0.0,
            prompt_logprobs=0,
            tag=self._tag + ":teacher-forcing",
        )


def _suffix_logprobs(
    logprobs: list[dict[str, float] | None] | None, tokens: list[str] | None, suffix: str
) -> list[float]:
    """Log-probs of the prompt's last tokens that spell ``suffix`` (byte-level or sentencepiece strings)."""
    if logprobs is None or tokens is None:
        raise ValueError(
            "the server returned no prompt_logprobs: the remote familiarity backend needs vLLM completions"
        )
    if len(logprobs) != len(tokens):
        raise ValueError(f"prompt_logprobs ({len(logprobs)}) and prompt tokens ({len(tokens)}) do not align")
    need = len(suffix.strip())
    covered = ""
    picked: list[float] = []
    for i in range(len(tokens) - 1, 0, -1):
        token = tokens[i]
        entry = logprobs[i]
        if entry is None:
            raise ValueError(f"prompt token {i} ({token!r}) has no logprob")
        if token in entry:
            picked.append(entry[token])
        elif len(entry) == 1:  # prompt_logprobs=0: only the prompt token itself, possibly keyed differently
            picked.append(next(iter(entry.values())))
        else:
            raise ValueError(f"prompt token {token!r} is missing from its logprob entry")
        covered = token.translate(_BYTE_LEVEL_SPACE) + covered
        if len(covered.strip()) >= need:
            if not covered.strip().endswith(suffix.strip()):
                raise ValueError(f"the prompt's last tokens spell {covered!r}, not the concept {suffix!r}")
            return picked[::-1]
    raise ValueError(f"the prompt tokens do not cover the concept {suffix!r}")
