"""`baselines`: the full-context cut, the estimate's cache reads, resume after a kill, and the real langchain-openai
client against the local OpenAI-compatible test server (tokens and cache reads in the ledger)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.answered_run import write_answered_run
from bench.locomo_synth import generate
from benchmarker.cli import main
from benchmarker.datasets.schema import Case, Message, Question, Session
from benchmarker.verbs.baseline_history import build_history
from benchmarker.token_count import count_tokens
from tests.e2e.cli import read_lines
from tests.fakes.openai_server import ScriptedOpenAIServer, reply


def _case(sessions: int, messages: int = 6) -> Case:
    return Case("c1", "longmemeval", tuple(
        Session(f"s{i}", f"2023/05/{i + 1:02d} (Mon) 10:00", tuple(
            Message("user" if j % 2 == 0 else "assistant", f"Session {i} message {j}: the {i}th colour was teal-{i}.")
            for j in range(messages))) for i in range(sessions)),
        (Question("q1", "multi-session", "Which colour?", "teal"),))


def test_full_context_drops_the_oldest_sessions_first_and_records_the_cut():
    case = _case(8)
    whole = build_history(case, 1_000_000)
    assert whole.sessions_dropped == 0 and whole.tokens_before == whole.tokens_after == count_tokens(whole.text)
    assert [f"session {i} of 8" in whole.text for i in range(1, 9)] == [True] * 8
    per_session = whole.tokens_before // 8
    cut = build_history(case, per_session * 3)
    kept = [i for i in range(1, 9) if f"session {i} of 8 (" in cut.text]
    assert kept == list(range(9 - len(kept), 9)) and 1 <= len(kept) < 8  # the newest sessions, in order
    assert cut.sessions_dropped == 8 - len(kept) and f"({cut.sessions_dropped} older session(s) of 8" in cut.text
    assert cut.tokens_before == whole.tokens_before and cut.tokens_after == count_tokens(cut.text) <= per_session * 3
    assert cut.cut() == {"sessions": 8, "sessions_dropped": 8 - len(kept), "messages_dropped": 0,
                         "tokens_before": whole.tokens_before, "tokens_after": cut.tokens_after}


def test_a_single_session_over_the_budget_loses_its_oldest_messages():
    case = _case(1, messages=200)
    cut = build_history(case, 500)
    assert cut.sessions_dropped == 0 and cut.messages_dropped > 0 and cut.tokens_after <= 500
    assert "message 199:" in cut.text and "message 0:" not in cut.text  # the newest message is kept


def _shared_conversation_run(tmp_path: Path, provider: str, extra: str = "") -> Path:
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps(generate(2, 100, 4, 3)), encoding="utf-8")
    config = tmp_path / "paid.toml"
    config.write_text(f'[dataset]\nkind = "locomo"\nfile = "{data}"\n[provider]\ntype = "{provider}"\n{extra}'
                      '[models]\nagent = "gpt-4o-mini"\nqa = "gpt-4o-mini"\neval = "gpt-4o-mini"\n'
                      '[prices."gpt-4o-mini"]\ninput = 0.15\noutput = 0.6\ncached_input = 0.075\n', encoding="utf-8")
    run_dir = tmp_path / "runs" / "answered"
    assert write_answered_run(config, run_dir) == 8
    return run_dir


def _prefix_tokens(run_dir: Path) -> dict[str, int]:
    """Each case's prompt prefix (instructions + history) in tokens, built independently of the estimate."""
    from benchmarker.agent.prompts import load_prompt
    from benchmarker.verbs.baseline_history import history_cases
    from benchmarker.verbs.rescore import CaseRebuild
    from benchmarker.verbs.baselines import run_config

    config = run_config(run_dir, None)
    head = load_prompt("baseline_full_context.txt").split("=== QUESTION DATE ===")[0].rstrip("\n")
    return {cid: count_tokens(head.replace("{context}", build_history(case, 120_000).text))
            for cid, case in history_cases(CaseRebuild.of(config), run_dir, ["conv-1", "conv-2"]).items()}


