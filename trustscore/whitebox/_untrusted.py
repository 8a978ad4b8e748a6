"""Sample text read by a local white-box model never becomes that model's control tokens.

A Hugging Face tokenizer turns the strings of its special tokens (``<|im_end|>``, ``</s>``...) into
the control token ids wherever they appear in the text it is given, and the white-box signals
tokenize the whole prompt (chat template, context, question, answer) at once. So the untrusted parts
(question, context passages, answer, and text the signals build from them) are neutralised before
they go into a prompt, as on the wire (:mod:`trustscore.llm._special_tokens`): the common turn-marker
shapes, plus the local tokenizer's own special tokens exactly. Text without such strings is left
unchanged, so its tokens and features are too.
"""

from __future__ import annotations

from typing import Any

from trustscore._types import Sample
from trustscore.llm._special_tokens import JOINER, TURN_MARKERS, neutralise

__all__ = ["local_special_tokens", "neutral_sample", "neutral_text", "original_offset"]


def local_special_tokens(tokenizer: Any) -> frozenset[str]:
    """The strings of ``tokenizer``'s special tokens: the named ones and the added tokens marked special."""
    found = {str(t) for t in getattr(tokenizer, "all_special_tokens", None) or ()}
    decoder = getattr(tokenizer, "added_tokens_decoder", None) or {}
    found |= {str(t.content) for t in decoder.values() if getattr(t, "special", False)}
    return frozenset(t for t in found if len(t) > 1 and not t.isspace())


def neutral_text(tokenizer: Any, text: str) -> str:
    """``text`` with every special-token string of ``tokenizer`` (and every turn-marker shape) broken."""
    return neutralise(text, TURN_MARKERS, local_special_tokens(tokenizer))


def neutral_sample(tokenizer: Any, sample: Sample) -> Sample:
    """``sample`` with its question, passages and response neutralised for ``tokenizer``."""
    specials = local_special_tokens(tokenizer)

    def safe(text: str) -> str:
        return neutralise(text, TURN_MARKERS, specials)

    return sample.model_copy(
        update={
            "question": safe(sample.question),
            "context": [safe(passage) for passage in sample.context],
            "response": safe(sample.response),
        }
    )


def original_offset(original: str, neutral: str) -> list[int]:
    """Per character offset into ``neutral`` (0..len), the matching offset into ``original``:
    ``neutral`` is ``original`` with joiners inserted, each counted with the character after it."""
    out: list[int] = []
    i = 0
    for char in neutral:
        out.append(i)
        if i < len(original) and char == original[i]:
            i += 1
        elif char != JOINER:  # not what neutralise makes: keep offsets in range
            i = min(i + 1, len(original))
    out.append(len(original))
    return out
