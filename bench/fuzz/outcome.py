"""What one attack case ended as, and the per-group tally the report prints and saves.

Outcomes (every case ends in exactly one):
  ok        a valid input handled correctly (controls, verbatim round trips)
  clean     a bad input refused cleanly: a 4xx, or an isError tool result naming the argument
  unclear   refused, but the message does not name the argument (or the file)
  wrong     a valid input refused, or stored differently than it was sent
  5xx       a server error (HTTP 5xx, JSON-RPC internal error, an uncaught loader exception)
  crash     connection reset, timeout (hang), the process died, or the loader's process died
  accepted  a bad input that was accepted (the "unexpected accept")
  lost      an acknowledged write that is not listed or not searchable afterwards (or, for the run
            directory and adapter groups, records silently dropped or answers attributed to the wrong question)
  leaked    something escaped where it belongs: a file written outside the run directory, a process
            left running after close, a credential in an error message

The short table (issue 26) folds these into: tried, refused (clean + unclear), crashed (crash + 5xx),
lost, leaked.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

OUTCOMES = ("ok", "clean", "unclear", "wrong", "5xx", "crash", "accepted", "lost", "leaked")
EXAMPLES_PER_OUTCOME = 5
_QUIET = frozenset(("ok", "clean"))  # outcomes whose examples are not worth keeping


def rss_kb(pid: int | None) -> dict[str, int | None]:
    """VmRSS and VmHWM (peak) of `pid` in kB from /proc; None when unknown or gone."""
    out: dict[str, int | None] = {"rss": None, "peak": None}
    if pid is None:
        return out
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    out["rss"] = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    out["peak"] = int(line.split()[1])
    except (OSError, ValueError):
        pass
    return out


def reset_peak(pid: int | None) -> None:
    """Start VmHWM afresh so each group's peak is its own (Linux clear_refs 5; best effort)."""
    if pid is None:
        return
    try:
        with open(f"/proc/{pid}/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")
    except OSError:
        pass


@dataclass
class Tally:
    """Counts for one attack group plus the service's memory before and after it."""

    group: str
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    examples: dict[str, list[str]] = field(default_factory=dict)  # the first few, with what was seen
    labels: dict[str, list[str]] = field(default_factory=dict)  # every case of each non-quiet outcome
    extra: dict[str, Any] = field(default_factory=dict)
    rss_before_kb: int | None = None
    rss_after_kb: int | None = None
    rss_peak_kb: int | None = None
    seconds: float = 0.0
    _started: float = field(default=0.0, repr=False)

    @property
    def tried(self) -> int:
        return sum(self.counts.values())

    def add(self, outcome: str, label: str, detail: str = "") -> str:
        """Count one case; keep the first few non-quiet ones as examples."""
        if outcome not in self.counts:
            raise ValueError(f"outcome: {outcome!r} is not one of {', '.join(OUTCOMES)}")
        self.counts[outcome] += 1
        if outcome not in _QUIET:
            self.labels.setdefault(outcome, []).append(label)
            kept = self.examples.setdefault(outcome, [])
            if len(kept) < EXAMPLES_PER_OUTCOME:
                kept.append(f"{label}: {detail[:240]}" if detail else label)
        return outcome

    def short(self) -> dict[str, int]:
        """tried, refused, crashed, lost, leaked: the table the hardening issues report."""
        c = self.counts
        return {"tried": self.tried, "refused": c["clean"] + c["unclear"], "crashed": c["crash"] + c["5xx"],
                "lost": c["lost"], "leaked": c["leaked"]}

    def begin(self, pid: int | None) -> "Tally":
        reset_peak(pid)
        self.rss_before_kb = rss_kb(pid)["rss"]
        self._started = time.perf_counter()
        return self

    def end(self, pid: int | None) -> "Tally":
        self.seconds = round(time.perf_counter() - self._started, 2)
        memory = rss_kb(pid)
        self.rss_after_kb, self.rss_peak_kb = memory["rss"], memory["peak"]
        return self

    def as_json(self) -> dict[str, Any]:
        row = asdict(self)
        row.pop("_started")
        row["tried"] = self.tried
        row["short"] = self.short()
        return row
