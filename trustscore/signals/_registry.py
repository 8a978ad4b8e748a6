"""The signal registry: every judge and local signal, built-in or third-party, is found here by name.

    @register_signal("my_judge", config=MyJudgeConfig, kind="judge")
    def build_my_judge(config: MyJudgeConfig, ctx: SignalContext) -> Judge: ...

A registration names the signal, the pydantic model of its config section and a factory
``(section, ctx) -> source``, and carries what others need to know of the signal, so no other module
knows it by name: its default fusion ``weight`` and, for a judge, the ``example_answers`` the test
kit's fake server replays for requests tagged with its name. Judges are configured under
``[judges.<name>]`` (their model extends :class:`~trustscore.signals.JudgeConfig`, which names the
endpoint) and local signals under ``[signals.<name>]``, built-ins and plug-ins alike. A judge class
built from its section alone registers with :func:`register_judge`.

A judge may also register its ``cost`` model (worst-case requests and decoded tokens per sample, for
``trustscore serve``) and ``cpu_settings`` (the settings a CPU server can finish).

The built-in signals are declared by the composition root (:mod:`trustscore.scoring._builtins`, with
:func:`declare_builtins`) and imported on first use of the registry; third-party packages register
through the entry-point group ``trustscore.signals``, whose entry names are the signal names and
whose values are the modules (or objects) whose import registers them.
"""

from __future__ import annotations

import difflib
import importlib
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from trustscore._errors import ConfigError
from trustscore.signals._config import JudgeConfig
from trustscore.signals._cost import CostModel
from trustscore.signals._protocols import SignalKind

if TYPE_CHECKING:
    from trustscore.signals._context import SignalContext
    from trustscore.signals._protocols import Judge, LocalSignal

__all__ = [
    "DEFAULT_WEIGHTS",
    "ENTRY_POINT_GROUP",
    "ExampleAnswer",
    "SignalKind",
    "SignalSpec",
    "declare_builtins",
    "get_signal",
    "register_judge",
    "register_signal",
    "registered_signals",
    "resolve_section",
    "signal_weights",
]

logger = logging.getLogger("trustscore")

ENTRY_POINT_GROUP = "trustscore.signals"

_builtin_modules: list[str] = []
"""Modules whose import registers the built-in signals, in the order results list them (declared by
the composition root)."""

_SECTION_TABLE: dict[str, str] = {"judge": "judges", "local": "signals"}

DEFAULT_WEIGHTS: Mapping[SignalKind, float] = MappingProxyType({"judge": 1.0, "local": 0.5})
"""Fusion weight of a signal that names none: a judge answers "is the response supported?" and its
value is meant as that probability (1.0); a local signal's value is less direct (0.5)."""


@dataclass(frozen=True)
class ExampleAnswer:
    """One completion a judge's model typically gives: its text and, optionally, the probabilities
    at its verdict token. The test kit replays these for requests tagged with the judge's name."""

    text: str
    verdict_probs: Mapping[str, float] | None = None


Factory = Callable[[Any, "SignalContext"], "Judge | LocalSignal | None"]
"""``(section, ctx) -> source``."""

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class SignalSpec:
    """One registered signal: what it is called, how it is configured and how it is built."""

    name: str
    kind: SignalKind
    config: type[BaseModel]
    build: Factory
    install_hint: str | None
    """What to install when the factory's imports fail (e.g. ``pip install 'trustscore-plugin[gpu]'``)."""
    origin: str
    """The module that registered it (for messages)."""
    weight: float
    """Its weight in the uncalibrated default fusion."""
    on_by_default: bool = False
    """Runs without a config section, with its model's defaults (``enabled = false`` turns it off)."""
    example_answers: Mapping[str, tuple[ExampleAnswer, ...]] = field(default_factory=dict)
    """Judges: request kind (the tag before ``@``: the judge's name, or ``<name>.<step>`` for a judge
    that sends several kinds of request) -> the answers the test kit gives it by default."""
    cost: CostModel | None = None
    """Judges: the worst case of one sample for a config section; None when the judge registered none."""
    cpu_settings: Mapping[str, Any] = field(default_factory=dict)
    """Judges: settings a CPU server can finish within a budget (``trustscore serve`` suggests them)."""

    @property
    def section(self) -> str:
        """Dotted path of its config section: ``judges.<name>`` or ``signals.<name>``."""
        return f"{_SECTION_TABLE[self.kind]}.{self.name}"


