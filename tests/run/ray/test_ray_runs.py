"""Runs on a real two-node Ray cluster (tests/run/ray/conftest.py), checked against local runs of the
same config: the quickstart, a retrieval-only sweep, a worker killed mid-run, and resuming a run
under the other executor. Drivers run in-process (`benchmarker.cli.main`) except the one whose
worker is killed, which runs as the CLI in a subprocess while the test watches its progress."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from benchmarker.cli import main
from tests.e2e.cli import read_lines

REPO = Path(__file__).resolve().parents[3]
QUICKSTART = (REPO / "configs" / "quickstart.toml").read_text(encoding="utf-8")

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]


def write_config(folder: Path, *, executor: str = "local", address: str = "", extra_run: str = "",
                 tail: str = "", name: str = "quickstart") -> Path:
    """configs/quickstart.toml as a user would edit it: its output under `folder`, the executor set."""
    folder.mkdir(parents=True, exist_ok=True)
    ray_keys = f'executor = "ray"\nray_address = "{address}"\nworkers = 2\n' if executor == "ray" else ""
    text = re.sub(r'output_dir = "[^"]*"', 'output_dir = "runs"\nprogress = false\n' + ray_keys + extra_run,
                  QUICKSTART) + tail
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def run_dir(config: Path) -> Path:
    (found,) = (config.parent / "runs").glob(f"{config.stem}-*")
    return found


def answers(path: Path) -> dict[str, tuple]:
    return {r["question_id"]: (r["hypothesis"], r["label"]) for r in read_lines(path / "results.jsonl")}


def retrieved(path: Path) -> dict[str, list]:
    return {r["question_id"]: [(h["session_id"], h["turn_index"]) for h in r["retrieved"]]
            for r in read_lines(path / "results.jsonl")}


def metrics(path: Path) -> dict:
    summary = json.loads((path / "summary.json").read_text(encoding="utf-8"))
    return {k: summary.get(k) for k in ("overall", "by_type", "retrieval", "abstention")}


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every run file but the manifest (which records each attempt)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.jsonl"))}


@pytest.fixture(scope="module")
def local_quickstart(tmp_path_factory) -> Path:
    config = write_config(tmp_path_factory.mktemp("local"))
    assert main(["run", str(config)]) == 0
    return run_dir(config)


def test_quickstart_on_two_ray_nodes_answers_like_a_local_run_and_resumes_under_either_executor(
        ray_cluster, local_quickstart, tmp_path):
    config = write_config(tmp_path, executor="ray", address=ray_cluster.address)
    assert main(["run", str(config)]) == 0
    ray_run = run_dir(config)
    assert ray_run.name == local_quickstart.name  # the executor is not part of the run id
    assert answers(ray_run) == answers(local_quickstart) and len(answers(ray_run)) == 15
    assert metrics(ray_run) == metrics(local_quickstart)
    assert not (ray_run / "memory.sqlite").exists()  # no memory service on the driver
    memories = read_lines(ray_run / "memories.jsonl")
    assert len(memories) == 30 and all(m["held_by"].startswith("ray:w") for m in memories)
    manifest = json.loads((ray_run / "manifest.json").read_text())
    executor = manifest["executor"]
    assert (executor["executor"], executor["workers"], executor["cases_lost_with_a_worker"]) == ("ray", 2, 0)
    assert len([n for n in executor["nodes"] if n["alive"]]) == 2
    assert len({w["pid"] for w in executor["started"]}) == 2 and manifest["memory"]["per_worker"] is True
    assert manifest["attempts"][-1]["executor"] == "ray" and manifest["status"] == "finished"

    before = snapshot(ray_run)
    assert main(["run", str(config)]) == 0  # the same command again: a finished run rewrites nothing
    local_again = config.read_text().replace('executor = "ray"', 'executor = "local"').replace(
        f'ray_address = "{ray_cluster.address}"', "")
    config.write_text(local_again)
    assert main(["run", str(config)]) == 0  # and under the other executor: nothing either
    assert snapshot(ray_run) == before
    assert [a["executor"] for a in json.loads((ray_run / "manifest.json").read_text())["attempts"]] == \
        ["ray", "ray", "local"]


def _cut_off(point_dir: Path, keep: int) -> list[str]:
    """A run stopped after `keep` answers: later answers and results were never written."""
    dropped = [r["question_id"] for r in read_lines(point_dir / "answers.jsonl")[keep:]]
    for name in ("answers.jsonl", "results.jsonl", "hypotheses.jsonl"):
        lines = (point_dir / name).read_text(encoding="utf-8").splitlines(keepends=True)
        assert [json.loads(line)["question_id"] for line in lines[keep:]] == dropped
        (point_dir / name).write_text("".join(lines[:keep]), encoding="utf-8")
    return dropped


SWEEP = '\n[sweep]\ntop_k = [3, 10]\n'
RETRIEVAL = 'mode = "retrieval"\n'


@pytest.fixture(scope="module")
def local_sweep(tmp_path_factory) -> Path:
    """The reference: a retrieval-only sweep of the quickstart's data with the local executor."""
    config = write_config(tmp_path_factory.mktemp("sweep"), extra_run=RETRIEVAL, tail=SWEEP)
    assert main(["run", str(config)]) == 0
    return config


