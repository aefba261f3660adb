"""The colour of each attribution stage: one palette for the report's `plots/attribution.png` and the run
browser's inline chart, so a stage looks the same wherever it is drawn (no imports: the view reads it too)."""

from __future__ import annotations

STAGE_COLORS: dict[str, str] = {
    "correct": "#2e7d32", "false_answer": "#ad1457", "not_written": "#c62828", "not_retrieved": "#ef6c00",
    "not_used": "#f2b705", "no_evidence": "#8d8d8d", "unattributed": "#b0bec5"}
OTHER_STAGE = "#555555"   # a stage this palette does not know (a newer run read by an older harness)
