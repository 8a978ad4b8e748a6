"""Fitted files sealed by ``content_sha256``: built with the hash of their content, refused when a
field was edited after fitting, and read back with the validation problems named."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from trustscore._errors import CalibratorError
from trustscore.core._files import MAX_JSON_BYTES

__all__ = ["build_sealed", "check_seal", "read_sealed"]

M = TypeVar("M", bound=BaseModel)


def build_sealed(
    cls: type[M], compute_hash: Callable[[Mapping[str, Any]], str], fields: Mapping[str, Any]
) -> M:
    """Construct ``cls`` from ``fields`` with ``content_sha256`` set to ``compute_hash`` of the content."""
    draft = cls.model_construct(**fields, content_sha256="0" * 64).model_dump(mode="json")
    draft["content_sha256"] = compute_hash(draft)
    return cls.model_validate(draft)


def check_seal(stored: str, computed: str) -> None:
    if stored != computed:
        raise ValueError(
            "content_sha256 does not match the file's content: it was edited after fitting; refit it"
        )


def read_sealed(cls: type[M], text: str, *, source: str, kind: str) -> M:
    """``cls`` from its JSON ``text``; a ``CalibratorError`` naming ``source`` and the first problems."""
    if len(text) > MAX_JSON_BYTES:
        raise CalibratorError(f"{source} holds {len(text):,} characters; a {kind} is far smaller")
    try:
        return cls.model_validate_json(text)
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(top level)'}: {err['msg']}" for err in e.errors()[:5]
        )
        raise CalibratorError(f"{source} is not a valid trustscore {kind} ({problems})") from None
