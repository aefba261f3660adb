"""PROPOSE: one change to the configuration in force.

With a model (the run's judge model), the model reads the analysis, the prompt copies, the
tunables and the history of earlier attempts (`prompts/self_improve_propose.txt`) and answers
JSON: a config delta or a unified diff against the prompt copies, with its rationale. Offline,
or when the model's answer is unusable, coordinate ascent over the tunables: step one rung of
a ladder up or down, nearest rungs first, skipping every configuration already tried.

When the cause to fix is "not_written" (the analyst's: the memory agent never stored an
evidence message; analyze.py), no retrieval knob can help, and the proposal says so in a
`note` (also at the head of its rationale, which the reviewers and the log read). What acts on
writing: `context_cadence` (agent mode), only in part: it sets how often the agent rewrites the
context document the reader also sees, not whether an entry is added per message, so it is not
aimed at the analyst's not_written count, though the score may rise; its lower rungs are tried
first when it is tunable. With a model in agent mode, a diff to the memory agent's prompts also
acts on writing (and re-ingests). Where neither exists (retrieval mode), the note records that
the dominant failure is outside the tunable knobs and the proposal aims at the remaining
retrieval and reader failures; when none remain there is nothing honest to propose and the loop
stops. judged_wrong (a grader disagreement) is never a target.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from benchmarker.agent.messages import message_text
from benchmarker.config_schema import MemoryConfig, ParamsConfig, SelfImproveConfig
from benchmarker.graph.self_improve.allowlist import PROMPT_FILES, Refused, check_proposal
from benchmarker.graph.self_improve.analyze import WRITE_CAUSES, analysis_text
from benchmarker.graph.self_improve.candidate import INGEST_PROMPTS, candidate_key, describe
from benchmarker.graph.self_improve.shapes import (
    Analysis,
    Candidate,
    IterationLine,
    Proposal,
    TunableName,
    Tunables,
)
from benchmarker.redact import masked_preview

WRITE_KNOB: TunableName = "context_cadence"  # the one tunable that changes what ingestion writes (agent mode)

Space = dict[TunableName, tuple[float, ...]]  # tunable -> its ladder


@dataclass(frozen=True)
class TuningLimits:
    """What PROPOSE and CHALLENGE weigh a change against: the service's own alpha (the value of an alpha left
    unset), how many rungs one step may move, and the reader's context cap."""

    service_alpha: float          # [memory] alpha
    max_distance: int             # [self_improve] max_distance
    qa_max_context_chars: int     # [params] qa_max_context_chars

    @classmethod
    def of(cls, memory: MemoryConfig, self_improve: SelfImproveConfig, params: ParamsConfig) -> TuningLimits:
        return cls(memory.alpha, self_improve.max_distance, params.qa_max_context_chars)


def search_space(si: SelfImproveConfig, memory: MemoryConfig, mode: str) -> Space:
    """The tunables worth searching here (ladders from `[self_improve]`): alpha only where a request
    can set it (`[memory]`), cadence only with an agent."""
    space: Space = {"top_k": tuple(si.top_k_ladder)}
    if memory.backend == "embedded" and memory.embedder != "none":
        space["alpha"] = tuple(si.alpha_ladder)  # a real Mycelian's alpha is service-wide: not tunable per run
    if mode == "agent":
        space["context_cadence"] = tuple(si.cadence_ladder)
    return space


def current(name: TunableName, tunables: Tunables, service_alpha: float) -> float | None:
    value = tunables.get(name)
    if name == "alpha" and value is None:
        return service_alpha  # the service's own alpha
    return value


def _step(ladder: tuple[float, ...], value: float, direction: str, distance: int) -> float | None:
    side = [v for v in ladder if v > value] if direction == "up" else [v for v in ladder if v < value][::-1]
    return side[distance - 1] if len(side) >= distance else None


def _directions(name: TunableName, analysis: Analysis) -> tuple[str, str]:
    """Deeper search when evidence goes missing, shallower when the reader drowns; context more often
    when facts are lost at ingestion."""
    if name == "top_k":
        deeper = analysis.get("retrieval_failures", 0) >= analysis.get("reader_failures", 0)
        return ("up", "down") if deeper else ("down", "up")
    if name == "context_cadence":
        return ("down", "up")
    return ("up", "down")


