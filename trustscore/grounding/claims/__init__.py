"""The claims check: the response's checkable atoms (numbers with units, money, percentages, dates,
names, and the polarity of sentences that restate the context) looked up in the context.

Needs the ``claims`` extra (spaCy and an English pipeline, dateparser, py3langid); imported only when
the Scorer builds the signal. :class:`ClaimsCheck` is the signal; :mod:`.check` the matching rules.
"""

from trustscore.grounding.claims._config import ClaimsConfig

__all__ = ["ClaimsConfig"]
