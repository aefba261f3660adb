"""Every kind of config mistake: the message names the file, the key path and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarker.config import load_config
from benchmarker.errors import ConfigError

CASES = {
    "unknown top-level key": ('vault_titel = "x"\n', ["vault_titel", "unknown key", "vault_title"]),
    "key in the wrong table": ("top_k = 5\n", ["top_k", "belongs in [params]"]),
    "unknown table": ('[model]\nagent = "x"\n', ["unknown table", "models"]),
    "unknown key in a table": ("[run]\nconcurency = 2\n",
                               ["[run].concurency", "unknown key", "`concurrency`"]),
    "unknown key in a sub-table": ('[provider.openai]\nbse_url = "http://x"\n',
                                   ["[provider.openai].bse_url", "`base_url`"]),
    "wrong type": ('[params]\ntop_k = "10"\n', ["[params].top_k", 'string "10"', "an integer"]),
    "bool is not an int": ("[run]\nconcurrency = true\n", ["[run].concurrency", "an integer"]),
    "out of range": ("[run]\nconcurrency = 65\n", ["[run].concurrency", "65", "1..64"]),
    "top_k range": ("[params]\ntop_k = 101\n", ["[params].top_k", "1..100"]),
    "alpha range": ("[memory]\nalpha = 1.5\n", ["[memory].alpha", "0.0..1.0"]),
    "search_alpha range": ("[memory]\nsearch_alpha = 2.0\n", ["[memory].search_alpha", "-1"]),
    "turns range": ("[dataset]\nkind = \"long_horizon\"\nturns = 50\n",
                    ["[dataset].turns", "100..5000"]),
    "votes range": ("[eval]\nvotes = 10\n", ["[eval].votes", "1..9"]),
    "tool cap range": ("[params]\nmax_tool_calls_per_turn = 0\n",
                       ["[params].max_tool_calls_per_turn", "1..50"]),
    "bad enum": ('[provider]\ntype = "azure"\n', ["[provider].type", '"azure"', '"openai"']),
    "bad phase": ('[run]\nphases = ["ingest", "judge"]\n', ["[run].phases[1]", '"eval"']),
    "empty phases": ("[run]\nphases = []\n", ["[run].phases", "must not be empty"]),
    "bad level": ('[dataset]\nkind = "levels"\nlevels = ["L1", "L17"]\n',
                  ["[dataset].levels[1]", '"L16"']),
    "bad question type": ('[run]\nquestion_types = ["multi-sesion"]\n',
                          ["[run].question_types[0]", "multi-session"]),
    "bad shorthand": ('dataset = "xl"\n', ["dataset", "s, m, oracle"]),
    "bad url": ('[provider.openai]\nbase_url = "localhost:8000"\n',
                ["[provider.openai].base_url", "http"]),
    "bad price": ('[prices]\n"gpt-4o" = { input = -1.0, output = 1.0 }\n',
                  ['[prices.gpt-4o].input', ">= 0"]),
    "vault title with an underscore": ('vault_title = "my_vault"\n',
                                       ["vault_title", '"my_vault"', "letters, digits and hyphens", '"my-vault"']),
    "vault title too long": (f'vault_title = "{"v" * 51}"\n', ["vault_title", "at most 50"]),
    "title template": ('[params]\nmemory_title_template = "{run_id}"\n',
                       ["[params].memory_title_template", "{question_id}"]),
    "missing models for openai": ('[provider]\ntype = "openai"\n',
                                  ["[models].agent", "[models].qa", "gpt-4o-mini"]),
    "missing models for bedrock": ('[provider]\ntype = "bedrock"\n[models]\nagent = "a"\n',
                                   ["[models].qa", 'type = "bedrock"']),
    "bedrock region": ('[provider]\ntype = "bedrock"\n[provider.bedrock]\nregion = ""\n',
                       ["[provider.bedrock].region", "us-west-2"]),
    "real model with offline provider": ('[models]\nagent = "gpt-4o"\n',
                                         ["[models].agent", '"offline"', "[provider].type"]),
    "mcp without url": ('[memory]\nbackend = "mcp"\n', ["[memory].mcp_url", "11546/mcp"]),
    "url without mcp": ('[memory]\nmcp_url = "http://localhost:11546/mcp"\n',
                        ["[memory].mcp_url", 'backend = "mcp"']),
    "embedder none with alpha": ('[memory]\nembedder = "none"\nalpha = 0.5\n',
                                 ["[memory].alpha", "0.0"]),
    "llm judge without model": ('[eval]\njudge = "llm"\n', ["[models].eval", "judge"]),
    "official judge needs repo": ('[eval]\njudge = "official"\n[models]\neval = "offline-x"\n',
                                  ["dataset_repo_path", "official"]),
    "secret api key": ('[provider.openai]\napi_key = "sk-123"\n',
                       ["[provider.openai].api_key", "credential", "api_key_env", "OPENAI_API_KEY"]),
    "secret aws": ('[provider.bedrock]\naws_secret_access_key = "abc"\n',
                   ["[provider.bedrock].aws_secret_access_key", "credential", "AWS"]),
    "secret token": ('[memory]\ntoken = "abc"\n', ["[memory].token", "auth_token_env"]),
    "secret password top level": ('password = "hunter2"\n', ["password", "credential"]),
    "env name holds a value": ('[provider.openai]\napi_key_env = "sk-live 123"\n',
                               ["[provider.openai].api_key_env", "NAME"]),
    "bad run id": ('run_id = "a/b"\n', ["run_id", "letters"]),
    "backoff order": ("[retry]\ninitial_backoff_s = 5.0\nmax_backoff_s = 1.0\n",
                      ["[retry].max_backoff_s"]),
    "missing dataset file": ('dataset_file = "nope.json"\n', ["dataset_file", "nope.json"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_error_names_file_key_and_fix(tmp_path: Path, name: str) -> None:
    text, expected = CASES[name]
    path = tmp_path / "bad_config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert str(path) in message
    for part in expected:
        assert part in message, f"{part!r} not in:\n{message}"


def test_secret_is_not_echoed(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[provider.openai]\napi_key = "sk-very-secret"\n')
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert "sk-very-secret" not in str(info.value)


def test_secret_pasted_into_env_name_is_not_echoed(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[provider.openai]\napi_key_env = "sk-live-123"\n')
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert "sk-live-123" not in str(info.value)
    assert "[provider.openai].api_key_env" in str(info.value)


def test_max_tokens_is_not_mistaken_for_a_secret(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[models]\nmax_tokens = 2048\n[memory]\nauth_token_env = \"TOK\"\n")
    assert load_config(path).models.max_tokens == 2048


def test_retrieval_mode_needs_no_models(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[provider]\ntype = "openai"\n[run]\nmode = "retrieval"\n')
    cfg = load_config(path)
    assert any("not used" in note for note in cfg.notes)


def test_offline_model_ids_may_be_mixed_with_a_real_provider(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[provider]\ntype = "openai"\n[models]\nagent = "offline-memory-agent"\n'
                    'qa = "gpt-4o-mini"\n')
    assert load_config(path).models.agent == "offline-memory-agent"
