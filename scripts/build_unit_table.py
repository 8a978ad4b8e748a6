"""Build the claims signal's table of unit words from pint's unit definitions.

    pip install pint==0.25.2                      # in a scratch environment: trustscore needs no pint
    python scripts/build_unit_table.py            # rewrite trustscore/grounding/claims/data/units.json
    python scripts/build_unit_table.py --check    # exit 1 when the file differs from what pint gives

Every unit of pint's default English registry (``default_en.txt``: SI, imperial, US customary, time,
angle, information, ...) with each way pint lets one write it (its name, symbol and aliases), mapped to
the unit's name, so "km", "kilometer" and "kilometre" are one unit and "mile" another; and pint's unit
prefixes ("kilo", "k", "milli"...) by the same rule, for the prefixed spellings pint reads without
listing them ("kilometres" = "kilo" + "metre"). Spellings with an underscore (pint's identifiers such
as "international_mile") are left out: text never writes them.

Two readings of pint's are written into the table because the reader (``_lexicon.unit``) takes a
prefix only when it is longer than one letter:

- the prefixed symbols text writes ("ms", "mm", "ns", "µs", "kW", "GB", "MHz"): each of the prefixes
  of :data:`SYMBOL_PREFIXES` before each unit symbol of :data:`PREFIXED_SYMBOLS`, where pint reads
  the spelling as that prefix and unit alone ("ms" is "millisecond", pint's only reading) and the
  table has no such spelling already. The two lists are the metric prefixes (giga to nano) and units
  of everyday text; every prefix before every symbol would read words and abbreviations of prose as
  units ("am" atto-metre, "pm" picometre, "TV" teravolt, "cs" centisecond).
- :data:`PROSE_READINGS`: pint reads "pt" as the pint, and the reader strips its plural "pts" to it;
  in running text "pt"/"pts" abbreviate points (of a score, a grade, a type size, a percentage) far
  more often than pints, and the word "point" already reads as pint's point, so "pt" is the point
  here; the pint stays "pint"/"pints".

Read by :mod:`trustscore.grounding.claims._lexicon`; pint is BSD-3-Clause licensed (NOTICE-pint.md
beside the table). The same pint release gives the same bytes.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib.metadata import version
from pathlib import Path

OUTPUT = (
    Path(__file__).resolve().parent.parent / "trustscore" / "grounding" / "claims" / "data" / "units.json"
)

SYMBOL_PREFIXES = ("G", "M", "k", "m", "µ", "μ", "u", "n")
PREFIXED_SYMBOLS = ("s", "m", "g", "L", "l", "W", "Wh", "J", "V", "A", "Hz", "B")
PROSE_READINGS = {"pt": "point"}


def _spellings(definition: object) -> list[str]:
    name: str = definition.name  # type: ignore[attr-defined]
    symbol = getattr(definition, "defined_symbol", None) or getattr(definition, "symbol", None)
    written = [name, symbol, *getattr(definition, "aliases", ())]
    return [w for w in written if w and "_" not in w and " " not in w]


def build() -> str:
    import pint

    registry = pint.UnitRegistry()
    units = {s: d.name for d in list(registry._units.values()) for s in _spellings(d)}
    prefixes = {s: d.name for d in registry._prefixes.values() if d.name for s in _spellings(d)}
    units |= _prefixed_symbols(registry, units)
    units |= PROSE_READINGS
    table = {
        "source": f"pint=={version('pint')} default_en.txt",
        "units": dict(sorted(units.items())),
        "prefixes": dict(sorted(prefixes.items())),
    }
    return json.dumps(table, ensure_ascii=False, indent=0, sort_keys=False) + "\n"


def _prefixed_symbols(registry: object, units: dict[str, str]) -> dict[str, str]:
    """Each prefix symbol before each unit symbol, where pint reads it as that alone."""
    found = {}
    for prefix in SYMBOL_PREFIXES:
        for symbol in PREFIXED_SYMBOLS:
            spelling = prefix + symbol
            readings = registry.parse_unit_name(spelling)  # type: ignore[attr-defined]
            if spelling not in units and len(readings) == 1 and readings[0][0] and not readings[0][2]:
                found[spelling] = readings[0][0] + readings[0][1]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the table differs")
    args = parser.parse_args(argv)
    table = build()
    if args.check:
        same = OUTPUT.is_file() and OUTPUT.read_text(encoding="utf-8") == table
        print("unit table up to date" if same else f"{OUTPUT} differs from the installed pint")
        return 0 if same else 1
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(table, encoding="utf-8")
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