_REGISTRY: dict[str, SignalSpec] = {}
_broken_entry_points: dict[str, str] = {}
_builtins_imported: set[str] = set()
_plugins_loaded = False


def register_signal(
    name: str,
    *,
    config: type[BaseModel],
    kind: SignalKind,
    install_hint: str | None = None,
    weight: float | None = None,
    example_answers: Mapping[str, ExampleAnswer | Sequence[ExampleAnswer]] | None = None,
    on_by_default: bool = False,
    cost: CostModel | None = None,
    cpu_settings: Mapping[str, Any] | None = None,
) -> Callable[[F], F]:
    """Register ``factory(section, ctx)`` as the signal ``name`` (decorator; returns the factory as is).

    ``config`` validates the signal's config section; a judge's must extend ``JudgeConfig``.
    ``weight`` is its default fusion weight (default: :data:`DEFAULT_WEIGHTS` of its kind);
    ``example_answers`` are a judge's typical answers by request kind, for the test kit.
    ``on_by_default`` runs the signal without a section (its model's defaults must validate).
    ``cost`` and ``cpu_settings`` (judges) are its worst case per sample and the settings a CPU
    server can finish; ``cpu_settings`` must validate with ``config``.
    Registering a taken name raises :class:`~trustscore._errors.ConfigError`, so a plug-in cannot
    silently replace a built-in.
    """
    if kind not in _SECTION_TABLE:
        raise ConfigError(f"register_signal({name!r}): kind must be 'judge' or 'local', not {kind!r}")
    if not name.isidentifier():
        raise ConfigError(
            f"register_signal({name!r}): a signal name must be a Python identifier (letters, digits, _)"
        )
    if not (isinstance(config, type) and issubclass(config, BaseModel)):
        raise ConfigError(f"register_signal({name!r}): config must be a pydantic model class")
    if kind == "judge" and not issubclass(config, JudgeConfig):
        raise ConfigError(
            f"register_signal({name!r}): a judge's config must extend trustscore.JudgeConfig "
            "(it names the endpoint the judge asks)"
        )
    if weight is not None and not (weight > 0 and weight < float("inf")):
        raise ConfigError(f"register_signal({name!r}): weight must be a positive number, not {weight!r}")
    answers = _example_answers(name, example_answers or {})
    if kind != "judge" and (cost is not None or cpu_settings):
        raise ConfigError(f"register_signal({name!r}): only a judge has a cost model and CPU settings")
    unknown = sorted(set(cpu_settings or {}) - set(config.model_fields))
    if unknown:
        raise ConfigError(f"register_signal({name!r}): cpu_settings name no setting of {config.__name__}: "
                          f"{', '.join(unknown)}")

    def decorator(factory: F) -> F:
        _load_builtins()  # built-ins first, so a clash with one is caught here
        spec = SignalSpec(
            name=name,
            kind=kind,
            config=config,
            build=factory,
            install_hint=install_hint,
            origin=getattr(factory, "__module__", "?"),
            weight=DEFAULT_WEIGHTS[kind] if weight is None else weight,
            example_answers=answers,
            on_by_default=on_by_default,
            cost=cost,
            cpu_settings=MappingProxyType(dict(cpu_settings or {})),
        )
        taken = _REGISTRY.get(name)
        if taken is not None and taken.build is not factory:
            raise ConfigError(
                f"signal {name!r} is already registered by {taken.origin}; pick another name for the one "
                f"in {spec.origin}"
            )
        _REGISTRY[name] = spec
        return factory

    return decorator


J = TypeVar("J", bound=type)


def register_judge(
    name: str,
    *,
    config: type[JudgeConfig],
    weight: float | None = None,
    example_answers: Mapping[str, ExampleAnswer | Sequence[ExampleAnswer]] | None = None,
    cost: CostModel | None = None,
    cpu_settings: Mapping[str, Any] | None = None,
) -> Callable[[J], J]:
    """Register a judge class built from its config section alone, ``cls(section)`` (class decorator;
    returns the class as is). The arguments are those of :func:`register_signal`."""

    def decorator(cls: J) -> J:
        def build(section: JudgeConfig, ctx: SignalContext) -> Any:
            return cls(section)

        build.__module__ = cls.__module__
        build.__qualname__ = f"{cls.__qualname__}.<factory>"
        register = register_signal(
            name,
            config=config,
            kind="judge",
            weight=weight,
            example_answers=example_answers,
            cost=cost,
            cpu_settings=cpu_settings,
        )
        register(build)
        return cls

    return decorator


