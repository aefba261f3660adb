"""`estimate`: call counts, prompt sizes and prompt-cache arithmetic worked out by hand on tiny cases."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchmarker.agent.ledger import Usage
from benchmarker.cli import main
from benchmarker.config import load_config
from benchmarker.config_schema import MEMORY_AGENT_TOOLS
from benchmarker.datasets.schema import Case, Message, Session
from benchmarker.verbs.estimate import comparison, cost, estimate_json, estimate_run, schema_tokens
from benchmarker.run.estimate_model import (
    AgentModel,
    CachePolicy,
    PromptCache,
    Setting,
    cache_policy,
    min_cache_tokens,
    simulate_case,
    tokens,
)
from tests.shared_data import REAL_5Q

DATE = "2023/05/20 (Sat) 10:00"
DATA = [{
    "question_id": "q1", "question_type": "single-session-user", "question": "Where?", "answer": "Osaka",
    "question_date": "2023/05/30 (Tue) 23:40", "haystack_session_ids": ["s1"],
    "haystack_dates": [DATE],
    "haystack_sessions": [[{"role": "user", "content": "x" * 40}, {"role": "assistant", "content": "y" * 40}]],
    "answer_session_ids": ["s1"],
}]
HAIKU = '"claude-3-5-haiku-latest" = { input = 0.80, output = 4.0, cached_input = 0.08, cache_write = 1.0 }\n'


def config(tmp_path: Path, *, data=DATA, provider: str = "openai", agent: str = "m", qa: str = "m", judge: str = "j",
           prices: str = '"m" = { input = 1.0, output = 2.0 }\n', extra: str = "", path: Path | None = None):
    if path is None:
        path = tmp_path / "d.json"
        path.write_text(json.dumps(data), encoding="utf-8")
    cfg = tmp_path / "run.toml"
    cfg.write_text(f'dataset_file = "{path}"\n[provider]\ntype = "{provider}"\n[models]\nagent = "{agent}"\n'
                   f'qa = "{qa}"\neval = "{judge}"\n{extra}[prices]\n{prices}', encoding="utf-8")
    return load_config(cfg), cfg


# --- a synthetic model: every size a round number, so each call can be checked by hand ------------

TOOLS = tuple(MEMORY_AGENT_TOOLS)
MODEL = AgentModel(schema_chars={name: 400 for name in TOOLS},          # 6 tools x 100 tokens = 600
                   system_chars={u: 4000 for u in ("message", "exchange", "session")},  # 1000 tokens
                   cadence=6, turn_template="{content}",                 # a human message is its content
                   initial_context_chars=40)                            # get_context before any put: 10


def case(*sessions: list[tuple[str, str]]) -> Case:
    return Case("c1", "longmemeval", tuple(Session(f"s{i}", DATE, tuple(Message(r, c) for r, c in msgs))
                                           for i, msgs in enumerate(sessions)), ())


TWO_SESSIONS = case([("user", "u" * 40), ("assistant", "a" * 40)], [("user", "v" * 40), ("assistant", "b" * 40)])
# add_entry output: raw "[2023/05/20 (Sat) 10:00] user: " (31) + 40 chars, summary 40 -> ceil(111 / 4) + 60 = 88;
# for the assistant 36 + 40 + 40 = 116 -> 29 + 60 = 89.


def run(c: Case, unit: str = "message", cached: bool = True, provider: str = "anthropic",
        agent: str = "claude-sonnet-4-5", tools=TOOLS) -> tuple[Usage, list[Usage]]:
    trace: list[Usage] = []
    usage = simulate_case(c, Setting(cached, unit, tuple(tools)), MODEL, cache_policy(provider, agent, cached), trace)
    return usage, trace


def test_call_counts_follow_the_offline_agents_plan() -> None:
    four = case(*[[("user", "u" * 40), ("assistant", "a" * 40), ("user", "v" * 40), ("assistant", "b" * 40)]] * 2)
    # message: m1 get_context, list_entries, add_entry + reply = 4; m2, m3 add_entry + reply = 2 each;
    # m4 (last) add_entry, await_consistency, get_context, put_context + reply = 5 -> 13 per session.
    assert run(four, "message")[0].calls == 2 * 13
    # exchange: (m1, m2) [get, list] [add x2] + reply = 3; (m3, m4) [add x2] [await] [get] [put] + reply = 5.
    assert run(four, "exchange")[0].calls == 2 * 8
    # session: [get, list] [add x4] [await] [get] [put] + reply = 6.
    assert run(four, "session")[0].calls == 2 * 6
    # steps for tools outside [agent] tools are dropped, as the offline agent drops them
    assert run(four, "message", tools=("add_entry",))[0].calls == 2 * (4 * 2)


def test_anthropic_cache_reads_and_writes_by_hand() -> None:
    usage, trace = run(TWO_SESSIONS)  # claude-sonnet-4-5: prefixes of >= 1024 tokens are cached
    # tools end at 600 (under 1024: no entry), system at 1600, each human message adds 10.
    got = [(u.input_tokens, u.cache_read_tokens, u.cache_write_tokens, u.output_tokens) for u in trace]
    assert got == [
        # session 1, message 1: nothing stored yet; get_context (result 10), list_entries (empty: 20), add_entry
        (1610, 0, 1610, 30), (1650, 1610, 40, 30), (1700, 1650, 50, 88), (1793, 1700, 93, 5),
        # message 2 (last): its first call reads the transcript up to message 1, later calls the previous call
        (1620, 1610, 10, 89), (1714, 1620, 94, 30), (1749, 1714, 35, 30), (1789, 1749, 40, 135), (1929, 1789, 140, 5),
        # session 2: tools + system read from session 1; get_context now returns the 420-char document (105);
        # list_entries the two entries: 80 + (31+40+40+150) + (36+40+40+150) = 607 chars -> 152
        (1610, 1600, 10, 30), (1745, 1610, 135, 30), (1927, 1745, 182, 88), (2020, 1927, 93, 5),
        (1620, 1610, 10, 89), (1714, 1620, 94, 30), (1749, 1714, 35, 30), (1884, 1749, 135, 165), (2054, 1884, 170, 5),
    ]
    assert usage == Usage(18, 31_877, 914, 28_901, 2_976)
    # caching off: the same prompts, all plain input
    assert run(TWO_SESSIONS, cached=False)[0] == Usage(18, 31_877, 914, 0, 0)


def test_prefixes_under_the_minimum_are_neither_read_nor_written() -> None:
    # Claude 3.5 Haiku caches prefixes of >= 2048 tokens: only the very last call (2054) gets there, and
    # with nothing stored before it, it writes its whole prompt.
    usage, trace = run(TWO_SESSIONS, agent="claude-3-5-haiku-latest")
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (0, 2054)
    assert trace[-1].cache_write_tokens == 2054 and all(u.cache_write_tokens == 0 for u in trace[:-1])
    # Opus 4.5 needs 4096: nothing at all
    usage, _ = run(TWO_SESSIONS, agent="claude-opus-4-5")
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (0, 0)
    assert [min_cache_tokens(m) for m in ("claude-3-5-haiku-latest", "anthropic.claude-3-haiku-20240307-v1:0",
                                          "claude-haiku-4-5", "claude-opus-4-5-20251101", "claude-sonnet-4-5",
                                          "us.amazon.nova-pro-v1:0", "some-other-model")] == \
        [2048, 2048, 4096, 4096, 1024, 1024, 1024]


def test_openai_reads_round_down_to_128_tokens_and_never_write() -> None:
    _, trace = run(TWO_SESSIONS, provider="openai", agent="gpt-4o-mini")
    # call 2 has seen 1610 before -> 12 x 128 = 1536; call 3 has seen 1650 -> 1536; call 4 1700 -> 1664
    assert [u.cache_read_tokens for u in trace[:4]] == [0, 1536, 1536, 1664]
    assert all(u.cache_write_tokens == 0 for u in trace)
    cache = PromptCache(CachePolicy("automatic", 1024))
    assert cache.charge([("a", 500), ("b", 1000)]) == (0, 0)               # under 1024: not cached at all
    assert cache.charge([("a", 500), ("b", 1000), ("c", 1300)]) == (0, 0)  # nothing of it was stored
    assert cache.charge([("a", 500), ("b", 1000), ("c", 1300), ("d", 1400)]) == (1280, 0)


def test_bedrock_caches_only_the_models_it_supports() -> None:
    usage, _ = run(TWO_SESSIONS, provider="bedrock", agent="meta.llama3-1-70b-instruct-v1:0")
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (0, 0)
    assert cache_policy("bedrock", "meta.llama3-1-70b-instruct-v1:0", True).kind == "none"
    supported = cache_policy("bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", True)
    assert (supported.kind, supported.min_tokens, supported.penultimate) == ("breakpoints", 1024, True)
    # the extra cachePoint on the penultimate message stores more prefixes but reads and writes the same
    assert run(TWO_SESSIONS, provider="bedrock", agent="us.anthropic.claude-sonnet-4-5-20250929-v1:0")[0] == \
        run(TWO_SESSIONS)[0]
    assert cache_policy("offline", "offline-memory-agent", True).kind == "none"


def test_estimate_run_on_a_one_question_file(tmp_path: Path) -> None:
    cfg, _ = config(tmp_path)  # openai, message unit, prompt cache on by default
    est = estimate_run(cfg, tmp_path)
    assert (est.questions, est.cases, est.sessions, est.messages) == (1, 1, 1, 2)
    # message 1: get_context, list_entries, add_entry + reply; message 2 (last): add_entry, await_consistency,
    # get_context, put_context + reply
    assert est.agent_calls == 9
    rows = {(r["ingest_unit"], r["prompt_cache"], r["baseline"]): r for r in comparison(est, est.settings.pricing)
            if (r["raw_entry"], r["context_update"]) == ("model", "cadence")}  # the issue-28 rows: test_estimate_floor
    assert rows[("exchange", True, False)]["agent_calls"] == rows[("session", True, False)]["agent_calls"] == 6
    # every prompt is at least tools + system prompt + the first message
    first = est.model.tools_tokens(TOOLS) + est.model.system_tokens("message") + tokens(len(
        f"[session s1 | {DATE} | message 1 of 2] user:\n" + "x" * 40))
    assert est.agent.input_tokens > 9 * first
    # QA: 350 + min(10 entries * 120, 16000 / 4) = 1550 in, 60 out; the judge 350 / 5.
    assert (est.qa.input_tokens, est.qa.output_tokens, est.eval.input_tokens, est.eval.output_tokens) == \
        (1550, 60, 350, 5)
    usd = cost(est, est.settings.pricing)
    a = est.agent
    assert abs(usd["agent"] - (a.input_tokens * 1.0 + a.output_tokens * 2.0) / 1e6) < 1e-12  # no cached price: input
    assert usd["eval"] is None  # no price for "j": said, not guessed


def test_the_tool_subset_saves_its_schema_tokens_on_every_call(tmp_path: Path) -> None:
    cfg, _ = config(tmp_path, extra="[agent]\nprompt_cache = false\n")
    est = estimate_run(cfg, tmp_path)
    saving = schema_tokens(est)
    assert len(est.all_tools) == 13
    assert saving["all_tools"] == tokens(sum(est.model.schema_chars.values()))
    assert saving["configured"] == tokens(sum(est.model.schema_chars[t] for t in TOOLS))
    assert saving["saved_per_call"] == saving["all_tools"] - saving["configured"] > 300
    rows = comparison(est, est.settings.pricing)
    base, mine = rows[0], next(r for r in rows if r["matches_config"] and not r["baseline"])
    assert base["baseline"] and base["label"].startswith("message, cache off, all 13 tools")
    assert (mine["ingest_unit"], mine["prompt_cache"]) == ("message", False)
    assert base["agent_input_tokens"] - mine["agent_input_tokens"] == saving["saved_per_call"] * base["agent_calls"]


def test_estimate_verb_prints_the_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg, path = config(tmp_path)
    assert main(["estimate", str(path)]) == 0
    out = capsys.readouterr().out
    a = estimate_run(cfg, tmp_path).agent
    assert f"| agent | m | {a.input_tokens:,} | {a.cache_read_tokens:,} | 0 | {a.output_tokens:,} | " in out
    assert "no price in [prices]" in out
    assert re.search(r"\| message, cache on, 6 tools \*\*<- this config\*\* \| 9 \|", out)
    assert "| message, cache off, all 13 tools (baseline) | 9 |" in out
    assert "tool subset: 6 of 13 tools" in out and "Assumptions:" in out
    assert not (tmp_path / "runs").exists()  # estimating starts nothing


def test_estimate_json_has_the_documented_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, path = config(tmp_path, provider="anthropic", agent="claude-3-5-haiku-latest", qa="claude-3-5-haiku-latest",
                     judge="claude-3-5-haiku-latest", prices=HAIKU, extra='[agent]\ningest_unit = "exchange"\n')
    assert main(["estimate", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema_version"] == 1
    assert set(data) == {"schema_version", "dataset", "setting", "roles", "total_usd", "comparison", "floor",
                         "tool_schema_tokens", "system_prompt_tokens", "assumptions", "token_count", "price_notes",
                         "unpriced_models"}
    assert data["token_count"] == "approximation: ~4 characters per token"  # says it is not a tokenizer's count
    assert data["dataset"] == {"questions": 1, "cases": 1, "sessions": 1, "messages": 2}
    assert data["setting"]["ingest_unit"] == "exchange" and data["setting"]["prompt_cache"] is True
    assert set(data["roles"]) == {"agent", "qa", "eval"}
    assert {"calls", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cache_hit_share",
            "cost_usd", "model"} <= set(data["roles"]["agent"])
    assert len(data["comparison"]) == 7 + 4  # + the issue-28 rows (raw_entry harness, context per session)
    assert {"label", "prompt_cache", "ingest_unit", "tools", "baseline", "matches_config", "agent_calls",
            "agent_input_tokens", "cache_hit_share", "agent_output_tokens", "agent_usd", "total_usd",
            "times_cheaper"} <= set(data["comparison"][0])
    assert [r["label"] for r in data["comparison"] if r["matches_config"]] == ["exchange, cache on, 6 tools"]
    assert data["comparison"][0]["times_cheaper"] == 1.0
    assert data["unpriced_models"] == [] and isinstance(data["total_usd"], float)
    assert set(data["tool_schema_tokens"]) == {"all_tools", "configured", "saved_per_call", "configured_tools"}


def test_the_estimate_is_the_same_json_in_process(tmp_path: Path) -> None:
    cfg, _ = config(tmp_path)
    assert json.loads(json.dumps(estimate_json(estimate_run(cfg, tmp_path))))["roles"]["eval"]["cost_usd"] is None


@pytest.mark.skipif(not REAL_5Q.exists(), reason=f"{REAL_5Q} not present")
def test_five_real_questions_with_claude_haiku_prices(tmp_path: Path) -> None:
    cfg, _ = config(tmp_path, provider="anthropic", agent="claude-3-5-haiku-latest", qa="claude-3-5-haiku-latest",
                    judge="claude-3-5-haiku-latest", prices=HAIKU, path=REAL_5Q)
    est = estimate_run(cfg, tmp_path)
    assert est.questions == 5
    rows = {(r["ingest_unit"], r["prompt_cache"]): r for r in comparison(est, est.settings.pricing) if not r["baseline"]}
    for unit in ("message", "exchange", "session"):
        assert rows[(unit, True)]["total_usd"] < rows[(unit, False)]["total_usd"], unit
        assert rows[(unit, True)]["cache_hit_share"] > 0.5, unit
    for cached in (False, True):
        assert rows[("session", cached)]["total_usd"] < rows[("message", cached)]["total_usd"]
        assert rows[("session", cached)]["agent_calls"] < rows[("message", cached)]["agent_calls"] / 3
