"""`calibrate CONFIG --labels FILE ...`: agreement and Cohen's kappa of a judge against labelled
answers, through the CLI on small labelled files written here; the LLM judges (our prompts and the
official ones) against the local OpenAI-compatible server, priced first and resumable."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from benchmarker.cli import main
from benchmarker.scoring.calibration.agreement import agreement_block, kappa, kappa_interval
from benchmarker.scoring.calibration.labels import read_gold
from tests.fakes.openai_server import ScriptedOpenAIServer, last_prompt, llm_judge_toml, reply
from tests.shared_data import SHARED

JUDGE_DATA = SHARED / "data" / "judge"

QUESTIONS = [
    {"question_id": "u1", "question_type": "single-session-user", "question": "Which city did I move to?",
     "answer": "Paris"},
    {"question_id": "u2", "question_type": "single-session-user", "question": "What is my dog's name?",
     "answer": "Biscuit"},
    {"question_id": "m1", "question_type": "multi-session", "question": "How many bikes do I own?", "answer": 3},
    {"question_id": "m2", "question_type": "multi-session", "question": "Which language am I learning?",
     "answer": "Portuguese"},
    {"question_id": "m3_abs", "question_type": "multi-session", "question": "What is my cat's name?",
     "answer": "You did not mention a cat."},
]


def official(qid: str, hypothesis: str, label: bool, model: str = "gpt-4o-2024-08-06") -> str:
    return json.dumps({"question_id": qid, "hypothesis": hypothesis, "autoeval_label": {"model": model, "label": label}})


def plain(qid: str, hypothesis: str, label: bool) -> str:
    return json.dumps({"question_id": qid, "hypothesis": hypothesis, "label": label})


def setup(tmp_path: Path, toml: str = '[provider]\ntype = "offline"\n', top: str = "") -> tuple[Path, Path, Path]:
    """A questions-only gold file, a config, and two labels files (official and plain lines)."""
    (tmp_path / "questions.json").write_text(json.dumps(QUESTIONS), encoding="utf-8")
    config = tmp_path / "calibrate.toml"
    config.write_text(f'{top}[dataset]\nfile = "questions.json"\n[run]\nprogress = false\noutput_dir = "out"\n{toml}',
                      encoding="utf-8")
    first = tmp_path / "a.eval-results-gpt-4o.jsonl"
    # the grader's verdicts are plain here: the gold verbatim passes, another city / name fails
    first.write_text("\n".join([official("u1", "You moved to Paris.", True),
                                official("u2", "Your dog is called Rex.", True),      # label says correct: disagreement
                                official("m1", "You own 3 bikes.", True),
                                official("m2", "You are learning Japanese.", False)]) + "\n", encoding="utf-8")
    second = tmp_path / "b.jsonl"
    second.write_text("\n".join([plain("u1", "London.", False), plain("u2", "Biscuit", False)]) + "\n",  # u2: disagreement
                      encoding="utf-8")
    return config, first, second


def test_kappa_and_agreement_on_a_hand_computed_example():
    # tp 4, fn 1, fp 2, tn 3: agreement 7/10; chance (6*5 + 4*5) / 100 = 0.5; kappa (0.7 - 0.5) / 0.5 = 0.4
    labels = [True] * 5 + [False] * 5
    verdicts = [True, True, True, True, False, True, True, False, False, False]
    block = agreement_block(labels, verdicts)
    assert block["confusion"] == {"tp": 4, "fn": 1, "fp": 2, "tn": 3}
    assert block["agreement"] == pytest.approx(0.7) and block["kappa"] == pytest.approx(0.4)
    assert block["precision"] == pytest.approx(4 / 6) and block["recall"] == pytest.approx(4 / 5)
    lo, hi = block["kappa_ci95"]
    assert lo < 0.4 < hi and kappa_interval(labels, verdicts) == kappa_interval(labels, verdicts)  # seeded
    assert kappa([True, True], [True, True]) is None  # both constant: kappa undefined, never a division by zero
    assert kappa([True, False], [False, True]) == pytest.approx(-1.0)
    unjudged = agreement_block([True, False], [None, False])
    assert unjudged["n"] == 1 and unjudged["unjudged"] == 1 and unjudged["agreement"] == 1.0


def test_gold_from_a_questions_only_file_with_numeric_answers(tmp_path):
    (tmp_path / "q.json").write_text(json.dumps(QUESTIONS), encoding="utf-8")
    gold = read_gold(tmp_path / "q.json")
    assert gold["m1"].answer == "3" and gold["m3_abs"].question_type == "multi-session" and len(gold) == 5


def test_calibrate_cli_deterministic_summary_files_and_json(tmp_path, capsys):
    config, first, second = setup(tmp_path)
    assert main(["calibrate", str(config), "--labels", str(first), "--labels", str(second), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["n"] == 6 and summary["unjudged"] == 0
    assert summary["confusion"] == {"tp": 2, "fn": 1, "fp": 1, "tn": 2}
    assert summary["agreement"] == pytest.approx(4 / 6) and summary["kappa"] == pytest.approx(1 / 3)
    assert set(summary["by_type"]) == {"single-session-user", "multi-session"}
    assert all({"n", "agreement", "kappa"} <= set(b) for b in summary["by_type"].values())
    assert summary["by_type"]["single-session-user"]["n"] == 4
    assert set(summary["by_file"]) == {first.name, second.name} and summary["by_file"][second.name]["n"] == 2
    assert summary["labels_models"] == {"gpt-4o-2024-08-06": 4, "": 2}
    folder = tmp_path / "out" / "calibration" / "deterministic"
    disagreements = [json.loads(x) for x in (folder / "calibration.jsonl").read_text().splitlines()]
    assert {(d["question_id"], d["file"]) for d in disagreements} == {("u2", first.name), ("u2", second.name)}
    d = next(d for d in disagreements if d["file"] == first.name)
    assert d["gold"] == "Biscuit" and d["answer"] == "Your dog is called Rex." and d["label"] is True
    assert d["verdict"] is False and d["reason"] and d["question"] == "What is my dog's name?" and d["line"] == 2
    report = (folder / "report.md").read_text()
    assert "## By question type" in report and "## By labels file" in report and "Rex" in report
    assert "<table>" in (folder / "report.html").read_text()
    # agreement per type as a figure, inlined so report.html stands alone
    assert (folder / "plots" / "agreement_by_type.png").stat().st_size > 0
    assert "![agreement by question type](plots/agreement_by_type.png)" in report
    assert 'src="data:image/png;base64,' in (folder / "report.html").read_text()
    assert json.loads((folder / "calibration.json").read_text())["kappa"] == summary["kappa"]


def test_the_abstention_row_and_the_table_on_the_console(tmp_path, capsys):
    config, first, _ = setup(tmp_path)
    first.write_text(first.read_text() + official("m3_abs", "You never told me about a cat.", True) + "\n")
    assert main(["calibrate", str(config), "--labels", str(first)]) == 0
    out = capsys.readouterr().out
    assert "abstention" in out and "kappa" in out and "report:" in out
    summary = json.loads((tmp_path / "out" / "calibration" / "deterministic" / "calibration.json").read_text())
    assert summary["by_type"]["abstention"]["n"] == 1 and summary["by_type"]["multi-session"]["n"] == 3


def test_every_bad_line_is_listed_in_one_error(tmp_path, capsys):
    config, first, second = setup(tmp_path)
    first.write_text(first.read_text() + "\n".join([
        "{not json",
        official("nope", "x", True),                                  # unknown id
        official("u1", "again", True),                                # duplicate of line 1
        json.dumps({"question_id": "m1", "hypothesis": "x", "label": "yes"}),  # label not a boolean
        json.dumps({"question_id": "m2", "label": True}),             # no hypothesis
        "[1, 2]"]) + "\n")
    assert main(["calibrate", str(config), "--labels", str(first), "--labels", str(second),
                 "--labels", str(tmp_path / "missing.jsonl")]) == 2
    err = capsys.readouterr().err
    for expected in (f"{first}:5: not a JSON object", f"{first}:6: unknown question_id 'nope'",
                     f"{first}:7: duplicate question_id 'u1' (first on line 1)", f"{first}:8: question_id 'm1': label 'yes'",
                     f"{first}:9: question_id 'm2': no hypothesis", f"{first}:10: not a JSON object",
                     f"{tmp_path / 'missing.jsonl'}: no such labels file"):
        assert expected in err, expected
    assert not (tmp_path / "out").exists()  # nothing judged, nothing written


def test_a_config_without_a_gold_file_is_refused(tmp_path, capsys):
    config = tmp_path / "c.toml"
    config.write_text('[provider]\ntype = "offline"\n', encoding="utf-8")
    (tmp_path / "l.jsonl").write_text(plain("u1", "x", True) + "\n")
    assert main(["calibrate", str(config), "--labels", str(tmp_path / "l.jsonl")]) == 2
    assert "[dataset] file" in capsys.readouterr().err


FAKE_EVALUATOR = '''
import openai  # not installed here: never imported

def get_anscheck_prompt(task, question, answer, response, abstention=False):
    return "OFFICIAL {} | {} | {} | {}".format(task, question, answer, response)
'''


def judge_script(request: dict) -> dict:
    """Says no to the three wrong answers of the labels files, yes to the rest."""
    return reply("no" if any(w in last_prompt(request) for w in ("Rex", "London", "Japanese")) else "yes")


def llm_setup(tmp_path: Path, base_url: str) -> tuple[Path, Path, Path]:
    clone = tmp_path / "LongMemEval" / "src" / "evaluation"
    clone.mkdir(parents=True)
    (clone / "evaluate_qa.py").write_text(textwrap.dedent(FAKE_EVALUATOR))
    toml = f'concurrency = 3\n{llm_judge_toml(base_url)}[prices]\n"gpt-judge" = {{ input = 2.0, output = 8.0 }}\n'
    return setup(tmp_path, toml, top='dataset_repo_path = "LongMemEval"\n')


def calibrate_once(config: Path, args: list[str]) -> tuple[int, list[dict]]:
    """One command against a fresh local server, as a new process would be (langchain-openai keeps
    its async HTTP client per base URL, bound to the event loop of the command that made it)."""
    with ScriptedOpenAIServer(judge_script) as server:
        config.write_text(re.sub(r'base_url = "[^"]*"', f'base_url = "{server.base_url}"', config.read_text()))
        code = main(args)
        return code, list(server.requests)


def test_llm_and_official_judges_priced_then_run_then_resumed(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TEST_OPENAI_KEY", "dummy")
    config, first, second = llm_setup(tmp_path, "http://127.0.0.1:9")
    args = ["calibrate", str(config), "--labels", str(first), "--labels", str(second), "--judge", "llm",
            "--judge", "official"]
    code, requests = calibrate_once(config, [*args, "--estimate", "--json"])
    estimates = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert code == 0 and [e["judge"] for e in estimates] == ["llm-gpt-judge", "official-gpt-judge"]
    assert all(e["to_judge"] == 6 and e["input_tokens"] > 0 and e["usd"] > 0 for e in estimates)
    assert requests == []  # priced without a model call

    code, requests = calibrate_once(config, [*args, "--json"])
    llm, off = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert code == 0 and len(requests) == 12
    assert sum(last_prompt(r).startswith("OFFICIAL") for r in requests) == 6  # LongMemEval's prompts, official judge
    for summary in (llm, off):
        assert summary["n"] == 6 and summary["unjudged"] == 0 and summary["tokens"]["total"]["calls"] == 6
        assert summary["confusion"] == {"tp": 2, "fn": 1, "fp": 1, "tn": 2} and summary["tokens"]["total"]["cost_usd"] > 0
    assert off["judge"]["kind"] == "official" and llm["judge"]["kind"] == "llm"

    # an interrupted calibration: only the verdicts it lost are asked again, none twice
    verdicts = tmp_path / "out" / "calibration" / "llm-gpt-judge" / "verdicts.jsonl"
    verdicts.write_text("\n".join(verdicts.read_text().splitlines()[:4]) + "\n")
    code, requests = calibrate_once(config, args[:-2])  # the llm judge only
    assert code == 0 and len(requests) == 2
    keys = [json.loads(x)["key"] for x in verdicts.read_text().splitlines()]
    assert len(keys) == len(set(keys)) == 6
    again = json.loads((verdicts.parent / "calibration.json").read_text())
    assert again["confusion"] == llm["confusion"]
    assert again["tokens"]["total"]["calls"] == 8  # the ledger counts both attempts
    capsys.readouterr()

    code, _ = calibrate_once(config, [*args, "--estimate"])
    assert "0 answers to judge (6 already judged)" in capsys.readouterr().out
    code, requests = calibrate_once(config, args)
    assert code == 0 and requests == []  # done: nothing asked again


def test_official_without_a_clone_is_an_error_not_a_silent_fallback(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TEST_OPENAI_KEY", "dummy")
    with ScriptedOpenAIServer(judge_script) as server:
        config, first, _ = setup(tmp_path, llm_judge_toml(server.base_url))
        assert main(["calibrate", str(config), "--labels", str(first), "--judge", "official"]) == 2
        assert "official" in capsys.readouterr().err and server.requests == []


@pytest.mark.skipif(not (JUDGE_DATA / "engrava.eval-results-gpt-4o.jsonl").exists(), reason="../shared absent")
def test_the_shipped_config_over_the_published_gpt4o_labels(tmp_path, capsys):
    config = Path(__file__).resolve().parents[3] / "configs" / "calibrate.toml"
    assert main(["calibrate", str(config), "--labels", str(JUDGE_DATA / "engrava.eval-results-gpt-4o.jsonl"),
                 "--out", str(tmp_path), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["n"] == 500 and summary["labels_models"] == {"gpt-4o-2024-08-06": 500}
    assert summary["by_type"]["abstention"]["n"] == 30
    for name in ("calibration.json", "calibration.jsonl", "report.md", "report.html"):
        assert (tmp_path / "deterministic" / name).is_file()


def test_the_report_lists_every_disagreement_by_file_with_whole_answers_collapsed(tmp_path, capsys):
    from benchmarker.reporting.calibration import write_calibration

    config, first, second = setup(tmp_path)
    assert main(["calibrate", str(config), "--labels", str(first), "--labels", str(second)]) == 0
    summary = json.loads((tmp_path / "out" / "calibration" / "deterministic" / "calibration.json").read_text())
    # an answer whose conclusion is past the old 600-character cut, holding a fence and markup of its own
    long_answer = "Let me think.\n```\n</details>\n<script>alert(1)</script>\n" + "x " * 400 + "\nSo: THE CONCLUSION."
    lines = [{"file": name, "line": i + 1, "question_id": f"{name[0]}{i}", "question_type": "multi-session",
              "question": "q?", "gold": "g", "answer": long_answer if i == 44 else f"answer {i}", "label": True,
              "verdict": False, "reason": "the last sentence says so"}
             for name, count in ((second.name, 3), (first.name, 45)) for i in range(count)]
    write_calibration(tmp_path / "report", summary, lines)
    markdown = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert "48 disagreements, all listed here" in markdown
    assert markdown.count("\n#### ") == 48  # every one, not the first 40
    # grouped by labels file, in the files' order (first, then second), whatever order they arrived in
    assert markdown.index(f"### {first.name}: 45 disagreements") < markdown.index(f"### {second.name}: 3 disagreements")
    page = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    assert page.count("<details><summary>answer (") == 48 and page.count("</details>") == 48
    assert "THE CONCLUSION." in page and "<script>" not in page and "&lt;script&gt;alert(1)" in page
    assert "&lt;/details&gt;" in page  # the answer's own </details> is text inside its block
