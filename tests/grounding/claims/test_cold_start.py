"""What a fresh process loads for its first claims check: spaCy without its CLI, dateparser only for
a date that is more than a bare year, the language identifier only for a text not plainly English."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

pytest.importorskip("spacy", reason="the claims check needs trustscore[claims]")
pytest.importorskip("dateparser", reason="the claims check needs trustscore[claims]")


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip()


def test_a_first_check_loads_only_what_its_sample_needs(claims_check: Any) -> None:
    out = _run(
        "import sys\n"
        "from trustscore import Sample\n"
        "from trustscore.grounding.claims._signal import ClaimsCheck\n"
        "check = ClaimsCheck()\n"
        "check.pipeline.nlp()\n"
        "unneeded = ('spacy.cli', 'typer', 'weasel', 'requests', 'dateparser', 'py3langid')\n"
        "def loaded():\n"
        "    return sorted(m for m in unneeded if m in sys.modules)\n"
        "print(loaded())\n"
        "q = 'When did the bridge open?'\n"
        "year = Sample(question=q, context=['The bridge opened in 1998.'], response='It opened in 1998.')\n"
        "print(check.score(year).value, loaded())\n"
        "day = Sample(question=q, context=['It opened on 14 March 2011.'], response='On 14 March 2011.')\n"
        "print(check.score(day).value, loaded())\n"
    )
    assert out.splitlines() == ["[]", "1.0 []", "1.0 ['dateparser']"]


def test_a_bare_year_reads_as_dateparser_reads_it() -> None:
    from trustscore.grounding.claims._values import DateValue, _date_parser, parse_date

    for year in range(1500, 2100):
        data = _date_parser().get_date_data(str(year))
        assert data.date_obj is not None and data.date_obj.year == year, year
        assert data.period not in ("month", "day"), (year, data.period)
        assert parse_date(str(year)) == DateValue(year=year)


def test_warming_a_scorer_loads_what_a_first_sample_may_need(claims_check: Any) -> None:
    out = _run(
        "import sys, anyio\n"
        "from trustscore import Scorer\n"
        "from trustscore._config import Config\n"
        "anyio.run(Scorer(Config()).warm_up)\n"
        "print(sorted(m for m in ('spacy', 'dateparser', 'py3langid', 'spacy.cli') if m in sys.modules))\n"
    )
    assert out.splitlines()[-1] == "['dateparser', 'py3langid', 'spacy']"
