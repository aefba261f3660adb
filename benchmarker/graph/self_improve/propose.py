"""PROPOSE: one change to the configuration in force.

With a model (the run's judge model), the model reads the analysis, the prompt copies, the
tunables and the history of earlier attempts (`prompts/self_improve_propose.txt`) and answers
JSON: a config delta or a unified diff against the prompt copies, with its rationale. Offline,
or when the model's answer is unusable, coordinate ascent over the tunables: step one rung of
a ladder up or down, nearest rungs first, skipping every configuration already tried.
"""

from __future__ import annotations

import json
from typing import Any

from benchmarker.agent.messages import message_text
from benchmarker.graph.self_improve.allowlist import PROMPT_FILES, Refused, check_proposal
from benchmarker.graph.self_improve.analyze import analysis_text
from benchmarker.graph.self_improve.candidate import candidate_key, describe

def search_space(config, mode: str) -> dict[str, tuple]:
    """The tunables worth searching here (ladders from `[self_improve]`): alpha only where a request
    can set it, cadence only with an agent."""
    si = config.self_improve
    space: dict[str, tuple] = {"top_k": tuple(si.top_k_ladder)}
    memory = config.memory
    if memory.backend == "embedded" and memory.embedder != "none":
        space["alpha"] = tuple(si.alpha_ladder)  # a real Mycelian's alpha is service-wide: not tunable per run
    if mode == "agent":
        space["context_cadence"] = tuple(si.cadence_ladder)
    return space


def current(name: str, tunables: dict[str, Any], config) -> float:
    value = tunables.get(name)
    if name == "alpha" and value is None:
        return config.memory.alpha  # the service's own alpha
    return value


def _step(ladder: tuple, value: float, direction: str, distance: int) -> float | None:
    side = [v for v in ladder if v > value] if direction == "up" else [v for v in ladder if v < value][::-1]
    return side[distance - 1] if len(side) >= distance else None


def _directions(name: str, analysis: dict[str, Any]) -> tuple[str, str]:
    """Deeper search when evidence goes missing, shallower when the reader drowns; context more often
    when facts are lost at ingestion."""
    if name == "top_k":
        deeper = analysis.get("retrieval_failures", 0) >= analysis.get("reader_failures", 0)
        return ("up", "down") if deeper else ("down", "up")
    if name == "context_cadence":
        return ("down", "up")
    return ("up", "down")


def offline_proposal(best: dict[str, Any], tried: list[str], analysis: dict[str, Any], space: dict[str, tuple],
                     config, momentum: str | None = None) -> dict[str, Any] | None:
    """The next untried coordinate step, or None when the neighbourhood is exhausted."""
    names = list(space)
    if momentum in names:  # keep moving along the coordinate that last paid off
        names.remove(momentum)
        names.insert(0, momentum)
    seen = set(tried)
    for distance in range(1, config.self_improve.max_distance + 1):  # rungs away from the current value
        for name in names:
            value = current(name, best["tunables"], config)
            for direction in _directions(name, analysis):
                new = _step(space[name], value, direction, distance)
                if new is None:
                    continue
                tunables = best["tunables"] | {name: new}
                if candidate_key(tunables, best["prompts_hash"]) in seen:
                    continue
                rationale = (f"coordinate ascent: {name} {direction} {distance} rung(s), {value} -> {new}; "
                             f"training failures by cause: {analysis.get('causes') or 'none'}")
                return {"kind": "config", "delta": {name: new}, "diff": None, "rationale": rationale,
                        "source": "offline", "move": {"name": name, "direction": direction, "from": value, "to": new}}
    return None


async def model_proposal(model, *, best: dict[str, Any], prompts: dict[str, str], analysis: dict[str, Any],
                         history: list[dict[str, Any]], space: dict[str, tuple]) -> dict[str, Any]:
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
    return {"kind": kind, "delta": data.get("delta") or {}, "diff": data.get("diff"),
            "rationale": str(data.get("rationale") or "")[:2000], "source": "model"}


async def propose(model, *, best, prompts, analysis, history, tried, space, config) -> dict[str, Any] | None:
    """A checked proposal, a refused one (`refused` set), or None when nothing is left to try."""
    note = ""
    if model is not None:
        try:
            proposal = await model_proposal(model, best=best, prompts=prompts, analysis=analysis,
                                            history=history, space=space)
        except Exception as err:  # an unusable reply costs the iteration nothing: fall back
            note = f"model proposal unusable ({type(err).__name__}: {str(err)[:200]}); "
        else:
            try:
                return _applicable(check_proposal(proposal), space, prompts)
            except Refused as err:
                return proposal | {"refused": str(err)}
    momentum = next(((h.get("proposal") or {}).get("move", {}).get("name") for h in reversed(history)
                     if h.get("decision") == "accepted"), None)
    proposal = offline_proposal(best, tried, analysis, space, config, momentum)
    if proposal is None:
        return None
    if note:
        proposal["rationale"] = note + proposal["rationale"]
    return check_proposal(proposal)


def _applicable(proposal: dict[str, Any], space: dict[str, tuple], prompts: dict[str, str]) -> dict[str, Any]:
    """Allowed is not enough: alpha on a real Mycelian is service-wide, cadence means nothing without an agent,
    and a retrieval-only run reads no prompt."""
    if proposal["kind"] == "diff" and not prompts:
        raise Refused("refused: this run uses no prompt (retrieval-only), so a prompt diff cannot change its score")
    extra = sorted(set(proposal["delta"]) - set(space))
    if extra:
        raise Refused(f"refused: {', '.join(extra)} cannot be tuned in this run (tunable here: {', '.join(space)})")
    return proposal


def history_text(history: list[dict[str, Any]]) -> str:
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
    """The first JSON object in a model reply (benchmarker.eval.json_reply); ValueError when none."""
    from benchmarker.eval.json_reply import first_json_object

    value = first_json_object(text)
    if value is None:
        raise ValueError(f"no JSON object in the reply: {text[:200]!r}")
    return value
