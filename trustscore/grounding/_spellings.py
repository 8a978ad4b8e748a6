"""A word's British spelling read as its American one: "colour" is "color", "organisation"
"organization", "hospitalised" "hospitalized".

A context written in one spelling and an answer in the other state the same words; without this the
lexical signal counts "behaviour" unsupported where the context writes "behavior". The table
(data/spellings.tsv, NOTICE-breame.md) holds breame 0.1.2's British spellings with their American
ones, each inflected form a line, built by scripts/build_claims_tables.py. Both sides of a lookup fold
through it (:func:`~trustscore.grounding._text.fold`), so either spelling matches either.

Some pairs join two words of American English ("tyre" is "tire", "draught" is "draft", "metre" is
"meter"): a British word then takes the support of the American homograph. The table only widens what
counts as the same word, so it can lend support, never take it away.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

__all__ = ["american"]

_DATA = files("trustscore.grounding") / "data"


@cache
def _table() -> dict[str, str]:
    table: dict[str, str] = {}
    for line in (_DATA / "spellings.tsv").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            british, us = line.split("\t")
            table[british] = us
    return table


def american(word: str) -> str:
    """``word`` (casefolded) in its American spelling; itself when the table has no British spelling of
    that form."""
    return _table().get(word, word)
