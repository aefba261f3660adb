"""CHALLENGE and VOTE: a devil's-advocate critique, a defence, then three reviewers.

Reviewers: quality (does the change address failures the analysis found?), regression risk
(could it lose what already works?), simplicity (is it the smallest change that could help?).
A majority (2 of 3) lets the proposal proceed to APPLY. Offline every role is a rule over the
analysis and the proposal; with a model the roles are prompts (`prompts/self_improve_challenge.txt`,
`prompts/self_improve_review.txt`) and a role whose reply is unusable falls back to its rule.
"""

from __future__ import annotations

import json
from typing import Any

from benchmarker.graph.self_improve.allowlist import delta_items
from benchmarker.graph.self_improve.analyze import READER_CAUSES, RETRIEVAL_CAUSES, WRITE_CAUSES, analysis_text
from benchmarker.graph.self_improve.candidate import INGEST_PROMPTS
from benchmarker.graph.self_improve.propose import TuningLimits, current, parse_json_object, reply_text
from benchmarker.graph.self_improve.shapes import Analysis, Candidate, Challenge, Proposal, Tally, Vote
from benchmarker.redact import masked_preview

REVIEWERS = {
    "quality": "Does the change address the failures the analysis found, for the right cause?",
    "regression": "Could the change lose answers that are right today (recall, context budget, big jumps)?",
    "simplicity": "Is this the smallest change that could help, without needless cost or complexity?",
}
BIG_TOP_K_RATIO = 4       # more than 4x the hits in one step
BIG_ALPHA_STEP = 0.5
LARGE_DIFF_LINES = 30
MAX_TOP_K = 50


def targets(proposal: Proposal, best: Candidate) -> tuple[str, ...]:
    """The failure causes a proposal could fix. not_written (the analyst's: never stored) only by what changes
    ingestion: the memory agent's prompts, or a lower context cadence (the context document the reader sees
    is rewritten more often; see propose.py for why that is only in part). judged_wrong by nothing."""
    if proposal["kind"] == "diff":
        files = set(proposal.get("files") or [])
        if files <= {"qa_reader.txt"}:
            return READER_CAUSES
        return (WRITE_CAUSES if files & set(INGEST_PROMPTS) else ()) + RETRIEVAL_CAUSES + READER_CAUSES
    causes: tuple[str, ...] = ()
    for name, new in delta_items(proposal["delta"]):
        if name == "top_k":
            old_k = best["tunables"]["top_k"]  # eval_phase sets top_k on candidate 0, and every candidate inherits it
            causes += RETRIEVAL_CAUSES if new > old_k else READER_CAUSES
        elif name == "alpha":
            causes += RETRIEVAL_CAUSES
        else:
            old = best["tunables"].get(name)  # context_cadence: alpha and top_k are above
            causes += (WRITE_CAUSES if name == "context_cadence" and old is not None and new < old else ())
            causes += RETRIEVAL_CAUSES + READER_CAUSES
    return tuple(dict.fromkeys(causes))


def offline_challenge(proposal: Proposal, analysis: Analysis, best: Candidate, *,
                      holdout_n: int, mode: str, limits: TuningLimits) -> Challenge:
    concerns: list[str] = []
    critique = [f"With {holdout_n} held-out questions one changed answer moves the score by "
                f"{1 / max(holdout_n, 1):.0%}; a small gain is indistinguishable from noise."]
    if proposal["kind"] == "config":
        for name, new in delta_items(proposal["delta"]):
            old = current(name, best["tunables"], limits.service_alpha)
            concerns += _config_concerns(name, old, new, analysis, mode, limits.qa_max_context_chars, critique)
    else:
        changed = _changed_lines(proposal.get("diff") or "")
        critique.append(f"A prompt edit ({changed} changed lines) can fit the training examples and hurt other "
                        "question types.")
        if changed > LARGE_DIFF_LINES:
            concerns.append("large_diff")
        if mode == "agent" and set(proposal.get("files") or []) & set(INGEST_PROMPTS):
            concerns.append("reingest")
    aims = targets(proposal, best)
    addressed = sum(analysis["causes"].get(c, 0) for c in aims)
    if analysis.get("target_cause") in WRITE_CAUSES and not set(aims) & set(WRITE_CAUSES):
        critique.append(f"The most common training failure is not_written ({analysis.get('write_failures', 0)}): "
                        "evidence never written as an entry; this change does not act on writing.")
    if not addressed:
        concerns.append("untargeted")
        critique.append(f"None of the {analysis['failures']} training failures is of a kind this change addresses "
                        f"({', '.join(aims)}).")
    defence = (f"The change addresses {addressed} of {analysis['failures']} training failures "
               f"(causes {', '.join(aims)}; observed {analysis['causes'] or 'none'}). "
               "DECIDE keeps it only if the held-out gain survives a paired test, so a wrong guess is reverted.")
    return {"critique": " ".join(critique), "defence": defence, "concerns": sorted(set(concerns)),
            "targets": list(aims), "addressed": addressed, "source": "offline"}


