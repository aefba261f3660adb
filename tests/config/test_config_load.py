"""load_config: a full config round-trips, every error names the file and the TOML key path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.config import canonical_hash, load_config
from benchmarker.config_schema import RunConfig
from benchmarker.errors import ConfigError
from benchmarker.scoring.judges import choose_judge
from benchmarker.suites.longmemeval.options import LongMemEvalOptions

FULL = """
dataset_repo_path = "lme"
dataset = "s"
vault_title = "bench"
run_id = "full-1"

[provider]
type = "openai"
[provider.openai]
base_url = "http://localhost:8000/v1"
api_key_env = "MY_KEY"
[provider.bedrock]
region = "eu-central-1"
[provider.anthropic]
api_key_env = "ANTHROPIC_API_KEY"

[models]
agent = "gpt-4o-mini"
qa = "gpt-4o-mini"
eval = "gpt-4o"
temperature = 0.2
max_tokens = 512

[params]
top_k = 20
use_llm_judge = true
max_tool_calls_per_turn = 8
memory_title_template = "{question_id}__{run_id}"
context_cadence = 4
qa_max_context_chars = 20000
consistency_timeout_s = 30.0
recursion_limit = 60

[memory]
backend = "embedded"
alpha = 0.4
embedder = "static"
db_path = "mem/memory.sqlite"
index_lag_ms = 50
placeholder_context = false
search_alpha = 0.5

[run]
mode = "agent"
phases = ["qa", "ingest"]
question_ids = ["e47becba"]
question_types = ["multi-session"]
limit = 5
sample = 10
sample_seed = 7
concurrency = 8
output_dir = "out"
progress = false

[eval]
judge = "llm"
votes = 3
judge_retries = 2

[retry]
max_attempts = 3
initial_backoff_s = 0.5
max_backoff_s = 10.0

[prices]
"gpt-4o-mini" = { input = 0.15, output = 0.60 }

[sweep]
alpha = [0.0, 0.5, 1.0]
top_k = [5, 10]

[self_improve]
iterations = 2
holdout_fraction = 0.3
min_gain = 0.01
seed = 3
"""


def write(folder: Path, text: str, name: str = "run.toml") -> Path:
    path = folder / name
    path.write_text(text)
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A fake LongMemEval clone next to the config, with the cleaned S file."""
    (tmp_path / "lme" / "data").mkdir(parents=True)
    (tmp_path / "lme" / "data" / "longmemeval_s_cleaned.json").write_text("[]")
    return tmp_path / "lme"


def error_of(path: Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return str(info.value)


def test_full_config_loads_and_round_trips(tmp_path: Path, repo: Path) -> None:
    cfg = load_config(write(tmp_path, FULL))
    assert cfg.run_id == cfg.effective_run_id == "full-1"
    assert cfg.dataset.kind == "longmemeval" and LongMemEvalOptions.of(cfg.dataset).variant == "s"
    assert cfg.dataset_path == repo / "data" / "longmemeval_s_cleaned.json"
    assert cfg.run.phases == ("ingest", "qa")  # pipeline order, whatever the file says
    assert cfg.run.output_dir == str(tmp_path / "out")
    assert cfg.memory.db_path == str(tmp_path / "mem" / "memory.sqlite")
    assert cfg.provider.openai.api_key_env == "MY_KEY"
    assert cfg.prices["gpt-4o-mini"].output == 0.60
    assert cfg.sweep.top_k == (5, 10)
    assert choose_judge(cfg.eval, cfg.models, cfg.provider, cfg.run, cfg.params, cfg.config_path)[0] == "llm"
    assert cfg.run_dir == tmp_path / "out" / "full-1"
    again = RunConfig.model_validate(cfg.model_dump())
    assert again.model_dump() == cfg.model_dump()
    manifest = json.loads(json.dumps(cfg.to_manifest("llm")))
    assert manifest["dataset_path"] == str(repo / "data" / "longmemeval_s_cleaned.json")
    assert manifest["config_sha256"] == cfg.config_sha256 and len(cfg.config_sha256) == 64
    assert manifest["config_path"] == str(tmp_path / "run.toml")
    assert manifest["config"]["run"]["phases"] == ["ingest", "qa"]


def test_empty_config_is_the_offline_quickstart(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, ""))
    assert cfg.dataset.kind == "sample" and cfg.dataset_path is None
    assert (cfg.provider.type, cfg.models.agent, cfg.models.qa, cfg.models.eval) == (
        "offline", "offline-memory-agent", "offline-reader", "")
    assert choose_judge(cfg.eval, cfg.models, cfg.provider, cfg.run, cfg.params, cfg.config_path)[0] == "deterministic"
    assert cfg.run_id.startswith("run-") and len(cfg.run_id) == len("run-") + 8


