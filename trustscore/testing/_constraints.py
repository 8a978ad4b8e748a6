"""Make a scripted answer obey the request's structured-output constraint, as a real server would.

Rules (the fake cannot steer generation, so it repairs the scripted text):
- ``choice``: the answer is kept when it is one of the choices; otherwise the choice equal (up to
  surrounding whitespace) to the most likely verdict key; otherwise the first choice.
- ``regex``: the answer is kept when the regex matches it in full; otherwise the verdict keys are
  tried, most likely first; otherwise a *minimal* string generated from the regex (each repeat at its
  minimum count, the first branch of each alternation, the first character of each class).
  Lookarounds and back-references cannot be generated and raise :class:`UnsupportedConstraint`.
- ``json`` schema: the answer is kept when it parses as JSON and, for an object schema, has every
  required key; otherwise a minimal instance of the schema (required keys only, "" / 0 / false /
  [] / the first enum value). The schema is not otherwise validated.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import JsonValue

from trustscore.llm._protocol import Constraint

try:  # Python >= 3.11 keeps the regex parser private under a new name.
    from re import _constants as sre_constants  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

__all__ = ["UnsupportedConstraint", "apply_constraint", "minimal_json", "minimal_regex_match"]


class UnsupportedConstraint(ValueError):
    """The constraint cannot be honoured by the fake (the server answers 400)."""


def apply_constraint(text: str, constraint: Constraint | None, verdicts: Sequence[str] = ()) -> str:
    """The text a constrained server would have produced instead of ``text``.

    ``verdicts`` are candidate answers in order of preference (the answer's verdict keys).
    """
    if constraint is None:
        return text
    if constraint.choice is not None:
        if not constraint.choice:
            raise UnsupportedConstraint("structured_outputs.choice is empty: list at least one choice")
        if text in constraint.choice:
            return text
        for v in verdicts:
            for c in constraint.choice:
                if c.strip() == v.strip():
                    return c
        return constraint.choice[0]
    if constraint.regex is not None:
        try:
            pattern = re.compile(constraint.regex)
        except re.error as e:
            raise UnsupportedConstraint(f"structured_outputs.regex does not compile: {e}") from e
        for candidate in (text, *verdicts):
            if pattern.fullmatch(candidate):
                return candidate
        return minimal_regex_match(constraint.regex)
    assert constraint.json_schema is not None
    return (
        text
        if _satisfies_json(text, constraint.json_schema)
        else json.dumps(minimal_json(constraint.json_schema))
    )


def _satisfies_json(text: str, schema: dict[str, JsonValue]) -> bool:
    try:
        value = json.loads(text)
    except ValueError:
        return False
    if schema.get("type") == "object":
        required = schema.get("required")
        keys = [k for k in required if isinstance(k, str)] if isinstance(required, list) else []
        return isinstance(value, dict) and all(k in value for k in keys)
    return True


def minimal_json(schema: Any) -> Any:
    """A small JSON value satisfying the common parts of a JSON schema."""
    if not isinstance(schema, dict):
        return None
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return minimal_json(schema[key][0])
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = kind[0] if kind else None
    if kind == "object" or (kind is None and "properties" in schema):
        props = schema.get("properties") or {}
        return {k: minimal_json(props.get(k, {})) for k in schema.get("required") or []}
    if kind == "array":
        return [minimal_json(schema.get("items", {})) for _ in range(int(schema.get("minItems", 0)))]
    if kind == "string":
        return "a" * int(schema.get("minLength", 0))
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    return None


_CATEGORY_CHAR = {
    sre_constants.CATEGORY_DIGIT: "0",
    sre_constants.CATEGORY_NOT_DIGIT: "a",
    sre_constants.CATEGORY_WORD: "a",
    sre_constants.CATEGORY_NOT_WORD: " ",
    sre_constants.CATEGORY_SPACE: " ",
    sre_constants.CATEGORY_NOT_SPACE: "a",
}


def minimal_regex_match(regex: str) -> str:
    """A shortest-ish string the regex matches in full (see the module docstring for the rules)."""
    out = _generate(sre_parse.parse(regex))
    if not re.fullmatch(regex, out):
        raise UnsupportedConstraint(f"cannot generate a string matching regex {regex!r}")
    return out


def _generate(items: Any) -> str:
    parts: list[str] = []
    for op, arg in items:
        if op is sre_constants.LITERAL:
            parts.append(chr(arg))
        elif op is sre_constants.NOT_LITERAL:
            parts.append("a" if arg != ord("a") else "b")
        elif op is sre_constants.ANY:
            parts.append("a")
        elif op is sre_constants.IN:
            parts.append(_first_in_class(arg))
        elif op is sre_constants.BRANCH:
            parts.append(_generate(arg[1][0]))
        elif op is sre_constants.SUBPATTERN:
            parts.append(_generate(arg[-1]))
        elif op in (
            sre_constants.MAX_REPEAT,
            sre_constants.MIN_REPEAT,
            getattr(sre_constants, "POSSESSIVE_REPEAT", None),
        ):
            low, _high, sub = arg
            parts.append(_generate(sub) * low)
        elif op is sre_constants.AT:
            continue
        elif op is getattr(sre_constants, "ATOMIC_GROUP", None):
            parts.append(_generate(arg))
        else:
            raise UnsupportedConstraint(
                f"regex construct {op} (lookaround or back-reference) cannot be generated"
            )
    return "".join(parts)


def _first_in_class(items: Any) -> str:
    if items and items[0][0] is sre_constants.NEGATE:
        excluded = {chr(a) for op, a in items[1:] if op is sre_constants.LITERAL}
        return next(c for c in "aZ0 _-" if c not in excluded)
    op, arg = items[0]
    if op is sre_constants.LITERAL:
        return chr(arg)
    if op is sre_constants.RANGE:
        return chr(arg[0])
    if op is sre_constants.CATEGORY:
        return _CATEGORY_CHAR.get(arg, "a")
    raise UnsupportedConstraint(f"regex character class item {op} cannot be generated")
