"""The module-level :func:`score` and :func:`score_sync`, and the config they score with.

The config is the first of, in this order (docs/config.md, "Which config score() uses"):

1. the call's ``config=`` argument, else what :func:`configure` set (a Config or a TOML file);
2. the TOML file ``$TRUSTSCORE_CONFIG`` names;
3. ``trustscore.toml`` in the working directory;
4. ``[tool.trustscore]`` in ``pyproject.toml`` in the working directory;
5. the offline default, ``Config()``.

Each result's ``config_source`` says which. A file is read again when it changes (its size and
modification time are checked on each call), and so is every choice when a ``TRUSTSCORE_*`` variable
changes. The Scorer built for a config is kept per event loop, since its clients and limiters belong to
the loop that made them; a config change builds a new one, and the old one is closed once its last
call has finished.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from anyio.lowlevel import RunVar

from trustscore._config import Config
from trustscore._errors import ConfigError, InputError
from trustscore._types import TrustScore
from trustscore.scoring._inputs import checked_arguments
from trustscore.scoring._scorer import Scorer

if TYPE_CHECKING:
    import httpx

__all__ = ["CONFIG_ENV", "configure", "default_scorer", "score", "score_sync"]

CONFIG_ENV = "TRUSTSCORE_CONFIG"
"""The environment variable that names the TOML file :func:`score` uses."""

ConfigLike = Config | str | Path


@dataclass(frozen=True)
class _Chosen:
    config: Config
    source: str
    """What ``TrustScore.config_source`` says."""


_configured: ConfigLike | None = None
_transport: httpx.AsyncBaseTransport | None = None


def configure(config: ConfigLike | None = None, *, transport: httpx.AsyncBaseTransport | None = None) -> None:
    """Set the config :func:`trustscore.score` and :func:`trustscore.score_sync` use: a
    :class:`~trustscore.Config` or a TOML file's path (read again when it changes). ``None`` goes
    back to finding one ($TRUSTSCORE_CONFIG, ./trustscore.toml, ./pyproject.toml's
    ``[tool.trustscore]``, else the offline default).

    ``transport`` (an httpx transport) is handed to every LLM client those calls build, as
    ``Scorer(transport=...)`` takes it: how an application's tests route its ``score()`` calls to
    the test kit's ``MockRouter().transport``; ``None`` is the network.
    """
    global _configured, _transport
    if config is not None:
        _choose_given(config, "configure()")  # a bad argument or file fails here, not on a later call
    _configured, _transport = config, transport


def _choose(config: ConfigLike | None) -> _Chosen:
    if config is not None:
        return _choose_given(config, "config=")
    if _configured is not None:
        return _choose_given(_configured, "configure()")
    env = _environment()
    named = os.environ.get(CONFIG_ENV)
    if named:
        if not Path(named).is_file():
            raise ConfigError(f"${CONFIG_ENV} names {named}, which is not a file: fix or unset it")
        return _read_file(Path(named), f"${CONFIG_ENV}", env)
    own = Path("trustscore.toml")
    if own.is_file():
        return _read_file(own, "trustscore.toml", env)
    pyproject = Path("pyproject.toml")
    if pyproject.is_file():
        found = _read_pyproject(str(pyproject.resolve()), *_stamp(pyproject), env)
        if found is not None:
            return found
    return _offline_default(env)


def _choose_given(config: ConfigLike, how: str) -> _Chosen:
    if isinstance(config, Config):
        return _Chosen(config, how)
    if isinstance(config, str | Path) and str(config):
        return _read_file(Path(config), how, _environment())
    raise InputError(
        f"{how.rstrip('=()')}: pass a trustscore.Config or a TOML file's path (got {type(config).__name__})"
    )


def _environment() -> tuple[tuple[str, str], ...]:
    """The TRUSTSCORE_* variables: they override settings of every Config built (docs/config.md)."""
    return tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("TRUSTSCORE_")))


def _stamp(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_mtime_ns, st.st_size


def _read_file(path: Path, how: str, env: tuple[tuple[str, str], ...]) -> _Chosen:
    if not path.is_file():  # Config.from_toml says why
        Config.from_toml(path)
    chosen = _read_toml(str(path.resolve()), *_stamp(path), env)
    return _Chosen(chosen.config, f"{how} {chosen.source}" if how.startswith("$") else chosen.source)


@lru_cache(maxsize=8)
def _read_toml(path: str, mtime_ns: int, size: int, env: tuple[tuple[str, str], ...]) -> _Chosen:
    return _Chosen(Config.from_toml(path), path)


@lru_cache(maxsize=8)
def _read_pyproject(path: str, mtime_ns: int, size: int, env: tuple[tuple[str, str], ...]) -> _Chosen | None:
    try:
        table = tomllib.loads(Path(path).read_text(encoding="utf-8")).get("tool", {}).get("trustscore")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path} cannot be read for [tool.trustscore]: {e}") from None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.trustscore] must be a table")
    source = f"{path} [tool.trustscore]"
    return _Chosen(Config.from_dict(table, base_dir=Path(path).parent, source=source), source)


@lru_cache(maxsize=8)
def _offline_default(env: tuple[tuple[str, str], ...]) -> _Chosen:
    return _Chosen(Config(), "default")


@dataclass
class _Held:
    """The Scorer of one config on one event loop, and the calls using it now."""

    chosen: _Chosen
    transport: httpx.AsyncBaseTransport | None
    scorer: Scorer
    users: int = 0
    retired: bool = False

    def serves(self, chosen: _Chosen) -> bool:
        same = self.chosen.config is chosen.config and self.chosen.source == chosen.source
        return same and self.transport is _transport


_held: RunVar[_Held] = RunVar("trustscore_default_scorer")


def _hold(chosen: _Chosen) -> tuple[_Held, _Held | None]:
    """This loop's Scorer for ``chosen`` (built on first need) and the one it replaces, if any."""
    try:
        held: _Held | None = _held.get()
    except LookupError:
        held = None
    if held is not None and held.serves(chosen):
        return held, None
    scorer = Scorer(chosen.config, transport=_transport)
    scorer.config_source = chosen.source
    new = _Held(chosen, _transport, scorer)
    _held.set(new)
    if held is not None:
        held.retired = True
    return new, held


