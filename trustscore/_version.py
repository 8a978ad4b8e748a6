"""The package version, from the installed distribution's metadata (the one source: pyproject.toml)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("trustscore")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"
