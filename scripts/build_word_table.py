"""Build trustscore's English word-frequency table from wordfreq (which then need not be installed).

    python scripts/build_word_table.py            # rewrite trustscore/textmodels/data/wordfreq_en.bin
    python scripts/build_word_table.py --check    # exit 1 when the file differs from what wordfreq gives

Needs wordfreq (the dev extra). The output is byte for byte the same for the same wordfreq release.
Format (read by :mod:`trustscore.textmodels._word_frequency`): the magic line ``trustscore-words/1``, a
4-byte little-endian header length, a JSON header, then the arrays it names, each at its offset:

- ``blob``: every word's UTF-8 bytes end to end, the words sorted by those bytes (binary search);
- ``ends`` (uint32): where each word's bytes end in ``blob``;
- ``buckets`` (uint16): the word's frequency is 10 ** (-bucket / 100) (wordfreq's centibels);
- ``ranks`` (int32): the word's index in ``wordfreq.top_n_list("en", n)``, or -1 when that list leaves
  it out (a word with a digit sequence).

The header also carries what wordfreq's English lookup does to a text before it looks words up: its
token pattern (with its regex flags) and the curly quotes it straightens, read from the installed
wordfreq and ftfy, and the release they come from. The word list is wordfreq's ``large_en`` (CC-BY-SA
4.0: trustscore/textmodels/data/NOTICE-wordfreq.md).
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
from array import array
from collections.abc import Iterable
from importlib.metadata import version
from itertools import accumulate
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent.parent / "trustscore" / "textmodels" / "data" / "wordfreq_en.bin"
MAGIC = b"trustscore-words/1\n"


def build() -> bytes:
    import ftfy.fixes
    import wordfreq
    from wordfreq.numbers import has_digit_sequence
    from wordfreq.tokens import TOKEN_RE

    buckets: dict[str, int] = {}
    ranks: dict[str, int] = {}
    for bucket, words in enumerate(wordfreq.get_frequency_list("en", "best")):
        for word in words:
            buckets[word] = bucket  # a word listed twice keeps its last bucket, as wordfreq's dict does
            if word not in ranks and not has_digit_sequence(word):
                ranks[word] = len(ranks)
    encoded = sorted((w.encode("utf-8", "surrogatepass"), w) for w in buckets)
    # (numpy's name for the element type, its bytes): the layout numpy arrays of these types would have
    arrays = {
        "blob": ("|u1", b"".join(e for e, _ in encoded)),
        "ends": ("<u4", _little_endian("I", accumulate(len(e) for e, _ in encoded))),
        "buckets": ("<u2", _little_endian("H", (buckets[w] for _, w in encoded))),
        "ranks": ("<i4", _little_endian("i", (ranks.get(w, -1) for _, w in encoded))),
    }
    header: dict[str, object] = {
        "source": f"wordfreq=={version('wordfreq')} large_en, ftfy=={version('ftfy')}",
        "token_pattern": TOKEN_RE.pattern,
        "token_flags": int(TOKEN_RE.flags),
        "double_quotes": ftfy.fixes.DOUBLE_QUOTE_RE.pattern,
        "single_quotes": ftfy.fixes.SINGLE_QUOTE_RE.pattern,
        "arrays": {},
    }
    body = bytearray()
    for name, (dtype, raw) in arrays.items():
        while len(body) % 8:
            body.append(0)
        header["arrays"][name] = [dtype, len(raw) // int(dtype[2:]), len(body)]  # type: ignore[index]
        body += raw
    head = json.dumps(header, sort_keys=True, ensure_ascii=True).encode("ascii")
    return MAGIC + struct.pack("<I", len(head)) + head + bytes(body)


def _little_endian(typecode: str, values: Iterable[int]) -> bytes:
    out = array(typecode, values)
    if sys.byteorder == "big":
        out.byteswap()
    return out.tobytes()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when the file is stale")
    parser.add_argument("-o", "--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    data = build()
    if args.check:
        same = args.output.is_file() and args.output.read_bytes() == data
        print(f"{args.output}: {'up to date' if same else 'STALE: rerun scripts/build_word_table.py'}")
        return 0 if same else 1
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_bytes(data)
    print(f"wrote {args.output} ({len(data) / 2**20:.1f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
