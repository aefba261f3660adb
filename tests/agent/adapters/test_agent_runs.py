"""Whole runs against the real example agents (`run` in-process): an HTTP server on 127.0.0.1 and a
subprocess, on the sample data and on levels; resume, failures, secrets, and no process left behind."""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from benchmarker.cli import main
from benchmarker.config import load_config
from benchmarker.run.runner import execute_run
from benchmarker.suites.sample.data import write_sample
from tests.agent.adapters.example_http_agent import ExampleHttpAgent
from tests.floor import offline_floor, pinned
from tests.shared_data import SHARED

pytestmark = pytest.mark.slow
HERE = Path(__file__).resolve().parent
SECRET = "sk-agent-test-secret-7731"
SAMPLE = '[dataset]\nkind = "sample"\nquestions_per_type = 1\nsessions_per_question = 3\n'
LEVELS = '[dataset]\nkind = "levels"\nlevels = ["L1", "L13", "L16"]\n'
LOCOMO = HERE.parents[1] / "suites" / "locomo" / "fixtures" / "locomo_mini.json"  # two conversations, 15 questions
BEAM_100K = SHARED / "data" / "beam" / "chats" / "100K"  # three conversations, 20 questions each


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()] if path.exists() else []


def http_config(tmp: Path, url: str, data: str, extra: str = "") -> Path:
    path = tmp / "run.toml"
    path.write_text(f'run_id = "agent"\n{data}\n[agent]\ntype = "http"\n[agent.http]\nbase_url = "{url}"\n'
                    f'name = "example-http"\n{extra}\n[run]\noutput_dir = "runs"\nprogress = false\n', encoding="utf-8")
    return path


def subprocess_config(tmp: Path, data: str, args: list[str] = (), concurrency: int = 2, extra: str = "") -> Path:
    path = tmp / "run.toml"
    argv = json.dumps([str(HERE / "example_subprocess_agent.py"), *args])
    path.write_text(f'run_id = "agent"\n{data}\n[agent]\ntype = "subprocess"\n[agent.subprocess]\n'
                    f'command = "{sys.executable}"\nargs = {argv}\nname = "example-subprocess"\n'
                    f'env = {{ EXAMPLE_AGENT_TRANSCRIPT = "{tmp / "transcript.jsonl"}" }}\n{extra}\n'
                    f'[run]\noutput_dir = "runs"\nprogress = false\nconcurrency = {concurrency}\n', encoding="utf-8")
    return path


