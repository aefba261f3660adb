"""configs/longmemeval_offline.toml is the keyless twin of configs/openai.toml (docs/workflow.md), and
longmemeval_offline_replay_bm25.toml the twin of openai_replay_bm25.toml: same data and selection, offline
models, the deterministic judge, and no key needed. (tests/test_readme_commands.py loads every shipped config
and runs these two on a generated LongMemEval clone.)
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmarker.config import load_config
from benchmarker.config_schema import RunConfig
from benchmarker.suites.longmemeval.options import LongMemEvalOptions
from benchmarker.suites.sample.data import write_sample

CONFIGS = Path(__file__).parents[2] / "configs"
TWINS = {"longmemeval_offline.toml": "openai.toml",
         "longmemeval_offline_replay_bm25.toml": "openai_replay_bm25.toml"}
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "LANGSMITH_API_KEY")


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """configs/ of a checkout with a (generated) LongMemEval clone next to it, and no key in sight."""
    for var in KEYS:
        monkeypatch.delenv(var, raising=False)
    shutil.copytree(CONFIGS, tmp_path / "repo" / "configs")
    write_sample(tmp_path / "LongMemEval" / "data" / "longmemeval_s_cleaned.json", questions_per_type=1)
    return tmp_path / "repo" / "configs"


def _selection(cfg: RunConfig) -> tuple[object, ...]:
    r = cfg.run
    return (cfg.dataset.kind, LongMemEvalOptions.of(cfg.dataset).variant, Path(cfg.dataset_path).name, r.sample, r.sample_seed,
            r.limit, tuple(r.question_ids), tuple(r.question_types), cfg.params.top_k, cfg.run.output_dir)


@pytest.mark.parametrize("name", sorted(TWINS))
def test_the_offline_twin_loads_without_a_key_on_the_keyed_configs_data(checkout: Path, name: str) -> None:
    offline = load_config(checkout / name)
    assert offline.provider.type == "offline"
    assert offline.models.agent.startswith("offline-") and offline.models.qa.startswith("offline-")
    assert offline.models.eval == "" and offline.eval.judge == "deterministic"
    assert Path(offline.dataset_path).resolve().is_relative_to((checkout.parents[1] / "LongMemEval").resolve())
    keyed = load_config(checkout / TWINS[name])   # loads too: a key is read when a model is built, not here
    assert _selection(offline) == _selection(keyed)
    assert offline.memory == keyed.memory


def test_the_replay_twin_selects_what_its_source_ran(checkout: Path) -> None:
    source = load_config(checkout / "longmemeval_offline.toml")
    target = load_config(checkout / "longmemeval_offline_replay_bm25.toml")
    assert _selection(source) == _selection(target)
    assert (target.memory.alpha, target.memory.embedder) == (0.0, "none")
