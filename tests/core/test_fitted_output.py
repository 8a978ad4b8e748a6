"""A fitted file is written only to a new path or over an earlier file of its kind, whole or not at all."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from trustscore._errors import CalibratorError, ProfileError
from trustscore.core._fitted_output import FittedKind, check_fitted_output, write_fitted_file

CALIBRATOR = json.dumps({"kind": "stacked_lr", "content_sha256": "0" * 64, "coef": [1.0]})
CASCADE = json.dumps({"kind": "cascade", "content_sha256": "1" * 64})
PROFILE = json.dumps({"checksum": "abc", "profile": {}})


@pytest.mark.parametrize(
    ("kind", "earlier"),
    [("calibrator", CALIBRATOR), ("cascade", CASCADE), ("ReDeEP profile", PROFILE)],
)
def test_an_earlier_file_of_the_same_kind_is_replaced(tmp_path: Path, kind: FittedKind, earlier: str) -> None:
    path = tmp_path / "fitted.json"
    path.write_text(earlier, encoding="utf-8")
    assert write_fitted_file(path, "new\n", kind, error=CalibratorError) == path
    assert path.read_text(encoding="utf-8") == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["fitted.json"]  # no temporary file left


def test_a_new_path_is_written_with_its_folder_and_the_umask_mode(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "c.json"
    old = os.umask(0o027)
    try:
        write_fitted_file(path, CALIBRATOR, "calibrator", error=CalibratorError)
    finally:
        os.umask(old)
    assert path.read_text(encoding="utf-8") == CALIBRATOR
    assert path.stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize(
    ("content", "kind"),
    [
        (b'{"id": "r1", "score": 0.4, "signals": {}}\n{"id": "r2"}\n', "calibrator"),  # scored rows
        (b'{"question": "q", "response": "r", "hallucinated": 1}\n', "calibrator"),  # labeled rows
        (b"notes I keep\n", "calibrator"),
        (b"", "calibrator"),
        (b"\xff\xfe{\x00", "calibrator"),  # not UTF-8
        (CASCADE.encode(), "calibrator"),  # another kind of fitted file
        (CALIBRATOR.encode(), "cascade"),
        (CALIBRATOR.encode(), "ReDeEP profile"),
        (b'{"checksum": "abc", "profile": {}, "mine": 1}', "ReDeEP profile"),
        (b"[1, 2]", "calibrator"),
    ],
)
def test_anything_else_at_the_path_is_refused_and_left_as_it_was(
    tmp_path: Path, content: bytes, kind: FittedKind
) -> None:
    path = tmp_path / "precious.jsonl"
    path.write_bytes(content)
    before = path.read_bytes()
    with pytest.raises(ProfileError, match=f"exists and is not a trustscore {kind}; .*choose another"):
        write_fitted_file(path, CALIBRATOR, kind, error=ProfileError)
    assert path.read_bytes() == before


def test_a_folder_a_fifo_a_device_and_broken_links_are_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    cases = {
        tmp_path: "is a directory; give the path of the calibrator file",
        fifo: "is not a regular file",
        Path("/dev/null"): "is not a regular file",
        loop: "a symlink loop",
        dangling: "a symlink to a missing file",
    }
    for path, message in cases.items():
        with pytest.raises(CalibratorError, match=message):
            check_fitted_output(path, "calibrator", error=CalibratorError)
    assert not (tmp_path / "nowhere").exists()


def test_an_interrupted_write_leaves_the_earlier_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.json"
    path.write_text(CALIBRATOR, encoding="utf-8")

    def cut(src: str | Path, dst: str | Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", cut)
    with pytest.raises(KeyboardInterrupt):
        write_fitted_file(path, "new", "calibrator", error=CalibratorError)
    assert path.read_text(encoding="utf-8") == CALIBRATOR
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"]


def test_a_link_to_an_earlier_file_is_written_through_and_a_replaced_file_keeps_its_mode(
    tmp_path: Path,
) -> None:
    target = tmp_path / "v3.json"
    target.write_text(CALIBRATOR, encoding="utf-8")
    target.chmod(0o600)
    link = tmp_path / "current.json"
    link.symlink_to(target.name)
    write_fitted_file(link, "new", "calibrator", error=CalibratorError)
    assert link.is_symlink() and target.read_text(encoding="utf-8") == "new"
    assert target.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["current.json", "v3.json"]


def test_a_long_file_name_still_gets_its_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / ("c" * 250 + ".json")
    write_fitted_file(path, CALIBRATOR, "calibrator", error=CalibratorError)
    assert path.read_text(encoding="utf-8") == CALIBRATOR
