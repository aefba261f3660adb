"""The suites' own `[dataset]` keys moved out of DatasetConfig into their options models without changing a run
id or a manifest's `config` bytes: the ids and dump hashes below were computed before the move (commit 9e19e8d)."""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path

import pytest

from benchmarker import registry
from benchmarker.config import canonical_hash, load_config
from benchmarker.config_schema import LEGACY_DATASET_KEYS, RunConfig, check_rules
from benchmarker.errors import ConfigError
from benchmarker.suites.beam import BeamOptions
from benchmarker.suites.levels.options import LevelsOptions
from benchmarker.suites.long_horizon.options import LongHorizonOptions
from benchmarker.suites.longmemeval.options import LongMemEvalOptions
from benchmarker.suites.sample.options import SampleOptions

ROOT = Path(__file__).parents[2]
SNIPPETS = {
    "lh": '[dataset]\nkind = "long_horizon"\nturns = 400\nquestions = 12\nholdout = true\nseeds = [1, 2]\n',
    "lh_default": '[dataset]\nkind = "long_horizon"\n',
    "levels": '[dataset]\nkind = "levels"\nlevels = ["L1", "L13"]\n',
    "sample": '[dataset]\nkind = "sample"\nquestions_per_type = 3\nsessions_per_question = 5\nseed = 7\n',
    "sample_foreign": '[dataset]\nkind = "sample"\nlevels = ["L2"]\nturns = 500\n',
    "lme": '[dataset]\nkind = "longmemeval"\nvariant = "oracle"\nfile = "x.json"\n',
    "shorthand": 'dataset = "m"\n',
    "beam": '[dataset]\nkind = "beam"\nfile = "b"\nsize = "1M"\nchats = [1, "x"]\nquestions_per_type = 4\n',
    "locomo": '[dataset]\nkind = "locomo"\nfile = "l.json"\nconversations = ["conv-26"]\n',
}
# (config, run id hash, sha256 of the config's JSON dump as a manifest holds it), before the move
BEFORE = [
    ("configs/agent_http.toml", "21ec55d0", "9ac3a5b3a6af3663"),
    ("configs/anthropic.toml", "770540bd", "ec124e167906b4be"),
    ("configs/beam.toml", "af29de2e", "572a5cea9f1f68dc"),
    ("configs/bedrock.toml", "75228485", "7ad2f07de18939bb"),
    ("configs/calibrate.toml", "66d82978", "6e693beeab5bc69e"),
    ("configs/kuzu_memory.toml", "cc50a785", "d5baa008653c7cc5"),
    ("configs/lean.toml", "e81afd6b", "1803f195f2e379ca"),
    ("configs/levels.toml", "9e050c39", "c6413c636fe9c9a6"),
    ("configs/locomo.toml", "716be3c2", "30d61e08efff31c9"),
    ("configs/longmemeval_offline.toml", "615f81ee", "8d3eaf110701ef4c"),
    ("configs/longmemeval_offline_replay_bm25.toml", "c2ab6095", "717e1d36c1f985d8"),
    ("configs/mcp_server_memory.toml", "c2faa6ab", "f1995b281d13c8d2"),
    ("configs/mycelian_stack.toml", "8224b860", "72f3b38b0472ca53"),
    ("configs/online.toml", "a1c5afc2", "47fc40c784943bce"),
    ("configs/openai.toml", "94079355", "0df05cf6eb51e826"),
    ("configs/openai_replay_bm25.toml", "669dbb0e", "42e5ddb2844840d3"),
    ("configs/quickstart.toml", "6b7fbd73", "38b5b2eb8462fdd9"),
    ("configs/recipes/locomo_hybrid.toml", "33bf351c", "775c361fd9957ca0"),
    ("configs/recipes/locomo_keyword.toml", "34b0b7d1", "93a6fe88a26fa7cf"),
    ("configs/recipes/locomo_sweep.toml", "46d29b46", "3153e5bb2f195aef"),
    ("configs/replay_bm25.toml", "fd32d64d", "acf1889dc7e8b6be"),
    ("configs/retrieval.toml", "316cc47d", "fd795c0adcb27917"),
    ("configs/sweep.toml", "db9dc54a", "b6dee54fddfc5493"),
    ("configs/sweep_retrieval.toml", "4c1141c7", "91e20d7206b02080"),
    ("lh", "2c94840e", "a6f3801a145b3d02"),
    ("lh_default", "52eeb21d", "904f6d592601b9ff"),
    ("levels", "cd2a46d5", "4b250e3e30f3ce54"),
    ("sample", "bc0f70e9", "20b04ad415125289"),
    ("sample_foreign", "8e43371d", "9b551afb539b1349"),
    ("lme", "1428ef2b", "a70a5f691b5d625a"),
    ("shorthand", "3f24824f", "84d6bd8516558800"),
    ("beam", "ebad4fd5", "2bbb2e7dab9ea696"),
    ("locomo", "74614af9", "59e96d6f5877952a"),
]


