"""The figures the validity verdict judges (scoring/validity.py): what each check counts, out of what, and
the most common error behind it, read from a run's files alone."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict, cast

from benchmarker.log.decision_facts import decision_facts
from benchmarker.log.jsonl import latest_by, read_json_object, read_lines
from benchmarker.log.lines import DecisionLine, ErrorLine, Json, Manifest, MemoryLine, ResultLine
from benchmarker.scoring.grade import Grade
from benchmarker.scoring.qa_metrics import not_graded
from benchmarker.scoring.searchable import ERROR_NAME as NOT_SEARCHABLE_ERROR

SEARCH_CALLERS = frozenset({"harness", "retrieval"})
WRITE_TOOLS = frozenset({"add_entry"})
MEMORY_GONE = ("no memory with id", "memory not found", "unknown memory")
TIMEOUT_WORDS = ("timed out", "timeout")
ADAPTER_ERROR = "AdapterError"
DETAIL_CHARS = 160
PHASES = ("ingest", "qa", "eval")
_NODE = re.compile(r"During task with name '([a-z_]+)'")
_ID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")  # ids differ; the error does not



class Figure(TypedDict):
    """What one check counted: `count` of `of`, the most common error behind it, and whether it applies."""

    what: str
    count: int
    of: int
    detail: str
    applies: bool


@dataclass
class RunFiles:
    """What the verdict reads: one results directory's lines and its run's manifest, decisions and memories."""

    manifest: Manifest = field(default_factory=lambda: Manifest())
    answers: list[ResultLine] = field(default_factory=list)
    results: list[ResultLine] = field(default_factory=list)
    errors: list[ErrorLine] = field(default_factory=list)
    decisions: list[DecisionLine] = field(default_factory=list)   # their facts only (log/decision_facts.py)
    memories: list[MemoryLine] = field(default_factory=list)

    @classmethod
    def read(cls, answers_dir: Path, run_dir: Path | None = None) -> RunFiles:
        run_dir = run_dir or answers_dir

        def main(path: Path) -> list[ResultLine]:  # the dataset's own questions, not adversarial rounds
            return [r for r in latest_by(read_lines(path, ResultLine), "question_id") if not r.get("round")]

        return cls(manifest=cast(Manifest, read_json_object(run_dir / "manifest.json")),
                   answers=main(answers_dir / "answers.jsonl"), results=main(answers_dir / "results.jsonl"),
                   errors=list(read_lines(answers_dir / "errors.jsonl", ErrorLine)),
                   decisions=list(decision_facts(run_dir / "decisions.jsonl")),
                   memories=list(read_lines(run_dir / "memories.jsonl", MemoryLine)))

    @property
    def config(self) -> dict[str, dict[str, Json]]:
        """The config as run (the manifest keeps it under config.config)."""
        config = (self.manifest.get("config") or {}).get("config")
        return config if isinstance(config, dict) else {}

    @property
    def phases(self) -> tuple[str, ...]:
        phases = (self.config.get("run") or {}).get("phases")
        return tuple(str(p) for p in phases) if isinstance(phases, list) and phases else PHASES

    @property
    def mode(self) -> str:
        """The config's [run] mode, else what the answers lines say they were (a directory with no manifest)."""
        configured = (self.config.get("run") or {}).get("mode")
        answered = {a.get("mode") for a in self.answers}
        return str(configured or (answered.pop() if len(answered) == 1 and None not in answered else "agent"))

    @property
    def outside_agent(self) -> bool:
        return (self.config.get("agent") or {}).get("type", "memory_agent") != "memory_agent"

    @property
    def selected(self) -> int:
        """The questions the run selected (the manifest's dataset count), else the ones it has lines for."""
        total = (self.manifest.get("dataset") or {}).get("questions")
        seen = {a.get("question_id") for a in self.answers} | {r.get("question_id") for r in self.results}
        return total if isinstance(total, int) and total >= len(seen) else len(seen)

    def answered(self) -> dict[str, ResultLine]:
        return {str(a.get("question_id")): a for a in self.answers} | {str(r.get("question_id")): r for r in self.results}

    def searches(self) -> list[DecisionLine]:
        """The measured question searches (graph/qa.py's decision lines; graph/search_log.py's failed ones)."""
        return [d for d in self.decisions if d.get("caller") in SEARCH_CALLERS and d.get("question_id")
                and not str(d.get("tool", "")).startswith("_")]

    def stored(self) -> dict[str, int]:
        """case -> entries its finished ingestion stored (memories.jsonl: `stored`, else the messages ingested)."""
        out = {}
        for line in latest_by((m for m in self.memories if m.get("ingested")), "case_id"):
            kept = line.get("stored")
            out[str(line.get("case_id"))] = int(kept if isinstance(kept, int) else line.get("entries") or 0)
        return out

    def failed_cases(self) -> list[ErrorLine]:
        """The latest error of each case while a selected question is unanswered (a finished case's old error
        from an earlier attempt says nothing then)."""
        if len(self.answered()) >= self.selected:
            return []
        return latest_by(self.errors, "case_id")


