"""One exception tree: every error trustscore raises on purpose is a TrustscoreError."""

from __future__ import annotations

import pytest

import trustscore
from trustscore import (
    CalibratorError,
    ConfigError,
    EndpointUnavailable,
    InputError,
    LLMError,
    ModelLoadError,
    ProfileError,
    TrustscoreError,
)
from trustscore._errors import (
    BadResponse,
    CalibratorMismatchError,
    ClientError,
    FeatureError,
    LLMTimeout,
    LLMUnreachable,
    RateLimited,
    ServerError,
)


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
    from trustscore._errors import EmbedderError, UnsafeCacheEntry

    assert issubclass(EmbedderError, ModelLoadError) and issubclass(UnsafeCacheEntry, TrustscoreError)
    whitebox_model = pytest.importorskip("trustscore.whitebox._model")
    assert issubclass(whitebox_model.WhiteboxModelError, ModelLoadError)
    assert issubclass(whitebox_model.WhiteboxModelError, ValueError)
    assert LLMError("down").usage.requests == 0 and LLMError("down").reason == "down"


def test_every_exception_of_the_product_is_defined_in_the_errors_module_under_the_root() -> None:
    """A new exception class anywhere in the product (the test kit aside) fails here until it is
    moved into trustscore/_errors.py and placed under TrustscoreError. A private one (``_Name``) that
    never leaves its module, e.g. a signal handler's way out of a wait loop, may stay beside it."""
    import ast
    from pathlib import Path

    import trustscore._errors as errors

    package = Path(trustscore.__file__).parent
    elsewhere = []
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package).parts
        if where == ("_errors.py",) or where[0] == "testing":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ClassDef)
                and not node.name.startswith("_")
                and any(
                    isinstance(b, ast.Name)
                    and (b.id.endswith(("Error", "Exception")) or b.id in errors.__all__)
                    for b in node.bases
                )
            ):
                elsewhere.append(f"{path.relative_to(package)}:{node.lineno} {node.name}")
    assert elsewhere == []
    for name in errors.__all__:
        value = getattr(errors, name)
        if isinstance(value, type):
            assert issubclass(value, errors.TrustscoreError), name
