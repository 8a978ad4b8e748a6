"""The local-signal cache: signal results and embeddings across runs, never pickle, private, opt-out."""

from __future__ import annotations

import io
import pickle
import stat
from pathlib import Path

import diskcache  # type: ignore[import-untyped]
import numpy as np
import pytest

from trustscore import Config, Sample, Scorer, Signal, Usage
from trustscore._errors import UnsafeCacheEntry
from trustscore.llm import CacheConfig
from trustscore.scoring._local_cache import LocalCache, _vector_key, sample_key

pytestmark = pytest.mark.anyio

SAMPLE = Sample(question="When?", context=["It opened in 1998."], response="In 1998.")


def cache_in(tmp_path: Path, mode: str = "readwrite") -> LocalCache:
    return LocalCache(CacheConfig(mode=mode, directory=tmp_path / "responses"))  # type: ignore[arg-type]


def test_a_result_round_trips_without_its_usage_and_a_missing_one_is_never_stored(tmp_path: Path) -> None:
    cache = cache_in(tmp_path)
    key = sample_key("sig@1", SAMPLE)
    signal = Signal(name="sig", value=0.8, raw={"a": 1}, version="v1", usage=Usage(seconds=3.0))
    cache.put_signal(key, signal)
    got = cache.get_signal(key, "sig", "v1")
    assert got is not None and got.value == 0.8 and got.raw == {"a": 1} and got.usage.seconds == 0.0
    other = sample_key("sig@1", SAMPLE.model_copy(update={"response": "In 1999."}))
    cache.put_signal(other, Signal.failed("sig", "model missing", version="v1"))
    assert cache.get_signal(other, "sig", "v1") is None
    assert (cache.hits, cache.misses, cache.stores) == (1, 1, 1)
    assert stat.S_IMODE((tmp_path / "responses" / "local").stat().st_mode) == 0o700


def test_keys_change_with_the_identity_and_the_text_but_not_the_id() -> None:
    base = sample_key("sig@1", SAMPLE)
    assert sample_key("sig@2", SAMPLE) != base
    assert sample_key("sig@1", SAMPLE.model_copy(update={"context": ["It opened in 1999."]})) != base
    assert sample_key("sig@1", SAMPLE.model_copy(update={"id": "row-7", "metadata": {"x": 1}})) == base


def test_mode_off_never_touches_disk_and_read_never_writes(tmp_path: Path) -> None:
    key = sample_key("sig@1", SAMPLE)
    signal = Signal(name="sig", value=0.8, version="v1")
    off = cache_in(tmp_path, "off")
    off.put_signal(key, signal)
    off.put_vectors("m", {"text": np.ones(3, dtype=np.float32)})
    assert off.get_signal(key, "sig", "v1") is None and off.get_vectors("m", ["text"], 3) == {}
    assert not (tmp_path / "responses").exists()
    read = cache_in(tmp_path, "read")
    read.put_signal(key, signal)
    assert read.get_signal(key, "sig", "v1") is None and read.stores == 0


def test_vectors_round_trip_as_npy_per_model(tmp_path: Path) -> None:
    cache = cache_in(tmp_path)
    v = np.arange(4, dtype=np.float32)
    cache.put_vectors("model-a", {"hello": v})
    np.testing.assert_array_equal(cache.get_vectors("model-a", ["hello", "absent"], 4)["hello"], v)
    assert cache.get_vectors("model-b", ["hello"], 4) == {}


def _raw(cache: LocalCache) -> diskcache.Cache:
    return diskcache.Cache(str(cache.directory))  # the default Disk: pickles what is not str/bytes


def test_a_pickled_entry_is_refused_not_unpickled(tmp_path: Path) -> None:
    cache = cache_in(tmp_path)
    cache.put_vectors("m", {"warm": np.ones(2, dtype=np.float32)})  # creates the directory
    key = sample_key("sig@1", SAMPLE)
    with _raw(cache) as raw:
        raw.set(key, {"name": "sig", "value": 0.9})  # pickled by diskcache
        raw.set(_vector_key("m", "text"), ["not", "npy"])
    with pytest.raises(UnsafeCacheEntry, match="pickled"):
        cache.get_signal(key, "sig", "v1")
    with pytest.raises(UnsafeCacheEntry, match="pickled"):
        cache.get_vectors("m", ["text"], 2)


@pytest.mark.parametrize(
    ("value", "match"),
    [
        ('{"not": "a signal"}', "not a Signal"),
        (Signal(name="other", value=0.5, version="v1").model_dump_json(), "holds 'other'"),
        (Signal(name="sig", value=0.5, version="v0").model_dump_json(), "'v0'"),
    ],
)
def test_a_row_that_is_not_this_signals_result_is_refused(tmp_path: Path, value: str, match: str) -> None:
    cache = cache_in(tmp_path)
    key = sample_key("sig@1", SAMPLE)
    cache.put_signal(key, Signal(name="sig", value=0.1, version="v1"))
    with _raw(cache) as raw:
        raw.set(key, value)
    with pytest.raises(UnsafeCacheEntry, match=match):
        cache.get_signal(key, "sig", "v1")


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    return buffer.getvalue()


