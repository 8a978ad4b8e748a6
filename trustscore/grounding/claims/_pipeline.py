"""The spaCy English pipeline the claims check parses with: loaded once per process and package
name, and called under a lock (one pipeline object is not meant to parse from several threads at once).

Loading is what a fresh process's first claims check waits for (seconds), so
:meth:`Pipeline.start_loading` begins it on a background thread when the signal is built, as the
embedding signal does with its model; a parse waits for that load (its budget's clock stopped) instead
of loading again. Only the components the checks read are loaded (:data:`COMPONENTS`: the tagger's
tags, the attribute ruler's coarse tags, the lemmatizer's lemmas, the parser's dependencies and
sentences, the recogniser's entities, and the tok2vec they share); any other a package ships (the
small English pipeline's disabled sentence recogniser) is excluded, and so is the vocabulary's string
table (:data:`UNREAD`). The tokenizer is built once, from the package's own file
(:func:`_tokenizer_filled_from_disk`), spaCy is imported without its CLI and so that thinc does not
import torch (:mod:`trustscore.grounding.claims._thinc_import`), and while it loads its registry looks
up the installed packages' entry points by group and srsly's msgpack decoders once
(:mod:`trustscore.grounding.claims._entry_points`) and the tokenizer's special cases are read without
spaCy's deprecated-name pass (:mod:`trustscore.grounding.claims._special_cases`).

One spaCy call is C work no budget check reaches (20,000 characters took 6.5 s on a busy 2-core
machine), so a long text is parsed in pieces of at most :data:`PIECE_CHARS` characters and
:data:`PIECE_TOKENS` tokens, cut at a line or sentence end, with the budget checked between them; the
pieces' docs are joined into one doc of the whole text. A text within one piece is parsed whole, as
before. The token bound is for text that is nearly all punctuation (``([([``, nested brackets): each
character is a token there, and one 5,000-token sentence took 12 to 21 s to parse on a busy machine,
where 5,000 characters of prose (about 1,100 tokens) take under one second.
"""

from __future__ import annotations

import importlib.util
import re
import threading
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

from trustscore.compute._deadline import checkpoint, clock_stopped
from trustscore.grounding.claims._config import DEFAULT_PIPELINES
from trustscore.grounding.claims._entry_points import entry_points_by_group, msgpack_decoders_found_once
from trustscore.grounding.claims._special_cases import special_cases_read_directly
from trustscore.grounding.claims._thinc_import import import_spacy

if TYPE_CHECKING:
    from collections.abc import Callable

    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = ["COMPONENTS", "PIECE_CHARS", "PIECE_TOKENS", "UNREAD", "Pipeline", "find_pipeline", "pieces"]

COMPONENTS = frozenset({"tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner"})
"""The pipeline components the checks read; any other a package ships is excluded at load."""

UNREAD = ("strings",)
"""What of the package's vocabulary the load leaves out: its string table (``vocab/strings.json``, the
84,780 strings of the small English pipeline, mostly its training data's words), which maps a hash back
to its string and which no parse reads. Every string a parse's doc names is added as it is made: the
tokenizer's special cases and the components' labels at the load, each token's text, lower case, norm
and shape when its word is first seen, each lemma when the lemmatizer sets it; a hash is the string's
own, with or without the table, so the model's features and every tag, dependency, entity and lemma
are the same."""

PIECE_CHARS = 5_000
"""The most characters one spaCy call parses (a budget check comes between two calls)."""
PIECE_TOKENS = 1_500
"""The most tokens one spaCy call parses, counted as spaCy's tokenizer at least splits them (a word,
or one punctuation character): above what 5,000 characters of prose make, so prose pieces are cut
by characters as before."""

_TOKEN = re.compile(r"\w+|[^\w\s]")


def find_pipeline(name: str | None) -> str:
    """The package name of the pipeline to load: ``name``, else the first installed default.

    Raises ImportError (the signal is then missing with an install hint) when spaCy or the pipeline
    is not installed.
    """
    if importlib.util.find_spec("spacy") is None:
        raise ImportError("spaCy is not installed")
    candidates = (name,) if name else DEFAULT_PIPELINES
    for candidate in candidates:
        try:
            version(candidate.replace("_", "-"))
        except PackageNotFoundError:
            continue
        return candidate
    raise ImportError(f"no spaCy English pipeline installed (looked for {', '.join(candidates)})")


