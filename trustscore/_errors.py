"""Every exception trustscore raises, in one tree rooted at :class:`TrustscoreError`.

    TrustscoreError
    ├── ConfigError             (also ValueError)   a setting is wrong; the message names it and the fix
    │   ├── EndpointUnavailable                     an endpoint cannot be used here (its API key is unset)
    │   └── ServeError                              ``trustscore serve`` cannot start the servers asked for
    ├── InputError              (also ValueError)   a sample or argument is wrong; the message names the field
    │   ├── UsageError                              a command-line file, line or flag is wrong
    │   ├── NoContextError                          a signal that reads the context got none
    │   └── PromptTooLong                           a judge's prompt does not fit the model's context window
    ├── LLMError                                    a model could not answer
    │   ├── RateLimited, ServerError, LLMTimeout, LLMUnreachable, BadResponse   (retryable)
    │   ├── ClientError, UnsupportedRequest
    ├── JudgeFailure                                a judge cannot give a value (becomes a missing signal)
    ├── DegradedScoreError                          signals are missing and ``fusion.on_missing = "raise"``
    ├── CalibratorError         (also ValueError)   a calibrator file is unusable or does not fit the signals
    │   └── CalibratorMismatchError                 the signals are not the ones it was fitted on
    │       └── FeatureError                        a signal lacks a feature the fused model needs
    ├── ProfileError            (also ValueError)   a ReDeEP profile is unusable for this model
    ├── ModelLoadError                              a local model cannot be loaded as asked
    │   ├── EmbedderError       (also RuntimeError)
    │   ├── EncoderLoadError    (also ValueError)
    │   └── WhiteboxModelError  (also ValueError)
    │       └── WhiteboxLoadError                   the generator model did not load: the sample is incomplete
    ├── BudgetExceeded                              blocking work ran past its time budget (a missing signal)
    ├── LaneClosed              (also RuntimeError) a local model's lane closed at exit, request unserved
    ├── UnsafeCacheEntry        (also RuntimeError) a cache row is not what trustscore writes
    └── ServerExited            (also RuntimeError) a model server process ended or never became healthy

``ValueError`` / ``RuntimeError`` stay bases where callers have long caught them. This module sits
at the bottom of the package: it imports nothing of trustscore but the data types.
"""

from __future__ import annotations

from pydantic import JsonValue

from trustscore._types import Usage

__all__ = [
    "CONFIG_REFERENCE",
    "BadResponse",
    "BudgetExceeded",
    "CalibratorError",
    "CalibratorMismatchError",
    "ClientError",
    "ConfigError",
    "DegradedScoreError",
    "EmbedderError",
    "EncoderLoadError",
    "EndpointUnavailable",
    "FeatureError",
    "InputError",
    "JudgeFailure",
    "LLMError",
    "LLMTimeout",
    "LLMUnreachable",
    "LaneClosed",
    "ModelLoadError",
    "NoContextError",
    "ProfileError",
    "PromptTooLong",
    "RateLimited",
    "ServeError",
    "ServerError",
    "ServerExited",
    "TrustscoreError",
    "UnsafeCacheEntry",
    "UnsupportedRequest",
    "UsageError",
    "WhiteboxLoadError",
    "WhiteboxModelError",
]

CONFIG_REFERENCE = "docs/config.md"
"""Where every setting is described (generated from the config models by scripts/gen_config_docs.py)."""


class TrustscoreError(Exception):
    """The root of trustscore's own errors: ``except TrustscoreError`` catches every one of them."""


# ---- configuration and input ---------------------------------------------------------------------


class ConfigError(TrustscoreError, ValueError):
    """The configuration is invalid; the message names the field and the fix."""


class EndpointUnavailable(ConfigError):
    """An endpoint is configured but cannot be used in this environment (its API key is not set).

    The Scorer turns it into a missing signal for the judges that use the endpoint, not a failure.
    """


class ServeError(ConfigError):
    """``trustscore serve`` cannot start what the config asks for; the message says what to change."""


class InputError(TrustscoreError, ValueError):
    """Bad input to a call (a sample field, an argument); the message names it and the fix."""


class UsageError(InputError):
    """Bad input to a command (file, line, flag): printed as one line, exit status 2."""


class NoContextError(InputError):
    """A signal that measures how the response uses the retrieved context was given none."""


class PromptTooLong(InputError):
    """A judge's prompt does not fit its model's context window, even with the context trimmed."""


