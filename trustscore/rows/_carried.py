"""The fields a result row carries through for a sample built in code (``Monitor.submit``): its
metadata, and its ``domain`` as ``sample_domain``, as an input row's own fields are carried."""

from __future__ import annotations

from typing import Any

from trustscore._errors import InputError
from trustscore._types import Sample
from trustscore.rows._input import DOMAIN_CARRIED, RESULT_FIELDS

__all__ = ["carried_fields"]


def carried_fields(sample: Sample, where: str) -> dict[str, Any]:
    """``sample``'s metadata and its domain, for its result row; a metadata key the row gives to the
    result (``score``, ``id``, ...), or ``sample_domain`` beside a domain, is an InputError beginning
    ``where``: written through, it would replace what the scorer found."""
    clashes = sorted(k for k in sample.metadata if k in RESULT_FIELDS)
    if sample.domain is not None and DOMAIN_CARRIED in sample.metadata:
        clashes.append(DOMAIN_CARRIED)
    if clashes:
        raise InputError(
            f"{where}: key(s) {clashes} would replace the result's own in the row written for it; rename them"
        )
    carried = dict(sample.metadata)
    if sample.domain is not None:
        carried[DOMAIN_CARRIED] = sample.domain
    return carried