def most_common(messages: Iterable[Any]) -> str:
    """The most frequent error text, shortened: what a reason names in parentheses."""
    counted = Counter(_ID.sub("<id>", " ".join(str(m).split()))[:DETAIL_CHARS] for m in messages if m)
    if not counted:
        return ""
    text, n = counted.most_common(1)[0]
    return f"most often: {text}" + (f" ({n}x)" if n > 1 else "")


def _has(error: Any, words: tuple[str, ...]) -> bool:
    low = str(error or "").casefold()
    return any(word in low for word in words)


def _node(error: ErrorLine) -> str | None:
    found = _NODE.search(str(error.get("traceback") or ""))
    return found.group(1) if found else None


def figure(what: str, count: int, of: int, detail: str = "", applies: bool = True) -> Figure:
    return {"what": what, "count": count, "of": of, "detail": detail, "applies": applies}


def skipped(what: str, why: str) -> Figure:
    return figure(what, 0, 0, why, applies=False)


def _hits_found(answer: ResultLine) -> int:
    """What the server returned for the question's search: `retrieved` is only what reached the reader, which a
    tight `[run] context_budget_tokens` can empty while the memory answered (runs before budgets: retrieved)."""
    returned = answer.get("hits_returned")
    return returned if isinstance(returned, int) else len(answer.get("retrieved") or [])


def memory_replaced(f: RunFiles) -> Figure:
    stored = {case: n for case, n in f.stored().items() if n > 0}
    gone = {str(e.get("case_id")): str(e.get("error")) for e in f.failed_cases()
            if str(e.get("case_id")) in stored and _has(e.get("error"), MEMORY_GONE)}
    answered = [a for a in f.answers if str(a.get("case_id")) in stored and isinstance(a.get("retrieved"), list)]
    by_case: dict[str, list[int]] = {}
    for a in answered:
        by_case.setdefault(str(a.get("case_id")), []).append(_hits_found(a))
    # one empty search is a miss (keyword search finds nothing for some questions); every search of the run empty
    # on memories that stored entries is an emptied or replaced database
    all_empty = bool(by_case) and not any(any(hits) for hits in by_case.values())
    emptied = sorted(case for case in by_case if case not in gone) if all_empty else []
    detail = most_common(gone.values()) if gone else ""
    if emptied:
        empty = f"every search empty although ingestion stored entries: {', '.join(emptied[:5])}"
        detail = f"{detail}; {empty}" if detail else empty
    return figure("cases' memories were gone or emptied at question time", len(gone) + len(emptied), len(stored), detail)


def not_searchable(f: RunFiles) -> Figure:
    left_out = [a for a in f.answered().values() if a.get("index_searchable") is False]
    answered_cases = {str(a.get("case_id")) for a in f.answered().values()}
    failed = [e for e in latest_by(f.errors, "case_id")
              if NOT_SEARCHABLE_ERROR in str(e.get("error")) and str(e.get("case_id")) not in answered_cases]
    return figure("questions or cases had an index that never became searchable", len(left_out) + len(failed),
                  f.selected, most_common(e.get("error") for e in failed))


def _search_figure(f: RunFiles, what: str, keep: Callable[[DecisionLine], bool]) -> Figure:
    if f.outside_agent:
        return skipped(what, "an outside agent searches its own memory")
    if "qa" not in f.phases:
        return skipped(what, "no qa phase in this run")
    searches = f.searches()
    bad = [d for d in searches if keep(d)]
    return figure(what, len(bad), len(searches), most_common(d.get("error") for d in bad))


def search_errors(f: RunFiles) -> Figure:
    return _search_figure(f, "searches failed", lambda d: bool(d.get("error")))


def search_timeouts(f: RunFiles) -> Figure:
    return _search_figure(f, "searches timed out", lambda d: bool(d.get("error")) and _has(d.get("error"), TIMEOUT_WORDS))


def search_empty(f: RunFiles) -> Figure:
    what = "searches found nothing although the memory held entries"
    if f.outside_agent:
        return skipped(what, "an outside agent searches its own memory")
    stored = f.stored()
    searched = [a for a in f.answers if isinstance(a.get("retrieved"), list) and stored.get(str(a.get("case_id")), 0) > 0]
    empty = [a for a in searched if not _hits_found(a)]
    return figure(what, len(empty), len(searched), f"e.g. {', '.join(str(a.get('question_id')) for a in empty[:5])}"
                  if empty else "")


def write_failures(f: RunFiles) -> Figure:
    what = "memory writes were refused or failed"
    if f.outside_agent:
        return skipped(what, "an outside agent writes its own memory")
    tools = WRITE_TOOLS | {str((f.manifest.get("memory") or {}).get("write_tool") or "add_entry")}
    writes = [d for d in f.decisions if d.get("tool") in tools]
    bad = [d for d in writes if d.get("error")]
    return figure(what, len(bad), len(writes), most_common(d.get("error") for d in bad))


