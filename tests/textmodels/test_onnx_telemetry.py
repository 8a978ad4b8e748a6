"""Loading the embedder leaves onnxruntime's usage reporting off: no device id and no queue of events in
the user's cache folder, unless the environment asked for onnxruntime's default."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime", reason="the embedder's default runtime")

GUARD_S = 300
CI_MARKERS = (
    "CI", "TF_BUILD", "GITHUB_ACTIONS", "GITLAB_CI", "CIRCLECI", "TRAVIS", "JENKINS_URL",
    "CODEBUILD_BUILD_ID", "BUILDKITE", "TEAMCITY_VERSION", "APPVEYOR", "BITBUCKET_BUILD_NUMBER",
)  # fmt: skip
"""Variables under which onnxruntime reports nothing on its own (a CI box): the children run without
them, as on a user's machine."""
PROXIES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")
UNREACHABLE = "http://127.0.0.1:9"

LOAD_THE_EMBEDDER = """
from trustscore.textmodels import load_embedder

assert load_embedder().encode(["The ferry runs every 20 minutes."]).shape == (1, 384)
"""


def _run(code: str, home: Path, **env: str) -> list[Path]:
    """Run ``code`` in a fresh interpreter whose cache folder is ``home/cache``; the files it left there.

    The child can write what onnxruntime writes but send nothing: every proxy is a closed local port
    and the certificates it would trust are none, so a child whose reporting is on still reports
    to no one."""
    home.mkdir()
    no_certificates = home / "no-certificates.pem"
    no_certificates.touch()
    dropped = {*CI_MARKERS, "ORT_DISABLE_TELEMETRY", "NO_PROXY", "no_proxy"}
    child_env = {k: v for k, v in os.environ.items() if k not in dropped}
    child_env |= dict.fromkeys(PROXIES, UNREACHABLE)
    child_env |= {"SSL_CERT_FILE": str(no_certificates), "XDG_CACHE_HOME": str(home / "cache"), **env}
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=child_env,
        capture_output=True,
        text=True,
        timeout=GUARD_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return [p for p in (home / "cache").rglob("*") if p.is_file()]


@pytest.fixture
def onnxruntime_reports(tmp_path: Path) -> None:
    """Skip where this onnxruntime writes nothing when imported plainly: there is nothing to switch off."""
    if not _run("import onnxruntime", tmp_path / "plain-import"):
        pytest.skip(
            "this onnxruntime writes no device id or event queue when imported: nothing to switch off"
        )


@pytest.mark.usefixtures("onnxruntime_reports")
def test_loading_the_embedder_leaves_no_device_id_or_event_queue(tmp_path: Path) -> None:
    assert _run(LOAD_THE_EMBEDDER, tmp_path / "trustscore") == []


@pytest.mark.usefixtures("onnxruntime_reports")
def test_a_process_that_asked_for_onnxruntimes_default_keeps_it(tmp_path: Path) -> None:
    left = _run(LOAD_THE_EMBEDDER, tmp_path / "asked", ORT_DISABLE_TELEMETRY="0")
    assert any(p.name == "deviceid" for p in left)