def offline_proposal(best: Candidate, tried: list[str], analysis: Analysis, space: Space,
                     limits: TuningLimits, momentum: str | None = None) -> Proposal | None:
    """The next untried coordinate step, or None when the neighbourhood is exhausted. When facts were never
    written (target cause not_written), every rung of the write knob comes before any other tunable."""
    names = list(space)
    if momentum in names:  # keep moving along the coordinate that last paid off
        names.remove(momentum)
        names.insert(0, momentum)
    distances = range(1, limits.max_distance + 1)  # rungs away from the current value
    order = [(d, name, direction) for d in distances for name in names for direction in _directions(name, analysis)]
    if analysis.get("target_cause") in WRITE_CAUSES:  # context more often, every rung, before anything else
        first = [step for step in order if step[1:] == (WRITE_KNOB, "down")]
        order = first + [step for step in order if step not in first]
    seen = set(tried)
    for distance, name, direction in order:
        value = current(name, best["tunables"], limits.service_alpha)
        assert value is not None  # every tunable in the search space has one (eval_phase sets them all)
        new = _step(space[name], value, direction, distance)
        if new is None:
            continue
        delta = _set(Tunables(), name, new)
        if candidate_key(best["tunables"] | delta, best["prompts_hash"]) in seen:
            continue
        rationale = (f"coordinate ascent: {name} {direction} {distance} rung(s), {value} -> {new}; "
                     f"training failures by cause: {analysis.get('causes') or 'none'}")
        return {"kind": "config", "delta": delta, "diff": None, "rationale": rationale,
                "source": "offline", "move": {"name": name, "direction": direction, "from": value, "to": new}}
    return None


def _set(tunables: Tunables, name: TunableName, rung: float) -> Tunables:
    """`tunables` with one set to a rung of its ladder ([self_improve] ladders: whole numbers but for alpha's)."""
    if name == "alpha":
        tunables["alpha"] = rung
    elif name == "top_k":
        tunables["top_k"] = int(rung)
    else:
        tunables["context_cadence"] = int(rung)
    return tunables


async def model_proposal(model, *, best: Candidate, prompts: dict[str, str], analysis: Analysis,
                         history: list[IterationLine], space: Space) -> Proposal:
    """Ask the model for one change; raises ValueError when its reply holds no usable JSON."""
    from langchain_core.messages import HumanMessage

    from benchmarker.agent.prompts import load_prompt

    prompt = load_prompt("self_improve_propose.txt").format(
        analysis=analysis_text(analysis), tunables=describe(best["tunables"]),
        space=", ".join(f"{k} in {list(v)}" for k, v in space.items()),
        prompt_files="\n\n".join(f"--- prompts/{name} ---\n{text}" for name, text in prompts.items()
                                 if name in PROMPT_FILES) or "(none: a retrieval-only run reads no prompt; "
                                                             "propose a config delta)",
        history=history_text(history))
    reply = await model.ainvoke([HumanMessage(prompt)])
    data = parse_json_object(reply_text(reply.content))
    kind = str(data.get("kind") or ("diff" if data.get("diff") else "config")).lower()
    return {"kind": kind, "delta": data.get("delta") or Tunables(), "diff": data.get("diff"),
            "rationale": masked_preview(str(data.get("rationale") or ""), 2000), "source": "model"}


async def propose(model, *, best: Candidate, prompts: dict[str, str], analysis: Analysis, history: list[IterationLine],
                  tried: list[str], space: Space, limits: TuningLimits) -> Proposal | None:
    """A checked proposal, a refused one (`refused` set), a stop (`stop`: the reason), or None when
    nothing is left to try."""
    prompt_diffs = model is not None and bool(set(prompts) & set(INGEST_PROMPTS))
    guide = write_guidance(analysis, space, prompt_diffs=prompt_diffs)
    if guide is not None and WRITE_KNOB not in space and not prompt_diffs and not _remaining(analysis):
        return {"stop": f"{guide}: nothing is left for a change to address (judged_wrong failures are grader "
                        "disagreements), so nothing is proposed", "note": guide}
    note = ""
    if model is not None:
        shown = analysis if guide is None else analysis | {"note": guide}
        try:
            proposal = await model_proposal(model, best=best, prompts=prompts, analysis=shown,
                                            history=history, space=space)
        except Exception as err:  # an unusable reply costs the iteration nothing: fall back
            note = f"model proposal unusable ({type(err).__name__}: {masked_preview(str(err), 200)}); "
        else:
            try:
                return _noted(_applicable(check_proposal(proposal), space, prompts), analysis, space, best)
            except Refused as err:
                return proposal | {"refused": str(err)}
    momentum = next(((h.get("proposal") or {}).get("move", {}).get("name") for h in reversed(history)
                     if h.get("decision") == "accepted"), None)
    offline = offline_proposal(best, tried, analysis, space, limits, momentum)
    if offline is None:
        return None
    proposal = offline
    if note:
        proposal["rationale"] = note + proposal["rationale"]
    return _noted(check_proposal(proposal), analysis, space, best)


def _remaining(analysis: Analysis) -> int:
    """The training failures a retrieval or reader change could address."""
    return analysis.get("retrieval_failures", 0) + analysis.get("reader_failures", 0)