def unanswered(f: RunFiles) -> Figure:
    what = "questions were not answered"
    if "qa" not in f.phases and not f.answers:
        return skipped(what, "no qa phase in this run")
    missing = max(f.selected - len(f.answered()), 0)
    return figure(what, missing, f.selected, most_common(e.get("error") for e in f.failed_cases()) if missing else "")


def reader_errors(f: RunFiles) -> Figure:
    what = "questions' reader calls failed after their search"
    if f.mode == "retrieval" or f.outside_agent:
        return skipped(what, "no reader in this run" if f.mode == "retrieval" else "an outside agent answers itself")
    answered = f.answered()
    searched = {str(d.get("question_id")) for d in f.searches() if not d.get("error")}
    failed_in_qa = {str(e.get("case_id")): e for e in f.failed_cases() if _node(e) == "qa"}
    lost = [d for d in f.searches() if not d.get("error") and str(d.get("question_id")) not in answered
            and str(d.get("case_id")) in failed_in_qa]
    cases = {str(d.get("case_id")) for d in lost}
    return figure(what, len({str(d.get("question_id")) for d in lost}), len(searched),
                  most_common(failed_in_qa[c].get("error") for c in cases))


def agent_errors(f: RunFiles) -> Figure:
    what = "cases failed by the outside agent's protocol"
    if not f.outside_agent:
        return skipped(what, "our memory agent is under test")
    bad = [e for e in f.failed_cases() if ADAPTER_ERROR in str(e.get("error"))]  # a case a re-run redid is fine
    cases = {str(a.get("case_id")) for a in f.answered().values()} | {str(e.get("case_id")) for e in bad}
    return figure(what, len(bad), len(cases), most_common(e.get("error") for e in bad))


def _judging(f: RunFiles, what: str) -> Figure | None:
    if f.mode == "retrieval":
        return skipped(what, "retrieval mode: nothing is judged")
    if "eval" not in f.phases and not f.results:
        return skipped(what, "no eval phase in this run")
    return None


def unjudged(f: RunFiles) -> Figure:
    what = "answered questions have no verdict"
    if (off := _judging(f, what)) is not None:
        return off
    answered = {str(a.get("question_id")) for a in f.answers} | {str(r.get("question_id")) for r in f.results}
    results = {str(r.get("question_id")): r for r in f.results}
    lost = [q for q in answered if q not in results or (results[q].get("label") is None and not not_graded(results[q]))]
    reasons = [(Grade.of_line(results[q]).reason if q in results else "") or "no results line" for q in lost]
    return figure(what, len(lost), len(answered), most_common(reasons))


def _unjudged_by(f: RunFiles, what: str, prefix: str) -> Figure:
    if (off := _judging(f, what)) is not None:
        return off
    lost = [r for r in f.results if r.get("label") is None and Grade.of_line(r).reason.startswith(prefix)]
    return figure(what, len(lost), len(f.results), most_common(Grade.of_line(r).reason for r in lost))


def judge_errors(f: RunFiles) -> Figure:
    return _unjudged_by(f, "verdicts were lost to failed judge calls", "unjudged: ")


def judge_refusals(f: RunFiles) -> Figure:
    return _unjudged_by(f, "verdicts were lost to judge replies with no verdict", "unjudged after")


def _above(f: RunFiles, what: str, over: Callable[[ResultLine], int]) -> Figure:
    searched = [a for a in f.answers if isinstance(a.get("retrieved"), list) and isinstance(a.get("top_k"), int)]
    bad = [a for a in searched if over(a) > 0]
    extra = sum(over(a) for a in bad)
    return figure(what, len(bad), len(searched), f"{extra} hit(s) beyond top_k" if bad else "")


def reader_above_top_k(f: RunFiles) -> Figure:
    return _above(f, "answers' readers saw more hits than top_k", lambda a: len(a.get("retrieved") or []) - (a.get("top_k") or 0))


def hits_above_top_k(f: RunFiles) -> Figure:
    return _above(f, "searches returned more hits than top_k (trimmed before the reader)",
                  lambda a: int(a.get("hits_trimmed") or 0))


MEASURES: dict[str, Callable[[RunFiles], Figure]] = {
    "memory_replaced": memory_replaced, "not_searchable": not_searchable, "search_errors": search_errors,
    "search_timeouts": search_timeouts, "search_empty": search_empty, "write_failures": write_failures,
    "unanswered": unanswered, "reader_errors": reader_errors, "agent_errors": agent_errors, "unjudged": unjudged,
    "judge_errors": judge_errors, "judge_refusals": judge_refusals, "reader_above_top_k": reader_above_top_k,
    "hits_above_top_k": hits_above_top_k,
}


def measure(name: str, files: RunFiles) -> Figure:
    return MEASURES[name](files)
