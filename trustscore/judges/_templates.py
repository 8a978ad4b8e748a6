"""Judge prompt templates: data files in the top-level ``prompts/`` folder, filled in one pass,
versioned by content. The wheel ships the folder as ``trustscore/prompts`` (hatch force-include)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from trustscore.core._hashing import short_hash
from trustscore.llm._special_tokens import MARKUP, neutralise

__all__ = ["fill", "load_template", "prompt_version", "prompts_folder"]

_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


@cache
def prompts_folder() -> Traversable:
    """The templates: the package resource ``trustscore/prompts`` of an installed wheel, else the
    ``prompts/`` folder beside the package in a source checkout (editable install, PYTHONPATH)."""
    shipped = files("trustscore") / "prompts"
    if shipped.is_dir():
        return shipped
    checkout = Path(__file__).resolve().parents[2] / "prompts"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"trustscore's prompt templates are in neither {shipped} nor {checkout}")


@cache
def load_template(name: str) -> str:
    """The template file ``prompts/<name>`` exactly as shipped (no stripping)."""
    return (prompts_folder() / name).read_bytes().decode("utf-8")


def fill(template: str, trusted: Mapping[str, str] | None = None, **values: str) -> str:
    """Replace ``{name}`` placeholders in one pass, each value made inert.

    One pass means a value that itself contains ``{question}`` is never substituted again, and any other
    braces (Lynx's JSON example) stay as they are. A placeholder without a value is an error. Every
    value is untrusted text (a question, a context, an answer): its tag- and bracket-like words, model
    turn markers and the templates' own ``<answer>``-style delimiters included, are broken so that they
    can neither become control tokens nor close the section they sit in
    (:func:`~trustscore.llm._special_tokens.neutralise` with ``MARKUP``). ``trusted`` values are our own
    text (a rubric, a template filled before) and go in as written.
    """
    known = dict(trusted or {})

    def sub(match: re.Match[str]) -> str:
        key = match.group(1)
        if key in known:
            return known[key]
        if key not in values:
            raise KeyError(f"template placeholder {{{key}}} has no value")
        return neutralise(values[key], MARKUP)

    return _PLACEHOLDER.sub(sub, template)


def prompt_version(template_names: list[str], parser_rules: str, *extra: str) -> str:
    """Short hash of the template files' bytes, the parser rules version and any prompt-shaping settings."""
    parts = [load_template(n) for n in template_names] + [parser_rules, *extra]
    return short_hash("\x00".join(parts))