@pytest.mark.parametrize(
    "payload",
    [
        _npy(np.ones(3, dtype=np.float64)),  # wrong dtype
        _npy(np.ones((2, 2), dtype=np.float32)),  # wrong shape
        _npy(np.array([{"x": 1}, None], dtype=object)),  # an object array: would need pickle
        pickle.dumps(np.ones(2, dtype=np.float32)),  # not npy at all
        "a string",
    ],
)
def test_a_vector_that_is_not_one_float32_row_is_refused(tmp_path: Path, payload: object) -> None:
    cache = cache_in(tmp_path)
    cache.put_vectors("m", {"text": np.ones(2, dtype=np.float32)})
    with _raw(cache) as raw:
        raw.set(_vector_key("m", "text"), payload)
    with pytest.raises(UnsafeCacheEntry):
        cache.get_vectors("m", ["text"], 2)


def test_read_and_write_failures_are_counted_misses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = cache_in(tmp_path)

    def broken() -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(cache, "_open", broken)
    key = sample_key("sig@1", SAMPLE)
    cache.put_signal(key, Signal(name="sig", value=0.5, version="v1"))
    cache.put_vectors("m", {"t": np.ones(2, dtype=np.float32)})
    assert cache.get_signal(key, "sig", "v1") is None and cache.get_vectors("m", ["t"], 2) == {}
    assert (cache.write_errors, cache.read_errors, cache.stores) == (2, 2, 0)


class Counting:
    """A cacheable local signal that counts its runs; fails on responses containing 'fail'."""

    version = "counting@1"

    def __init__(self, name: str = "counting", identity: bool = True) -> None:
        self.name = name
        self.runs = 0
        if not identity:
            self.cache_identity = None  # type: ignore[assignment]

    def cache_identity(self) -> str | None:
        return self.version

    async def run(self, sample: Sample) -> Signal:
        self.runs += 1
        if "fail" in sample.response:
            return Signal.failed(self.name, "cannot", version=self.version)
        return Signal(name=self.name, value=0.75, version=self.version)


def _scorer(tmp_path: Path, signal: Counting, mode: str = "readwrite") -> Scorer:
    config = Config.from_dict({"cache": {"mode": mode, "directory": str(tmp_path / "c")}})
    return Scorer(config, judges=[], local_signals=[signal])


async def test_a_second_scorer_replays_results_and_reruns_what_failed(tmp_path: Path) -> None:
    first = Counting()
    async with _scorer(tmp_path, first) as scorer:
        await scorer.score(question="q", context=["c"], response="good")
        await scorer.score(question="q", context=["c"], response="fail")
    second = Counting()
    async with _scorer(tmp_path, second) as scorer:
        replay = await scorer.score(question="q", context=["c"], response="good")
        await scorer.score(question="q", context=["c"], response="fail")
    assert first.runs == 2 and second.runs == 1  # only the failed one ran again
    assert replay.signals["counting"].value == 0.75
    off = Counting()
    async with _scorer(tmp_path, off, mode="off") as scorer:
        await scorer.score(question="q", context=["c"], response="good")
    assert off.runs == 1


async def test_a_signal_without_a_cache_identity_always_runs(tmp_path: Path) -> None:
    for _ in range(2):
        signal = Counting(identity=False)
        async with _scorer(tmp_path, signal) as scorer:
            await scorer.score(question="q", context=["c"], response="good")
        assert signal.runs == 1


def test_a_closed_cache_reopens_on_use(tmp_path: Path) -> None:
    cache = cache_in(tmp_path)
    key = sample_key("sig@1", SAMPLE)
    cache.put_signal(key, Signal(name="sig", value=0.5, version="v1"))
    cache.close()
    got = cache.get_signal(key, "sig", "v1")
    assert got is not None and got.value == 0.5
    cache.close()


@pytest.mark.parametrize(
    "vector",
    [
        np.linspace(-1, 1, 384, dtype=np.float32),
        np.arange(7, dtype=np.float64),  # stored as float32, as before
        np.arange(12, dtype=np.float32).reshape(3, 4)[:, 1],  # not contiguous
        np.zeros(0, dtype=np.float32),
    ],
)
def test_vectors_are_stored_as_exactly_the_bytes_np_save_writes(vector: np.ndarray) -> None:
    from trustscore.scoring._local_cache import _npy as stored

    expected = io.BytesIO()
    np.save(expected, np.asarray(vector, dtype=np.float32), allow_pickle=False)
    assert stored(vector) == expected.getvalue()
    assert stored(vector) == expected.getvalue()  # the remembered header serves a second call


def test_replacing_reads_a_foreign_entry_as_a_miss_and_overwrites_it(tmp_path: Path) -> None:
    cache = cache_in(tmp_path)
    key = sample_key("sig@1", SAMPLE)
    cache.put_signal(key, Signal(name="sig", value=0.1, version="v1"))
    cache.put_vectors("m", {"text": np.ones(2, dtype=np.float32)})
    with _raw(cache) as raw:
        raw.set(key, '{"not": "a signal"}')
        raw.set(_vector_key("m", "text"), "a string")
    cache.replace_unsafe = True
    assert cache.get_signal(key, "sig", "v1") is None
    assert cache.get_vectors("m", ["text"], 2) == {}
    assert cache.replaced == 2
    cache.put_signal(key, Signal(name="sig", value=0.7, version="v1"))
    cache.put_vectors("m", {"text": np.full(2, 3.0, dtype=np.float32)})
    cache.replace_unsafe = False
    got = cache.get_signal(key, "sig", "v1")
    assert got is not None and got.value == 0.7
    assert cache.get_vectors("m", ["text"], 2)["text"].tolist() == [3.0, 3.0]