# ---- models that could not answer ----------------------------------------------------------------


class LLMError(TrustscoreError):
    """The model could not answer. ``reason`` is short and safe to show in a Signal's error."""

    retryable: bool = False

    def __init__(self, reason: str, *, usage: Usage | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.usage = usage or Usage()


class RateLimited(LLMError):
    retryable = True

    def __init__(self, reason: str, *, retry_after: float | None = None, usage: Usage | None = None) -> None:
        super().__init__(reason, usage=usage)
        self.retry_after = retry_after


class ServerError(LLMError):
    retryable = True

    def __init__(
        self, reason: str, *, status: int, retry_after: float | None = None, usage: Usage | None = None
    ) -> None:
        super().__init__(reason, usage=usage)
        self.status = status
        self.retry_after = retry_after


class ClientError(LLMError):
    """4xx other than 429: bad request, auth, unknown model. Retrying does not help."""

    def __init__(self, reason: str, *, status: int, usage: Usage | None = None) -> None:
        super().__init__(reason, usage=usage)
        self.status = status


class LLMTimeout(LLMError):
    retryable = True


class LLMUnreachable(LLMError):
    retryable = True


class BadResponse(LLMError):
    """The server answered 200 with something that is not a valid completion (not JSON, no choices,
    a log-probability that is NaN, infinite or above 0): a server fault, retried like a 5xx."""

    retryable = True


class UnsupportedRequest(LLMError):
    """The endpoint's flavour cannot do what the request asks (e.g. prompt_logprobs on OpenAI)."""


class JudgeFailure(TrustscoreError):
    """The judge cannot give a value; ``reason`` becomes the missing signal's error."""

    def __init__(self, reason: str, *, raw: JsonValue = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.raw = raw


class DegradedScoreError(TrustscoreError):
    """Signals the Scorer ran gave no value, and the config says a degraded result must not pass as a
    score (``fusion.on_missing = "raise"``). ``missing`` maps each missing signal to its reason;
    ``result`` is the degraded result (a ``TrustScore``) for a caller who wants to look at it."""

    def __init__(self, missing: dict[str, str], result: object = None) -> None:
        shown = "; ".join(f"{name}: {reason}" for name, reason in missing.items())
        super().__init__(
            f"degraded result: {len(missing)} signal(s) gave no value ({shown}); "
            'fusion.on_missing = "raise" refuses to score on the rest'
        )
        self.missing = dict(missing)
        self.result = result


# ---- calibrators and profiles --------------------------------------------------------------------


class CalibratorError(TrustscoreError, ValueError):
    """A calibrator file is unreadable, of the wrong schema, or tampered with."""


class CalibratorMismatchError(CalibratorError):
    """The signals offered do not match those the calibrator was fitted on (versions or features)."""


class FeatureError(CalibratorMismatchError):
    """A signal does not carry a feature the fused model needs (e.g. its ``raw`` changed shape)."""


class ProfileError(TrustscoreError, ValueError):
    """A profile file cannot be used: unreadable, tampered, wrong schema, or fitted for another model."""


# ---- local models and local work -----------------------------------------------------------------


class ModelLoadError(TrustscoreError):
    """A local model cannot be loaded or used as asked; the message names the setting and the fix."""


class EmbedderError(ModelLoadError, RuntimeError):
    """The embedding model cannot be found, verified or loaded; the message says how to fix it."""


class EncoderLoadError(ModelLoadError, ValueError):
    """The encoder checkpoint cannot be loaded as configured; the message names the setting and the fix."""


class WhiteboxModelError(ModelLoadError, ValueError):
    """The local generator model cannot be used as asked; the message names the setting and the fix."""


class LaneClosed(TrustscoreError, RuntimeError):
    """A local model's lane was closed (the process is exiting) before it served the request."""


class WhiteboxLoadError(WhiteboxModelError):
    """The local generator model did not load (missing, unreadable or incomplete folder, missing
    packages): a signal that needs it lets this propagate, and the Scorer marks the sample incomplete."""


class BudgetExceeded(TrustscoreError):
    """Raised inside blocking work when its time budget is over: the work stops, its result is missing."""


class UnsafeCacheEntry(TrustscoreError, RuntimeError):
    """A cache row is not what trustscore writes (pickled, or not the stored type): refuse to load it."""


class ServerExited(TrustscoreError, RuntimeError):
    """The server process ended (or never became healthy); the message quotes its log tail."""
