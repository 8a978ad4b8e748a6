"""One exception tree: every error trustscore raises on purpose is a TrustscoreError."""

from __future__ import annotations

import pytest

import trustscore
from trustscore.errors import (
    CalibratorError,
    ConfigError,
    EndpointUnavailable,
    InputError,
    LLMError,
    ModelLoadError,
    ProfileError,
    TrustscoreError,
)
from trustscore.fusion.errors import CalibratorMismatchError, FeatureError
from trustscore.llm import BadResponse, ClientError, LLMTimeout, LLMUnreachable, RateLimited, ServerError


@pytest.mark.parametrize(
    "error",
    [ConfigError, EndpointUnavailable, InputError, LLMError, CalibratorError, ProfileError, ModelLoadError],
)
def test_every_family_is_under_the_root(error: type[Exception]) -> None:
    assert issubclass(error, TrustscoreError)
    assert getattr(trustscore, error.__name__) is error


def test_value_error_stays_a_base_where_callers_catch_it() -> None:
    for error in (ConfigError, EndpointUnavailable, InputError, CalibratorError, ProfileError):
        assert issubclass(error, ValueError)
    assert issubclass(EndpointUnavailable, ConfigError)
    assert issubclass(FeatureError, CalibratorMismatchError) and issubclass(
        CalibratorMismatchError, CalibratorError
    )


def test_the_llm_errors_and_the_model_load_errors_are_in_the_tree() -> None:
    for error in (RateLimited, ServerError, ClientError, LLMTimeout, LLMUnreachable, BadResponse):
        assert issubclass(error, LLMError)
    from trustscore.grounding.embedder import EmbedderError
    from trustscore.llm.cache import UnsafeCacheEntry

    assert issubclass(EmbedderError, ModelLoadError) and issubclass(UnsafeCacheEntry, TrustscoreError)
    whitebox_model = pytest.importorskip("trustscore.whitebox.model")
    assert issubclass(whitebox_model.WhiteboxModelError, ModelLoadError)
    assert issubclass(whitebox_model.WhiteboxModelError, ValueError)
    assert LLMError("down").usage.requests == 0 and LLMError("down").reason == "down"