def _config_concerns(name: str, old, new, analysis, mode: str, max_context_chars: int, critique: list[str]) -> list[str]:
    concerns = []
    if name == "top_k" and new > old:
        per_hit = analysis.get("chars_per_hit")
        critique.append(f"top_k {old} -> {new} gives the reader more, and noisier, context.")
        if mode == "agent" and per_hit and new * per_hit > max_context_chars:
            concerns.append("truncation")  # the extra hits would be cut from the reader's context anyway
        if new > BIG_TOP_K_RATIO * old:
            concerns.append("big_step")
        if new > MAX_TOP_K:
            concerns.append("too_deep")
    elif name == "top_k":
        critique.append(f"top_k {old} -> {new} drops hits that may hold evidence.")
        if analysis.get("retrieval_failures", 0):
            concerns.append("recall_loss")
    elif name == "alpha":
        critique.append(f"alpha {old} -> {new} shifts the keyword/vector balance for every question type at once.")
        if abs(new - old) > BIG_ALPHA_STEP:
            concerns.append("big_step")
    elif name == "context_cadence":
        critique.append(f"context cadence {old} -> {new} changes what ingestion writes: every memory is rebuilt.")
        if mode == "agent":
            concerns.append("reingest")
    return concerns


def _changed_lines(diff: str) -> int:
    return sum(1 for line in diff.splitlines()
               if line[:1] in "+-" and not line.startswith(("+++ ", "--- ")))


def offline_votes(proposal: Proposal, challenge: Challenge) -> list[Vote]:
    concerns = set(challenge["concerns"])
    quality = challenge["addressed"] > 0
    risky = sorted(concerns & {"recall_loss", "truncation", "big_step"})
    heavy = sorted(concerns & {"large_diff", "too_deep"})
    many = proposal["kind"] == "config" and len(proposal["delta"]) > 2
    return [
        {"reviewer": "quality", "approve": quality, "source": "offline",
         "reason": (f"targets {challenge['addressed']} training failures" if quality
                    else "addresses none of the training failures")},
        {"reviewer": "regression", "approve": not risky, "source": "offline",
         "reason": f"risks: {', '.join(risky)}" if risky else "no known regression risk beyond noise"},
        {"reviewer": "simplicity", "approve": not heavy and not many, "source": "offline",
         "reason": (f"too heavy: {', '.join(heavy) or 'changes more than two tunables'}" if heavy or many
                    else "one small change")},
    ]


def tally(votes: list[Vote]) -> Tally:
    approvals = sum(1 for v in votes if v["approve"])
    return {"votes": votes, "approvals": approvals, "passed": approvals * 2 > len(votes)}


# --- with a model -------------------------------------------------------------------------------

async def model_challenge(model, proposal: Proposal, analysis: Analysis, fallback: Challenge) -> Challenge:
    """The model argues both sides in turn; each side falls back to the rule-based text."""
    out = fallback.copy()
    out["source"] = "model"
    critique = await _ask(model, "self_improve_challenge.txt", role="devil's advocate",
                          instructions="Argue against the proposal: the strongest reasons it will not help or will "
                                       "regress. List short concern codes.",
                          proposal=_show(proposal), analysis=analysis_text(analysis), critique="(none yet)")
    if critique and critique.get("text"):
        out["critique"] = str(critique["text"])
        out["concerns"] = sorted(set(fallback["concerns"]) | {str(c) for c in critique.get("concerns") or []})
    else:
        out["source"] = "offline (model reply unusable)"
    defence = await _ask(model, "self_improve_challenge.txt", role="defender",
                         instructions="Answer the critique: why the proposal is still worth testing on held-out data.",
                         proposal=_show(proposal), analysis=analysis_text(analysis), critique=out["critique"])
    if defence and defence.get("text"):
        out["defence"] = str(defence["text"])
    return out


async def model_votes(model, proposal: Proposal, analysis: Analysis, challenge: Challenge,
                      fallback: list[Vote]) -> list[Vote]:
    votes: list[Vote] = []
    for rule in fallback:
        name = rule["reviewer"]
        data = await _ask(model, "self_improve_review.txt", reviewer=name, focus=REVIEWERS[name],
                          proposal=_show(proposal), analysis=analysis_text(analysis),
                          critique=challenge["critique"], defence=challenge["defence"])
        if data is not None and isinstance(data.get("approve"), bool):
            votes.append({"reviewer": name, "approve": data["approve"],
                          "reason": masked_preview(str(data.get("reason") or ""), 500), "source": "model"})
        else:
            votes.append(rule | {"source": "offline (model reply unusable)"})
    return votes


async def _ask(model, prompt_name: str, **fields: str) -> dict[str, Any] | None:
    from langchain_core.messages import HumanMessage

    from benchmarker.agent.prompts import load_prompt

    try:
        reply = await model.ainvoke([HumanMessage(load_prompt(prompt_name).format(**fields))])
        return parse_json_object(reply_text(reply.content))
    except Exception:  # the rule-based reviewer stands in; the log records the source
        return None


def _show(proposal: Proposal) -> str:
    shown = {k: proposal.get(k) for k in ("kind", "delta", "diff", "rationale") if proposal.get(k)}
    return json.dumps(shown, indent=2)


async def challenge(model, proposal: Proposal, analysis: Analysis, best: Candidate, *, holdout_n: int, mode: str,
                    limits: TuningLimits) -> Challenge:
    rules = offline_challenge(proposal, analysis, best, holdout_n=holdout_n, mode=mode, limits=limits)
    return rules if model is None else await model_challenge(model, proposal, analysis, rules)


async def vote(model, proposal: Proposal, analysis: Analysis, challenge_result: Challenge) -> Tally:
    rules = offline_votes(proposal, challenge_result)
    votes = rules if model is None else await model_votes(model, proposal, analysis, challenge_result, rules)
    return tally(votes)
