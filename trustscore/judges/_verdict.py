"""The verdict of judges whose trained prompt lets the model reason freely first, read from what it said.

Lynx, Prometheus, ChainPoll and TLM's self-reflection ask for reasoning and then a verdict in a fixed
format. Their prompts stay verbatim. Each output is read in this order, and records which way it went:

1. ``free``: the judge's own parser finds the verdict in the format the prompt asked for.
2. ``words``: the model stated a verdict in its own words instead ("Unsupported", "(B) Incorrect",
   "Yes, the response is faithful"); the judge's tolerant reader takes it from them. A continuation
   is never asked for then: it could contradict what the model said.
3. no answer: an output that only repeats the prompt back, or that the model ended without saying
   anything about the sample ("I'm ready to help. What's the question?"), is no verdict: it stays
   unparsed and is never continued.
4. ``constrained``: an output that reasons about the sample but states no verdict (it rambled, or hit
   ``max_tokens``) is continued once: one more request continues *that same output* with the verdict
   marker appended (``continue_final_message``) and the verdict constrained to the allowed words
   (``structured_outputs.choice``). The continuation re-reads the prompt and the reasoning from vLLM's
   prefix cache, so it costs a few decode steps. Such a verdict carries :data:`CONSTRAINED_WARNING`.

OpenAI servers have no ``continue_final_message``: there an output without a verdict stays unparsed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Generic, Literal, TypeVar

import anyio

from trustscore._errors import JudgeFailure
from trustscore.judges._base import JudgeLLM
from trustscore.judges._parsing import quote
from trustscore.judges._templates import load_template, prompts_folder
from trustscore.llm._protocol import ChatRequest, Choice, Constraint, Message, TokenLogprob
from trustscore.signals import JudgeCost

__all__ = [
    "CONSTRAINED_WARNING",
    "VERDICT_MAX_TOKENS",
    "WORDS_WARNING",
    "VerdictSpec",
    "Verdicted",
    "non_answer",
    "reasoning_cost",
    "stated_label",
    "verdict_paths",
    "with_verdicts",
]

T = TypeVar("T")
Path = Literal["free", "words", "constrained"]

VERDICT_MAX_TOKENS = 16
"""Room for the longest allowed word: real tokenizers split "unsupported" or "PASS" into pieces."""


def reasoning_cost(max_tokens: int, polls: int = 1) -> JudgeCost:
    """The worst case of ``polls`` free outputs that each reason to ``max_tokens`` and are each
    continued once with a constrained verdict (one request draws all the polls)."""
    return JudgeCost(1 + polls, 2 * polls, polls * (max_tokens + VERDICT_MAX_TOKENS))

WORDS_WARNING = "verdict read from the model's own words: it did not use the format the prompt asks for"
CONSTRAINED_WARNING = (
    "verdict from continuation: the model's output stated none, so the verdict was written as a "
    "constrained continuation of it"
)
ECHO_SHARE = 0.5
"""An output whose word 6-grams come from the prompt at least this often only repeats the prompt."""
_WORD = re.compile(r"[a-z][a-z']+")
_STOPWORDS = frozenset(
    [
        "about",
        "above",
        "after",
        "again",
        "also",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "could",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "from",
        "further",
        "have",
        "having",
        "here",
        "into",
        "itself",
        "just",
        "more",
        "most",
        "myself",
        "only",
        "other",
        "over",
        "same",
        "should",
        "some",
        "such",
        "than",
        "that",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "under",
        "until",
        "very",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "whom",
        "will",
        "with",
        "would",
        "your",
        "yours",
    ]
)


@dataclass(frozen=True)
class VerdictSpec(Generic[T]):
    parse: Callable[[Choice], T]
    """The judge's parser; raises ValueError when the output has no verdict."""
    words: Callable[[str], T | None]
    """The verdict the model stated in its own words, or None when it stated none (or stated several)."""
    marker: str
    """Appended to the reasoning before the constrained verdict, e.g. '\\nVERDICT:'."""
    choices: list[str]
    """The verdict words the continuation may write. A word starts with its space (" PASS") and the
    marker ends without one: BPE tokenizers write a word with its leading space as one piece
    ("Ġsupported"), so a prompt ending in a bare space would force an unnatural split. Digits are
    the exception (SmolLM2 and Llama 3 write " 4" as a space, then the digit): their marker ends
    with the space."""
    cut: str | None = None
    """Drop the reasoning from the last occurrence of this text on (a half-written verdict)."""


@dataclass(frozen=True)
class Verdicted(Generic[T]):
    value: T | None
    path: Path | None
    error: str | None = None


def verdict_paths(items: list[Verdicted[T]]) -> dict[str, int]:
    """How many outputs took each path (for the signal's raw record)."""
    out = {"free": 0, "words": 0, "constrained": 0}
    for item in items:
        if item.path is not None:
            out[item.path] += 1
    return out


