"""A local ``score --ray`` run's Ray listens on 127.0.0.1 only (Ray's default is every interface)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.ray
pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")

PROBE = """
import json, psutil
from trustscore.ray._command import keep_local_ray_on_loopback
keep_local_ray_on_loopback()
import ray
ray.init(num_cpus=1, log_to_driver=False, include_dashboard=False)
ray.get(ray.remote(lambda: 1).remote())  # a worker is up too
ours = {p.pid for p in psutil.Process().children(recursive=True)} | {psutil.Process().pid}
listening = sorted({c.laddr.ip for c in psutil.net_connections("inet")
                    if c.status == psutil.CONN_LISTEN and c.pid in ours})
print(json.dumps(listening))
ray.shutdown()
"""


def test_a_local_ray_listens_on_loopback_only() -> None:
    env = {k: v for k, v in os.environ.items() if k != "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"}
    env["PYTHONPATH"] = str(Path(__file__).parents[2])
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    addresses = json.loads(done.stdout.strip().splitlines()[-1])
    assert addresses and set(addresses) <= {"127.0.0.1", "::ffff:127.0.0.1"}, addresses
