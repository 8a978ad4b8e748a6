"""Judge prompt templates: data files in ``trustscore/prompts``, filled in one pass, versioned by content."""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files

from trustscore.hashing import short_hash

__all__ = ["fill", "load_template", "prompt_version"]

_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


@cache
def load_template(name: str) -> str:
    """The template file ``trustscore/prompts/<name>`` exactly as shipped (no stripping)."""
    return (files("trustscore") / "prompts" / name).read_bytes().decode("utf-8")


def fill(template: str, **values: str) -> str:
    """Replace ``{name}`` placeholders in one pass.

    One pass means a value that itself contains ``{question}`` is never substituted again, and any other
    braces (Lynx's JSON example) stay as they are. A placeholder without a value is an error.
    """

    def sub(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in values:
            raise KeyError(f"template placeholder {{{key}}} has no value")
        return values[key]

    return _PLACEHOLDER.sub(sub, template)


def prompt_version(template_names: list[str], parser_rules: str, *extra: str) -> str:
    """Short hash of the template files' bytes, the parser rules version and any prompt-shaping settings."""
    parts = [load_template(n) for n in template_names] + [parser_rules, *extra]
    return short_hash("\x00".join(parts))