def _validated(name: str) -> RunConfig:
    """The config as load_config validates it, before paths are resolved (the run id is hashed there; data
    files the shipped configs name need not exist here)."""
    text = SNIPPETS[name] if name in SNIPPETS else (ROOT / name).read_text(encoding="utf-8")
    cfg, _, _ = check_rules(RunConfig.model_validate(tomllib.loads(text)))
    return cfg


def _dump_sha(cfg: RunConfig) -> str:
    return hashlib.sha256(json.dumps(cfg.model_dump(mode="json"), indent=2).encode()).hexdigest()[:16]


def test_every_shipped_config_is_listed() -> None:
    shipped = {str(p.relative_to(ROOT)) for p in (ROOT / "configs").rglob("*.toml") if "kuberay" not in p.parts}
    assert shipped <= {name for name, _, _ in BEFORE}, "record the new config's run id before the move"


@pytest.mark.parametrize(("name", "run_hash", "dump_sha"), BEFORE, ids=[b[0] for b in BEFORE])
def test_run_id_and_manifest_config_unchanged(name: str, run_hash: str, dump_sha: str) -> None:
    cfg = _validated(name)
    assert canonical_hash(cfg)[:8] == run_hash
    assert _dump_sha(cfg) == dump_sha


@pytest.mark.parametrize("name", ["lh", "beam", "sample_foreign", "shorthand"])
def test_a_manifests_config_reads_back_to_the_same_options_and_hash(name: str) -> None:
    """A manifest's config holds every legacy key at top level: read back, each suite takes only its own."""
    cfg = _validated(name)
    again = RunConfig.model_validate(cfg.model_dump(mode="json"))
    assert canonical_hash(again) == canonical_hash(cfg) and _dump_sha(again) == _dump_sha(cfg)
    kind = registry.suite(cfg.dataset.kind)
    assert kind.data.options_of(again.dataset) == kind.data.options_of(cfg.dataset)


def test_each_suite_reads_its_keys_typed(tmp_path: Path) -> None:
    assert LongHorizonOptions.of(_validated("lh").dataset) == LongHorizonOptions(turns=400, questions=12, holdout=True)
    assert LevelsOptions.of(_validated("levels").dataset).levels == ("L1", "L13")
    assert SampleOptions.of(_validated("sample").dataset) == SampleOptions(questions_per_type=3, sessions_per_question=5)
    assert LongMemEvalOptions.of(_validated("shorthand").dataset).variant == "m"
    assert registry.suite("beam").data.options_of(_validated("beam").dataset) == BeamOptions(size="1M", chats=(1, "x"))


def test_the_legacy_defaults_are_the_owners_defaults() -> None:
    """The dump writes a moved key's default where the config lacks it: it must be what its suite reads."""
    owners = {key: model for model in (LongMemEvalOptions, SampleOptions, LongHorizonOptions, LevelsOptions)
              for key in model.model_fields}
    assert set(owners) == set(LEGACY_DATASET_KEYS)
    assert {key: owners[key]().model_dump()[key] for key in owners} == LEGACY_DATASET_KEYS


def _load(tmp_path: Path, dataset: str) -> RunConfig:
    path = tmp_path / "run.toml"
    path.write_text(f'[run]\noutput_dir = "{tmp_path}/runs"\n[dataset]\n{dataset}\n', encoding="utf-8")
    return load_config(path)


def test_a_moved_key_given_to_another_kind_is_still_taken_and_checked(tmp_path: Path) -> None:
    """As before the move: any kind takes a moved key (its run id hashes it), and a bad value is refused naming
    `[dataset].<key>` with the owner's range."""
    cfg = _load(tmp_path, 'kind = "sample"\nlevels = ["L2"]\nturns = 500')
    assert cfg.model_dump(mode="json")["dataset"]["turns"] == 500
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, 'kind = "sample"\nturns = 50')
    assert "[dataset].turns" in str(info.value) and "100..5000" in str(info.value)
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, 'kind = "locomo"\nfile = "x"\nlevels = ["L17"]')
    assert "[dataset].levels[0]" in str(info.value) and '"L16"' in str(info.value)


def test_a_misspelt_moved_key_is_still_suggested(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, 'kind = "fact_extraction"\nturn = 500')
    assert "[dataset].turn" in str(info.value) and "did you mean `turns`" in str(info.value)
    misplaced = tmp_path / "misplaced.toml"
    misplaced.write_text("[run]\nturns = 500\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(misplaced)
    assert "belongs in [dataset]" in str(info.value)


@pytest.mark.parametrize("kind", ["sample", "long_horizon", "levels", "longmemeval"])
def test_a_key_of_another_table_under_dataset_keeps_its_words(tmp_path: Path, kind: str) -> None:
    """The suites whose only keys are moved ones say what they said before: where the key belongs."""
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, f'kind = "{kind}"\nfile = "x.json"\ntop_k = 5' if kind == "longmemeval" else f'kind = "{kind}"\ntop_k = 5')
    assert "[dataset].top_k" in str(info.value) and "unknown key; `top_k` belongs in [params]" in str(info.value)
