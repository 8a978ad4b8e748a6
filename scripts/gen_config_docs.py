"""The configuration reference (docs/config.md), generated from the config models' ``description=``.

    python scripts/gen_config_docs.py           # rewrite docs/config.md
    python scripts/gen_config_docs.py --check   # exit 1 when docs/config.md is stale

tests/test_config_docs.py fails when the file is stale, so a new setting is documented by
giving its Field a description and re-running this script.
"""

from __future__ import annotations

import inspect
import sys
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from trustscore._config import ENV_DEFAULTS, ENV_OVERRIDES, Config, JudgesConfig, SignalsConfig
from trustscore._errors import CONFIG_REFERENCE
from trustscore.llm._config import EndpointConfig
from trustscore.signals._registry import registered_signals

__all__ = ["render"]

_INTRO = """\
# Configuration reference

Generated from the config models by `python scripts/gen_config_docs.py`;
do not edit by hand (tests/test_config_docs.py fails when this file is stale).

A config is one TOML file (`Scorer.from_config("trustscore.toml")`, `trustscore score --config ...`)
or the same data in code (`Config.from_dict({...})`). Every section is optional; the defaults run
offline with the local signals only. Unknown settings are refused with the setting's name. Relative
paths are read from the config file's folder. A mistyped setting is refused with the one meant
(`fusion.calibrater: unknown setting: did you mean 'calibrator'?`).

## Which config score() uses

`trustscore.score(...)` and `trustscore.score_sync(...)` use the first of:

1. the call's `config=` argument (a `Config` or a TOML file's path), else what
   `trustscore.configure(...)` set;
2. the TOML file `$TRUSTSCORE_CONFIG` names;
3. `trustscore.toml` in the working directory;
4. `[tool.trustscore]` in `pyproject.toml` in the working directory (the same tables under
   `tool.trustscore`, e.g. `[tool.trustscore.judges.lynx]`);
5. the offline default (`Config()`: the local signals only).

Each result's `config_source` says which (the file's path, `configure()`, `config=` or `default`).
A file is read again when it changes. `Scorer.from_config(path)` and `trustscore score --config`
read the file they are given.
"""


def render() -> str:
    """The whole reference as Markdown."""
    parts = [_INTRO, _env_section()]
    for name, field in Config.model_fields.items():
        annotation = field.annotation
        if name == "endpoints":
            parts.append(_model_section("endpoints.<name>", EndpointConfig, field.description))
        elif annotation is JudgesConfig:
            parts.append(_judges_section(field))
        elif annotation is SignalsConfig:
            parts.append(_signals_section(field))
        elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
            parts.append(_model_section(name, annotation, field.description))
    return "\n".join(parts).rstrip() + "\n"


def _env_section() -> str:
    lines = [
        "## Environment overrides",
        "",
        "Settings people change per deployment can be set from the environment. An override wins over",
        "the file; a default applies where the file does not give the setting. A value that does not",
        "fit the setting is refused like one from the file.",
        "",
        "| variable | setting | |",
        "|---|---|---|",
    ]
    lines += [f"| `{var}` | `{setting}` | override |" for var, setting in ENV_OVERRIDES.items()]
    lines += [f"| `{var}` | `{setting}` | default |" for var, setting in ENV_DEFAULTS.items()]
    return "\n".join(lines) + "\n"


def _judges_section(field: FieldInfo) -> str:
    out = [
        "## [judges.<name>]",
        "",
        f"{_sentence(field.description)} A judge runs when its table is present (and not",
        "`enabled = false`); `endpoint` names an entry under `[endpoints]`. A registered plug-in judge is",
        "configured the same way, with the settings of its own model.",
        "",
    ]
    for name, spec in registered_signals("judge").items():
        if spec.origin.startswith("trustscore."):
            out.append(_model_section(f"judges.{name}", spec.config, None, level=3))
    return "\n".join(out)


def _signals_section(field: FieldInfo) -> str:
    lines = [
        "## [signals.<name>]",
        "",
        f"{_sentence(field.description)} A present table turns the signal on (`enabled = false` turns",
        "it off); its settings are those of the model the signal registered. The built-in local signals:",
        "",
    ]
    own: list[str] = []
    for name, spec in registered_signals("local").items():
        if spec.origin.startswith("trustscore."):
            default = ", on by default" if spec.on_by_default else ""
            lines.append(f"- `{name}`: `[{spec.section}]`{default}")
            own.append(_model_section(f"signals.{name}", spec.config, None, level=3))
    lines += [
        "",
        "Removed, and refused with the sections to write instead: `[grounding]` (the lexical and",
        "embedding settings in one table: write `[signals.lexical]` and `[signals.embedding]`, the",
        "settings without their `lexical_` / `embedding_` prefix) and `[whitebox]` (write",
        "`[signals.redeep]` and `[signals.familiarity]`, each with `model_path`, `device` and `dtype`).",
    ]
    return "\n".join(lines) + "\n" + ("\n" + "\n".join(own) if own else "")


def _model_section(path: str, model: type[BaseModel], description: str | None, level: int = 2) -> str:
    doc = inspect.cleandoc(model.__doc__ or "").split("\n\n")[0].replace("\n", " ")
    intro = doc or _sentence(description)
    lines = [f"{'#' * level} [{path}]", ""]
    if intro:
        lines += [intro, ""]
    lines += ["| setting | type | default | description |", "|---|---|---|---|"]
    nested: list[str] = []
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            nested.append(_model_section(f"{path}.{name}", annotation, field.description, level))
            continue
        lines.append(
            f"| `{name}` | {_type(annotation)} | {_default(field)} | {_cell(field.description or '')} |"
        )
    return "\n".join(lines) + "\n\n" + "".join(f"{n}\n" for n in nested)


def _type(annotation: Any) -> str:
    origin = get_origin(annotation)
    if origin is Literal:
        return " \\| ".join(f'`"{a}"`' for a in get_args(annotation))
    if origin in (Union, types.UnionType):
        return " or ".join("none" if a is type(None) else _type(a) for a in get_args(annotation))
    if origin is not None:
        args = ", ".join(_type(a) for a in get_args(annotation) if a is not Ellipsis)
        return f"{getattr(origin, '__name__', str(origin))}[{args}]"
    return getattr(annotation, "__name__", str(annotation))


def _default(field: FieldInfo) -> str:
    if field.is_required():
        return "required"
    if field.default_factory is not None:
        return "see description" if field.description else "empty"
    value = field.default
    if value is None:
        return "none"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, str):
        return f'`"{_cell(value)}"`'
    if isinstance(value, tuple):
        return f"`{list(value)}`"
    return f"`{value!r}`"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|").replace("\n", " ")


def _sentence(text: str | None) -> str:
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text.endswith(".") else text + "."


def main(argv: list[str] | None = None) -> int:
    """Write docs/config.md, or with ``--check`` only say whether it is stale (exit status 1)."""
    args = sys.argv[1:] if argv is None else argv
    target = Path(__file__).resolve().parents[1] / CONFIG_REFERENCE
    text = render()
    if args == ["--check"]:
        if target.read_text(encoding="utf-8") != text:
            print(f"{target} is stale: run python scripts/gen_config_docs.py", file=sys.stderr)
            return 1
        return 0
    if args:
        print("usage: python scripts/gen_config_docs.py [--check]", file=sys.stderr)
        return 2
    target.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
