"""Config rules for mapped servers (errors name the key) and retrieval metrics that say "not
available" when a mapped server's hits cannot be traced, instead of a silent zero."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.config import load_config
from benchmarker.errors import ConfigError
from benchmarker.scoring.retrieval_metrics import retrieval_metrics
from benchmarker.memory.tool_mapping import ToolMapping

HERE = Path(__file__).parent
SCHEMA = Path(__file__).parents[3] / "benchmarker" / "memory" / "presets" / "mapping.schema.json"


def config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "run.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("text, key, message", [
    ('[agent]\ntools = ["get_context"]', "[agent].tools", 'must include "add_entry"'),
    ('[memory]\nbackend = "mcp"\npreset = "mcp-server-memory"\n[agent]\ntools = ["search_nodes"]', "[agent].tools",
     'must include "create_entities", the write tool of preset mcp-server-memory'),
    ('[memory]\nbackend = "mcp"\npreset = "nope"', "[memory].preset", "unknown preset 'nope'"),
    ('[memory]\nbackend = "mcp"\nmapping = "missing.toml"', "[memory].mapping", "no mapping file at"),
    ('[memory]\nbackend = "mcp"\npreset = "kuzu-memory"\nmcp_url = "http://127.0.0.1:9/mcp"', "[memory].mcp_url",
     "is for streamable HTTP"),
    ('[memory]\nbackend = "mcp"\npreset = "kuzu-memory"\ntransport = "streamable_http"', "[memory].mcp_url",
     'required with transport = "streamable_http"'),
    ('[dataset]\nkind = "fact_extraction"\n[memory]\nbackend = "mcp"\npreset = "kuzu-memory"', "[dataset].kind",
     "seeds and reads back Mycelian entries"),
    ('[self_improve]\niterations = 1\n[memory]\nbackend = "mcp"\npreset = "kuzu-memory"',
     "[self_improve].iterations", "self-improve tunes Mycelian's"),
    ('[memory]\ntransport = "stdio"\ncommand = "x"', "[memory].command", "the embedded service is started by the harness"),
    ('[memory]\nbackend = "mcp"\ntransport = "stdio"', "[memory].command", "required for a Mycelian server on stdio"),
    ('[memory]\nbackend = "mcp"\npreset = "kuzu-memory"\n[memory.env]\nKUZU_API_KEY = "abc"', "[memory].env.KUZU_API_KEY",
     "a stdio memory server inherits it"),
])
def test_mapped_server_settings_are_checked_by_key(tmp_path, text, key, message):
    with pytest.raises(ConfigError) as err:
        load_config(config(tmp_path, text))
    assert key in str(err.value) and message in str(err.value)


def test_a_users_mapping_path_is_relative_to_the_config(tmp_path):
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / "notes.toml").write_text((HERE / "notes_mapping.toml").read_text())
    cfg = load_config(config(tmp_path, '[memory]\nbackend = "mcp"\nmapping = "maps/notes.toml"\ncommand = "python"'))
    assert cfg.memory.mapping == str(tmp_path / "maps" / "notes.toml")


def test_the_published_mapping_schema_is_the_one_the_loader_uses():
    """benchmarker/memory/presets/mapping.schema.json documents the mapping format for editors and
    other languages; regenerate it with `python -m benchmarker.memory.tool_mapping --schema` when it moves."""
    assert json.loads(SCHEMA.read_text()) == ToolMapping.model_json_schema()


def mapped_result(retrieved: list[dict], traced: int) -> dict:
    return {"question_id": "q", "question_type": "single-session-user", "answer_session_ids": ["s1"],
            "evidence_turns": [["s1", 0]], "top_k": 5, "retrieved": retrieved, "hits_traced": traced,
            "memory_server": "kuzu-memory"}


def test_untraceable_hits_make_retrieval_not_available_not_zero():
    hits = [{"rank": 1, "session_id": None, "turn_index": None}, {"rank": 2, "session_id": None}]
    block = retrieval_metrics([mapped_result(hits, 0)])
    assert block["available"] is False and block["metrics"] == {}
    assert "none of the 2 hits kuzu-memory returned could be traced" in block["notes"][0]


def test_partly_traced_hits_are_scored_and_the_share_is_reported():
    hits = [{"rank": 1, "session_id": None}, {"rank": 2, "session_id": "s1", "turn_index": 0}]
    block = retrieval_metrics([mapped_result(hits, 1)])
    assert block["available"] is True
    assert block["metrics"]["session.recall_any@1"] == 0.0 and block["metrics"]["session.recall_any@3"] == 1.0
    assert block["traced"] == {"hits": 2, "hits_traced": 1, "share": 0.5, "servers": ["kuzu-memory"]}
    assert any("1 of 2 hits (50%) traced" in note for note in block["notes"])


def test_replay_and_estimate_say_what_a_mapped_server_changes(tmp_path, capsys):
    from benchmarker.cli import main

    path = config(tmp_path, '[memory]\nbackend = "mcp"\npreset = "mcp-server-memory"\n[run]\noutput_dir = "runs"')
    assert main(["replay", str(tmp_path), str(path)]) == 2
    assert "replay re-sends recorded Mycelian add_entry" in capsys.readouterr().err
    assert main(["estimate", str(path)]) == 0
    assert "[memory] names another server (mcp-server-memory)" in capsys.readouterr().out


@pytest.mark.parametrize("text, message", [
    ('args = ["--api-key=abc"]', "passes a credential on the command line"),
    ('[memory.env]\n"BAD NAME" = "x"', "is not an environment variable name"),
])
def test_stdio_server_arguments_and_environment_are_checked(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message):
        load_config(config(tmp_path, f'[memory]\nbackend = "mcp"\npreset = "kuzu-memory"\n{text}'))
