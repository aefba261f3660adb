"""LoCoMo through the CLI (in-process): one ingestion per conversation, every question answered and
scored, retrieval metrics from the evidence ids, and estimate / report / compare on the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.cli import main
from benchmarker.token_count import count_tokens
from tests.attribution_check import check_attribution
from tests.e2e.cli import read_lines
from tests.floor import offline_floor, pinned

FIXTURE = Path(__file__).parent / "fixtures" / "locomo_mini.json"

pytestmark = pytest.mark.slow


def config(tmp_path: Path, name: str, run: str = "") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(f'[dataset]\nkind = "locomo"\nfile = "{FIXTURE}"\n[run]\noutput_dir = "runs"\nprogress = false\n'
                    f'concurrency = 2\n{run}\n', encoding="utf-8")
    return path


def run_dir(tmp_path: Path, name: str) -> Path:
    (found,) = (tmp_path / "runs").glob(f"{name}-*")
    return found


# The offline floor of the fixture's agent run (offline agent, reader, deterministic grader) and retrieval
# run, derived once on main c5d6748 by running the test with empty dicts and copying what the failure printed.
LOCOMO_METRICS = ("turn.recall_any@10", "turn.recall_all@10", "session.recall_any@5")
LOCOMO_IDS = [f"conv-26-q{i:03d}" for i in range(1, 9)] + ["conv-26-q009_abs", "conv-26-q010_abs"] + \
    [f"conv-30-q{i:03d}" for i in range(1, 5)] + ["conv-30-q005_abs"]
LOCOMO_FLOOR: dict = {
    "agent": {'accuracy': 0.4,
              'labels': {'conv-26-q001': False, 'conv-26-q002': True, 'conv-26-q003': True, 'conv-26-q004': False,
                         'conv-26-q005': False, 'conv-26-q006': False, 'conv-26-q007': True, 'conv-26-q008': False,
                         'conv-26-q009_abs': False, 'conv-26-q010_abs': False, 'conv-30-q001': True,
                         'conv-30-q002': False, 'conv-30-q003': True, 'conv-30-q004': True, 'conv-30-q005_abs': False},
              'locomo': {'bleu1': 0.0553, 'f1': 0.1212},
              'retrieval': {'session.recall_any@5': 1.0, 'turn.recall_all@10': 1.0, 'turn.recall_any@10': 1.0}},
    # retrieval-only: nothing answered, so no labels; the same memories, so the same retrieval figures
    "ret": {'accuracy': None, 'labels': dict.fromkeys(LOCOMO_IDS),
            'retrieval': {'session.recall_any@5': 1.0, 'turn.recall_all@10': 1.0, 'turn.recall_any@10': 1.0}}}


ATTRIBUTION_LOCOMO: dict[str, int] = {"correct": 6, "not_used": 6, "false_answer": 3}  # the offline floor


def test_locomo_agent_and_retrieval_runs(tmp_path, capsys):
    assert main(["run", str(config(tmp_path, "agent"))]) == 0
    assert main(["run", str(config(tmp_path, "ret", 'mode = "retrieval"'))]) == 0
    for name in ("agent", "ret"):
        directory = run_dir(tmp_path, name)
        ingested = [m for m in read_lines(directory / "memories.jsonl") if m["status"] == "ingested"]
        assert sorted(m["case_id"] for m in ingested) == ["conv-26", "conv-30"]  # one ingestion per conversation
        results = read_lines(directory / "results.jsonl")
        assert len(results) == 15 and len({r["question_id"] for r in results}) == 15
        summary = json.loads((directory / "summary.json").read_text())
        retrieval = summary["retrieval"]
        assert retrieval["available"] and retrieval["questions"]["turn"] == 12  # 3 adversarial excluded
        got = offline_floor(directory, LOCOMO_METRICS, locomo=name == "agent")
        assert got == LOCOMO_FLOOR[name], pinned(got)
        manifest = json.loads((directory / "manifest.json").read_text())
        assert manifest["dataset"]["kind"] == "locomo" and manifest["dataset"]["sha256"]
        assert "15 questions over 2 conversation(s); 1 evidence id(s) dropped (0 unparseable, 1 name no turn)" \
            in manifest["dataset"]["description"]
        assert manifest["dataset"]["evidence"]["dropped_ids"] == [
            {"question_id": "conv-26-q007", "id": "D9:99", "reason": "names no turn"}]  # every one, with why
    agent = run_dir(tmp_path, "agent")
    summary = json.loads((agent / "summary.json").read_text())
    assert set(summary["qa"]["by_type"]) == {"multi-hop", "temporal", "open-domain", "single-hop", "adversarial"}
    assert summary["qa"]["abstention"]["n"] == 3
    locomo = summary["locomo"]  # the category map and LoCoMo's own numbers, category 5 apart
    assert locomo["categories"] == {"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop",
                                    "5": "adversarial"}
    assert locomo["overall"]["questions"] == 12 and locomo["overall"]["judge"]["n"] == 12
    assert len(locomo["overall"]["bleu1"]["ci95"]) == 2  # the mean F1 / BLEU-1 are pinned above
    assert all("f1" in r["locomo"] for r in read_lines(agent / "results.jsonl"))
    assert summary["locomo"]["evidence"]["dropped"] == 1
    assert any("conv-26-q007 `D9:99` (names no turn)" in note for note in summary["notes"])
    assert "evidence ids dropped" in capsys.readouterr().out  # the end-of-run table says so
    assert check_attribution(agent) == ATTRIBUTION_LOCOMO, check_attribution(agent)
    assert main(["oracle", str(agent), "--estimate"]) == 0  # priced first: the offline reader costs nothing
    assert "oracle: 15 of 15 questions to answer and judge" in capsys.readouterr().out
    assert main(["oracle", str(agent)]) == 0  # the gold evidence alone, then the run's report shows both
    oracle = read_lines(agent / "oracle" / "results.jsonl")
    assert len(oracle) == 15 and all(r["mode"] == "oracle" and "attribution" not in r for r in oracle)
    assert all(r["context_tokens"] == count_tokens(r["reader_context"]) > 0 for r in oracle if r["evidence"])
    assert "with gold evidence" in capsys.readouterr().out.replace("the gold evidence", "gold evidence")
    assert main(["report", str(agent)]) == 0
    assert "1 evidence id(s) dropped" in (agent / "report.md").read_text()
    report = (agent / "report.md").read_text()
    assert "## Where answers were lost" in report and "### With memory vs with the gold evidence" in report
    assert json.loads((agent / "summary.json").read_text())["oracle"]["questions"] == 15
    assert main(["compare", str(agent), str(run_dir(tmp_path, "ret"))]) == 0
    assert main(["estimate", str(config(tmp_path, "agent"))]) == 0
    assert "agent calls" in capsys.readouterr().out


def test_locomo_config_errors_name_the_key(tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_text('[dataset]\nkind = "locomo"\n[run]\nquestion_types = ["single-session-user"]\n')
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert "[dataset].file" in err and "locomo10.json" in err
    assert '[run].question_types[0]: got "single-session-user"; allowed: multi-hop, temporal' in err


def test_estimate_costs_locomo_judging_with_its_own_prompt_and_json_reply(tmp_path, capsys):
    from benchmarker.agent.prompts import load_prompt
    from benchmarker.verbs.estimate import CHARS_PER_TOKEN, judge_tokens

    judge_in, judge_out = judge_tokens("locomo")
    assert judge_in > len(load_prompt("judge_locomo.txt")) / CHARS_PER_TOKEN and judge_out > judge_tokens("longmemeval")[1]
    path = tmp_path / "paid.toml"
    path.write_text(f'[dataset]\nkind = "locomo"\nfile = "{FIXTURE}"\n[provider]\ntype = "openai"\n[models]\n'
                    'agent = "gpt-4o-mini"\nqa = "gpt-4o-mini"\neval = "gpt-4o-mini"\n', encoding="utf-8")
    assert main(["estimate", str(path), "--json"]) == 0
    judge = json.loads(capsys.readouterr().out)["roles"]["eval"]
    assert (judge["calls"], judge["input_tokens"], judge["output_tokens"]) == (15, 15 * judge_in, 15 * judge_out)
