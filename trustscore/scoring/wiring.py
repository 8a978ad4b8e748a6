"""Building the Scorer's sources: the registered signals the config enables, plus injected ones.

Judges come from ``[judges.<name>]`` and are bound to the LLM of the endpoint their section names;
local signals come from their section (``[signals.<name>]`` or the shared one they registered with).
Factories run here, once per Scorer; heavy modules load only for the signals that are on.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Mapping, Sequence

from pydantic import BaseModel

from trustscore.errors import ConfigError, EndpointUnavailable, InputError
from trustscore.fusion.fuser import DefaultFuser, Fuser
from trustscore.judges.config import JudgeConfig
from trustscore.scoring.runners import JudgeSource, LocalSource, Source, UnavailableSource
from trustscore.signals._context import SignalContext
from trustscore.signals._protocols import Judge, LocalSignal
from trustscore.signals._registry import SignalSpec, registered_signals

__all__ = ["build_sources", "is_judge", "load_fuser"]

logger = logging.getLogger("trustscore")


def build_sources(
    ctx: SignalContext,
    *,
    judges: Sequence[Judge] | None,
    local_signals: Sequence[LocalSignal] | None,
    extra: Sequence[Judge | LocalSignal],
) -> list[Source]:
    """Configured judges (or ``judges``), configured local signals (or ``local_signals``), then
    ``extra``; two sources with one name are a ConfigError."""
    sources: list[Source] = []
    if judges is None:
        for spec in registered_signals("judge").values():
            section = ctx.config.judges.get(spec.name)
            if section is not None and section.enabled:
                sources.append(_configured_judge(spec, section, ctx))
    else:
        sources.extend(_bind_judge(judge, ctx) for judge in judges)
    if local_signals is None:
        for spec in registered_signals("local").values():
            local = _configured_local(spec, ctx)
            if local is not None:
                sources.append(local)
    else:
        sources.extend(LocalSource(signal, ctx.local_cache) for signal in local_signals)
    for i, source in enumerate(extra):
        sources.append(
            _bind_judge(source, ctx) if is_judge(source, i) else LocalSource(source, ctx.local_cache)  # type: ignore[arg-type]
        )
    names = [s.name for s in sources]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(
            f"two signal sources share the name(s) {duplicates}; give each a unique name, or pass "
            "judges=[...] / local_signals=[...] to replace the configured ones"
        )
    return sources


def is_judge(source: object, index: int) -> bool:
    """A judge's ``run`` takes (sample, llm), a local signal's takes (sample)."""
    run = getattr(source, "run", None)
    if not (isinstance(getattr(source, "name", None), str) and callable(run)):
        raise InputError(
            f"signals[{index}] is a {type(source).__name__}: a signal source needs a name and "
            "async run(sample) (local signal) or async run(sample, llm) (judge)"
        )
    params = [
        p
        for p in inspect.signature(run).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    return len(params) >= 2


def _configured_judge(spec: SignalSpec, section: JudgeConfig, ctx: SignalContext) -> Source:
    try:
        judge = spec.build(section, ctx)
    except ImportError as e:
        return _missing_extra(spec, e, judge=True)
    except (ValueError, OSError) as e:
        raise ConfigError(f"{spec.section}: {e}") from e
    if judge is None:
        raise ConfigError(f"{spec.section}: the factory of judge {spec.name!r} ({spec.origin}) returned None")
    return _bind_judge(judge, ctx, endpoint=section.endpoint, timeout_s=section.timeout_s)  # type: ignore[arg-type]


def _bind_judge(
    judge: Judge, ctx: SignalContext, *, endpoint: str | None = None, timeout_s: float | None = None
) -> Source:
    """The judge bound to its endpoint's LLM: its [judges.<name>] endpoint, else the only one."""
    if endpoint is None:
        section = ctx.config.judges.get(judge.name)
        if section is not None:
            endpoint, timeout_s = section.endpoint, section.timeout_s
        elif len(ctx.endpoint_names) == 1:
            endpoint = ctx.endpoint_names[0]
        else:
            raise ConfigError(
                f'judge {judge.name!r} has no LLM: add [judges.{judge.name}] endpoint = "..." to the config '
                f"or pass llms={{endpoint_name: llm}}"
            )
    try:
        llm = ctx.llm(endpoint)
    except EndpointUnavailable as e:  # an unset key: a rerun after exporting it fixes this
        logger.warning("judge %s is unavailable: %s", judge.name, e)
        return UnavailableSource(judge.name, str(e), judge=True, transient=True)
    return JudgeSource(judge, llm, timeout_s)


def _configured_local(spec: SignalSpec, ctx: SignalContext) -> Source | None:
    section = _section(ctx, spec.section)
    if section is None or getattr(section, "enabled", True) is False:
        return None
    try:
        signal = spec.build(section, ctx)
    except ImportError as e:
        return _missing_extra(spec, e, judge=False)
    except (ValueError, OSError) as e:
        raise ConfigError(f"{spec.section}: {e}") from e
    return None if signal is None else LocalSource(signal, ctx.local_cache)  # type: ignore[arg-type]


def _section(ctx: SignalContext, path: str) -> BaseModel | None:
    """The config section at a dotted path (``grounding``, ``signals.mine``); None when absent."""
    node: object = ctx.config
    for part in path.split("."):
        node = getattr(node, part, None)
        if node is None:
            return None
    if not isinstance(node, BaseModel):
        raise ConfigError(f"[{path}] is a setting, not a section")
    return node


def _missing_extra(spec: SignalSpec, error: ImportError, *, judge: bool) -> Source:
    hint = f"; install it with {spec.install_hint}" if spec.install_hint else ""
    reason = f"{spec.name} signal is enabled but cannot be loaded ({error}){hint}"
    logger.warning("%s", reason)
    return UnavailableSource(spec.name, reason, judge=judge)


def load_fuser(ctx: SignalContext, signal_versions: Mapping[str, str | None]) -> Fuser:
    """The configured calibrator (checked against these signal versions); else the shipped calibrator
    fitted on exactly these signals and versions (trustscore.calibrators); else the default fuser
    (a weighted log-odds pool)."""
    fusion = ctx.config.fusion
    if fusion.calibrator is None:
        from trustscore.calibrators import shipped_calibrator

        return shipped_calibrator(signal_versions) or DefaultFuser()
    from trustscore.fusion import load_fuser as load

    try:
        fuser: Fuser = load(fusion, signal_versions=signal_versions)
    except ValueError as e:
        raise ConfigError(f"fusion.calibrator: {e}") from e
    return fuser