def stated_label(
    text: str,
    mentions: Sequence[tuple[re.Pattern[str], str]],
    heads: Sequence[tuple[re.Pattern[str], str]] = (),
) -> str | None:
    """The one label the text states, read tolerantly from its own words; None when it states none.

    A first line that is nothing but a label ("Unsupported", "**(B) Incorrect**") is the verdict,
    whatever the lines after it discuss. Otherwise every mention counts, and the text states a label
    only when all its mentions agree (an output listing the options states none of them).
    ``mentions`` are (pattern, label), most specific first: a span matched by an earlier pattern is
    not matched again ("unsupported" is not also "supported"). ``heads`` count only as a whole first
    line (a bare "A" is a choice there, an article anywhere else).
    """
    first = next((line for line in text.splitlines() if line.strip()), "")
    head = first.strip(" \t*#_`\"'.:!-")
    head = re.sub(r"^(?:final\s+)?(?:verdict|answer|score|result)\s*[:=-]?\s*", "", head, flags=re.IGNORECASE)
    for pattern, label in [*heads, *mentions]:
        if pattern.fullmatch(head.strip(" .!*")):
            return label
    found: set[str] = set()
    taken: list[tuple[int, int]] = []
    for pattern, label in mentions:
        for m in pattern.finditer(text):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            taken.append((m.start(), m.end()))
            found.add(label)
    return found.pop() if len(found) == 1 else None


@cache
def _template_words() -> frozenset[str]:
    names = [p.name for p in prompts_folder().iterdir() if p.name.endswith(".txt")]
    return frozenset(_WORD.findall(" ".join(load_template(n) for n in names).lower()))


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) >= 4 and w not in _STOPWORDS}


def _shingles(words: list[str], n: int = 6) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def non_answer(output: str, prompt: str, *, finished: bool) -> str | None:
    """Why ``output`` is no answer to ``prompt`` (None when it is one that may be continued).

    No answer: empty; mostly the prompt repeated back; or, when the model ended it (``finished``, not
    cut at ``max_tokens``), about nothing the sample says: it shares fewer than two of the sample's own
    words (those of the prompt that no judge template uses). A cut output is reasoning under way.
    """
    if not output.strip():
        return "the model's output is empty"
    said = _WORD.findall(output.lower())
    grams = _shingles(said)
    copied = len(grams & _shingles(_WORD.findall(prompt.lower())))
    if len(grams) >= 3 and copied >= ECHO_SHARE * len(grams):
        return f"the model repeated the prompt instead of judging: {quote(output)}"
    if not finished:
        return None
    sample_words = _content_words(prompt) - _template_words()
    needed = min(2, len(sample_words))
    if len(_content_words(output) & sample_words) < needed:
        return f"the model's output is not about the sample: {quote(output)}"
    return None


def _prefix(text: str, spec: VerdictSpec[T]) -> str:
    if spec.cut:
        at = text.lower().rfind(spec.cut.lower())
        if at >= 0:
            text = text[:at]
    return text.rstrip() + spec.marker


async def with_verdicts(
    choices: list[Choice], request: ChatRequest, spec: VerdictSpec[T], *, llm: JudgeLLM
) -> list[Verdicted[T]]:
    """Each choice read as the module says; the continuations run concurrently."""
    out: list[Verdicted[T]] = [Verdicted(None, None)] * len(choices)
    prompt = "\n".join(m.content for m in request.messages or [])
    pending: list[int] = []
    for i, choice in enumerate(choices):
        try:
            out[i] = Verdicted(spec.parse(choice), "free")
            continue
        except ValueError as e:
            error = str(e)
        stated = spec.words(choice.text)
        if stated is not None:
            out[i] = Verdicted(stated, "words")
            continue
        why = non_answer(choice.text, prompt, finished=choice.finish_reason != "length")
        if why is not None:
            out[i] = Verdicted(None, None, f"no answer: {why}")
            continue
        out[i] = Verdicted(None, None, error)
        pending.append(i)
    if not pending or llm.flavour != "vllm" or request.messages is None:
        return out

    async def finish(i: int) -> None:
        prefix = _prefix(choices[i].text, spec)
        follow = ChatRequest(
            messages=[*request.messages, Message(role="assistant", content=prefix)],  # type: ignore[misc]
            continue_final_message=True,
            constraint=Constraint(choice=spec.choices),
            temperature=0.0,
            max_tokens=VERDICT_MAX_TOKENS,
            logprobs=request.logprobs,
            top_logprobs=request.top_logprobs,
            tag=request.tag + "/verdict",
        )
        try:
            result = await llm.generate(follow)
        except JudgeFailure as e:
            out[i] = Verdicted(None, None, f"{out[i].error}; the constrained verdict failed: {e.reason}")
            return
        if not result.choices:
            return
        tail = result.choices[0]
        joined = Choice(
            text=prefix + tail.text,
            logprobs=[TokenLogprob(token=prefix, logprob=0.0), *tail.logprobs] if tail.logprobs else None,
            finish_reason=tail.finish_reason,
        )
        try:
            out[i] = Verdicted(spec.parse(joined), "constrained")
        except ValueError as e:
            out[i] = Verdicted(None, None, f"constrained verdict unreadable: {e}")

    async with anyio.create_task_group() as tg:
        for i in pending:
            tg.start_soon(finish, i)
    return out