@pytest.mark.parametrize("first,then", [("ray", "local"), ("local", "ray")])
def test_a_retrieval_sweep_matches_across_executors_and_a_cut_off_run_resumes_under_the_other(
        ray_cluster, local_sweep, tmp_path, first, then):
    sweep, retrieval, reference = SWEEP, RETRIEVAL, local_sweep
    config = write_config(tmp_path / "cut", executor=first, address=ray_cluster.address, extra_run=retrieval,
                          tail=sweep)
    assert main(["run", str(config)]) == 0
    points = sorted(p.name for p in (run_dir(config) / "points").iterdir())
    assert points == ["alpha=service_topk=10", "alpha=service_topk=3"]
    for point in points:
        assert retrieved(run_dir(config) / "points" / point) == retrieved(run_dir(reference) / "points" / point)
    assert (run_dir(config) / "sweep.md").read_text() == (run_dir(reference) / "sweep.md").read_text()
    # one ingestion serves both points: a memory per case, not per point
    assert len([m for m in read_lines(run_dir(config) / "memories.jsonl") if m["status"] == "ingested"]) == 15

    dropped = _cut_off(run_dir(config) / "points" / points[1], keep=10)
    text = config.read_text()
    if then == "local":
        text = text.replace('executor = "ray"', 'executor = "local"').replace(f'ray_address = "{ray_cluster.address}"', "")
    else:
        text = text.replace("progress = false\n", f'progress = false\nexecutor = "ray"\nray_address = '
                            f'"{ray_cluster.address}"\nworkers = 2\n', 1)
    config.write_text(text)
    assert main(["run", str(config)]) == 0
    resumed = run_dir(config) / "points" / points[1]
    assert retrieved(resumed) == retrieved(run_dir(reference) / "points" / points[1])
    # the dropped questions answered again, each once (in the order their cases finished)
    assert sorted(r["question_id"] for r in read_lines(resumed / "results.jsonl")[10:]) == sorted(dropped)
    memories = read_lines(run_dir(config) / "memories.jsonl")
    again = {m["case_id"] for m in memories if m["attempt"] == 2}
    # the memories of the cut-off cases were held by the other executor's service: ingested again, once each
    assert again == set(dropped)
    assert all(m["held_by"] is None for m in memories if m["attempt"] == 2) == (then == "local")


