"""The words the grounding signals never look up: function words, which claim nothing."""

from __future__ import annotations

__all__ = ["STOPWORDS", "function_contraction"]


def _listed(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS = _listed(
    """a about above after again against all also although am an and any are as at be because been
    before being below between both but by can could did do does doing down during each either else
    ever every few for from further had has have having he her here hers herself him himself his how
    however i if in into is it its itself just let may me might more most much must my myself
    neither nor not now of off on once only or other ought our ours ourselves out over own per
    rather same shall she should since so some such than that the their theirs them themselves then
    there these they this those though through thus to too under until up upon us very was we were
    what when where whether which while who whom whose why will with within without would yet you
    your yours yourself yourselves overall additionally furthermore moreover including based
    provided according mentioned stated states said says information passage passages text context
    article summary response answer question given
    despite among amongst amid regarding concerning around toward towards across along alongside
    beyond behind beside besides beneath near onto via unlike throughout
    therefore hence thereby consequently similarly likewise notably ultimately finally meanwhile
    nevertheless nonetheless otherwise instead indeed whereas
    anything something everything anyone someone everyone anybody somebody everybody"""
)
"""A small function-word list: these never count as support evidence nor as unsupported claims."""


def function_contraction(lower: str) -> bool:
    """A function word with a verb contracted onto it ("it's", "here's", "they're", "I'll", "let's"):
    no claim. A negation's contraction ("don't", "won't") is still checked (docs/benchmarks.md says
    why)."""
    head, apostrophe, tail = lower.replace("’", "'").partition("'")
    return bool(apostrophe) and tail in _CONTRACTED and head in STOPWORDS


_CONTRACTED = frozenset({"s", "re", "m", "ll", "ve", "d"})
"""What English contracts onto a pronoun or adverb: "is"/"has"/"us", "are", "am", "will", "have", "would"."""
