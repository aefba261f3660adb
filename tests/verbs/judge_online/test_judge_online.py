"""`judge-online` over a harness run's own logs (no LangSmith): every ingestion turn judged once,
resumable, counted in code; the LLM path through the real langchain-openai client against a local
OpenAI-compatible server; the deterministic enumeration on known inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.cli import main
from benchmarker.config import load_config
from benchmarker.errors import ConfigError
from benchmarker.verbs.judge_online import parse_when, summarize_online
from benchmarker.suites.fact_extraction.fact_enumeration import enumerate_facts
from tests.e2e.cli import read_lines
from tests.fakes.openai_server import ScriptedOpenAIServer
from tests.verbs.judge_online.judge_brain import openai_judge_script
from tests.verbs.judge_online.support import SMALL_RUN


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("source")
    (folder / "small.toml").write_text(SMALL_RUN, encoding="utf-8")
    assert main(["run", str(folder / "small.toml")]) == 0
    (run_dir,) = (folder / "runs").glob("small-*")
    return run_dir


def write_online(folder: Path, run_dir: Path, extra: str = "", provider: str = '[provider]\ntype = "offline"\n') -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "online.toml"
    path.write_text(f'[online]\nsource = "run_dir"\nrun_dir = "{run_dir}"\n{extra}\n{provider}'
                    '[run]\nconcurrency = 3\nprogress = false\noutput_dir = "out"\n', encoding="utf-8")
    return path


def judged_dir(config: Path) -> Path:
    (found,) = (config.parent / "out").glob("online-*")
    return found


def ingestion_turns(run_dir: Path) -> int:
    """Messages of the ingested cases (ingest_unit "message": one agent turn per message)."""
    data = json.loads((run_dir / "data" / "sample_longmemeval.json").read_text())
    cases = {m["case_id"] for m in read_lines(run_dir / "memories.jsonl") if m["status"] == "ingested"}
    return sum(len(s) for q in data if q["question_id"] in cases for s in q["haystack_sessions"])


def test_every_ingestion_turn_is_judged_once_and_a_rerun_judges_nothing(finished_run, tmp_path):
    config = write_online(tmp_path, finished_run)
    assert main(["judge-online", str(config)]) == 0
    out = judged_dir(config)
    lines = read_lines(out / "online.jsonl")
    assert len(lines) == ingestion_turns(finished_run) and len({line["id"] for line in lines}) == len(lines)
    assert {line["method"] for line in lines} == {"deterministic"} and all(line["status"] == "judged" for line in lines)
    # the offline agent stores every message verbatim: every user fact is found (recall 1), and what it
    # wrote for the assistant's turns is not a fact the user stated (hallucinated: precision < 1)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["micro"]["recall"] == 1.0 and summary["micro"]["precision"] < 1.0
    assert summary == summarize_online(lines) | {"schema_version": 1, "cost": summary["cost"]}
    assert (out / "plots" / "online_prf.png").exists() and "## Over time" in (out / "report.md").read_text()
    assert "data:image/png;base64" in (out / "report.html").read_text()
    before = (out / "online.jsonl").read_bytes()
    assert main(["judge-online", str(config)]) == 0
    assert (out / "online.jsonl").read_bytes() == before  # resumed: nothing judged twice


def test_limit_then_the_rest_resumes_where_it_stopped(finished_run, tmp_path):
    config = write_online(tmp_path, finished_run, extra="limit = 5")
    assert main(["judge-online", str(config)]) == 0
    assert len(read_lines(judged_dir(config) / "online.jsonl")) == 5
    config.write_text(config.read_text().replace("limit = 5", "limit = 0"))
    assert main(["judge-online", str(config)]) == 0  # the config changed: a new run id, judged from scratch
    assert len(read_lines(judged_dir_latest(config) / "online.jsonl")) == ingestion_turns(finished_run)


def judged_dir_latest(config: Path) -> Path:
    return max((config.parent / "out").glob("online-*"), key=lambda p: p.stat().st_mtime)


def test_the_llm_judge_path_through_a_local_openai_server(finished_run, tmp_path, monkeypatch):
    monkeypatch.setenv("TEST_OPENAI_KEY", "sk-online-test-key")
    with ScriptedOpenAIServer(openai_judge_script) as server:
        provider = (f'[provider]\ntype = "openai"\n[provider.openai]\nbase_url = "{server.base_url}"\n'
                    'api_key_env = "TEST_OPENAI_KEY"\n[models]\nagent = "offline-memory-agent"\nqa = "offline-reader"\neval = "gpt-judge"\n')
        config = write_online(tmp_path, finished_run, extra="limit = 12", provider=provider)
        assert main(["judge-online", str(config)]) == 0
        requests = len(server.requests)
    out = judged_dir(config)
    lines = read_lines(out / "online.jsonl")
    assert len(lines) == 12 == requests and {line["method"] for line in lines} == {"llm"}
    offline = write_online(tmp_path / "offline", finished_run, extra="limit = 12")
    assert main(["judge-online", str(offline)]) == 0
    same = {line["id"]: (line["tp"], line["fp"], line["fn"]) for line in read_lines(judged_dir(offline) / "online.jsonl")}
    assert {line["id"]: (line["tp"], line["fp"], line["fn"]) for line in lines} == same  # counted in code, same lists
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["tokens"]["roles"]["eval"]["calls"] == 12 and manifest["models"]["judge"] == "llm"


def test_an_unusable_judge_reply_is_unjudged_not_zero(finished_run, tmp_path, monkeypatch):
    monkeypatch.setenv("TEST_OPENAI_KEY", "sk-online-test-key")
    with ScriptedOpenAIServer(lambda request: {"text": "no JSON here"}) as server:
        provider = (f'[provider]\ntype = "openai"\n[provider.openai]\nbase_url = "{server.base_url}"\n'
                    'api_key_env = "TEST_OPENAI_KEY"\n[models]\nagent = "offline-memory-agent"\nqa = "offline-reader"\neval = "gpt-judge"\n[eval]\njudge_retries = 1\n')
        config = write_online(tmp_path, finished_run, extra="limit = 2", provider=provider)
        assert main(["judge-online", str(config)]) == 0
    summary = json.loads((judged_dir(config) / "summary.json").read_text())
    assert (summary["judged"], summary["unjudged"], summary["micro"]["f1"]) == (0, 2, None)


def test_enumeration_on_known_facts():
    lists = enumerate_facts(
        [{"role": "user", "content": "My budget is 4500 dollars. My sister joins the trip."},
         {"role": "assistant", "content": "Noted, a beach hotel then."}],
        existing_memory=["The user lives in Paris"],
        extracted=["Budget: 4500 dollars", "The user lives in Paris", "The user wants a beach hotel"])
    assert lists["conversation_facts"] == ["My budget is 4500 dollars.", "My sister joins the trip."]
    assert lists["extracted_facts"] == ["Budget: 4500 dollars", "The user wants a beach hotel"]  # Paris: not new
    assert lists["missed_facts"] == ["My sister joins the trip."]
    assert lists["hallucinated_facts"] == ["The user wants a beach hotel"]


@pytest.mark.parametrize("text,key", [('since = "yesterday"', "[online].since"),
                                      ('source = "kafka"', "[online].source"),
                                      ('source = "run_dir"\nrun_dir = "nowhere"', "[online].run_dir")])
def test_bad_online_keys_are_named(tmp_path, text, key):
    path = tmp_path / "bad.toml"
    path.write_text(f"[online]\n{text}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=key.replace("[", r"\[").replace("]", r"\]")):
        load_config(path)


def test_time_windows_are_iso_times_or_durations_back_from_now():
    from datetime import datetime, timezone

    now = datetime(2026, 11, 23, 12, 0, tzinfo=timezone.utc)
    assert parse_when("24h", "since", "c", now) == datetime(2026, 11, 22, 12, 0, tzinfo=timezone.utc)
    assert parse_when("2026-11-01T00:00:00Z", "since", "c", now) == datetime(2026, 11, 1, tzinfo=timezone.utc)
    assert parse_when("", "until", "c", now) is None


def test_estimate_before_judging_counts_tokens_and_dollars(finished_run, tmp_path, capsys):
    provider = ('[provider]\ntype = "openai"\n[models]\nagent = "offline-memory-agent"\nqa = "offline-reader"\n'
                'eval = "gpt-judge"\n[prices.gpt-judge]\ninput = 1.0\noutput = 4.0\n')
    config = write_online(tmp_path, finished_run, extra="limit = 10", provider=provider)
    assert main(["judge-online", str(config), "--estimate"]) == 0
    out = capsys.readouterr().out
    from benchmarker.verbs.judge_online import OnlineSource, estimate_judge_online

    cfg = load_config(config)
    data = estimate_judge_online(cfg.run_dir, OnlineSource(cfg.online, cfg.tracing, cfg.config_path),
                                 cfg.provider.type, cfg.models.eval, cfg.prices)
    assert data["runs_to_judge"] == 10 and data["output_tokens"] == 2500
    assert data["usd"] == pytest.approx((data["input_tokens"] * 1.0 + 2500 * 4.0) / 1e6)
    assert "10 runs to judge" in out and not (tmp_path / "out").exists()  # nothing judged, nothing written
