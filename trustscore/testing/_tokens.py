"""A deterministic, approximate tokenizer for the fake server.

It is *not* any real model's tokenizer: a token is a run of word characters or one punctuation
character, each carrying the whitespace in front of it (``"Score: 4"`` -> ``["Score", ":", " 4"]``).
Joining the tokens gives back the text exactly, so character offsets stay right. Real BPE
tokenizers give somewhat more tokens for the same text; counts here are for relative comparisons
(what a prefix cache or n-sampling saves), not for billing.
"""

from __future__ import annotations

import hashlib
import re
import zlib

__all__ = ["VOCAB_SIZE", "block_hashes", "token_id", "tokenize"]

_TOKEN = re.compile(r"\s*(?:\w+|[^\w\s])|\s+")

VOCAB_SIZE = 128_000
"""Size of the pretend vocabulary that :func:`token_id` maps into (Llama-3 sized)."""


def tokenize(text: str) -> list[str]:
    """Split ``text`` into word/punctuation tokens; ``"".join(tokenize(t)) == t``."""
    return _TOKEN.findall(text)


def token_id(token: str) -> int:
    """A stable pretend token id (crc32 into :data:`VOCAB_SIZE`), as vLLM keys prompt logprobs by id."""
    return zlib.crc32(token.encode("utf-8")) % VOCAB_SIZE


def block_hashes(tokens: list[str], block_size: int) -> list[str]:
    """Chained hashes of the *full* blocks of ``tokens``, as vLLM's automatic prefix caching keys them.

    Block ``i``'s hash covers every token up to the end of block ``i``, so two prompts share a
    cached block only when they share the whole prefix before it. A trailing partial block is
    never cached (vLLM caches full blocks only).
    """
    out: list[str] = []
    parent = b""
    for start in range(0, len(tokens) - block_size + 1, block_size):
        block = "\x00".join(tokens[start : start + block_size]).encode("utf-8")
        parent = hashlib.blake2b(parent + block, digest_size=16).digest()
        out.append(parent.hex())
    return out
