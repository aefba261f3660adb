"""The Ray executor's parts that need no cluster: its config keys and rules, the ledger a worker
drains into the driver's, and the shared back-off hooked into the retry layer (against a local
OpenAI-compatible server answering 429)."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage

from benchmarker.agent import retry
from benchmarker.agent.ledger import TokenLedger, Usage
from benchmarker.agent.providers import make_chat_model
from benchmarker.agent.retry import RetryPolicy, ainvoke_with_retry, is_throttle
from benchmarker.config import load_config
from benchmarker.errors import ConfigError, UserError
from benchmarker.run.ray_limiter import BackoffClock
from tests.fakes.openai_server import ScriptedOpenAIServer, http_error, reply

RAY_KEYS = ('executor = "ray"\nray_address = "auto"\nworkers = 3\nworker_cpus = 2\nworker_gpus = 0.5\n'
            'worker_memory_mb = 4096\nworker_resources = { pool = 1 }\ncase_retries = 4\nconcurrency = 3\n')


def load(tmp_path: Path, text: str, name: str = "run"):
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def problems(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as err:
        load(tmp_path, text)
    return str(err.value)


def test_the_executor_keys_load_and_never_change_the_run_id(tmp_path):
    local = load(tmp_path, "[run]\nconcurrency = 3\n")
    ray = load(tmp_path, f"[run]\n{RAY_KEYS}")
    assert ray.run_id == local.run_id  # a run resumes under either executor
    assert (ray.run.executor, ray.run.workers, ray.run.worker_resources, ray.run.case_retries) == \
        ("ray", 3, {"pool": 1.0}, 4)
    assert local.run.executor == "local" and local.run.workers == 2


@pytest.mark.parametrize("text,key", [
    ('[run]\nexecutor = "ray"\n[agent]\ntype = "http"\n[agent.http]\nbase_url = "http://127.0.0.1:9/"\n', "[agent].type"),
    ('[run]\nexecutor = "ray"\n[memory]\npreset = "kuzu-memory"\nbackend = "mcp"\n', "[memory].preset"),
    ('[run]\nexecutor = "ray"\n[self_improve]\niterations = 1\n', "[self_improve].iterations"),
    ('[run]\nexecutor = "ray"\n[memory]\ndb_path = "m.sqlite"\n', "[memory].db_path"),
    ('[run]\nexecutor = "ray"\nray_address = "nowhere"\n', "[run].ray_address"),
    ('[run]\nray_address = "auto"\n', "[run].ray_address"),
    ('[run]\nexecutor = "dask"\n', "[run].executor"),
    ('[run]\nexecutor = "ray"\nworkers = 0\n', "[run].workers"),
])
def test_what_ray_cannot_run_is_refused_by_key(tmp_path, text, key):
    assert key in problems(tmp_path, text)


def test_fewer_cases_in_flight_than_workers_is_a_note(tmp_path):
    config = load(tmp_path, '[run]\nexecutor = "ray"\nworkers = 4\nconcurrency = 2\n')
    assert any("2 will idle" in note for note in config._notes)


def test_without_ray_installed_the_error_says_how_to_install_it(monkeypatch):
    from benchmarker.run.ray_executor import import_ray

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(UserError, match=r"mycelian-longmemeval\[ray\]"):
        import_ray()


def test_a_workers_drained_tallies_add_up_in_the_drivers_ledger():
    prices = {"m": {"input_per_mtok": 1.0, "output_per_mtok": 2.0}}
    driver, worker, alone = TokenLedger(prices), TokenLedger(prices), TokenLedger(prices)
    calls = [("agent", "m", Usage(1, 100, 10, 40, 0)), ("qa", "m", Usage(1, 50, 5)), ("agent", "m", Usage(1, 7, 3))]
    for i, (role, model, usage) in enumerate(calls):
        worker.record_usage(role, model, usage)
        alone.record_usage(role, model, usage)
        if i == 1:
            driver.merge(worker.drain())
    driver.merge(worker.drain())
    assert worker.drain() == [] and worker.snapshot()["total"]["calls"] == 0  # each count handed over once
    assert driver.snapshot() == alone.snapshot()


class LocalGate:
    """The CallGate protocol over a BackoffClock in this process (Ray's version: RayCallGate)."""

    def __init__(self, clock: BackoffClock):
        self.clock = clock

    async def wait(self) -> None:
        if (remaining := self.clock.remaining()) > 0:
            await asyncio.sleep(remaining)

    def hold(self, seconds: float) -> None:
        self.clock.hold(seconds)


async def test_a_429_on_one_worker_pauses_the_others_calls(openai_key):
    """Worker A is told to wait 1 s; worker B's call, started 0.1 s later, waits out the same second
    instead of going to the provider at once (with no shared gate it would)."""
    policy = RetryPolicy(max_attempts=3, initial_backoff_s=0.01, max_backoff_s=5.0)
    clock = BackoffClock()
    script = [http_error(429, "rate limited", headers={"Retry-After": "1"}), reply("b"), reply("a")]
    retry.use_call_gate(LocalGate(clock))
    try:
        with ScriptedOpenAIServer(script) as server:
            model = make_chat_model("openai", "gpt-test", role="qa", base_url=server.base_url, api_key_env=openai_key)
            first = asyncio.create_task(ainvoke_with_retry(model, [HumanMessage("a")], policy=policy))
            await asyncio.sleep(0.3)  # A has its 429 and holds the gate
            started = time.monotonic()
            await ainvoke_with_retry(model, [HumanMessage("b")], policy=policy)
            waited = time.monotonic() - started
            await first
            times = server.request_times
    finally:
        retry.use_call_gate(None)
    assert clock.holds == 1 and len(times) == 3
    assert waited >= 0.6 and times[1] - times[0] >= 0.95  # B went out only after A's Retry-After


def test_only_rate_limits_hold_the_gate():
    class Status(Exception):
        def __init__(self, status):
            super().__init__(str(status))
            self.status_code = status

    assert is_throttle(Status(429)) and is_throttle(Status(529))
    assert not is_throttle(Status(503)) and not is_throttle(ConnectionError()) and not is_throttle(None)


def test_the_kuberay_example_holds_a_valid_run_config_that_fits_its_pods(tmp_path):
    """configs/kuberay/rayjob.yaml: its run.toml loads (with the data path pointed at a real file),
    the entrypoint reads the mounted ConfigMap, the actors fit the worker pods, and the image's Ray
    is the version the RayJob names."""
    import yaml

    repo = Path(__file__).resolve().parents[2]
    docs = list(yaml.safe_load_all((repo / "configs" / "kuberay" / "rayjob.yaml").read_text()))
    config_map = next(d for d in docs if d["kind"] == "ConfigMap")
    job = next(d for d in docs if d["kind"] == "RayJob")
    data = tmp_path / "longmemeval_s_cleaned.json"
    data.write_text("[]", encoding="utf-8")
    text = config_map["data"]["run.toml"].replace("/data/longmemeval_s_cleaned.json", str(data)).replace(
        "/data/runs", str(tmp_path / "runs"))
    config = load(tmp_path, text)
    assert (config.run.executor, config.run.ray_address) == ("ray", "auto") and config.run.concurrency >= config.run.workers
    head = job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]
    mount = next(m["mountPath"] for m in head["containers"][0]["volumeMounts"] if m["name"] == "config")
    assert job["spec"]["entrypoint"] == f"mycelian-longmemeval run {mount}/run.toml"
    (group,) = job["spec"]["rayClusterSpec"]["workerGroupSpecs"]
    pod_cpus = float(group["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"])
    assert config.run.workers * config.run.worker_cpus <= group["replicas"] * pod_cpus
    dockerfile = (repo / "configs" / "kuberay" / "Dockerfile").read_text()
    assert f"rayproject/ray:{job['spec']['rayClusterSpec']['rayVersion']}-py311" in dockerfile