class Pipeline:
    """One spaCy pipeline, loaded on first use (or from :meth:`start_loading`), parsing under the
    process's parse lock."""

    def __init__(self, package: str) -> None:
        self.package = package
        self.release = f"{package}=={version(package.replace('_', '-'))}"
        self._nlp: Language | None = None

    def start_loading(self) -> None:
        """Load the pipeline on a background thread, so that its load overlaps what the caller does
        until the first parse; a failure is left for the first parse to raise (it loads again)."""
        if self.package in _loaded:
            return

        def load() -> None:
            try:
                self.nlp()
            except Exception:  # the first parse raises it
                return

        threading.Thread(target=load, name="trustscore-spacy-load", daemon=True).start()

    def nlp(self) -> Language:
        """The loaded pipeline (loads it, or waits for the load in progress, with the budget's clock
        stopped)."""
        if self._nlp is None:
            with clock_stopped(), _LOADING:
                if self.package not in _loaded:
                    _loaded[self.package] = _load(self.package)
            self._nlp = _loaded[self.package]
        return self._nlp

    def parse(self, text: str) -> Doc:
        """The doc of ``text``; a long text is parsed a piece at a time, checking the budget between."""
        nlp = self.nlp()
        parts = pieces(text)
        if len(parts) == 1:
            with _PARSING:
                return nlp(text)
        docs = []
        for part in parts:
            checkpoint()
            with _PARSING:
                docs.append(nlp(part))
        from spacy.tokens import Doc

        return Doc.from_docs(docs, ensure_whitespace=False)


def pieces(text: str, limit: int = PIECE_CHARS, max_tokens: int = PIECE_TOKENS) -> list[str]:
    """``text`` cut into consecutive pieces of at most ``limit`` characters and ``max_tokens`` tokens
    (joined, they are ``text``), each ending after a line break, else a sentence end, else a space,
    when one lies in the piece's second half."""
    out: list[str] = []
    start = 0
    while (end := _window_end(text, start, limit, max_tokens)) < len(text):
        window = text[start:end]
        cut = len(window)
        for delimiter in ("\n", ". ", " "):
            at = window.rfind(delimiter)
            if at >= len(window) // 2:
                cut = at + len(delimiter)
                break
        out.append(text[start : start + cut])
        start += cut
    out.append(text[start:])
    return out


def _window_end(text: str, start: int, limit: int, max_tokens: int) -> int:
    """Where a piece from ``start`` must end at the latest: ``limit`` characters on, or before its
    token number ``max_tokens + 1``, whichever comes first."""
    end = min(len(text), start + limit)
    for i, token in enumerate(_TOKEN.finditer(text, start, end)):
        if i == max_tokens:
            return token.start()
    return end


_PARSING = threading.Lock()
"""One parse at a time: a pipeline object is not meant to parse from several threads at once."""
_LOADING = threading.Lock()
"""One load at a time: a second caller waits for the first's pipeline instead of loading another."""
_loaded: dict[str, Language] = {}
"""The process's loaded pipelines by package name."""


def _load(package: str) -> Language:
    import_spacy(keep_torch_out=package in DEFAULT_PIPELINES)
    import spacy
    import spacy.util

    path = spacy.util.get_package_path(package)
    shipped = spacy.util.load_meta(path / "meta.json")
    unused = [name for name in shipped.get("components", []) if name not in COMPONENTS] + list(UNREAD)
    data = path / f"{shipped['lang']}_{shipped['name']}-{shipped['version']}"
    with entry_points_by_group(), msgpack_decoders_found_once(), special_cases_read_directly():
        if not (data / "tokenizer").is_file():
            return spacy.load(package, exclude=unused)
        spacy.registry.tokenizers.register(_FILLED_FROM_DISK, func=_tokenizer_filled_from_disk)
        tokenizer = {"@tokenizers": _FILLED_FROM_DISK}
        return spacy.load(package, exclude=unused, config={"nlp": {"tokenizer": tokenizer}})


_FILLED_FROM_DISK = "trustscore.tokenizer_filled_from_disk.v1"


def _tokenizer_filled_from_disk() -> Callable[[Language], Any]:
    """The tokenizer factory for a package that ships its tokenizer: an empty tokenizer, which loading
    the package fills from its file (prefixes, suffixes, infixes, URL and token matches, the special
    cases). spaCy's own factory first builds the language's defaults (some 2,700 special cases and
    their regular expressions), all of which the file's then replace: the same tokenizer, built twice."""
    from spacy.tokenizer import Tokenizer  # type: ignore[import-not-found]  # compiled, no stub

    def empty(nlp: Language) -> Any:
        return Tokenizer(nlp.vocab)

    return empty
