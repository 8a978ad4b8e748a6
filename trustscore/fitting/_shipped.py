"""The recipe of the shipped calibrator (``trustscore/calibrators/local_multidomain.json``): which
label and group columns it is fitted on, which features it reads and how its intercept is fitted.
``calibration/fit_local_multidomain.py`` fits it with these; ``benchmarks/quality/multidomain.py`` measures
how they were chosen (the rule and its nested figures are in docs/calibration.md)."""

from __future__ import annotations

__all__ = [
    "DATES_UNSTATED",
    "EVIDENCE_CLAIMS",
    "FEATURES",
    "FEATURES_CLAIMS",
    "FEATURES_EVIDENCE",
    "GROUP",
    "INTERCEPT_BY",
    "L2_EVIDENCE",
    "LABEL",
    "NAMES_UNSTATED",
    "SHRUNK_SHARE",
]

LABEL = "hallucinated"
"""The label column of the training rows: true when the response is not supported."""
GROUP = "source_id"
"""Rows of one source document stay on one side of every split."""
FEATURES: list[str] = [
    "lexical",
    "embedding:raw.min|identity",
    "lexical:raw.unsupported_share|identity",
    "lexical:raw.numbers_unsupported_share|identity",
    "lexical:raw.log_unsupported_weight|identity",
]
"""The lexical value, the embedding similarity of the response's least supported sentence, the
unweighted unsupported share, the share of unsupported numbers and the unsupported amount: no length
and no domain label, which do not carry to a new domain. The least supported sentence, not the
embedding signal's value (the lower quartile of its sentences): one invented sentence makes a long
answer unfaithful, and on RAGTruth QA the lower quartile mostly reads how long the answer is."""
SHRUNK_SHARE = "lexical:raw.shrunk_unsupported_share|identity"
"""The unsupported share with a prior of supported words (``SHARE_PRIOR_WORDS`` of
:mod:`trustscore.grounding._lexical`): a one-sentence answer read by how many words it leaves
unsupported, not by a share over five words."""
FEATURES_CLAIMS: list[str] = [
    *(SHRUNK_SHARE if f == "lexical:raw.unsupported_share|identity" else f for f in FEATURES),
    "claims:raw.contradicted_facts|identity",
    "claims:raw.unsupported_share|identity",
]
"""The features of the calibrator shipped for Scorers that run the claims signal (the ``claims`` extra,
``trustscore/calibrators/local_multidomain_claims.json``): the shipped set with the lexical share shrunk
(``SHRUNK_SHARE``, chosen leave one domain out by ``benchmarks.quality.share_prior``; the plain set keeps
the plain share, where the swap costs RAGTruth Data2txt held out and the claims signal does not carry
it), the count of the response's numbers, amounts, dates and names the context states otherwise, and
the share of its checked atoms the context never states. Not the signal's value, which folds those two
with contradicted polarity (no more often hallucinated than the base rate on the corpus) into one number
the fit cannot weigh apart (docs/calibration.md, "How a contradicted fact enters the score")."""
NAMES_UNSTATED: list[str] = ["lexical:raw.names_unsupported|identity"]
"""How many of the response's names the context never states (chosen leave one domain out; their share of
the response's names, added too, gained 0.002 macro AUROC with a weight of the wrong sign and lifted a
bundled wrong answer over 0.5: left out)."""
DATES_UNSTATED: list[str] = ["claims:raw.unsupported_dates|identity"]
"""How many of the response's dates the context never states: a summary that moves an event to another
day words its sentence anew, leaving the date no slot to be contradicted in (chosen leave one domain out
as a feature and an evidence term: macro AUROC unchanged, dates the context never states under 0.5 in
summaries a reviewer wrote 42% -> 92%, docs/benchmarks.md)."""
FEATURES_EVIDENCE: list[str] = [
    *FEATURES_CLAIMS,
    "claims:raw.contradicted_polarity|identity",
    *NAMES_UNSTATED,
    *DATES_UNSTATED,
]
"""The features of the shipped claims calibrator: ``FEATURES_CLAIMS``, the count of contradicted
negations and antonyms, which the evidence terms read, and the counts of unstated names and dates
(``NAMES_UNSTATED``, ``DATES_UNSTATED``, compared leave one domain out by
``benchmarks.quality.fusion_forms``)."""
EVIDENCE_CLAIMS: tuple[str, ...] = (
    "claims:raw.contradicted_facts|identity",
    "claims:raw.contradicted_polarity|identity",
    *DATES_UNSTATED,
)
"""The counts that also decide as evidence terms (``FitOptions.evidence``): where the claims signal
contradicts a fact, or a statement's polarity, or states a date the context never does, the score is
multiplied by one minus that finding's fitted precision (``benchmarks.quality.fusion_forms`` compares
this form with the others, docs/calibration.md)."""
L2_EVIDENCE = 1.0
"""Ridge strength of the shipped claims calibrator, chosen leave one domain out
(``benchmarks.quality.fusion_forms``): at 0.3, 1 and 3 macro AUROC is 0.786, 0.787 and 0.786 and the worst
gap to a domain's best single signal +0.000, +0.003 and -0.004; 1 spreads the gain over the domains
(RAGTruth Data2txt held out 0.812 against 0.795 at 0.3), while 80% of the corruption benchmark's
faithful paraphrases stay at or above 0.5 against 82% at 0.3."""
INTERCEPT_BY: str | None = "dataset"
"""One intercept per data set while the weights are fitted, so the weights do not learn which data set
hallucinates more; the shipped model keeps the pooled intercept."""