def agent_processes(marker: Path) -> list[int]:
    """Live processes whose command line names `marker` (the example agents started by one test)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if (proc.name.isdigit() and str(marker) in (proc / "cmdline").read_bytes().decode(errors="replace")
                    and "Z" not in (proc / "stat").read_text().split()[2]):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def segments(requests: list[dict]) -> list[list[dict]]:
    """The HTTP agent's requests split at each /reset (the run's own check, then one per case)."""
    out: list[list[dict]] = []
    for request in requests:
        if request["path"] == "/reset":
            out.append([])
        elif out:
            out[-1].append(request)
    return out


def check_outputs(run_dir: Path, questions: int, agent_type: str) -> dict:
    results = lines(run_dir / "results.jsonl")
    assert len(results) == questions and len({r["question_id"] for r in results}) == questions
    assert all(r["label"] in (True, False) and r["agent"]["type"] == agent_type for r in results)
    assert all("retrieved" not in r and r["timings"]["qa_s"] >= 0 for r in results)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["retrieval"]["available"] is False and summary["retrieval"]["metrics"] == {}
    assert "not available: the answers come from an outside agent" in summary["retrieval"]["notes"][0]
    assert summary["run"]["agent"]["type"] == agent_type and summary["offline"] is False
    assert "not available" in (run_dir / "report.md").read_text()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "finished" and manifest["agent"]["type"] == agent_type
    assert "tool_calls" in manifest["agent"]["capabilities"]
    assert manifest["memory"]["backend"].startswith("none") and not (run_dir / "memory-service.log").exists()
    return summary


# The example HTTP agent's labels on SAMPLE (keyword lookup + the deterministic grader), derived once on
# main c5d6748 by running the test with HTTP_SAMPLE_FLOOR = {} and copying what the failure printed.
HTTP_SAMPLE_FLOOR: dict = {
    'accuracy': 0.4444,
    'labels': {'21df306f': False, '27cd8130': True, '5304317f_abs': False, '71710434_abs': True, '7c69dee1': True,
               'be0f051b': False, 'f89897b9': True, 'gpt4_655238a6_abs': False, 'gpt4_bc594585': False},
    'retrieval': {}}


def test_http_agent_on_sample_data(tmp_path: Path) -> None:
    with ExampleHttpAgent() as agent:
        assert main(["run", str(http_config(tmp_path, agent.url, SAMPLE))]) == 0
    run_dir = tmp_path / "runs" / "agent"
    dataset = json.loads((run_dir / "data" / "sample_longmemeval.json").read_text())
    check_outputs(run_dir, len(dataset), "http")
    got = offline_floor(run_dir)
    assert got == HTTP_SAMPLE_FLOOR, pinned(got)
    cases = segments(agent.requests)[1:]
    assert len(cases) == len(dataset)  # one reset per case, after the run's own check
    for case, item in zip(cases, dataset, strict=True):  # sessions in date order, every message once, then the question
        learns = [r["body"] for r in case if r["path"] == "/learn"]
        assert len(learns) == sum(len(s) for s in item["haystack_sessions"])
        assert [learn["date"] for learn in learns] == sorted(learn["date"] for learn in learns)
        assert all(learn["content"].startswith(f"[{learn['date']}] session {learn['session_id']} {learn['role']}: ")
                   for learn in learns)
        assert [r["body"]["question"] for r in case if r["path"] == "/answer"] == [item["question"]]
    results = {r["question_id"]: r for r in lines(run_dir / "results.jsonl")}
    first = results[dataset[0]["question_id"]]
    assert first["tool_calls"] == ["keyword_lookup"] or first["hypothesis"] == "I don't know."
    assert {"reasoning_trace", "confidence", "agent_metadata"} <= set(first)
    memories = lines(run_dir / "memories.jsonl")
    assert Counter(m["status"] for m in memories) == {"created": len(dataset), "ingested": len(dataset)}


def test_http_agent_on_levels_and_l13_scores_its_reported_tool_calls(tmp_path: Path) -> None:
    with ExampleHttpAgent() as agent:
        assert main(["run", str(http_config(tmp_path, agent.url, LEVELS))]) == 0
    run_dir = tmp_path / "runs" / "agent"
    levels = {level["level"]: level for level in lines(run_dir / "levels.jsonl")}
    assert set(levels) == {"L1", "L13", "L16"}
    l13 = levels["L13"]["detail"]
    assert len(l13) == 5
    for scenario in l13.values():  # the learn-time add_entry calls the agent reported, per session
        assert scenario["tool_f1"] > 0 and "add_entry" not in scenario["missing_tools"]
        assert "get_context" in scenario["missing_tools"]  # it never reads a context: no credit for that
    decisions = lines(run_dir / "decisions.jsonl")
    adds = [d for d in decisions if d["caller"] == "agent" and d["tool"] == "add_entry"]
    assert len(adds) == sum(1 for r in agent.requests if r["path"] == "/learn")
    assert all(d["session_id"] and d["attempt"] == 1 for d in adds)
    assert any(d["tool"] == "keyword_lookup" and d["session_id"] is None for d in decisions)
    summary = check_outputs(run_dir, len(lines(run_dir / "results.jsonl")), "http")
    assert summary["levels"]["headline"]
    # Re-scoring (phases = ["eval"]) needs no agent: the one above is gone, and nothing is asked again.
    cfg = tmp_path / "run.toml"
    cfg.write_text(cfg.read_text().replace("progress = false\n", 'progress = false\nphases = ["eval"]\n'))
    assert main(["run", str(cfg)]) == 0
    assert len(lines(run_dir / "answers.jsonl")) == 17 and not (run_dir / "errors.jsonl").exists()


class ScriptedAgent(ExampleHttpAgent):
    """The example agent misbehaving on chosen cases (case k is the one after reset k + 1)."""

    def __init__(self, script: dict[int, str]):
        super().__init__()
        self.script = script
        self.resets = 0
        self.learned_in_case = 0

    def handle(self, path: str, body: dict, headers: dict[str, str]) -> tuple[int, bytes]:
        with self.lock:
            self.resets += path == "/reset"
            self.learned_in_case = 0 if path == "/reset" else self.learned_in_case + (path == "/learn")
            fault = self.script.get(self.resets - 1)
        if (fault == "learn-500" and path == "/learn" and self.learned_in_case >= 3) or (
                fault == "answer-500" and path == "/answer"):
            self.requests.append({"path": path, "body": body, "headers": headers})
            return 500, json.dumps({"error": "scripted 500", "saw_headers": headers}).encode()
        if fault == "garbage" and path == "/answer":
            self.requests.append({"path": path, "body": body, "headers": headers})
            return 200, b"<html>not an answer</html>"
        if fault == "slow" and path == "/answer":
            self.requests.append({"path": path, "body": body, "headers": headers})
            self.stopping.wait(2.5)
            return 200, b'{"answer": "too late"}'
        return super().handle(path, body, headers)


def test_http_failures_fail_their_case_clearly_and_a_rerun_redoes_only_those(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("EXAMPLE_AGENT_TOKEN", f"Bearer {SECRET}")
    extra = ("max_attempts = 2\ntimeout_s = 0.5\ninitial_backoff_s = 0.0\nmax_backoff_s = 0.0\n"
             '[agent.http.header_env]\nAuthorization = "EXAMPLE_AGENT_TOKEN"\n')
    script = {2: "learn-500", 3: "answer-500", 5: "garbage", 7: "slow"}
    with ScriptedAgent(script) as agent:
        cfg = http_config(tmp_path, agent.url, SAMPLE, extra)
        assert main(["run", str(cfg)]) == 3  # failed cases are reported, the run goes on, and it is invalid
        run_dir = tmp_path / "runs" / "agent"
        dataset = json.loads((run_dir / "data" / "sample_longmemeval.json").read_text())
        ids = [q["question_id"] for q in dataset]
        errors = {e["case_id"]: e["error"] for e in lines(run_dir / "errors.jsonl")}
        failed = {ids[k - 1] for k in script}
        assert set(errors) == failed
        assert "learn failed" in errors[ids[1]] and "last status 500" in errors[ids[1]]
        assert "answer failed" in errors[ids[2]] and "after 2 attempts" in errors[ids[2]]
        assert f"POST {agent.url}/answer" in errors[ids[2]] and "example-http" in errors[ids[2]]
        assert "not JSON" in errors[ids[4]] and "timed out after 0.5s" in errors[ids[6]]
        assert {r["question_id"] for r in lines(run_dir / "answers.jsonl")} == set(ids) - failed
        first_run = len(agent.requests)

        agent.script = {}
        assert main(["run", str(cfg)]) == 0  # resume: only the failed cases, each learned again from a reset
        again = segments(agent.requests[first_run:])
        assert len(again) == 1 + len(failed)
        asked = [r["body"]["question"] for s in again for r in s if r["path"] == "/answer"]
        assert sorted(asked) == sorted(dataset[k - 1]["question"] for k in script)
    answers = [a["question_id"] for a in lines(run_dir / "answers.jsonl")]
    assert sorted(answers) == sorted(ids)  # every question answered exactly once over both runs
    attempts = Counter((m["case_id"], m["attempt"], m["status"]) for m in lines(run_dir / "memories.jsonl"))
    assert attempts[(ids[1], 1, "ingested")] == 0 and attempts[(ids[1], 2, "ingested")] == 1  # cut off, relearned
    assert all(attempts[(i, 2, "created")] == 0 for i in set(ids) - failed)  # finished cases never relearned
    for name in ("errors.jsonl", "manifest.json", "summary.json", "decisions.jsonl", "results.jsonl"):
        assert SECRET not in (run_dir / name).read_text(), name
    assert json.loads((run_dir / "manifest.json").read_text())["status"] == "finished"


def test_subprocess_agents_one_per_concurrent_case_on_every_suite(tmp_path: Path) -> None:
    lme = tmp_path / "longmemeval_s.json"  # a LongMemEval-format file, read as the real files are
    write_sample(lme, seed=7, questions_per_type=1, sessions_per_question=3)
    suites = {"sample": (SAMPLE, 9), "levels": (LEVELS, 17), "longmemeval": (f'dataset_file = "{lme}"\n', 9),
              "long_horizon": ('[dataset]\nkind = "long_horizon"\nturns = 100\nquestions = 5\n', 5),
              "locomo": (f'[dataset]\nkind = "locomo"\nfile = "{LOCOMO}"\n', 15)}
    if (BEAM_100K / "1" / "chat.json").is_file():   # BEAM's shared sample: one conversation, 20 questions
        suites["beam"] = (f'[dataset]\nkind = "beam"\nfile = "{BEAM_100K}"\nchats = [1]\n', 20)
    for name, (data, expected) in suites.items():
        tmp = tmp_path / name
        tmp.mkdir()
        assert main(["run", str(subprocess_config(tmp, data))]) == 0
        run_dir = tmp / "runs" / "agent"
        results = lines(run_dir / "results.jsonl")
        check_outputs(run_dir, expected, "subprocess")
        transcript = lines(tmp / "transcript.jsonl")
        ops = Counter(t["request"]["op"] for t in transcript)
        assert ops["answer"] == len(results) and ops["reset"] == len({r["case_id"] for r in results}) + 1
        assert len({t["pid"] for t in transcript}) <= 2  # [run].concurrency processes at most
        if name == "levels":
            l13 = next(level for level in lines(run_dir / "levels.jsonl") if level["level"] == "L13")["detail"]
            assert all("add_entry" not in s["missing_tools"] for s in l13.values())
        assert agent_processes(tmp) == []  # every process closed at the end of the run


def test_a_subprocess_agent_that_dies_fails_one_case_and_is_replaced(tmp_path: Path) -> None:
    flag = tmp_path / "died-once"
    cfg = subprocess_config(tmp_path, SAMPLE, ["--mode", "die", "--once", str(flag)], concurrency=1)
    assert main(["run", str(cfg)]) == 3  # finished, but a case is unanswered: invalid (summary.json's validity)
    run_dir = tmp_path / "runs" / "agent"
    errors = lines(run_dir / "errors.jsonl")
    assert len(errors) == 1 and "answer failed" in errors[0]["error"] and "exited with code 3" in errors[0]["error"]
    assert "fatal: simulated crash while answering" in errors[0]["error"]
    dataset = json.loads((run_dir / "data" / "sample_longmemeval.json").read_text())
    assert len(lines(run_dir / "results.jsonl")) == len(dataset) - 1
    assert len({t["pid"] for t in lines(tmp_path / "transcript.jsonl")}) == 2  # a fresh process took over
    assert agent_processes(tmp_path) == []


def test_a_subprocess_agent_that_breaks_the_protocol_fails_its_case_and_a_fresh_one_answers_the_next(
        tmp_path: Path) -> None:
    """The first answer written twice used to shift every later answer of the case onto the wrong question."""
    flag = tmp_path / "doubled-once"
    cfg = subprocess_config(tmp_path, f'[dataset]\nkind = "locomo"\nfile = "{LOCOMO}"\n',
                            ["--mode", "double", "--once", str(flag)], concurrency=1)
    assert main(["run", str(cfg)]) == 3  # finished, but a case is unanswered: invalid (summary.json's validity)
    run_dir = tmp_path / "runs" / "agent"
    errors = lines(run_dir / "errors.jsonl")
    assert len(errors) == 1 and "protocol violation" in errors[0]["error"] and "retired" in errors[0]["error"]
    agent_errors = json.loads((run_dir / "summary.json").read_text())["validity"]["checks"]["agent_errors"]
    assert (agent_errors["count"], agent_errors["ok"]) == (1, False)
    answers = lines(run_dir / "answers.jsonl")
    transcript = lines(tmp_path / "transcript.jsonl")
    pids = list(dict.fromkeys(t["pid"] for t in transcript))
    assert len(pids) == 2  # the violating process was replaced
    broken_case = errors[0]["case_id"]
    later = [a for a in answers if a["case_id"] != broken_case]
    assert later and len({a["case_id"] for a in later}) == 1
    replies = {t["request"]["question"]: t["reply"]["answer"] for t in transcript
               if t["pid"] == pids[1] and t["request"]["op"] == "answer"}
    assert all(a["hypothesis"] == replies[a["question"]] for a in later)  # each answer is its own question's
    assert len(later) == len(replies)
    first = {}
    for t in transcript:  # what the first process replied first to each question it was asked
        if t["pid"] == pids[0] and t["request"]["op"] == "answer":
            first.setdefault(t["request"]["question"], t["reply"]["answer"])
    kept = [a for a in answers if a["case_id"] == broken_case]  # answered before the violation showed
    assert len(kept) <= 1 and all(a["hypothesis"] == first[a["question"]] for a in kept)
    assert agent_processes(tmp_path) == []


async def test_cancelling_a_run_closes_the_agent_processes(tmp_path: Path) -> None:
    flag = tmp_path / "hung-once"
    config = load_config(subprocess_config(tmp_path, SAMPLE, ["--mode", "hang", "--once", str(flag)],
                                           extra="close_grace_s = 0.5\n"))
    task = asyncio.create_task(execute_run(config))
    for _ in range(400):  # until an agent hangs on its first question
        await asyncio.sleep(0.025)
        if flag.exists():
            break
    assert flag.exists() and agent_processes(tmp_path)
    task.cancel()  # what Ctrl-C does to the run's task
    with pytest.raises(asyncio.CancelledError):
        await task
    assert agent_processes(tmp_path) == []
    manifest = json.loads((tmp_path / "runs" / "agent" / "manifest.json").read_text())
    assert manifest["status"] == "interrupted"


def test_an_unreachable_agent_stops_the_run_before_any_case(tmp_path: Path, capsys) -> None:
    with ExampleHttpAgent() as gone:
        url = gone.url
    assert main(["run", str(http_config(tmp_path, url, SAMPLE, "max_attempts = 1\n"))]) == 2
    err = capsys.readouterr().err
    assert "connection error" in err and "[agent.http].base_url" in err and "nothing was run" in err
    assert not (tmp_path / "runs" / "agent" / "answers.jsonl").exists()
