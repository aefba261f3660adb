"""`[agent] type = "http" | "subprocess"`: keys, bounds, cross-key rules, secrets, and unchanged run ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarker.config import canonical_hash, load_config
from benchmarker.errors import ConfigError
from benchmarker.scoring.judges import choose_judge

ROOT = Path(__file__).resolve().parents[2]
HTTP = '[agent]\ntype = "http"\n[agent.http]\nbase_url = "http://127.0.0.1:8080/agent"\n'
SUBPROCESS = '[agent]\ntype = "subprocess"\n[agent.subprocess]\ncommand = "python3"\nargs = ["my_agent.py"]\n'


def load(tmp_path: Path, text: str):
    path = tmp_path / "agent.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def problems(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, text)
    message = str(info.value)
    assert str(tmp_path / "agent.toml") in message
    return message


def test_existing_configs_keep_their_run_ids(tmp_path: Path) -> None:
    # Published before [agent].type existed: the new keys at their defaults must not enter the hash.
    assert load_config(ROOT / "configs" / "quickstart.toml").run_id == "quickstart-6b7fbd73"
    plain = load(tmp_path, '[agent]\ningest_unit = "session"\n')
    explicit = load(tmp_path, '[agent]\ntype = "memory_agent"\ningest_unit = "session"\n')
    assert canonical_hash(plain) == canonical_hash(explicit)


def test_http_keys_map_and_only_result_keys_change_the_run_id(tmp_path: Path) -> None:
    cfg = load(tmp_path, HTTP + 'name = "mine"\ntimeout_s = 5.0\nmax_attempts = 2\n'
                               '[agent.http.header_env]\nAuthorization = "MY_AGENT_TOKEN"\n'
                               '[agent.http.headers]\nX-Agent-Mode = "eval"\n')
    http = cfg.agent.http
    assert (cfg.agent.type, http.name, http.timeout_s, http.max_attempts) == ("http", "mine", 5.0, 2)
    assert http.header_env == {"Authorization": "MY_AGENT_TOKEN"} and http.headers == {"X-Agent-Mode": "eval"}
    base = canonical_hash(load(tmp_path, HTTP))
    assert canonical_hash(load(tmp_path, HTTP + "timeout_s = 5.0\nmax_attempts = 9\n")) == base
    assert canonical_hash(load(tmp_path, HTTP.replace("8080", "9090"))) != base
    assert canonical_hash(load(tmp_path, HTTP.replace("http", "subprocess", 1)
                               .replace('[agent.http]\nbase_url = "http://127.0.0.1:8080/agent"',
                                        '[agent.subprocess]\ncommand = "x"'))) != base


def test_subprocess_keys_and_one_process_per_concurrent_case(tmp_path: Path) -> None:
    cfg = load(tmp_path, SUBPROCESS + 'cwd = "agents"\ntimeout_s = 30.0\n[agent.subprocess.env]\nAGENT_MODE = "fast"\n'
                                      "[run]\nconcurrency = 3\n")
    sub = cfg.agent.subprocess
    assert (sub.command, sub.args, sub.cwd, sub.env) == ("python3", ("my_agent.py",), "agents", {"AGENT_MODE": "fast"})
    assert cfg.run.concurrency == 3
    assert any("retrieval metrics are not available" in note for note in cfg.notes)


def test_an_outside_agent_needs_no_agent_or_reader_model(tmp_path: Path) -> None:
    cfg = load(tmp_path, HTTP + '[provider]\ntype = "openai"\n[models]\neval = "gpt-4o-mini"\n')
    assert choose_judge(cfg.eval, cfg.models, cfg.provider, cfg.run, cfg.params, cfg.config_path)[0] == "llm"


@pytest.mark.parametrize("text, expected", [
    ('[agent]\ntype = "http"\n', ["[agent.http].base_url", "required", 'type = "http"']),
    ('[agent]\ntype = "subprocess"\n', ["[agent.subprocess].command", "required"]),
    ('[agent]\ntype = "ftp"\n', ["[agent].type", "memory_agent", "subprocess"]),
    ('[agent.http]\nbase_url = "http://x:1"\n', ["[agent].http", 'type = "memory_agent"']),
    (HTTP + '[agent.subprocess]\ncommand = "x"\n', ["[agent].subprocess", 'type = "http"']),
    (HTTP + "[run]\nconcurrency = 2\n", ["[run].concurrency", "one agent with one memory", "subprocess"]),
    (HTTP + '[run]\nmode = "retrieval"\n', ["[run].mode", "no index to measure"]),
    (SUBPROCESS + '[dataset]\nkind = "fact_extraction"\n', ["[dataset].kind", "fact_extraction",
                                                              '[agent].type = "subprocess"']),
    (HTTP + "[sweep]\ntop_k = [5, 10]\n", ["[sweep].top_k", "remove [sweep]"]),
    (HTTP + "[self_improve]\niterations = 2\n", ["[self_improve].iterations", "iterations = 0"]),
    (HTTP + '[run]\nphases = ["qa", "eval"]\n', ["[run].phases", '"ingest" and "qa" go together']),
    (HTTP + "max_backoff_s = 0.1\n", ["[agent.http].max_backoff_s", "initial_backoff_s"]),
    (HTTP + "timeout_s = 0\n", ["[agent.http].timeout_s", "0.0..3600.0"]),
    (HTTP + "max_attempts = 100\n", ["[agent.http].max_attempts", "1..20"]),
    (HTTP.replace("http://127.0.0.1:8080/agent", "127.0.0.1:8080"), ["[agent.http].base_url", "http(s) URL"]),
    (HTTP + 'name = "two\\nlines"\n', ["[agent.http].name", "short label"]),
    (HTTP + '[agent.http.headers]\n"Bad Header" = "x"\n', ["[agent.http].headers", "not an HTTP header name"]),
    (SUBPROCESS + '[agent.subprocess.env]\n"bad key" = "x"\n', ["[agent.subprocess].env", "not an environment"]),
    (SUBPROCESS + "timeout_s = -1.0\n", ["[agent.subprocess].timeout_s"]),
    (HTTP + "temperature = 0.3\n", ["[agent.http].temperature", "unknown key"]),
])
def test_each_mistake_names_its_key(tmp_path: Path, text: str, expected: list[str]) -> None:
    message = problems(tmp_path, text)
    for part in expected:
        assert part in message, f"{part!r} not in:\n{message}"


@pytest.mark.parametrize("text, key, fix", [
    (HTTP + '[agent.http.headers]\nAuthorization = "Bearer sk-secret-value-1"\n',
     "[agent.http].headers.Authorization", "[agent.http.header_env]"),
    (HTTP + '[agent.http.headers]\nX-Forwarded = "Bearer sk-secret-value-1"\n',
     "[agent.http].headers", "[agent.http.header_env]"),
    (HTTP + '[agent.http.header_env]\nAuthorization = "Bearer sk-secret-value-1"\n',
     "[agent.http].header_env.Authorization", "NAME"),
    (HTTP + "api_key = \"sk-secret-value-1\"\n", "[agent.http].api_key", "[agent.http.header_env]"),
    (SUBPROCESS + '[agent.subprocess.env]\nOPENAI_API_KEY = "sk-secret-value-1"\n',
     "[agent.subprocess].env.OPENAI_API_KEY", "inherits"),
    (SUBPROCESS.replace('["my_agent.py"]', '["my_agent.py", "--api-key=sk-secret-value-1"]'),
     "[agent.subprocess].args", "environment variable"),
])
def test_secrets_are_refused_without_echoing_them(tmp_path: Path, text: str, key: str, fix: str) -> None:
    message = problems(tmp_path, text)
    assert key in message and fix in message, message
    assert "sk-secret-value-1" not in message


def test_header_env_names_may_look_like_credentials(tmp_path: Path) -> None:
    cfg = load(tmp_path, HTTP + '[agent.http.header_env]\nAuthorization = "AGENT_TOKEN"\nX-Api-Key = "AGENT_KEY"\n')
    assert cfg.agent.http.header_env == {"Authorization": "AGENT_TOKEN", "X-Api-Key": "AGENT_KEY"}