def signal_weights() -> dict[str, float]:
    """The default fusion weight of every registered signal, by name."""
    return {name: spec.weight for name, spec in registered_signals().items()}


def _example_answers(
    name: str, given: Mapping[str, ExampleAnswer | Sequence[ExampleAnswer]]
) -> Mapping[str, tuple[ExampleAnswer, ...]]:
    out: dict[str, tuple[ExampleAnswer, ...]] = {}
    for kind, answers in given.items():
        if kind != name and not kind.startswith(name + "."):
            raise ConfigError(
                f"register_signal({name!r}): example answers are keyed by request kind, {name!r} or "
                f"'{name}.<step>', not {kind!r}"
            )
        out[kind] = (answers,) if isinstance(answers, ExampleAnswer) else tuple(answers)
    return MappingProxyType(out)


def registered_signals(kind: SignalKind | None = None) -> dict[str, SignalSpec]:
    """Every registered signal (of one kind): built-ins first, in the order their modules were
    declared, then plug-ins in registration order."""
    _load()
    specs = [s for s in _REGISTRY.values() if kind is None or s.kind == kind]
    return {s.name: s for s in sorted(specs, key=_builtin_rank)}


def _builtin_rank(spec: SignalSpec) -> int:
    """The index of the declared built-in module ``spec`` comes from; plug-ins after all of them."""
    for index, module in enumerate(_builtin_modules):
        if spec.origin == module or spec.origin.startswith(module + "."):
            return index
    return len(_builtin_modules)


def get_signal(name: str, *, kind: SignalKind | None = None) -> SignalSpec:
    """The registration of ``name``; an unknown name is a ConfigError listing the known ones."""
    _load()
    spec = _REGISTRY.get(name)
    if spec is None:
        if name in _broken_entry_points:
            raise ConfigError(
                f"signal {name!r} comes from a plug-in that failed to load: {_broken_entry_points[name]}"
            )
        raise ConfigError(_unknown(name, kind))
    if kind is not None and spec.kind != kind:
        raise ConfigError(f"{name!r} is a {_KIND_WORDS[spec.kind]}, configured under [{spec.section}]")
    return spec


def resolve_section(kind: SignalKind, name: str, raw: Any) -> BaseModel:
    """Validate the ``[judges.<name>]`` / ``[signals.<name>]`` table with the signal's own model."""
    spec = get_signal(name, kind=kind)
    if isinstance(raw, spec.config):
        return raw
    if isinstance(raw, BaseModel):
        raw = raw.model_dump(exclude_unset=True)
    try:
        return spec.config.model_validate(raw)
    except ValidationError as e:  # the same errors, located under the signal's name
        raise ValidationError.from_exception_data(
            e.title,
            [
                {
                    "type": err["type"],
                    "loc": (name, *err["loc"]),
                    "input": err["input"],
                    "ctx": err.get("ctx", {}),
                }
                for err in e.errors()
            ],
        ) from None


_KIND_WORDS = {"judge": "judge", "local": "local signal"}


def _unknown(name: str, kind: SignalKind | None) -> str:
    known = [n for n, s in _REGISTRY.items() if kind is None or s.kind == kind]
    what = _KIND_WORDS[kind] if kind else "signal"
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return (
        f"unknown {what} {name!r}{hint} (registered: {', '.join(known) or 'none'}; a plug-in registers "
        f"with @trustscore.register_signal or the {ENTRY_POINT_GROUP!r} entry-point group)"
    )


def declare_builtins(modules: Sequence[str]) -> None:
    """Declare the modules whose import registers the built-in signals (the composition root does,
    once); they are imported on first use of the registry, before any plug-in."""
    _builtin_modules.extend(m for m in modules if m not in _builtin_modules)


def _load_builtins() -> None:
    for module in list(_builtin_modules):
        if module not in _builtins_imported:
            _builtins_imported.add(module)
            importlib.import_module(module)


def _load() -> None:
    """Import the built-ins, then the plug-ins of the entry-point group, once per process."""
    global _plugins_loaded
    _load_builtins()
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            ep.load()
        except Exception as e:
            reason = f"{ep.value}: {type(e).__name__}: {e}"
            logger.warning("trustscore plug-in %s failed to load (%s)", ep.name, reason)
            _broken_entry_points[ep.name] = reason
            continue
        if ep.name not in _REGISTRY:
            _broken_entry_points[ep.name] = f"{ep.value} loaded but registered no signal named {ep.name!r}"
