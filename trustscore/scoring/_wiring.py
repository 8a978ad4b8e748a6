"""Building the Scorer's sources and fuser from the config: the registered signals it enables, plus
injected ones, each bound to what it needs.

Judges come from ``[judges.<name>]`` and are bound to the LLM of the endpoint their section names;
local signals come from their section (``[signals.<name>]`` or the shared one they registered with).
Factories run here, once per Scorer, and see a :class:`~trustscore.signals.SignalContext` (LLMs by
name, the local cache), never the Config; heavy modules load only for the signals that are on.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TypeVar

from trustscore._config import Config
from trustscore._errors import ConfigError, EndpointUnavailable, InputError
from trustscore.fusion._fuser import DefaultFuser, Fuser
from trustscore.scoring._endpoints import Endpoints
from trustscore.scoring._runners import JudgeSource, LocalSource, Source, UnavailableSource
from trustscore.signals import (
    DEFAULT_WEIGHTS,
    JudgeConfig,
    SignalContext,
    SignalSpec,
    registered_signals,
    signal_weights,
)
from trustscore.signals._protocols import DeclaresKind, Judge, LocalSignal, SignalKind

__all__ = ["SKIPPED_NOTE", "build_sources", "pick_fuser"]

logger = logging.getLogger("trustscore")

SKIPPED_NOTE = "; it is skipped (no result is degraded for it)"
"""How the reason a signal is skipped (``Scorer.skipped``) ends, after why and the install to add it."""


def build_sources(
    config: Config,
    endpoints: Endpoints,
    *,
    judges: Sequence[Judge] | None,
    local_signals: Sequence[LocalSignal] | None,
    extra: Sequence[Judge | LocalSignal],
    skipped: dict[str, str] | None = None,
    warn_skipped: bool = True,
) -> list[Source]:
    """Configured judges (or ``judges``), configured local signals (or ``local_signals``), then
    ``extra``; two sources with one name are a ConfigError. A signal on by default whose extra is not
    installed, and which the config does not name (in its section or a cascade stage), is no source: it
    goes into ``skipped`` with the reason and the install to add it, and is warned about once a process
    when ``warn_skipped`` (a signal the config names stays, missing with its reason)."""
    ctx = SignalContext(
        llm=endpoints.llm, endpoint_names=endpoints.names, local_cache=lambda: endpoints.local_cache
    )
    binder = _JudgeBinder(config, endpoints)
    sources: list[Source] = []
    if judges is None:
        for spec in registered_signals("judge").values():
            section = config.judges.get(spec.name)
            if section is not None and section.enabled:
                sources.append(_configured_judge(spec, section, ctx, binder))
    else:
        sources.extend(
            binder.bind(_of_kind(judge, "judge", f"judges[{i}]")) for i, judge in enumerate(judges)
        )
    if local_signals is None:
        for spec in registered_signals("local").values():
            local = _configured_local(spec, config, ctx, endpoints)
            staged = any(spec.name in stage.signals for stage in config.cascade.stages)
            unasked = config.signals.get(spec.name) is None and not staged
            if isinstance(local, UnavailableSource) and local.not_installed and unasked:
                if skipped is not None:
                    skipped[spec.name] = _skipping(spec, local.reason, warn=warn_skipped)
                continue
            if isinstance(local, UnavailableSource):
                logger.warning("%s", local.reason)
            if local is not None:
                sources.append(local)
    else:
        sources.extend(
            LocalSource(_of_kind(signal, "local", f"local_signals[{i}]"), endpoints.local_cache)
            for i, signal in enumerate(local_signals)
        )
    for i, source in enumerate(extra):
        if _declared_kind(source, f"signals[{i}]") == "judge":
            sources.append(binder.bind(source))  # type: ignore[arg-type]
        else:
            sources.append(LocalSource(source, endpoints.local_cache))  # type: ignore[arg-type]
    names = [s.name for s in sources]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(
            f"two signal sources share the name(s) {duplicates}; give each a unique name, or pass "
            "judges=[...] / local_signals=[...] to replace the configured ones"
        )
    return sources


def _declared_kind(source: object, where: str) -> SignalKind:
    """Which kind an injected source of a mixed list is: what it declares (:class:`DeclaresKind`)."""
    name = _source_name(source, where)
    if isinstance(source, DeclaresKind) and source.kind in ("judge", "local"):
        return source.kind
    declared = f", not {source.kind!r}" if isinstance(source, DeclaresKind) else ""
    raise ConfigError(
        f"{where} ({type(source).__name__} {name!r}) does not say whether it is a judge or a local "
        f'signal: give its class kind = "judge" (async run(sample, llm)) or kind = "local" (async '
        f"run(sample)){declared}, or pass it in judges=[...] or local_signals=[...]"
    )


_Source = TypeVar("_Source", bound=Judge | LocalSignal)


def _of_kind(source: _Source, kind: SignalKind, where: str) -> _Source:
    """``source``, passed where a ``kind`` belongs; refused when it declares the other kind."""
    name = _source_name(source, where)
    if isinstance(source, DeclaresKind) and source.kind != kind:
        other = "judges" if source.kind == "judge" else "local_signals"
        raise ConfigError(
            f"{where} ({type(source).__name__} {name!r}) declares kind = {source.kind!r}: pass it in "
            f"{other}=[...] or signals=[...]"
        )
    return source


def _source_name(source: object, where: str) -> str:
    if isinstance(source, Judge | LocalSignal) and isinstance(source.name, str):
        return source.name
    raise InputError(
        f"{where} is a {type(source).__name__}: a signal source needs a name, a version and "
        "async run(sample) (a local signal) or async run(sample, llm) (a judge)"
    )


def _configured_judge(
    spec: SignalSpec, section: JudgeConfig, ctx: SignalContext, binder: _JudgeBinder
) -> Source:
    try:
        judge = spec.build(section, ctx)
    except ImportError as e:
        missing = _missing_extra(spec, e, judge=True)
        logger.warning("%s", missing.reason)
        return missing
    except (ValueError, OSError) as e:
        raise ConfigError(f"{spec.section}: {e}") from e
    if judge is None:
        raise ConfigError(f"{spec.section}: the factory of judge {spec.name!r} ({spec.origin}) returned None")
    return binder.bind(judge, endpoint=section.endpoint, timeout_s=section.timeout_s)  # type: ignore[arg-type]


class _JudgeBinder:
    """Binds a judge to its endpoint's LLM: its [judges.<name>] endpoint, else the only one."""

    def __init__(self, config: Config, endpoints: Endpoints) -> None:
        self._config = config
        self._endpoints = endpoints

    def bind(self, judge: Judge, *, endpoint: str | None = None, timeout_s: float | None = None) -> Source:
        if endpoint is None:
            section = self._config.judges.get(judge.name)
            names = self._endpoints.names
            if section is not None:
                endpoint, timeout_s = section.endpoint, section.timeout_s
            elif len(names) == 1:
                endpoint = names[0]
            else:
                raise ConfigError(
                    f'judge {judge.name!r} has no LLM: add [judges.{judge.name}] endpoint = "..." to the '
                    f"config or pass llms={{endpoint_name: llm}}"
                )
        try:
            llm = self._endpoints.llm(endpoint)
        except EndpointUnavailable as e:  # an unset key: a rerun after exporting it fixes this
            logger.warning("judge %s is unavailable: %s", judge.name, e)
            return UnavailableSource(judge.name, str(e), judge=True, transient=True)
        return JudgeSource(judge, llm, timeout_s)