async def _close_if_done(held: _Held) -> None:
    if held.retired and held.users == 0:
        with anyio.CancelScope(shield=True):
            await held.scorer.aclose()


def default_scorer() -> Scorer:
    """The Scorer :func:`score` uses now in this event loop (built on first use)."""
    held, _ = _hold(_choose(None))
    return held.scorer


@checked_arguments
async def score(
    *,
    question: str,
    response: str,
    context: str | Sequence[str] | None = None,
    id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    budget_s: float | None = None,
    config: ConfigLike | None = None,
    domain: str | None = None,
) -> TrustScore:
    """Score one answer with the config :func:`configure` set or the one found (``config=`` for
    this call alone): see this module's docstring for the order. Without one, the offline default.
    ``domain`` names the sample's domain, whose adaptation an adapted calibrator uses."""
    held, replaced = _hold(_choose(config))
    if replaced is not None:
        await _close_if_done(replaced)
    held.users += 1
    try:
        return await held.scorer.score(
            question=question,
            context=context,
            response=response,
            id=id,
            metadata=metadata,
            budget_s=budget_s,
            domain=domain,
        )
    finally:
        held.users -= 1
        await _close_if_done(held)


async def _release() -> None:
    """Close this loop's Scorer: a blocking call's own event loop ends with it."""
    try:
        held = _held.get()
    except LookupError:
        return
    held.retired = True
    await _close_if_done(held)


@checked_arguments
def score_sync(
    *,
    question: str,
    response: str,
    context: str | Sequence[str] | None = None,
    id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    budget_s: float | None = None,
    config: ConfigLike | None = None,
    domain: str | None = None,
) -> TrustScore:
    """Blocking :func:`trustscore.score` (works inside a running event loop too)."""
    from trustscore.scoring._sync import run_sync_releasing

    return run_sync_releasing(
        score,
        _release,
        question=question,
        context=context,
        response=response,
        id=id,
        metadata=metadata,
        budget_s=budget_s,
        config=config,
        domain=domain,
    )
