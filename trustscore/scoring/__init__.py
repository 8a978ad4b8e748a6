"""The Scorer and its parts, one job each: the Scorer itself and its blocking facade, input checks,
the endpoints and caches it builds, building the sources from the registry, running one source
safely, and scoring many samples."""

import trustscore.scoring._builtins  # noqa: F401  (declares the built-in signals to the registry)
