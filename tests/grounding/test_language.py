"""Plainly English texts share a language without the identifier; any other text still goes to it."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from trustscore.grounding._language import _plain_words, clearly_english

ENGLISH = (
    "The bridge was opened in 1998 after the city had voted for it, and it has carried trains since then."
)


@pytest.mark.parametrize(
    ("text", "english"),
    [
        (ENGLISH, True),
        ("They said that the library would open when the money was there.", True),
        ("It opened in 1998 and was closed in 2004.", False),  # one marker: not enough to say
        ("Die Bibliothek wurde 2011 eröffnet und ist sonntags geschlossen, also will er warten.", False),
        ("Het is niet waar dat de brug in 2017 was geopend, of wel? De stad heeft het betaald.", False),
        ("Según el texto, se inauguró en el año 2017 y Laura Fischer estuvo a cargo del proyecto.", False),
        ("On dit que le pont a été ouvert en 2017 par la ville, mais ce n'est pas sûr.", False),
        ("A ponte foi aberta em 2017 pela cidade, as obras duraram dois anos e o custo foi alto.", False),
    ],
)
def test_plainly_english_text_is_told_by_its_own_function_words(text: str, english: bool) -> None:
    assert clearly_english(_plain_words(text)) is english


@pytest.mark.skipif(importlib.util.find_spec("py3langid") is None, reason="comes with trustscore[claims]")
def test_the_identifier_loads_only_for_a_text_not_plainly_english() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\n"
            "from trustscore.grounding._language import language_mismatch\n"
            f"context = {ENGLISH!r}\n"
            "print(language_mismatch('They said that it was opened in 1998 by the city.', context))\n"
            "print('py3langid' in sys.modules)\n"
            "german = 'Die Brücke wurde 1998 eröffnet und seitdem fahren dort die Züge.'\n"
            "print(language_mismatch(german, context).split(' and ')[0], 'py3langid' in sys.modules)\n",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.splitlines() == [
        "None",
        "False",
        "other language: the response is in 'de' True",
    ]
