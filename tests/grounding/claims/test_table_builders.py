"""The scripts that build the grounding signals' word tables: the antonym table from WordNet's database
files (tested on a two-synset database in WordNet's format), the unit table from pint and the place
table from pycountry (checked against the committed file where each is installed; the place table's
rules also on a stand-in for pycountry)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[3]


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# two adjective synsets pointing at each other's first word ("!"), one with a multi-word lemma, as
# WordNet's data.adj writes them (offset, lexicographer file, type, word count in hex, words with
# their lex ids, pointer count, pointers, gloss); a licence line starts with spaces
ADJ = (
    "  1 This software and database is being provided to you, the LICENSEE\n"
    "00001740 00 a 02 able 0 capable(a) 0 001 ! 00002098 a 0101 | having the means\n"
    "00002098 00 a 02 unable 0 not_able 0 002 ! 00001740 a 0101 ! 00001740 a 0202 | not able\n"
)


def test_the_antonym_table_keeps_single_word_pairs_of_the_pointers(tmp_path: Path) -> None:
    builder = _script("build_claims_tables")
    (tmp_path / "data.adj").write_text(ADJ, encoding="utf-8")
    for name in ("data.verb", "data.adv", "data.noun"):
        (tmp_path / name).write_text("", encoding="utf-8")
    table = builder.build_antonyms(tmp_path)
    assert table.splitlines()[1:] == ["able\tunable\ta"]  # "capable" / "not_able" is multi-word


def test_the_shipped_antonym_table_is_sorted_and_well_formed() -> None:
    lines = (REPO / "trustscore/grounding/claims/data/antonyms.tsv").read_text(encoding="utf-8").splitlines()
    pairs = [line.split("\t") for line in lines[1:]]
    assert lines[0].startswith("# WordNet 3.1") and pairs == sorted(pairs) and len(pairs) > 3000
    assert all(len(p) == 3 and p[0] < p[1] and p[2] in "avrn" for p in pairs)


def test_the_unit_table_matches_the_installed_pint() -> None:
    pytest.importorskip("pint", reason="the unit table is built from pint (scripts/build_claims_tables.py)")
    builder = _script("build_claims_tables")
    assert builder.UNITS.read_text(encoding="utf-8") == builder.build_units(), "rerun the units builder"


class _Place:
    def __init__(self, **fields: str) -> None:
        self.__dict__.update(fields)


class _Subdivisions:
    def get(self, country_code: str) -> list[_Place]:
        return {
            "US": [
                _Place(code="US-CA", name="California"),
                _Place(code="US-NY", name="New York"),
                _Place(code="US-VI", name="Virgin Islands, U.S."),  # ISO's sorted form: left out
            ],
            "CA": [_Place(code="CA-QC", name="Quebec")],
        }[country_code]


def test_the_place_table_keeps_us_and_canadian_codes_and_countries_as_text_writes_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = ModuleType("pycountry")
    fake.subdivisions = _Subdivisions()  # type: ignore[attr-defined]
    fake.countries = [  # type: ignore[attr-defined]
        _Place(alpha_2="CA", alpha_3="CAN", name="Canada"),
        _Place(alpha_2="KR", alpha_3="KOR", name="Korea, Republic of", common_name="South Korea"),
        _Place(alpha_2="GB", alpha_3="GBR", name="United Kingdom"),
    ]
    monkeypatch.setitem(__import__("sys").modules, "pycountry", fake)
    builder = _script("build_claims_tables")
    monkeypatch.setattr(builder, "version", lambda name: "0.0")
    lines = builder.build_places().splitlines()
    assert lines[0].startswith("# ISO 3166 codes and names") and "pycountry==0.0" in lines[0]
    assert lines[1:] == [  # "Korea, Republic of" is ISO's sorted form: text writes "South Korea"
        "CA\tCalifornia",
        "CA\tCanada",
        "CAN\tCanada",
        "GB\tUnited Kingdom",
        "GBR\tUnited Kingdom",
        "KOR\tSouth Korea",
        "KR\tSouth Korea",
        "NY\tNew York",
        "QC\tQuebec",
        "UK\tUnited Kingdom",  # reserved by ISO for the United Kingdom, not assigned: pycountry lacks it
    ]


def test_the_shipped_place_table_is_sorted_and_holds_every_state() -> None:
    lines = (REPO / "trustscore/grounding/data/places.tsv").read_text(encoding="utf-8").splitlines()
    pairs = [line.split("\t") for line in lines[1:]]
    assert lines[0].startswith("# ISO 3166 codes and names") and pairs == sorted(pairs)
    assert all(len(p) == 2 and p[0].isupper() and 2 <= len(p[0]) <= 3 for p in pairs)
    states = {"CA": "California", "NY": "New York", "DC": "District of Columbia", "QC": "Quebec"}
    assert all([code, name] in pairs for code, name in states.items())
    assert ["USA", "United States"] in pairs and ["US", "United States"] in pairs
    assert ["UK", "United Kingdom"] in pairs and ["GB", "United Kingdom"] in pairs


def test_the_place_table_matches_the_installed_pycountry() -> None:
    pytest.importorskip("pycountry", reason="the place table is built from pycountry")
    builder = _script("build_claims_tables")
    assert builder.PLACES.read_text(encoding="utf-8") == builder.build_places(), "rerun the places builder"


def test_the_shipped_spelling_table_is_sorted_and_one_word_each_side() -> None:
    lines = (REPO / "trustscore/grounding/data/spellings.tsv").read_text(encoding="utf-8").splitlines()
    pairs = [line.split("\t") for line in lines[1:]]
    assert lines[0].startswith("# British and American spellings") and pairs == sorted(pairs)
    assert all(len(p) == 2 and p[0].isalpha() and p[0].islower() and p[1].isalpha() for p in pairs)
    assert {("colour", "color"), ("organisation", "organization"), ("licence", "license")} <= {
        (b, a) for b, a in pairs
    }


def test_the_spelling_table_matches_the_installed_breame() -> None:
    pytest.importorskip("breame", reason="the spelling table is built from breame")
    builder = _script("build_claims_tables")
    assert builder.SPELLINGS.read_text(encoding="utf-8") == builder.build_spellings(), "rerun the builder"