def _this_runs_workers(folder: Path) -> list[dict]:
    """The workers this run started ({"name": "w<i>-...", "pid"}), from the manifest the driver writes once
    they are up (never a worker of an earlier run that pgrep would also find)."""
    (manifest,) = (folder / "runs").glob("*/manifest.json")
    return json.loads(manifest.read_text())["executor"]["started"]


def _kill_a_worker_holding_a_case(stderr, pattern: str, folder: Path, seen: list[str], killed: list[int]) -> None:
    """At `pattern`, freeze both workers (SIGSTOP), give the driver time to hand each its next case, then
    SIGKILL worker 0 and thaw the other. Frozen, a worker cannot finish the case it holds, and with 12 cases
    left and `concurrency = 2` over two workers the driver keeps one case on each: so the killed worker
    holds a case (the case it was running, or the one just sent to it), which the driver must run again."""
    for line in stderr:
        seen.append(line)
        if not killed and re.search(pattern, line):
            workers = _this_runs_workers(folder)
            pids = [w["pid"] for w in sorted(workers, key=lambda w: w["name"])]
            for pid in pids:
                os.kill(pid, signal.SIGSTOP)
            time.sleep(2.0)
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])
            for pid in pids[1:]:
                os.kill(pid, signal.SIGCONT)


def test_a_worker_killed_mid_run_loses_nothing_and_duplicates_nothing(ray_cluster, local_quickstart, tmp_path):
    config = write_config(tmp_path, executor="ray", address=ray_cluster.address,
                          extra_run="").read_text().replace("progress = false", "progress = true")
    path = tmp_path / "quickstart.toml"
    path.write_text(config)
    env = dict(ray_cluster.env, PYTHONUNBUFFERED="1")
    driver = subprocess.Popen([sys.executable, "-m", "benchmarker.cli", "run", str(path)], cwd=tmp_path, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen: list[str] = []
    killed: list[int] = []
    watcher = threading.Thread(target=_kill_a_worker_holding_a_case,
                               args=(driver.stderr, r"^\[3/15\]", tmp_path, seen, killed))
    watcher.start()
    try:
        code = driver.wait(600)
    finally:
        if driver.poll() is None:
            driver.kill()
        watcher.join(30)
    assert code == 0, "".join(seen)[-4000:]
    assert killed, "the run finished before a worker could be killed"
    ray_run = run_dir(path)
    errors = (ray_run / "errors.jsonl").read_text() if (ray_run / "errors.jsonl").exists() else ""
    assert not errors, errors[-3000:] + "".join(seen)[-3000:]  # the lost case was run again, not failed
    assert answers(ray_run) == answers(local_quickstart)  # nothing lost, same answers
    assert len(read_lines(ray_run / "results.jsonl")) == 15  # and no question twice
    memories = read_lines(ray_run / "memories.jsonl")
    per_case = {}
    for m in memories:
        per_case.setdefault(m["case_id"], []).append(m["status"])
    assert all(statuses == ["created", "ingested"] for statuses in per_case.values()) and len(per_case) == 15
    executor = json.loads((ray_run / "manifest.json").read_text())["executor"]
    assert executor["cases_lost_with_a_worker"] >= 1
    assert "Ray worker 0 was lost during case" in "".join(seen)  # the killed worker held a case


def test_the_back_off_is_one_actor_every_worker_waits_on(ray_cluster):
    """What a worker's retry layer talks to (RayCallGate over the driver's BackoffClock actor)."""
    import asyncio
    import time

    import ray

    from benchmarker.run.ray_limiter import BackoffClock, RayCallGate

    ray.init(address=ray_cluster.address, configure_logging=False)
    try:
        clock = ray.remote(num_cpus=0)(BackoffClock).remote()
        first, second = RayCallGate(clock), RayCallGate(clock)   # two workers' views of one clock
        first.hold(0.6)
        started = time.monotonic()
        asyncio.run(second.wait())
        assert time.monotonic() - started >= 0.4
        assert ray.get(clock.stats.remote())["holds"] == 1
    finally:
        ray.shutdown()