def _configured_local(
    spec: SignalSpec, config: Config, ctx: SignalContext, endpoints: Endpoints
) -> Source | None:
    section = config.signals.get(spec.name)
    if section is None and spec.on_by_default:
        section = spec.config()
    if section is None or getattr(section, "enabled", True) is False:
        return None
    try:
        signal = spec.build(section, ctx)
    except ImportError as e:
        return _missing_extra(spec, e, judge=False)
    except (ValueError, OSError) as e:
        raise ConfigError(f"{spec.section}: {e}") from e
    return None if signal is None else LocalSource(signal, endpoints.local_cache)  # type: ignore[arg-type]


def _missing_extra(spec: SignalSpec, error: ImportError, *, judge: bool) -> UnavailableSource:
    hint = f"; install it with {spec.install_hint}" if spec.install_hint else ""
    reason = f"{spec.name} signal is enabled but cannot be loaded ({error}){hint}"
    return UnavailableSource(spec.name, reason, judge=judge, not_installed=True)


_said_skipped: set[str] = set()
"""The on-by-default signals whose skipping this process has warned about (once each, not per Scorer)."""


def _skipping(spec: SignalSpec, reason: str, *, warn: bool) -> str:
    why = reason.replace("is enabled but cannot be loaded", "is on by default but not installed", 1)
    said = f"{why}{SKIPPED_NOTE}"
    if warn and spec.name not in _said_skipped:
        _said_skipped.add(spec.name)
        logger.warning("%s", said)
    return said


def pick_fuser(config: Config, sources: Sequence[Source]) -> Fuser:
    """The configured calibrator (checked against the sources' signal versions); else the shipped
    calibrator fitted on exactly these signals and versions (trustscore.calibrators); else the
    default fuser (a weighted log-odds pool with each signal's registered weight; an injected
    signal gets its kind's), in which the shipped calibrator of the offline signals that run, if
    there is one, speaks for them as one voice and its evidence terms still decide."""
    signal_versions = {s.name: s.version for s in sources}
    fusion = config.fusion
    if fusion.calibrator is None:
        from trustscore.calibrators import shipped_calibrator

        registered = signal_weights()
        weights = {
            s.name: registered.get(s.name, DEFAULT_WEIGHTS["judge" if s.is_judge else "local"])
            for s in sources
        }
        installed = {
            s.name: s.version
            for s in sources
            if not (isinstance(s, UnavailableSource) and s.not_installed and not s.is_judge)
        }
        offline = {s.name: s.version for s in sources if not s.is_judge and s.name in installed}
        return shipped_calibrator(installed) or DefaultFuser(weights, offline=shipped_calibrator(offline))
    from trustscore.fusion import load_fuser as load

    try:
        fuser: Fuser = load(fusion, signal_versions=signal_versions)
    except ValueError as e:
        raise ConfigError(f"fusion.calibrator: {e}") from e
    return fuser