def test_default_run_id_is_stable_and_tracks_result_keys(tmp_path: Path) -> None:
    base = "[params]\ntop_k = 10\n[run]\nconcurrency = 1\n"
    first = load_config(write(tmp_path, base)).run_id
    assert load_config(write(tmp_path, base)).run_id == first
    # operational keys resume the same run
    assert load_config(write(tmp_path, base.replace("concurrency = 1", "concurrency = 9")
                             + 'phases = ["qa", "eval"]\n')).run_id == first
    # result-changing keys start a new one
    assert load_config(write(tmp_path, base.replace("top_k = 10", "top_k = 11"))).run_id != first
    # the file stem names the run
    assert load_config(write(tmp_path, base, "my exp.toml")).run_id.startswith("my-exp-")


def test_shorthand_and_table_forms_hash_the_same(tmp_path: Path, repo: Path) -> None:
    short = load_config(write(tmp_path, 'dataset_repo_path = "lme"\ndataset = "s"\n', "a.toml"))
    table = load_config(write(tmp_path, 'dataset_repo_path = "lme"\n[dataset]\n'
                                        'kind = "longmemeval"\nvariant = "s"\n', "a.toml"))
    assert short.run_id == table.run_id
    assert canonical_hash(short) == canonical_hash(table)


def test_repo_path_alone_means_longmemeval_and_relative_paths_use_config_dir(
        tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir("/")
    cfg = load_config(write(tmp_path, 'dataset_repo_path = "lme"\n'))
    assert cfg.dataset.kind == "longmemeval"
    assert cfg.dataset_repo_path == str(repo)
    assert cfg.run.output_dir == str(tmp_path / "runs")


def test_dataset_file_wins_and_implies_longmemeval(tmp_path: Path, repo: Path) -> None:
    (tmp_path / "mine.json").write_text("[]")
    cfg = load_config(write(tmp_path, 'dataset_repo_path = "lme"\ndataset_file = "mine.json"\n'))
    assert cfg.dataset.kind == "longmemeval"
    assert cfg.dataset_path == tmp_path / "mine.json"


@pytest.mark.parametrize("variant,present,expected", [
    ("s", ["data/longmemeval_s_cleaned.json", "data/longmemeval_s.json"],
     "data/longmemeval_s_cleaned.json"),
    ("s", ["data/longmemeval_s.json"], "data/longmemeval_s.json"),
    ("m", ["data/longmemeval_m.json", "longmemeval_m_cleaned.json"], "data/longmemeval_m.json"),
    ("oracle", ["data/longmemeval_oracle.json"], "data/longmemeval_oracle.json"),
])
def test_dataset_file_discovery(tmp_path: Path, variant: str, present: list[str],
                                expected: str) -> None:
    for rel in present:
        (tmp_path / "lme" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "lme" / rel).write_text("[]")
    cfg = load_config(write(tmp_path, f'dataset_repo_path = "lme"\ndataset = "{variant}"\n'))
    assert cfg.dataset_path == tmp_path / "lme" / expected


def test_missing_dataset_names_key_paths_tried_and_fix(tmp_path: Path) -> None:
    (tmp_path / "lme").mkdir()
    message = error_of(write(tmp_path, 'dataset_repo_path = "lme"\ndataset = "m"\n'))
    assert "run.toml" in message and "dataset_repo_path" in message
    assert "longmemeval_m_cleaned.json" in message and "longmemeval_m.json" in message
    assert "dataset_file" in message  # the alternative fix


def test_longmemeval_kind_without_data(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, '[dataset]\nkind = "longmemeval"\n'))
    assert "[dataset].kind" in message and "dataset_repo_path" in message


def test_missing_config_file(tmp_path: Path) -> None:
    message = error_of(tmp_path / "nope.toml")
    assert "not found" in message and "nope.toml" in message


def test_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, '[run]\nconcurrency = 2\nlimit = \n'))
    assert "run.toml" in message and "line 3" in message and "column" in message


def test_all_problems_are_listed_one_per_line(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, "[run]\nconcurrency = 0\nlimit = -1\n[params]\ntop_k = 0\n"))
    lines = message.splitlines()
    assert lines[0].endswith("3 config problems:")
    assert any(line.strip().startswith("[run].concurrency:") for line in lines)
    assert any(line.strip().startswith("[run].limit:") for line in lines)
    assert any(line.strip().startswith("[params].top_k:") for line in lines)
    assert "pydantic" not in message and "errors.pydantic.dev" not in message