def test_estimate_prices_the_cache_reads_of_a_shared_conversation(tmp_path, capsys):
    from benchmarker.verbs.baseline_estimate import estimate_baselines
    from benchmarker.verbs.baselines import run_config

    run_dir = _shared_conversation_run(tmp_path, "openai")
    prefixes = _prefix_tokens(run_dir)
    assert min(prefixes.values()) >= 1024  # long enough for OpenAI's cache
    data = estimate_baselines(run_dir, run_config(run_dir, None), ("no_memory", "full_context"))
    full = data["baselines"]["full_context"]["qa"]
    # 4 questions a conversation: the first sends the prefix, the 3 others read it in 128-token blocks
    assert full["calls"] == 8 and full["cache_read_tokens"] == sum(3 * (p // 128 * 128) for p in prefixes.values())
    assert data["baselines"]["no_memory"]["qa"]["cache_read_tokens"] == 0  # a short prompt: nothing cached
    assert data["usd"] is not None and data["usd"] > 0
    assert main(["baselines", str(run_dir), "--estimate", "--only", "full_context"]) == 0
    out = capsys.readouterr().out
    assert f"cache read ~{full['cache_read_tokens']:,}" in out and "baselines full_context: 8 of 8 questions" in out
    assert "no_memory" not in out and "cl100k_base" in out  # --only, and the approximation is named


def test_estimate_writes_the_prefix_once_a_conversation_under_anthropic(tmp_path):
    from benchmarker.verbs.baseline_estimate import estimate_baselines
    from benchmarker.verbs.baselines import run_config

    run_dir = _shared_conversation_run(tmp_path, "anthropic")
    prefixes = _prefix_tokens(run_dir)
    qa = estimate_baselines(run_dir, run_config(run_dir, None), ("full_context",))["baselines"]["full_context"]["qa"]
    assert qa["cache_write_tokens"] == sum(prefixes.values()) and qa["cache_read_tokens"] == 3 * sum(prefixes.values())


def test_only_names_a_bad_baseline(tmp_path, capsys):
    run_dir = _shared_conversation_run(tmp_path, "openai")
    assert main(["baselines", str(run_dir), "--only", "no_memory,oracle"]) == 2
    assert "--only: got 'no_memory,oracle'; allowed: no_memory, full_context" in capsys.readouterr().err


def _served_run(tmp_path: Path, base_url: str) -> Path:
    return _shared_conversation_run(
        tmp_path, "openai", f'[provider.openai]\nbase_url = "{base_url}"\napi_key_env = "TEST_OPENAI_KEY"\n'
                            '[eval]\njudge = "deterministic"\n')


def test_the_openai_client_against_the_test_server_ledgers_tokens_and_cache_reads(tmp_path, monkeypatch):
    monkeypatch.setenv("TEST_OPENAI_KEY", "sk-test")
    with ScriptedOpenAIServer(lambda request: reply("I don't know"), simulate_usage=True) as server:
        run_dir = _served_run(tmp_path, server.base_url)
        assert main(["baselines", str(run_dir), "--only", "full_context"]) == 0
        usages = list(server.usages)
    assert len(usages) == 8  # one reader call a question; the deterministic judge calls nothing
    answers = read_lines(run_dir / "baselines" / "full_context" / "answers.jsonl")
    sent = sum(u["prompt_tokens"] for u in usages)
    cached = sum((u.get("prompt_tokens_details") or {}).get("cached_tokens", 0) for u in usages)
    assert cached > 0
    cost = json.loads((run_dir / "baselines" / "full_context" / "summary.json").read_text())["cost"]
    assert (cost["tokens"]["qa"]["input"], cost["tokens"]["qa"]["cache_read"]) == (sent, cached)
    assert cost["usd"]["qa"] == pytest.approx(((sent - cached) * 0.15 + cached * 0.075 + 8 * 10 * 0.6) / 1e6)
    assert sum(a["tokens"]["qa"]["cache_read"] for a in answers) == cached
    firsts = {}
    for a in answers:  # each conversation's first question paid the prefix in full; the others read it
        firsts.setdefault(a["case_id"], a)
    assert all(a["tokens"]["qa"]["cache_read"] == 0 for a in firsts.values())
    assert all(a["context_tokens"] == a["history_cut"]["tokens_after"] > 1000 for a in answers)
    run_summary = json.loads((run_dir / "summary.json").read_text())
    assert run_summary["baselines"]["conditions"] == ["memory", "full_context"]


def _as_a_new_process(argv: list[str]) -> int:
    """main(argv) as a second CLI process would run it: langchain-openai keeps one async HTTP client per process,
    bound to the first call's event loop, so its cache is cleared as a new process starts empty."""
    from langchain_openai.chat_models._client_utils import _cached_async_httpx_client

    _cached_async_httpx_client.cache_clear()
    return main(argv)


def test_a_second_call_after_a_kill_pays_nothing_twice(tmp_path, monkeypatch):
    monkeypatch.setenv("TEST_OPENAI_KEY", "sk-test")
    with ScriptedOpenAIServer(lambda request: reply("I don't know")) as server:
        run_dir = _served_run(tmp_path, server.base_url)
        assert main(["baselines", str(run_dir), "--only", "no_memory"]) == 0
        assert len(server.requests) == 8
        out = run_dir / "baselines" / "no_memory"
        answers, results = (out / "answers.jsonl").read_text().splitlines(), (out / "results.jsonl").read_text()
        # killed after 5 answers and 2 judgings, the last line torn mid-write
        (out / "answers.jsonl").write_text("\n".join(answers[:5]) + "\n" + answers[5][:40], encoding="utf-8")
        (out / "results.jsonl").write_text("".join(results.splitlines(keepends=True)[:2]), encoding="utf-8")
        assert _as_a_new_process(["baselines", str(run_dir), "--only", "no_memory"]) == 0
        assert len(server.requests) == 8 + 3  # only the three questions never answered are asked again
        assert _as_a_new_process(["baselines", str(run_dir), "--only", "no_memory"]) == 0
        assert len(server.requests) == 11  # done: nothing is asked
    ids = [a["question_id"] for a in read_lines(out / "answers.jsonl")]
    judged = [r["question_id"] for r in read_lines(out / "results.jsonl")]
    assert len(ids) == len(set(ids)) == 8 and sorted(judged) == sorted(set(judged)) and len(judged) == 8
    journal = [line for line in read_lines(out / "ledger.jsonl") if line["role"] == "qa"]
    assert sum(line["calls"] for line in journal) == 11  # the journal keeps the killed calls: every call paid counts


@pytest.mark.parametrize("bad", ["999", "0"])
def test_the_budget_is_a_validated_key(tmp_path, capsys, bad):
    path = tmp_path / "bad.toml"
    path.write_text(f"[baselines]\nfull_context_tokens = {bad}\n", encoding="utf-8")
    assert main(["estimate", str(path)]) == 2
    assert "[baselines].full_context_tokens" in capsys.readouterr().err


def test_anthropic_gets_a_cache_breakpoint_on_the_history_and_the_ledger_its_reads_and_writes(tmp_path, monkeypatch):
    from tests.fakes.anthropic_server import AnthropicServer

    monkeypatch.setenv("TEST_ANTHROPIC_KEY", "sk-ant-test")
    with AnthropicServer(lambda request: reply("I don't know"), simulate_usage=True) as server:
        run_dir = _shared_conversation_run(
            tmp_path, "anthropic", f'[provider.anthropic]\nbase_url = "{server.base_url}"\n'
                                   'api_key_env = "TEST_ANTHROPIC_KEY"\n[eval]\njudge = "deterministic"\n')
        assert main(["baselines", str(run_dir), "--only", "full_context"]) == 0
        usages, requests = list(server.usages), list(server.requests)
    assert len(usages) == 8
    assert all(r["messages"][0]["content"][0]["cache_control"]["type"] == "ephemeral" for r in requests)
    written = sum(u.get("cache_creation_input_tokens", 0) for u in usages)
    read = sum(u.get("cache_read_input_tokens", 0) for u in usages)
    assert written > 0 and read > 0  # each conversation's first question writes the prefix, the others read it
    cost = json.loads((run_dir / "baselines" / "full_context" / "summary.json").read_text())["cost"]["tokens"]["qa"]
    assert (cost["cache_write"], cost["cache_read"]) == (written, read)
