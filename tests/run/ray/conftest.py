"""A real Ray cluster on this machine: a head node and a worker node, each a `ray start` process.

Started once per test process (every Ray test is in the xdist group "ray", so one process runs
them all) with token authentication, as Ray 2.60 clusters run by default. The nodes are started
with `--node-ip-address 127.0.0.1`; Ray itself advertises the machine's own address instead
(`resolve_ip_for_localhost`), so traffic stays on this machine either way. Each node runs in its
own process group, which teardown kills: no `ray stop`, which would kill every Ray on the machine.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

if importlib.util.find_spec("ray") is None:
    pytest.skip('Ray is an optional extra: pip install -e ".[ray]"', allow_module_level=True)

RAY_CLI = str(Path(sys.executable).with_name("ray"))
# Ray reads its token once per process, when it first connects: set it before anything imports Ray.
# (A harness-started local Ray in this process uses the same token; nothing else here talks to Ray.)
TOKEN = os.environ.setdefault("RAY_AUTH_TOKEN", secrets.token_hex(32))
os.environ.setdefault("RAY_AUTH_MODE", "token")


@dataclass
class Cluster:
    address: str
    env: dict[str, str]          # what a driver process needs to reach it (the token)
    nodes: list[subprocess.Popen]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    return subprocess.Popen([RAY_CLI, "start", "--block", "--disable-usage-stats", *args], env=env,
                            stdin=subprocess.DEVNULL, stdout=log.open("ab"), stderr=subprocess.STDOUT,
                            start_new_session=True)


def _stop(node: subprocess.Popen) -> None:
    for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(node.pid, sig)
        except ProcessLookupError:
            return
        try:
            node.wait(grace)
            return
        except subprocess.TimeoutExpired:
            continue


def _alive_nodes(address: str, env: dict[str, str]) -> int:
    probe = ("import ray; ray.init(address=%r, configure_logging=False); "
             "print(sum(1 for n in ray.nodes() if n['Alive']))" % address)
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60)
    return int(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 and done.stdout.strip() else 0


@pytest.fixture(scope="session")
def ray_cluster(tmp_path_factory):
    if shutil.which(RAY_CLI) is None and not Path(RAY_CLI).exists():
        pytest.skip("the `ray` command is not installed beside this Python")
    logs = tmp_path_factory.mktemp("ray-cluster")
    port = _free_port()
    env = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=TOKEN, RAY_USAGE_STATS_ENABLED="0")
    address = f"127.0.0.1:{port}"
    nodes = [_start(["--head", "--node-ip-address=127.0.0.1", f"--port={port}", "--num-cpus=1",
                     "--include-dashboard=false"], env, logs / "head.log")]
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline or nodes[0].poll() is not None:
                    raise RuntimeError(f"the Ray head did not start:\n{(logs / 'head.log').read_text()[-3000:]}")
                time.sleep(0.3)
        nodes.append(_start([f"--address={address}", "--node-ip-address=127.0.0.1", "--num-cpus=1"], env,
                            logs / "worker.log"))
        deadline = time.monotonic() + 120
        while _alive_nodes(address, env) < 2:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Ray worker node did not join:\n{(logs / 'worker.log').read_text()[-3000:]}")
            time.sleep(1.0)
        yield Cluster(address=address, env=env, nodes=nodes)
    finally:
        for node in reversed(nodes):
            _stop(node)
