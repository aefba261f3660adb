"""DECIDE: keep a candidate only if its held-out gain is larger than the noise.

Paired over the held-out questions both configurations scored:
- significant: exact McNemar p < 0.05 on binary scores, or the paired-bootstrap 95% interval
  of the mean difference lies above 0 (the only test for non-binary scores);
- the gain exceeds `[self_improve].min_gain`;
- no question type, category or level (each with its own held-out questions) drops by more
  than 5 points.
Otherwise the candidate is reverted and the configuration in force stays.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Literal

from benchmarker.graph.self_improve.shapes import Drop, Scores, Stats
from benchmarker.scoring.stats import mcnemar_exact, paired_bootstrap

P_VALUE = 0.05        # [self_improve].p_value default
CATEGORY_DROP = 0.05  # [self_improve].category_drop default: 5 points
GROUPS: tuple[Literal["type", "category", "level"], ...] = ("type", "category", "level")


def paired(base: Scores, candidate: Scores, ids: list[str]) -> list[str]:
    """The ids both configurations scored, in order."""
    return [i for i in ids
            if i in base and base[i]["score"] is not None and i in candidate and candidate[i]["score"] is not None]


def decide(base: Scores, candidate: Scores, ids: list[str], *,
           min_gain: float = 0.0, seed: int = 0, p_value: float = P_VALUE,
           category_drop: float = CATEGORY_DROP) -> Stats:
    """The paired statistics and the verdict (`accept`, `reason`) for the held-out `ids`."""
    common = paired(base, candidate, ids)
    a = [float(base[i]["score"] or 0.0) for i in common]  # `paired` kept only scored ids
    b = [float(candidate[i]["score"] or 0.0) for i in common]
    if not common:
        return {"accept": False, "reason": "no held-out question was scored by both configurations", "n": 0}
    gain = (sum(b) - sum(a)) / len(common)
    binary = all(v in (0.0, 1.0) for v in a + b)
    out: Stats = {"n": len(common), "base": round(sum(a) / len(a), 4),
                           "candidate": round(sum(b) / len(b), 4), "gain": round(gain, 4), "binary": binary}
    if binary:
        worse = sum(1 for x, y in zip(a, b, strict=True) if x > y)
        better = sum(1 for x, y in zip(a, b, strict=True) if y > x)
        out["mcnemar"] = {"right_to_wrong": worse, "wrong_to_right": better,
                          "p": round(mcnemar_exact(worse, better), 6)}
    boot = paired_bootstrap(a, b, seed=seed)
    assert boot["lo"] is not None and boot["hi"] is not None  # None only for no pairs; `common` is not empty
    out["bootstrap"] = {"lo": round(boot["lo"], 4), "hi": round(boot["hi"], 4)}
    significant = ("mcnemar" in out and out["mcnemar"]["p"] < p_value) or boot["lo"] > 0
    out["significant"] = significant
    out["category_drops"] = category_drops(base, candidate, common, limit=category_drop)
    if gain <= min_gain:
        out.update({"accept": False, "reason": f"held-out gain {gain:+.3f} is not above min_gain {min_gain:g}"})
    elif not significant:
        out.update({"accept": False, "reason": f"held-out gain {gain:+.3f} is within noise ({_evidence(out)})"})
    elif out["category_drops"]:
        d = out["category_drops"][0]
        out.update({"accept": False, "reason": f"{d['group']} {d['name']!r} drops {d['drop'] * 100:.0f} points "
                                                 f"({d['base']:.2f} -> {d['candidate']:.2f}, n={d['n']})"})
    else:
        out.update({"accept": True, "reason": f"held-out gain {gain:+.3f} beyond noise ({_evidence(out)})"})
    return out


def _evidence(stats: Stats) -> str:
    parts = []
    if "mcnemar" in stats:
        m = stats["mcnemar"]
        parts.append(f"McNemar p={m['p']:.3g}, {m['wrong_to_right']} fixed / {m['right_to_wrong']} broken")
    parts.append(f"bootstrap 95% [{stats['bootstrap']['lo']:+.3f}, {stats['bootstrap']['hi']:+.3f}]")
    return "; ".join(parts)


def category_drops(base: Scores, candidate: Scores, common: list[str], *, limit: float = CATEGORY_DROP) -> list[Drop]:
    """Every group (type, category, level) whose paired mean falls by more than `limit`, worst first."""
    drops: list[Drop] = []
    for group in GROUPS:
        members: dict[str, list[str]] = defaultdict(list)
        for qid in common:
            name = base[qid].get(group)
            if name:
                members[name].append(qid)
        if len(members) < 2 and group != "type":
            continue  # a single category is the overall score, already tested
        for name, qids in sorted(members.items()):
            before = sum(base[q]["score"] or 0.0 for q in qids) / len(qids)  # common: scored on both sides
            after = sum(candidate[q]["score"] or 0.0 for q in qids) / len(qids)
            if before - after > limit + 1e-9:
                drops.append({"group": group, "name": name, "n": len(qids), "base": round(before, 4),
                              "candidate": round(after, 4), "drop": round(before - after, 4)})
    return sorted(drops, key=lambda d: -d["drop"])
