"""Are two runs comparable at all? The check `compare` and `view`'s compare page open with.

Two accuracies say something about two memory systems only when everything else was equal: the same data (the
dataset file's sha256 in each manifest), the same questions, the same judge (kind and model, from the grades on the
results lines), the same `top_k`, and readers that saw about as much context (mean `context_tokens` within 10%).
Each difference is one line ("not like-for-like: run B's reader saw 2.9x the context"); what a run does not record
(a run from before context tokens were measured) is said to be unknown, never guessed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from benchmarker.log.jsonl import read_json_object
from benchmarker.log.lines import GradeLine, ResultLine
from benchmarker.token_count import TOKENIZER

CONTEXT_TOLERANCE = 0.10   # mean context tokens may differ by this share of the smaller before a run is unequal
MANIFEST_DEPTH = 3         # a sweep point (points/<label>) or a re-judging (scores/<judge>) reads its run's manifest


@dataclass(frozen=True)
class RunFacts:
    """What the check compares of one run, read from its results lines and its manifest."""

    name: str
    dataset_sha256: str | None
    question_ids: frozenset[str]
    judges: tuple[str, ...]           # "deterministic", "llm gpt-4o-mini", ... (most lines first)
    top_k: int | None
    context_tokens: tuple[int, ...]   # per line that carries it

    @property
    def mean_context(self) -> float | None:
        return sum(self.context_tokens) / len(self.context_tokens) if self.context_tokens else None


def _manifest(run_dir: Path) -> dict[str, Any]:
    for folder in [run_dir, *list(run_dir.parents)[:MANIFEST_DEPTH]]:
        if (folder / "manifest.json").exists():
            return read_json_object(folder / "manifest.json")
    return {}


def _judge(grade: GradeLine) -> str:
    kind, model = grade.get("judge"), grade.get("model")
    return " ".join(str(part) for part in (kind, model) if part)


def run_facts(name: str, run_dir: Path | None, results: Sequence[ResultLine], top_k: int | None = None,
              manifest: dict[str, Any] | None = None) -> RunFacts:
    """A run's facts; `top_k` as its summary says it (else the lines'); `manifest` given (a bundle's) or read."""
    manifest = manifest if manifest is not None else _manifest(Path(run_dir)) if run_dir is not None else {}
    judged = Counter(_judge(g) for r in results if isinstance(g := r.get("grade"), dict) and _judge(g))
    manifest_judge = manifest.get("judge") or {}
    judges = tuple(j for j, _ in judged.most_common()) or ((_judge({"judge": str(manifest_judge.get("kind")),
                                                                     "model": manifest_judge.get("model")}),)
                                                            if manifest_judge.get("kind") else ())
    line_top_k = next((k for r in results if isinstance(k := r.get("top_k"), int)), None)
    tokens = tuple(t for r in results if isinstance(t := r.get("context_tokens"), int) and not isinstance(t, bool))
    return RunFacts(name=name, dataset_sha256=(manifest.get("dataset") or {}).get("sha256"),
                    question_ids=frozenset(str(r.get("question_id")) for r in results), judges=judges,
                    top_k=top_k if top_k is not None else line_top_k, context_tokens=tokens)


class MeanContext(TypedDict):
    a: float | None
    b: float | None
    tokenizer: str


class Check(TypedDict):
    """Run B against run A: like-for-like when nothing differs; what could not be compared is said apart."""

    a: str
    b: str
    like_for_like: bool
    differences: list[str]
    unknown: list[str]
    mean_context_tokens: MeanContext


def like_for_like(a: RunFacts, b: RunFacts) -> Check:
    """{"a", "b", "like_for_like", "differences": [line], "unknown": [line]} for run B against run A."""
    differences: list[str] = []
    unknown: list[str] = []
    if a.dataset_sha256 and b.dataset_sha256:
        if a.dataset_sha256 != b.dataset_sha256:
            differences.append(f"not like-for-like: different datasets (A: sha256 {a.dataset_sha256[:12]}, "
                               f"B: sha256 {b.dataset_sha256[:12]})")
    else:
        unknown.append("dataset could not be compared: " + _missing(a, b, lambda f: f.dataset_sha256,
                                                                     "no dataset sha256 in its manifest"))
    if a.question_ids != b.question_ids:
        differences.append(f"not like-for-like: different question sets (A: {len(a.question_ids)}, "
                           f"B: {len(b.question_ids)}; {len(a.question_ids - b.question_ids)} only in A, "
                           f"{len(b.question_ids - a.question_ids)} only in B)")
    if a.judges and b.judges:
        if set(a.judges) != set(b.judges):
            differences.append(f"not like-for-like: judged by different judges (A: {', '.join(a.judges)}, "
                               f"B: {', '.join(b.judges)})")
    else:
        unknown.append("judge could not be compared: " + _missing(a, b, lambda f: f.judges, "no judged line"))
    if a.top_k is not None and b.top_k is not None:
        if a.top_k != b.top_k:
            differences.append(f"not like-for-like: different top_k (A: {a.top_k}, B: {b.top_k})")
    else:
        unknown.append("top_k could not be compared: " + _missing(a, b, lambda f: f.top_k, "no top_k recorded"))
    context = _context_line(a, b)
    if context is not None:
        (unknown if context.startswith("context budget could not") else differences).append(context)
    return {"a": a.name, "b": b.name, "like_for_like": not differences, "differences": differences,
            "unknown": unknown,
            "mean_context_tokens": {"a": a.mean_context, "b": b.mean_context, "tokenizer": TOKENIZER}}


def _missing(a: RunFacts, b: RunFacts, value: Any, why: str) -> str:
    runs = [label for label, facts in (("A", a), ("B", b)) if value(facts) in (None, (), "")]
    return f"run {' and run '.join(runs)} {'has' if len(runs) == 1 else 'have'} {why}"


def _context_line(a: RunFacts, b: RunFacts) -> str | None:
    mean_a, mean_b = a.mean_context, b.mean_context
    if mean_a is None or mean_b is None:
        return ("context budget could not be compared: " + _missing(a, b, lambda f: f.context_tokens,
                                                                   "no context_tokens (a run from before readers' "
                                                                   "context was measured)"))
    low, high = sorted((mean_a, mean_b))
    if high <= low * (1 + CONTEXT_TOLERANCE):
        return None
    bigger, smaller = ("B", "A") if mean_b > mean_a else ("A", "B")
    ratio = f"{high / low:.1f}x" if low > 0 else "more than none of"
    return (f"not like-for-like: run {bigger}'s reader saw {ratio} the context of run {smaller}'s "
            f"(mean {mean_a:,.0f} vs {mean_b:,.0f} {TOKENIZER} tokens, A vs B)")


def check_lines(check: Check) -> list[str]:
    """The check as the lines `compare` opens with (A and B named first)."""
    head = f"Like-for-like check: A = {check['a']}, B = {check['b']}"
    if check["like_for_like"] and not check["unknown"]:
        return [head, "- like-for-like: same dataset, question set, judge and top_k; mean context within "
                      f"{CONTEXT_TOLERANCE:.0%}"]
    return [head] + [f"- {line}" for line in check["differences"] + check["unknown"]]
