"""Pick which questions a run asks: explicit ids, types, a stratified sample, then a limit.

Works on the cheap (question_id, question_type) index, before any haystack is parsed. The
result keeps dataset order, so a subset run reads the file in one forward pass and two runs
with the same settings ask the same questions in the same order. The stratified sample keeps
every type's share (task-averaged accuracy needs every type present): proportional allocation
with largest-remainder rounding, seeded per type so changing one type's pool does not reshuffle
the others. Abstention questions keep their type, as in LongMemEval, and are sampled within it.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable, Sequence

from benchmarker.errors import DatasetError

Index = Sequence[tuple[str, str]]
log = logging.getLogger(__name__)
_told: set[tuple[int, str, int, str]] = set()   # a sample warning is said once per process (replay selects 4 times)


def select_question_ids(index: Index, *, question_ids: Iterable[str] = (),
                        question_types: Iterable[str] = (), limit: int = 0, sample: int = 0,
                        sample_seed: int = 42, source: str = "the dataset", known_types: Iterable[str] = ()
                        ) -> list[str]:
    """Apply `[run]` question_ids, question_types, sample and limit (in that order). A type in
    `known_types` (the benchmark's own list) selects nothing when absent rather than failing."""
    wanted_ids, wanted_types = list(question_ids), list(question_types)
    if limit < 0 or sample < 0:
        raise DatasetError("[run].limit and [run].sample must be >= 0 (0 means off)")
    pool = list(index)
    if wanted_ids:
        known = {qid for qid, _ in pool}
        unknown = [qid for qid in dict.fromkeys(wanted_ids) if qid not in known]
        if unknown:
            raise DatasetError(f"[run].question_ids: {len(unknown)} not in {source}: "
                               f"{_listing(unknown)}. Check for typos; ids are case-sensitive")
        keep = set(wanted_ids)
        pool = [row for row in pool if row[0] in keep]
    if wanted_types:
        present = {qtype for _, qtype in index}
        known = set(known_types)
        unknown = [t for t in dict.fromkeys(wanted_types) if t not in present and t not in known]
        if unknown:
            raise DatasetError(f"[run].question_types: unknown type {_listing(unknown)}; types "
                               f"in {source}: {_listing(sorted(present))}")
        keep = set(wanted_types)
        pool = [row for row in pool if row[1] in keep]
    if sample:
        if sample > len(pool):   # say so: a 60-question sample of a 5-question file is 5 questions
            narrowed = " matching [run].question_ids / question_types" if wanted_ids or wanted_types else ""
            if (sample, source, len(pool), narrowed) not in _told:
                _told.add((sample, source, len(pool), narrowed))
                log.warning("[run].sample = %d but %s has only %d question(s)%s: running all %d",
                            sample, source, len(pool), narrowed, len(pool))
        pool = stratified_sample(pool, sample, sample_seed)
    if limit:
        pool = pool[:limit]
    if index and not pool:
        raise DatasetError(f"the [run] selection matches no question in {source} "
                           "(question_ids and question_types exclude each other?)")
    return [qid for qid, _ in pool]


def stratified_sample(pool: Index, size: int, seed: int) -> list[tuple[str, str]]:
    """`size` rows with each type's share kept; input order kept; deterministic per seed."""
    if size >= len(pool):
        return list(pool)
    by_type: dict[str, list[str]] = {}
    for qid, qtype in pool:
        by_type.setdefault(qtype, []).append(qid)
    counts = allocate(size, {t: len(ids) for t, ids in by_type.items()})
    chosen: set[str] = set()
    for qtype, ids in by_type.items():
        rng = random.Random(f"{seed}:{qtype}")  # str seeds are stable across processes
        chosen.update(rng.sample(ids, counts[qtype]))
    return [row for row in pool if row[0] in chosen]


def allocate(size: int, counts: dict[str, int]) -> dict[str, int]:
    """Largest-remainder apportionment of `size` over types; >= 1 each when size allows."""
    total = sum(counts.values())
    ideal = {t: size * n / total for t, n in counts.items()}
    alloc = {t: int(v) for t, v in ideal.items()}
    order = sorted(counts, key=lambda t: (-(ideal[t] - alloc[t]), -counts[t], t))
    for qtype in order[: size - sum(alloc.values())]:
        alloc[qtype] += 1
    if size >= len(counts):
        # every type must be present for task-averaged accuracy; take from the most over-served
        for qtype in sorted(t for t in counts if alloc[t] == 0):
            donor = max((t for t in alloc if alloc[t] > 1),
                        key=lambda t: (alloc[t] - ideal[t], alloc[t], t))
            alloc[donor] -= 1
            alloc[qtype] = 1
    return alloc


def _listing(items: Sequence[str], shown: int = 10) -> str:
    text = ", ".join(items[:shown])
    return text + (f" ... ({len(items) - shown} more)" if len(items) > shown else "")
