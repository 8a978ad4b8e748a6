"""What the offline default (lexical + embedding grounding, no judge) can and cannot tell apart.

    .venv/bin/python examples/offline_limits.py

Five answers to one question over one context: it prints each answer's score. The offline signals
measure how much of the answer the context supports word by word and sentence by sentence, so a
correct answer in other words scores low, and a false one made of the context's own words scores high.
"""

from __future__ import annotations

import trustscore as ts

QUESTION = "When did the Millbrook footbridge open?"
CONTEXT = [
    "The Millbrook footbridge opened to the public in May 1998, after two years of construction. "
    "It was designed by the engineer Clara Voss and spans the river Lune between the old mill and the "
    "railway station. The bridge is 140 metres long and carries pedestrians and cyclists only. "
    "Its steel deck hangs from a single white arch, which is lit at night. In 2010 the town council "
    "repainted the arch and replaced the lighting with LED lamps. About 3,000 people cross it on an "
    "ordinary weekday, most of them commuters walking to the station."
]
ANSWERS = {
    "correct, in the context's words": "The Millbrook footbridge opened to the public in May 1998.",
    "correct, paraphrased": "Walkers have been able to cross it since the spring of '98.",
    "wrong year": "The Millbrook footbridge opened to the public in May 1989.",
    "wrong, built from context words": (
        "Clara Voss opened the footbridge over the river Lune after two years."
    ),
    "negated falsehood": "The Millbrook footbridge did not open to the public in May 1998.",
}


def scores() -> dict[str, ts.TrustScore]:
    return {
        name: ts.score_sync(question=QUESTION, context=CONTEXT, response=answer)
        for name, answer in ANSWERS.items()
    }


if __name__ == "__main__":
    for name, result in scores().items():
        print(f"{name:32} {result.score:.3f}")
