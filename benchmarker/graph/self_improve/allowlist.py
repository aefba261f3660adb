"""What the self-improve loop may change, enforced in code: everything else is refused.

May change (always in copies inside the run directory): the memory agent's prompt files, the QA
reader prompt, and the tunables top_k, alpha and context_cadence. May never change: graders,
judge and rubric prompts, datasets and gold answers, the eval settings, and the loop's own
rules (this module, its prompts, `[self_improve]`). A proposal is checked when it is made and
again when it is applied, so no path around the check exists.
"""

from __future__ import annotations

import math
import posixpath
from typing import Any

from benchmarker.graph.self_improve.shapes import Proposal, TunableName, Tunables

# The prompt files a proposal may patch (copies under candidates/<n>/prompts/).
PROMPT_FILES = ("qa_reader.txt", "memory_agent_prefix.txt", "agent_turn.txt")
# Tunable -> (type, lowest, highest); ranges are the config schema's.
TUNABLES: dict[TunableName, tuple[type, float, float]] = {
    "top_k": (int, 1, 100),
    "alpha": (float, 0.0, 1.0),
    "context_cadence": (int, 1, 100),
}
# Config-path spellings a model may use for a tunable.
ALIASES: dict[str, TunableName] = {
    "params.top_k": "top_k", "params.context_cadence": "context_cadence", "memory.search_alpha": "alpha",
    "search_alpha": "alpha", "search.top_k": "top_k", "search.alpha": "alpha",
}
PROPOSAL_KINDS = ("config", "diff")


class Refused(ValueError):
    """A proposal that touches something outside the allowlist (the message says what and why)."""


def prompt_file(path: str) -> str:
    """The allowlisted prompt file a diff path names (`prompts/qa_reader.txt` -> `qa_reader.txt`)."""
    raw = str(path).strip()
    if raw.startswith(("a/", "b/")):
        raw = raw[2:]
    if not raw or "\\" in raw or "\x00" in raw:
        raise Refused(f"refused: diff path {path!r} is not a plain relative path")
    if raw.startswith("/") or raw.startswith("~") or ":" in raw.split("/")[0]:
        raise Refused(f"refused: diff path {path!r} is absolute; only the prompt copies may change")
    parts = raw.split("/")
    if ".." in parts or "." in parts:
        raise Refused(f"refused: diff path {path!r} contains '.' or '..'")
    normal = posixpath.normpath(raw)
    name = normal[len("prompts/"):] if normal.startswith("prompts/") else normal
    if name not in PROMPT_FILES:
        raise Refused(f"refused: {path!r} is not on the allowlist; a diff may only change the copies of "
                      f"{', '.join('prompts/' + f for f in PROMPT_FILES)} (graders, judge prompts, datasets "
                      "and the loop's own rules are never changed)")
    return name


def config_delta(delta: object) -> Tunables:
    """The delta with canonical tunable names and checked values, or Refused."""
    if not isinstance(delta, dict) or not delta:
        raise Refused(f"refused: a config delta must be a non-empty object of tunables, got {delta!r}")
    out: Tunables = {}
    for key, value in delta.items():
        name = _tunable(key)
        out[name] = _value(name, value)
    return out


def _tunable(key: object) -> TunableName:
    """The canonical tunable a config key names (an alias or the name itself), or Refused."""
    spelled = str(key)
    name = ALIASES.get(spelled)
    for known in TUNABLES:
        if spelled == known:
            name = known
    if name is None:
        raise Refused(f"refused: config key {key!r} is not tunable; only {', '.join(TUNABLES)} may change "
                      "(graders, judge settings, datasets and [self_improve] are never changed)")
    return name


def delta_items(delta: Tunables) -> list[tuple[TunableName, int | float]]:
    """A checked delta's (tunable, value) pairs, in order: `config_delta` made every value a number."""
    items: list[tuple[TunableName, int | float]] = []
    for key, value in delta.items():
        assert isinstance(value, (int, float)), f"unchecked delta value {value!r}"
        items.append((_tunable(key), value))
    return items


def _value(name: TunableName, value: Any) -> Any:
    kind, lo, hi = TUNABLES[name]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise Refused(f"refused: {name} must be a number, got {value!r}")
    if kind is int and float(value) != int(value):
        raise Refused(f"refused: {name} must be a whole number, got {value!r}")
    if not lo <= value <= hi:
        raise Refused(f"refused: {name} = {value!r} is outside {lo:g}..{hi:g}")
    return int(value) if kind is int else round(float(value), 4)


def check_proposal(proposal: Proposal) -> Proposal:
    """A proposal in canonical form ({"kind", "delta" | "diff", "files"}), or Refused."""
    kind = proposal.get("kind")
    if kind not in PROPOSAL_KINDS:
        raise Refused(f"refused: proposal kind must be one of {PROPOSAL_KINDS}, got {kind!r}")
    if kind == "config":
        return proposal | {"delta": config_delta(proposal.get("delta")), "diff": None, "files": []}
    from benchmarker.graph.self_improve.diffs import PatchError, parse_unified_diff

    diff = proposal.get("diff")
    if not isinstance(diff, str) or not diff.strip():
        raise Refused("refused: a diff proposal needs a non-empty unified diff")
    try:
        patches = parse_unified_diff(diff)
    except PatchError as err:
        raise Refused(f"refused: unreadable diff: {err}") from err
    files = []
    for patch in patches:
        for path in (patch.old_path, patch.new_path):
            if path.split("\t", 1)[0].strip() == "/dev/null":
                raise Refused("refused: a diff may not create or delete files")
            files.append(prompt_file(path.split("\t", 1)[0]))
    return proposal | {"delta": {}, "files": sorted(set(files))}
