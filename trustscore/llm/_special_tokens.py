"""Untrusted text never becomes a model's control tokens.

A served model's tokenizer turns the *strings* of its special tokens (``<|im_end|>``, ``</s>``,
``<|eot_id|>``, ``[INST]``...) into the control token ids wherever they appear, message content
included: vLLM renders the chat template to text and tokenizes it whole. An answer holding a judge
model's turn markers could close the user turn and write the judge's reply inside the prompt.

:func:`neutralise` breaks every such string by putting a zero-width joiner (U+200D) after its first
character: the text reads the same, but no tokenizer can match the special token in it any more (a
byte-level BPE encodes the joiner as ordinary bytes). Two patterns:

- :data:`TURN_MARKERS`: the shapes special tokens take across model families (``<|...|>``, DeepSeek's
  fullwidth ``<｜...｜>``, ``<s>``/``</s>``, ``<unk>``, ``<start_of_turn>``, ``[INST]``,
  ``<<SYS>>``...). The HTTP seam applies it to every message, so no caller can forget it.
- :data:`MARKUP`: every tag- or bracket-like word (``<anything>``, ``</anything>``, ``[WORD]``),
  which also covers a model's less common special tokens and the delimiters the judge prompts put
  around untrusted text (an answer cannot close its own ``<answer>`` section). The judge templates
  apply it to every value they fill in.

The served model's own special tokens, exactly, come from its tokenizer files where the endpoint's
``model_identity`` (or ``model``) is a local directory (:func:`served_special_tokens`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

__all__ = ["JOINER", "MARKUP", "TURN_MARKERS", "neutralise", "served_special_tokens"]

JOINER = "\u200d"

_TURN = (
    r"<\|[^\s<>|]{1,64}\|>"  # <|im_start|>, <|eot_id|>, <|start_header_id|>, <|endoftext|>
    r"|<\uff5c[^\s<>\uff5c]{1,64}\uff5c>"  # DeepSeek: <｜begin▁of▁sentence｜>
    r"|</?s>|<(?:unk|pad|bos|eos|mask|cls|sep)>"  # sentencepiece and BERT-style specials
    r"|<(?:start|end)_of_(?:turn|text|image)>"  # Gemma
    r"|<</?SYS>>|\[/?(?:INST|SYS|SYSTEM_PROMPT|TOOL_CALLS|TOOL_RESULTS|AVAILABLE_TOOLS)\]"  # Llama 2, Mistral
)
TURN_MARKERS = re.compile(_TURN, re.IGNORECASE)
MARKUP = re.compile(_TURN + r"|</?[A-Za-z_][\w.:-]{0,63}>|\[/?[A-Za-z_]{2,32}\]", re.IGNORECASE)


def neutralise(text: str, pattern: re.Pattern[str] = TURN_MARKERS, exact: Iterable[str] = ()) -> str:
    """``text`` with every match of ``pattern``, and every occurrence of the strings in ``exact``,
    broken by a zero-width joiner after its first character. Idempotent."""
    broken = pattern.sub(_break, text)
    for token in sorted(exact, key=len, reverse=True):
        if len(token) > 1 and token in broken:
            broken = broken.replace(token, token[0] + JOINER + token[1:])
    return broken


def _break(match: re.Match[str]) -> str:
    found = match.group(0)
    return found[0] + JOINER + found[1:]


@cache
def served_special_tokens(model_dir: str) -> frozenset[str]:
    """The special tokens' strings of the tokenizer in ``model_dir`` (added tokens marked special, and
    the named bos/eos/... tokens, in ``tokenizer.json`` and ``tokenizer_config.json``). Empty when it
    is not a directory or holds neither file readable."""
    folder = Path(model_dir)
    found: set[str] = set()
    for name, read in (("tokenizer.json", _from_tokenizer_json), ("tokenizer_config.json", _from_config)):
        try:
            data = json.loads((folder / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            found |= read(data)
    return frozenset(t for t in found if len(t) > 1 and not t.isspace())


def _from_tokenizer_json(data: dict[str, object]) -> set[str]:
    added = data.get("added_tokens")
    if not isinstance(added, list):
        return set()
    return {t["content"] for t in added if _special(t)}


def _special(token: object) -> bool:
    """An added token marked special (a plain added word is ordinary text, left alone)."""
    return isinstance(token, dict) and token.get("special") is True and isinstance(token.get("content"), str)


def _from_config(data: dict[str, object]) -> set[str]:
    out: set[str] = set()
    decoder = data.get("added_tokens_decoder")
    if isinstance(decoder, dict):
        out |= {t["content"] for t in decoder.values() if _special(t)}
    for key in ("bos_token", "eos_token", "unk_token", "pad_token", "sep_token", "cls_token", "mask_token"):
        value = data.get(key)
        if isinstance(value, dict):
            value = value.get("content")
        if isinstance(value, str):
            out.add(value)
    extra = data.get("additional_special_tokens")
    if isinstance(extra, list):
        out |= {t for t in extra if isinstance(t, str)}
    return out
