"""Group "beam": BEAM Hugging Face exports with duplicate conversation ids and hostile values (issue 42).

Each file goes through what `estimate` and `run` do with it: the suite's plan (which scans and validates
every row and counts the questions) and then the stream of cases a run answers. Two rows with one
conversation id once merged into one case: the estimate said 20 questions and the run answered 10.
  ok        a valid file (distinct ids) planned, and its cases hold exactly the questions the plan counted
  clean     refused with one line (a UserError) that starts with the file and the row or line (the file alone
            for a number json cannot read: no row can be named)
  unclear   refused, but the line does not start so
  wrong     a valid file refused
  5xx       any other exception (a traceback for the user)
  accepted  a hostile file planned, with as many questions as the plan counted
  lost      planned, but the cases hold other questions than the plan counted
Runs in process: every file here is a few kB (the datasets group covers huge and deep files).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.fuzz.outcome import Tally

QUESTION = {"question": "Where?", "answer": "Lisbon", "rubric": ["LLM response should state: Lisbon"],
            "source_chat_ids": [1]}


def _chat(anchor: Any = "March-01-2024") -> list[dict[str, Any]]:
    return [{"batch_number": 1, "time_anchor": anchor,
             "turns": [[{"role": "user", "id": 0, "content": "I moved ->-> 1,1"},
                        {"role": "assistant", "id": 1, "content": "to Lisbon"}]]}]


def _row(cid: Any = "1", **fields: Any) -> dict[str, Any]:
    return {"conversation_id": cid, "chat": _chat(),
            "probing_questions": {"information_extraction": [QUESTION, QUESTION | {"question": "When?"}]}} | fields


def _unnamed() -> dict[str, Any]:
    return {k: v for k, v in _row().items() if k != "conversation_id"}


def _evidence(value: Any) -> dict[str, Any]:
    return {"probing_questions": {"information_extraction": [QUESTION | {"source_chat_ids": value}]}}


def _jsonl(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


ROW, LINE, FILE = ": row ", ": line ", ": holds"   # what a refusal must name besides the file


def cases(quick: bool) -> dict[str, tuple[str, bytes, str]]:
    """label -> (file suffix, bytes, what its refusal must name: "" for a valid file)."""
    many = 5 if quick else 200
    out: dict[str, tuple[str, bytes, str]] = {
        "control.distinct-ids": (".json", json.dumps([_row(str(n)) for n in range(many)]).encode(), ""),
        "control.distinct-ids.jsonl": (".jsonl", _jsonl([_row(str(n)) for n in range(many)]), ""),
        "control.ascii-evidence-and-plan": (".json", json.dumps([_row("p", chat=[{"plan-2": _chat()}],
                                                                      **_evidence([" 1 "]))]).encode(), ""),
        "control.id-at-the-cap": (".json", json.dumps([_row("c" * 200)]).encode(), ""),
        "dup.same-string": (".json", json.dumps([_row("1"), _row("1")]).encode(), ROW),
        "dup.number-and-string": (".json", json.dumps([_row(7), _row("7")]).encode(), ROW),
        "dup.unnamed-and-position": (".json", json.dumps([_unnamed(), _row("1")]).encode(), ROW),
        "dup.jsonl": (".jsonl", _jsonl([_row("a"), _row("b"), _row("a")]), ROW),
        "dup.last-of-many": (".json", json.dumps([_row(str(n)) for n in range(many)] + [_row("0")]).encode(), ROW),
        "value.time-anchor-int": (".json", json.dumps([_row(chat=_chat(5))]).encode(), ROW),
        "value.time-anchor-dict": (".json", json.dumps([_row(chat=_chat({"d": 1}))]).encode(), ROW),
        "value.bad-utf8-byte": (".jsonl", _jsonl([_row()]) + b'{"conversation_id": "\xff"}\n', LINE),
        "value.literal-int-key": (".json", json.dumps([_row(probing_questions="{1: [], 'custom_ability': []}")]).encode(),
                                   ROW),
        "value.literal-tuple-field": (".json", json.dumps([_row(probing_questions=(
            "{'information_extraction': [{'question': 'q', 'answer': 'a', 'rubric': ['r'], (1, 2): 3}]}"))]).encode(),
            ROW),
        "value.plan-5000-digits": (".json", json.dumps([_row(chat=[{"plan-" + "9" * 5000: _chat()}])]).encode(), ROW),
        "value.evidence-superscript-two": (".json", json.dumps([_row(**_evidence(["²"]))]).encode(), ROW),
        "value.evidence-arabic-digits": (".json", json.dumps([_row(**_evidence(["١"]))]).encode(), ROW),
        "value.evidence-5000-digits": (".json", json.dumps([_row(**_evidence(["1" * 5000]))]).encode(), ROW),
        "value.number-5000-digits": (".json", json.dumps([_row()])[:-2].encode() + b', "x": ' + b"1" * 5000 + b"}]",
                                     FILE),
        "value.literal-number-5000-digits": (".json", json.dumps([_row(chat="[" + "1" * 5000 + "]")]).encode(), ROW),
        "value.id-100k-chars": (".json", json.dumps([_row("x" * 100_000)]).encode(), ROW),
        "value.id-list": (".json", json.dumps([_row(["1"])]).encode(), ROW),
        "value.id-empty": (".json", json.dumps([_row("")]).encode(), ROW),
    }
    return out


def plan_and_stream(config_path: Path, workdir: Path) -> tuple[int, list[str]]:
    """(questions the plan counts, question ids its cases hold): what `estimate` says and a run answers."""
    from benchmarker.config import load_config
    from benchmarker.suites.beam import SUITE
    from benchmarker.suites.settings import PlanSettings

    plan = SUITE.data.plan(PlanSettings.of(load_config(config_path)), workdir)
    return plan.total_questions, [q.question_id for g in plan.groups for c in g.cases() for q in c.questions]


def judge(path: Path, expect: str, config: Path, workdir: Path) -> tuple[str, str]:
    from benchmarker.errors import UserError

    try:
        counted, streamed = plan_and_stream(config, workdir)
    except UserError as err:
        line = str(err)
        if not expect:
            return "wrong", f"refused: {line[:300]}"
        if "\n" in line or not line.startswith(f"{path}{expect}"):
            return "unclear", line[:300]
        return "clean", ""
    except Exception as err:  # any other exception is a traceback for the user
        return "5xx", f"{type(err).__name__}: {str(err)[:300]}"
    if counted != len(streamed) or len(set(streamed)) != len(streamed):
        return "lost", f"the plan counts {counted} questions, the cases hold {len(streamed)} ({len(set(streamed))} ids)"
    return ("ok", "") if not expect else ("accepted", f"planned {counted} questions")


def run(workdir: Path, tally: Tally, *, quick: bool) -> Tally:
    folder = workdir / "beam"
    folder.mkdir(parents=True, exist_ok=True)
    for n, (label, (suffix, data, expect)) in enumerate(cases(quick).items()):
        path = folder / f"case{n}{suffix}"
        path.write_bytes(data)
        config = folder / f"case{n}.toml"
        config.write_text(f'[dataset]\nkind = "beam"\nfile = "{path}"\nsize = "100K"\n[provider]\ntype = "offline"\n'
                          f'[run]\noutput_dir = "{folder / "runs"}"\n', encoding="utf-8")
        outcome, detail = judge(path, expect, config, folder)
        tally.add(outcome, f"beam.{label}", detail)
    return tally