def _remaining_text(analysis: Analysis) -> str:
    return (f"the remaining {analysis.get('retrieval_failures', 0)} retrieval and "
            f"{analysis.get('reader_failures', 0)} reader failures")


def write_guidance(analysis: Analysis, space: Space, *, prompt_diffs: bool) -> str | None:
    """What can act on not_written, when it is the cause to fix (None otherwise): for the model's prompt."""
    if analysis.get("target_cause") not in WRITE_CAUSES:
        return None
    retrieval_knobs = ", ".join(k for k in space if k != WRITE_KNOB) or "none"
    parts = [f"the most common training failure (grader disagreements aside) is not_written "
             f"({analysis.get('write_failures', 0)} of "
             f"{analysis.get('failures', 0)}): no entry was ever written for an evidence message, "
             f"so no retrieval knob ({retrieval_knobs}) can fix it"]
    if WRITE_KNOB in space:
        parts.append(f"{WRITE_KNOB} is the one tunable on the write path, and only in part: it sets how often the "
                     "agent rewrites the context document the reader also sees, not whether it writes an entry per "
                     "message (a lower cadence may put unwritten facts before the reader; it is not aimed at the "
                     "not_written count)")
    if prompt_diffs:
        parts.append("a diff to the memory agent's prompts (" + ", ".join(INGEST_PROMPTS) + ") acts on what it "
                     "writes (every case is then ingested again)")
    if WRITE_KNOB not in space and not prompt_diffs:
        parts.append(f"it is outside the tunable knobs here; a change can only address {_remaining_text(analysis)}")
    return "; ".join(parts)


def _noted(proposal: Proposal, analysis: Analysis, space: Space, best: Candidate) -> Proposal:
    """When not_written is the cause to fix, a `note` (also heading the rationale) saying honestly what this
    change does about it."""
    if analysis.get("target_cause") not in WRITE_CAUSES:
        return proposal
    n, total = analysis.get("write_failures", 0), analysis.get("failures", 0)
    head = (f"the most common training failure (grader disagreements aside) is not_written ({n} of {total}: no "
            "entry was ever written for an evidence message), which no retrieval knob can fix")
    cadence = proposal["delta"].get(WRITE_KNOB) if proposal["kind"] == "config" else None
    if proposal["kind"] == "diff" and set(proposal.get("files") or []) & set(INGEST_PROMPTS):
        note = f"{head}; this diff changes the memory agent's prompts, so it acts on what is written (re-ingests)"
    elif cadence is not None and cadence < (best["tunables"].get(WRITE_KNOB) or 0):
        note = (f"{head}; {WRITE_KNOB} is the only tunable on the write path, and only in part: a lower cadence "
                "rewrites the context document the reader sees more often, which may carry facts no entry holds, "
                "but it does not tell the agent to write more entries, so it is not aimed at the not_written count "
                "(the score may still rise)")
    else:
        where = ("it is outside the tunable knobs (none here changes what is written)" if WRITE_KNOB not in space
                 else f"no untried lower {WRITE_KNOB} rung is left, so this change is not on the write path"
                 if proposal.get("source") == "offline" else "this change is not on the write path")
        note = f"{head}; {where}: it addresses only {_remaining_text(analysis)}"
    return proposal | {"note": note, "rationale": f"[{note}] {proposal.get('rationale', '')}"}


def _applicable(proposal: Proposal, space: Space, prompts: dict[str, str]) -> Proposal:
    """Allowed is not enough: alpha on a real Mycelian is service-wide, cadence means nothing without an agent,
    and a retrieval-only run reads no prompt."""
    if proposal["kind"] == "diff" and not prompts:
        raise Refused("refused: this run uses no prompt (retrieval-only), so a prompt diff cannot change its score")
    extra = sorted(set(proposal["delta"]) - set(space))
    if extra:
        raise Refused(f"refused: {', '.join(extra)} cannot be tuned in this run (tunable here: {', '.join(space)})")
    return proposal


def history_text(history: list[IterationLine]) -> str:
    if not history:
        return "(no earlier attempts)"
    lines = []
    for h in history:
        p = h.get("proposal") or {}
        what = json.dumps(p.get("delta")) if p.get("kind") == "config" else f"diff of {p.get('files')}"
        held = (h.get("stats") or {}).get("gain")
        lines.append(f"iteration {h['iteration']}: {p.get('kind')} {what} -> {h['decision']} "
                     f"(held-out gain {held}); {h.get('reason', '')}")
    return "\n".join(lines)


def reply_text(content: Any) -> str:
    return message_text(content)




def parse_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in a model reply (benchmarker.scoring.json_reply); ValueError when none."""
    from benchmarker.scoring.json_reply import first_json_object

    value = first_json_object(text)
    if value is None:
        raise ValueError(f"no JSON object in the reply: {text[:200]!r}")
    return value
