"""Every error trustscore raises on purpose descends from :class:`TrustscoreError`.

    TrustscoreError
    ├── ConfigError        (also ValueError)  a setting is wrong; the message names it and the fix
    │   └── EndpointUnavailable               a named endpoint cannot be used here (e.g. its API key is unset)
    ├── InputError         (also ValueError)  a sample or argument is wrong; the message names the field
    ├── LLMError                              a model could not answer (``trustscore.llm`` has the subclasses)
    ├── CalibratorError    (also ValueError)  a calibrator file is unusable or does not fit the signals
    ├── ProfileError       (also ValueError)  a ReDeEP profile is unusable for this model
    └── ModelLoadError                        a local model (white-box, embedder) cannot be loaded as asked

``ValueError`` stays a base where callers have long caught it. This module sits at the bottom of the
package: it imports nothing of trustscore but the data types.
"""

from __future__ import annotations

from trustscore.types import Usage

__all__ = [
    "CONFIG_REFERENCE",
    "CalibratorError",
    "ConfigError",
    "EndpointUnavailable",
    "InputError",
    "LLMError",
    "ModelLoadError",
    "ProfileError",
    "TrustscoreError",
]

CONFIG_REFERENCE = "docs/config.md"
"""Where every setting is described (generated from the config models; see scripts/gen_config_docs.py)."""


class TrustscoreError(Exception):
    """The root of trustscore's own errors: ``except TrustscoreError`` catches every one of them."""


class ConfigError(TrustscoreError, ValueError):
    """The configuration is invalid; the message names the field and the fix."""


class EndpointUnavailable(ConfigError):
    """An endpoint is configured but cannot be used in this environment (its API key is not set).

    The Scorer turns it into a missing signal for the judges that use the endpoint, not a failure.
    """


class InputError(TrustscoreError, ValueError):
    """Bad input to a call (a sample field, an argument); the message names it and the fix."""


class LLMError(TrustscoreError):
    """The model could not answer. ``reason`` is short and safe to show in a Signal's error."""

    retryable: bool = False

    def __init__(self, reason: str, *, usage: Usage | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.usage = usage or Usage()


class CalibratorError(TrustscoreError, ValueError):
    """A calibrator file is unreadable, of the wrong schema, or tampered with."""


class ProfileError(TrustscoreError, ValueError):
    """A profile file cannot be used: unreadable, tampered, wrong schema, or fitted for another model."""


class ModelLoadError(TrustscoreError):
    """A local model cannot be loaded or used as asked; the message names the setting and the fix."""
