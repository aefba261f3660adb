"""An adversary round that asks nothing is a result, not an absence: the `adversary` node (offline
models, the generator proposer) on a 300-turn long-horizon dialogue whose only weak category has
one unasked candidate, which fails its check. The round is logged, said on the console, and the
summary's `rounds` block and the report say it ran, what was proposed and dropped, and why it asked
nothing."""

from __future__ import annotations

import json
from pathlib import Path

from langgraph.runtime import Runtime

from benchmarker.config import load_config
from benchmarker.graph.adversary import adversary
from benchmarker.graph.build import CASE_GRAPH, LocalExecutor
from benchmarker.log.records import MemoryRecord, ResultRecord
from benchmarker.log.store import RunLog
from benchmarker.registry import SUITE_LOOKUP
from benchmarker.reporting.outputs import write_outputs
from tests.graph.support import cases_of, node_context

WEAK = "never_mentioned"   # seed 7, 300 turns, 40 questions: one unasked candidate, and it cannot be checked


def _config(tmp_path: Path):
    path = tmp_path / "adv.toml"
    path.write_text('run_id = "adv-empty"\n[dataset]\nkind = "long_horizon"\nturns = 300\nquestions = 40\nseed = 7\n'
                    '[multi_agent]\nadversary = true\nweak_categories = 1\n'
                    f'[run]\nprogress = false\noutput_dir = "{tmp_path / "runs"}"\n', encoding="utf-8")
    return load_config(path)


def _round_zero(config, wrong: str | None) -> None:
    """What the case graph left behind: the case's finished memory and its judged round-0 questions
    (every answer right except those in the category `wrong`)."""
    (case,) = cases_of(config)
    log = RunLog(Path(config.run_dir))
    log.append(MemoryRecord(case_id=case.case_id, memory_id="m-1", vault_id="v-1", title="t", attempt=1,
                            status="ingested", ingested=True))
    for q in case.questions:
        log.append(ResultRecord(case_id=case.case_id, question_id=q.question_id, question_type=q.question_type,
                                category=q.category, kind=case.kind, question=q.question, answer=q.answer,
                                hypothesis="x", label=q.category != wrong, grade={"judge": "deterministic"}))
    log.close()


async def _run_round(config) -> dict:
    cases = cases_of(config)
    ctx = node_context(config, None, client=None,   # an empty round never touches the memory
                       executor=LocalExecutor(CASE_GRAPH, lambda: cases))
    await adversary({"setup": {"vault_id": "v-1", "default_prompts": {}}}, Runtime(context=ctx))
    ctx.log.close()
    run_dir = Path(config.run_dir)
    write_outputs(run_dir, run_dir, {"run_id": config.run_id, "offline": True, "mode": "agent",
                                     "dataset_kind": "long_horizon"}, suites=SUITE_LOOKUP)
    return json.loads((run_dir / "summary.json").read_text())


async def test_a_round_whose_only_candidate_is_dropped_is_reported(tmp_path, capsys):
    config = _config(tmp_path)
    _round_zero(config, wrong=WEAK)
    summary = await _run_round(config)
    (logged,) = [json.loads(x) for x in (Path(config.run_dir) / "adversary.jsonl").read_text().splitlines()]
    assert (logged["proposed"], logged["verified"], logged["weak_categories"]) == (1, 0, [WEAK])
    rounds = summary["rounds"]
    assert rounds["rounds"]["1"]["questions"] == 0 and rounds["rounds"]["0"]["questions"] == 40
    one = rounds["adversary"]["1"]
    assert (one["proposed"], one["verified"], one["dropped"], one["asked"], one["cases"]) == (1, 0, 1, 0, 1)
    assert one["drop_reasons"] == {"never-mentioned attribute": 1}
    assert "asked nothing" in one["note"] and "1 proposed, 1 dropped" in one["note"]
    assert summary["qa"]["overall"]["n"] == 40   # the main metrics stay round 0
    report = (Path(config.run_dir) / "report.md").read_text()
    assert "## Adversarial rounds" in report and "Round 1 asked nothing: 1 proposed, 1 dropped" in report
    console = " ".join(capsys.readouterr().err.split())   # the progress console (stderr), unwrapped
    assert "adversary: case lh-7-300 round 1 asked nothing: 1 proposed, 1 dropped (never-mentioned attribute: 1)" \
        in console


async def test_a_round_with_nothing_to_aim_at_is_reported(tmp_path):
    config = _config(tmp_path)
    _round_zero(config, wrong=None)   # every answer right: no weak category, nothing to aim at
    summary = await _run_round(config)
    one = summary["rounds"]["adversary"]["1"]
    assert (one["proposed"], one["asked"]) == (0, 0) and "no category had a wrong answer" in one["note"]
    assert "Round 1 asked nothing: no category had a wrong answer" in (Path(config.run_dir) / "report.md").read_text()
