"""Blanking the secrets a backend sends out of any text a server sends back.

A judge server may echo what it got: a 401 whose body quotes ``Authorization: Bearer sk-...``, an
answer that repeats a header. Whatever a server answers is passed through :meth:`Secrets.redact` where
it enters our objects (the backend), so an endpoint's key never reaches an error reason, a span, a
result row or a service caller. Each secret is matched in the forms a server or a library writes it
in, anywhere in the text and ignoring case (a percent escape may be ``%2F`` or ``%2f``):

* as sent, and as Python quotes a str or bytes value (``b'Bearer abc\\r'``);
* JSON-escaped (``"sk-\\u00e9"``, ``\\/``), and URL-encoded (``%2B`` and ``+`` for a space);
* base64, and for a ``Basic`` credential its decoded ``user:password`` and the password alone.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable
from urllib.parse import quote, quote_plus

__all__ = ["MIN_SECRET_CHARS", "REDACTED", "Secrets"]

REDACTED = "***"
MIN_SECRET_CHARS = 4
"""Shorter values are no secret worth garbling messages for."""


class Secrets:
    """The secret values of one backend (its key, its header values), to blank out of server text."""

    def __init__(self, values: Iterable[str | None]) -> None:
        forms: set[str] = set()
        for value in values:
            for secret in _parts(value or ""):
                forms |= _written_forms(secret)
        ordered = sorted((f for f in forms if len(f) >= MIN_SECRET_CHARS), key=len, reverse=True)
        self._forms = ordered
        self._pattern = re.compile("|".join(map(re.escape, ordered)), re.IGNORECASE) if ordered else None

    def redact(self, text: str) -> str:
        """``text`` with every form of every secret replaced by ``***``."""
        return text if self._pattern is None else self._pattern.sub(REDACTED, text)

    def redact_bytes(self, data: bytes, *, cut: bool = False) -> bytes:
        """A raw answer body, redacted as UTF-8 text (undecodable bytes are kept as they are). ``cut``:
        the body was read only up to a limit, so a secret may end it half written: that half goes too."""
        if self._pattern is None:
            return data
        text = data.decode("utf-8", "surrogateescape")
        redacted = self.redact(text)
        if cut:
            redacted = self._redact_cut_tail(redacted)
        return data if redacted == text else redacted.encode("utf-8", "surrogateescape")

    def _redact_cut_tail(self, text: str) -> str:
        folded = text[-max(map(len, self._forms)) :].lower()
        for form in self._forms:
            for k in range(len(form) - 1, MIN_SECRET_CHARS - 1, -1):
                if folded.endswith(form[:k].lower()):
                    return text[:-k] + REDACTED
        return text


def _parts(value: str) -> set[str]:
    """The value, and what a scheme word hides in it: ``Bearer KEY`` -> KEY; ``Basic B64`` -> B64,
    the decoded ``user:password`` and the password."""
    if len(value) < MIN_SECRET_CHARS:
        return set()
    parts = {value}
    scheme, _, credential = value.strip().partition(" ")
    credential = credential.strip()
    if not credential:
        return parts
    parts.add(credential)
    if scheme.lower() == "basic":
        try:
            decoded = base64.b64decode(credential, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return parts
        parts |= {decoded, decoded.partition(":")[2]}
    return {p for p in parts if len(p) >= MIN_SECRET_CHARS}


def _written_forms(secret: str) -> set[str]:
    encoded = secret.encode("utf-8", "replace")
    return {
        secret,
        repr(secret)[1:-1],
        repr(encoded)[2:-1],
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        json.dumps(secret)[1:-1].replace("/", "\\/"),
        quote(secret, safe=""),
        quote(secret),
        quote_plus(secret, safe=""),
        base64.b64encode(encoded).decode("ascii"),
        base64.b64encode(encoded).decode("ascii").rstrip("="),
        base64.urlsafe_b64encode(encoded).decode("ascii").rstrip("="),
    }
