"""Every file trustscore loads fails with one clear error naming the file, before a big read."""

from __future__ import annotations

import os
import resource
from pathlib import Path

import pytest

from trustscore import Config, ConfigError
from trustscore.core._files import MAX_JSON_BYTES
from trustscore.fusion import CalibratorError, load_model
from trustscore.whitebox._profile import ProfileError, RedeepProfile


def sparse(path: Path, size: int) -> Path:
    """A file of ``size`` bytes that takes no disk (what a stray 200 MB file looks like to stat)."""
    with path.open("wb") as f:
        f.truncate(size)
    return path


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.parametrize(
    ("load", "error"),
    [(RedeepProfile.load, ProfileError), (load_model, CalibratorError)],
    ids=["profile", "calibrator"],
)
def test_an_oversized_file_is_refused_before_it_is_read(load: object, error: type, tmp_path: Path) -> None:
    big = sparse(tmp_path / "big.json", 200 * 2**20)
    before = peak_rss_mib()
    with pytest.raises(error, match=r"is 209,715,200 bytes; the limit is") as info:
        load(big)  # type: ignore[operator]
    assert str(big) in str(info.value)
    assert peak_rss_mib() - before < 50  # nothing was read (the 198 MB profile used to take 6.2 GB)


@pytest.mark.parametrize(
    ("load", "error"),
    [(RedeepProfile.load, ProfileError), (load_model, CalibratorError)],
    ids=["profile", "calibrator"],
)
@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"[" * 200_000 + b"]" * 200_000, r"nest|recursion|depth"),
        (b'{"checksum": "\xff\xfe"}', r"not UTF-8 text \(byte 14"),
        (b"{nope", r"not valid JSON|not a valid"),
    ],
    ids=["deep", "not-utf8", "bad-json"],
)
def test_bad_content_is_one_clear_error(
    load: object, error: type, content: bytes, message: str, tmp_path: Path
) -> None:
    path = tmp_path / "file.json"
    path.write_bytes(content)
    with pytest.raises(error, match=message) as info:
        load(path)  # type: ignore[operator]
    assert str(path) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_a_directory_or_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="is a directory"):
        RedeepProfile.load(tmp_path)
    with pytest.raises(ProfileError, match="does not exist"):
        RedeepProfile.load(tmp_path / "missing.json")
    with pytest.raises(CalibratorError, match="does not exist"):
        load_model(tmp_path / "missing.json")


def test_config_files_are_capped_and_decoded_with_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="the limit is"):
        Config.from_toml(sparse(tmp_path / "big.toml", 50 * 2**20))
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b'[cache]\nmode = "\xff"\n')
    with pytest.raises(ConfigError, match=r"bad.toml is not UTF-8 text"):
        Config.from_toml(bad)
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(ConfigError, match=r"deep\.toml"):
        Config.from_toml(deep)


def test_the_cap_leaves_room_for_real_files() -> None:
    assert MAX_JSON_BYTES >= 16 * 2**20
    shipped = Path(__file__).parents[2] / "trustscore/calibrators/local_multidomain.json"
    assert os.path.getsize(shipped) < 2**20


LOADERS = [
    (RedeepProfile.load, ProfileError),
    (load_model, CalibratorError),
    (Config.from_toml, ConfigError),
]
LOADER_IDS = ["profile", "calibrator", "config"]


@pytest.mark.parametrize(("load", "error"), LOADERS, ids=LOADER_IDS)
def test_a_device_or_a_fifo_is_refused_without_reading_it(load: object, error: type, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)  # opening it would wait for a writer forever
    for path in (Path("/dev/zero"), fifo):
        with pytest.raises(error, match="is not a regular file"):
            load(path)  # type: ignore[operator]


@pytest.mark.parametrize(("load", "error"), LOADERS, ids=LOADER_IDS)
def test_a_symlink_loop_is_named(load: object, error: type, tmp_path: Path) -> None:
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    with pytest.raises(error, match="a symlink loop"):
        load(loop)  # type: ignore[operator]


@pytest.mark.parametrize(("field", "value"), [("coef", 1e308), ("intercept", -1e300), ("center", 1e7)])
def test_a_rehashed_calibrator_with_absurd_numbers_is_refused(
    field: str, value: float, tmp_path: Path
) -> None:
    import json

    from trustscore.calibrators import __file__ as shipped_dir
    from trustscore.fusion import FusionModel

    data = json.loads((Path(shipped_dir).parent / "local_multidomain.json").read_text(encoding="utf-8"))
    if field == "coef":
        data["coef"][0] = value
    elif field == "intercept":
        data["intercept"] = value
    else:
        data["features"][0]["center"] = value
    data["content_sha256"] = FusionModel.compute_hash(data)  # what someone editing it would do
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CalibratorError, match=rf"{field} holds .*beyond the \+-1e\+06 a fit produces"):
        load_model(path)
