"""A whole run with `[batch] qa = true, eval = true` against the OpenAI batch fake: the answers and
verdicts land in answers.jsonl / results.jsonl as the synchronous path writes them, the summary's
cost is the hand calculation at the batch price, and a run stopped while its batch is in progress
resumes the same batch (no second submission, no lost answer)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarker.cli import main
from tests.e2e.cli import read_lines
from tests.fakes.batch_servers import OpenAIBatchServer, count_tokens

RUN = ('[dataset]\nkind = "sample"\nquestions_per_type = 1\nsessions_per_question = 3\n'
       '[run]\nlimit = 2\nprogress = false\noutput_dir = "runs"\n')


def answer(messages: list[dict]) -> str:
    prompt = messages[-1]["content"]
    return "yes" if "yes or no" in prompt.lower() else "The answer is in my notes."


def toml(base_url: str, batch: str) -> str:
    return (RUN + f'[provider]\ntype = "openai"\n[provider.openai]\nbase_url = "{base_url}"\n'
            'api_key_env = "TEST_OPENAI_KEY"\n[models]\nagent = "offline-memory-agent"\nqa = "gpt-r"\n'
            'eval = "gpt-judge"\n[eval]\njudge = "llm"\n'
            '[prices.gpt-r]\ninput = 0.15\noutput = 0.60\n[prices.gpt-judge]\ninput = 2.5\noutput = 10.0\n'
            f'[batch]\nqa = true\neval = true\npoll_s = 0.05\ncollect_s = 0.1\n{batch}')


def hand_cost(server: OpenAIBatchServer, model: str, price: tuple[float, float]) -> tuple[int, float]:
    """Every request the fake answered for `model`, at half its price."""
    rows = [row for batch in server._batches.values() for row in batch["rows"] if row["body"]["model"] == model]
    tokens_in = sum(count_tokens("".join(m["content"] for m in row["body"]["messages"])) for row in rows)
    tokens_out = sum(count_tokens(answer(row["body"]["messages"])) for row in rows)
    return len(rows), (tokens_in * price[0] + tokens_out * price[1]) * 0.5 / 1e6


@pytest.mark.slow
def test_a_batched_run_writes_what_the_synchronous_path_writes(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("TEST_OPENAI_KEY", "sk-batch-test")
    with OpenAIBatchServer(answer) as server:
        config = tmp_path / "batched.toml"
        config.write_text(toml(server.base_url, ""), encoding="utf-8")
        assert main(["run", str(config)]) == 0
    (run_dir,) = (tmp_path / "runs").glob("batched-*")
    answers, results = read_lines(run_dir / "answers.jsonl"), read_lines(run_dir / "results.jsonl")
    assert len(answers) == 2 and {a["hypothesis"] for a in answers} == {"The answer is in my notes."}
    assert [r["label"] for r in results] == [True, True]
    assert all(a["tokens"]["qa"]["input"] > 0 for a in answers)
    tokens = json.loads((run_dir / "manifest.json").read_text())["tokens"]
    usd = json.loads((run_dir / "summary.json").read_text())["cost"]["usd"]
    calls, qa_usd = hand_cost(server, "gpt-r", (0.15, 0.60))
    judged, eval_usd = hand_cost(server, "gpt-judge", (2.5, 10.0))
    qa_row = tokens["roles"]["qa"]["models"]["gpt-r (batch)"]
    assert (qa_row["calls"], judged) == (calls, 2) and qa_row["cost_usd"] == pytest.approx(qa_usd, abs=1e-12)
    assert tokens["roles"]["eval"]["models"]["gpt-judge (batch)"]["cost_usd"] == pytest.approx(eval_usd, abs=1e-12)
    assert tokens["total"]["cost_usd"] == pytest.approx(qa_usd + eval_usd, abs=1e-12)
    assert (usd["qa"], usd["eval"]) == (pytest.approx(qa_usd, abs=1e-12), pytest.approx(eval_usd, abs=1e-12))


@pytest.mark.slow
def test_a_run_stopped_while_its_batch_runs_picks_the_same_batch_up(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("TEST_OPENAI_KEY", "sk-batch-test")
    with OpenAIBatchServer(answer, hold=True) as server:
        config = tmp_path / "resumed.toml"
        config.write_text(toml(server.base_url, "max_wait_s = 0.5\n"), encoding="utf-8")
        main(["run", str(config)])   # the reader's batch is submitted, then the run gives up waiting
        (run_dir,) = (tmp_path / "runs").glob("resumed-*")
        assert not (run_dir / "answers.jsonl").exists() or not read_lines(run_dir / "answers.jsonl")
        qa_batches = list(server.created)
        assert qa_batches and (run_dir / "batches.jsonl").exists()
        server.release()
        config.write_text(toml(server.base_url, ""), encoding="utf-8")   # [batch] tunables keep the run id
        assert main(["run", str(config)]) == 0
    assert len(list((tmp_path / "runs").glob("resumed-*"))) == 1
    answers = read_lines(run_dir / "answers.jsonl")
    assert len(answers) == 2 and all(a["hypothesis"] for a in answers)          # no answer lost
    assert server.created[:len(qa_batches)] == qa_batches                      # the same batches, picked up
    later = [cid for batch in server.created[len(qa_batches):] for cid in batch]
    assert len(later) == 2 and not set(later) & {cid for batch in qa_batches for cid in batch}  # judge only
    assert [r["label"] for r in read_lines(run_dir / "results.jsonl")] == [True, True]
