from __future__ import annotations

import pytest

from trustscore.grounding.claims import ClaimsConfig


@pytest.fixture(scope="session")
def claims_check():  # type: ignore[no-untyped-def]
    """One ClaimsCheck for the session (loading the spaCy pipeline takes seconds); skipped without
    the claims extra. Never downloads: the pipeline is an installed package."""
    pytest.importorskip("spacy", reason="the claims check needs trustscore[claims]")
    pytest.importorskip("dateparser", reason="the claims check needs trustscore[claims]")
    from trustscore.grounding.claims._pipeline import find_pipeline
    from trustscore.grounding.claims._signal import ClaimsCheck

    try:
        find_pipeline(None)
    except ImportError as e:
        pytest.skip(str(e))
    return ClaimsCheck(ClaimsConfig())
