"""`[memory] device` ("auto" | "cpu" | "cuda") for the minilm embedder: validated by the schema, out of the
run id, resolved to CPU where torch sees no CUDA device, a one-line exit 2 for `cuda` without one,
recorded in the manifest, and handed to the embedded service (settings, argv, embedder factory)."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from benchmarker.cli import main
from benchmarker.config import canonical_hash, load_config
from benchmarker.errors import ConfigError, UserError
from benchmarker.memory.drivers.open import embedder_device, memory_server
from embedded_memory import cli as service_cli
from embedded_memory import embedders
from embedded_memory import service as service_module
from embedded_memory.errors import EmbedderError
from embedded_memory.settings import ServiceSettings
from benchmarker.reporting.summary_model import RunSummary
from benchmarker.run import runner

CONFIG = """
run_id = "dev"
dataset_file = "{data}"
[memory]
embedder = "minilm"
{device}
[run]
output_dir = "{out}"
progress = false
"""


def _question(qid: str) -> dict[str, Any]:
    """One tiny LongMemEval instance (the embedder never runs in these tests)."""
    return {"question_id": qid, "question_type": "single-session-user", "question": "What colour is my car?",
            "answer": "blue", "question_date": "2023/05/30 (Tue) 23:40",
            "haystack_dates": ["2023/05/20 (Sat) 09:00"], "haystack_session_ids": [f"s-{qid}"],
            "haystack_sessions": [[{"role": "user", "content": "My car is blue.", "has_answer": True},
                                   {"role": "assistant", "content": "Nice."}]],
            "answer_session_ids": [f"s-{qid}"]}


def _config(tmp_path: Path, device: str | None, name: str = "run.toml") -> Path:
    data = tmp_path / "data.json"
    if not data.exists():
        data.write_text(json.dumps([_question("q1")]), encoding="utf-8")
    path = tmp_path / name
    line = f'device = "{device}"' if device is not None else ""
    path.write_text(CONFIG.format(data=data, out=tmp_path / "runs", device=line), encoding="utf-8")
    return path


@pytest.fixture
def no_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    """Torch sees no CUDA device, whatever machine the tests run on."""
    monkeypatch.setattr(embedders, "cuda_available", lambda: False)


# --- the config key ----------------------------------------------------------------------------

def test_device_defaults_to_auto_and_accepts_each_value(tmp_path: Path) -> None:
    assert load_config(_config(tmp_path, None)).memory.device == "auto"
    for value in ("auto", "cpu", "cuda"):
        assert load_config(_config(tmp_path, value)).memory.device == value


def test_a_bad_device_is_an_error_naming_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(_config(tmp_path, "gpu"))
    message = str(caught.value)
    assert "[memory].device" in message and '"gpu"' in message and '"cuda"' in message


def test_the_device_does_not_change_the_run_id(tmp_path: Path) -> None:
    hashes = {canonical_hash(load_config(_config(tmp_path, value))) for value in (None, "auto", "cpu", "cuda")}
    assert len(hashes) == 1  # existing configs keep their run id; switching device resumes the same run


# --- resolving it ------------------------------------------------------------------------------

def test_auto_resolves_to_cpu_without_a_cuda_device(no_cuda: None) -> None:
    assert embedders.resolve_device("auto") == "cpu"
    assert embedders.resolve_device("cpu") == "cpu"


def test_auto_resolves_to_cpu_on_this_machine() -> None:
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    assert embedders.resolve_device("auto") == "cpu"


def test_auto_picks_cuda_when_torch_sees_a_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedders, "cuda_available", lambda: True)
    assert embedders.resolve_device("auto") == "cuda"
    assert embedders.resolve_device("cuda") == "cuda"
    assert embedders.resolve_device("cpu") == "cpu"  # cpu is always honoured


def test_cuda_without_a_device_is_one_line(no_cuda: None) -> None:
    with pytest.raises(EmbedderError) as caught:
        embedders.resolve_device("cuda")
    assert "no CUDA device" in str(caught.value) and "\n" not in str(caught.value)
    with pytest.raises(EmbedderError, match="unknown device 'gpu'"):
        embedders.resolve_device("gpu")


def test_the_harness_names_the_key_for_cuda_without_a_device(tmp_path: Path, no_cuda: None) -> None:
    path = _config(tmp_path, "cuda")
    with pytest.raises(UserError) as caught:
        config = load_config(path)
        embedder_device(config.memory, config.config_path)
    message = str(caught.value)
    assert caught.value.exit_code == 2 and "\n" not in message
    assert message.startswith(f"{path.resolve()}: [memory] device = \"cuda\": torch sees no CUDA device")


def test_run_with_cuda_and_no_device_exits_2_with_one_line(tmp_path: Path, no_cuda: None,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(_config(tmp_path, "cuda"))]) == 2
    err = capsys.readouterr().err.strip()
    assert "[memory] device" in err and "Traceback" not in err and len(err.splitlines()) == 1
    assert not (tmp_path / "runs" / "dev" / "memory.sqlite").exists()  # no service was started


def test_only_minilm_on_the_embedded_service_has_a_device(tmp_path: Path) -> None:
    cfg = load_config(_config(tmp_path, "cuda"))
    static = cfg.model_copy(update={"memory": cfg.memory.model_copy(update={"embedder": "static"})})
    assert embedder_device(static.memory, static.config_path) is None  # a device it cannot use is never checked


# --- the manifest and the start line -----------------------------------------------------------

def test_the_manifest_records_the_device_and_the_start_line_says_it(tmp_path: Path, no_cuda: None,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    async def no_points(config: Any, plan: Any, models: Any, manifest: dict[str, Any], *rest: Any) -> runner.RunOutcome:
        return runner.RunOutcome(Path(config.run_dir), RunSummary(), [])  # the cases are not the point here

    monkeypatch.setattr(runner, "_run_points", no_points)
    config = load_config(_config(tmp_path, "auto"))
    asyncio.run(runner.execute_run(config))
    manifest = json.loads((Path(config.run_dir) / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["memory"]["embedder"] == "minilm" and manifest["memory"]["device"] == "cpu"
    assert manifest["config"]["config"]["memory"]["device"] == "auto"  # the setting beside what it resolved to
    assert 'embedder minilm on cpu ([memory] device = "auto")' in capsys.readouterr().err


# --- the service receives it -------------------------------------------------------------------

def test_service_settings_validate_and_carry_the_device() -> None:
    with pytest.raises(ValueError, match="device: unknown device 'gpu'"):
        ServiceSettings(device="gpu").validate()
    settings = ServiceSettings(device="cuda")
    parser = argparse.ArgumentParser()
    service_cli.add_arguments(parser)
    args = parser.parse_args(settings.to_cli_args())  # what the launcher passes the service process
    assert service_cli.settings_from_args(args).device == "cuda"
    assert parser.parse_args([]).device == "auto"


def test_the_harness_hands_the_device_to_the_embedded_service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[ServiceSettings] = []

    class FakeService:
        def __init__(self, settings: ServiceSettings, log_path: Path) -> None:
            seen.append(settings)
            self.mcp_url, self.auth_headers = "http://127.0.0.1:1/mcp", {}

        async def __aenter__(self) -> FakeService:
            return self

        async def __aexit__(self, *exc: object) -> None:
            return None

    from embedded_memory import launcher

    monkeypatch.setattr(launcher, "EmbeddedMemoryService", FakeService)
    config = load_config(_config(tmp_path, "cpu"))

    async def open_it() -> None:
        async with memory_server(config.memory, config.config_path, tmp_path, None):  # type: ignore[arg-type]  # no mapping for embedded
            pass

    asyncio.run(open_it())
    assert seen[0].device == "cpu" and seen[0].embedder == "minilm"


def test_the_service_passes_the_device_to_the_embedder_factory(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(service_module, "create_embedder", lambda *a: calls.append(a))
    svc = service_module.MemoryService.open(ServiceSettings(db_path=str(tmp_path / "m.sqlite"), embedder="minilm",
                                                            device="cpu", embed_batch_size=8))
    try:
        assert calls == [("minilm", 8, "cpu")]
        assert svc.health()["embeddingDevice"] is None  # the fake factory returned no embedder
    finally:
        asyncio.run(svc.close())


def test_minilm_loads_on_the_device_it_was_given(no_cuda: None) -> None:
    pytest.importorskip("sentence_transformers")
    embedder = embedders.create_embedder("minilm", 8, "auto")
    assert isinstance(embedder, embedders.MiniLMEmbedder)
    assert embedder.device == "cpu" and str(embedder.model.device) == "cpu"
    assert embedder.model_id == "all-MiniLM-L6-v2"  # the same stored vectors whatever the device
    with pytest.raises(EmbedderError, match="no CUDA device"):
        embedders.create_embedder("minilm", 8, "cuda")
