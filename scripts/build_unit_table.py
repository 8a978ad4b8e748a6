"""Build the claims signal's table of unit words from pint's unit definitions.

    pip install pint==0.25.2                      # in a scratch environment: trustscore needs no pint
    python scripts/build_unit_table.py            # rewrite trustscore/grounding/claims/data/units.json
    python scripts/build_unit_table.py --check    # exit 1 when the file differs from what pint gives

Every unit of pint's default English registry (``default_en.txt``: SI, imperial, US customary, time,
angle, information, ...) with each way pint lets one write it (its name, symbol and aliases), mapped to
the unit's name, so "km", "kilometer" and "kilometre" are one unit and "mile" another; and pint's unit
prefixes ("kilo", "k", "milli"...) by the same rule, for the prefixed spellings pint reads without
listing them ("kilometres" = "kilo" + "metre"). Spellings with an underscore (pint's identifiers such
as "international_mile") are left out: text never writes them. Read by
:mod:`trustscore.grounding.claims._units`; pint is BSD-3-Clause licensed (NOTICE-pint.md beside the
table). The same pint release gives the same bytes.
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
    table = {
        "source": f"pint=={version('pint')} default_en.txt",
        "units": dict(sorted(units.items())),
        "prefixes": dict(sorted(prefixes.items())),
    }
    return json.dumps(table, ensure_ascii=False, indent=0, sort_keys=False) + "\n"


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
